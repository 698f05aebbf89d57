//! Async requests: the keeper request inventory (§6.3) and its single-request view (§6.4).

use super::{Family, Migration, SEED_EPOCH, StoreError};
use rusqlite::{Connection, OptionalExtension, Transaction, params};
use serde_json::{Value, json};

pub const FAMILY: Family = Family {
    name: "async_requests",
    migrations: MIGRATIONS,
    seed,
};

const MIGRATIONS: &[Migration] = &[Migration {
    version: 1,
    name: "async requests",
    sql: "CREATE TABLE async_requests (
        request_id TEXT PRIMARY KEY,
        keeper_name TEXT NOT NULL,
        submitted_by TEXT NOT NULL,
        status TEXT NOT NULL,
        submitted_at REAL NOT NULL,
        elapsed_sec REAL NOT NULL,
        worker_ownership TEXT NOT NULL,
        ok INTEGER,
        result_json TEXT,
        completed_at REAL,
        run_id TEXT,
        source_task_id TEXT,
        logical_owner TEXT,
        decision TEXT,
        decided_at REAL,
        decision_reason TEXT,
        logical_unavailable TEXT
    );
    CREATE TABLE async_record_errors (
        request_id TEXT,
        kind TEXT NOT NULL
    );
    CREATE TABLE async_startup_recovery (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        body_json TEXT NOT NULL
    );",
}];

struct Seed {
    id: &'static str,
    keeper: &'static str,
    by: &'static str,
    status: &'static str,
    ago: f64,
    elapsed: f64,
    owned: bool,
    task: Option<&'static str>,
    result: Option<Value>,
}

fn seeds() -> Vec<Seed> {
    vec![
        Seed {
            id: "kmsg-7f3a",
            keeper: "rondo",
            by: "operator",
            status: "running",
            ago: 42.0,
            elapsed: 41.5,
            owned: true,
            task: Some("task-1013"),
            result: None,
        },
        Seed {
            id: "kmsg-81c2",
            keeper: "sangsu",
            by: "masc-tui",
            status: "queued",
            ago: 8.0,
            elapsed: 7.9,
            owned: true,
            task: None,
            result: None,
        },
        Seed {
            id: "kmsg-5e07",
            keeper: "하늘",
            by: "release-bot",
            status: "cancelling",
            ago: 310.0,
            elapsed: 305.2,
            owned: false,
            task: Some("task-1021"),
            result: None,
        },
        Seed {
            id: "kmsg-40d9",
            keeper: "ops-bot",
            by: "operator",
            status: "done",
            ago: 900.0,
            elapsed: 61.0,
            owned: true,
            task: Some("task-1030"),
            result: Some(json!({"reply": "build-02 로그 정리 완료 (3.2 GB freed)"})),
        },
        Seed {
            id: "kmsg-3b11",
            keeper: "juno",
            by: "masc-tui",
            status: "error",
            ago: 1_800.0,
            elapsed: 12.4,
            owned: true,
            task: None,
            result: Some(json!({"error": "keeper meta unreadable", "code": "meta_decode_failed"})),
        },
        Seed {
            id: "kmsg-29aa",
            keeper: "scout",
            by: "operator",
            status: "lost",
            ago: 7_200.0,
            elapsed: 3_600.0,
            owned: false,
            task: None,
            result: Some(json!({"error": "worker lost during restart"})),
        },
    ]
}

fn seed(tx: &Transaction<'_>) -> Result<(), StoreError> {
    let now = SEED_EPOCH as f64;
    for s in seeds() {
        let terminal = matches!(s.status, "done" | "error" | "lost" | "cancelled");
        let submitted = now - s.ago;
        let completed = terminal.then_some(submitted + s.elapsed);
        let ok = terminal.then_some(s.status == "done");
        let run_id = (s.status != "queued").then_some(s.id);
        let (decision, decided_at, reason, unavailable) = match s.status {
            "done" => (Some("completed"), completed, Some("reply delivered"), None),
            "error" => (Some("failed"), completed, Some("keeper turn failed"), None),
            "lost" => (
                None,
                None,
                None,
                Some("worker lost before a logical decision was recorded"),
            ),
            _ => (None, None, None, None),
        };
        tx.execute(
            "INSERT INTO async_requests (request_id, keeper_name, submitted_by, status,
                submitted_at, elapsed_sec, worker_ownership, ok, result_json, completed_at,
                run_id, source_task_id, logical_owner, decision, decided_at, decision_reason,
                logical_unavailable)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16,
                ?17)",
            params![
                s.id,
                s.keeper,
                s.by,
                s.status,
                submitted,
                s.elapsed,
                if s.owned {
                    "runtime_owned"
                } else {
                    "disk_only_ownership_unknown"
                },
                ok,
                s.result.map(|v| v.to_string()),
                completed,
                run_id,
                s.task.filter(|_| run_id.is_some()),
                s.keeper,
                decision,
                decided_at,
                reason,
                unavailable,
            ],
        )?;
    }
    tx.execute(
        "INSERT INTO async_record_errors (request_id, kind) VALUES ('kmsg-0bad', 'record_decode_failed')",
        [],
    )?;
    let recovery = json!({
        "lost": 1, "finalized": 1, "cleaned": 0, "staging_files_inspected": 2,
        "staging_files_deleted": 1, "staging_files_preserved": 1, "unreadable": 0, "failed": 0,
        "store_errors": [], "record_errors": [],
    });
    tx.execute(
        "INSERT INTO async_startup_recovery (id, body_json) VALUES (1, ?1)",
        params![recovery.to_string()],
    )?;
    Ok(())
}

