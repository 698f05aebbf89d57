//! The Work part of the view model: the Planning and Task list slots, the open Task detail
//! (body + history, two independent slots) and the open Goal detail (timeline slot).
//!
//! Admission is the shared ticket rule (G-2, G-7): a slot takes only the result of the ticket
//! that owns it, and a parameterised key (task id, goal id) never fits another object's slot.
//! Opening a task or goal (again) starts from fresh slots, so an old ticket of the same id is
//! rejected. Withdrawal drops the detail values and owners together.

use super::prep::PrepState;
use crate::actors::messages::ObservationPayload;
use crate::actors::ticket::{SourceKey, Ticket};
use crate::actors::work::{HistoryChain, HistoryPageRead};
use crate::protocol::admission::ReadScope;
use crate::protocol::client::ClientError;
use crate::protocol::goals::GoalDetailRead;
use crate::protocol::planning::{PlanningRead, Rollup};
use crate::protocol::tasks::{PageRequest, TaskDetail, TaskList};
use crate::view::admission::{EpochGate, RejectReason, Slot};
use crate::view::fetched::{Fetched, ReadBadge, SlotFailure};
use std::sync::Arc;
use std::time::Instant;

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

/// Goal counts of the first Planning reading of this session (surfaces.md: net change).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FirstPlanning {
    pub rollup: Rollup,
}

#[derive(Debug, Default)]
pub struct WorkModel {
    pub planning: Slot<Arc<PlanningRead>>,
    pub first_planning: Option<FirstPlanning>,
    pub tasks: Slot<Arc<TaskList>>,
    pub task: Option<TaskDetailModel>,
    pub goal: Option<GoalDetailModel>,
    /// Display rows prepared off the view actor.
    pub prep: PrepState,
}

/// a retry after a failure with no value stays `Failed` (its cause kept) with the retry
/// marked in flight; it never reads as loading-from-nothing or as recovered.
fn dispatch_keeping_cause<T: Clone>(slot: &mut Slot<T>, ticket: Ticket, gate: &EpochGate) -> bool {
    let cause = match &slot.fetched {
        Fetched::Failed {
            last: None, error, ..
        } => Some(error.clone()),
        _ => None,
    };
    if !slot.dispatched(ticket, gate) {
        return false;
    }
    if let Some(error) = cause {
        slot.fetched = Fetched::Failed {
            last: None,
            error,
            retrying: true,
        };
    }
    true
}

/// a retired retry withdraws only the retry marker; the cause stays.
fn retire_keeping_cause<T: Clone>(slot: &mut Slot<T>, ticket: &Ticket) -> bool {
    if !slot.retired(ticket) {
        return false;
    }
    if let Fetched::Failed { retrying, .. } = &mut slot.fetched {
        *retrying = false;
    }
    true
}

fn withdraw_keeping_cause<T: Clone>(slot: &mut Slot<T>) -> bool {
    let changed = slot.withdraw();
    if let Fetched::Failed { retrying, .. } = &mut slot.fetched {
        *retrying = false;
    }
    changed
}

fn failure_of(err: &ClientError) -> SlotFailure {
    SlotFailure {
        class: err.class(),
        detail: err.to_string(),
    }
}

impl WorkModel {
    /// The view opened a task: fresh slots, so nothing of an earlier opening applies.
    pub fn open_task(&mut self, task_id: &str) {
        self.task = Some(TaskDetailModel::new(task_id));
        self.prep.forget_task();
    }

    pub fn close_task(&mut self) {
        self.task = None;
        self.prep.forget_task();
    }

    pub fn open_goal(&mut self, goal_id: &str) {
        self.goal = Some(GoalDetailModel {
            goal_id: goal_id.to_string(),
            timeline: Slot::default(),
            withdrawn: false,
        });
    }

    pub fn close_goal(&mut self) {
        self.goal = None;
    }

    /// The view sent `cmd` to the Work detail source: open / close the matching slots.
    pub fn on_command(&mut self, cmd: &crate::actors::work::WorkCommand) {
        use crate::actors::work::WorkCommand;
        match cmd {
            WorkCommand::OpenTask { task_id, .. } => self.open_task(task_id),
            WorkCommand::CloseTask => self.close_task(),
            WorkCommand::OpenGoal { goal_id } => self.open_goal(goal_id),
            WorkCommand::CloseGoal => self.close_goal(),
            WorkCommand::OlderHistory { .. }
            | WorkCommand::RefreshTask { .. }
            | WorkCommand::RefreshGoal => {}
        }
    }

