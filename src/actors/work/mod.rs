//! Work sources (protocol.md §5; sources.md A-1…A-17, B-1, B-2): the Planning rollup
//! and the Task list (polled sources), and the Work detail source that owns, per open object,
//! the Task body, the Task history chain and the Goal timeline as independent reads.
//!
//! One file per read: [`planning`], [`task_list`], [`task_body`], [`task_history`] (with the
//! immutable prefix in [`chain`]), [`goal_timeline`]; the detail actor is [`detail`]. Where this
//! MASC does not serve a masc-tui extension route, the fallbacks MASC has the data for are
//! their own reads and slots: [`goal_linked`] (the task list from the goals tree's
//! goal links) and [`legacy_history`] (the legacy recent-events array). [`goal_transition`] is
//! the Goal action save (§15.4), its receipt in its own Work slot.

pub mod chain;
pub mod detail;
pub mod goal_linked;
pub mod goal_timeline;
pub mod goal_transition;
pub mod legacy_history;
pub mod planning;
pub mod task_body;
pub mod task_history;
pub mod task_list;

pub use chain::{ChainNext, HistoryChain};
pub use detail::{WorkDetailSpawner, WorkDetailState};
pub use goal_linked::{GoalLinkedTask, GoalLinkedTasks};
pub use planning::PlanningSpawner;
pub use task_list::TaskListSpawner;

use crate::actors::contract::{Payload, ReadResult, SlotKey, SourceKey, read_outcome};
use crate::actors::saves::{SAVES, SaveEvent, SaveId, SaveKind};
use crate::protocol::goals::GoalDetailRead;
use crate::protocol::planning::PlanningRead;
use crate::protocol::tasks::{LegacyTaskEvents, PageRequest, TaskDetail, TaskList};
use goal_transition::GoalTransition;
use std::sync::Arc;

/// The Planning source (supervision key).
pub const PLANNING: SourceKey = SourceKey("planning");
/// The Task list source (supervision key).
pub const TASK_LIST: SourceKey = SourceKey("task_list");
/// The Work detail source (supervision key): the open task's and goal's reads.
pub const WORK_DETAIL: SourceKey = SourceKey("work_detail");

/// The slots of the Work surface.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum WorkSlot {
    /// `GET /api/v1/dashboard/planning` (Work → Goals rollup).
    Planning,
    /// `GET /api/v1/dashboard/tasks` (Work → Tasks list).
    TaskList,
    /// The goal-linked tasks from `GET /api/v1/dashboard/goals` (§5.5): read only while the
    /// task list route is known not served by this MASC.
    GoalLinkedTasks,
    /// `GET /api/v1/dashboard/tasks/detail?task_id=` of this task.
    TaskBody(String),
    /// `GET /api/v1/dashboard/tasks/history/page` chain of this task.
    TaskHistory(String),
    /// The legacy recent events of this task, `GET /api/v1/dashboard/tasks/history` (§5.4):
    /// read only when this MASC does not serve the page route.
    TaskHistoryLegacy(String),
    /// `GET /api/v1/dashboard/goals/detail?goal_id=` of this goal (B-1).
    GoalTimeline(String),
    /// One Goal action's save (§15.4): its own slot per save.
    GoalTransition(SaveId),
}

impl SlotKey for WorkSlot {
    fn trace_name(&self) -> String {
        // Object ids stay out of trace names (G-10): the ticket identifies the object.
        match self {
            Self::Planning => "planning",
            Self::TaskList => "task_list",
            Self::GoalLinkedTasks => "goal_linked_tasks",
            Self::TaskBody(_) => "task_body",
            Self::TaskHistory(_) => "task_history",
            Self::TaskHistoryLegacy(_) => "task_history_legacy",
            Self::GoalTimeline(_) => "goal_timeline",
            Self::GoalTransition(_) => return format!("save:{}", GoalTransition::KIND),
        }
        .to_string()
    }

