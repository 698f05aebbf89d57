//! Undo where the server makes it exact: an undo is a new request, made by the kind's companion
//! from a settled save ([`super::SaveCompanion::undo`]), and submitted through the one
//! [`super::submit`] like any other save — with the same pre-checks, outbox row and receipt.
//!
//! Exact means: the save's receipt (or its inputs) says what was there before, and the undo is
//! sent against the revision the save produced, so the server refuses it when anything moved
//! since (CAS-revisioned saves: runtime form and raw config, Keeper settings, sandbox, runtime
//! assignment). Pause and resume undo each other, as do bind and unbind. Every other kind
//! says plainly why it has none (`Undo::Never`).

use super::request::SaveRequest;
use crate::actors::saves::Receipt;
use crate::protocol::outcome::SaveClass;
use crate::view::model::Model;
use crate::view::saves::{SaveEntry, SavePhase};

/// The undo of one save.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Undo {
    /// `request` puts the previous value back; `writes` says what it writes (shown before it
    /// is committed).
    Exact {
        request: SaveRequest,
        writes: String,
    },
    /// This save has an undo, but not now: why.
    NotNow(String),
    /// This kind of save has none: why, in plain words.
    Never(&'static str),
}

impl Undo {
    /// The journal's words for it.
    pub fn words(&self) -> String {
        match self {
            Self::Exact { writes, .. } => format!("u undoes: {writes}"),
            Self::NotNow(why) => format!("no undo now: {why}"),
            Self::Never(why) => format!("no undo: {why}"),
        }
    }
}

/// The undo of `entry` (kind `K`): only of a save this session applied; what puts it back is
/// the companion's.
pub fn of<K: super::SaveCompanion>(model: &Model, entry: &SaveEntry<K>) -> Undo {
    match K::undo(model, entry) {
        never @ Undo::Never(_) => never,
        undo => match &entry.phase {
            SavePhase::Submitted | SavePhase::Written | SavePhase::Sending => {
                Undo::NotNow("still in flight".into())
            }
            SavePhase::Restored(_) => {
                Undo::NotNow("an earlier session's save: its receipt is not known".into())
            }
            SavePhase::Ended(r) if r.class() == SaveClass::Applied => undo,
            SavePhase::Ended(r) => Undo::NotNow(match r.class() {
                SaveClass::OutcomeUnknown => {
                    "its outcome is unknown: re-read, then decide in its own screen".into()
                }
                SaveClass::Unchanged => "it changed nothing".into(),
                _ => "it was not applied".into(),
            }),
        },
    }
}

/// The undo of save `save_id` of kind `kind`, if this session's books hold it.
pub fn find(model: &Model, kind: &str, save_id: &crate::actors::saves::SaveId) -> Option<Undo> {
    super::kinds::of(kind)?.undo(model, save_id)
}
