//! Work sources (issue 5; protocol.md §5; sources.md A-1…A-17, B-1, B-2): the Planning rollup
//! and the Task list (polled sources), and the Work detail source that owns, per open object,
//! the Task body, the Task history chain and the Goal timeline as independent reads.
//!
//! One file per read: [`planning`], [`task_list`], [`task_body`], [`task_history`] (with the
//! immutable prefix in [`chain`]), [`goal_timeline`]; the detail actor is [`detail`].

pub mod chain;
pub mod detail;
pub mod goal_timeline;
pub mod planning;
pub mod task_body;
pub mod task_history;
pub mod task_list;

pub use chain::{ChainNext, HistoryChain};
pub use detail::{WorkDetailSource, WorkDetailSpawner};
pub use planning::PlanningSpawner;
pub use task_list::TaskListSpawner;

use crate::actors::messages::ReadResult;
use crate::protocol::tasks::PageRequest;
use std::sync::Arc;

/// What the view asks of the Work detail source (`SourceCommand::Work`).
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
