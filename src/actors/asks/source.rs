//! [`AsksSource`]: the actor owning the follow-up stream worker and the transcript readers.
//!
//! - One follow-up read at a time: a `Follow` for any answer cancels the worker in flight and
//!   retires its ticket (K-13: a new answer cancels the worker), then dispatches a new
//!   generation. A `Follow` for another workspace than the confirmed one is refused (K-5).
//! - One transcript read per pinned turn; a second request for the same turn shares it.
//! - Identity: withdrawal or a new epoch aborts every worker and retires its ticket (K-13:
//!   authority withdrawal cancels the worker). Nothing is read without a confirmed epoch.
//! - Workers hand their steps to this actor (a cast: a worker never waits); a step is
//!   forwarded to the surface's inbox only while its ticket still owns the slot (G-7), so a
//!   late worker never touches a newer read.

use super::follow_up::read_follow_up;
use super::{
    ASKS, AsksCommand, AsksObservation, AsksSlot, FollowUpFailure, FollowUpStep, TurnTarget,
};
use crate::actors::contract::{
    IdentityState, Outlet, Payload, SlotKey, SourceContext, SourceControl, SourceHandle, SourceKey,
    SourceSpawner, Ticket,
};
use crate::actors::read::{Running, epoch_change};
use crate::protocol::admission::ReadAuthority;
use crate::protocol::client::{QueryString, path_segment};
use crate::protocol::transcript::TurnTranscript;
use crate::timeline::stage;
use futures::FutureExt;
use futures::future::BoxFuture;
use ractor::{Actor, ActorCell, ActorProcessingErr, ActorRef, SpawnErr};
use std::collections::HashMap;
use std::panic::AssertUnwindSafe;

/// The request target of a pinned turn's v2 transcript (§10.4).
pub fn transcript_target(target: &TurnTarget) -> String {
    QueryString::new()
        .pair("turn_ref", &target.turn_ref)
        .pair("version", "2")
        .append_to(&format!(
            "/api/v1/keepers/{}/turn-transcript",
            path_segment(&target.keeper)
        ))
}

/// The source's mailbox.
#[derive(Debug)]
pub enum AsksMsg {
    Control(SourceControl),
    Command(AsksCommand),
    /// A worker's step (forwarded only while its ticket owns the slot).
    Step {
        ticket: Ticket<AsksSlot>,
        observation: AsksObservation,
        last: bool,
    },
    /// A worker ended without a result (it panicked): its ticket is retired.
    Gone(Ticket<AsksSlot>),
}

crate::source_message!(AsksMsg, command: AsksCommand);

pub struct AsksState {
    ctx: SourceContext,
    outlet: Outlet<AsksSlot, AsksObservation>,
    authority: Option<ReadAuthority>,
    /// The one follow-up read in flight.
    follow: Option<Running<AsksSlot>>,
    /// Transcript reads in flight, per pinned turn.
    transcripts: HashMap<TurnTarget, Running<AsksSlot>>,
}

impl AsksState {
    fn ticket(&self, slot: AsksSlot, auth: &ReadAuthority) -> Ticket<AsksSlot> {
        Ticket {
            generation: self.ctx.generations.counter(&slot).next(),
            slot,
            scope: auth.scope.clone(),
        }
    }

    fn identity(&mut self, identity: IdentityState) {
        let next = identity.authority();
        if let Some(reason) = epoch_change(self.authority.as_ref(), next.as_ref()) {
            if let Some(running) = self.follow.take() {
                running.cancel(&self.outlet, reason);
            }
            for (_, running) in std::mem::take(&mut self.transcripts) {
                running.cancel(&self.outlet, reason);
            }
        }
        self.authority = next;
    }

    fn follow(&mut self, myself: &ActorRef<AsksMsg>, ask: super::AskRef, workspace: String) {
        let slot = AsksSlot::FollowUp(ask.clone());
        let Some(auth) = self.authority.clone() else {
            stage::refused(&slot.trace_name(), "no_epoch");
            return;
        };
        if auth.scope.workspace.0 != workspace {
            // K-5: the answer's workspace is not the confirmed one; never back-filled.
            stage::refused(&slot.trace_name(), "other_workspace");
            return;
        }
        if let Some(running) = self.follow.take() {
            running.cancel(&self.outlet, "new_answer");
        }
        let ticket = self.ticket(slot, &auth);
        stage::dispatch(&ticket);
        self.outlet.dispatched(ticket.clone());
        let (to, t, client) = (myself.clone(), ticket.clone(), self.ctx.client.clone());
        let worker = Running::spawn(ticket, async move {
            stage::worker_enter(&t);
            let steps = (to.clone(), t.clone());
            let read = read_follow_up(client, auth, ask, move |step| {
                let last = step.is_last();
                if last {
                    stage::worker_return(
                        &steps.1,
                        &AsksObservation::FollowUp(step.clone()).outcome(),
                    );
                }
                let _ = steps.0.cast(AsksMsg::Step {
                    ticket: steps.1.clone(),
                    observation: AsksObservation::FollowUp(step),
                    last,
                });
            });
            if AssertUnwindSafe(read).catch_unwind().await.is_err() {
                stage::worker_return(&t, "worker_panicked");
                let _ = to.cast(AsksMsg::Step {
                    ticket: t,
                    observation: AsksObservation::FollowUp(FollowUpStep::Failed(
                        FollowUpFailure::Panicked,
                    )),
                    last: true,
                });
            }
        });
        self.follow = Some(worker);
    }

