//! Keeper sources and the Keepers surface's own types. The roster
//! (`GET /api/v1/gate/keepers?detailed=true`) is the first; the per-Keeper detail reads join
//! it here. Ownership contract and tested faults: docs/audits/keepers-roster.md.

pub mod ops;
pub mod roster;
pub mod settings;
pub mod waiting;

use crate::actors::contract::{Payload, ReadResult, SlotKey, SourceKey, read_outcome};
use crate::actors::saves::SAVES;
use crate::protocol::keepers::KeeperRoster;
use ops::{KeeperOpEvent, KeeperOpSlot};

pub use roster::{KeepersRosterSpawner, ROSTER_PATH};
pub use waiting::{WAITING_INVENTORY, WaitingInventorySpawner, WaitingObservation, WaitingSlot};

/// The roster source (supervision key).
pub const ROSTER: SourceKey = SourceKey("keepers_roster");

/// The slots of the Keepers surface.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum KeepersSlot {
    /// `GET /api/v1/gate/keepers?detailed=true`.
    Roster,
    /// One Keeper operation save (sandbox, runtime assignment): its own slot per save.
    Op(KeeperOpSlot),
    /// The settings preparation of `e` (§9.5, H-1): one slot, re-aimed per preparation.
    Settings,
}

impl SlotKey for KeepersSlot {
    fn trace_name(&self) -> String {
        match self {
            Self::Roster => "keepers_roster".to_string(),
            Self::Op(op) => op.trace_name(),
            Self::Settings => "keeper_settings".to_string(),
        }
    }

    fn source(&self) -> SourceKey {
        match self {
            Self::Roster => ROSTER,
            Self::Op(_) => SAVES,
            Self::Settings => settings::KEEPER_SETTINGS,
        }
    }
}

/// What the Keepers sources observe.
#[derive(Debug, Clone)]
pub enum KeepersObservation {
    Roster(ReadResult<KeeperRoster>),
    /// A step or the receipt of a Keeper operation save.
    Op(Box<KeeperOpEvent>),
    /// The settings snapshot a preparation read (or why it has none).
    Settings(Box<settings::SettingsPrepared>),
}

impl Payload for KeepersObservation {
    fn outcome(&self) -> String {
        match self {
            Self::Roster(r) => read_outcome(r),
            Self::Op(e) => e.trace_outcome(),
            Self::Settings(p) => p.trace_outcome(),
        }
    }
}