/// The §6.3 ready body.
pub fn observation(conn: &Connection) -> Result<Value, StoreError> {
    let mut stmt = conn.prepare(
        "SELECT request_id, keeper_name, submitted_by, status, submitted_at, elapsed_sec,
                worker_ownership, ok, result_json, completed_at
         FROM async_requests ORDER BY submitted_at DESC, request_id",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, String>(3)?,
            r.get::<_, f64>(4)?,
            r.get::<_, f64>(5)?,
            r.get::<_, String>(6)?,
            r.get::<_, Option<bool>>(7)?,
            r.get::<_, Option<String>>(8)?,
            r.get::<_, Option<f64>>(9)?,
        ))
    })?;
    let mut requests = Vec::new();
    let (mut owned, mut unknown) = (0, 0);
    for row in rows {
        let (id, keeper, by, status, submitted, elapsed, ownership, ok, result, completed) = row?;
        if ownership == "runtime_owned" {
            owned += 1;
        } else {
            unknown += 1;
        }
        let mut v = json!({
            "request_id": id, "keeper_name": keeper, "submitted_by": by, "status": status,
            "submitted_at": submitted, "elapsed_sec": elapsed, "worker_ownership": ownership,
        });
        if let Some(obj) = v.as_object_mut() {
            if let Some(ok) = ok {
                obj.insert("ok".into(), json!(ok));
            }
            if let Some(r) = result {
                obj.insert("result".into(), serde_json::from_str(&r)?);
            }
            if let Some(c) = completed {
                obj.insert("completed_at".into(), json!(c));
            }
        }
        requests.push(v);
    }
    let mut stmt =
        conn.prepare("SELECT request_id, kind FROM async_record_errors ORDER BY rowid")?;
    let errors: Vec<Value> = stmt
        .query_map([], |r| {
            Ok(json!({"request_id": r.get::<_, Option<String>>(0)?, "kind": r.get::<_, String>(1)?}))
        })?
        .collect::<Result<_, _>>()?;
    let recovery: Option<String> = conn
        .query_row(
            "SELECT body_json FROM async_startup_recovery WHERE id = 1",
            [],
            |r| r.get(0),
        )
        .optional()?;
    let recovery = match recovery {
        Some(t) => serde_json::from_str(&t)?,
        None => Value::Null,
    };
    Ok(json!({
        "schema": "masc.async-request-observation/v1",
        "status": "ready",
        "startup_recovery": recovery,
        "summary": {
            "active": requests.len(),
            "runtime_owned": owned,
            "ownership_unknown": unknown,
            "record_errors": errors.len(),
        },
        "requests": requests,
        "record_errors": errors,
    }))
}

/// Physical state of a MASC status (§6.4 mapping); `None` for a status outside the vocabulary.
pub fn physical_state(status: &str) -> Option<&'static str> {
    match status {
        "queued" => Some("pending"),
        "running" | "cancelling" => Some("running"),
        "done" => Some("completed"),
        "error" | "lost" | "cancelled" | "persistence_failed" => Some("failed"),
        _ => None,
    }
}

/// The §6.4 body of one request, `None` when unknown.
pub fn single(conn: &Connection, request_id: &str) -> Result<Option<Value>, StoreError> {
    let row = conn
        .query_row(
            "SELECT keeper_name, submitted_by, status, result_json, run_id, source_task_id,
                    logical_owner, decision, decided_at, decision_reason, logical_unavailable
             FROM async_requests WHERE request_id = ?1",
            params![request_id],
            |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, Option<String>>(3)?,
                    r.get::<_, Option<String>>(4)?,
                    r.get::<_, Option<String>>(5)?,
                    r.get::<_, Option<String>>(6)?,
                    (
                        r.get::<_, Option<String>>(7)?,
                        r.get::<_, Option<f64>>(8)?,
                        r.get::<_, Option<String>>(9)?,
                        r.get::<_, Option<String>>(10)?,
                    ),
                ))
            },
        )
        .optional()?;
    let Some((keeper, by, status, result, run_id, task, owner, (decision, at, reason, unavail))) =
        row
    else {
        return Ok(None);
    };
    let state = physical_state(&status)
        .ok_or_else(|| StoreError::Invalid(format!("async status {status}")))?;
    let result = match (state, result) {
        ("failed" | "completed", Some(r)) => serde_json::from_str(&r)?,
        _ => Value::Null,
    };
    let run = match run_id {
        Some(run_id) => json!({"run_id": run_id, "source_task_id": task}),
        None => Value::Null,
    };
    let logical = match unavail {
        Some(reason) => json!({"state": "unavailable", "reason": reason}),
        None => {
            let terminal = match decision {
                Some(d) => json!({"decision": d, "decided_at": at, "reason": reason}),
                None => Value::Null,
            };
            json!({"state": "observed", "owner": owner.unwrap_or_else(|| keeper.clone()),
                   "terminal_decision": terminal})
        }
    };
    Ok(Some(json!({
        "schema": "masc.async_request.v1",
        "request_id": request_id,
        "submitted_by": by,
        "target_keeper": keeper,
        "physical": {"state": state, "result": result},
        "run": run,
        "logical": logical,
    })))
}
