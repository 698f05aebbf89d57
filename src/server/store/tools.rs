//! Tools: the registered tool inventory and usage (§6.1), plus the per-actor cold-cache
//! bookkeeping that decides when the inventory answers the warming placeholder.

use super::{Family, Migration, SEED_EPOCH, StoreError, rfc3339};
use rusqlite::{Connection, OptionalExtension, Transaction, params};
use serde_json::{Value, json};

pub const FAMILY: Family = Family {
    name: "tools",
    migrations: MIGRATIONS,
    seed,
};

const MIGRATIONS: &[Migration] = &[Migration {
    version: 1,
    name: "tools inventory",
    sql: "CREATE TABLE tools (
        name TEXT PRIMARY KEY,
        sort_key INTEGER NOT NULL,
        category TEXT NOT NULL,
        description TEXT NOT NULL,
        registered_schema INTEGER NOT NULL,
        dispatch_registered INTEGER NOT NULL,
        direct_call_allowed INTEGER NOT NULL,
        surfaces_json TEXT NOT NULL,
        doc_refs_json TEXT NOT NULL,
        prompt_hints_json TEXT NOT NULL,
        calls INTEGER NOT NULL,
        failures INTEGER NOT NULL,
        last_called_at INTEGER
    );",
}];

/// (name, category, description, surfaces, direct call, calls, failures).
type SeedTool = (
    &'static str,
    &'static str,
    &'static str,
    &'static [&'static str],
    bool,
    i64,
    i64,
);

const SEED: &[SeedTool] = &[
    (
        "masc_board_post",
        "board",
        "Post to the board",
        &["public_mcp", "keeper"],
        true,
        214,
        3,
    ),
    (
        "masc_board_list",
        "board",
        "List board posts by hearth and sort",
        &["public_mcp", "keeper"],
        true,
        1_902,
        0,
    ),
    (
        "masc_board_comment",
        "board",
        "Comment on a board post",
        &["public_mcp", "keeper"],
        true,
        388,
        1,
    ),
    (
        "masc_board_vote",
        "board",
        "Vote on a board post",
        &["keeper"],
        false,
        97,
        0,
    ),
    (
        "masc_add_task",
        "tasks",
        "Add a task to the workspace backlog",
        &["public_mcp", "keeper"],
        true,
        156,
        2,
    ),
    (
        "masc_claim_task",
        "tasks",
        "Claim a todo task for a keeper",
        &["keeper"],
        false,
        143,
        5,
    ),
    (
        "masc_update_task",
        "tasks",
        "Move a task through its statuses",
        &["keeper"],
        false,
        611,
        9,
    ),
    (
        "masc_task_history",
        "tasks",
        "Read a task's event history",
        &["public_mcp", "keeper"],
        true,
        420,
        0,
    ),
    (
        "masc_goal_update",
        "goals",
        "Update a goal's phase or metric",
        &["keeper"],
        false,
        58,
        1,
    ),
    (
        "masc_broadcast",
        "operator",
        "Broadcast a message to every keeper (confirm required)",
        &["operator"],
        false,
        12,
        0,
    ),
    (
        "masc_pause",
        "operator",
        "Pause the workspace namespace (confirm required)",
        &["operator"],
        false,
        4,
        0,
    ),
    (
        "masc_resume",
        "operator",
        "Resume the workspace namespace (confirm required)",
        &["operator"],
        false,
        4,
        0,
    ),
    (
        "masc_operator_confirm",
        "operator",
        "Confirm or deny a pending operator action",
        &["operator", "public_mcp"],
        true,
        20,
        1,
    ),
    (
        "masc_keeper_delegate",
        "keepers",
        "Send a message to a keeper and wait for the reply",
        &["public_mcp", "operator"],
        true,
        733,
        14,
    ),
    (
        "masc_keeper_status",
        "keepers",
        "Probe a keeper's health and lane",
        &["public_mcp", "operator"],
        true,
        1_288,
        0,
    ),
    (
        "masc_keeper_recover",
        "keepers",
        "Restart a failed keeper lane (confirm required)",
        &["operator"],
        false,
        6,
        2,
    ),
    (
        "masc_keeper_ask",
        "keepers",
        "Ask the operator a structured question",
        &["keeper"],
        false,
        31,
        0,
    ),
    (
        "channel_gate",
        "connectors",
        "Bind or unbind a connector channel to a keeper",
        &["operator"],
        true,
        64,
        1,
    ),
    (
        "connector_send",
        "connectors",
        "Send a message through a connector channel",
        &["keeper"],
        false,
        2_044,
        37,
    ),
    (
        "runtime_config_read",
        "runtime",
        "Read the runtime configuration and its revision",
        &["public_mcp"],
        true,
        88,
        0,
    ),
    (
        "runtime_config_save",
        "runtime",
        "Save runtime.toml with a revision check",
        &["operator"],
        false,
        9,
        1,
    ),
    (
        "keeper_time_now",
        "builtin",
        "Current time in the workspace time zone",
        &["keeper"],
        false,
        5_310,
        0,
    ),
    (
        "keeper_web_fetch",
        "builtin",
        "Fetch a URL through the sandbox proxy",
        &["keeper"],
        false,
        902,
        61,
    ),
    (
        "keeper_shell",
        "builtin",
        "Run a command inside the keeper sandbox",
        &["keeper"],
        false,
        3_977,
        212,
    ),
    (
        "keeper_memory_note",
        "builtin",
        "메모 저장: keep a short note across turns",
        &["keeper"],
        false,
        455,
        0,
    ),
    (
        "keeper_compose_nightly-verification",
        "skill",
        "Composition skill: nightly verification flow",
        &["keeper"],
        false,
        22,
        1,
    ),
];

