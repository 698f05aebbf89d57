//! Save rows (`saves`): one row per save of any kind but the chat send, written before the
//! request leaves (issue 9, sources.md H-5, H-15, H-16, K-1, K-5).
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
    /// The outcome is known (or, for `OutcomeUnknown`, known to be unknown).
    Settled(SaveClass),
}

impl SaveRowState {
    pub fn as_str(self) -> String {
        match self {
            Self::Written => "written".into(),
            Self::Sending => "sending".into(),
            Self::Settled(class) => format!("settled:{}", class.as_str()),
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "written" => Some(Self::Written),
            "sending" => Some(Self::Sending),
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
            Self::Settled(SaveClass::OutcomeUnknown) => 2,
            Self::Settled(_) => 3,
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
            SaveRowState::Sending | SaveRowState::Settled(SaveClass::OutcomeUnknown) => {
                Some(SaveClass::OutcomeUnknown)
            }
            SaveRowState::Settled(_) => None,
        }
    }
}

const COLUMNS: &str =
    "save_id, kind, workspace, target, intent_key, intent, state, reason, session, written_at_ms";

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
                 written_at_ms, updated_at_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'written', NULL, ?7, ?8, ?8)",
            params![
                save.save_id,
                save.kind,
                save.workspace,
                save.target,
                save.intent_key,
                save.intent,
                self.session(),
                now
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

    /// Every save of `workspace` not settled with a known outcome (written, sending, outcome
    /// unknown), oldest first.
    pub fn unsettled_saves(&self, workspace: &str) -> Result<Vec<SaveRow>, OutboxError> {
        let conn = self.lock();
        let mut stmt = conn.prepare(&format!(
            "SELECT {COLUMNS} FROM saves
             WHERE workspace = ?1
               AND state IN ('written', 'sending', 'settled:outcome_unknown')
             ORDER BY written_at_ms, rowid"
        ))?;
        let rows = stmt
            .query_map(params![workspace], row_of)?
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
        }
    }

    #[test]
    fn states_round_trip() {
        for s in [SaveRowState::Written, SaveRowState::Sending]
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
}
