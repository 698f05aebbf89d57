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
