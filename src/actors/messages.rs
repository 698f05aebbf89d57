//! Messages between actors and the view (casts only; architecture.md §4.4).
//!
//! Flow for one read: the source sends `ViewMsg::Dispatched(ticket)` (the view marks the slot
//! loading/refreshing and records the ticket as the slot's owner), then, FIFO after it,
//! `ViewMsg::Observed(Observation)` or `ViewMsg::Retired` carrying the same ticket. The view
//! applies an observation only if its ticket still owns the slot and its epoch is current.

use super::ticket::{SourceKey, Ticket};
use crate::protocol::admission::{AdmissionMode, ReadScope};
use crate::protocol::client::{Admitted, ClientError};
use crate::protocol::keepers::KeeperRoster;

/// A read result as the worker produced it.
pub type ReadResult<T> = Result<Admitted<T>, ClientError>;

/// The typed payload of one observation; one variant per source slot.
#[derive(Debug, Clone)]
pub enum ObservationPayload {
    KeepersRoster(ReadResult<KeeperRoster>),
    /// One Keeper's chat (`SourceKey::Chat`): pages, send steps, reconciliations.
    Chat(Box<crate::actors::chat::ChatObservation>),
    Planning(ReadResult<crate::protocol::planning::PlanningRead>),
    TaskList(ReadResult<crate::protocol::tasks::TaskList>),
    TaskBody(ReadResult<crate::protocol::tasks::TaskDetail>),
    TaskHistory(Box<crate::actors::work::HistoryPageRead>),
    GoalTimeline(ReadResult<crate::protocol::goals::GoalDetailRead>),
    /// A Board posts page with the query it was dispatched with (E-11).
    BoardPosts(Box<crate::actors::board::BoardPostsRead>),
    HearthCensus(ReadResult<crate::protocol::board::HearthCensus>),
    BoardPost(ReadResult<crate::protocol::board::BoardPostDetail>),
    ToolsInventory(ReadResult<crate::protocol::tools::ToolsInventoryRead>),
    SkillsCatalog(ReadResult<crate::protocol::skills::SkillsSnapshotRead>),
    AsyncRequests(ReadResult<crate::protocol::async_requests::AsyncRequestList>),
    RuntimeCatalogue(ReadResult<crate::protocol::runtime::RuntimeResolved>),
    ConnectorsStatus(ReadResult<crate::protocol::connectors::ConnectorStatusList>),
    /// One page of a name cursor chain, with the prefix it extends (D-1, D-6).
    ConnectorNames(Box<crate::actors::connectors::NamesPageRead>),
    OperatorApprovals(ReadResult<crate::protocol::operator::OperatorApprovals>),
    OpenAsks(ReadResult<crate::protocol::asks::AskList>),
}

impl ObservationPayload {
    /// `"ok"` or the `ClientError::class()` of the result: the `outcome` field of the
    /// `worker_return` / `observe` stage events (no body text, G-10).
    pub fn outcome_class(&self) -> String {
        fn class<T>(r: &ReadResult<T>) -> String {
            match r {
                Ok(_) => "ok".to_string(),
                Err(e) => e.class(),
            }
        }
        match self {
            Self::KeepersRoster(r) => class(r),
            Self::Chat(c) => c.outcome_class(),
            Self::Planning(r) => crate::actors::work::planning::outcome_class(r),
            Self::TaskList(r) => class(r),
            Self::TaskBody(r) => class(r),
            Self::TaskHistory(h) => class(&h.result),
            Self::GoalTimeline(r) => crate::actors::work::goal_timeline::outcome_class(r),
            Self::BoardPosts(p) => class(&p.result),
            Self::HearthCensus(r) => class(r),
            Self::BoardPost(r) => class(r),
            Self::ToolsInventory(r) => class(r),
            Self::SkillsCatalog(r) => class(r),
            Self::AsyncRequests(r) => class(r),
            Self::RuntimeCatalogue(r) => class(r),
            Self::ConnectorsStatus(r) => class(r),
            Self::ConnectorNames(n) => class(&n.result),
            Self::OperatorApprovals(r) => class(r),
            Self::OpenAsks(r) => class(r),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Observation {
    pub ticket: Ticket,
    pub payload: ObservationPayload,
}

/// Workspace identity as the workspace actor judges it (protocol.md §2.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdentityState {
    /// No `/health` answer yet, or it could not be read.
    Unconfirmed { reason: String },
    /// `startup.state_ready: false`: only `/health` is polled.
    Booting,
    /// Served base differs from the expected one.
    Mismatch { expected: String, served: String },
    /// A read epoch is open.
    Confirmed {
        scope: ReadScope,
        base_path: String,
        mode: AdmissionMode,
    },
}

/// Why a demand was made (G-3: cadence shares the in-flight read; explicit supersedes or
/// coalesces per source).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DemandKind {
    Cadence,
    Explicit,
}

/// What a source actor accepts from the view and the workspace actor.
#[derive(Debug, Clone)]
pub enum SourceCommand {
    /// Read (or re-read) this source's slot.
    Demand(DemandKind),
    /// The workspace identity changed: a new epoch opens (Confirmed) or authority is withdrawn
    /// (anything else); withdrawal retires owned reads (G-6).
    Identity(IdentityState),
    /// A worker of this source finished (sent by the worker task to its owning actor; see
    /// `crate::actors::read`). The owner checks the ticket itself before forwarding (G-7).
    WorkerReturned(crate::actors::read::WorkerReturn),
    /// A Work detail command (open/close a task or goal, `H`, `r`); only the Work detail
    /// source acts on it (`crate::actors::work`).
    Work(crate::actors::work::WorkCommand),
    /// Supervision drill (tests, `RuntimeConfig::fault_drills`): the source panics in its
    /// handler so the supervisor's restart path runs. Ignored unless drills are enabled.
    InjectPanic,
    /// A chat command for the chat hub (`SourceKey::ChatHub`); other sources ignore it.
    Chat(crate::actors::chat::ChatCommand),
    /// A Board command (query, open/close a post); only the Board source acts on it.
    Board(crate::actors::board::BoardCommand),
}

/// Everything the view actor receives.
#[derive(Debug)]
pub enum ViewMsg {
    /// A source actor (re)started; demands for `source` go to `handle` from now on.
    SourceUp {
        source: SourceKey,
        handle: ractor::ActorRef<SourceCommand>,
    },
    Dispatched(Ticket),
    Observed(Observation),
    /// The read of this ticket ended without a result (withdrawn, cancelled, superseded).
    Retired(Ticket),
    Identity(IdentityState),
    /// The supervisor restarted this source; its in-flight slots fail with "source restarted".
    SourceRestarted(SourceKey),
    /// The supervisor gave up restarting this source (restart intensity exceeded); its slots
    /// keep their last value and no further reads come from it.
    SourceStopped(SourceKey),
    Input(crossterm::event::Event),
    /// Display rows of the Work detail prepared off the view actor.
    WorkPrepared(Box<crate::view::work::Prepared>),
    /// The frame scheduler's deadline passed.
    FrameDue,
    /// A background re-read of this source was dispatched `SLOW_READ_BADGE_AFTER` ago: if it
    /// is still in flight its "reading" badge is now due (T.2).
    ReadAged(SourceKey),
    Shutdown,
}
