//! The approval decision save (protocol.md §10.5 `POST /api/v1/operator/confirm`, §11
//! "Approval decision"): confirm or deny one pending approval of this actor. Not idempotent:
//! sent once, never resent; one decision per approval in flight at a time (the intent key is
//! the confirm token, whatever the decision).

use super::{DecisionsObservation, DecisionsSlot};
use crate::actors::saves::{SaveEvent, SaveId, SaveKind};
use crate::protocol::admission::ReadAuthority;
use crate::protocol::client::WorkspaceClient;
use crate::protocol::operator::{ActionType, ApprovalDecisionRequest, Decision};
use crate::protocol::outcome::{
    ApprovalDecisionOutcome, classify_approval_decision, classify_exchange,
};
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};

pub const CONFIRM_PATH: &str = "/api/v1/operator/confirm";

/// What the operator decided, and what the approval was (kept for the receipt's display:
/// a decided approval leaves the list).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecisionIntent {
    pub confirm_token: String,
    pub decision: Decision,
    pub action_type: ActionType,
    pub target_id: Option<String>,
    /// RFC 3339, as listed; `None`: no expiry.
    pub expires_at: Option<String>,
}

impl DecisionIntent {
    pub fn request(&self) -> ApprovalDecisionRequest {
        ApprovalDecisionRequest {
            confirm_token: self.confirm_token.clone(),
            decision: self.decision,
        }
    }
}

/// The kind.
#[derive(Debug)]
pub struct ApprovalDecision;

impl SaveKind for ApprovalDecision {
    const KIND: &'static str = "approval_decision";
    type Slot = DecisionsSlot;
    type Payload = DecisionsObservation;
    type Intent = DecisionIntent;
    type Receipt = ApprovalDecisionOutcome;

    fn slot(save_id: &SaveId, _intent: &DecisionIntent) -> DecisionsSlot {
        DecisionsSlot::Decision(save_id.clone())
    }

    /// One decision per approval at a time, whichever way it goes.
    fn intent_key(intent: &DecisionIntent) -> String {
        intent.confirm_token.clone()
    }

    fn target(intent: &DecisionIntent) -> String {
        intent.confirm_token.clone()
    }

    fn perform(
        client: WorkspaceClient,
        auth: ReadAuthority,
        intent: DecisionIntent,
    ) -> BoxFuture<'static, ApprovalDecisionOutcome> {
        Box::pin(async move {
            let request = intent.request();
            // The decision is always sent as one of the two exact values (MASC reads anything
            // else as confirm).
            let body = serde_json::json!({
                "confirm_token": request.confirm_token,
                "decision": request.decision.as_str(),
            });
            let exchange = client.post_json(&auth, CONFIRM_PATH, &body).await;
            classify_exchange(&exchange, &request, classify_approval_decision)
        })
    }

    fn payload(event: SaveEvent<Self>) -> DecisionsObservation {
        DecisionsObservation::Decision(Box::new(event))
    }
}