    fn source(&self) -> SourceKey {
        match self {
            Self::Planning => PLANNING,
            Self::TaskList | Self::GoalLinkedTasks => TASK_LIST,
            Self::TaskBody(_)
            | Self::TaskHistory(_)
            | Self::TaskHistoryLegacy(_)
            | Self::GoalTimeline(_) => WORK_DETAIL,
            Self::GoalTransition(_) => SAVES,
        }
    }
}

/// What the Work sources observe.
#[derive(Debug, Clone)]
pub enum WorkObservation {
    Planning(ReadResult<PlanningRead>),
    TaskList(ReadResult<TaskList>),
    /// The fallback of a `not_served` task list: its own typed value.
    GoalLinkedTasks(ReadResult<GoalLinkedTasks>),
    TaskBody(ReadResult<TaskDetail>),
    TaskHistory(Box<HistoryPageRead>),
    /// The fallback of a `not_served` history page route: its own typed value.
    TaskHistoryLegacy(ReadResult<LegacyTaskEvents>),
    GoalTimeline(ReadResult<GoalDetailRead>),
    /// A step or the receipt of a Goal action's save.
    GoalTransition(Box<SaveEvent<GoalTransition>>),
}

impl Payload for WorkObservation {
    fn outcome(&self) -> String {
        match self {
            Self::Planning(r) => planning::outcome_class(r),
            Self::TaskList(r) => read_outcome(r),
            Self::GoalLinkedTasks(r) => read_outcome(r),
            Self::TaskBody(r) => read_outcome(r),
            Self::TaskHistory(h) => read_outcome(&h.result),
            Self::TaskHistoryLegacy(r) => read_outcome(r),
            Self::GoalTimeline(r) => goal_timeline::outcome_class(r),
            Self::GoalTransition(e) => e.step.trace_outcome(),
        }
    }
}

/// How many older history pages one request reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OlderPages {
    /// This many (at least one), fewer at the end of stored history.
    Count(u32),
    /// Every page to the end of stored history (A-4: the oldest the server stores).
    ToOldest,
}

impl OlderPages {
    /// What is left to read after one more page; `None`: nothing.
    pub fn after_one(self) -> Option<Self> {
        match self {
            Self::Count(n) if n > 1 => Some(Self::Count(n - 1)),
            Self::Count(_) => None,
            Self::ToOldest => Some(Self::ToOldest),
        }
    }
}

/// What the view asks of the Work detail source (through its typed handle).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WorkCommand {
    /// Open (or re-open) a task: its body and its history start as two new owned reads with
    /// new tickets. `page_rows` is the history page demand.
    OpenTask {
        task_id: String,
        page_rows: u32,
    },
    /// `H`: the next older page with the known cursor; after a failed page, the same cursor
    /// again. Nothing at the end of stored history or while a page is in flight.
    OlderHistory {
        page_rows: u32,
    },
    /// `H` with a count, or `End` to the oldest: older pages one after another, each with the
    /// cursor the previous one returned. A failed page stops the run and keeps its
    /// retry cursor; `r`, closing or another open ends it.
    ReadOlder {
        page_rows: u32,
        pages: OlderPages,
    },
    /// `r` in the task detail: both reads are replaced; the history restarts as a fresh
    /// prefix, superseding any page in flight.
    RefreshTask {
        page_rows: u32,
    },
    /// Leave the task detail: both reads are retired.
    CloseTask,
    /// Open a goal's detail with its timeline (B-1).
    OpenGoal {
        goal_id: String,
    },
    /// `r` in the goal detail.
    RefreshGoal,
    CloseGoal,
}

/// One history page read as the worker produced it: the prefix it extends (captured at
/// dispatch), the request, and the new chain (prefix + page) or why the page failed. A failure
/// leaves `base` as the chain to show and `request.cursor` as the retry cursor.
#[derive(Debug, Clone)]
pub struct HistoryPageRead {
    pub base: Arc<HistoryChain>,
    pub request: PageRequest,
    pub result: ReadResult<HistoryChain>,
}

/// History page demand from the rows the history pane shows, within §5.3's 1–200.
pub fn page_demand(visible_rows: usize) -> u32 {
    u32::try_from(visible_rows).unwrap_or(200).clamp(1, 200)
}