fn seed(tx: &Transaction<'_>) -> Result<(), StoreError> {
    for (i, (name, category, description, surfaces, direct, calls, failures)) in
        SEED.iter().enumerate()
    {
        let docs = if *category == "builtin" {
            json!([])
        } else {
            json!([format!("docs/tools/{name}.md")])
        };
        let hints = match *category {
            "operator" => json!(["Runs only after its own actor confirms it."]),
            "board" => json!(["게시판 글은 짧고 분명하게."]),
            _ => json!([]),
        };
        let last = (*calls > 0).then_some(SEED_EPOCH - 97 * (i as i64 + 1));
        tx.execute(
            "INSERT INTO tools (name, sort_key, category, description, registered_schema,
                dispatch_registered, direct_call_allowed, surfaces_json, doc_refs_json,
                prompt_hints_json, calls, failures, last_called_at)
             VALUES (?1, ?2, ?3, ?4, 1, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            params![
                name,
                i as i64,
                category,
                description,
                // One tool is registered but not dispatchable (a stale schema).
                *name != "masc_goal_update",
                direct,
                json!(surfaces).to_string(),
                docs.to_string(),
                hints.to_string(),
                calls,
                failures,
                last,
            ],
        )?;
    }
    Ok(())
}

pub struct ToolRow {
    pub name: String,
    pub category: String,
    pub row: Value,
    pub calls: i64,
    pub failures: i64,
    pub last_called_at: Option<i64>,
    pub surfaces: Vec<String>,
}

/// Every registered tool in inventory order.
pub fn inventory(conn: &Connection) -> Result<Vec<ToolRow>, StoreError> {
    let mut stmt = conn.prepare(
        "SELECT name, category, description, registered_schema, dispatch_registered,
                direct_call_allowed, surfaces_json, doc_refs_json, prompt_hints_json, calls,
                failures, last_called_at
         FROM tools ORDER BY sort_key, name",
    )?;
    let raw = stmt.query_map([], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, bool>(3)?,
            r.get::<_, bool>(4)?,
            r.get::<_, bool>(5)?,
            r.get::<_, String>(6)?,
            r.get::<_, String>(7)?,
            r.get::<_, String>(8)?,
            (
                r.get::<_, i64>(9)?,
                r.get::<_, i64>(10)?,
                r.get::<_, Option<i64>>(11)?,
            ),
        ))
    })?;
    let mut out = Vec::new();
    for row in raw {
        let (name, category, description, schema, dispatch, direct, surf, docs, hints, usage) =
            row?;
        let surfaces: Vec<String> = serde_json::from_str(&surf)?;
        let docs: Value = serde_json::from_str(&docs)?;
        let hints: Value = serde_json::from_str(&hints)?;
        out.push(ToolRow {
            row: json!({
                "name": name,
                "description": description,
                "category": category,
                "registered_schema": schema,
                "dispatch_registered": dispatch,
                "direct_call_allowed": direct,
                "surfaces": surfaces,
                "doc_refs": docs,
                "prompt_hints": hints,
            }),
            name,
            category,
            calls: usage.0,
            failures: usage.1,
            last_called_at: usage.2,
            surfaces,
        });
    }
    Ok(out)
}

