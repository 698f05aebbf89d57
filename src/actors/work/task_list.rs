//! The Task list source: `GET /api/v1/dashboard/tasks` (protocol.md §5.1), and its fallback
//! where this MASC does not serve that route.
//!
//! - One standing slot, `WorkSlot::TaskList`; cadence shares, explicit supersedes (G-3). The
//!   per-part read states (backlog, archive, goal links) travel inside the typed list and are
//!   shown on the coverage line: an unavailable part never reads as "no tasks".
//! - Only when a task list read comes back `not_served` (`ClientError::NotServed`, MASC's
//!   unknown-route 404; never on any other failure) does the source read the goal-linked tasks
//!   ([`goal_linked`](super::goal_linked), `WorkSlot::GoalLinkedTasks`), in an owner of their
//!   own that exists only while the list route is known not served: a served answer (any
//!   other result) retires it, and so does every identity change (the next list read decides
//!   again). A list route known not served is answered by the client's capability table
//!   without a request, so each cadence costs one GET of the goals tree.

use super::goal_linked::goal_linked_slot;
use super::{TASK_LIST, WorkObservation, WorkSlot};
use crate::actors::contract::{
    DemandKind, GenerationBook, IdentityState, Outlet, SourceContext, SourceKey,
};
use crate::actors::read::shell::{Ctl, Every, Myself, OwnKey, SourceState};
use crate::actors::read::{
    ExplicitPolicy, NoCommands, ReadOwner, ReturnOutcome, SlotSpec, WorkerReturn, reader,
};
use crate::protocol::client::{ClientError, WorkspaceClient};
use crate::protocol::tasks::TaskList;
use std::time::Duration;

pub const TASK_LIST_PATH: &str = "/api/v1/dashboard/tasks";

type Owner = ReadOwner<WorkSlot, WorkObservation, Myself<TaskListState>>;

pub fn task_list_reader() -> crate::actors::read::Reader<WorkObservation> {
    reader(|auth, client| async move {
        WorkObservation::TaskList(client.get::<TaskList>(&auth, TASK_LIST_PATH).await)
    })
}

pub fn task_list_slot(generations: &GenerationBook) -> SlotSpec<WorkSlot, WorkObservation> {
    SlotSpec {
        key: WorkSlot::TaskList,
        explicit: ExplicitPolicy::Supersede,
        standing: true,
        generations: generations.counter(&WorkSlot::TaskList),
        reader: task_list_reader(),
    }
}

pub struct TaskListState {
    client: WorkspaceClient,
    outlet: Outlet<WorkSlot, WorkObservation>,
    generations: GenerationBook,
    identity: Option<IdentityState>,
    list: Owner,
    /// The goal-linked tasks' owner: only while the list route is known not served.
    fallback: Option<Owner>,
    /// An explicit demand (`r`) is answered by the list read in flight: a fallback read it
    /// leads to is explicit too (supersedes the one in flight).
    explicit_pending: bool,
}

impl TaskListState {
    /// The list route was not served: the goal-linked tasks are read (sharing a read in flight
    /// on a cadence, superseding it on `r`).
    fn read_fallback(&mut self, myself: &Myself<Self>, kind: DemandKind) {
        let owner = self.fallback.get_or_insert_with(|| {
            let mut owner =
                ReadOwner::new(self.outlet.clone(), myself.clone(), self.client.clone());
            owner.add_slot(goal_linked_slot(
                self.generations.counter(&WorkSlot::GoalLinkedTasks),
            ));
            if let Some(identity) = &self.identity {
                owner.identity(identity);
            }
            owner
        });
        owner.demand(&WorkSlot::GoalLinkedTasks, kind);
    }

    /// The list route is served after all, or the authority changed: the fallback is not
    /// chosen any more; its read in flight is retired.
    fn drop_fallback(&mut self, reason: &str) {
        if let Some(mut owner) = self.fallback.take() {
            owner.retire_all(reason);
        }
    }

    fn worker_returned(
        &mut self,
        myself: &Myself<Self>,
        ret: WorkerReturn<WorkSlot, WorkObservation>,
    ) -> bool {
        match ret.ticket.slot {
            WorkSlot::TaskList => {
                let not_served = matches!(
                    &ret.result,
                    Ok(WorkObservation::TaskList(Err(
                        ClientError::NotServed { .. }
                    )))
                );
                let outcome = self.list.worker_returned(ret);
                if let ReturnOutcome::Forwarded { .. } = outcome {
                    let kind = if std::mem::take(&mut self.explicit_pending) {
                        DemandKind::Explicit
                    } else {
                        DemandKind::Cadence
                    };
                    if not_served {
                        self.read_fallback(myself, kind);
                    } else {
                        self.drop_fallback("list_route_served");
                    }
                }
                outcome.completed()
            }
            WorkSlot::GoalLinkedTasks => match self.fallback.as_mut() {
                Some(owner) => owner.worker_returned(ret).completed(),
                None => {
                    ret.reject_late();
                    false
                }
            },
            _ => {
                ret.reject_late();
                false
            }
        }
    }
}

impl SourceState for TaskListState {
    type Slot = WorkSlot;
    type Payload = WorkObservation;
    type Command = NoCommands;
    type Args = Duration;

    fn start(ctx: SourceContext, myself: &Myself<Self>, _cadence: Duration) -> Self {
        let outlet = ctx.outlet::<WorkSlot, WorkObservation>();
        let mut list = ReadOwner::new(outlet.clone(), myself.clone(), ctx.client.clone());
        list.add_slot(task_list_slot(&ctx.generations));
        TaskListState {
            client: ctx.client,
            outlet,
            generations: ctx.generations,
            identity: None,
            list,
            fallback: None,
            explicit_pending: false,
        }
    }

    fn command(&mut self, _ctl: &mut Ctl<Self>, never: NoCommands) {
        match never {}
    }

    /// The list is the demanded read; the fallback follows a `not_served` list read.
    fn demand(&mut self, _ctl: &mut Ctl<Self>, kind: DemandKind) {
        self.explicit_pending |= kind == DemandKind::Explicit;
        self.list.demand(&WorkSlot::TaskList, kind);
    }

    fn identity(&mut self, ctl: &mut Ctl<Self>, identity: IdentityState) {
        let changed = self.list.authority() != identity.authority().as_ref();
        self.list.identity(&identity);
        if changed {
            // The next list read decides again whether the fallback is chosen.
            self.drop_fallback("epoch_changed");
            self.explicit_pending = false;
        }
        if self.list.authority().is_none() {
            ctl.cancel_cadence();
        }
        self.identity = Some(identity);
    }

    /// Routes a worker's return; `true` when a read completed (the cadence re-arms).
    fn returned(
        &mut self,
        ctl: &mut Ctl<Self>,
        ret: WorkerReturn<WorkSlot, WorkObservation>,
    ) -> bool {
        self.worker_returned(&ctl.myself, ret)
    }

    fn stop(&mut self, reason: &str) {
        self.list.retire_all(reason);
        self.drop_fallback(reason);
    }
}

impl OwnKey for TaskListState {
    const KEY: SourceKey = TASK_LIST;
}

/// Spawns the Task list source under the supervisor.
pub type TaskListSpawner = Every<TaskListState>;
