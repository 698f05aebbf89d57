//! The preparation detail source (protocol.md §14.12; sources.md M-1…M-9; chat-screen.md
//! C-45): the stored runtime-trace report of one finished turn, read on demand only — when the
//! open chat's details are expanded (`Ctrl-S`) for a turn with an exact link (M-9: only the
//! Keeper whose chat detail is expanded requests it; nothing on a cadence, nothing fleet-wide).
//! Ownership contract and tested faults: docs/audits/preparation.md.
//!
//! One slot, [`PreparationSlot::Report`], re-aimed by [`PreparationCommand::Read`]: the reader
//! is replaced and an explicit demand supersedes the read in flight (M-5: a new selection
//! detaches the old response). The payload carries the target fixed at dispatch, so the view
//! takes an answer only for the target it still shows (`other_target` otherwise).

use crate::actors::contract::{
    Payload, ReadResult, SlotKey, SourceContext, SourceControl, SourceHandle, SourceKey,
    SourceSpawner, read_outcome,
};
use crate::actors::read::drill::inject_panic;
use crate::actors::read::{
    ExplicitPolicy, ReadOwner, SlotSpec, SourceMsg, reader, spawn_source_with,
};
use crate::protocol::runtime_trace::{RuntimeTrace, TurnLink, runtime_trace_path};
use futures::future::BoxFuture;
use ractor::{Actor, ActorCell, ActorProcessingErr, ActorRef, SpawnErr};

/// The preparation source (supervision key).
pub const PREPARATION: SourceKey = SourceKey("preparation");

/// What one read is for: a Keeper's turn, by its exact link (M-1).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PreparationTarget {
    pub keeper: String,
    pub link: TurnLink,
}

/// The one slot.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PreparationSlot {
    /// `GET /api/v1/keepers/{name}/runtime-trace?trace_id=&turn_id=` (§14.12).
    Report,
}

impl SlotKey for PreparationSlot {
    fn trace_name(&self) -> String {
        // The Keeper and turn stay out of the trace name (G-10): the payload names them.
        "preparation_report".to_string()
    }

    fn source(&self) -> SourceKey {
        PREPARATION
    }
}

/// One answer, with the target it was read for.
#[derive(Debug, Clone)]
pub struct PreparationObservation {
    pub target: PreparationTarget,
    pub result: ReadResult<RuntimeTrace>,
}

impl Payload for PreparationObservation {
    fn outcome(&self) -> String {
        read_outcome(&self.result)
    }
}

/// What the view asks of the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PreparationCommand {
    /// Read `target`'s report now (supersedes the read in flight, M-5/M-6).
    Read(PreparationTarget),
}

crate::source_commands!(PreparationSlot, PreparationObservation, PreparationCommand);

type Msg = SourceMsg<PreparationSlot, PreparationObservation, PreparationCommand>;

fn report_reader(target: PreparationTarget) -> crate::actors::read::Reader<PreparationObservation> {
    reader(move |auth, client| {
        let target = target.clone();
        async move {
            let path = runtime_trace_path(&target.keeper, &target.link);
            let (keeper, link) = (target.keeper.clone(), target.link.clone());
            let result = client
                .get_with(&auth, &path, move |body: &[u8]| {
                    RuntimeTrace::decode_for(body, &keeper, &link)
                })
                .await;
            PreparationObservation { target, result }
        }
    })
}

pub struct PreparationSource;

pub struct PreparationState {
    owner: ReadOwner<PreparationSlot, PreparationObservation, ActorRef<Msg>>,
    fault_drills: bool,
}

impl Actor for PreparationSource {
    type Msg = Msg;
    type State = PreparationState;
    type Arguments = SourceContext;

    async fn pre_start(
        &self,
        myself: ActorRef<Msg>,
        ctx: SourceContext,
    ) -> Result<PreparationState, ActorProcessingErr> {
        let mut owner = ReadOwner::new(ctx.outlet(), myself, ctx.client.clone());
        owner.add_slot(SlotSpec {
            generations: ctx.generations.counter(&PreparationSlot::Report),
            key: PreparationSlot::Report,
            explicit: ExplicitPolicy::Supersede,
            standing: false,
            // Nothing is read before the first `Read` names a target.
            reader: reader(|_, _| async { unreachable_target() }),
        });
        Ok(PreparationState {
            owner,
            fault_drills: ctx.fault_drills,
        })
    }

    async fn handle(
        &self,
        _myself: ActorRef<Msg>,
        msg: Msg,
        state: &mut PreparationState,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            SourceMsg::Command(PreparationCommand::Read(target)) => {
                state
                    .owner
                    .set_reader(&PreparationSlot::Report, report_reader(target));
                state.owner.demand(
                    &PreparationSlot::Report,
                    crate::actors::contract::DemandKind::Explicit,
                );
            }
            // No standing read and no cadence: a bare demand has no target to read, and
            // visibility changes no period.
            SourceMsg::Control(SourceControl::Demand(_) | SourceControl::Visible(_)) => {}
            SourceMsg::Control(SourceControl::Identity(identity)) => {
                state.owner.identity(&identity);
            }
            SourceMsg::Control(SourceControl::InjectPanic) => {
                inject_panic(state.fault_drills, PREPARATION)
            }
            SourceMsg::Returned(ret) => {
                state.owner.worker_returned(ret);
            }
        }
        Ok(())
    }

    async fn post_stop(
        &self,
        _myself: ActorRef<Msg>,
        state: &mut PreparationState,
    ) -> Result<(), ActorProcessingErr> {
        state.owner.retire_all("source_stopped");
        Ok(())
    }
}

/// The placeholder reader's answer (never dispatched: the slot is not standing and is only
/// demanded after `Read` replaced the reader).
fn unreachable_target() -> PreparationObservation {
    PreparationObservation {
        target: PreparationTarget {
            keeper: String::new(),
            link: TurnLink {
                trace_id: String::new(),
                turn_id: 0,
            },
        },
        result: Err(crate::protocol::client::ClientError::Decode(
            crate::protocol::decode::DecodeError::new(
                crate::protocol::decode::DecodeErrorKind::InvalidValue,
                "",
                "no target",
            ),
        )),
    }
}

/// Spawns the preparation source (no cadence, no standing read).
pub struct PreparationSpawner;

impl SourceSpawner for PreparationSpawner {
    fn key(&self) -> SourceKey {
        PREPARATION
    }

    fn spawn(
        &self,
        ctx: SourceContext,
        supervisor: ActorCell,
    ) -> BoxFuture<'static, Result<SourceHandle, SpawnErr>> {
        spawn_source_with::<PreparationSource, PreparationCommand>(
            PreparationSource,
            ctx,
            supervisor,
        )
    }
}
