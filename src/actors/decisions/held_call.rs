//! The held tool call answer (protocol.md §14.5 `POST /api/v1/keepers/tool-approval`; newer
//! MASC): approve or deny one tool call a Keeper's turn waits on. It releases (or denies) work,
//! so it is sent once and never resent; one answer per held call in flight at a time (the
//! intent key is the Keeper and the call id, whichever way it goes). Its receipt lands in the
//! Decisions surface's own book and its words in the chat's gate row (C-53).

use super::{DecisionsObservation, DecisionsSlot};
use crate::actors::saves::{SaveEvent, SaveId, SaveKind};
use crate::protocol::admission::ReadAuthority;
use crate::protocol::client::WorkspaceClient;
use crate::protocol::held_calls::{
    HELD_CALL_DECISION_PATH, HeldCallDecisionOutcome, HeldCallDecisionRequest, ToolCallVerdict,
    classify_held_call_decision,
};
use crate::protocol::outcome::classify_exchange;
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};

/// What the operator answered, and the call as it was listed (kept for the receipt's row: an
/// answered call leaves the list).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeldCallIntent {
    pub keeper: String,
    pub tool_call_id: String,
    pub tool: String,
    pub decision: ToolCallVerdict,
}

impl HeldCallIntent {
    pub fn request(&self) -> HeldCallDecisionRequest {
        HeldCallDecisionRequest {
            keeper: self.keeper.clone(),
            tool_call_id: self.tool_call_id.clone(),
            decision: self.decision,
        }
    }

    /// The key one answer in flight holds: the Keeper and the call id.
    pub fn call_key(keeper: &str, tool_call_id: &str) -> String {
        format!("{keeper}\u{1f}{tool_call_id}")
    }
}

/// The kind.
#[derive(Debug)]
pub struct HeldCallDecision;

impl SaveKind for HeldCallDecision {
    const KIND: &'static str = "held_call_decision";
    type Slot = DecisionsSlot;
    type Payload = DecisionsObservation;
    type Intent = HeldCallIntent;
    type Receipt = HeldCallDecisionOutcome;

    fn slot(save_id: &SaveId, _intent: &HeldCallIntent) -> DecisionsSlot {
        DecisionsSlot::HeldCallDecision(save_id.clone())
    }

    /// One answer per held call at a time, whichever way it goes.
    fn intent_key(intent: &HeldCallIntent) -> String {
        HeldCallIntent::call_key(&intent.keeper, &intent.tool_call_id)
    }

    fn target(intent: &HeldCallIntent) -> String {
        intent.keeper.clone()
    }

    fn perform(
        client: WorkspaceClient,
        auth: ReadAuthority,
        intent: HeldCallIntent,
    ) -> BoxFuture<'static, HeldCallDecisionOutcome> {
        Box::pin(async move {
            let request = intent.request();
            let exchange = client
                .post_json(&auth, HELD_CALL_DECISION_PATH, &request.body())
                .await;
            classify_exchange(&exchange, &request, classify_held_call_decision)
        })
    }

    fn payload(event: SaveEvent<Self>) -> DecisionsObservation {
        DecisionsObservation::HeldCallDecision(Box::new(event))
    }
}
