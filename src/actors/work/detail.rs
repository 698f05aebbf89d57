//! The Work detail source: owns the reads of the open Task (body + history chain) and of the
//! open Goal (timeline), each object with its own [`ReadOwner`] (sources.md,
//! A-17, B-1).
//!
//! - Body and history are two slots with their own keys, tickets and workers: one failing or
//!   finishing never touches the other.
//! - Opening a task (again) builds a new owner; tickets come from the supervisor's generation
//!   book, so re-opening the same id gets a later generation and an old response never fits
//!   . The old owner retires its reads first.
//! - The history chain is the captured immutable prefix: `H` extends it with the known cursor,
//!   a failure leaves it (and so the retry cursor) as it was, `r` starts a fresh prefix whose
//!   first page supersedes any page in flight (A-1…A-3). The chain advances only when the
//!   owner forwarded the page to the view (the ticket still owned the slot).
//! - The cadence re-reads the body and the goal timeline (shared with an in-flight read) and
//!   never touches the history prefix.
//! - Withdrawal retires every read together and drops the prefix; a re-confirmation of
//!   the same workspace reads both again under the new epoch; another workspace never inherits
//!   the request (G-6).
//! - Where this MASC does not serve the history page route (an older release): when the first
//!   page of a fresh prefix comes back `not_served` (never on another failure, A-3), the legacy
//!   recent events (§5.4, [`legacy_history`](super::legacy_history)) are read in an owner of
//!   their own that lives only while the page route is known not served; `H` reads nothing
//!   older (the legacy array has no pages), `r` asks the page route again (answered from the
//!   client's capability table) and so the legacy array again; an identity change retires it.

use super::chain::HistoryChain;
use super::goal_timeline::goal_timeline_slot;
use super::legacy_history::{legacy_reader, legacy_slot};
use super::task_body::task_body_slot;
use super::task_history::{page_reader, task_history_slot};
use super::{OlderPages, WORK_DETAIL, WorkCommand, WorkObservation, WorkSlot, page_demand};
use crate::actors::contract::{
    DemandKind, GenerationBook, IdentityState, Outlet, SourceContext, SourceKey,
};
use crate::actors::read::shell::{Ctl, Every, Myself, OwnKey, SourceState};
use crate::actors::read::{ReadOwner, ReturnOutcome, WorkerReturn};
use crate::protocol::admission::WorkspaceId;
use crate::protocol::client::{ClientError, WorkspaceClient};
use std::sync::Arc;
use std::time::Duration;

type Owner = ReadOwner<WorkSlot, WorkObservation, Myself<WorkDetailState>>;

crate::source_commands!(WorkSlot, WorkObservation, WorkCommand);

/// The reads of the open task.
struct TaskReads {
    task_id: String,
    owner: Owner,
    /// The admitted prefix `H` continues.
    chain: Arc<HistoryChain>,
    page_rows: u32,
    /// The workspace the reads belong to (set on the first confirmed epoch).
    opened_in: Option<WorkspaceId>,
    /// Withdrawal dropped the values; the same workspace's next confirmation reads again.
    withdrawn: bool,
    /// The legacy recent events' owner: only while the page route is known not served.
    legacy: Option<Owner>,
    /// Older pages still to read after the one in flight (`H` with a count, `End`).
    more_older: Option<OlderPages>,
}

impl TaskReads {
    fn body_key(&self) -> WorkSlot {
        WorkSlot::TaskBody(self.task_id.clone())
    }

    fn history_key(&self) -> WorkSlot {
        WorkSlot::TaskHistory(self.task_id.clone())
    }

    fn legacy_key(&self) -> WorkSlot {
        WorkSlot::TaskHistoryLegacy(self.task_id.clone())
    }

    /// The page route is served after all, or the authority changed: the legacy read is not
    /// chosen any more (its read in flight is retired).
    fn drop_legacy(&mut self, reason: &str) {
        if let Some(mut owner) = self.legacy.take() {
            owner.retire_all(reason);
        }
    }
}

/// The reads of the open goal.
struct GoalReads {
    goal_id: String,
    owner: Owner,
    opened_in: Option<WorkspaceId>,
    withdrawn: bool,
}

impl GoalReads {
    fn key(&self) -> WorkSlot {
        WorkSlot::GoalTimeline(self.goal_id.clone())
    }
}

pub struct WorkDetailState {
    client: WorkspaceClient,
    outlet: Outlet<WorkSlot, WorkObservation>,
    generations: GenerationBook,
    identity: Option<IdentityState>,
    task: Option<TaskReads>,
    goal: Option<GoalReads>,
}

