//! Keeper sources and the Keepers surface's own types. The roster
//! (`GET /api/v1/gate/keepers?detailed=true`) is the first; the per-Keeper detail reads join
//! it here. Ownership contract and tested faults: docs/audits/keepers-roster.md.

pub mod roster;

use crate::actors::contract::{Payload, ReadResult, SlotKey, SourceKey, read_outcome};
use crate::protocol::keepers::KeeperRoster;

pub use roster::{KeepersRosterSpawner, ROSTER_PATH};

/// The roster source (supervision key).
pub const ROSTER: SourceKey = SourceKey("keepers_roster");

/// The slots of the Keepers surface.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum KeepersSlot {
    /// `GET /api/v1/gate/keepers?detailed=true`.
    Roster,
}

impl SlotKey for KeepersSlot {
    fn trace_name(&self) -> String {
        match self {
            Self::Roster => "keepers_roster".to_string(),
        }
    }

    fn source(&self) -> SourceKey {
        match self {
            Self::Roster => ROSTER,
        }
    }
}

/// What the Keepers sources observe.
#[derive(Debug, Clone)]
pub enum KeepersObservation {
    Roster(ReadResult<KeeperRoster>),
}

impl Payload for KeepersObservation {
    fn outcome(&self) -> String {
        match self {
            Self::Roster(r) => read_outcome(r),
        }
    }
}
