//! The Gate queue source (§15.3): the durable queue of Keeper tool calls with an outside
//! effect waiting for a rule, Auto Judge or a human, with the resolved history, the exact rules
//! and the workspace mode, read as one standing slot of its own (not the §14.4 status line's
//! read of the same route, which keeps only the mode). Its two saves, `gate_resolve` and
//! `gate_retry`, land in this surface's own slots. Ownership contract and tested faults:
//! docs/audits/gate-queue.md.

pub mod resolve;
pub mod retry;

use crate::actors::contract::{
    GenerationBook, Payload, ReadResult, SlotKey, SourceContext, SourceHandle, SourceKey,
    SourceSpawner, read_outcome,
};
use crate::actors::read::polled::spawn_polled;
use crate::actors::read::{SlotSpec, reader};
use crate::actors::saves::{SAVES, SaveEvent, SaveId, SaveKind};
use crate::protocol::gate_queue::GateQueue;
use futures::future::BoxFuture;
use ractor::{ActorCell, SpawnErr};
use resolve::GateResolve;
use retry::GateRetry;
use std::time::Duration;

/// The queue with the newest 20 resolved rows (MASC's default page).
pub const GATE_QUEUE_PATH: &str = "/api/v1/dashboard/gate?limit=20";

/// The source (supervision key).
pub const GATE_QUEUE: SourceKey = SourceKey("gate_queue");

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum GateQueueSlot {
    /// `GET /api/v1/dashboard/gate` (§15.3).
    Queue,
    /// One approve or reject (§15.3 `/resolve`): its own slot per save.
    Resolve(SaveId),
    /// One Auto Judge re-arm (§15.3 `/retry`): its own slot per save.
    Retry(SaveId),
}

impl SlotKey for GateQueueSlot {
    fn trace_name(&self) -> String {
        match self {
            Self::Queue => "gate_queue".to_string(),
            Self::Resolve(_) => format!("save:{}", GateResolve::KIND),
            Self::Retry(_) => format!("save:{}", GateRetry::KIND),
        }
    }

    fn source(&self) -> SourceKey {
        match self {
            Self::Queue => GATE_QUEUE,
            Self::Resolve(_) | Self::Retry(_) => SAVES,
        }
    }
}

#[derive(Debug, Clone)]
pub enum GateQueueObservation {
    Queue(ReadResult<GateQueue>),
    /// A step or the receipt of a resolve.
    Resolve(Box<SaveEvent<GateResolve>>),
    /// A step or the receipt of a retry.
    Retry(Box<SaveEvent<GateRetry>>),
}

impl Payload for GateQueueObservation {
    fn outcome(&self) -> String {
        match self {
            Self::Queue(r) => read_outcome(r),
            Self::Resolve(e) => e.step.trace_outcome(),
            Self::Retry(e) => e.step.trace_outcome(),
        }
    }
}

/// The one standing read.
pub fn gate_queue_slots(
    generations: &GenerationBook,
) -> Vec<SlotSpec<GateQueueSlot, GateQueueObservation>> {
    vec![SlotSpec::standing(
        GateQueueSlot::Queue,
        generations,
        reader(|auth, client| async move {
            GateQueueObservation::Queue(client.get::<GateQueue>(&auth, GATE_QUEUE_PATH).await)
        }),
    )]
}

/// Spawns the Gate queue source under the supervisor.
pub struct GateQueueSpawner {
    pub cadence: Duration,
}

impl SourceSpawner for GateQueueSpawner {
    fn key(&self) -> SourceKey {
        GATE_QUEUE
    }

    fn spawn(
        &self,
        ctx: SourceContext,
        supervisor: ActorCell,
    ) -> BoxFuture<'static, Result<SourceHandle, SpawnErr>> {
        let slots = gate_queue_slots(&ctx.generations);
        spawn_polled(GATE_QUEUE, slots, self.cadence, ctx, supervisor)
    }
}
