//! Save rows (`saves`): one row per save of any kind but the chat send, written before the
//! request leaves (sources.md H-5, H-15, H-16, K-1, K-5).
//!
//! States move forward only: `written` (on disk; nothing sent yet) → `sending` (the request may
//! be on the wire from now on) → `settled:<outcome>` or `outcome_unknown`. A row another
//! session left `written` never reached the network ("not sent"); one it left `sending` is
//! "outcome unknown". Neither is ever resent automatically.

use super::{Outbox, OutboxError, now_ms};
use crate::protocol::outcome::SaveClass;
use rusqlite::{OptionalExtension, params};

/// Where one save stands, as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SaveRowState {
    /// On disk; the request has not been attempted.
    Written,
    /// The request may be on the wire from now on.
    Sending,
    /// The server acknowledged the request; its outcome is still to come (the chat send's
    /// acceptance: queued, not processed, C-34).
    Accepted,
    /// The outcome is known (or, for `OutcomeUnknown`, known to be unknown).
    Settled(SaveClass),
}

impl SaveRowState {
    pub fn as_str(self) -> String {
        match self {
            Self::Written => "written".into(),
            Self::Sending => "sending".into(),
            Self::Accepted => "accepted".into(),
            Self::Settled(class) => format!("settled:{}", class.as_str()),
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "written" => Some(Self::Written),
            "sending" => Some(Self::Sending),
            "accepted" => Some(Self::Accepted),
            other => other
                .strip_prefix("settled:")
                .and_then(SaveClass::parse)
                .map(Self::Settled),
        }
    }

    /// How far along the row is (rows never move back).
    fn rank(self) -> u8 {
        match self {
            Self::Written => 0,
            Self::Sending => 1,
            Self::Accepted => 2,
            Self::Settled(SaveClass::OutcomeUnknown) => 3,
            Self::Settled(_) => 4,
        }
    }
}

/// What is written before a save leaves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewSave {
    pub save_id: String,
    /// The save kind (`approval_decision`, `ask_answer`, …).
    pub kind: String,
    /// The workspace (served `effective_masc_root`) the save was submitted in.
    pub workspace: String,
    /// What it acts on (an approval token, `keeper/ask_id`, …): identifiers, no body text.
    pub target: String,
    /// Equal intents share one job.
    pub intent_key: String,
    /// The operator's inputs, as JSON, verbatim.
    pub intent: String,
    /// The epoch and generation of the ticket the save's steps are posted with.
    pub epoch: u64,
    pub generation: u64,
}

/// One stored save.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SaveRow {
    pub save_id: String,
    pub kind: String,
    pub workspace: String,
    pub target: String,
    pub intent_key: String,
    pub intent: String,
    pub state: SaveRowState,
    /// The reason of the last transition (our vocabulary plus the server's error token).
    pub reason: Option<String>,
    /// The session that wrote it.
    pub session: String,
    pub written_at_ms: i64,
    /// The epoch and generation of the ticket its steps were posted with (0 for rows moved
    /// from an earlier version's table).
    pub epoch: u64,
    pub generation: u64,
}

impl SaveRow {
    /// What a row left unsettled by another session means now: `written` never reached the
    /// network, `sending` may have. `None` for a settled row or one of this session.
    pub fn orphan_class(&self, this_session: &str) -> Option<SaveClass> {
        if self.session == this_session {
            return None;
        }
        match self.state {
            SaveRowState::Written => Some(SaveClass::NotSent),
            SaveRowState::Sending
            | SaveRowState::Accepted
            | SaveRowState::Settled(SaveClass::OutcomeUnknown) => Some(SaveClass::OutcomeUnknown),
            SaveRowState::Settled(_) => None,
        }
    }
}

const COLUMNS: &str = "save_id, kind, workspace, target, intent_key, intent, state, reason, \
     session, written_at_ms, epoch, generation";

/// The rows a save of this kind is not settled in: still to be shown as pending, not sent or
/// outcome unknown.
const UNSETTLED: &str = "('written', 'sending', 'accepted', 'settled:outcome_unknown')";
const SHOWN: &str = "('written', 'sending', 'accepted', 'settled:outcome_unknown', \
     'settled:not_applied', 'settled:not_sent')";

