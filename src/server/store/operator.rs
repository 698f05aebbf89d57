//! Operator approvals (§10.5): pending confirmations per actor, and the decision that removes
//! one before running its scripted action.

use super::{Family, Migration, SEED_EPOCH, StoreError, now_unix, rfc3339};
use rusqlite::{Connection, OptionalExtension, Transaction, params};
use serde_json::{Value, json};

pub const FAMILY: Family = Family {
    name: "operator",
    migrations: MIGRATIONS,
    seed,
};

const MIGRATIONS: &[Migration] = &[Migration {
    version: 1,
    name: "operator approvals",
    sql: "CREATE TABLE operator_approvals (
        confirm_token TEXT PRIMARY KEY,
        trace_id TEXT NOT NULL,
        actor TEXT NOT NULL,
        action_type TEXT NOT NULL,
        target_type TEXT NOT NULL,
        target_id TEXT,
        payload_json TEXT NOT NULL,
        delegated_tool TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER
    );
    CREATE TABLE operator_state (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        paused INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        injected_tasks INTEGER NOT NULL
    );",
}];

/// The §10.5 identity table: action type → (delegated tool, target type, description).
pub const ACTIONS: &[(&str, &str, &str, &str)] = &[
    (
        "broadcast",
        "masc_broadcast",
        "workspace",
        "Broadcast a message to every keeper",
    ),
    (
        "namespace_pause",
        "masc_pause",
        "workspace",
        "Pause the workspace namespace",
    ),
    (
        "namespace_resume",
        "masc_resume",
        "workspace",
        "Resume the workspace namespace",
    ),
    (
        "task_inject",
        "masc_add_task",
        "workspace",
        "Inject a task into the backlog",
    ),
    (
        "keeper_message",
        "masc_keeper_delegate",
        "keeper",
        "Send a message to a keeper",
    ),
    (
        "keeper_probe",
        "masc_keeper_status",
        "keeper",
        "Probe a keeper's health",
    ),
    (
        "keeper_recover",
        "masc_keeper_recover",
        "keeper",
        "Restart a failed keeper lane",
    ),
];

pub fn action(action_type: &str) -> Option<(&'static str, &'static str)> {
    ACTIONS
        .iter()
        .find(|a| a.0 == action_type)
        .map(|a| (a.1, a.2))
}

/// The seeded approval that expires during a session (so a demo shows an expiry): its expiry is
/// [`EXPIRES_DURING_SESSION`] seconds after this store was seeded, by the wall clock — a demo
/// started now lists it pending, then (still listed by the server) expired, and deciding it
/// then answers "pending confirmation expired".
pub const EXPIRING_APPROVAL: &str = "opc_3a5e7c90";
/// Seconds from seeding to [`EXPIRING_APPROVAL`]'s expiry.
pub const EXPIRES_DURING_SESSION: i64 = 240;

/// Seeded approvals still pending this long after the seed epoch (the demo must work for a
/// while after the seed date, so their expiry is far out; one is expired already).
const FAR: i64 = 86_400 * 365 * 2;

/// (token, trace id, actor, action type, target id, payload, created offset, expiry offset).
type SeedApproval = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    Option<&'static str>,
    Value,
    i64,
    Option<i64>,
);

fn seed(tx: &Transaction<'_>) -> Result<(), StoreError> {
    let rows: &[SeedApproval] = &[
        (
            "opc_5b0e8f2a",
            "ops_3f2a9c0d1e4b5a67",
            "masc-tui",
            "namespace_pause",
            None,
            json!({"reason": "operator requested"}),
            -600,
            Some(FAR),
        ),
        (
            "opc_19c4d7e0",
            "ops_8b1e4f2a7c9d0e35",
            "masc-tui",
            "broadcast",
            None,
            json!({"message": "배포 동결: 금요일 18시까지 / release freeze until Friday 18:00"}),
            -900,
            Some(FAR),
        ),
        (
            "opc_7a21f03b",
            "ops_c2d4e6f8a0b1c3d5",
            "masc-tui",
            "keeper_recover",
            Some("juno"),
            json!({"reason": "meta.json unreadable"}),
            -1_200,
            Some(FAR),
        ),
        (
            "opc_c3e98d14",
            "ops_0f1e2d3c4b5a6978",
            "masc-tui",
            "keeper_message",
            Some("retired-bot"),
            json!({"message": "hand over your open tasks"}),
            -1_500,
            Some(FAR),
        ),
        (
            "opc_0e5f6a71",
            "ops_1a2b3c4d5e6f7a8b",
            "masc-tui",
            "keeper_probe",
            Some("rondo"),
            json!({}),
            -1_800,
            Some(FAR),
        ),
        (
            "opc_9d3b2c48",
            "ops_9e8d7c6b5a493827",
            "masc-tui",
            "task_inject",
            None,
            json!({"title": "Re-record chat stream fixtures", "priority": 2}),
            -2_100,
            None,
        ),
        (
            "opc_e1f2a3b4",
            "ops_5566778899aabbcc",
            "masc-tui",
            "namespace_resume",
            None,
            json!({"reason": "after maintenance"}),
            -7_200,
            Some(-1),
        ),
        (
            "opc_44aa0c19",
            "ops_ddeeff0011223344",
            "release-bot",
            "broadcast",
            None,
            json!({"message": "v0.23 tagged"}),
            -300,
            Some(FAR),
        ),
    ];
    for (token, trace, actor, kind, target, payload, created, expires) in rows {
        let (tool, target_type) =
            action(kind).ok_or_else(|| StoreError::Invalid(format!("unknown action {kind}")))?;
        let created_at = SEED_EPOCH + created;
        // A negative expiry means the usual 15 minutes after creation (long expired now).
        let expires_at = expires.map(|e| {
            if e < 0 {
                created_at + 900
            } else {
                SEED_EPOCH + e
            }
        });
        tx.execute(
            "INSERT INTO operator_approvals VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            params![
                token,
                trace,
                actor,
                kind,
                target_type,
                target,
                payload.to_string(),
                tool,
                created_at,
                expires_at
            ],
        )?;
    }
    let now = now_unix() as i64;
    let (tool, target_type) = action("keeper_message")
        .ok_or_else(|| StoreError::Invalid("unknown action keeper_message".into()))?;
    tx.execute(
        "INSERT INTO operator_approvals VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        params![
            EXPIRING_APPROVAL,
            "ops_7d1c5e3a9b0f2468",
            "masc-tui",
            "keeper_message",
            target_type,
            "mira",
            json!({"message": "rotate the deploy key before the window closes"}).to_string(),
            tool,
            now - 60,
            now + EXPIRES_DURING_SESSION
        ],
    )?;
    tx.execute(
        "INSERT INTO operator_state (id, paused, updated_at, injected_tasks) VALUES (1, 0, ?1, 0)",
        params![SEED_EPOCH],
    )?;
    Ok(())
}