/// Count one call of a tool (board posts made through the tool route).
pub fn record_call(tx: &Transaction<'_>, name: &str, at: i64) -> Result<(), StoreError> {
    tx.execute(
        "UPDATE tools SET calls = calls + 1, last_called_at = ?2 WHERE name = ?1",
        params![name, at],
    )?;
    Ok(())
}

/// Last change of the inventory or its usage (the body's `generated_at`, so an unchanged
/// inventory keeps its ETag).
pub fn generated_at(conn: &Connection) -> Result<String, StoreError> {
    let last: Option<i64> = conn
        .query_row("SELECT MAX(last_called_at) FROM tools", [], |r| r.get(0))
        .optional()?
        .flatten();
    Ok(rfc3339(last.unwrap_or(SEED_EPOCH).max(SEED_EPOCH)))
}

/// When the inventory answers the warming placeholder (§6.1 cold per-actor cache).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolsWarming {
    /// Always settled.
    Off,
    /// Only the very first inventory read after start is warming (the default).
    FirstRead,
    /// Each actor's first `reads` inventory reads after start are warming.
    PerActor { reads: u32 },
}

// The counters live in TEMP tables: they belong to this connection, so they restart with
// the server, like MASC's in-memory cache.
const WARMING_TABLES: &str = "CREATE TEMP TABLE IF NOT EXISTS tools_warming_setting (
        id INTEGER PRIMARY KEY CHECK (id = 1), mode TEXT NOT NULL, reads INTEGER NOT NULL);
    CREATE TEMP TABLE IF NOT EXISTS tools_warming_reads (
        actor TEXT PRIMARY KEY, reads INTEGER NOT NULL);";

pub fn set_warming(tx: &Transaction<'_>, mode: ToolsWarming) -> Result<(), StoreError> {
    tx.execute_batch(WARMING_TABLES)?;
    let (name, reads) = match mode {
        ToolsWarming::Off => ("off", 0),
        ToolsWarming::FirstRead => ("first_read", 1),
        ToolsWarming::PerActor { reads } => ("per_actor", reads),
    };
    tx.execute(
        "INSERT OR REPLACE INTO tools_warming_setting (id, mode, reads) VALUES (1, ?1, ?2)",
        params![name, reads],
    )?;
    tx.execute("DELETE FROM tools_warming_reads", [])?;
    Ok(())
}

/// Count this read for `actor`; true when it must answer the warming placeholder.
pub fn take_warming_read(tx: &Transaction<'_>, actor: &str) -> Result<bool, StoreError> {
    tx.execute_batch(WARMING_TABLES)?;
    let setting: Option<(String, u32)> = tx
        .query_row(
            "SELECT mode, reads FROM tools_warming_setting WHERE id = 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    let (mode, limit) = setting.unwrap_or(("first_read".into(), 1));
    let key = if mode == "per_actor" { actor } else { "*" };
    let seen: u32 = tx
        .query_row(
            "SELECT reads FROM tools_warming_reads WHERE actor = ?1",
            params![key],
            |r| r.get(0),
        )
        .optional()?
        .unwrap_or(0);
    tx.execute(
        "INSERT INTO tools_warming_reads (actor, reads) VALUES (?1, 1)
         ON CONFLICT(actor) DO UPDATE SET reads = reads + 1",
        params![key],
    )?;
    Ok(mode != "off" && seen < limit)
}
