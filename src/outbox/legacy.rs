//! The chat sends' own older table (`chat_outbox`), moved into `saves` when an outbox file
//! written by an earlier version is opened, so every write has one path. Every row keeps
//! its request id (its save id), Keeper, workspace, text and state; nothing is resent. The
//! moved rows belong to no session of this version, so an unsettled one is shown as "not
//! sent" or "outcome unknown" by the chat that owns it.

use super::OutboxError;
use rusqlite::{Connection, params};

/// The session recorded on moved rows (never a live session).
pub const MOVED_SESSION: &str = "chat_outbox";

/// A `chat_outbox` state as a save row's state and reason.
fn moved_state(state: &str, cause: Option<String>) -> Option<(&'static str, Option<String>)> {
    Some(match state {
        "written" => ("written", cause),
        "sending" => ("sending", cause),
        "accepted" => ("accepted", cause),
        "confirmed" => ("settled:applied", cause),
        // The input reached the Keeper; its turn failed.
        "failed" => ("settled:applied", Some("turn_failed".into())),
        "not_applied" => ("settled:not_applied", cause),
        "outcome_unknown" => ("settled:outcome_unknown", cause),
        _ => return None,
    })
}

/// Moves every `chat_outbox` row into `saves` (kind `chat_send`) and drops the old table, in
/// one transaction. A row whose state this version does not know stops the move (the old
/// table stays, and so does the error: nothing is dropped that was not moved).
pub fn move_chat_outbox(conn: &Connection) -> Result<(), OutboxError> {
    let exists: bool = conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'chat_outbox')",
        [],
        |r| r.get(0),
    )?;
    if !exists {
        return Ok(());
    }
    let tx = conn.unchecked_transaction()?;
    {
        let mut read = tx.prepare(
            "SELECT request_id, keeper, workspace, text, state, cause, written_at_ms, updated_at_ms
             FROM chat_outbox ORDER BY written_at_ms, rowid",
        )?;
        let rows = read
            .query_map([], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, Option<String>>(5)?,
                    r.get::<_, i64>(6)?,
                    r.get::<_, i64>(7)?,
                ))
            })?
            .collect::<Result<Vec<_>, _>>()?;
        for (request_id, keeper, workspace, text, state, cause, written, updated) in rows {
            let (state, reason) =
                moved_state(&state, cause).ok_or_else(|| OutboxError::BadState(state.clone()))?;
            let intent = serde_json::json!({
                "keeper": keeper,
                "request_id": request_id,
                "text": text,
            })
            .to_string();
            tx.execute(
                "INSERT OR IGNORE INTO saves
                    (save_id, kind, workspace, target, intent_key, intent, state, reason, session,
                     written_at_ms, updated_at_ms, epoch, generation)
                 VALUES (?1, 'chat_send', ?2, ?3, ?1, ?4, ?5, ?6, ?7, ?8, ?9, 0, 0)",
                params![
                    request_id,
                    workspace,
                    keeper,
                    intent,
                    state,
                    reason,
                    MOVED_SESSION,
                    written,
                    updated
                ],
            )?;
        }
    }
    tx.execute_batch("DROP TABLE chat_outbox;")?;
    tx.commit()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outbox::{OUTBOX_FILE, Outbox, SaveRowState};
    use crate::protocol::outcome::SaveClass;

    const OLD_SCHEMA: &str = "CREATE TABLE chat_outbox (
        request_id TEXT PRIMARY KEY, keeper TEXT NOT NULL, workspace TEXT NOT NULL,
        text TEXT NOT NULL, state TEXT NOT NULL, cause TEXT,
        written_at_ms INTEGER NOT NULL, updated_at_ms INTEGER NOT NULL);";

    /// H-16: an outbox file with the older `chat_outbox` table opens with its chat sends moved
    /// into `saves`: same ids, Keeper, text and state; unsettled ones are orphans.
    #[test]
    fn h16_chat_outbox_rows_move_into_saves_with_their_inputs() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(OUTBOX_FILE);
        {
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch(OLD_SCHEMA).unwrap();
            for (id, state, cause) in [
                ("tui-1", "sending", None),
                ("tui-2", "confirmed", Some("completed")),
                ("tui-3", "failed", Some("failed")),
                ("tui-4", "written", None),
            ] {
                conn.execute(
                    "INSERT INTO chat_outbox VALUES (?1, '하늘', '/w', ?2, ?3, ?4, 1, 2)",
                    params![id, format!("text of {id} 👋"), state, cause],
                )
                .unwrap();
            }
        }
        let outbox = Outbox::open_path(&path).unwrap();
        let row = outbox.save_row("tui-1").unwrap().unwrap();
        assert_eq!(row.kind, "chat_send");
        assert_eq!(row.target, "하늘");
        assert_eq!(row.state, SaveRowState::Sending);
        let intent: serde_json::Value = serde_json::from_str(&row.intent).unwrap();
        assert_eq!(intent["text"], "text of tui-1 👋");
        assert_eq!(intent["request_id"], "tui-1");
        assert_eq!(
            row.orphan_class(outbox.session()),
            Some(SaveClass::OutcomeUnknown)
        );
        let failed = outbox.save_row("tui-3").unwrap().unwrap();
        assert_eq!(failed.state, SaveRowState::Settled(SaveClass::Applied));
        assert_eq!(failed.reason.as_deref(), Some("turn_failed"));
        let written = outbox.save_row("tui-4").unwrap().unwrap();
        assert_eq!(
            written.orphan_class(outbox.session()),
            Some(SaveClass::NotSent)
        );
        let old: bool = outbox
            .lock()
            .query_row(
                "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE name = 'chat_outbox')",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert!(!old, "the old table is gone once its rows moved");
        drop(outbox);
        // Opening again moves nothing twice.
        let again = Outbox::open_path(&path).unwrap();
        assert_eq!(
            again.chat_sends("하늘", "/w").unwrap().len(),
            2,
            "tui-1 (sending) and tui-4 (written) are unsettled"
        );
    }

    #[test]
    fn an_unknown_old_state_stops_the_move_and_keeps_the_old_table() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(OUTBOX_FILE);
        {
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch(OLD_SCHEMA).unwrap();
            conn.execute(
                "INSERT INTO chat_outbox VALUES ('tui-1', 'k', '/w', 't', 'resent', NULL, 1, 2)",
                [],
            )
            .unwrap();
        }
        assert!(matches!(
            Outbox::open_path(&path),
            Err(OutboxError::BadState(_))
        ));
        let conn = Connection::open(&path).unwrap();
        let n: i64 = conn
            .query_row("SELECT COUNT(*) FROM chat_outbox", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 1);
    }
}
