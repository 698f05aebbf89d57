//! [`PolledSource`]: a source actor made only of read slots and a cadence. Most sources are
//! this (roster, catalogues, lists): they provide their [`SlotSpec`]s and a poll period, and get
//! demand policy, epochs, retirement, stage tracing and self-rescheduling polls for free.
//!
//! `Demand(kind)` demands every slot of the source. After each completed read the cadence is
//! re-armed (`send_after`), so a slow read delays the next poll instead of queueing ticks.

use super::msg::{NoCommands, SourceMsg};
use super::shell::{Ctl, Myself, ShellArgs, SourceShell, SourceState, StartArgs, spawn_shell};
use super::{ReadOwner, SlotSpec, WorkerReturn};
use crate::actors::contract::{
    DemandKind, IdentityState, Payload, SlotKey, SourceContext, SourceHandle, SourceKey,
};
use std::time::Duration;

/// What a polled source's mailbox carries: control and its workers' returns.
pub type PolledMsg<S, P> = SourceMsg<S, P, NoCommands>;

/// The actor; one instance per source.
pub type PolledSource<S, P> = SourceShell<PolledState<S, P>>;

/// What a polled source starts from: its slots and its period.
pub struct PolledSlots<S, P> {
    pub slots: Vec<SlotSpec<S, P>>,
    /// Cadence period; `None` for a source read only on explicit demand.
    pub cadence: Option<Duration>,
}

impl<S: SlotKey, P: Payload> StartArgs for PolledSlots<S, P> {
    fn period(&self) -> Option<Duration> {
        self.cadence
    }
}

/// How a polled source is started (`key`: its name in supervision and traces).
pub type PolledSourceArgs<S, P> = ShellArgs<PolledSlots<S, P>>;

/// Spawns a polled source linked to the supervisor: the one body every slot-plus-poll
/// source's `SourceSpawner::spawn` delegates to.
pub fn spawn_polled<S: SlotKey, P: Payload>(
    source: SourceKey,
    slots: Vec<SlotSpec<S, P>>,
    cadence: Duration,
    ctx: SourceContext,
    supervisor: ractor::ActorCell,
) -> futures::future::BoxFuture<'static, Result<SourceHandle, ractor::SpawnErr>> {
    let slots = PolledSlots {
        slots,
        cadence: Some(cadence),
    };
    spawn_shell::<PolledState<S, P>>(source, ctx, slots, supervisor)
}

pub struct PolledState<S: SlotKey, P: Payload> {
    keys: Vec<S>,
    owner: ReadOwner<S, P, Myself<Self>>,
}

impl<S: SlotKey, P: Payload> SourceState for PolledState<S, P> {
    type Slot = S;
    type Payload = P;
    type Command = NoCommands;
    type Args = PolledSlots<S, P>;

    fn start(ctx: SourceContext, myself: &Myself<Self>, args: PolledSlots<S, P>) -> Self {
        let keys = args.slots.iter().map(|s| s.key.clone()).collect();
        let mut owner = ReadOwner::new(ctx.outlet::<S, P>(), myself.clone(), ctx.client);
        for slot in args.slots {
            owner.add_slot(slot);
        }
        Self { keys, owner }
    }

    fn command(&mut self, _ctl: &mut Ctl<Self>, never: NoCommands) {
        match never {}
    }

    fn demand(&mut self, _ctl: &mut Ctl<Self>, kind: DemandKind) {
        for key in &self.keys {
            self.owner.demand(key, kind);
        }
    }

    fn identity(&mut self, ctl: &mut Ctl<Self>, identity: IdentityState) {
        self.owner.identity(&identity);
        if self.owner.authority().is_none() {
            // Ticks without an epoch would only be refused; the next confirmation
            // dispatches the standing slots and re-arms the cadence after they read.
            ctl.cancel_cadence();
        }
    }

    fn returned(&mut self, _ctl: &mut Ctl<Self>, ret: WorkerReturn<S, P>) -> bool {
        self.owner.worker_returned(ret).completed()
    }

    fn stop(&mut self, reason: &str) {
        self.owner.retire_all(reason);
    }
}
