//! The durable Gate queue (§15.3): Keeper tool calls with an outside effect waiting for a
//! rule, Auto Judge or a human, and the resolved history. The demo seeds three pending rows
//! (one ready for a human, one Auto Judge is working on, one whose judge could not start and
//! `/retry` can re-arm), two resolved rows (one of each decision) and one exact rule.

use super::{Family, Migration, StoreError};
use rusqlite::{Connection, OptionalExtension, Transaction, params};
use serde_json::{Value, json};

pub const FAMILY: Family = Family {
    name: "gate_queue",
    migrations: MIGRATIONS,
    seed,
};

const MIGRATIONS: &[Migration] = &[Migration {
    version: 1,
    name: "gate queue, resolved history and rules",
    sql: "CREATE TABLE gate_pending (
        id TEXT PRIMARY KEY,
        keeper TEXT NOT NULL,
        tool TEXT NOT NULL,
        input_hash TEXT NOT NULL,
        sequence INTEGER NOT NULL,
        requested_at REAL NOT NULL,
        turn_id INTEGER,
        task_id TEXT,
        input_json TEXT NOT NULL,
        input_preview TEXT NOT NULL,
        summary_json TEXT NOT NULL,
        attempt_json TEXT NOT NULL,
        disposition_json TEXT NOT NULL
    );
    CREATE TABLE gate_resolved (
        id TEXT PRIMARY KEY,
        keeper TEXT NOT NULL,
        tool TEXT NOT NULL,
        decision_kind TEXT NOT NULL,
        reason TEXT,
        resolved_at REAL NOT NULL,
        actor TEXT,
        source TEXT NOT NULL
    );
    CREATE TABLE gate_rules (
        id TEXT PRIMARY KEY,
        keeper TEXT NOT NULL,
        tool TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        created_at REAL NOT NULL,
        created_by TEXT NOT NULL
    );",
}];

/// A 64-hex input hash made from a seed row's id (deterministic, lowercase).
fn hash_of(id: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut out = String::new();
    for round in 0..4u8 {
        for b in id.bytes().chain([round]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x100_0000_01b3);
        }
        out.push_str(&format!("{h:016x}"));
    }
    out
}

fn seed(tx: &Transaction<'_>) -> Result<(), StoreError> {
    // Asked by the wall clock, so a demo started now shows them minutes old.
    let now = super::now_unix();
    let blocked = json!({"code": "pre_worker_unavailable", "reason_code": "auto_judge_unavailable",
        "operator_detail": "the judge lane has no free slot"});
    let rows = [
        (
            "gate-101",
            "rondo",
            "github_push",
            json!({"repo": "masc/ops-notes", "branch": "main", "force": false}),
            "push 3 commits to masc/ops-notes main",
            json!("pending"),
            json!({"code": "ready"}),
            now - 420.0,
        ),
        (
            "gate-102",
            "mira",
            "email_send",
            json!({"to": "oncall@example.org", "subject": "Weekly status"}),
            "email oncall@example.org: Weekly status",
            json!("pending"),
            json!({"code": "in_flight"}),
            now - 180.0,
        ),
        (
            "gate-103",
            "rondo",
            "http_post",
            json!({"url": "https://hooks.example.org/deploy", "body": {"env": "staging"}}),
            "POST https://hooks.example.org/deploy {\"env\":\"staging\"}",
            json!({"status": "failed", "reason": "judge lane unavailable"}),
            blocked,
            now - 60.0,
        ),
    ];
    for (seq, (id, keeper, tool, input, preview, summary, disposition, at)) in
        rows.into_iter().enumerate()
    {
        tx.execute(
            "INSERT INTO gate_pending (id, keeper, tool, input_hash, sequence, requested_at,
                turn_id, task_id, input_json, input_preview, summary_json, attempt_json,
                disposition_json)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, NULL, ?8, ?9, ?10, ?11, ?12)",
            params![
                id,
                keeper,
                tool,
                hash_of(id),
                seq as i64 + 1,
                at,
                seq as i64 + 4,
                input.to_string(),
                preview,
                summary.to_string(),
                json!({"state": "unbound"}).to_string(),
                disposition.to_string(),
            ],
        )?;
    }
    for (id, keeper, tool, kind, reason, ago, source) in [
        (
            "gate-091",
            "sangsu",
            "web_fetch",
            "approve",
            None,
            3_600.0,
            "auto_judge",
        ),
        (
            "gate-092",
            "rondo",
            "shell_exec",
            "reject",
            Some("rm -rf outside the workspace"),
            1_800.0,
            "human_operator",
        ),
    ] {
        tx.execute(
            "INSERT INTO gate_resolved (id, keeper, tool, decision_kind, reason, resolved_at,
                actor, source) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![
                id,
                keeper,
                tool,
                kind,
                reason,
                now - ago,
                (source == "human_operator").then_some("operator"),
                source
            ],
        )?;
    }
    tx.execute(
        "INSERT INTO gate_rules (id, keeper, tool, fingerprint, created_at, created_by)
         VALUES ('rule-1', 'sangsu', 'web_fetch', ?1, ?2, 'operator')",
        params![hash_of("rule-1"), now - 86_400.0],
    )?;
    Ok(())
}

