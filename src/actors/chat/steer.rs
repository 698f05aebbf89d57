//! `/steer` as a save kind (protocol.md §14.14, §4.2, §11 "run-next / steer"; chat-screen.md
//! C-36, C-44): a queued input of this client runs next, and the turn running now is named to
//! stop.
//!
//! `/steer <text>` sends the text as a chat send first (its own save, §4.3); once that send is
//! accepted as queued, the view submits this save for its request id. The token of the running
//! turn is the one a fresh §4.2 census shows for this Keeper — never a guessed one or another
//! Keeper's; with no turn running it is null (the input is only moved to the front). A
//! prioritized input is still not processed (C-34): its own stream says when it runs.

use super::control_receipt::{ControlReceipt, run_keeping};
use super::interrupt::census_row;
use super::{ChatObservation, ChatSlot, TurnControlEvent};
use crate::actors::saves::{SaveEvent, SaveId, SaveKind, SaveRun};
use crate::protocol::admission::ReadAuthority;
use crate::protocol::client::WorkspaceClient;
use crate::protocol::outcome::{SaveOutcome, classify_exchange};
use crate::protocol::turn_control::{
    RUN_NEXT_PATH, RunNextOutcome, RunNextRequest, classify_run_next,
};
use crate::protocol::turns::KeeperTurnState;
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SteerIntent {
    pub keeper: String,
    /// The queued chat operation this client submitted.
    pub request_id: String,
    /// `/run-next` (§14.14 `interrupt_token: null`): the input only moves to the front; no
    /// census is read and no turn is named to stop.
    #[serde(default)]
    pub run_next: bool,
    /// This client's inputs already promoted, kept ahead in their order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub predecessors: Vec<String>,
}

/// The kind.
#[derive(Debug)]
pub struct TurnSteer;

impl SaveKind for TurnSteer {
    const KIND: &'static str = "turn_steer";
    type Slot = ChatSlot;
    type Payload = ChatObservation;
    type Intent = SteerIntent;
    type Receipt = RunNextOutcome;

    fn slot(save_id: &SaveId, intent: &SteerIntent) -> ChatSlot {
        ChatSlot::Control {
            keeper: intent.keeper.clone(),
            kind: Self::KIND,
            save_id: save_id.clone(),
        }
    }

    /// One steer per input in flight.
    fn intent_key(intent: &SteerIntent) -> String {
        intent.request_id.clone()
    }

    fn target(intent: &SteerIntent) -> String {
        intent.keeper.clone()
    }

    fn perform(
        client: WorkspaceClient,
        auth: ReadAuthority,
        intent: SteerIntent,
    ) -> BoxFuture<'static, RunNextOutcome> {
        Box::pin(async move {
            let interrupt_token = if intent.run_next {
                None
            } else {
                let row = match census_row(&client, &auth, &intent.keeper).await {
                    Ok(row) => row,
                    Err(reason) => return SaveOutcome::NotSent { reason },
                };
                match &row.state {
                    KeeperTurnState::InTurn(turn) => match &turn.interrupt_token {
                        Some(token) => Some(token.clone()),
                        // Steering names the running turn to stop; one the census cannot
                        // name is not stopped by a guess.
                        None => {
                            return SaveOutcome::NotSent {
                                reason: super::interrupt::TURN_WITHOUT_TOKEN.to_string(),
                            };
                        }
                    },
                    _ => None,
                }
            };
            let request = RunNextRequest {
                keeper: intent.keeper.clone(),
                request_id: intent.request_id.clone(),
                interrupt_token,
                priority_predecessors: intent.predecessors.clone(),
            };
            let exchange = client
                .post_json(&auth, RUN_NEXT_PATH, &request.body())
                .await;
            classify_exchange(&exchange, &request, classify_run_next)
        })
    }

    /// The request, then its receipt kept beside the row (a restart rebuilds its row: C-31).
    fn run(run: SaveRun<Self>) -> BoxFuture<'static, RunNextOutcome> {
        run_keeping(run, ControlReceipt::of_steer)
    }

    fn payload(event: SaveEvent<Self>) -> ChatObservation {
        ChatObservation::Control(Box::new(TurnControlEvent::Steer(event)))
    }
}
