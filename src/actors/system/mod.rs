//! System sources and the System surface's own types (protocol.md §6.1–§6.3, §7, §9.1;
//! sources.md T-1…T-4, T-14, F-1…F-5, D-1…D-7):
//!
//! - [`tools`]: the Tools source's reads — inventory, Skills catalogue and async-request
//!   observation as three standing slots. Each starts from the same dispatch with its own
//!   worker and ticket; none waits for or starts from another (T-1), a delay or failure of one
//!   never blocks or overwrites its siblings (T-2). Beside them, two reads the view opens: one
//!   async request's single GET (§6.4, [`async_detail`]) and the selected Keeper's effective
//!   surface (§6.1 `?keeper=`).
//! - [`tools_source`]: the actor owning them; while a request detail is open its cadence reads
//!   only that request (T-15).
//! - [`runtime`]: the Runtime catalogue source — one shared slot filled by a joined load (the
//!   catalogue, whose catalogue and usage sections decode independently, F-3, F-4, and the
//!   provider reachability probe, F-7); an explicit demand coalesces into one follow-up (F-2).
//! - The Connectors source (`crate::actors::connectors`) fills this surface's connector slots.
//!
//! Cadence shares a read in flight; `r` supersedes the Tools reads (G-3) and coalesces the
//! Runtime load (F-2).

pub mod async_detail;
pub mod binding;
pub mod runtime;
pub mod runtime_config;
pub mod runtime_form;
pub mod runtime_raw;
pub mod runtime_save;
pub mod tools;
pub mod tools_source;

use crate::actors::connectors::NamesPageRead;
use crate::actors::contract::{Payload, ReadResult, SlotKey, SourceKey, read_outcome};
use crate::actors::saves::{SAVES, SaveEvent, SaveId, SaveKind};
use crate::protocol::async_requests::AsyncRequestList;
use crate::protocol::connectors::ConnectorStatusList;
use crate::protocol::runtime::RuntimeConfigRaw;
use crate::protocol::skills::SkillsSnapshotRead;
use crate::protocol::tools::ToolsInventoryRead;
use binding::{ConnectorBind, ConnectorUnbind};
use runtime_form::RuntimeForm;
use runtime_raw::RuntimeRaw;