fn confirmed_workspace(identity: Option<&IdentityState>) -> Option<WorkspaceId> {
    match identity {
        Some(IdentityState::Confirmed { scope, .. }) => Some(scope.workspace.clone()),
        _ => None,
    }
}

impl WorkDetailState {
    fn new_owner(&self, myself: &Myself<Self>) -> Owner {
        ReadOwner::new(self.outlet.clone(), myself.clone(), self.client.clone())
    }

    fn open_task(&mut self, myself: &Myself<Self>, task_id: String, page_rows: u32) {
        self.close_task("closed");
        let page_rows = page_demand(page_rows as usize);
        let mut owner = self.new_owner(myself);
        let body_key = WorkSlot::TaskBody(task_id.clone());
        let history_key = WorkSlot::TaskHistory(task_id.clone());
        owner.add_slot(task_body_slot(
            &task_id,
            self.generations.counter(&body_key),
        ));
        let chain = Arc::new(HistoryChain::fresh(task_id.clone()));
        if let Some(first) = chain.next_request(page_rows) {
            owner.add_slot(task_history_slot(
                chain.clone(),
                first,
                self.generations.counter(&history_key),
            ));
        }
        if let Some(identity) = &self.identity {
            owner.identity(identity);
        }
        owner.demand(&body_key, DemandKind::Explicit);
        owner.demand(&history_key, DemandKind::Explicit);
        self.task = Some(TaskReads {
            task_id,
            owner,
            chain,
            page_rows,
            opened_in: confirmed_workspace(self.identity.as_ref()),
            withdrawn: false,
            legacy: None,
            more_older: None,
        });
    }

    fn close_task(&mut self, reason: &str) {
        if let Some(mut task) = self.task.take() {
            task.owner.retire_all(reason);
            task.drop_legacy(reason);
        }
    }

    /// The first page of a fresh prefix was not served: the legacy recent events of the task
    /// are read in their own owner (never mixed into the page chain, A-4).
    fn read_legacy(&mut self, myself: &Myself<Self>) {
        let Some(task) = self.task.as_ref() else {
            return;
        };
        let (task_id, rows, key) = (task.task_id.clone(), task.page_rows, task.legacy_key());
        if task.legacy.is_none() {
            let mut owner = self.new_owner(myself);
            owner.add_slot(legacy_slot(&task_id, rows, self.generations.counter(&key)));
            if let Some(identity) = &self.identity {
                owner.identity(identity);
            }
            if let Some(task) = self.task.as_mut() {
                task.legacy = Some(owner);
            }
        }
        if let Some(owner) = self.task.as_mut().and_then(|t| t.legacy.as_mut()) {
            // The current page demand is the legacy `limit`.
            owner.set_reader(&key, legacy_reader(task_id, rows));
            owner.demand(&key, DemandKind::Explicit);
        }
    }

    fn open_goal(&mut self, myself: &Myself<Self>, goal_id: String) {
        self.close_goal("closed");
        let mut owner = self.new_owner(myself);
        let key = WorkSlot::GoalTimeline(goal_id.clone());
        owner.add_slot(goal_timeline_slot(&goal_id, self.generations.counter(&key)));
        if let Some(identity) = &self.identity {
            owner.identity(identity);
        }
        owner.demand(&key, DemandKind::Explicit);
        self.goal = Some(GoalReads {
            goal_id,
            owner,
            opened_in: confirmed_workspace(self.identity.as_ref()),
            withdrawn: false,
        });
    }

    fn close_goal(&mut self, reason: &str) {
        if let Some(mut goal) = self.goal.take() {
            goal.owner.retire_all(reason);
        }
    }

    /// `H`: the next older page of the admitted prefix (the same cursor after a failure).
    fn older_history(&mut self, page_rows: u32) {
        let Some(task) = self.task.as_mut() else {
            return;
        };
        if task.legacy.is_some() {
            // The page route is not served: the legacy array has no older pages.
            return;
        }
        let key = task.history_key();
        if task
            .owner
            .snapshot(&key)
            .is_some_and(|s| s.in_flight.is_some())
        {
            // The page in flight is the one `H` asks for: share it.
            return;
        }
        task.page_rows = page_demand(page_rows as usize);
        let Some(request) = task.chain.next_request(task.page_rows) else {
            // End of the observed stored prefix: nothing older to ask for.
            return;
        };
        task.owner
            .set_reader(&key, page_reader(task.chain.clone(), request));
        task.owner.demand(&key, DemandKind::Explicit);
    }

