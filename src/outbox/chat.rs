//! The chat sends' rows (`chat_outbox`): `written → sending → accepted / confirmed / failed /
//! not_applied / outcome_unknown`, keyed by the exact request id (issue 4 item 5).

use super::{Outbox, OutboxError, now_ms};
use rusqlite::{OptionalExtension, params};

/// The lifecycle of one send, as stored. Closed: an unknown stored value is a read error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SendState {
    /// On disk; the POST has not been attempted yet.
    Written,
    /// The POST may be on the wire from now on.
    Sending,
    /// The server's acceptance receipt arrived (queued, not processed: C-34).
    Accepted,
    /// The turn finished (stream `RUN_FINISHED`, or reconciliation `Succeeded`).
    Confirmed,
    /// The turn is known to have failed or been cancelled after acceptance.
    Failed,
    /// Verified never applied (pre-acceptance 400/401/403/404, listed `RUN_ERROR` codes, or
    /// refused before sending). The draft is kept for editing.
    NotApplied,
    /// The request may have had an effect and no outcome was seen (cut stream, dropped
    /// connection, crash). Reconciled by exact id; never resent automatically.
    OutcomeUnknown,
}

impl SendState {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Written => "written",
            Self::Sending => "sending",
            Self::Accepted => "accepted",
            Self::Confirmed => "confirmed",
            Self::Failed => "failed",
            Self::NotApplied => "not_applied",
            Self::OutcomeUnknown => "outcome_unknown",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [
            Self::Written,
            Self::Sending,
            Self::Accepted,
            Self::Confirmed,
            Self::Failed,
            Self::NotApplied,
            Self::OutcomeUnknown,
        ]
        .into_iter()
        .find(|st| st.as_str() == s)
    }

    /// Settled: the outcome is known (confirmed, failed, not applied).
    pub fn is_settled(self) -> bool {
        matches!(self, Self::Confirmed | Self::Failed | Self::NotApplied)
    }
}

/// One stored send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutboxEntry {
    pub request_id: String,
    pub keeper: String,
    /// The workspace (served `effective_masc_root`) the send was made in.
    pub workspace: String,
    /// The operator's text, verbatim.
    pub text: String,
    pub state: SendState,
    /// Closed-vocabulary cause of the last transition (e.g. `status_403`, `stream_cut`);
    /// never body text (G-10).
    pub cause: Option<String>,
    /// Milliseconds since the epoch of the first write.
    pub written_at_ms: i64,
}

/// What is written before a send leaves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewSend {
    pub request_id: String,
    pub keeper: String,
    pub workspace: String,
    pub text: String,
}

impl Outbox {
    /// Writes a new send in state `written`. A request id is written once, ever.
    pub fn record_written(&self, send: &NewSend) -> Result<(), OutboxError> {
        let now = now_ms();
        let n = self.lock().execute(
            "INSERT OR IGNORE INTO chat_outbox
                (request_id, keeper, workspace, text, state, cause, written_at_ms, updated_at_ms)
             VALUES (?1, ?2, ?3, ?4, 'written', NULL, ?5, ?5)",
            params![send.request_id, send.keeper, send.workspace, send.text, now],
        )?;
        if n == 0 {
            return Err(OutboxError::DuplicateRequest(send.request_id.clone()));
        }
        Ok(())
    }

    /// Records a transition. A settled row never moves back to an unsettled state (a late
    /// stream end after a reconciliation confirmed it keeps `confirmed`).
    pub fn set_state(
        &self,
        request_id: &str,
        state: SendState,
        cause: Option<&str>,
    ) -> Result<SendState, OutboxError> {
        let conn = self.lock();
        let current: Option<String> = conn
            .query_row(
                "SELECT state FROM chat_outbox WHERE request_id = ?1",
                params![request_id],
                |r| r.get(0),
            )
            .optional()?;
        let Some(current) = current else {
            return Err(OutboxError::UnknownRequest(request_id.to_string()));
        };
        let current = SendState::parse(&current).ok_or(OutboxError::BadState(current))?;
        if current.is_settled() && !state.is_settled() {
            return Ok(current);
        }
        conn.execute(
            "UPDATE chat_outbox SET state = ?2, cause = ?3, updated_at_ms = ?4
             WHERE request_id = ?1",
            params![request_id, state.as_str(), cause, now_ms()],
        )?;
        Ok(state)
    }

    pub fn get(&self, request_id: &str) -> Result<Option<OutboxEntry>, OutboxError> {
        let conn = self.lock();
        let row = conn
            .query_row(
                "SELECT request_id, keeper, workspace, text, state, cause, written_at_ms
                 FROM chat_outbox WHERE request_id = ?1",
                params![request_id],
                raw_row,
            )
            .optional()?;
        row.map(entry_of).transpose()
    }

    /// Every unsettled send of `keeper` in `workspace`, oldest first.
    pub fn unsettled(
        &self,
        keeper: &str,
        workspace: &str,
    ) -> Result<Vec<OutboxEntry>, OutboxError> {
        let conn = self.lock();
        let mut stmt = conn.prepare(
            "SELECT request_id, keeper, workspace, text, state, cause, written_at_ms
             FROM chat_outbox
             WHERE keeper = ?1 AND workspace = ?2
               AND state IN ('written', 'sending', 'accepted', 'outcome_unknown')
             ORDER BY written_at_ms, rowid",
        )?;
        let rows = stmt
            .query_map(params![keeper, workspace], raw_row)?
            .collect::<Result<Vec<_>, _>>()?;
        rows.into_iter().map(entry_of).collect()
    }
}