pub use async_detail::{AsyncDetailRead, HeldRequest};
pub use runtime::{
    LoadOutcome, LoadPart, PartOutcome, RUNTIME_PROBE_PATH, RUNTIME_RESOLVED_PATH,
    RuntimeCatalogueSpawner, RuntimeLoad,
};
pub use runtime_config::{RUNTIME_CONFIG_RAW_PATH, RuntimeConfigSpawner};
pub use tools::{ASYNC_REQUESTS_PATH, KeeperSurfaceRead, SKILLS_PATH, TOOLS_PATH};
pub use tools_source::ToolsSpawner;

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
    /// `GET /api/v1/async-requests/{request_id}` (§6.4) of the open request (T-9, T-11).
    AsyncRequest(String),
    /// `GET /api/v1/dashboard/tools?keeper=` (§6.1): the selected Keeper's effective surface
    /// and Skill activation ledger (the `available` and `receipts` panes).
    KeeperSurface(String),
    /// `GET /api/v1/runtime/resolved` (§9.1) joined with `GET /api/v1/dashboard/runtime-probe`:
    /// the shared Runtime catalogue, usage and reachability (F).
    RuntimeCatalogue,
    /// `GET /api/v1/runtime/config/raw` (§9.2): the source the forms open on.
    RuntimeConfig,
    /// One model/account form save (§9.3, §9.4): its own slot per save.
    RuntimeForm(SaveId),
    /// One connector bind save (§7.3): its own slot per save.
    BindWrite(SaveId),
    /// One connector unbind save (§7.4): its own slot per save.
    UnbindWrite(SaveId),
    /// One raw config save (`runtime.toml` from `$EDITOR`, §9.3, §9.4): its own slot per save.
    RuntimeRaw(SaveId),
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
            // Request ids and Keeper names stay out of trace names (G-10): the ticket
            // identifies the object.
            Self::AsyncRequest(_) => "async_request".to_string(),
            Self::KeeperSurface(_) => "keeper_surface".to_string(),
            Self::RuntimeCatalogue => "runtime_catalogue".to_string(),
            Self::RuntimeConfig => "runtime_config".to_string(),
            Self::RuntimeForm(_) => format!("save:{}", RuntimeForm::KIND),
            Self::BindWrite(_) => format!("save:{}", ConnectorBind::KIND),
            Self::UnbindWrite(_) => format!("save:{}", ConnectorUnbind::KIND),
            Self::RuntimeRaw(_) => format!("save:{}", RuntimeRaw::KIND),
            Self::ConnectorsStatus => "connectors_status".to_string(),
            // Connector ids are identifiers (lower-case transport names), not body text.
            Self::ConnectorNames { connector, scope } => {
                format!("connector_names:{connector}:{scope}")
            }
        }
    }

    fn source(&self) -> SourceKey {
        match self {
            Self::ToolsInventory
            | Self::SkillsCatalog
            | Self::AsyncRequests
            | Self::AsyncRequest(_)
            | Self::KeeperSurface(_) => TOOLS,
            Self::RuntimeCatalogue => RUNTIME,
            Self::RuntimeConfig => RUNTIME_CONFIG,
            Self::RuntimeForm(_) | Self::RuntimeRaw(_) => SAVES,
            Self::BindWrite(_) | Self::UnbindWrite(_) => SAVES,
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
    /// One request's single GET with the context fixed at dispatch (T-9, T-11).
    AsyncRequest(Box<AsyncDetailRead>),
    /// The selected Keeper's surface read, with the Keeper it was asked for.
    KeeperSurface(Box<KeeperSurfaceRead>),
    /// One joined load: catalogue + usage + probe (F-7, P-1).
    RuntimeCatalogue(Box<RuntimeLoad>),
    RuntimeConfig(ReadResult<RuntimeConfigRaw>),
    /// A step or the receipt of a model/account form save.
    RuntimeForm(Box<SaveEvent<RuntimeForm>>),
    /// A step or the receipt of a raw config save.
    RuntimeRaw(Box<SaveEvent<RuntimeRaw>>),
    ConnectorsStatus(ReadResult<ConnectorStatusList>),
    /// A step or the receipt of a connector bind save.
    Bind(Box<SaveEvent<ConnectorBind>>),
    /// A step or the receipt of a connector unbind save.
    Unbind(Box<SaveEvent<ConnectorUnbind>>),
    /// One page of a name cursor chain, with the prefix it extends (D-1, D-6).
    ConnectorNames(Box<NamesPageRead>),
}

impl Payload for SystemObservation {
    fn outcome(&self) -> String {
        match self {
            Self::ToolsInventory(r) => read_outcome(r),
            Self::SkillsCatalog(r) => read_outcome(r),
            Self::AsyncRequests(r) => read_outcome(r),
            Self::AsyncRequest(d) => read_outcome(&d.result),
            Self::KeeperSurface(k) => read_outcome(&k.result),
            Self::RuntimeCatalogue(load) => load.trace_outcome(),
            Self::RuntimeConfig(r) => read_outcome(r),
            Self::RuntimeForm(e) => e.step.trace_outcome(),
            Self::RuntimeRaw(e) => e.step.trace_outcome(),
            Self::ConnectorsStatus(r) => read_outcome(r),
            Self::ConnectorNames(n) => read_outcome(&n.result),
            Self::Bind(e) => e.step.trace_outcome(),
            Self::Unbind(e) => e.step.trace_outcome(),
        }
    }
}

/// What the view asks of the Tools source (through its typed handle).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolsCommand {
    /// Open (or re-open) one async request: its single GET is a new owned read with a new
    /// ticket (T-11, A-17). `held` is the list row's requester and target when the request was
    /// opened from the list; `None` for an explicit id lookup (`o`), never filled from the
    /// current Keeper (T-8). While it is open the cadence reads only it (T-15).
    OpenRequest {
        request_id: String,
        held: Option<HeldRequest>,
    },
    /// `r` in the request detail: re-read it (supersedes the read in flight, T-11).
    RefreshRequest,
    /// Leave the request detail: only its read is retired (T-12).
    CloseRequest,
    /// The Keeper whose effective surface and activation ledger the `available` and
    /// `receipts` panes show; `None` stops reading it.
    SelectKeeper { keeper: Option<String> },
}
