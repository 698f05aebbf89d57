//! Create Keeper `a` (protocol.md §9.9, the create-only `POST /api/v1/keepers`; §11 "Keeper
//! create"; sources.md H-14…H-17). The declaration comes back from `$EDITOR`; the save job owns
//! it: the machinery's outbox row and fresh `/health` are the workspace confirm ("confirming"),
//! then one create-only POST ("sending"), then the terminal receipt — not sent, rejected
//! (invalid, or the name exists: never changed), created (with the lane's start), or result
//! unconfirmed (a drop or a failure after the POST may have created it). Never resent, never
//! downgraded to MASC's create-or-update `/up`. One create per name in flight.

use super::{KeeperOpEvent, KeeperOpSlot};
use crate::actors::keepers::{KeepersObservation, KeepersSlot};
use crate::actors::saves::{SaveEvent, SaveId, SaveKind};
use crate::protocol::admission::ReadAuthority;
use crate::protocol::client::WorkspaceClient;
use crate::protocol::keeper_config::KeeperCreateRequest;
use crate::protocol::outcome::{KeeperCreateOutcome, classify_exchange, classify_keeper_create};
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The create-only route (§9.9; a masc-tui extension, per seed 001).
pub const CREATE_PATH: &str = "/api/v1/keepers";

/// What the operator declared: the name and every key of the declaration (MASC's `/up` keys),
/// sent as it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreateIntent {
    pub name: String,
    pub declaration: Map<String, Value>,
}

/// The kind.
#[derive(Debug)]
pub struct CreateSave;

impl SaveKind for CreateSave {
    const KIND: &'static str = "keeper_create";
    type Slot = KeepersSlot;
    type Payload = KeepersObservation;
    type Intent = CreateIntent;
    type Receipt = KeeperCreateOutcome;

    fn slot(save_id: &SaveId, _intent: &CreateIntent) -> KeepersSlot {
        KeepersSlot::Op(KeeperOpSlot::Create(save_id.clone()))
    }

    /// One create per name in flight (a repeated submit shares the job).
    fn intent_key(intent: &CreateIntent) -> String {
        intent.name.clone()
    }

    fn target(intent: &CreateIntent) -> String {
        intent.name.clone()
    }

    fn perform(
        client: WorkspaceClient,
        auth: ReadAuthority,
        intent: CreateIntent,
    ) -> BoxFuture<'static, KeeperCreateOutcome> {
        Box::pin(async move {
            let request = KeeperCreateRequest {
                name: intent.name.clone(),
            };
            let body = Value::Object(intent.declaration);
            let exchange = client.post_json(&auth, CREATE_PATH, &body).await;
            classify_exchange(&exchange, &request, classify_keeper_create)
        })
    }

    fn payload(event: SaveEvent<Self>) -> KeepersObservation {
        KeepersObservation::Op(Box::new(KeeperOpEvent::Create(event)))
    }
}
