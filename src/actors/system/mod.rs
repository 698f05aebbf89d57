//! System sources and the System surface's own types (protocol.md §6.1–§6.3, §7, §9.1;
//! sources.md T-1…T-4, T-14, F-1…F-5, D-1…D-7):
//!
//! - [`tools`]: the Tools source — inventory, Skills catalogue and async-request observation
//!   as three standing slots. Each starts from the same dispatch with its own worker and
//!   ticket; none waits for or starts from another (T-1), a delay or failure of one never
//!   blocks or overwrites its siblings (T-2).
//! - [`runtime`]: the Runtime catalogue source — one shared slot filled by a joined load (the
//!   catalogue, whose catalogue and usage sections decode independently, F-3, F-4, and the
//!   provider reachability probe, F-7); an explicit demand coalesces into one follow-up (F-2).
//! - The Connectors source (`crate::actors::connectors`) fills this surface's connector slots.
//!
//! Cadence shares a read in flight; `r` supersedes the Tools reads (G-3) and coalesces the
//! Runtime load (F-2).

pub mod runtime;
pub mod runtime_config;
pub mod runtime_form;
pub mod tools;

use crate::actors::connectors::NamesPageRead;
use crate::actors::contract::{Payload, ReadResult, SlotKey, SourceKey, read_outcome};
use crate::actors::saves::{SAVES, SaveEvent, SaveId, SaveKind};
use crate::protocol::async_requests::AsyncRequestList;
use crate::protocol::connectors::ConnectorStatusList;
use crate::protocol::runtime::RuntimeConfigRaw;
use crate::protocol::skills::SkillsSnapshotRead;
use crate::protocol::tools::ToolsInventoryRead;
use runtime_form::RuntimeForm;

pub use runtime::{
    LoadOutcome, LoadPart, PartOutcome, RUNTIME_PROBE_PATH, RUNTIME_RESOLVED_PATH,
    RuntimeCatalogueSpawner, RuntimeLoad,
};
pub use runtime_config::{RUNTIME_CONFIG_RAW_PATH, RuntimeConfigSpawner};
pub use tools::{ASYNC_REQUESTS_PATH, SKILLS_PATH, TOOLS_PATH, ToolsSpawner};

/// The Tools source (supervision key): three independent slots (T-1).
pub const TOOLS: SourceKey = SourceKey("tools");
/// The Runtime catalogue source (supervision key).
pub const RUNTIME: SourceKey = SourceKey("runtime_catalogue");
/// The raw runtime config source (supervision key): read on demand only.
pub const RUNTIME_CONFIG: SourceKey = SourceKey("runtime_config");
/// The Connectors source (supervision key).
pub const CONNECTORS: SourceKey = SourceKey("connectors");

/// The slots of the System surface.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SystemSlot {
    /// `GET /api/v1/dashboard/tools` (§6.1).
    ToolsInventory,
    /// `GET /api/v1/skills` (§6.2).
    SkillsCatalog,
    /// `GET /api/v1/async-requests` (§6.3).
    AsyncRequests,
    /// `GET /api/v1/runtime/resolved` (§9.1) joined with `GET /api/v1/dashboard/runtime-probe`:
    /// the shared Runtime catalogue, usage and reachability (F).
    RuntimeCatalogue,
    /// `GET /api/v1/runtime/config/raw` (§9.2): the source the forms open on.
    RuntimeConfig,
    /// One model/account form save (§9.3, §9.4): its own slot per save.
    RuntimeForm(SaveId),
    /// `GET /api/v1/gate/connectors` (§7.1): status with bindings, delivered first (D-5).
    ConnectorsStatus,
    /// One name cursor chain (§7.2, D-1): `scope` is `server`, `channel` or `person`.
    ConnectorNames { connector: String, scope: String },
}

impl SlotKey for SystemSlot {
    fn trace_name(&self) -> String {
        match self {
            Self::ToolsInventory => "tools_inventory".to_string(),
            Self::SkillsCatalog => "skills_catalog".to_string(),
            Self::AsyncRequests => "async_requests".to_string(),
            Self::RuntimeCatalogue => "runtime_catalogue".to_string(),
            Self::RuntimeConfig => "runtime_config".to_string(),
            Self::RuntimeForm(_) => format!("save:{}", RuntimeForm::KIND),
            Self::ConnectorsStatus => "connectors_status".to_string(),
            // Connector ids are identifiers (lower-case transport names), not body text.
            Self::ConnectorNames { connector, scope } => {
                format!("connector_names:{connector}:{scope}")
            }
        }
    }

    fn source(&self) -> SourceKey {
        match self {
            Self::ToolsInventory | Self::SkillsCatalog | Self::AsyncRequests => TOOLS,
            Self::RuntimeCatalogue => RUNTIME,
            Self::RuntimeConfig => RUNTIME_CONFIG,
            Self::RuntimeForm(_) => SAVES,
            Self::ConnectorsStatus | Self::ConnectorNames { .. } => CONNECTORS,
        }
    }
}

/// What the System sources observe, one variant per slot kind.
#[derive(Debug, Clone)]
pub enum SystemObservation {
    ToolsInventory(ReadResult<ToolsInventoryRead>),
    SkillsCatalog(ReadResult<SkillsSnapshotRead>),
    AsyncRequests(ReadResult<AsyncRequestList>),
    /// One joined load: catalogue + usage + probe (F-7, P-1).
    RuntimeCatalogue(Box<RuntimeLoad>),
    RuntimeConfig(ReadResult<RuntimeConfigRaw>),
    /// A step or the receipt of a model/account form save.
    RuntimeForm(Box<SaveEvent<RuntimeForm>>),
    ConnectorsStatus(ReadResult<ConnectorStatusList>),
    /// One page of a name cursor chain, with the prefix it extends (D-1, D-6).
    ConnectorNames(Box<NamesPageRead>),
}

impl Payload for SystemObservation {
    fn outcome(&self) -> String {
        match self {
            Self::ToolsInventory(r) => read_outcome(r),
            Self::SkillsCatalog(r) => read_outcome(r),
            Self::AsyncRequests(r) => read_outcome(r),
            Self::RuntimeCatalogue(load) => load.trace_outcome(),
            Self::RuntimeConfig(r) => read_outcome(r),
            Self::RuntimeForm(e) => e.step.trace_outcome(),
            Self::ConnectorsStatus(r) => read_outcome(r),
            Self::ConnectorNames(n) => read_outcome(&n.result),
        }
    }
}
