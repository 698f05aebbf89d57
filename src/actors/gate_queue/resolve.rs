//! The Gate resolve save (§15.3 `POST /api/v1/dashboard/gate/resolve`, §15.12): approve or
//! reject one pending row. It releases (or refuses) a Keeper's outside effect, so it is sent
//! once and never resent; one decision per row in flight at a time, whichever way it goes. A
//! row decided elsewhere between the read and the send is a conflict of its own ("already
//! resolved"), not a failure. Settled by re-reading the queue: the row leaves it.

use super::{GateQueueObservation, GateQueueSlot};
use crate::actors::saves::{SaveEvent, SaveId, SaveKind};
use crate::protocol::admission::ReadAuthority;
use crate::protocol::client::WorkspaceClient;
use crate::protocol::gate_resolve::{
    GATE_RESOLVE_PATH, GateDecision, GateResolveOutcome, GateResolveRequest, classify_gate_resolve,
};
use crate::protocol::outcome::classify_exchange;
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};

/// What the operator decided, and the row as it was read (kept for the receipt's line and the
/// journal: a resolved row leaves the queue).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResolveIntent {
    pub id: String,
    pub keeper: String,
    pub tool: String,
    pub decision: GateDecision,
    /// A reject's reason (none: MASC's default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl ResolveIntent {
    pub fn request(&self) -> GateResolveRequest {
        GateResolveRequest {
            id: self.id.clone(),
            decision: self.decision,
            reason: self.reason.clone(),
        }
    }
}

/// The kind.
#[derive(Debug)]
pub struct GateResolve;

impl SaveKind for GateResolve {
    const KIND: &'static str = "gate_resolve";
    type Slot = GateQueueSlot;
    type Payload = GateQueueObservation;
    type Intent = ResolveIntent;
    type Receipt = GateResolveOutcome;

    fn slot(save_id: &SaveId, _intent: &ResolveIntent) -> GateQueueSlot {
        GateQueueSlot::Resolve(save_id.clone())
    }

    /// One decision per row at a time, whichever way it goes.
    fn intent_key(intent: &ResolveIntent) -> String {
        intent.id.clone()
    }

    fn target(intent: &ResolveIntent) -> String {
        intent.id.clone()
    }

    fn perform(
        client: WorkspaceClient,
        auth: ReadAuthority,
        intent: ResolveIntent,
    ) -> BoxFuture<'static, GateResolveOutcome> {
        Box::pin(async move {
            let request = intent.request();
            let exchange = client
                .post_json(&auth, GATE_RESOLVE_PATH, &request.body())
                .await;
            classify_exchange(&exchange, &request, classify_gate_resolve)
        })
    }

    fn payload(event: SaveEvent<Self>) -> GateQueueObservation {
        GateQueueObservation::Resolve(Box::new(event))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s15_3_the_intent_keeps_the_row_and_reason_through_the_outbox() {
        let intent = ResolveIntent {
            id: "gate-101".into(),
            keeper: "rondo".into(),
            tool: "github_push".into(),
            decision: GateDecision::Reject,
            reason: Some("not on main".into()),
        };
        let stored = serde_json::to_string(&intent).unwrap();
        assert_eq!(
            serde_json::from_str::<ResolveIntent>(&stored).unwrap(),
            intent
        );
        let approve = ResolveIntent {
            decision: GateDecision::Approve,
            reason: None,
            ..intent.clone()
        };
        assert_eq!(
            GateResolve::intent_key(&approve),
            GateResolve::intent_key(&intent),
            "one decision per row in flight, whichever way"
        );
    }
}