/// One stored approval.
#[derive(Debug, Clone)]
pub struct Approval {
    pub confirm_token: String,
    pub trace_id: String,
    pub actor: String,
    pub action_type: String,
    pub target_type: String,
    pub target_id: Option<String>,
    pub payload: Value,
    pub delegated_tool: String,
    pub created_at: i64,
    pub expires_at: Option<i64>,
}

impl Approval {
    /// The closed ten-key approval object.
    pub fn to_json(&self) -> Value {
        json!({
            "confirm_token": self.confirm_token,
            "trace_id": self.trace_id,
            "actor": self.actor,
            "action_type": self.action_type,
            "target_type": self.target_type,
            "target_id": self.target_id,
            "payload": self.payload,
            "delegated_tool": self.delegated_tool,
            "created_at": rfc3339(self.created_at),
            "expires_at": self.expires_at.map(rfc3339),
        })
    }
}

const SELECT: &str = "SELECT confirm_token, trace_id, actor, action_type, target_type, target_id,
    payload_json, delegated_tool, created_at, expires_at FROM operator_approvals";

fn approval_of(r: &rusqlite::Row<'_>) -> rusqlite::Result<(Approval, String)> {
    Ok((
        Approval {
            confirm_token: r.get(0)?,
            trace_id: r.get(1)?,
            actor: r.get(2)?,
            action_type: r.get(3)?,
            target_type: r.get(4)?,
            target_id: r.get(5)?,
            payload: Value::Null,
            delegated_tool: r.get(7)?,
            created_at: r.get(8)?,
            expires_at: r.get(9)?,
        },
        r.get(6)?,
    ))
}

fn with_payload((mut a, payload): (Approval, String)) -> Result<Approval, StoreError> {
    a.payload = serde_json::from_str(&payload)?;
    Ok(a)
}

/// Every pending approval, newest first.
pub fn all(conn: &Connection) -> Result<Vec<Approval>, StoreError> {
    let mut stmt = conn.prepare(&format!("{SELECT} ORDER BY created_at DESC, confirm_token"))?;
    let rows: Vec<(Approval, String)> =
        stmt.query_map([], approval_of)?.collect::<Result<_, _>>()?;
    rows.into_iter().map(with_payload).collect()
}

pub fn find(conn: &Connection, token: &str) -> Result<Option<Approval>, StoreError> {
    conn.query_row(
        &format!("{SELECT} WHERE confirm_token = ?1"),
        params![token],
        approval_of,
    )
    .optional()?
    .map(with_payload)
    .transpose()
}

pub fn remove(tx: &Transaction<'_>, token: &str, now: i64) -> Result<(), StoreError> {
    tx.execute(
        "DELETE FROM operator_approvals WHERE confirm_token = ?1",
        params![token],
    )?;
    touch(tx, now)
}

fn touch(tx: &Transaction<'_>, now: i64) -> Result<(), StoreError> {
    tx.execute(
        "UPDATE operator_state SET updated_at = MAX(updated_at + 1, ?1) WHERE id = 1",
        params![now],
    )?;
    Ok(())
}

/// (paused, updated_at).
pub fn workspace_state(conn: &Connection) -> Result<(bool, i64), StoreError> {
    Ok(conn.query_row(
        "SELECT paused, updated_at FROM operator_state WHERE id = 1",
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?)
}

pub fn set_paused(tx: &Transaction<'_>, paused: bool, now: i64) -> Result<(), StoreError> {
    tx.execute(
        "UPDATE operator_state SET paused = ?1 WHERE id = 1",
        params![paused],
    )?;
    touch(tx, now)
}

/// Next injected task id (the tasks family lives elsewhere; this only numbers the receipt).
pub fn next_injected_task(tx: &Transaction<'_>) -> Result<String, StoreError> {
    tx.execute(
        "UPDATE operator_state SET injected_tasks = injected_tasks + 1 WHERE id = 1",
        [],
    )?;
    let n: i64 = tx.query_row(
        "SELECT injected_tasks FROM operator_state WHERE id = 1",
        [],
        |r| r.get(0),
    )?;
    Ok(format!("task-{}", 1100 + n))
}
