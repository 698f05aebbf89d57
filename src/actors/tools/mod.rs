//! The Tools surface's sources and types (protocol.md §6.1–§6.4; sources.md T-1…T-15):
//!
//! - [`reads`]: the Tools source's reads — inventory, Skills catalogue and async-request
//!   observation as three standing slots. Each starts from the same dispatch with its own
//!   worker and ticket; none waits for or starts from another (T-1), a delay or failure of one
//!   never blocks or overwrites its siblings (T-2). Beside them, two reads the view opens: one
//!   async request's single GET (§6.4, [`async_detail`]) and the selected Keeper's effective
//!   surface (§6.1 `?keeper=`).
//! - [`source`]: the actor owning them; while a request detail is open its cadence reads only
//!   that request (T-15). Cadence shares a read in flight; `r` supersedes the reads (G-3).
//!
//! The Runtime and Connectors surfaces shown beside Tools on the System screen are their own
//! (`crate::actors::runtime`, `crate::actors::connectors`).

pub mod async_detail;
pub mod reads;
pub mod source;

use crate::actors::contract::{Payload, ReadResult, SlotKey, SourceKey, read_outcome};
use crate::protocol::async_requests::AsyncRequestList;
use crate::protocol::skills::SkillsSnapshotRead;
use crate::protocol::tools::ToolsInventoryRead;

pub use async_detail::{AsyncDetailRead, HeldRequest};
pub use reads::{ASYNC_REQUESTS_PATH, KeeperSurfaceRead, SKILLS_PATH, TOOLS_PATH};
pub use source::ToolsSpawner;

/// The Tools source (supervision key): three independent slots (T-1).
pub const TOOLS: SourceKey = SourceKey("tools");

/// The slots of the Tools surface.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ToolsSlot {
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
}

impl SlotKey for ToolsSlot {
    fn trace_name(&self) -> String {
        match self {
            Self::ToolsInventory => "tools_inventory".to_string(),
            Self::SkillsCatalog => "skills_catalog".to_string(),
            Self::AsyncRequests => "async_requests".to_string(),
            // Request ids and Keeper names stay out of trace names (G-10): the ticket
            // identifies the object.
            Self::AsyncRequest(_) => "async_request".to_string(),
            Self::KeeperSurface(_) => "keeper_surface".to_string(),
        }
    }

    fn source(&self) -> SourceKey {
        match self {
            Self::ToolsInventory
            | Self::SkillsCatalog
            | Self::AsyncRequests
            | Self::AsyncRequest(_)
            | Self::KeeperSurface(_) => TOOLS,
        }
    }
}

/// What the Tools source observes, one variant per slot kind.
#[derive(Debug, Clone)]
pub enum ToolsObservation {
    ToolsInventory(ReadResult<ToolsInventoryRead>),
    SkillsCatalog(ReadResult<SkillsSnapshotRead>),
    AsyncRequests(ReadResult<AsyncRequestList>),
    /// One request's single GET with the context fixed at dispatch (T-9, T-11).
    AsyncRequest(Box<AsyncDetailRead>),
    /// The selected Keeper's surface read, with the Keeper it was asked for.
    KeeperSurface(Box<KeeperSurfaceRead>),
}

impl Payload for ToolsObservation {
    fn outcome(&self) -> String {
        match self {
            Self::ToolsInventory(r) => read_outcome(r),
            Self::SkillsCatalog(r) => read_outcome(r),
            Self::AsyncRequests(r) => read_outcome(r),
            Self::AsyncRequest(d) => read_outcome(&d.result),
            Self::KeeperSurface(k) => read_outcome(&k.result),
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
