//! The Work part of the view model: the Planning and Task list slots, the open Task detail
//! (body + history, two independent slots) and the open Goal detail (timeline slot).
//!
//! Admission is the shared ticket rule (G-2, G-7): a slot takes only the result of the ticket
//! that owns it, and a parameterised key (task id, goal id) never fits another object's slot.
//! Opening a task or goal (again) starts from fresh slots, so an old ticket of the same id is
//! rejected. Withdrawal drops the detail values and owners together.

use super::detail::{GoalDetailModel, PageOutcome, TaskDetailModel};
use super::layout::RowLayouts;
use crate::actors::contract::{Inbox, Inboxes, SourceKey, Ticket};
use crate::actors::work::goal_transition::GoalTransition;
use crate::actors::work::{
    GoalLinkedTasks, HistoryPageRead, PLANNING, TASK_LIST, WORK_DETAIL, WorkObservation, WorkSlot,
};
use crate::protocol::admission::ReadScope;
use crate::protocol::goals::GoalDetailRead;
use crate::protocol::outcome::SaveClass;
use crate::protocol::planning::{PlanningRead, Rollup};
use crate::protocol::routes::RouteFamily;
use crate::protocol::tasks::TaskList;
use crate::view::admission::{EpochGate, ReadSlot, RejectReason, Slot};
use crate::view::fetched::{FailureClass, Fetched, SlotFailure};
use crate::view::saves::books::save_books;
use crate::view::surface::{SurfaceModel, not_served_of};
use std::sync::Arc;
use std::time::Instant;

/// Goal counts of the first Planning reading of this session (surfaces.md: net change).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FirstPlanning {
    pub rollup: Rollup,
}

#[derive(Debug)]
pub struct WorkModel {
    inbox: Inbox<WorkSlot, WorkObservation>,
    pub planning: Slot<Arc<PlanningRead>>,
    pub first_planning: Option<FirstPlanning>,
    pub tasks: Slot<Arc<TaskList>>,
    /// The goal-linked tasks (§5.5 tree), read only while the task list route is not served
    /// by this MASC. Shown only then ([`WorkModel::task_list`]).
    pub linked_tasks: Slot<Arc<GoalLinkedTasks>>,
    pub task: Option<TaskDetailModel>,
    pub goal: Option<GoalDetailModel>,
    /// Display rows laid out off the view actor.
    pub layouts: RowLayouts,
    pub saves: WorkSaves,
    /// A save may have moved a goal: the rollup and the open goal are read again.
    reread: bool,
}

save_books! {
    /// The Work surface's saves this session sent (or read back), each its own save.
    pub struct WorkSaves for WorkSlot, WorkObservation {
        /// Goal actions (§15.4).
        transitions: GoalTransition => GoalTransition,
    }
}

