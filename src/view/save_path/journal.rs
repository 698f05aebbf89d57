//! The saves journal: every save of this session (each kind's book, with its phase and settle
//! state) and every outbox row an earlier session left (read back by the save hub), as rows —
//! kind, target, inputs, stage, receipt, time — unsettled first, then newest first. Built once
//! for every kind (`kinds::journal_rows`); the journal layer (`screens::journal`) draws it.

use super::undo::Undo;
use crate::outbox::{SaveRow, SaveRowState};
use crate::protocol::outcome::SaveClass;
use crate::view::saves::class_words;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Longest inputs text a row keeps (the detail shows this much; the outbox keeps all of it).
const INPUTS_CHARS: usize = 400;

/// Where a journal row's save stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Submitted; nothing has left the machine.
    Queued,
    /// The request may be on the wire.
    Sending,
    /// Its receipt (this session).
    Receipt(SaveClass),
    /// Read back from an earlier session's outbox: what that session left.
    Earlier(SaveClass),
    /// An earlier session's row still `written`, `sending` or `accepted` (not yet read back
    /// by the hub: it shows "not sent" or "outcome unknown" once it is).
    EarlierOpen,
}

impl Stage {
    pub fn words(self) -> String {
        match self {
            Self::Queued => "queued".into(),
            Self::Sending => "sending".into(),
            Self::Receipt(class) => class_words(class).into(),
            Self::Earlier(class) => format!("earlier session: {}", class_words(class)),
            Self::EarlierOpen => "earlier session: left unsettled".into(),
        }
    }
}

/// One save in the journal.
#[derive(Debug, Clone, PartialEq)]
pub struct JournalRow {
    pub save_id: String,
    pub kind: String,
    pub target: String,
    /// The operator's inputs as stored (JSON), cut at [`INPUTS_CHARS`].
    pub inputs: String,
    pub stage: Stage,
    /// The receipt's reason (server error token or the machinery's), if any.
    pub reason: Option<String>,
    /// Where the receipt stands against its re-read (`confirmed …`, `not confirmed …`).
    pub settle: Option<String>,
    /// When it was submitted (or written, for an earlier session's row).
    pub at: SystemTime,
    /// Not yet settled: in flight, outcome unknown, awaiting or lacking its confirmation.
    pub unsettled: bool,
    /// Its undo (this session's saves; an earlier session's have none here).
    pub undo: Option<Undo>,
}

pub(super) fn cut(text: String) -> String {
    match text.char_indices().nth(INPUTS_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    }
}

/// The wall time of `at`, a moment this process recorded.
pub(super) fn wall(at: Instant) -> SystemTime {
    SystemTime::now()
        .checked_sub(Instant::now().saturating_duration_since(at))
        .unwrap_or(UNIX_EPOCH)
}

/// The row of an outbox row (an earlier session's, or a kind no book keeps: a chat send);
/// `this_session`: the outbox session of this process, when known.
pub fn outbox_row(row: &SaveRow, this_session: Option<&str>) -> JournalRow {
    let ours = this_session == Some(row.session.as_str());
    let stage = match (row.state, ours) {
        (SaveRowState::Settled(class), true) => Stage::Receipt(class),
        (SaveRowState::Settled(class), false) => Stage::Earlier(class),
        (SaveRowState::Written, true) => Stage::Queued,
        (SaveRowState::Sending | SaveRowState::Accepted, true) => Stage::Sending,
        (_, false) => Stage::EarlierOpen,
    };
    let unsettled = matches!(
        row.state,
        SaveRowState::Written
            | SaveRowState::Sending
            | SaveRowState::Accepted
            | SaveRowState::Settled(SaveClass::OutcomeUnknown)
    );
    JournalRow {
        save_id: row.save_id.clone(),
        kind: row.kind.clone(),
        target: row.target.clone(),
        inputs: cut(row.intent.clone()),
        stage,
        reason: row.reason.clone(),
        settle: None,
        at: UNIX_EPOCH + Duration::from_millis(u64::try_from(row.written_at_ms).unwrap_or(0)),
        unsettled,
        undo: None,
    }
}

/// Which rows the journal shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    /// Only this kind (`None`: every kind).
    pub kind: Option<String>,
    /// Only unsettled saves.
    pub unsettled: bool,
}

impl Filter {
    pub fn keeps(&self, row: &JournalRow) -> bool {
        (!self.unsettled || row.unsettled) && self.kind.as_ref().is_none_or(|k| *k == row.kind)
    }
}
