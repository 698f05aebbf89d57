//! The waiting inventory (protocol-15-operator.md §15.8), computed per read from the seeded
//! state the way MASC's `lib/server_keeper_waiting_inventory.ml` projects it: queued and
//! running chat operations (§4.3), held tool calls standing in for Gate approvals, pending
//! operator approvals (§10.5), a scripted running fusion and a scheduled wake. A test script
//! (`/__admin/waiting-inventory`) plays what a real MASC can answer: the key absent, the Keeper
//! list unreadable, a workspace read error, truncation at 64 rows, a source this client does
//! not know.

use super::{Family, Migration, StoreError, now_unix, rfc3339};
use rusqlite::{Connection, OptionalExtension, Transaction, params};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

pub const FAMILY: Family = Family {
    name: "waiting",
    migrations: MIGRATIONS,
    seed,
};

const MIGRATIONS: &[Migration] = &[Migration {
    version: 1,
    name: "waiting inventory sources and script",
    sql: "CREATE TABLE waiting_fusion_runs (
        run_id TEXT PRIMARY KEY,
        keeper TEXT NOT NULL,
        preset TEXT NOT NULL,
        started_at REAL NOT NULL
    );
    CREATE TABLE waiting_schedules (
        schedule_id TEXT PRIMARY KEY,
        keeper TEXT,
        title TEXT NOT NULL,
        requested_at REAL NOT NULL,
        due_at REAL NOT NULL
    );
    CREATE TABLE waiting_script (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        script_json TEXT NOT NULL
    );",
}];

pub const SCHEMA: &str = "masc.dashboard.keeper_waiting_inventory.v3";
/// MASC's cap on outside-attention rows per Keeper.
pub const EXTERNAL_ATTENTION_ROW_LIMIT: usize = 64;

/// What the test script makes the inventory answer (all off: the computed inventory).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WaitingScript {
    /// The Tools body carries no `keeper_waiting_inventory` key (an older server).
    pub absent: bool,
    /// The Keeper list does not read: `keeper_count_known: false`, no Keepers, a global
    /// `read_error` row for `keeper_meta_store`.
    pub keeper_list_unreadable: bool,
    /// A workspace-wide `read_error` row for `schedule_store`.
    pub global_read_error: bool,
    /// This Keeper waits on 65 outside messages: 64 are kept and the rest cut.
    pub truncate_keeper: Option<String>,
    /// This Keeper has one row of a source this client does not know.
    pub unknown_source_keeper: Option<String>,
}

fn seed(tx: &Transaction<'_>) -> Result<(), StoreError> {
    // Timed by the wall clock like the held calls: a demo started now shows the fusion as
    // running for a minute and the schedule due in a quarter of an hour.
    let now = now_unix();
    tx.execute(
        "INSERT INTO waiting_fusion_runs VALUES ('fusion-scout-1', 'scout', 'trio', ?1)",
        params![now - 60.0],
    )?;
    tx.execute(
        "INSERT INTO waiting_schedules VALUES ('sched-sangsu-digest', 'sangsu', 'daily digest', ?1, ?2)",
        params![now - 3_600.0, now + 900.0],
    )?;
    tx.execute(
        "INSERT INTO waiting_script (id, script_json) VALUES (1, '{}')",
        [],
    )?;
    Ok(())
}

pub fn script(conn: &Connection) -> Result<WaitingScript, StoreError> {
    let text: Option<String> = conn
        .query_row(
            "SELECT script_json FROM waiting_script WHERE id = 1",
            [],
            |r| r.get(0),
        )
        .optional()?;
    Ok(match text {
        Some(t) => serde_json::from_str(&t)?,
        None => WaitingScript::default(),
    })
}

pub fn set_script(tx: &Transaction<'_>, s: &WaitingScript) -> Result<(), StoreError> {
    tx.execute(
        "INSERT OR REPLACE INTO waiting_script (id, script_json) VALUES (1, ?1)",
        params![serde_json::to_string(s)?],
    )?;
    Ok(())
}

/// One row as MASC's `waiting_row_json` writes it.
struct Row {
    keeper: Option<String>,
    source: &'static str,
    waiting_on: String,
    what: String,
    wake_producer: &'static str,
    since: Option<f64>,
    due_at: Option<f64>,
    next_action: &'static str,
    detail: Value,
}

fn iso(t: Option<f64>) -> Value {
    t.map_or(Value::Null, |t| Value::String(rfc3339(t as i64)))
}