/// a retry after a failure with no value stays `Failed` (its cause kept) with the retry
/// marked in flight; it never reads as loading-from-nothing or as recovered.
fn dispatch_keeping_cause<T: Clone>(
    slot: &mut Slot<T>,
    ticket: &Ticket<WorkSlot>,
    gate: &EpochGate,
) -> bool {
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
fn retire_keeping_cause<T: Clone>(slot: &mut Slot<T>, ticket: &Ticket<WorkSlot>) -> bool {
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

impl Default for WorkModel {
    /// A model with an inbox of its own (tests, screens rendered without a runtime).
    fn default() -> Self {
        Self::new(&Inboxes::new())
    }
}

impl WorkModel {
    pub fn new(inboxes: &Inboxes) -> Self {
        Self {
            inbox: inboxes.get(),
            planning: Slot::default(),
            first_planning: None,
            tasks: Slot::default(),
            linked_tasks: Slot::default(),
            task: None,
            goal: None,
            layouts: RowLayouts::default(),
            saves: WorkSaves::default(),
            reread: false,
        }
    }

    /// The view opened a task: fresh slots, so nothing of an earlier opening applies.
    pub fn open_task(&mut self, task_id: &str) {
        self.task = Some(TaskDetailModel::new(task_id));
        self.layouts.forget_task();
    }

    pub fn close_task(&mut self) {
        self.task = None;
        self.layouts.forget_task();
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
            WorkCommand::ReadOlder { pages, .. } => {
                if let Some(task) = self.task.as_mut() {
                    let from_pages = task
                        .history
                        .fetched
                        .last()
                        .map_or(0, |o| o.value.pages_read());
                    task.older_run = Some(super::detail::OlderRun {
                        pages: *pages,
                        from_pages,
                    });
                }
            }
            WorkCommand::RefreshTask { .. } => {
                if let Some(task) = self.task.as_mut() {
                    task.older_run = None;
                }
            }
            WorkCommand::OlderHistory { .. } | WorkCommand::RefreshGoal => {}
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

    /// Which task list Work › Tasks shows: the task list read, or — only while that read's
    /// last answer is "not served by this MASC" — the goal-linked tasks.
    pub fn task_list(&self) -> TaskListShown<'_> {
        match self.tasks.fetched.not_served() {
            Some(absent) => TaskListShown::GoalLinked {
                absent,
                slot: &self.linked_tasks,
            },
            None => TaskListShown::Served(&self.tasks),
        }
    }

    /// The ids of the listed tasks, in list order (whichever list is shown).
    pub fn listed_task_ids(&self) -> Vec<&str> {
        match self.task_list() {
            TaskListShown::Served(slot) => slot
                .fetched
                .last()
                .map(|o| o.value.tasks.iter().map(|t| t.id.as_str()).collect())
                .unwrap_or_default(),
            TaskListShown::GoalLinked { slot, .. } => slot
                .fetched
                .last()
                .map(|o| o.value.tasks().iter().map(|t| t.id.as_str()).collect())
                .unwrap_or_default(),
        }
    }

    fn task_for(&mut self, id: &str) -> Option<&mut TaskDetailModel> {
        self.task.as_mut().filter(|t| t.task_id == id)
    }

    fn goal_for(&mut self, id: &str) -> Option<&mut GoalDetailModel> {
        self.goal.as_mut().filter(|g| g.goal_id == id)
    }

    fn new_epoch(&mut self, scope: &ReadScope) -> bool {
        let mut changed =
            self.planning.withdraw() | self.tasks.withdraw() | self.linked_tasks.withdraw();
        if self.planning.forget_other_workspace(scope) {
            // The net change is counted from the first reading of *this* workspace.
            self.first_planning = None;
            changed = true;
        }
        changed |= self.tasks.forget_other_workspace(scope);
        changed |= self.linked_tasks.forget_other_workspace(scope);
        if let Some(t) = self.task.as_mut() {
            changed |= withdraw_keeping_cause(&mut t.body);
            changed |= withdraw_keeping_cause(&mut t.history);
            changed |= withdraw_keeping_cause(&mut t.legacy);
            changed |= t.body.forget_other_workspace(scope);
            changed |= t.history.forget_other_workspace(scope);
            changed |= t.legacy.forget_other_workspace(scope);
        }
        if let Some(g) = self.goal.as_mut() {
            changed |= withdraw_keeping_cause(&mut g.timeline);
            changed |= g.timeline.forget_other_workspace(scope);
        }
        changed
    }

    fn withdrawn(&mut self) -> bool {
        let mut changed = withdraw_keeping_cause(&mut self.planning);
        changed |= withdraw_keeping_cause(&mut self.tasks);
        changed |= withdraw_keeping_cause(&mut self.linked_tasks);
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
            self.layouts.forget_task();
        }
        changed
    }
}

impl SurfaceModel for WorkModel {
    type Slot = WorkSlot;
    type Payload = WorkObservation;

    fn inbox(&self) -> &Inbox<WorkSlot, WorkObservation> {
        &self.inbox
    }

    /// A ticket of an object that is not open changes nothing.
    fn dispatched(&mut self, ticket: &Ticket<WorkSlot>, gate: &EpochGate) -> bool {
        if let Some(owned) = self.saves.dispatched(ticket) {
            return owned;
        }
        match &ticket.slot {
            WorkSlot::Planning => self.planning.dispatched(ticket, gate),
            WorkSlot::TaskList => self.tasks.dispatched(ticket, gate),
            WorkSlot::GoalLinkedTasks => self.linked_tasks.dispatched(ticket, gate),
            WorkSlot::TaskHistoryLegacy(id) => match self.task_for(id) {
                Some(t) => dispatch_keeping_cause(&mut t.legacy, ticket, gate),
                None => false,
            },
            WorkSlot::TaskBody(id) => match self.task_for(id) {
                Some(t) => {
                    let changed = dispatch_keeping_cause(&mut t.body, ticket, gate);
                    t.withdrawn &= !changed;
                    changed
                }
                None => false,
            },
            WorkSlot::TaskHistory(id) => match self.task_for(id) {
                Some(t) => {
                    let changed = dispatch_keeping_cause(&mut t.history, ticket, gate);
                    t.withdrawn &= !changed;
                    changed
                }
                None => false,
            },
            WorkSlot::GoalTimeline(id) => match self.goal_for(id) {
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

    /// Whether the result of `ticket` may be applied (the payload must fit the key too).
    fn judge(
        &mut self,
        ticket: &Ticket<WorkSlot>,
        payload: &WorkObservation,
        gate: &EpochGate,
    ) -> Result<(), RejectReason> {
        // A receipt is not gated by the epoch (a write already made): its own book.
        if let Some(judged) = self.saves.judge(ticket, payload) {
            return judged;
        }
        let fits = matches!(
            (&ticket.slot, payload),
            (WorkSlot::Planning, WorkObservation::Planning(_))
                | (WorkSlot::TaskList, WorkObservation::TaskList(_))
                | (
                    WorkSlot::GoalLinkedTasks,
                    WorkObservation::GoalLinkedTasks(_)
                )
                | (
                    WorkSlot::TaskHistoryLegacy(_),
                    WorkObservation::TaskHistoryLegacy(_)
                )
                | (WorkSlot::TaskBody(_), WorkObservation::TaskBody(_))
                | (WorkSlot::TaskHistory(_), WorkObservation::TaskHistory(_))
                | (WorkSlot::GoalTimeline(_), WorkObservation::GoalTimeline(_))
        );
        if !fits {
            return Err(RejectReason::UnknownSlot);
        }
        match &ticket.slot {
            WorkSlot::Planning => self.planning.judge(ticket, gate),
            WorkSlot::TaskList => self.tasks.judge(ticket, gate),
            WorkSlot::GoalLinkedTasks => self.linked_tasks.judge(ticket, gate),
            WorkSlot::TaskHistoryLegacy(id) => Slot::judge_if_open(
                self.task
                    .as_ref()
                    .filter(|t| &t.task_id == id)
                    .map(|t| &t.legacy),
                ticket,
                gate,
            ),
            // Not the open task or goal (closed, or another one opened): never applied.
            WorkSlot::TaskBody(id) => Slot::judge_if_open(
                self.task
                    .as_ref()
                    .filter(|t| &t.task_id == id)
                    .map(|t| &t.body),
                ticket,
                gate,
            ),
            WorkSlot::TaskHistory(id) => Slot::judge_if_open(
                self.task
                    .as_ref()
                    .filter(|t| &t.task_id == id)
                    .map(|t| &t.history),
                ticket,
                gate,
            ),
            WorkSlot::GoalTimeline(id) => Slot::judge_if_open(
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

    fn apply(&mut self, ticket: &Ticket<WorkSlot>, payload: WorkObservation, now: Instant) {
        let payload = match self.saves.apply(payload) {
            // Anything but "not sent" may have moved the goal (§15.4: re-read §5.7).
            Ok(ended) => {
                self.reread |= ended.is_some_and(|class| class != SaveClass::NotSent);
                return;
            }
            Err(read) => read,
        };
        match payload {
            WorkObservation::Planning(result) => {
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
            WorkObservation::TaskList(result) => {
                self.tasks.apply_with(ticket, result, now, |v| v);
            }
            WorkObservation::GoalLinkedTasks(result) => {
                self.linked_tasks.apply_with(ticket, result, now, |v| v);
            }
            WorkObservation::TaskHistoryLegacy(result) => {
                if let WorkSlot::TaskHistoryLegacy(id) = &ticket.slot
                    && let Some(t) = self.task_for(id)
                {
                    t.legacy.apply_with(ticket, result, now, |v| v);
                }
            }
            WorkObservation::TaskBody(result) => {
                let generation = ticket.generation;
                if let WorkSlot::TaskBody(id) = &ticket.slot
                    && let Some(t) = self.task_for(id)
                {
                    if result.is_ok() {
                        t.body_generation = Some(generation);
                    }
                    t.body.apply_with(ticket, result, now, |v| v);
                }
            }
            WorkObservation::TaskHistory(read) => {
                if let WorkSlot::TaskHistory(id) = &ticket.slot
                    && let Some(t) = self.task_for(id)
                {
                    apply_history(t, ticket, *read, now);
                }
            }
            WorkObservation::GoalTimeline(result) => {
                if let WorkSlot::GoalTimeline(id) = &ticket.slot
                    && let Some(g) = self.goal_for(id)
                {
                    match &result {
                        Ok(a) => match a.value.as_ref() {
                            GoalDetailRead::NotFound { .. } => {
                                // An unknown goal is a typed failure of this read only; the
                                // last good timeline stays beside it (B-2).
                                g.timeline.apply_failure(SlotFailure {
                                    class: FailureClass::GoalNotFound,
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
            _ => {}
        }
    }

    fn retired(&mut self, ticket: &Ticket<WorkSlot>) -> bool {
        if let Some(owned) = self.saves.retired(ticket) {
            return owned;
        }
        match &ticket.slot {
            WorkSlot::Planning => self.planning.retired(ticket),
            WorkSlot::TaskList => self.tasks.retired(ticket),
            WorkSlot::GoalLinkedTasks => self.linked_tasks.retired(ticket),
            WorkSlot::TaskHistoryLegacy(id) => self
                .task_for(id)
                .is_some_and(|t| retire_keeping_cause(&mut t.legacy, ticket)),
            WorkSlot::TaskBody(id) => self
                .task_for(id)
                .is_some_and(|t| retire_keeping_cause(&mut t.body, ticket)),
            WorkSlot::TaskHistory(id) => self
                .task_for(id)
                .is_some_and(|t| retire_keeping_cause(&mut t.history, ticket)),
            WorkSlot::GoalTimeline(id) => self
                .goal_for(id)
                .is_some_and(|g| retire_keeping_cause(&mut g.timeline, ticket)),
            _ => false,
        }
    }

    fn slot(&mut self, key: &WorkSlot) -> Option<&mut dyn ReadSlot> {
        match key {
            WorkSlot::Planning => Some(&mut self.planning),
            WorkSlot::TaskList => Some(&mut self.tasks),
            WorkSlot::GoalLinkedTasks => Some(&mut self.linked_tasks),
            WorkSlot::TaskHistoryLegacy(id) => self
                .task_for(id)
                .map(|t| &mut t.legacy as &mut dyn ReadSlot),
            WorkSlot::TaskBody(id) => self.task_for(id).map(|t| &mut t.body as &mut dyn ReadSlot),
            WorkSlot::TaskHistory(id) => self
                .task_for(id)
                .map(|t| &mut t.history as &mut dyn ReadSlot),
            WorkSlot::GoalTimeline(id) => self
                .goal_for(id)
                .map(|g| &mut g.timeline as &mut dyn ReadSlot),
            _ => None,
        }
    }

    /// A goal action was answered: the rollup and the open goal's timeline are read again.
    fn take_demands(&mut self) -> Vec<SourceKey> {
        if std::mem::take(&mut self.reread) {
            vec![PLANNING, WORK_DETAIL]
        } else {
            Vec::new()
        }
    }

    fn slots(&mut self) -> Vec<(SourceKey, &mut dyn ReadSlot)> {
        let mut all: Vec<(SourceKey, &mut dyn ReadSlot)> = vec![
            (PLANNING, &mut self.planning as &mut dyn ReadSlot),
            (TASK_LIST, &mut self.tasks),
            (TASK_LIST, &mut self.linked_tasks),
        ];
        if let Some(t) = self.task.as_mut() {
            all.push((WORK_DETAIL, &mut t.body));
            all.push((WORK_DETAIL, &mut t.history));
            all.push((WORK_DETAIL, &mut t.legacy));
        }
        if let Some(g) = self.goal.as_mut() {
            all.push((WORK_DETAIL, &mut g.timeline));
        }
        all
    }

    /// A new epoch opened: reads of older epochs lose their slots; another workspace never
    /// shows this one's values (G-6).
    fn on_new_epoch(&mut self, scope: &ReadScope) -> bool {
        self.new_epoch(scope)
    }

    /// Authority withdrawn: list slots keep their last value (G-6); the Task detail drops both
    /// values and their owners together, and so does the goal timeline (B-1).
    fn on_withdrawn(&mut self) -> bool {
        self.withdrawn()
    }

    /// Some Work list read's last result is a failure (header: degraded); a list route this
    /// MASC does not serve is not one (a known absence), but a failed fallback read is.
    fn any_failed(&self) -> bool {
        self.planning.failed() || self.tasks.failed() || self.linked_tasks.failed()
    }

    /// Every Work read that found its route not served, the open detail's included.
    fn not_served(&self) -> Vec<RouteFamily> {
        let mut slots: Vec<&dyn ReadSlot> = vec![&self.planning, &self.tasks, &self.linked_tasks];
        if let Some(t) = &self.task {
            slots.extend([&t.body as &dyn ReadSlot, &t.history, &t.legacy]);
        }
        if let Some(g) = &self.goal {
            slots.push(&g.timeline);
        }
        not_served_of(&slots)
    }
}

/// Which task list Work › Tasks shows (see [`WorkModel::task_list`]).
#[derive(Debug, Clone, Copy)]
pub enum TaskListShown<'a> {
    /// The task list route is served (or its last read failed some other way).
    Served(&'a Slot<Arc<TaskList>>),
    /// The task list route is not served by this MASC: the goal-linked tasks, partial.
    GoalLinked {
        absent: RouteFamily,
        slot: &'a Slot<Arc<GoalLinkedTasks>>,
    },
}

/// A history page result: admitted → the new prefix; failed → the prefix stays with the
/// failure and the same retry cursor, never an empty list or a fallback.
fn apply_history(
    t: &mut TaskDetailModel,
    ticket: &Ticket<WorkSlot>,
    read: HistoryPageRead,
    now: Instant,
) {
    let HistoryPageRead {
        base,
        request,
        result,
    } = read;
    let fresh = base.pages_read() == 0;
    t.last_page = Some(PageOutcome {
        request,
        fresh,
        failure: result.as_ref().err().map(SlotFailure::of_client),
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