    /// `r` in the task detail: both original reads are replaced; the history restarts as
    /// a fresh prefix. The admitted prefix stays until the fresh page is admitted.
    fn refresh_task(&mut self, page_rows: Option<u32>) {
        let Some(task) = self.task.as_mut() else {
            return;
        };
        task.more_older = None;
        if let Some(rows) = page_rows {
            task.page_rows = page_demand(rows as usize);
        }
        let body_key = task.body_key();
        task.owner.demand(&body_key, DemandKind::Explicit);
        start_fresh_prefix(task);
        let history_key = task.history_key();
        task.owner.demand(&history_key, DemandKind::Explicit);
    }

    fn refresh_goal(&mut self) {
        if let Some(goal) = self.goal.as_mut() {
            let key = goal.key();
            goal.owner.demand(&key, DemandKind::Explicit);
        }
    }

    /// The cadence: body and goal timeline re-read (sharing a read in flight); the history
    /// prefix being read is never reset by a poll.
    fn poll(&mut self) {
        if let Some(task) = self.task.as_mut() {
            let key = task.body_key();
            task.owner.demand(&key, DemandKind::Cadence);
        }
        if let Some(goal) = self.goal.as_mut() {
            let key = goal.key();
            goal.owner.demand(&key, DemandKind::Cadence);
        }
    }

    fn follow_identity(&mut self, identity: IdentityState) {
        let workspace = confirmed_workspace(Some(&identity));
        if let Some(task) = self.task.as_mut() {
            if task.owner.authority() != identity.authority().as_ref() {
                // The next first page decides again whether the legacy read is chosen.
                task.drop_legacy("epoch_changed");
            }
            task.owner.identity(&identity);
            match &workspace {
                None => {
                    // both values and their pending owners go together; the prefix is
                    // dropped so nothing continues a withdrawn chain.
                    task.withdrawn = true;
                    start_fresh_prefix(task);
                }
                Some(ws) => {
                    let same = task.opened_in.as_ref().is_none_or(|w| w == ws);
                    if same && task.withdrawn {
                        let (body, history) = (task.body_key(), task.history_key());
                        task.owner.demand(&body, DemandKind::Cadence);
                        task.owner.demand(&history, DemandKind::Cadence);
                    }
                    if same {
                        task.opened_in = Some(ws.clone());
                        task.withdrawn = false;
                    }
                }
            }
        }
        if let Some(goal) = self.goal.as_mut() {
            goal.owner.identity(&identity);
            match &workspace {
                None => goal.withdrawn = true,
                Some(ws) => {
                    let same = goal.opened_in.as_ref().is_none_or(|w| w == ws);
                    if same && goal.withdrawn {
                        let key = goal.key();
                        goal.owner.demand(&key, DemandKind::Cadence);
                    }
                    if same {
                        goal.opened_in = Some(ws.clone());
                        goal.withdrawn = false;
                    }
                }
            }
        }
        self.identity = Some(identity);
    }

    /// `H` with a count, `End`: the first older page now, the rest as each is admitted.
    fn read_older(&mut self, page_rows: u32, pages: OlderPages) {
        let Some(task) = self.task.as_mut() else {
            return;
        };
        task.more_older = pages.after_one();
        self.older_history(page_rows);
    }

    /// A page of the run was admitted: the next one, while the run has pages left and the
    /// chain an older cursor. A page that was not admitted ends the run (A-3: `H` retries).
    fn continue_older(&mut self, admitted: bool) {
        let Some(task) = self.task.as_mut() else {
            return;
        };
        let Some(pages) = task.more_older.take() else {
            return;
        };
        if !admitted {
            return;
        }
        task.more_older = pages.after_one();
        let rows = task.page_rows;
        self.older_history(rows);
    }

