//! What this client learned about a chat send after its save row settled, by request id
//! (`chat_marks`): facts a reopened chat or a restarted process must read back rather than
//! learn again (chat-screen.md C-65, C-44; protocol.md §4.4). A mark is written once: the first
//! answer stays (a reconciliation that found nothing is not asked again; a text given back to
//! the draft is never given back twice).

use super::{Outbox, OutboxError, now_ms};
use rusqlite::params;
use std::collections::HashMap;

pub(super) const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS chat_marks (
    request_id TEXT NOT NULL,
    mark TEXT NOT NULL,
    value TEXT,
    at_ms INTEGER NOT NULL,
    PRIMARY KEY (request_id, mark)
);";

/// One stored mark: its name, its value (if it has one) and when it was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredMark {
    pub mark: String,
    pub value: Option<String>,
    pub at_ms: i64,
}

impl Outbox {
    /// Records `mark` for `request_id` unless it is already recorded (the first answer stays).
    /// Returns whether it was written now.
    pub fn chat_mark(
        &self,
        request_id: &str,
        mark: &str,
        value: Option<&str>,
    ) -> Result<bool, OutboxError> {
        let n = self.lock().execute(
            "INSERT OR IGNORE INTO chat_marks (request_id, mark, value, at_ms)
             VALUES (?1, ?2, ?3, ?4)",
            params![request_id, mark, value, now_ms()],
        )?;
        Ok(n > 0)
    }

    /// Adds `item` to the list `mark` holds for `request_id` (one item a line), unless it is
    /// already there: a fact that grows while the send runs (the tool calls its stream
    /// announced), each item written as it is learned so a process killed mid-turn keeps what
    /// it saw. An item with a line break is refused (it would read back as two).
    pub fn chat_mark_append(
        &self,
        request_id: &str,
        mark: &str,
        item: &str,
    ) -> Result<bool, OutboxError> {
        if item.is_empty() || item.contains(['\n', '\r']) {
            return Ok(false);
        }
        let n = self.lock().execute(
            "INSERT INTO chat_marks (request_id, mark, value, at_ms) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (request_id, mark) DO UPDATE
               SET value = chat_marks.value || char(10) || excluded.value
               WHERE instr(char(10) || chat_marks.value || char(10),
                           char(10) || excluded.value || char(10)) = 0",
            params![request_id, mark, item, now_ms()],
        )?;
        Ok(n > 0)
    }

    /// The marks of each of `request_ids` that has any.
    pub fn chat_marks(
        &self,
        request_ids: &[&str],
    ) -> Result<HashMap<String, Vec<StoredMark>>, OutboxError> {
        let conn = self.lock();
        let mut stmt = conn.prepare(
            "SELECT mark, value, at_ms FROM chat_marks WHERE request_id = ?1 ORDER BY at_ms, rowid",
        )?;
        let mut out = HashMap::new();
        for id in request_ids {
            let marks = stmt
                .query_map(params![id], |r| {
                    Ok(StoredMark {
                        mark: r.get(0)?,
                        value: r.get(1)?,
                        at_ms: r.get(2)?,
                    })
                })?
                .collect::<Result<Vec<_>, _>>()?;
            if !marks.is_empty() {
                out.insert((*id).to_string(), marks);
            }
        }
        Ok(out)
    }
}

impl Outbox {
    /// The newest `limit` chat sends to `keeper` in `workspace` with a `mark` that has a value:
    /// each send's stored intent (JSON) and the mark's value, newest first.
    pub fn chat_marked(
        &self,
        keeper: &str,
        workspace: &str,
        mark: &str,
        limit: usize,
    ) -> Result<Vec<(String, String)>, OutboxError> {
        let conn = self.lock();
        let mut stmt = conn.prepare(
            "SELECT s.intent, m.value FROM saves s
             JOIN chat_marks m ON m.request_id = s.intent_key AND m.mark = ?3
             WHERE s.kind = 'chat_send' AND s.workspace = ?1 AND s.target = ?2
               AND m.value IS NOT NULL
             ORDER BY s.written_at_ms DESC, s.rowid DESC LIMIT ?4",
        )?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = stmt
            .query_map(params![workspace, keeper, mark, limit], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }
}

/// A save of one of a chat's kinds (turn control) with the value of one mark, if written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MarkedSave {
    pub kind: String,
    pub save_id: String,
    pub intent: String,
    pub session: String,
    /// Its row settled (its receipt or a restore's class is written).
    pub settled: bool,
    pub mark: Option<String>,
}

