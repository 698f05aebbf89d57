//! [`InspectorSource`]: the actor owning the §14.11 readers.
//!
//! - One read per slot (a Keeper's records page, one turn's provider input); a second request
//!   for a slot in flight shares it; a request after it ended reads again (an explicit
//!   re-read: the view keeps the last observation while it runs, G-4). A records request
//!   wider than the page in flight supersedes it (MASC has no cursor on this route: an older
//!   pinned turn is reached by a wider `limit`): the narrower read is cancel-requested and
//!   retired (`superseded`), and its result, should it still arrive, is rejected
//!   (`late_after_retire`) — never forwarded over the wider one.
//! - Identity: withdrawal or a new epoch aborts every worker and retires its ticket. Nothing is
//!   read without a confirmed epoch.
//! - Workers decode off the actor and hand their result back (a cast: a worker never waits); a
//!   result is forwarded to the surface's inbox only while its ticket still owns the slot
//!   (G-7), so a late worker never touches a newer read (K-15).

use super::{InspectorCommand, InspectorObservation, InspectorSlot, TURN_INSPECTOR};
use crate::actors::contract::{
    IdentityState, Outlet, Payload, SlotKey, SourceContext, SourceControl, SourceHandle, SourceKey,
    SourceSpawner, Ticket,
};
use crate::actors::read::{Running, epoch_change};
use crate::protocol::admission::ReadAuthority;
use crate::protocol::inspector::turn_records::clamp_limit;
use crate::protocol::inspector::{
    ProviderInput, TurnRecordsPage, provider_input_target, turn_records_target,
};
use crate::timeline::stage;
use futures::FutureExt;
use futures::future::BoxFuture;
use ractor::{Actor, ActorCell, ActorProcessingErr, ActorRef, SpawnErr};
use std::collections::HashMap;
use std::panic::AssertUnwindSafe;

/// The source's mailbox.
#[derive(Debug)]
pub enum InspectorMsg {
    Control(SourceControl),
    Command(InspectorCommand),
    /// A worker's result (forwarded only while its ticket owns the slot).
    Done {
        ticket: Ticket<InspectorSlot>,
        observation: InspectorObservation,
    },
    /// A worker ended without a result (it panicked): its ticket is retired.
    Gone(Ticket<InspectorSlot>),
}

crate::source_message!(InspectorMsg, command: InspectorCommand);

pub struct InspectorState {
    ctx: SourceContext,
    outlet: Outlet<InspectorSlot, InspectorObservation>,
    authority: Option<ReadAuthority>,
    /// The read in flight per slot, with its records `limit` (an input read's is 0).
    running: HashMap<InspectorSlot, (Running<InspectorSlot>, u32)>,
}

impl InspectorState {
    fn identity(&mut self, identity: IdentityState) {
        let next = identity.authority();
        if let Some(reason) = epoch_change(self.authority.as_ref(), next.as_ref()) {
            for (_, (running, _)) in std::mem::take(&mut self.running) {
                running.cancel(&self.outlet, reason);
            }
        }
        self.authority = next;
    }

    fn read(&mut self, myself: &ActorRef<InspectorMsg>, slot: InspectorSlot, limit: u32) {
        let Some(auth) = self.authority.clone() else {
            stage::refused(&slot.trace_name(), "no_epoch");
            return;
        };
        if self
            .running
            .get(&slot)
            .is_some_and(|(_, in_flight)| *in_flight >= limit)
        {
            // A read of the same slot at least as wide is in flight: it answers this request
            // too (the newest `limit` rows are within any wider page).
            return;
        }
        if let Some((running, _)) = self.running.remove(&slot) {
            // A wider page is asked for: the narrower read is superseded (its late result is
            // rejected in `done`, never forwarded over the wider one).
            running.cancel(&self.outlet, "superseded");
        }
        let ticket = Ticket {
            generation: self.ctx.generations.counter(&slot).next(),
            slot: slot.clone(),
            scope: auth.scope.clone(),
        };
        stage::dispatch(&ticket);
        self.outlet.dispatched(ticket.clone());
        let (to, t, client) = (myself.clone(), ticket.clone(), self.ctx.client.clone());
        let worker = Running::spawn(ticket, async move {
            stage::worker_enter(&t);
            let read = async {
                match &t.slot {
                    InspectorSlot::Records(keeper) => {
                        let path = turn_records_target(keeper, limit);
                        let k = keeper.clone();
                        InspectorObservation::Records(
                            client
                                .get_with(&auth, &path, move |body: &[u8]| {
                                    TurnRecordsPage::decode_with_limit(body, &k, limit)
                                })
                                .await,
                        )
                    }
                    InspectorSlot::Input(target) => {
                        let path = provider_input_target(&target.keeper, &target.turn_ref);
                        let (k, r) = (target.keeper.clone(), target.turn_ref.clone());
                        InspectorObservation::Input(
                            client
                                .get_with(&auth, &path, move |body: &[u8]| {
                                    ProviderInput::decode_for(body, &k, &r)
                                })
                                .await,
                        )
                    }
                }
            };
            match AssertUnwindSafe(read).catch_unwind().await {
                Ok(observation) => {
                    stage::worker_return(&t, &observation.outcome());
                    let _ = to.cast(InspectorMsg::Done {
                        ticket: t,
                        observation,
                    });
                }
                Err(_) => {
                    stage::worker_return(&t, "worker_panicked");
                    let _ = to.cast(InspectorMsg::Gone(t));
                }
            }
        });
        self.running.insert(slot, (worker, limit));
    }

