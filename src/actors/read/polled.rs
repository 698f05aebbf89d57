//! [`PolledSource`]: a source actor made only of read slots and a cadence. Most sources are
//! this (roster, catalogues, lists): they provide their [`SlotSpec`]s and a poll period, and get
//! demand policy, epochs, retirement, stage tracing and self-rescheduling polls for free.
//!
//! `Demand(kind)` demands every slot of the source. After each completed read the cadence is
//! re-armed (`send_after`), so a slow read delays the next poll instead of queueing ticks.

use super::drill::inject_panic;
use super::msg::{NoCommands, SourceMsg, spawn_source};
use super::{CadenceTimer, ReadOwner, SlotSpec};
use crate::actors::contract::{
    Payload, SlotKey, SourceContext, SourceControl, SourceHandle, SourceKey,
};
use ractor::{Actor, ActorProcessingErr, ActorRef};
use std::marker::PhantomData;
use std::time::Duration;

/// What a polled source's mailbox carries: control and its workers' returns.
pub type PolledMsg<S, P> = SourceMsg<S, P, NoCommands>;

/// The actor; one instance per source.
pub struct PolledSource<S, P>(PhantomData<fn() -> (S, P)>);

impl<S, P> Default for PolledSource<S, P> {
    fn default() -> Self {
        Self(PhantomData)
    }
}

/// Spawns a polled source linked to the supervisor: the one body every slot-plus-poll
/// source's `SourceSpawner::spawn` delegates to.
pub fn spawn_polled<S: SlotKey, P: Payload>(
    source: SourceKey,
    slots: Vec<SlotSpec<S, P>>,
    cadence: Duration,
    ctx: SourceContext,
    supervisor: ractor::ActorCell,
) -> futures::future::BoxFuture<'static, Result<SourceHandle, ractor::SpawnErr>> {
    let args = PolledSourceArgs {
        source,
        slots,
        cadence: Some(cadence),
        ctx,
    };
    spawn_source(PolledSource::<S, P>::default(), args, supervisor)
}

pub struct PolledSourceArgs<S, P> {
    /// The source's name in supervision and traces.
    pub source: SourceKey,
    pub slots: Vec<SlotSpec<S, P>>,
    /// Cadence period; `None` for a source read only on explicit demand.
    pub cadence: Option<Duration>,
    pub ctx: SourceContext,
}

pub struct PolledSourceState<S: SlotKey, P: Payload> {
    source: SourceKey,
    keys: Vec<S>,
    owner: ReadOwner<S, P, ActorRef<PolledMsg<S, P>>>,
    cadence: Option<CadenceTimer<PolledMsg<S, P>>>,
    fault_drills: bool,
}

impl<S: SlotKey, P: Payload> Actor for PolledSource<S, P> {
    type Msg = PolledMsg<S, P>;
    type State = PolledSourceState<S, P>;
    type Arguments = PolledSourceArgs<S, P>;

    async fn pre_start(
        &self,
        myself: ActorRef<Self::Msg>,
        args: Self::Arguments,
    ) -> Result<Self::State, ActorProcessingErr> {
        let keys = args.slots.iter().map(|s| s.key.clone()).collect();
        let mut owner = ReadOwner::new(args.ctx.outlet::<S, P>(), myself, args.ctx.client);
        for slot in args.slots {
            owner.add_slot(slot);
        }
        Ok(PolledSourceState {
            source: args.source,
            keys,
            owner,
            cadence: args.cadence.map(CadenceTimer::new),
            fault_drills: args.ctx.fault_drills,
        })
    }

    async fn handle(
        &self,
        myself: ActorRef<Self::Msg>,
        msg: Self::Msg,
        state: &mut Self::State,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            SourceMsg::Control(SourceControl::Demand(kind)) => {
                for key in &state.keys {
                    state.owner.demand(key, kind);
                }
            }
            SourceMsg::Control(SourceControl::Identity(identity)) => {
                state.owner.identity(&identity);
                if state.owner.authority().is_none()
                    && let Some(c) = state.cadence.as_mut()
                {
                    // Ticks without an epoch would only be refused; the next confirmation
                    // dispatches the standing slots and re-arms the cadence after they read.
                    c.cancel();
                }
            }
            SourceMsg::Control(SourceControl::Visible(visible)) => {
                if let Some(c) = state.cadence.as_mut() {
                    c.set_visible(visible, &myself);
                }
            }
            SourceMsg::Control(SourceControl::InjectPanic) => {
                inject_panic(state.fault_drills, state.source)
            }
            SourceMsg::Returned(ret) => {
                if state.owner.worker_returned(ret).completed()
                    && let Some(c) = state.cadence.as_mut()
                {
                    c.reschedule(&myself);
                }
            }
            SourceMsg::Command(never) => match never {},
        }
        Ok(())
    }

    async fn post_stop(
        &self,
        _myself: ActorRef<Self::Msg>,
        state: &mut Self::State,
    ) -> Result<(), ActorProcessingErr> {
        state.owner.retire_all("source_stopped");
        Ok(())
    }
}