    /// The commands that re-open what is on screen in a restarted Work detail source (its
    /// owned reads died with it): the open task and/or goal start again with new tickets, the
    /// history as a fresh prefix; the last values stay on screen until they are replaced.
    pub fn reopen_commands(&self, page_rows: u32) -> Vec<crate::actors::work::WorkCommand> {
        use crate::actors::work::WorkCommand;
        let mut out = Vec::new();
        if let Some(task) = &self.task {
            out.push(WorkCommand::OpenTask {
                task_id: task.task_id.clone(),
                page_rows,
            });
        }
        if let Some(goal) = &self.goal {
            out.push(WorkCommand::OpenGoal {
                goal_id: goal.goal_id.clone(),
            });
        }
        out
    }

    fn task_for(&mut self, id: &str) -> Option<&mut TaskDetailModel> {
        self.task.as_mut().filter(|t| t.task_id == id)
    }

    fn goal_for(&mut self, id: &str) -> Option<&mut GoalDetailModel> {
        self.goal.as_mut().filter(|g| g.goal_id == id)
    }

    /// Whether `source` is a Work key (then every verdict below is this model's).
    pub fn owns(source: &SourceKey) -> bool {
        matches!(
            source,
            SourceKey::Planning
                | SourceKey::TaskList
                | SourceKey::WorkDetail
                | SourceKey::TaskBody(_)
                | SourceKey::TaskHistory(_)
                | SourceKey::GoalTimeline(_)
        )
    }

    /// `Dispatched`. A ticket of an object that is not open changes nothing.
    pub fn on_dispatched(&mut self, ticket: Ticket, gate: &EpochGate) -> bool {
        match ticket.source.clone() {
            SourceKey::Planning => self.planning.dispatched(ticket, gate),
            SourceKey::TaskList => self.tasks.dispatched(ticket, gate),
            SourceKey::TaskBody(id) => match self.task_for(&id) {
                Some(t) => {
                    let changed = dispatch_keeping_cause(&mut t.body, ticket, gate);
                    t.withdrawn &= !changed;
                    changed
                }
                None => false,
            },
            SourceKey::TaskHistory(id) => match self.task_for(&id) {
                Some(t) => {
                    let changed = dispatch_keeping_cause(&mut t.history, ticket, gate);
                    t.withdrawn &= !changed;
                    changed
                }
                None => false,
            },
            SourceKey::GoalTimeline(id) => match self.goal_for(&id) {
                Some(g) => {
                    let changed = dispatch_keeping_cause(&mut g.timeline, ticket, gate);
                    g.withdrawn &= !changed;
                    changed
                }
                None => false,
            },
            _ => false,
        }
    }

    /// The read state of `source`'s slot (None: not open, or not a Work source).
    pub fn read_badge(&mut self, source: &SourceKey) -> Option<&mut dyn ReadBadge> {
        match source {
            SourceKey::Planning => Some(&mut self.planning.fetched),
            SourceKey::TaskList => Some(&mut self.tasks.fetched),
            SourceKey::TaskBody(id) => self
                .task_for(id)
                .map(|t| &mut t.body.fetched as &mut dyn ReadBadge),
            SourceKey::TaskHistory(id) => self
                .task_for(id)
                .map(|t| &mut t.history.fetched as &mut dyn ReadBadge),
            SourceKey::GoalTimeline(id) => self
                .goal_for(id)
                .map(|g| &mut g.timeline.fetched as &mut dyn ReadBadge),
            _ => None,
        }
    }

    /// Whether the result of `ticket` may be applied (the payload must fit the key too).
    pub fn judge(
        &self,
        ticket: &Ticket,
        payload: &ObservationPayload,
        gate: &EpochGate,
    ) -> Result<(), RejectReason> {
        let fits = matches!(
            (&ticket.source, payload),
            (SourceKey::Planning, ObservationPayload::Planning(_))
                | (SourceKey::TaskList, ObservationPayload::TaskList(_))
                | (SourceKey::TaskBody(_), ObservationPayload::TaskBody(_))
                | (
                    SourceKey::TaskHistory(_),
                    ObservationPayload::TaskHistory(_)
                )
                | (
                    SourceKey::GoalTimeline(_),
                    ObservationPayload::GoalTimeline(_)
                )
        );
        if !fits {
            return Err(RejectReason::UnknownSlot);
        }
        match &ticket.source {
            SourceKey::Planning => self.planning.judge(ticket, gate),
            SourceKey::TaskList => self.tasks.judge(ticket, gate),
            // Not the open task or goal (closed, or another one opened): never applied.
            SourceKey::TaskBody(id) => Slot::judge_if_open(
                self.task
                    .as_ref()
                    .filter(|t| &t.task_id == id)
                    .map(|t| &t.body),
                ticket,
                gate,
            ),
            SourceKey::TaskHistory(id) => Slot::judge_if_open(
                self.task
                    .as_ref()
                    .filter(|t| &t.task_id == id)
                    .map(|t| &t.history),
                ticket,
                gate,
            ),
            SourceKey::GoalTimeline(id) => Slot::judge_if_open(
                self.goal
                    .as_ref()
                    .filter(|g| &g.goal_id == id)
                    .map(|g| &g.timeline),
                ticket,
                gate,
            ),
            _ => Err(RejectReason::UnknownSlot),
        }
    }

