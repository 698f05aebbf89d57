//! The Keeper detail source (protocol.md §9.5, §14.7–§14.9; sources.md L-1…L-4, N-1…N-7): per
//! watched Keeper, its metadata, its Live Context, its metrics tail (logs and activity
//! summary) and, for the detail pane, its settings snapshot (instructions, sandbox, network and
//! runtime as the settings editor reads them: one record on every screen) — four slots with
//! their own tickets and failures. Ownership contract and tested
//! faults: docs/audits/keeper-detail.md.
//!
//! - [`reads`]: the readers and slots (the context reader carries the owner it was launched
//!   for, L-2).
//! - [`source`]: the actor owning them (who watches which Keeper, the metadata → context
//!   sequencing, the cadence).

pub mod gate;
pub mod reads;
pub mod source;

use crate::actors::contract::{Payload, ReadResult, SlotKey, SourceKey, read_outcome};
use crate::protocol::keeper_config::KeeperConfigSnapshot;
use crate::protocol::keeper_detail::{DashboardGate, KeeperLogs, KeeperStatus};
use crate::protocol::keeper_ops::ToolApprovalModes;

pub use gate::WorkspaceGateSpawner;
pub use reads::{ContextOwner, ContextRead};
pub use source::{KeeperDetailSpawner, KeeperDetailState};

/// The Keeper detail source (supervision key).
pub const KEEPER_DETAIL: SourceKey = SourceKey("keeper_detail");
/// The workspace Gate mode source (`GET /api/v1/dashboard/gate`, §14.4; supervision key); it
/// also reads the per-Keeper tool approval modes (`GET /api/v1/keepers/tool-approval-mode`).
pub const WORKSPACE_GATE: SourceKey = SourceKey("workspace_gate");

/// The slots of the Keeper detail reads, one set per watched Keeper.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum KeeperDetailSlot {
    /// `GET /api/v1/gate/keeper-status?name=` (§14.7, N-1).
    Meta(String),
    /// `GET /api/v1/keepers/{name}/context` (§14.8, L-1…L-4).
    Context(String),
    /// `GET /api/v1/keepers/{name}/metrics-tail?limit=200` (§14.9, N-5…N-7); where it is not
    /// served, `GET /api/v1/keepers/{name}/turn-records?limit=200` (§14.11).
    Metrics(String),
    /// `GET /api/v1/keepers/{name}/config` (§9.5; protocol-16 §16.1.2): the instructions,
    /// sandbox, network and runtime the detail shows, from the record the settings editor
    /// edits. Read for the detail viewer only.
    Settings(String),
    /// `GET /api/v1/dashboard/gate` (§14.4): the workspace Gate mode (a standing read of
    /// [`WORKSPACE_GATE`], not per Keeper).
    WorkspaceGate,
    /// `GET /api/v1/keepers/tool-approval-mode` (§14.4): every Keeper's tool approval mode
    /// (`auto` / `yolo`), the status line's `AUTO`/`YOLO` (C-57); a standing read of
    /// [`WORKSPACE_GATE`], not per Keeper.
    ToolModes,
}

impl KeeperDetailSlot {
    /// The Keeper of a per-Keeper slot (`None` for the workspace gate).
    pub fn keeper(&self) -> Option<&str> {
        match self {
            Self::Meta(k) | Self::Context(k) | Self::Metrics(k) | Self::Settings(k) => Some(k),
            Self::WorkspaceGate | Self::ToolModes => None,
        }
    }
}

impl SlotKey for KeeperDetailSlot {
    fn trace_name(&self) -> String {
        // The Keeper stays out of the trace name (G-10): the ticket identifies it.
        match self {
            Self::Meta(_) => "keeper_meta",
            Self::Context(_) => "keeper_context",
            Self::Metrics(_) => "keeper_metrics",
            Self::Settings(_) => "keeper_settings_snapshot",
            Self::WorkspaceGate => "workspace_gate",
            Self::ToolModes => "tool_approval_modes",
        }
        .to_string()
    }

    fn source(&self) -> SourceKey {
        match self {
            Self::WorkspaceGate | Self::ToolModes => WORKSPACE_GATE,
            _ => KEEPER_DETAIL,
        }
    }
}

/// What the Keeper detail source observes.
#[derive(Debug, Clone)]
pub enum KeeperDetailObservation {
    Meta(ReadResult<KeeperStatus>),
    Context(Box<ContextRead>),
    Metrics(ReadResult<KeeperLogs>),
    Settings(ReadResult<KeeperConfigSnapshot>),
    Gate(ReadResult<DashboardGate>),
    ToolModes(ReadResult<ToolApprovalModes>),
}

impl Payload for KeeperDetailObservation {
    fn outcome(&self) -> String {
        match self {
            Self::Meta(r) => read_outcome(r),
            Self::Context(read) if read.owner_changed() => "owner_changed".to_string(),
            Self::Context(read) => read_outcome(&read.result),
            Self::Metrics(r) => read_outcome(r),
            Self::Settings(r) => read_outcome(r),
            Self::Gate(r) => read_outcome(r),
            Self::ToolModes(r) => read_outcome(r),
        }
    }
}

/// Who watches a Keeper's detail. In chat the chat target owns Live Context, never the
/// roster cursor (L-2, C-57): the two are separate viewers, each of one Keeper at a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Viewer {
    /// The Keepers surface's detail pane and logs (metadata, context, metrics).
    Detail,
    /// The open chat's status line (metadata, context; no metrics, N-6).
    Chat,
}

impl Viewer {
    /// Whether this viewer shows the activity summary or logs (N-6).
    pub fn wants_metrics(self) -> bool {
        matches!(self, Self::Detail)
    }

    /// Whether this viewer shows the settings snapshot (instructions, sandbox, network).
    pub fn wants_settings(self) -> bool {
        matches!(self, Self::Detail)
    }
}

/// What the view asks of the Keeper detail source (through its typed handle).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeeperDetailCommand {
    /// `viewer` now shows `keeper`: its reads start (or are shared with the other viewer of
    /// the same Keeper); the viewer's previous Keeper is left (N-6, L-3).
    Watch { viewer: Viewer, keeper: String },
    /// `viewer` shows no Keeper any more: a Keeper nobody watches has its reads retired; the
    /// view keeps the last observations (N-6).
    Unwatch { viewer: Viewer },
    /// `r`: re-read `keeper`'s metadata (then its context) and metrics, superseding reads in
    /// flight (L-4: only the cadence and an explicit refresh re-read a key).
    Refresh { keeper: String },
    /// A save's settle stage: read `keeper`'s settings snapshot once, watched or not (a
    /// Keeper no viewer watches has its reads retired once the snapshot returns).
    Confirm { keeper: String },
}
