//! Tickets: the proof of ownership a result carries back to the view (sources.md G-2, G-7).

use crate::protocol::admission::ReadScope;
use std::fmt;

/// Which slot of the model a read fills. One variant per owned read; parameterised reads
/// (per keeper, per task) carry their key so a result for another key never fits the slot.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SourceKey {
    /// `GET /health` cadence (owned by the workspace actor).
    Workspace,
    /// `GET /api/v1/gate/keepers?detailed=true`.
    KeepersRoster,
    /// The chat hub: spawns one chat source per open Keeper and one actor per send.
    ChatHub,
    /// One Keeper's chat: history pages, its sends' streams, reconciliations (§4.3–§4.5).
    Chat { keeper: String },
}

impl SourceKey {
    /// Stable name used in traces and the timeline report.
    pub fn name(&self) -> String {
        match self {
            Self::Workspace => "workspace".to_string(),
            Self::KeepersRoster => "keepers_roster".to_string(),
            Self::ChatHub => "chat_hub".to_string(),
            // The keeper name is an identifier, not body text (G-10).
            Self::Chat { keeper } => format!("chat:{keeper}"),
        }
    }
}

impl fmt::Display for SourceKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// Captured at dispatch; a result is applied only while this ticket still owns its slot and
/// its scope's epoch is current. Generations are per source and never reset (G-6).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Ticket {
    pub source: SourceKey,
    pub generation: u64,
    pub scope: ReadScope,
}
