//! What became of an answer (§10.3 follow-up sources) and retained turn transcripts (§10.4).

use super::{ASK_SELECT, ask_of};
use crate::server::store::StoreError;
use rusqlite::{Connection, OptionalExtension, params};
use serde_json::{Value, json};

/// The ask's task id and its (source, observation) pairs.
pub type FollowUp = (Option<String>, Vec<(&'static str, Value)>);

/// The three §10.3 observations of an ask, in the order the stream sends them (tool_result,
/// wake, task), plus the ask's task id.
pub fn follow_up(conn: &Connection, ask_id: &str) -> Result<Option<FollowUp>, StoreError> {
    let row = conn
        .query_row(
            &format!("{ASK_SELECT} WHERE ask_id = ?1"),
            params![ask_id],
            ask_of,
        )
        .optional()?;
    let Some(a) = row else { return Ok(None) };
    let withdrawn = a.state == "withdrawn";
    let mut stmt = conn.prepare(
        "SELECT turn_ref, wake_reason, started_at FROM ask_wake_turns WHERE ask_id = ?1 ORDER BY started_at",
    )?;
    let turns: Vec<Value> = stmt
        .query_map(params![ask_id], |r| {
            Ok(
                json!({"turn_ref": r.get::<_, String>(0)?, "wake_reason": r.get::<_, String>(1)?,
                      "started_at": r.get::<_, f64>(2)?}),
            )
        })?
        .collect::<Result<_, _>>()?;
    let wake = if withdrawn {
        json!({"state": "unavailable", "reason": "ask withdrawn before an answer; no wake recorded"})
    } else if turns.is_empty() {
        json!({"state": "observed_empty"})
    } else {
        json!({"state": "observed", "turns": turns, "complete": true})
    };
    let tool = if withdrawn {
        json!({"state": "unavailable", "reason": "tool ledger is not linked to withdrawn asks"})
    } else {
        let mut totals = serde_json::Map::new();
        for b in ["success", "held", "failure", "undetermined", "malformed"] {
            let n: i64 = conn.query_row(
                "SELECT COUNT(*) FROM ask_tool_results WHERE ask_id = ?1 AND bucket = ?2",
                params![ask_id, b],
                |r| r.get(0),
            )?;
            totals.insert(b.into(), json!(n));
        }
        let latest = conn
            .query_row(
                "SELECT bucket, tool, at FROM ask_tool_results WHERE ask_id = ?1 ORDER BY at DESC LIMIT 1",
                params![ask_id],
                |r| Ok(json!({"bucket": r.get::<_, String>(0)?, "tool": r.get::<_, String>(1)?,
                              "at": r.get::<_, f64>(2)?})),
            )
            .optional()?;
        json!({"state": "observed", "totals": totals, "latest": latest})
    };
    let task = match (&a.task_id, &a.task_status) {
        (Some(id), Some(status)) => json!({"state": "observed", "task_id": id, "status": status,
                                           "observed_at": a.answered_at.unwrap_or(a.asked_at) + 60.0}),
        (Some(_), None) => json!({"state": "unavailable", "reason": "task store unreadable"}),
        (None, _) => json!({"state": "unlinked"}),
    };
    // The Tool result first, then the turn it belongs to: a client must show each source as
    // it arrives, in any order (§10.3), and the demo shows it in this one.
    Ok(Some((
        a.task_id.clone(),
        vec![("tool_result", tool), ("wake", wake), ("task", task)],
    )))
}

/// §10.4 rows of one retained turn (empty = not retained).
pub fn transcript(
    conn: &Connection,
    keeper: &str,
    turn_ref: &str,
) -> Result<Vec<Value>, StoreError> {
    let mut stmt = conn.prepare(
        "SELECT turn_ref, kind, role, content, ts FROM turn_transcripts
         WHERE keeper = ?1 AND turn_ref = ?2 ORDER BY ts, seq",
    )?;
    let rows = stmt.query_map(params![keeper, turn_ref], |r| {
        Ok(
            json!({"turn_ref": r.get::<_, String>(0)?, "kind": r.get::<_, String>(1)?,
                  "role": r.get::<_, String>(2)?, "content": r.get::<_, String>(3)?,
                  "ts": r.get::<_, f64>(4)?}),
        )
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}