type RawRow = (String, String, String, String, String, Option<String>, i64);

fn raw_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<RawRow> {
    Ok((
        r.get(0)?,
        r.get(1)?,
        r.get(2)?,
        r.get(3)?,
        r.get(4)?,
        r.get(5)?,
        r.get(6)?,
    ))
}

fn entry_of(raw: RawRow) -> Result<OutboxEntry, OutboxError> {
    let (request_id, keeper, workspace, text, state, cause, written_at_ms) = raw;
    let state = SendState::parse(&state).ok_or(OutboxError::BadState(state))?;
    Ok(OutboxEntry {
        request_id,
        keeper,
        workspace,
        text,
        state,
        cause,
        written_at_ms,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outbox::{OUTBOX_FILE, OutboxLocation, new_request_id};

    fn send(id: &str, keeper: &str, ws: &str) -> NewSend {
        NewSend {
            request_id: id.into(),
            keeper: keeper.into(),
            workspace: ws.into(),
            text: format!("hello {id} 안녕 👋"),
        }
    }

    #[test]
    fn written_rows_survive_reopen_and_keep_their_id_and_text() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nested").join(OUTBOX_FILE);
        let outbox = Outbox::open(&OutboxLocation::File(path.clone())).unwrap();
        outbox
            .record_written(&send("tui-a", "rondo", "/w"))
            .unwrap();
        outbox.set_state("tui-a", SendState::Sending, None).unwrap();
        drop(outbox);
        let again = Outbox::open_path(&path).unwrap();
        let rows = again.unsettled("rondo", "/w").unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].request_id, "tui-a");
        assert_eq!(rows[0].text, "hello tui-a 안녕 👋");
        assert_eq!(rows[0].state, SendState::Sending);
        let mode: String = again
            .lock()
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        let sync: i64 = again
            .lock()
            .query_row("PRAGMA synchronous", [], |r| r.get(0))
            .unwrap();
        assert_eq!(sync, 2, "synchronous=FULL");
    }

    #[test]
    fn a_request_id_is_written_once() {
        let dir = tempfile::tempdir().unwrap();
        let outbox = Outbox::open_path(&dir.path().join(OUTBOX_FILE)).unwrap();
        outbox
            .record_written(&send("tui-a", "rondo", "/w"))
            .unwrap();
        assert!(matches!(
            outbox.record_written(&send("tui-a", "rondo", "/w")),
            Err(OutboxError::DuplicateRequest(_))
        ));
    }

    #[test]
    fn unsettled_is_per_keeper_and_workspace_and_skips_settled_rows() {
        let dir = tempfile::tempdir().unwrap();
        let outbox = Outbox::open_path(&dir.path().join(OUTBOX_FILE)).unwrap();
        for (id, k, w) in [
            ("tui-1", "rondo", "/w"),
            ("tui-2", "rondo", "/w"),
            ("tui-3", "mira", "/w"),
            ("tui-4", "rondo", "/other"),
        ] {
            outbox.record_written(&send(id, k, w)).unwrap();
        }
        outbox
            .set_state("tui-2", SendState::Confirmed, None)
            .unwrap();
        let ids: Vec<String> = outbox
            .unsettled("rondo", "/w")
            .unwrap()
            .into_iter()
            .map(|e| e.request_id)
            .collect();
        assert_eq!(ids, ["tui-1"]);
    }

    #[test]
    fn a_settled_row_never_moves_back() {
        let dir = tempfile::tempdir().unwrap();
        let outbox = Outbox::open_path(&dir.path().join(OUTBOX_FILE)).unwrap();
        outbox
            .record_written(&send("tui-a", "rondo", "/w"))
            .unwrap();
        outbox
            .set_state("tui-a", SendState::Confirmed, None)
            .unwrap();
        let kept = outbox
            .set_state("tui-a", SendState::OutcomeUnknown, Some("stream_cut"))
            .unwrap();
        assert_eq!(kept, SendState::Confirmed);
        assert!(matches!(
            outbox.set_state("tui-zzz", SendState::Sending, None),
            Err(OutboxError::UnknownRequest(_))
        ));
    }

    #[test]
    fn request_ids_are_uuid_v7_with_the_tui_prefix() {
        let a = new_request_id();
        let b = new_request_id();
        assert_ne!(a, b);
        let uuid = uuid::Uuid::parse_str(a.strip_prefix("tui-").unwrap()).unwrap();
        assert_eq!(uuid.get_version_num(), 7);
    }

    #[test]
    fn state_names_round_trip() {
        for s in [
            SendState::Written,
            SendState::Sending,
            SendState::Accepted,
            SendState::Confirmed,
            SendState::Failed,
            SendState::NotApplied,
            SendState::OutcomeUnknown,
        ] {
            assert_eq!(SendState::parse(s.as_str()), Some(s));
        }
        assert_eq!(SendState::parse("resent"), None);
    }
}
