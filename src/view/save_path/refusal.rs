//! What a submit answers: a save handed to the hub ([`Submitted`]) or why not ([`SaveRefusal`]).

use super::preview::Preview;
use super::request::SaveRequest;
use crate::actors::saves::SaveId;
use crossterm::event::KeyCode;
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

/// A save handed to the save hub, kept by its companion to be sent later, or staged for its
/// confirmation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Submitted {
    pub save_id: SaveId,
    /// Kept in the model, not sent yet ([`super::SaveCompanion::hold`]), or staged.
    pub held: bool,
    /// What to tell the operator (usually nothing: the receipt speaks).
    pub notice: Option<String>,
    /// Not registered, not sent: its preview waits for the confirming key.
    pub staged: Option<Box<Staged>>,
}

impl Submitted {
    /// Handed to the hub (or kept by its companion): no confirmation pending.
    pub fn is_committed(&self) -> bool {
        self.staged.is_none()
    }
}

/// A save whose preview is shown before it is committed: nothing registered, nothing sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Staged {
    pub preview: Preview,
    /// The same request, marked confirmed: what the confirming key submits.
    pub request: SaveRequest,
    /// The confirming key (the key that asked, pressed again).
    pub key: KeyCode,
}

/// What the operator is told after a submit: the refusal, or what the kind says about a save
/// it sent (usually nothing: its receipt speaks).
pub fn notice(submitted: Result<Submitted, SaveRefusal>) -> Option<String> {
    match submitted {
        Ok(s) => s.notice,
        Err(refusal) => Some(refusal.words),
    }
}