    fn owns(&self, ticket: &Ticket<InspectorSlot>) -> bool {
        self.running
            .get(&ticket.slot)
            .is_some_and(|(r, _)| r.ticket == *ticket)
    }

    fn done(&mut self, ticket: Ticket<InspectorSlot>, observation: InspectorObservation) {
        stage::observe(&ticket, &observation.outcome());
        if !self.owns(&ticket) {
            // Superseded or withdrawn meanwhile (G-7): never forwarded.
            stage::reject(&ticket, "late_after_retire");
            return;
        }
        self.outlet.observed(ticket.clone(), observation);
        self.finished(&ticket);
    }

    fn gone(&mut self, ticket: Ticket<InspectorSlot>) {
        if self.owns(&ticket) {
            stage::retire(&ticket, "worker_panicked");
            self.outlet.retired(ticket.clone());
            self.finished(&ticket);
        }
    }

    /// Forgets a finished worker (it ended by itself: nothing to abort).
    fn finished(&mut self, ticket: &Ticket<InspectorSlot>) {
        if let Some((running, _)) = self.running.remove(&ticket.slot) {
            running.finished();
        }
    }
}

pub struct InspectorSource;

impl Actor for InspectorSource {
    type Msg = InspectorMsg;
    type State = InspectorState;
    type Arguments = SourceContext;

    async fn pre_start(
        &self,
        _myself: ActorRef<InspectorMsg>,
        ctx: SourceContext,
    ) -> Result<InspectorState, ActorProcessingErr> {
        Ok(InspectorState {
            outlet: ctx.outlet(),
            ctx,
            authority: None,
            running: HashMap::new(),
        })
    }

    async fn handle(
        &self,
        myself: ActorRef<InspectorMsg>,
        msg: InspectorMsg,
        state: &mut InspectorState,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            InspectorMsg::Control(SourceControl::Identity(identity)) => state.identity(identity),
            // Nothing is read on a cadence or on visibility: reads start from commands only
            // (K-17: tab entry and scrolling issue no HTTP).
            InspectorMsg::Control(SourceControl::Demand(_) | SourceControl::Visible(_)) => {}
            InspectorMsg::Control(SourceControl::InjectPanic) => {
                crate::actors::read::drill::inject_panic(state.ctx.fault_drills, TURN_INSPECTOR);
            }
            InspectorMsg::Command(InspectorCommand::Records { keeper, limit }) => {
                state.read(&myself, InspectorSlot::Records(keeper), clamp_limit(limit))
            }
            InspectorMsg::Command(InspectorCommand::Input(target)) => {
                state.read(&myself, InspectorSlot::Input(target), 0)
            }
            InspectorMsg::Done {
                ticket,
                observation,
            } => state.done(ticket, observation),
            InspectorMsg::Gone(ticket) => state.gone(ticket),
        }
        Ok(())
    }
}

/// Spawns the turn-inspector source under the supervisor.
#[derive(Debug, Clone, Default)]
pub struct InspectorSpawner;

impl SourceSpawner for InspectorSpawner {
    fn key(&self) -> SourceKey {
        TURN_INSPECTOR
    }

    fn spawn(
        &self,
        ctx: SourceContext,
        supervisor: ActorCell,
    ) -> BoxFuture<'static, Result<SourceHandle, SpawnErr>> {
        crate::actors::read::spawn_source_with::<InspectorSource, InspectorCommand>(
            InspectorSource,
            ctx,
            supervisor,
        )
    }
}