impl Row {
    fn json(&self) -> Value {
        json!({
            "keeper_name": self.keeper,
            "source": self.source,
            "waiting_on": self.waiting_on,
            "what": self.what,
            "wake_producer": self.wake_producer,
            "since": self.since,
            "since_iso": iso(self.since),
            "due_at": self.due_at,
            "due_at_iso": iso(self.due_at),
            "next_action": self.next_action,
            "detail": self.detail,
        })
    }
}

fn read_error_row(waiting_on: &str, next_action: &'static str, error: &str) -> Row {
    Row {
        keeper: None,
        source: "read_error",
        waiting_on: waiting_on.into(),
        what: format!("대기 기록 읽기 실패 · {waiting_on}"),
        wake_producer: "read_model_reader",
        since: None,
        due_at: None,
        next_action,
        detail: json!({"error": error}),
    }
}

/// Every seeded source's rows for `keeper`, in MASC's order (queue, chat, shutdown, approvals,
/// outside attention, fusion, confirms, schedules), and whether outside attention was cut.
fn keeper_rows(
    conn: &Connection,
    keeper: &str,
    now: f64,
    script: &WaitingScript,
) -> Result<(Vec<Row>, bool), StoreError> {
    let mut rows = Vec::new();
    let (queued, running): (i64, Option<String>) = conn.query_row(
        "SELECT (SELECT COUNT(*) FROM chat_operations WHERE keeper = ?1 AND state = 'Queued'),
                (SELECT operation_id FROM chat_operations WHERE keeper = ?1 AND state = 'Running'
                 ORDER BY started_at LIMIT 1)",
        params![keeper],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    if let Some(operation_id) = running {
        rows.push(Row {
            keeper: Some(keeper.into()),
            source: "chat_operation_running",
            waiting_on: "keeper_turn".into(),
            what: "운영자와 진행 중인 대화".into(),
            wake_producer: "keeper_owner_actor",
            since: None,
            due_at: None,
            next_action: "keeper_owner_settle_operation",
            detail: json!({"operation_id": operation_id}),
        });
    }
    if queued > 0 {
        rows.push(Row {
            keeper: Some(keeper.into()),
            source: "chat_operation_queued",
            waiting_on: "owner_fifo".into(),
            what: format!("운영자 채팅 {queued}건 대기"),
            wake_producer: "keeper_owner_actor",
            since: None,
            due_at: None,
            next_action: "keeper_owner_start_fifo_head",
            detail: json!({"queued_count": queued}),
        });
    }
    let mut stmt = conn.prepare(
        "SELECT tool_call_id, tool, asked_at, timeout_sec FROM held_tool_calls
         WHERE keeper = ?1 AND NOT EXISTS (SELECT 1 FROM held_call_answers a
           WHERE a.keeper = held_tool_calls.keeper AND a.tool_call_id = held_tool_calls.tool_call_id)
         ORDER BY asked_at",
    )?;
    let held = stmt.query_map(params![keeper], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, f64>(2)?,
            r.get::<_, f64>(3)?,
        ))
    })?;
    for call in held {
        let (id, tool, asked_at, timeout) = call?;
        if asked_at + timeout <= now {
            continue;
        }
        rows.push(Row {
            keeper: Some(keeper.into()),
            source: "hitl_pending",
            waiting_on: tool.clone(),
            what: format!("운영자 승인 대기 · {tool}"),
            wake_producer: "hitl_resolution_hook",
            since: Some(asked_at),
            due_at: None,
            next_action: "operator_resolve_hitl",
            detail: json!({"approval_id": id, "tool_name": tool}),
        });
    }
    let mut truncated = false;
    if script.truncate_keeper.as_deref() == Some(keeper) {
        // 65 pending: MASC keeps 64 and marks the Keeper truncated.
        truncated = true;
        for i in 0..EXTERNAL_ATTENTION_ROW_LIMIT {
            rows.push(Row {
                keeper: Some(keeper.into()),
                source: "external_attention",
                waiting_on: "discord".into(),
                what: "discord 멘션".into(),
                wake_producer: "external_attention_store",
                since: Some(now - 600.0 + i as f64),
                due_at: None,
                next_action: "keeper_process_external_attention",
                detail: json!({"event_id": format!("evt-{i}"), "urgency": "mention"}),
            });
        }
    }
    let mut stmt = conn.prepare(
        "SELECT run_id, preset, started_at FROM waiting_fusion_runs WHERE keeper = ?1 ORDER BY started_at",
    )?;
    let runs = stmt.query_map(params![keeper], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, f64>(2)?,
        ))
    })?;
    for run in runs {
        let (run_id, preset, started_at) = run?;
        rows.push(Row {
            keeper: Some(keeper.into()),
            source: "fusion_running",
            waiting_on: run_id.clone(),
            what: format!("Fusion 실행 중 · {preset}"),
            wake_producer: "fusion_sink",
            since: Some(started_at),
            due_at: None,
            next_action: "await_fusion_completion",
            detail: json!({"run_id": run_id, "preset": preset, "status": "running"}),
        });
    }
    rows.extend(confirm_rows(conn, Some(keeper), now)?);
    let mut stmt = conn.prepare(
        "SELECT schedule_id, title, requested_at, due_at FROM waiting_schedules
         WHERE keeper = ?1 ORDER BY due_at",
    )?;
    let schedules = stmt.query_map(params![keeper], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, f64>(2)?,
            r.get::<_, f64>(3)?,
        ))
    })?;
    for s in schedules {
        let (schedule_id, title, requested_at, due_at) = s?;
        let due = due_at <= now;
        rows.push(Row {
            keeper: Some(keeper.into()),
            source: "schedule_waiting",
            waiting_on: "keeper_wake".into(),
            what: format!("예약 실행 · {schedule_id}"),
            wake_producer: "schedule_runner",
            since: Some(requested_at),
            due_at: Some(due_at),
            next_action: if due {
                "schedule_runner_dispatch"
            } else {
                "wait_until_due"
            },
            detail: json!({"schedule_id": schedule_id, "title": title,
                "status": if due { "due" } else { "scheduled" }}),
        });
    }
    if script.unknown_source_keeper.as_deref() == Some(keeper) {
        rows.push(Row {
            keeper: Some(keeper.into()),
            source: "teleport_queue",
            waiting_on: "teleport".into(),
            what: "순간이동 대기".into(),
            wake_producer: "teleport_hook",
            since: Some(now - 30.0),
            due_at: None,
            next_action: "await_teleport",
            detail: json!({}),
        });
    }
    Ok((rows, truncated))
}