    fn transcript(&mut self, myself: &ActorRef<AsksMsg>, target: TurnTarget) {
        let slot = AsksSlot::Transcript(target.clone());
        let Some(auth) = self.authority.clone() else {
            stage::refused(&slot.trace_name(), "no_epoch");
            return;
        };
        if self.transcripts.contains_key(&target) {
            // A read of the same turn is in flight: it answers this request too.
            return;
        }
        let ticket = self.ticket(slot, &auth);
        stage::dispatch(&ticket);
        self.outlet.dispatched(ticket.clone());
        let (to, t, client) = (myself.clone(), ticket.clone(), self.ctx.client.clone());
        let asked = target.clone();
        let worker = Running::spawn(ticket, async move {
            stage::worker_enter(&t);
            let path = transcript_target(&asked);
            let read = async {
                let (keeper, turn_ref) = (asked.keeper.clone(), asked.turn_ref.clone());
                client
                    .get_with(&auth, &path, move |body: &[u8]| {
                        TurnTranscript::decode_for(body, &keeper, &turn_ref)
                    })
                    .await
            };
            match AssertUnwindSafe(read).catch_unwind().await {
                Ok(result) => {
                    let observation = AsksObservation::Transcript(result);
                    stage::worker_return(&t, &observation.outcome());
                    let _ = to.cast(AsksMsg::Step {
                        ticket: t,
                        observation,
                        last: true,
                    });
                }
                Err(_) => {
                    stage::worker_return(&t, "worker_panicked");
                    let _ = to.cast(AsksMsg::Gone(t));
                }
            }
        });
        self.transcripts.insert(target, worker);
    }

    /// Whether `ticket` owns its slot's worker.
    fn owns(&self, ticket: &Ticket<AsksSlot>) -> bool {
        match &ticket.slot {
            AsksSlot::FollowUp(_) => self.follow.as_ref().is_some_and(|r| r.ticket == *ticket),
            AsksSlot::Transcript(target) => self
                .transcripts
                .get(target)
                .is_some_and(|r| r.ticket == *ticket),
        }
    }

    /// Forgets a finished worker (it ended by itself: nothing to abort).
    fn finished(&mut self, ticket: &Ticket<AsksSlot>) {
        let running = match &ticket.slot {
            AsksSlot::FollowUp(_) => self.follow.take(),
            AsksSlot::Transcript(target) => self.transcripts.remove(target),
        };
        if let Some(running) = running {
            running.finished();
        }
    }

    fn step(&mut self, ticket: Ticket<AsksSlot>, observation: AsksObservation, last: bool) {
        let outcome = observation.outcome();
        stage::observe(&ticket, &outcome);
        if !self.owns(&ticket) {
            // Superseded or withdrawn meanwhile (G-7): never forwarded.
            stage::reject(&ticket, "late_after_retire");
            return;
        }
        self.outlet.observed(ticket.clone(), observation);
        if last {
            self.finished(&ticket);
        }
    }

    fn gone(&mut self, ticket: Ticket<AsksSlot>) {
        if self.owns(&ticket) {
            stage::retire(&ticket, "worker_panicked");
            self.outlet.retired(ticket.clone());
            self.finished(&ticket);
        }
    }
}

pub struct AsksSource;

impl Actor for AsksSource {
    type Msg = AsksMsg;
    type State = AsksState;
    type Arguments = SourceContext;

    async fn pre_start(
        &self,
        _myself: ActorRef<AsksMsg>,
        ctx: SourceContext,
    ) -> Result<AsksState, ActorProcessingErr> {
        Ok(AsksState {
            outlet: ctx.outlet(),
            ctx,
            authority: None,
            follow: None,
            transcripts: HashMap::new(),
        })
    }

    async fn handle(
        &self,
        myself: ActorRef<AsksMsg>,
        msg: AsksMsg,
        state: &mut AsksState,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            AsksMsg::Control(SourceControl::Identity(identity)) => state.identity(identity),
            // Nothing is read on a cadence: reads start from the view's commands only.
            AsksMsg::Control(SourceControl::Demand(_)) => {}
            // No cadence: visibility changes nothing.
            AsksMsg::Control(SourceControl::Visible(_)) => {}
            AsksMsg::Control(SourceControl::InjectPanic) => {
                crate::actors::read::drill::inject_panic(state.ctx.fault_drills, ASKS);
            }
            AsksMsg::Command(AsksCommand::Follow { ask, workspace }) => {
                state.follow(&myself, ask, workspace)
            }
            AsksMsg::Command(AsksCommand::Transcript(target)) => state.transcript(&myself, target),
            AsksMsg::Step {
                ticket,
                observation,
                last,
            } => state.step(ticket, observation, last),
            AsksMsg::Gone(ticket) => state.gone(ticket),
        }
        Ok(())
    }
}

/// Spawns the Asks source under the supervisor.
#[derive(Debug, Clone, Default)]
pub struct AsksSpawner;

impl SourceSpawner for AsksSpawner {
    fn key(&self) -> SourceKey {
        ASKS
    }

    fn spawn(
        &self,
        ctx: SourceContext,
        supervisor: ActorCell,
    ) -> BoxFuture<'static, Result<SourceHandle, SpawnErr>> {
        crate::actors::read::spawn_source_with::<AsksSource, AsksCommand>(
            AsksSource, ctx, supervisor,
        )
    }
}
