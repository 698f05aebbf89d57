//! The turn-inspector source (protocol.md §14.11; sources.md K-14…K-17): a Keeper's turn
//! records and one turn's serialized provider input, read on demand when an inspector opens
//! (the `O` turn inspector, the `/context` inspector) or on its explicit re-read — never on a
//! cadence, never on tab entry or scrolling (K-17). Ownership contract and tested faults:
//! docs/audits/turn_inspector.md.
//!
//! The two reads (and the turn transcript the Asks source reads, §10.4) are independent: each
//! has its own slot, ticket and failure, and each is shown as it arrives (K-15).

pub mod source;

use crate::actors::asks::TurnTarget;
use crate::actors::contract::{Payload, ReadResult, SlotKey, SourceKey, read_outcome};
use crate::protocol::inspector::{ProviderInput, TurnRecordsPage};

pub use source::{InspectorSpawner, InspectorState};

/// The turn-inspector source (supervision key).
pub const TURN_INSPECTOR: SourceKey = SourceKey("turn_inspector");

/// The slots of the turn-inspector source.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum InspectorSlot {
    /// `GET /api/v1/keepers/{name}/turn-records?limit=` of one Keeper (one slot whatever the
    /// limit: a wider read supersedes a narrower one in flight, and its late result is
    /// rejected).
    Records(String),
    /// `GET /api/v1/keepers/{name}/provider-input?turn_ref=` of one turn.
    Input(TurnTarget),
}

impl SlotKey for InspectorSlot {
    fn trace_name(&self) -> String {
        // Names stay out of the trace name (G-10): the ticket identifies the object.
        match self {
            Self::Records(_) => "turn_records",
            Self::Input(_) => "provider_input",
        }
        .to_string()
    }

    fn source(&self) -> SourceKey {
        TURN_INSPECTOR
    }
}

/// What the turn-inspector source observes.
#[derive(Debug, Clone)]
pub enum InspectorObservation {
    Records(ReadResult<TurnRecordsPage>),
    Input(ReadResult<ProviderInput>),
}

impl Payload for InspectorObservation {
    fn outcome(&self) -> String {
        match self {
            Self::Records(r) => read_outcome(r),
            Self::Input(r) => read_outcome(r),
        }
    }
}

/// What the view asks of the turn-inspector source. A request for a slot whose read is in
/// flight shares that read (a records read in flight with a `limit` at least as wide);
/// otherwise it reads (again) — a wider records page supersedes a narrower one in flight.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InspectorCommand {
    /// Read a Keeper's newest `limit` turn records (the default page is 50, MASC's maximum
    /// 500; clamped 1–500 as MASC clamps it).
    Records { keeper: String, limit: u32 },
    /// Read one turn's serialized provider input.
    Input(TurnTarget),
}
