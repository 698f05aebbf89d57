//! The Decisions source (§10.1, §10.5): this actor's pending operator approvals and the open
//! asks, independent standing reads of one polled source. Ownership contract and tested
//! faults: docs/audits/decisions.md.

use crate::actors::contract::{
    GenerationBook, Payload, ReadResult, SlotKey, SourceContext, SourceHandle, SourceKey,
    SourceSpawner, read_outcome,
};
use crate::actors::read::polled::spawn_polled;
use crate::actors::read::{SlotSpec, reader};
pub mod approval;
pub mod ask_answer;
pub mod held_call;

use crate::actors::saves::{SAVES, SaveEvent, SaveId, SaveKind};
use crate::protocol::asks::AskList;
use crate::protocol::held_calls::{HELD_CALLS_PATH, HeldToolCalls};
use crate::protocol::operator::OperatorApprovals;
use approval::ApprovalDecision;
use ask_answer::AskAnswer;
use futures::future::BoxFuture;
use held_call::HeldCallDecision;
use ractor::{ActorCell, SpawnErr};
use std::time::Duration;

/// Sent exactly as §10.5 says: the lightweight summary.
pub const OPERATOR_APPROVALS_PATH: &str =
    "/api/v1/operator?view=summary&include_messages=0&include_keepers=0";
pub const OPEN_ASKS_PATH: &str = "/api/v1/keepers/asks";

/// The Decisions source (supervision key).
pub const DECISIONS: SourceKey = SourceKey("decisions");

/// The slots of the Decisions surface.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum DecisionsSlot {
    /// `GET /api/v1/operator?view=summary…` (§10.5): this actor's pending approvals.
    Approvals,
    /// `GET /api/v1/keepers/asks` (§10.1): open asks of the fleet.
    Asks,
    /// One approval decision save (§10.5 confirm or deny): its own slot per save.
    Decision(SaveId),
    /// One Ask answer save (§10.2): its own slot per save.
    Answer(SaveId),
    /// `GET /api/v1/keepers/tool-approvals` (§14.5): tool calls Keepers' turns wait on.
    HeldCalls,
    /// One held tool call answer (§14.5): its own slot per save.
    HeldCallDecision(SaveId),
}

impl SlotKey for DecisionsSlot {
    fn trace_name(&self) -> String {
        match self {
            Self::Approvals => "operator_approvals".to_string(),
            Self::Asks => "open_asks".to_string(),
            Self::Decision(_) => format!("save:{}", ApprovalDecision::KIND),
            Self::Answer(_) => format!("save:{}", AskAnswer::KIND),
            Self::HeldCalls => "held_tool_calls".to_string(),
            Self::HeldCallDecision(_) => format!("save:{}", HeldCallDecision::KIND),
        }
    }

    fn source(&self) -> SourceKey {
        match self {
            Self::Approvals | Self::Asks | Self::HeldCalls => DECISIONS,
            Self::Decision(_) | Self::Answer(_) | Self::HeldCallDecision(_) => SAVES,
        }
    }
}

#[derive(Debug, Clone)]
pub enum DecisionsObservation {
    Approvals(ReadResult<OperatorApprovals>),
    Asks(ReadResult<AskList>),
    /// A step or the receipt of an approval decision.
    Decision(Box<SaveEvent<ApprovalDecision>>),
    /// A step or the receipt of an Ask answer.
    Answer(Box<SaveEvent<AskAnswer>>),
    HeldCalls(ReadResult<HeldToolCalls>),
    /// A step or the receipt of a held tool call answer.
    HeldCallDecision(Box<SaveEvent<HeldCallDecision>>),
}

impl Payload for DecisionsObservation {
    fn outcome(&self) -> String {
        match self {
            Self::Approvals(r) => read_outcome(r),
            Self::Asks(r) => read_outcome(r),
            Self::Decision(e) => e.step.trace_outcome(),
            Self::Answer(e) => e.step.trace_outcome(),
            Self::HeldCalls(r) => read_outcome(r),
            Self::HeldCallDecision(e) => e.step.trace_outcome(),
        }
    }
}

/// The Decisions slots: independent reads of one source.
pub fn decisions_slots(
    generations: &GenerationBook,
) -> Vec<SlotSpec<DecisionsSlot, DecisionsObservation>> {
    vec![
        SlotSpec::standing(
            DecisionsSlot::Approvals,
            generations,
            reader(|auth, client| async move {
                DecisionsObservation::Approvals(
                    client
                        .get::<OperatorApprovals>(&auth, OPERATOR_APPROVALS_PATH)
                        .await,
                )
            }),
        ),
        SlotSpec::standing(
            DecisionsSlot::Asks,
            generations,
            reader(|auth, client| async move {
                DecisionsObservation::Asks(client.get::<AskList>(&auth, OPEN_ASKS_PATH).await)
            }),
        ),
        SlotSpec::standing(
            DecisionsSlot::HeldCalls,
            generations,
            reader(|auth, client| async move {
                DecisionsObservation::HeldCalls(
                    client.get::<HeldToolCalls>(&auth, HELD_CALLS_PATH).await,
                )
            }),
        ),
    ]
}

/// Spawns the Decisions source (approvals and asks) under the supervisor.
pub struct DecisionsSpawner {
    pub cadence: Duration,
}

impl SourceSpawner for DecisionsSpawner {
    fn key(&self) -> SourceKey {
        DECISIONS
    }

    fn spawn(
        &self,
        ctx: SourceContext,
        supervisor: ActorCell,
    ) -> BoxFuture<'static, Result<SourceHandle, SpawnErr>> {
        let slots = decisions_slots(&ctx.generations);
        spawn_polled(DECISIONS, slots, self.cadence, ctx, supervisor)
    }
}