/// One pending row, as §15.3's queue item.
fn pending_json(row: &rusqlite::Row<'_>, now: f64) -> rusqlite::Result<Value> {
    let text = |i: usize| -> rusqlite::Result<Value> {
        let s: String = row.get(i)?;
        Ok(serde_json::from_str(&s).unwrap_or(Value::Null))
    };
    let requested_at: f64 = row.get(5)?;
    Ok(json!({
        "id": row.get::<_, String>(0)?,
        "keeper_name": row.get::<_, String>(1)?,
        "tool_name": row.get::<_, String>(2)?,
        "input_hash": row.get::<_, String>(3)?,
        "sequence": row.get::<_, i64>(4)?,
        "requested_at": requested_at,
        "waiting_s": (now - requested_at).max(0.0),
        "turn_id": row.get::<_, Option<i64>>(6)?,
        "task_id": row.get::<_, Option<String>>(7)?,
        "goal_id": Value::Null,
        "input": text(8)?,
        "input_preview": row.get::<_, String>(9)?,
        "summary_status": text(10)?,
        "exact_attempt": text(11)?,
        "summary_attempt_disposition": text(12)?,
    }))
}

const PENDING_COLUMNS: &str = "id, keeper, tool, input_hash, sequence, requested_at, turn_id,
    task_id, input_json, input_preview, summary_json, attempt_json, disposition_json";

