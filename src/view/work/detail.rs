//! The open Task and Goal detail of the Work model: their slots and what the last history
//! page did (leaf types the model and the row layout both use).

use crate::actors::work::{HistoryChain, OlderPages};
use crate::protocol::goals::GoalDetailRead;
use crate::protocol::routes::RouteFamily;
use crate::protocol::tasks::{LegacyTaskEvents, PageRequest, TaskDetail};
use crate::view::admission::Slot;
use crate::view::fetched::{Fetched, SlotFailure};
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
    /// The legacy recent events (§5.4), read only when the page route is not served by this
    /// MASC: never a history chain, never the full history.
    pub legacy: Slot<Arc<LegacyTaskEvents>>,
    pub last_page: Option<PageOutcome>,
    /// A withdrawal dropped both values; cleared by the next dispatch.
    pub withdrawn: bool,
    /// The last run of older pages asked for (`H` with a count, `End`): its progress is the
    /// pages admitted since.
    pub older_run: Option<OlderRun>,
}

/// A run of older history pages the view asked for, and the pages its prefix held then.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OlderRun {
    pub pages: OlderPages,
    pub from_pages: usize,
}

/// Where a run of older pages stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OlderProgress {
    /// `read` pages admitted so far, of `of` when counted.
    Reading { read: usize, of: Option<u32> },
    /// Every page asked for is read, or the end of stored history is reached.
    Done,
    /// A page failed: the run stopped (A-3: `H` retries that cursor).
    Stopped { read: usize },
}

impl TaskDetailModel {
    /// The progress of the last run of older pages, if one was asked for.
    pub fn older_progress(&self) -> Option<OlderProgress> {
        let run = self.older_run?;
        let chain = self.history.fetched.last().map(|o| o.value.clone());
        let pages = chain.as_ref().map_or(0, |c| c.pages_read());
        let read = pages.saturating_sub(run.from_pages);
        let at_end = chain
            .as_ref()
            .is_some_and(|c| c.next == crate::actors::work::ChainNext::EndOfStoredHistory);
        let enough = matches!(run.pages, OlderPages::Count(n) if read >= n as usize);
        if at_end || enough {
            return Some(OlderProgress::Done);
        }
        if matches!(self.history.fetched, Fetched::Failed { .. }) {
            return Some(OlderProgress::Stopped { read });
        }
        Some(OlderProgress::Reading {
            read,
            of: match run.pages {
                OlderPages::Count(n) => Some(n),
                OlderPages::ToOldest => None,
            },
        })
    }
}

impl TaskDetailModel {
    pub fn new(task_id: impl Into<String>) -> Self {
        Self {
            task_id: task_id.into(),
            body: Slot::default(),
            body_generation: None,
            history: Slot::default(),
            legacy: Slot::default(),
            last_page: None,
            withdrawn: false,
            older_run: None,
        }
    }

    /// The history page route this MASC does not serve, when no page of this task was read
    /// (an older release): the legacy recent events stand in for the history, and `H` has no older
    /// page to read. A prefix read while the route was served stays the history.
    pub fn pages_absent(&self) -> Option<RouteFamily> {
        match &self.history.fetched {
            Fetched::NotServed { route, last: None } => Some(*route),
            _ => None,
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