    /// A worker returned: to the owner of its key, or stale when that object was closed.
    fn worker_returned(
        &mut self,
        myself: &Myself<Self>,
        ret: WorkerReturn<WorkSlot, WorkObservation>,
    ) -> bool {
        let source = ret.ticket.slot.clone();
        match &source {
            WorkSlot::TaskHistoryLegacy(id)
                if self.task.as_ref().is_some_and(|t| &t.task_id == id) =>
            {
                match self.task.as_mut().and_then(|t| t.legacy.as_mut()) {
                    Some(owner) => {
                        owner.worker_returned(ret);
                    }
                    None => ret.reject_late(),
                }
                false
            }
            WorkSlot::TaskBody(id) | WorkSlot::TaskHistory(id)
                if self.task.as_ref().is_some_and(|t| &t.task_id == id) =>
            {
                let Some(task) = self.task.as_mut() else {
                    return false;
                };
                let admitted_chain = match &ret.result {
                    Ok(WorkObservation::TaskHistory(read)) => {
                        read.result.as_ref().ok().map(|a| a.value.clone())
                    }
                    _ => None,
                };
                // Only a fresh prefix's first page that this MASC does not serve
                // chooses the legacy read; any other page result keeps the page route.
                let page_served = match &ret.result {
                    Ok(WorkObservation::TaskHistory(read)) => Some(!matches!(
                        (&read.result, read.base.pages_read()),
                        (Err(ClientError::NotServed { .. }), 0)
                    )),
                    _ => None,
                };
                let outcome = task.owner.worker_returned(ret);
                let forwarded = matches!(outcome, ReturnOutcome::Forwarded { .. });
                let admitted = forwarded && admitted_chain.is_some();
                if let (ReturnOutcome::Forwarded { .. }, Some(chain)) = (&outcome, admitted_chain) {
                    task.chain = chain;
                }
                match page_served {
                    Some(true) if forwarded => task.drop_legacy("page_route_served"),
                    Some(false) if forwarded => self.read_legacy(myself),
                    _ => {}
                }
                if matches!(source, WorkSlot::TaskHistory(_)) && forwarded {
                    self.continue_older(admitted);
                }
                matches!(source, WorkSlot::TaskBody(_)) && outcome.completed()
            }
            WorkSlot::GoalTimeline(id) if self.goal.as_ref().is_some_and(|g| &g.goal_id == id) => {
                self.goal
                    .as_mut()
                    .is_some_and(|g| g.owner.worker_returned(ret).completed())
            }
            _ => {
                // Its object was closed (or re-opened under a new owner): never forwarded.
                ret.reject_late();
                false
            }
        }
    }

    fn retire_everything(&mut self, reason: &str) {
        if let Some(task) = self.task.as_mut() {
            task.owner.retire_all(reason);
            task.drop_legacy(reason);
        }
        if let Some(goal) = self.goal.as_mut() {
            goal.owner.retire_all(reason);
        }
    }
}

/// Points the history slot at the first page of a fresh prefix. The admitted prefix stays the
/// one `H` continues until the fresh page is forwarded.
fn start_fresh_prefix(task: &mut TaskReads) {
    let fresh = Arc::new(HistoryChain::fresh(task.task_id.clone()));
    if let Some(first) = fresh.next_request(task.page_rows) {
        let key = task.history_key();
        task.owner.set_reader(&key, page_reader(fresh, first));
    }
}

impl SourceState for WorkDetailState {
    type Slot = WorkSlot;
    type Payload = WorkObservation;
    type Command = WorkCommand;
    type Args = Duration;

    fn start(ctx: SourceContext, _myself: &Myself<Self>, _cadence: Duration) -> Self {
        WorkDetailState {
            outlet: ctx.outlet::<WorkSlot, WorkObservation>(),
            client: ctx.client,
            generations: ctx.generations,
            identity: None,
            task: None,
            goal: None,
        }
    }

    fn command(&mut self, ctl: &mut Ctl<Self>, command: WorkCommand) {
        match command {
            WorkCommand::OpenTask { task_id, page_rows } => {
                self.open_task(&ctl.myself, task_id, page_rows);
                ctl.reschedule();
            }
            WorkCommand::OlderHistory { page_rows } => self.older_history(page_rows),
            WorkCommand::ReadOlder { page_rows, pages } => self.read_older(page_rows, pages),
            WorkCommand::RefreshTask { page_rows } => self.refresh_task(Some(page_rows)),
            WorkCommand::CloseTask => self.close_task("closed"),
            WorkCommand::OpenGoal { goal_id } => {
                self.open_goal(&ctl.myself, goal_id);
                ctl.reschedule();
            }
            WorkCommand::RefreshGoal => self.refresh_goal(),
            WorkCommand::CloseGoal => self.close_goal("closed"),
        }
    }

    fn demand(&mut self, _ctl: &mut Ctl<Self>, kind: DemandKind) {
        match kind {
            DemandKind::Cadence => self.poll(),
            DemandKind::Explicit => {
                self.refresh_task(None);
                self.refresh_goal();
            }
        }
    }

    fn identity(&mut self, ctl: &mut Ctl<Self>, identity: IdentityState) {
        let withdrawn = confirmed_workspace(Some(&identity)).is_none();
        self.follow_identity(identity);
        if withdrawn {
            ctl.cancel_cadence();
        }
    }

    fn returned(
        &mut self,
        ctl: &mut Ctl<Self>,
        ret: WorkerReturn<WorkSlot, WorkObservation>,
    ) -> bool {
        self.worker_returned(&ctl.myself, ret)
    }

    fn stop(&mut self, reason: &str) {
        self.retire_everything(reason);
    }
}

impl OwnKey for WorkDetailState {
    const KEY: SourceKey = WORK_DETAIL;
}

/// Spawns the Work detail source under the supervisor.
pub type WorkDetailSpawner = Every<WorkDetailState>;