/// Adds the ticket columns to a `saves` table written before they existed.
pub(super) fn add_ticket_columns(conn: &rusqlite::Connection) -> Result<(), OutboxError> {
    let mut stmt = conn.prepare("SELECT name FROM pragma_table_info('saves')")?;
    let names = stmt
        .query_map([], |r| r.get::<_, String>(0))?
        .collect::<Result<Vec<_>, _>>()?;
    for column in ["epoch", "generation"] {
        if !names.iter().any(|n| n == column) {
            conn.execute_batch(&format!(
                "ALTER TABLE saves ADD COLUMN {column} INTEGER NOT NULL DEFAULT 0;"
            ))?;
        }
    }
    Ok(())
}

fn u64_of(v: i64) -> u64 {
    u64::try_from(v).unwrap_or(0)
}

fn i64_of(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

fn row_of(r: &rusqlite::Row<'_>) -> rusqlite::Result<(SaveRow, String)> {
    let state: String = r.get(6)?;
    Ok((
        SaveRow {
            save_id: r.get(0)?,
            kind: r.get(1)?,
            workspace: r.get(2)?,
            target: r.get(3)?,
            intent_key: r.get(4)?,
            intent: r.get(5)?,
            state: SaveRowState::Written,
            reason: r.get(7)?,
            session: r.get(8)?,
            written_at_ms: r.get(9)?,
            epoch: u64_of(r.get(10)?),
            generation: u64_of(r.get(11)?),
        },
        state,
    ))
}

fn finish((mut row, state): (SaveRow, String)) -> Result<SaveRow, OutboxError> {
    row.state = SaveRowState::parse(&state).ok_or(OutboxError::BadState(state))?;
    Ok(row)
}

impl Outbox {
    /// Writes a new save in state `written`, under this session. A save id is written once.
    pub fn save_written(&self, save: &NewSave) -> Result<(), OutboxError> {
        let now = now_ms();
        let n = self.lock().execute(
            "INSERT OR IGNORE INTO saves
                (save_id, kind, workspace, target, intent_key, intent, state, reason, session,
                 written_at_ms, updated_at_ms, epoch, generation)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'written', NULL, ?7, ?8, ?8, ?9, ?10)",
            params![
                save.save_id,
                save.kind,
                save.workspace,
                save.target,
                save.intent_key,
                save.intent,
                self.session(),
                now,
                i64_of(save.epoch),
                i64_of(save.generation)
            ],
        )?;
        if n == 0 {
            return Err(OutboxError::DuplicateSave(save.save_id.clone()));
        }
        Ok(())
    }

    /// Records a transition; a row never moves back (a settled row stays settled, a known
    /// outcome is never replaced by "unknown"). Returns the state now stored.
    pub fn save_state(
        &self,
        save_id: &str,
        state: SaveRowState,
        reason: Option<&str>,
    ) -> Result<SaveRowState, OutboxError> {
        let conn = self.lock();
        let current: Option<String> = conn
            .query_row(
                "SELECT state FROM saves WHERE save_id = ?1",
                params![save_id],
                |r| r.get(0),
            )
            .optional()?;
        let Some(current) = current else {
            return Err(OutboxError::UnknownSave(save_id.to_string()));
        };
        let current = SaveRowState::parse(&current).ok_or(OutboxError::BadState(current))?;
        if state.rank() <= current.rank() && current != SaveRowState::Written {
            return Ok(current);
        }
        conn.execute(
            "UPDATE saves SET state = ?2, reason = ?3, updated_at_ms = ?4 WHERE save_id = ?1",
            params![save_id, state.as_str(), reason, now_ms()],
        )?;
        Ok(state)
    }

    pub fn save_row(&self, save_id: &str) -> Result<Option<SaveRow>, OutboxError> {
        let conn = self.lock();
        let row = conn
            .query_row(
                &format!("SELECT {COLUMNS} FROM saves WHERE save_id = ?1"),
                params![save_id],
                row_of,
            )
            .optional()?;
        row.map(finish).transpose()
    }

    /// Every save of `workspace` not settled with a known outcome (written, sending,
    /// accepted, outcome unknown), oldest first.
    pub fn unsettled_saves(&self, workspace: &str) -> Result<Vec<SaveRow>, OutboxError> {
        let conn = self.lock();
        let mut stmt = conn.prepare(&format!(
            "SELECT {COLUMNS} FROM saves
             WHERE workspace = ?1 AND state IN {UNSETTLED}
             ORDER BY written_at_ms, rowid"
        ))?;
        let rows = stmt
            .query_map(params![workspace], row_of)?
            .collect::<Result<Vec<_>, _>>()?;
        rows.into_iter().map(finish).collect()
    }

    /// The newest `limit` saves of `workspace`, every session's and state's, newest first (the
    /// saves journal).
    pub fn recent_saves(&self, workspace: &str, limit: usize) -> Result<Vec<SaveRow>, OutboxError> {
        let conn = self.lock();
        let mut stmt = conn.prepare(&format!(
            "SELECT {COLUMNS} FROM saves WHERE workspace = ?1
             ORDER BY written_at_ms DESC, rowid DESC LIMIT ?2"
        ))?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = stmt
            .query_map(params![workspace, limit], row_of)?
            .collect::<Result<Vec<_>, _>>()?;
        rows.into_iter().map(finish).collect()
    }

    /// The chat sends to `keeper` in `workspace` not settled with a known outcome, oldest
    /// first (a chat shows them on open and reconciles the unknown ones).
    pub fn chat_sends(&self, keeper: &str, workspace: &str) -> Result<Vec<SaveRow>, OutboxError> {
        self.chat_sends_in(keeper, workspace, UNSETTLED)
    }

    /// [`Outbox::chat_sends`] and the sends the server refused or that never left
    /// (`settled:not_applied`, `settled:not_sent`): the server's history never holds them, so
    /// a chat rebuilds their rows from here on every open (C-8: failure rows never fold).
    pub fn chat_sends_shown(
        &self,
        keeper: &str,
        workspace: &str,
    ) -> Result<Vec<SaveRow>, OutboxError> {
        self.chat_sends_in(keeper, workspace, SHOWN)
    }

    fn chat_sends_in(
        &self,
        keeper: &str,
        workspace: &str,
        states: &str,
    ) -> Result<Vec<SaveRow>, OutboxError> {
        let conn = self.lock();
        let mut stmt = conn.prepare(&format!(
            "SELECT {COLUMNS} FROM saves
             WHERE kind = 'chat_send' AND workspace = ?1 AND target = ?2
               AND state IN {states}
             ORDER BY written_at_ms, rowid"
        ))?;
        let rows = stmt
            .query_map(params![workspace, keeper], row_of)?
            .collect::<Result<Vec<_>, _>>()?;
        rows.into_iter().map(finish).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outbox::OUTBOX_FILE;

    fn save(id: &str, ws: &str) -> NewSave {
        NewSave {
            save_id: id.into(),
            kind: "approval_decision".into(),
            workspace: ws.into(),
            target: "opc_1".into(),
            intent_key: "opc_1".into(),
            intent: r#"{"confirm_token":"opc_1","decision":"confirm"}"#.into(),
            epoch: 3,
            generation: 7,
        }
    }

    #[test]
    fn states_round_trip() {
        for s in [
            SaveRowState::Written,
            SaveRowState::Sending,
            SaveRowState::Accepted,
        ]
        .into_iter()
        .chain(SaveClass::ALL.map(SaveRowState::Settled))
        {
            assert_eq!(SaveRowState::parse(&s.as_str()), Some(s));
        }
        assert_eq!(SaveRowState::parse("settled:maybe"), None);
    }

    #[test]
    fn h15_rows_only_move_forward_and_a_known_outcome_is_never_replaced_by_unknown() {
        let dir = tempfile::tempdir().unwrap();
        let outbox = Outbox::open_path(&dir.path().join(OUTBOX_FILE)).unwrap();
        outbox.save_written(&save("save-1", "/w")).unwrap();
        assert!(matches!(
            outbox.save_written(&save("save-1", "/w")),
            Err(OutboxError::DuplicateSave(_))
        ));
        assert_eq!(
            outbox
                .save_state("save-1", SaveRowState::Sending, None)
                .unwrap(),
            SaveRowState::Sending
        );
        let applied = SaveRowState::Settled(SaveClass::Applied);
        assert_eq!(outbox.save_state("save-1", applied, None).unwrap(), applied);
        let unknown = SaveRowState::Settled(SaveClass::OutcomeUnknown);
        assert_eq!(
            outbox.save_state("save-1", unknown, Some("late")).unwrap(),
            applied
        );
        assert_eq!(
            outbox
                .save_state("save-1", SaveRowState::Sending, None)
                .unwrap(),
            applied
        );
        assert!(matches!(
            outbox.save_state("save-x", SaveRowState::Sending, None),
            Err(OutboxError::UnknownSave(_))
        ));
    }

    /// H-16, K-5: a row another session left is "not sent" when it never reached `sending`,
    /// "outcome unknown" when it did; this session's rows are its own (live).
    #[test]
    fn h16_orphans_of_another_session_are_not_sent_or_unknown() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(OUTBOX_FILE);
        let first = Outbox::open_path(&path).unwrap();
        first.save_written(&save("save-w", "/w")).unwrap();
        first.save_written(&save("save-s", "/w")).unwrap();
        first
            .save_state("save-s", SaveRowState::Sending, None)
            .unwrap();
        first.save_written(&save("save-d", "/w")).unwrap();
        first
            .save_state("save-d", SaveRowState::Settled(SaveClass::Applied), None)
            .unwrap();
        first.save_written(&save("save-o", "/other")).unwrap();
        let rows = first.unsettled_saves("/w").unwrap();
        assert!(
            rows.iter()
                .all(|r| r.orphan_class(first.session()).is_none())
        );
        drop(first);
        let second = Outbox::open_path(&path).unwrap();
        let rows = second.unsettled_saves("/w").unwrap();
        let classes: Vec<(String, Option<SaveClass>)> = rows
            .iter()
            .map(|r| (r.save_id.clone(), r.orphan_class(second.session())))
            .collect();
        assert_eq!(
            classes,
            [
                ("save-w".to_string(), Some(SaveClass::NotSent)),
                ("save-s".to_string(), Some(SaveClass::OutcomeUnknown)),
            ]
        );
        assert_eq!(rows[0].intent, save("save-w", "/w").intent);
    }

    fn chat(id: &str, keeper: &str, ws: &str) -> NewSave {
        NewSave {
            save_id: id.into(),
            kind: "chat_send".into(),
            workspace: ws.into(),
            target: keeper.into(),
            intent_key: id.into(),
            intent: format!(r#"{{"keeper":"{keeper}","request_id":"{id}","text":"안녕 👋"}}"#),
            epoch: 1,
            generation: 1,
        }
    }

    /// The file is WAL with synchronous=FULL; a written row and its ticket survive reopening.
    #[test]
    fn written_rows_survive_reopen_with_their_ticket_on_a_durable_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nested").join(OUTBOX_FILE);
        let outbox = Outbox::open(&crate::outbox::OutboxLocation::File(path.clone())).unwrap();
        outbox.save_written(&save("save-1", "/w")).unwrap();
        drop(outbox);
        let again = Outbox::open_path(&path).unwrap();
        let row = again.save_row("save-1").unwrap().unwrap();
        assert_eq!((row.epoch, row.generation), (3, 7));
        assert_eq!(row.state, SaveRowState::Written);
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

    /// A chat send's acceptance is recorded and may still end unknown; an unknown row is not
    /// moved back to `accepted` by a later reconciliation that finds it queued (it stays to be
    /// reconciled), and a known outcome replaces it.
    #[test]
    fn h15_accepted_moves_on_to_unknown_and_unknown_only_to_a_known_outcome() {
        let dir = tempfile::tempdir().unwrap();
        let outbox = Outbox::open_path(&dir.path().join(OUTBOX_FILE)).unwrap();
        outbox.save_written(&chat("tui-1", "rondo", "/w")).unwrap();
        for state in [SaveRowState::Sending, SaveRowState::Accepted] {
            assert_eq!(outbox.save_state("tui-1", state, None).unwrap(), state);
        }
        let unknown = SaveRowState::Settled(SaveClass::OutcomeUnknown);
        assert_eq!(outbox.save_state("tui-1", unknown, None).unwrap(), unknown);
        assert_eq!(
            outbox
                .save_state("tui-1", SaveRowState::Accepted, Some("reconciled"))
                .unwrap(),
            unknown
        );
        let applied = SaveRowState::Settled(SaveClass::Applied);
        assert_eq!(
            outbox
                .save_state("tui-1", applied, Some("reconciled"))
                .unwrap(),
            applied
        );
    }

    #[test]
    fn chat_sends_are_per_keeper_and_workspace_and_skip_settled_rows_and_other_kinds() {
        let dir = tempfile::tempdir().unwrap();
        let outbox = Outbox::open_path(&dir.path().join(OUTBOX_FILE)).unwrap();
        for (id, k, w) in [
            ("tui-1", "rondo", "/w"),
            ("tui-2", "rondo", "/w"),
            ("tui-3", "mira", "/w"),
            ("tui-4", "rondo", "/other"),
            ("tui-5", "rondo", "/w"),
        ] {
            outbox.save_written(&chat(id, k, w)).unwrap();
        }
        outbox.save_written(&save("save-1", "/w")).unwrap();
        outbox
            .save_state("tui-2", SaveRowState::Settled(SaveClass::Applied), None)
            .unwrap();
        outbox
            .save_state(
                "tui-5",
                SaveRowState::Settled(SaveClass::OutcomeUnknown),
                None,
            )
            .unwrap();
        let ids: Vec<String> = outbox
            .chat_sends("rondo", "/w")
            .unwrap()
            .into_iter()
            .map(|e| e.save_id)
            .collect();
        assert_eq!(ids, ["tui-1", "tui-5"]);
    }

    /// A `saves` table of the first saves version (no ticket columns) gains them on open.
    #[test]
    fn an_older_saves_table_gains_the_ticket_columns() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(OUTBOX_FILE);
        {
            let conn = rusqlite::Connection::open(&path).unwrap();
            conn.execute_batch(
                "CREATE TABLE saves (save_id TEXT PRIMARY KEY, kind TEXT NOT NULL,
                 workspace TEXT NOT NULL, target TEXT NOT NULL, intent_key TEXT NOT NULL,
                 intent TEXT NOT NULL, state TEXT NOT NULL, reason TEXT, session TEXT NOT NULL,
                 written_at_ms INTEGER NOT NULL, updated_at_ms INTEGER NOT NULL);
                 INSERT INTO saves VALUES ('save-0', 'approval_decision', '/w', 't', 't', '{}',
                 'sending', NULL, 's-old', 1, 1);",
            )
            .unwrap();
        }
        let outbox = Outbox::open_path(&path).unwrap();
        let old = outbox.save_row("save-0").unwrap().unwrap();
        assert_eq!((old.epoch, old.generation), (0, 0));
        assert_eq!(
            old.orphan_class(outbox.session()),
            Some(SaveClass::OutcomeUnknown)
        );
        outbox.save_written(&save("save-1", "/w")).unwrap();
        let new = outbox.save_row("save-1").unwrap().unwrap();
        assert_eq!((new.epoch, new.generation), (3, 7));
    }

    #[test]
    fn request_ids_are_uuid_v7_with_the_tui_prefix() {
        let a = crate::outbox::new_request_id();
        let b = crate::outbox::new_request_id();
        assert_ne!(a, b);
        let uuid = uuid::Uuid::parse_str(a.strip_prefix("tui-").unwrap()).unwrap();
        assert_eq!(uuid.get_version_num(), 7);
    }
}
