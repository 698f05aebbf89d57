//! [`PolledSource`]: a source actor made only of read slots and a cadence. Most sources are
//! this (roster, catalogues, lists): they provide their [`SlotSpec`]s and a poll period, and get
//! demand policy, epochs, retirement, stage tracing and self-rescheduling polls for free.
//!
//! `Demand(kind)` demands every slot of the source. After each completed read the cadence is
//! re-armed (`send_after`), so a slow read delays the next poll instead of queueing ticks.

use super::{CadenceTimer, ReadOwner, SlotSpec};
use crate::actors::messages::{SourceCommand, ViewMsg};
use crate::actors::ticket::SourceKey;
use crate::protocol::client::WorkspaceClient;
use ractor::{Actor, ActorProcessingErr, ActorRef};
use std::time::Duration;

/// The actor; one instance per source.
pub struct PolledSource;

/// Spawns a polled source linked to the supervisor: the one body every slot-plus-poll
/// source's `SourceSpawner::spawn` delegates to.
pub fn spawn_polled(
    source: SourceKey,
    slots: Vec<SlotSpec>,
    cadence: Duration,
    ctx: crate::actors::supervisor::SourceContext,
    supervisor: ractor::ActorCell,
) -> futures::future::BoxFuture<'static, Result<ActorRef<SourceCommand>, ractor::SpawnErr>> {
    let args = PolledSourceArgs {
        source,
        slots,
        cadence: Some(cadence),
        client: ctx.client,
        view: ctx.view,
        fault_drills: ctx.fault_drills,
    };
    Box::pin(async move {
        let (handle, _join) =
            PolledSource::spawn_linked(None, PolledSource, args, supervisor).await?;
        Ok(handle)
    })
}

pub struct PolledSourceArgs {
    /// The source's name in supervision and traces.
    pub source: SourceKey,
    pub slots: Vec<SlotSpec>,
    /// Cadence period; `None` for a source read only on explicit demand.
    pub cadence: Option<Duration>,
    pub client: WorkspaceClient,
    pub view: ActorRef<ViewMsg>,
    /// Honour `SourceCommand::InjectPanic` (supervision drills).
    pub fault_drills: bool,
}

pub struct PolledSourceState {
    source: SourceKey,
    keys: Vec<SourceKey>,
    owner: ReadOwner<ActorRef<ViewMsg>, ActorRef<SourceCommand>>,
    cadence: Option<CadenceTimer>,
    fault_drills: bool,
}

/// `SourceCommand::InjectPanic` in any source: the drill when drills are on, else a warning.
pub(crate) fn inject_panic(drills: bool, source: &SourceKey) {
    if drills {
        panic_drill(source.clone());
    }
    tracing::warn!(
        target: "masc_tui::read",
        source = %source,
        "panic drill ignored: fault drills are off"
    );
}

/// Carried by the drill panic so the payload says what it was.
#[derive(Debug)]
pub struct InjectedPanic(pub SourceKey);

/// The supervision drill: a real panic inside an actor handler, so the tested restart path is
/// the one a bug would take. Only reachable with `RuntimeConfig::fault_drills`.
#[allow(clippy::panic)]
pub(crate) fn panic_drill(source: SourceKey) -> ! {
    std::panic::panic_any(InjectedPanic(source))
}

impl Actor for PolledSource {
    type Msg = SourceCommand;
    type State = PolledSourceState;
    type Arguments = PolledSourceArgs;

    async fn pre_start(
        &self,
        myself: ActorRef<SourceCommand>,
        args: PolledSourceArgs,
    ) -> Result<PolledSourceState, ActorProcessingErr> {
        let keys = args.slots.iter().map(|s| s.key.clone()).collect();
        let mut owner = ReadOwner::new(args.view, myself, args.client);
        for slot in args.slots {
            owner.add_slot(slot);
        }
        Ok(PolledSourceState {
            source: args.source,
            keys,
            owner,
            cadence: args.cadence.map(CadenceTimer::new),
            fault_drills: args.fault_drills,
        })
    }

    async fn handle(
        &self,
        myself: ActorRef<SourceCommand>,
        msg: SourceCommand,
        state: &mut PolledSourceState,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            SourceCommand::Demand(kind) => {
                for key in &state.keys {
                    state.owner.demand(key, kind);
                }
            }
            SourceCommand::Identity(identity) => {
                state.owner.identity(&identity);
                if state.owner.authority().is_none()
                    && let Some(c) = state.cadence.as_mut()
                {
                    // Ticks without an epoch would only be refused; the next confirmation
                    // dispatches the standing slots and re-arms the cadence after they read.
                    c.cancel();
                }
            }
            SourceCommand::WorkerReturned(ret) => {
                if state.owner.worker_returned(ret).completed()
                    && let Some(c) = state.cadence.as_mut()
                {
                    c.reschedule(&myself);
                }
            }
            // Chat commands are for the chat hub only.
            SourceCommand::Chat(_) | SourceCommand::Board(_) => {}
            SourceCommand::Work(_) => {
                tracing::debug!(target: "masc_tui::read", source = %state.source, "work command ignored");
            }
            SourceCommand::InjectPanic => inject_panic(state.fault_drills, &state.source),
        }
        Ok(())
    }

    async fn post_stop(
        &self,
        _myself: ActorRef<SourceCommand>,
        state: &mut PolledSourceState,
    ) -> Result<(), ActorProcessingErr> {
        state.owner.retire_all("source_stopped");
        Ok(())
    }
}