/// The pending rows in `sequence` order.
pub fn pending(c: &Connection, now: f64) -> Result<Vec<Value>, StoreError> {
    let mut stmt = c.prepare(&format!(
        "SELECT {PENDING_COLUMNS} FROM gate_pending ORDER BY sequence"
    ))?;
    let rows = stmt
        .query_map([], |r| pending_json(r, now))?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// The resolved history, newest first, at most `limit` rows.
pub fn resolved(c: &Connection, limit: usize) -> Result<Vec<Value>, StoreError> {
    let mut stmt = c.prepare(
        "SELECT id, keeper, tool, decision_kind, reason, resolved_at, actor, source
         FROM gate_resolved ORDER BY resolved_at DESC LIMIT ?1",
    )?;
    let rows = stmt
        .query_map(params![limit as i64], |r| {
            let kind: String = r.get(3)?;
            let reason: Option<String> = r.get(4)?;
            let decision = match &reason {
                Some(why) if kind == "reject" => format!("reject:{why}"),
                _ => kind.clone(),
            };
            Ok(json!({
                "id": r.get::<_, String>(0)?, "event": "resolved",
                "keeper_name": r.get::<_, String>(1)?, "tool_name": r.get::<_, String>(2)?,
                "decision": decision, "decision_kind": kind, "decision_reason": reason,
                "resolved_at": r.get::<_, f64>(5)?, "turn_id": Value::Null,
                "task_id": Value::Null, "goal_id": Value::Null,
                "actor": r.get::<_, Option<String>>(6)?, "decision_source": r.get::<_, String>(7)?,
                "summary_status": "not_requested", "exact_attempt": {"state": "unbound"},
            }))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// The exact Always rules.
pub fn rules(c: &Connection) -> Result<Vec<Value>, StoreError> {
    let mut stmt = c.prepare(
        "SELECT id, keeper, tool, fingerprint, created_at, created_by FROM gate_rules ORDER BY id",
    )?;
    let rows = stmt
        .query_map([], |r| {
            Ok(json!({
                "id": r.get::<_, String>(0)?, "keeper_name": r.get::<_, String>(1)?,
                "tool_name": r.get::<_, String>(2)?, "request_fingerprint": r.get::<_, String>(3)?,
                "created_at": r.get::<_, f64>(4)?, "created_by": r.get::<_, String>(5)?,
                "source_approval_id": Value::Null, "expires_at": Value::Null,
            }))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// What a resolve found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolved {
    /// The pending row was removed and its resolved row appended.
    Done,
    /// Decided earlier (in the history).
    AlreadyResolved,
    NotFound,
}

/// Resolves pending row `id`: removes it and appends its resolved row, in one transaction.
pub fn resolve(
    tx: &Transaction<'_>,
    id: &str,
    decision: &str,
    reason: Option<&str>,
    actor: &str,
    now: f64,
) -> Result<Resolved, StoreError> {
    let row: Option<(String, String)> = tx
        .query_row(
            "SELECT keeper, tool FROM gate_pending WHERE id = ?1",
            params![id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    let Some((keeper, tool)) = row else {
        let earlier: Option<String> = tx
            .query_row(
                "SELECT id FROM gate_resolved WHERE id = ?1",
                params![id],
                |r| r.get(0),
            )
            .optional()?;
        return Ok(if earlier.is_some() {
            Resolved::AlreadyResolved
        } else {
            Resolved::NotFound
        });
    };
    tx.execute("DELETE FROM gate_pending WHERE id = ?1", params![id])?;
    tx.execute(
        "INSERT INTO gate_resolved (id, keeper, tool, decision_kind, reason, resolved_at, actor,
            source) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'human_operator')",
        params![
            id,
            keeper,
            tool,
            decision,
            (decision == "reject").then_some(reason.unwrap_or("dashboard rejected approval")),
            now,
            actor
        ],
    )?;
    Ok(Resolved::Done)
}

/// What a retry found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Retried {
    Rearmed,
    NotFound,
    /// The row's disposition is not one `/retry` re-arms.
    NotBlocked,
    /// One of the five identity fields differs from the row.
    Mismatch(&'static str),
}

/// The five identity fields of pending row `id` as stored, with its disposition code.
fn identity(c: &Connection, id: &str) -> Result<Option<Value>, StoreError> {
    let row = c
        .query_row(
            "SELECT input_hash, sequence, attempt_json, disposition_json FROM gate_pending
             WHERE id = ?1",
            params![id],
            |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                ))
            },
        )
        .optional()?;
    Ok(row.map(|(hash, seq, attempt, disposition)| {
        json!({
            "id": id, "input_hash": hash, "sequence": seq,
            "exact_attempt": serde_json::from_str::<Value>(&attempt).unwrap_or(Value::Null),
            "summary_attempt_disposition":
                serde_json::from_str::<Value>(&disposition).unwrap_or(Value::Null),
        })
    }))
}

/// Re-arms Auto Judge on row `asked["id"]` when all five fields equal the row as stored and its
/// disposition is blocked: the row goes `in_flight`.
pub fn retry(tx: &Transaction<'_>, asked: &Value) -> Result<Retried, StoreError> {
    let id = asked.get("id").and_then(Value::as_str).unwrap_or_default();
    let Some(stored) = identity(tx, id)? else {
        return Ok(Retried::NotFound);
    };
    for field in [
        "input_hash",
        "sequence",
        "exact_attempt",
        "summary_attempt_disposition",
    ] {
        if asked.get(field) != stored.get(field) {
            return Ok(Retried::Mismatch(field));
        }
    }
    let code = stored
        .pointer("/summary_attempt_disposition/code")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if !crate::protocol::gate_queue::BLOCKED.contains(&code) {
        return Ok(Retried::NotBlocked);
    }
    tx.execute(
        "UPDATE gate_pending SET disposition_json = ?2, summary_json = '\"pending\"'
         WHERE id = ?1",
        params![id, json!({"code": "in_flight"}).to_string()],
    )?;
    Ok(Retried::Rearmed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seed_hash_is_64_lowercase_hex() {
        let h = hash_of("gate-101");
        assert_eq!(h.len(), 64);
        assert!(
            h.chars()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
        );
        assert_ne!(h, hash_of("gate-102"));
    }
}
