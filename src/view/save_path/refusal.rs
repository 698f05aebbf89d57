//! Why a save was not handed to the save hub ([`Refused`], [`SaveRefusal`]).

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
