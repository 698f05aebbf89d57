//! The saves journal: every save of this session (each kind's book, with its phase and settle
//! state) and every outbox row an earlier session left (read back by the save hub), as rows —
//! kind, target, inputs, stage, receipt, time — unsettled first, then newest first. Built once
//! for every kind from [`super::kinds::ALL`]; the journal layer (`screens::journal`) draws it.

use super::settle;
use super::undo::Undo;
use crate::actors::saves::Receipt;
use crate::outbox::{SaveRow, SaveRowState};
use crate::protocol::outcome::SaveClass;
use crate::view::model::Model;
use crate::view::saves::{SavePhase, Settle};
use std::collections::BTreeSet;
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

fn class_words(class: SaveClass) -> &'static str {
    match class {
        SaveClass::Applied => "applied",
        SaveClass::Unchanged => "unchanged",
        SaveClass::NotSent => "not sent",
        SaveClass::NotApplied => "not applied",
        SaveClass::Conflict => "conflict",
        SaveClass::OutcomeUnknown => "outcome unknown",
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

fn cut(text: String) -> String {
    match text.char_indices().nth(INPUTS_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    }
}

/// The wall time of `at`, a moment this process recorded.
fn wall(at: Instant) -> SystemTime {
    SystemTime::now()
        .checked_sub(Instant::now().saturating_duration_since(at))
        .unwrap_or(UNIX_EPOCH)
}

/// The rows of kind `K`'s saves this session (none for a kind whose book comes and goes).
pub(super) fn rows_of<K: super::SaveCompanion>(model: &Model, rows: &mut Vec<JournalRow>) {
    let Some(book) = K::kept(model) else {
        return;
    };
    for entry in book.entries() {
        let (stage, reason) = match &entry.phase {
            SavePhase::Submitted | SavePhase::Written => (Stage::Queued, None),
            SavePhase::Sending => (Stage::Sending, None),
            SavePhase::Ended(r) => (Stage::Receipt(r.class()), r.reason()),
            SavePhase::Restored(r) => (Stage::Earlier(r.class()), r.reason()),
        };
        let unsettled = entry.phase.in_flight()
            || entry.phase.class() == Some(SaveClass::OutcomeUnknown)
            || matches!(
                entry.settle,
                Settle::Awaiting { .. } | Settle::NotConfirmed { .. }
            );
        rows.push(JournalRow {
            save_id: entry.save_id.0.clone(),
            kind: K::KIND.to_string(),
            target: K::target(&entry.intent),
            inputs: cut(serde_json::to_string(&entry.intent).unwrap_or_default()),
            stage,
            reason,
            settle: settle::entry_words(entry),
            at: wall(entry.submitted_at),
            unsettled,
            undo: Some(super::undo::of::<K>(model, entry)),
        });
    }
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

/// Every save of this session from the books, then every outbox row the journal's read
/// brought back that no book holds (an earlier session's, a chat send), unsettled first, then
/// newest first.
pub fn rows(model: &Model) -> Vec<JournalRow> {
    let mut rows = Vec::new();
    for kind in super::kinds::ALL {
        kind.journal(model, &mut rows);
    }
    let known: BTreeSet<String> = rows.iter().map(|r| r.save_id.clone()).collect();
    let session = model.journal.session();
    rows.extend(
        model
            .journal
            .outbox_rows()
            .iter()
            .filter(|r| !known.contains(&r.save_id))
            .map(|r| outbox_row(r, session)),
    );
    rows.sort_by(|a, b| {
        b.unsettled
            .cmp(&a.unsettled)
            .then(b.at.cmp(&a.at))
            .then(b.save_id.cmp(&a.save_id))
    });
    rows
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

/// The kinds present in `rows`, in the order of [`super::kinds::ALL`] then any other (an
/// earlier version's kind read back from the outbox).
pub fn kinds_in(rows: &[JournalRow]) -> Vec<String> {
    let present: BTreeSet<&str> = rows.iter().map(|r| r.kind.as_str()).collect();
    let mut kinds: Vec<String> = super::kinds::ALL
        .iter()
        .map(|k| k.kind())
        .filter(|k| present.contains(k))
        .map(str::to_string)
        .collect();
    for k in present {
        if !kinds.iter().any(|x| x == k) {
            kinds.push(k.to_string());
        }
    }
    kinds
}
