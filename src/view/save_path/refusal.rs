//! What a submit answers: a save handed to the hub ([`Submitted`]) or why not ([`SaveRefusal`]).

use crate::actors::saves::SaveId;
use std::fmt;

/// Why a save was not handed to the save hub.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// No confirmed workspace (K-5).
    NoWorkspace,
    /// A save of the same intent is in flight: it is shared, not sent again.
    InFlight(SaveId),
    /// Another save that may not overlap it is in flight (H-11); the words say which.
    Exclusive(String),
    /// A pre-check against what the model shows (§11); the words say why.
    Precheck(String),
    /// The save hub is not running (`stopped`: its mailbox closed): registered and settled
    /// here as not sent.
    NoHub { save_id: SaveId, stopped: bool },
}

impl Refused {
    /// The plain words (`busy`: the kind's words for [`Refused::InFlight`]).
    pub fn words(&self, busy: &str) -> String {
        match self {
            Self::NoWorkspace => "not sent: workspace not confirmed".into(),
            Self::InFlight(_) => busy.into(),
            Self::Exclusive(words) | Self::Precheck(words) => words.clone(),
            Self::NoHub { .. } => "not sent: save hub not running".into(),
        }
    }
}

/// A refusal of a save of kind `kind`, with the notice its companion words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SaveRefusal {
    pub kind: &'static str,
    pub why: Refused,
    pub words: String,
}

impl fmt::Display for SaveRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.words)
    }
}

/// A save handed to the save hub, or kept by its companion to be sent later.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Submitted {
    pub save_id: SaveId,
    /// Kept in the model, not sent yet ([`super::SaveCompanion::hold`]).
    pub held: bool,
    /// What to tell the operator (usually nothing: the receipt speaks).
    pub notice: Option<String>,
}

/// What the operator is told after a submit: the refusal, or what the kind says about a save
/// it sent (usually nothing: its receipt speaks).
pub fn notice(submitted: Result<Submitted, SaveRefusal>) -> Option<String> {
    match submitted {
        Ok(s) => s.notice,
        Err(refusal) => Some(refusal.words),
    }
}