impl Outbox {
    /// The newest `limit` saves of `kinds` aimed at `keeper` in `workspace`, oldest first, each
    /// with its `mark` (by save id) where one was written.
    pub fn saves_marked(
        &self,
        keeper: &str,
        workspace: &str,
        kinds: &[&str],
        mark: &str,
        limit: usize,
    ) -> Result<Vec<MarkedSave>, OutboxError> {
        let conn = self.lock();
        let mut stmt = conn.prepare(
            "SELECT s.kind, s.save_id, s.intent, s.session, s.state LIKE 'settled:%', m.value
             FROM saves s
             LEFT JOIN chat_marks m ON m.request_id = s.save_id AND m.mark = ?3
             WHERE s.kind = ?4 AND s.workspace = ?1 AND s.target = ?2
             ORDER BY s.written_at_ms DESC, s.rowid DESC LIMIT ?5",
        )?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let mut out = Vec::new();
        for kind in kinds {
            let rows = stmt
                .query_map(params![workspace, keeper, mark, kind, limit], |r| {
                    Ok(MarkedSave {
                        kind: r.get(0)?,
                        save_id: r.get(1)?,
                        intent: r.get(2)?,
                        session: r.get(3)?,
                        settled: r.get(4)?,
                        mark: r.get(5)?,
                    })
                })?
                .collect::<Result<Vec<_>, _>>()?;
            out.extend(rows.into_iter().rev());
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use crate::outbox::{OUTBOX_FILE, Outbox};

    #[test]
    fn c65_a_mark_is_written_once_and_read_back_after_a_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(OUTBOX_FILE);
        let outbox = Outbox::open_path(&path).unwrap();
        assert!(
            outbox
                .chat_mark("tui-1", "not_recorded", Some("39"))
                .unwrap()
        );
        assert!(
            !outbox
                .chat_mark("tui-1", "not_recorded", Some("80"))
                .unwrap()
        );
        assert!(outbox.chat_mark("tui-1", "draft_returned", None).unwrap());
        drop(outbox);
        let again = Outbox::open_path(&path).unwrap();
        let marks = again.chat_marks(&["tui-1", "tui-2"]).unwrap();
        assert!(!marks.contains_key("tui-2"));
        let names: Vec<(&str, Option<&str>)> = marks["tui-1"]
            .iter()
            .map(|m| (m.mark.as_str(), m.value.as_deref()))
            .collect();
        assert_eq!(
            names,
            [("not_recorded", Some("39")), ("draft_returned", None)],
            "the first answer stays"
        );
    }

    #[test]
    fn a_list_mark_grows_by_new_items_only_and_refuses_a_line_break() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(OUTBOX_FILE);
        let outbox = Outbox::open_path(&path).unwrap();
        assert!(
            outbox
                .chat_mark_append("tui-1", "tool_calls", "call-a")
                .unwrap()
        );
        assert!(
            outbox
                .chat_mark_append("tui-1", "tool_calls", "call-b")
                .unwrap()
        );
        assert!(
            !outbox
                .chat_mark_append("tui-1", "tool_calls", "call-a")
                .unwrap()
        );
        assert!(
            outbox
                .chat_mark_append("tui-1", "tool_calls", "call-")
                .unwrap()
        );
        assert!(
            !outbox
                .chat_mark_append("tui-1", "tool_calls", "x\ny")
                .unwrap()
        );
        assert!(!outbox.chat_mark_append("tui-1", "tool_calls", "").unwrap());
        drop(outbox);
        let again = Outbox::open_path(&path).unwrap();
        let marks = again.chat_marks(&["tui-1"]).unwrap();
        assert_eq!(
            marks["tui-1"][0].value.as_deref(),
            Some("call-a\ncall-b\ncall-"),
            "each new item once, in the order learned; a prefix of another is its own item"
        );
    }
}