/// Pending operator approvals (§10.5) aimed at `keeper`, or (with `None`) at no listed Keeper.
fn confirm_rows(conn: &Connection, keeper: Option<&str>, now: f64) -> Result<Vec<Row>, StoreError> {
    let mut stmt = conn.prepare(
        "SELECT confirm_token, trace_id, actor, action_type, target_type, target_id,
                delegated_tool, created_at, expires_at FROM operator_approvals
         WHERE (expires_at IS NULL OR expires_at > ?1)
           AND CASE WHEN ?2 IS NULL
                 THEN NOT (target_type = 'keeper' AND target_id IN (SELECT name FROM keepers))
                 ELSE target_type = 'keeper' AND target_id = ?2 END
         ORDER BY created_at, confirm_token",
    )?;
    let rows = stmt.query_map(params![now as i64, keeper], |r| {
        Ok(Row {
            keeper: keeper.map(str::to_string),
            source: "operator_pending_confirm",
            waiting_on: r.get::<_, String>(3)?,
            what: format!("운영자 확인 대기 · {}", r.get::<_, String>(3)?),
            wake_producer: "operator_pending_confirm_store",
            since: None,
            due_at: None,
            next_action: "operator_confirm_action",
            detail: json!({
                "confirm_token": r.get::<_, String>(0)?,
                "trace_id": r.get::<_, String>(1)?,
                "actor": r.get::<_, String>(2)?,
                "target_type": r.get::<_, String>(4)?,
                "target_id": r.get::<_, Option<String>>(5)?,
                "delegated_tool": r.get::<_, String>(6)?,
                "created_at": rfc3339(r.get::<_, i64>(7)?),
                "expires_at": r.get::<_, Option<i64>>(8)?.map(rfc3339),
            }),
        })
    })?;
    rows.collect::<Result<_, _>>().map_err(Into::into)
}

fn source_counts<'a>(rows: impl Iterator<Item = &'a Row>) -> Map<String, Value> {
    let mut counts: std::collections::BTreeMap<&str, u64> = Default::default();
    for r in rows {
        *counts.entry(r.source).or_default() += 1;
    }
    counts
        .into_iter()
        .map(|(k, v)| (k.to_string(), json!(v)))
        .collect()
}

