//! The Gate retry save (§15.3 `POST /api/v1/dashboard/gate/retry`, §15.12): re-arm Auto Judge
//! on a row whose judging could not start. The body is the row's five identity fields exactly
//! as read, so MASC refuses a row that changed since (a conflict: re-read, never resend).
//! Applied means judging was re-armed, not that anything was decided. Settled by re-reading
//! the queue: the row is no longer blocked (or gone).

use super::{GateQueueObservation, GateQueueSlot};
use crate::actors::saves::{SaveEvent, SaveId, SaveKind};
use crate::protocol::admission::ReadAuthority;
use crate::protocol::client::WorkspaceClient;
use crate::protocol::gate_resolve::{
    GATE_RETRY_PATH, GateRetryOutcome, GateRetryRequest, classify_gate_retry,
};
use crate::protocol::outcome::classify_exchange;
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The row as read: its five identity fields (the body), and the Keeper and tool for the line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RetryIntent {
    pub id: String,
    pub keeper: String,
    pub tool: String,
    /// `{id, input_hash, sequence, exact_attempt, summary_attempt_disposition}` as read.
    pub row: Value,
}

/// The kind.
#[derive(Debug)]
pub struct GateRetry;

impl SaveKind for GateRetry {
    const KIND: &'static str = "gate_retry";
    type Slot = GateQueueSlot;
    type Payload = GateQueueObservation;
    type Intent = RetryIntent;
    type Receipt = GateRetryOutcome;

    fn slot(save_id: &SaveId, _intent: &RetryIntent) -> GateQueueSlot {
        GateQueueSlot::Retry(save_id.clone())
    }

    fn intent_key(intent: &RetryIntent) -> String {
        intent.id.clone()
    }

    fn target(intent: &RetryIntent) -> String {
        intent.id.clone()
    }

    fn perform(
        client: WorkspaceClient,
        auth: ReadAuthority,
        intent: RetryIntent,
    ) -> BoxFuture<'static, GateRetryOutcome> {
        Box::pin(async move {
            let request = GateRetryRequest {
                id: intent.id.clone(),
                body: intent.row.clone(),
            };
            let exchange = client
                .post_json(&auth, GATE_RETRY_PATH, &request.body)
                .await;
            classify_exchange(&exchange, &request, classify_gate_retry)
        })
    }

    fn payload(event: SaveEvent<Self>) -> GateQueueObservation {
        GateQueueObservation::Retry(Box::new(event))
    }
}