    /// Applies a judged observation.
    pub fn apply(&mut self, ticket: &Ticket, payload: ObservationPayload, now: Instant) {
        match payload {
            ObservationPayload::Planning(result) => {
                if let Ok(a) = &result
                    && let PlanningRead::Snapshot(p) = a.value.as_ref()
                    && self.first_planning.is_none()
                {
                    self.first_planning = Some(FirstPlanning {
                        rollup: p.rollup.clone(),
                    });
                }
                self.planning.apply_with(ticket, result, now, |v| v);
            }
            ObservationPayload::TaskList(result) => {
                self.tasks.apply_with(ticket, result, now, |v| v);
            }
            ObservationPayload::TaskBody(result) => {
                let generation = ticket.generation;
                if let SourceKey::TaskBody(id) = &ticket.source
                    && let Some(t) = self.task_for(id)
                {
                    if result.is_ok() {
                        t.body_generation = Some(generation);
                    }
                    t.body.apply_with(ticket, result, now, |v| v);
                }
            }
            ObservationPayload::TaskHistory(read) => {
                if let SourceKey::TaskHistory(id) = &ticket.source
                    && let Some(t) = self.task_for(id)
                {
                    apply_history(t, ticket, *read, now);
                }
            }
            ObservationPayload::GoalTimeline(result) => {
                if let SourceKey::GoalTimeline(id) = &ticket.source
                    && let Some(g) = self.goal_for(id)
                {
                    match &result {
                        Ok(a) => match a.value.as_ref() {
                            GoalDetailRead::NotFound { .. } => {
                                // An unknown goal is a typed failure of this read only; the
                                // last good timeline stays beside it (B-2).
                                g.timeline.apply_failure(SlotFailure {
                                    class: "goal_not_found".into(),
                                    detail: "the server does not know this goal".into(),
                                });
                            }
                            GoalDetailRead::Found(_) => {
                                g.timeline.apply_with(ticket, result, now, |v| v)
                            }
                        },
                        Err(_) => g.timeline.apply_with(ticket, result, now, |v| v),
                    }
                }
            }
            ObservationPayload::KeepersRoster(_)
            | ObservationPayload::Chat(_)
            | ObservationPayload::BoardPosts(_)
            | ObservationPayload::HearthCensus(_)
            | ObservationPayload::BoardPost(_)
            | ObservationPayload::ToolsInventory(_)
            | ObservationPayload::SkillsCatalog(_)
            | ObservationPayload::AsyncRequests(_)
            | ObservationPayload::RuntimeCatalogue(_)
            | ObservationPayload::ConnectorsStatus(_)
            | ObservationPayload::ConnectorNames(_)
            | ObservationPayload::OperatorApprovals(_)
            | ObservationPayload::OpenAsks(_) => {}
        }
    }

    /// `Retired`.
    pub fn on_retired(&mut self, ticket: &Ticket) -> bool {
        match ticket.source.clone() {
            SourceKey::Planning => self.planning.retired(ticket),
            SourceKey::TaskList => self.tasks.retired(ticket),
            SourceKey::TaskBody(id) => self
                .task_for(&id)
                .is_some_and(|t| retire_keeping_cause(&mut t.body, ticket)),
            SourceKey::TaskHistory(id) => self
                .task_for(&id)
                .is_some_and(|t| retire_keeping_cause(&mut t.history, ticket)),
            SourceKey::GoalTimeline(id) => self
                .goal_for(&id)
                .is_some_and(|g| retire_keeping_cause(&mut g.timeline, ticket)),
            _ => false,
        }
    }

    /// A new epoch opened: reads of older epochs lose their slots; another workspace never
    /// shows this one's values (G-6).
    pub fn on_new_epoch(&mut self, scope: &ReadScope) -> bool {
        let mut changed = self.planning.withdraw() | self.tasks.withdraw();
        if self.planning.forget_other_workspace(scope) {
            // The net change is counted from the first reading of *this* workspace.
            self.first_planning = None;
            changed = true;
        }
        changed |= self.tasks.forget_other_workspace(scope);
        if let Some(t) = self.task.as_mut() {
            changed |= withdraw_keeping_cause(&mut t.body);
            changed |= withdraw_keeping_cause(&mut t.history);
            changed |= t.body.forget_other_workspace(scope);
            changed |= t.history.forget_other_workspace(scope);
        }
        if let Some(g) = self.goal.as_mut() {
            changed |= withdraw_keeping_cause(&mut g.timeline);
            changed |= g.timeline.forget_other_workspace(scope);
        }
        changed
    }

