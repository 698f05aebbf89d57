//! The Connectors surface's sources and types (protocol.md §7.1–§7.4; sources.md D-1…D-7,
//! D-10…D-14): the status list first, then one name cursor chain per (connector, scope), each
//! independent; the bind and unbind saves.
//!
//! - [`chain`]: `NamesChain`, the captured immutable prefix of one chain, and its page reader.
//! - [`source`]: the actor owning the status read and the chains, and the write demand of a
//!   settled binding write (D-10…D-13).
//! - [`binding`]: the bind and unbind save kinds (§7.3, §7.4).

pub mod binding;
pub mod chain;
pub mod source;

pub use chain::{NamesChain, NamesPageRead, SCOPES};
pub use source::{ConnectorsCommand, ConnectorsSpawner, ConnectorsState};

use crate::actors::contract::{Payload, ReadResult, SlotKey, SourceKey, read_outcome};
use crate::actors::saves::{SAVES, SaveEvent, SaveId, SaveKind};
use crate::protocol::connectors::ConnectorStatusList;
use binding::{ConnectorBind, ConnectorUnbind};

/// The Connectors source (supervision key).
pub const CONNECTORS: SourceKey = SourceKey("connectors");

/// The slots of the Connectors surface.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ConnectorsSlot {
    /// `GET /api/v1/gate/connectors` (§7.1): status with bindings, delivered first (D-5).
    Status,
    /// One name cursor chain (§7.2, D-1): `scope` is `server`, `channel` or `person`.
    Names { connector: String, scope: String },
    /// One connector bind save (§7.3): its own slot per save.
    BindWrite(SaveId),
    /// One connector unbind save (§7.4): its own slot per save.
    UnbindWrite(SaveId),
}

impl SlotKey for ConnectorsSlot {
    fn trace_name(&self) -> String {
        match self {
            Self::Status => "connectors_status".to_string(),
            // Connector ids are identifiers (lower-case transport names), not body text.
            Self::Names { connector, scope } => format!("connector_names:{connector}:{scope}"),
            Self::BindWrite(_) => format!("save:{}", ConnectorBind::KIND),
            Self::UnbindWrite(_) => format!("save:{}", ConnectorUnbind::KIND),
        }
    }

    fn source(&self) -> SourceKey {
        match self {
            Self::Status | Self::Names { .. } => CONNECTORS,
            Self::BindWrite(_) | Self::UnbindWrite(_) => SAVES,
        }
    }
}

/// What the Connectors sources observe, one variant per slot kind.
#[derive(Debug, Clone)]
pub enum ConnectorsObservation {
    Status(ReadResult<ConnectorStatusList>),
    /// One page of a name cursor chain, with the prefix it extends (D-1, D-6).
    Names(Box<NamesPageRead>),
    /// A step or the receipt of a connector bind save.
    Bind(Box<SaveEvent<ConnectorBind>>),
    /// A step or the receipt of a connector unbind save.
    Unbind(Box<SaveEvent<ConnectorUnbind>>),
}

impl Payload for ConnectorsObservation {
    fn outcome(&self) -> String {
        match self {
            Self::Status(r) => read_outcome(r),
            Self::Names(n) => read_outcome(&n.result),
            Self::Bind(e) => e.step.trace_outcome(),
            Self::Unbind(e) => e.step.trace_outcome(),
        }
    }
}