fn earliest(rows: &[Row], f: impl Fn(&Row) -> Option<f64>) -> Option<f64> {
    rows.iter().filter_map(f).reduce(f64::min)
}

/// The inventory body: every Keeper (`only: None`, the Tools key) or one named Keeper (the
/// per-Keeper route; MASC does not check that it exists). `None` when the script says the
/// key is absent.
pub fn inventory(
    conn: &Connection,
    only: Option<&str>,
    now: f64,
) -> Result<Option<Value>, StoreError> {
    let script = script(conn)?;
    if script.absent && only.is_none() {
        return Ok(None);
    }
    let mut global = Vec::new();
    let names = match only {
        Some(name) => vec![name.to_string()],
        None if script.keeper_list_unreadable => {
            global.push(read_error_row(
                "keeper_meta_store",
                "repair_keeper_meta_store",
                "keeper directory unreadable",
            ));
            Vec::new()
        }
        None => super::keepers::names(conn)?,
    };
    if script.global_read_error {
        global.push(read_error_row(
            "schedule_store",
            "repair_schedule_ledger",
            "schedule ledger is corrupt",
        ));
    }
    global.extend(confirm_rows(conn, None, now)?);
    let mut keepers = Vec::new();
    let mut all_rows: Vec<Row> = Vec::new();
    let (mut waiting_keepers, mut truncated_keepers) = (0u64, 0u64);
    for name in &names {
        let (rows, truncated) = keeper_rows(conn, name, now, &script)?;
        let busy: bool = conn
            .query_row(
                "SELECT turn_started_at IS NOT NULL FROM keepers WHERE name = ?1",
                params![name],
                |r| r.get(0),
            )
            .optional()?
            .unwrap_or(false);
        let deferred = rows
            .iter()
            .any(|r| matches!(r.source, "fusion_running" | "owner_shutdown"));
        let state = if busy {
            "busy"
        } else if deferred {
            "deferred"
        } else if rows.is_empty() {
            "idle"
        } else {
            "waiting"
        };
        if state != "idle" {
            waiting_keepers += 1;
        }
        truncated_keepers += u64::from(truncated);
        let mut next_actions: Map<String, Value> = Map::new();
        for r in &rows {
            let list = next_actions
                .entry(r.source.to_string())
                .or_insert_with(|| json!([]));
            if let Some(list) = list.as_array_mut()
                && !list.iter().any(|a| a == r.next_action)
            {
                list.push(json!(r.next_action));
            }
        }
        let since = earliest(&rows, |r| r.since);
        let due_at = earliest(&rows, |r| r.due_at);
        keepers.push(json!({
            "keeper_name": name,
            "state": state,
            "waiting_on": rows.iter().map(Row::json).collect::<Vec<_>>(),
            "waiting_count": rows.len(),
            "waiting_count_truncated": truncated,
            "truncated_sources": if truncated { json!({"external_attention": true}) } else { json!({}) },
            "sources": source_counts(rows.iter()),
            "since": since,
            "since_iso": iso(since),
            "due_at": due_at,
            "due_at_iso": iso(due_at),
            "source_next_actions": next_actions,
            "current_execution": Value::Null,
        }));
        all_rows.extend(rows);
    }
    let global_confirms = global
        .iter()
        .filter(|r| r.source == "operator_pending_confirm")
        .count();
    let counts = source_counts(all_rows.iter().chain(global.iter()));
    Ok(Some(json!({
        "schema": SCHEMA,
        "source": "server_keeper_waiting_inventory",
        "generated_at": rfc3339(now as i64),
        "supported_states": ["idle", "busy", "waiting", "deferred"],
        "keeper_count_known": !(script.keeper_list_unreadable && only.is_none()),
        "keeper_count": names.len(),
        "waiting_keeper_count": waiting_keepers,
        "row_count": all_rows.len(),
        "row_count_truncated": truncated_keepers > 0,
        "external_attention_row_limit": EXTERNAL_ATTENTION_ROW_LIMIT,
        "external_attention_truncated_keeper_count": truncated_keepers,
        "global_row_count": global.len(),
        "global_pending_confirm_count_known": true,
        "global_pending_confirm_count": global_confirms,
        "pending_approval_state": {"state": "ready"},
        "source_counts": counts,
        "keepers": keepers,
        "global_waiting_on": global.iter().map(Row::json).collect::<Vec<_>>(),
    })))
}