    /// Authority withdrawn: list slots keep their last value (G-6); the Task detail drops both
    /// values and their owners together, and so does the goal timeline (B-1).
    pub fn on_withdrawn(&mut self) -> bool {
        let mut changed = withdraw_keeping_cause(&mut self.planning);
        changed |= withdraw_keeping_cause(&mut self.tasks);
        if let Some(t) = self.task.as_mut() {
            let id = t.task_id.clone();
            *t = TaskDetailModel::new(id);
            t.withdrawn = true;
            changed = true;
        }
        if let Some(g) = self.goal.as_mut() {
            g.timeline = Slot::default();
            g.withdrawn = true;
            changed = true;
        }
        if changed {
            self.prep.forget_task();
        }
        changed
    }

    fn detail_slots(
        &mut self,
        source: &SourceKey,
        f: &mut dyn FnMut(&mut dyn SlotOps) -> bool,
    ) -> bool {
        match source {
            SourceKey::Planning => f(&mut self.planning),
            SourceKey::TaskList => f(&mut self.tasks),
            SourceKey::WorkDetail => {
                let mut changed = false;
                if let Some(t) = self.task.as_mut() {
                    changed |= f(&mut t.body);
                    changed |= f(&mut t.history);
                }
                if let Some(g) = self.goal.as_mut() {
                    changed |= f(&mut g.timeline);
                }
                changed
            }
            _ => false,
        }
    }

    /// `SourceRestarted`: the reads in flight of that source fail with `source_restarted`.
    pub fn on_source_restarted(&mut self, source: &SourceKey) -> bool {
        self.detail_slots(source, &mut |s| s.restarted())
    }

    pub fn on_source_stopped(&mut self, source: &SourceKey) -> bool {
        self.detail_slots(source, &mut |s| s.stopped())
    }

    /// Some Work read's last result is a failure (header: degraded).
    pub fn any_failed(&self) -> bool {
        matches!(self.planning.fetched, Fetched::Failed { .. })
            || matches!(self.tasks.fetched, Fetched::Failed { .. })
    }
}

/// Object-safe access to the slot operations restart/stop need.
trait SlotOps {
    fn restarted(&mut self) -> bool;
    fn stopped(&mut self) -> bool;
}

impl<T: Clone> SlotOps for Slot<T> {
    fn restarted(&mut self) -> bool {
        self.source_restarted()
    }
    fn stopped(&mut self) -> bool {
        // Only slots that were ever asked for show "source stopped".
        if matches!(self.fetched, Fetched::NotRequested) && !self.in_flight() {
            return false;
        }
        self.source_stopped()
    }
}

/// A history page result: admitted → the new prefix; failed → the prefix stays with the
/// failure and the same retry cursor, never an empty list or a fallback.
fn apply_history(t: &mut TaskDetailModel, ticket: &Ticket, read: HistoryPageRead, now: Instant) {
    let HistoryPageRead {
        base,
        request,
        result,
    } = read;
    let fresh = base.pages_read() == 0;
    t.last_page = Some(PageOutcome {
        request,
        fresh,
        failure: result.as_ref().err().map(failure_of),
    });
    t.history.apply_with(ticket, result, now, |v| v);
}

#[cfg(test)]
mod reopen_tests {
    use super::*;
    use crate::actors::work::WorkCommand;

    #[test]
    fn a_restarted_detail_source_reopens_exactly_what_is_on_screen() {
        let mut work = WorkModel::default();
        assert!(
            work.reopen_commands(40).is_empty(),
            "nothing open, nothing sent"
        );
        work.open_task("task-1013");
        work.open_goal("goal-5");
        let cmds = work.reopen_commands(40);
        assert_eq!(cmds.len(), 2);
        assert!(matches!(
            &cmds[0],
            WorkCommand::OpenTask { task_id, page_rows: 40 } if task_id == "task-1013"
        ));
        assert!(matches!(&cmds[1], WorkCommand::OpenGoal { goal_id } if goal_id == "goal-5"));
        work.close_task();
        assert!(matches!(
            work.reopen_commands(40).as_slice(),
            [WorkCommand::OpenGoal { .. }]
        ));
    }
}
