//! The open Task and Goal detail of the Work model: their slots and what the last history
//! page did (leaf types the model and the display preparation both use).

use crate::actors::work::HistoryChain;
use crate::protocol::goals::GoalDetailRead;
use crate::protocol::tasks::{PageRequest, TaskDetail};
use crate::view::admission::Slot;
use crate::view::fetched::SlotFailure;
use std::sync::Arc;

/// How the last history page read ended (for the retry cursor and the failure line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageOutcome {
    pub request: PageRequest,
    /// `true` when the page started a fresh prefix (`r`, or the first page).
    pub fresh: bool,
    /// `None`: admitted.
    pub failure: Option<SlotFailure>,
}

/// The open Task detail.
#[derive(Debug, Clone)]
pub struct TaskDetailModel {
    pub task_id: String,
    pub body: Slot<Arc<TaskDetail>>,
    /// Generation of the ticket whose body is shown (identifies the observation for A-13).
    pub body_generation: Option<u64>,
    pub history: Slot<Arc<HistoryChain>>,
    pub last_page: Option<PageOutcome>,
    /// A withdrawal dropped both values; cleared by the next dispatch.
    pub withdrawn: bool,
}

impl TaskDetailModel {
    pub fn new(task_id: impl Into<String>) -> Self {
        Self {
            task_id: task_id.into(),
            body: Slot::default(),
            body_generation: None,
            history: Slot::default(),
            last_page: None,
            withdrawn: false,
        }
    }
}

/// The open Goal detail.
#[derive(Debug, Clone)]
pub struct GoalDetailModel {
    pub goal_id: String,
    pub timeline: Slot<Arc<GoalDetailRead>>,
    pub withdrawn: bool,
}
