//! `/interrupt [name]` as a save kind (protocol.md §14.13, §4.2, §11 "Turn interrupt";
//! chat-screen.md C-36, C-43, C-44): stop one exact turn.
//!
//! The request names exactly one target: the chat operation this client sent (its request id)
//! or, for a turn this client did not send, the `interrupt_token` a fresh §4.2 census shows for
//! that Keeper. The census is read first every time (never a remembered token): it proves the
//! server knows exact targets (the August MASC, which lacks §4.2, stops whichever turn is
//! current — masc-tui never sends it that name-only form) and gives the `chat_control_token`
//! to send as `expected_control_token`. One interrupt per Keeper in flight; never resent.
//! `signalled` means a stop was signalled, not that the turn ended: the turn's own stream or
//! its §4.4 record confirms the end.

use super::control_receipt::{ControlReceipt, run_keeping};
use super::{ChatObservation, ChatSlot, TurnControlEvent};
use crate::actors::saves::{SaveEvent, SaveId, SaveKind, SaveRun};
use crate::protocol::admission::ReadAuthority;
use crate::protocol::client::{ClientError, WorkspaceClient};
use crate::protocol::outcome::{SaveOutcome, classify_exchange};
use crate::protocol::turn_control::{
    INTERRUPT_PATH, InterruptOutcome, InterruptRequest, InterruptTarget, TURNS_PATH,
    classify_interrupt,
};
use crate::protocol::turns::{KeeperTurnRow, KeeperTurnState, KeeperTurns};
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};

/// The §4.2 census could not be read: nothing is sent (an exact target cannot be proven).
pub const CENSUS_FAILED: &str = "turn_census_failed";
/// This MASC serves no §4.2 census: it cannot stop an exact turn, so nothing is sent (C-43).
pub const CENSUS_NOT_SERVED: &str = "turn_census_not_served";
/// The census does not list the Keeper, or lists it as unavailable.
pub const KEEPER_NOT_IN_CENSUS: &str = "keeper_not_in_census";
/// The census shows the running turn without the token that names it (a MASC whose census
/// does not write `interrupt_token`): nothing is sent rather than a name-only stop (C-43).
pub const TURN_WITHOUT_TOKEN: &str = "turn_without_interrupt_token";

/// What the operator's words on screen are for a census token (a server's reason as it is).
pub fn describe(reason: &str) -> &str {
    match reason {
        CENSUS_NOT_SERVED => "this MASC cannot stop an exact turn (no turn census)",
        KEEPER_NOT_IN_CENSUS => "the turn census does not list this Keeper",
        TURN_WITHOUT_TOKEN => "the turn census does not name the running turn (no interrupt token)",
        other if other.starts_with(CENSUS_FAILED) => "the turn census could not be read",
        other => crate::actors::saves::refusal::describe(other),
    }
}

/// Which turn to stop.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "aim")]
pub enum InterruptAim {
    /// The chat operation this client sent.
    Request { request_id: String },
    /// Whatever turn the census shows running for the Keeper (its `interrupt_token`).
    Current,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InterruptIntent {
    pub keeper: String,
    pub aim: InterruptAim,
}

impl InterruptIntent {
    /// The request id this interrupt names, if it names one.
    pub fn request_id(&self) -> Option<&str> {
        match &self.aim {
            InterruptAim::Request { request_id } => Some(request_id),
            InterruptAim::Current => None,
        }
    }
}

/// The Keeper's row of a fresh §4.2 census, or the token saying why there is none.
pub async fn census_row(
    client: &WorkspaceClient,
    auth: &ReadAuthority,
    keeper: &str,
) -> Result<KeeperTurnRow, String> {
    match client.get::<KeeperTurns>(auth, TURNS_PATH).await {
        Ok(admitted) => admitted
            .value
            .keepers
            .iter()
            .find(|row| row.keeper_name == keeper)
            .filter(|row| !matches!(row.state, KeeperTurnState::Unavailable { .. }))
            .cloned()
            .ok_or_else(|| KEEPER_NOT_IN_CENSUS.to_string()),
        Err(ClientError::NotServed { .. }) => Err(CENSUS_NOT_SERVED.to_string()),
        Err(err) => Err(format!("{CENSUS_FAILED}_{}", err.class())),
    }
}

/// The kind.
#[derive(Debug)]
pub struct TurnInterrupt;

impl SaveKind for TurnInterrupt {
    const KIND: &'static str = "turn_interrupt";
    type Slot = ChatSlot;
    type Payload = ChatObservation;
    type Intent = InterruptIntent;
    type Receipt = InterruptOutcome;

    fn slot(save_id: &SaveId, intent: &InterruptIntent) -> ChatSlot {
        ChatSlot::Control {
            keeper: intent.keeper.clone(),
            kind: Self::KIND,
            save_id: save_id.clone(),
        }
    }

    /// One interrupt per Keeper in flight (§14.13).
    fn intent_key(intent: &InterruptIntent) -> String {
        intent.keeper.clone()
    }

    fn target(intent: &InterruptIntent) -> String {
        intent.keeper.clone()
    }

    fn perform(
        client: WorkspaceClient,
        auth: ReadAuthority,
        intent: InterruptIntent,
    ) -> BoxFuture<'static, InterruptOutcome> {
        Box::pin(async move {
            let row = match census_row(&client, &auth, &intent.keeper).await {
                Ok(row) => row,
                Err(reason) => return SaveOutcome::NotSent { reason },
            };
            let target = match (&intent.aim, &row.state) {
                (InterruptAim::Request { request_id }, _) => {
                    InterruptTarget::Request(request_id.clone())
                }
                (InterruptAim::Current, KeeperTurnState::InTurn(turn)) => {
                    match &turn.interrupt_token {
                        Some(token) => InterruptTarget::Token(token.clone()),
                        None => {
                            return SaveOutcome::NotSent {
                                reason: TURN_WITHOUT_TOKEN.to_string(),
                            };
                        }
                    }
                }
                // Nothing runs: nothing to stop, nothing sent.
                (InterruptAim::Current, _) => return SaveOutcome::Unchanged,
            };
            let request = InterruptRequest {
                keeper: intent.keeper.clone(),
                target,
                expected_control_token: row.chat_control_token.clone(),
            };
            let exchange = client
                .post_json(&auth, INTERRUPT_PATH, &request.body())
                .await;
            classify_exchange(&exchange, &request, classify_interrupt)
        })
    }

    /// The request, then its receipt kept beside the row (a restart rebuilds its row: C-44).
    fn run(run: SaveRun<Self>) -> BoxFuture<'static, InterruptOutcome> {
        run_keeping(run, ControlReceipt::of_interrupt)
    }

    fn payload(event: SaveEvent<Self>) -> ChatObservation {
        ChatObservation::Control(Box::new(TurnControlEvent::Interrupt(event)))
    }
}
