//! Create Keeper `a` (protocol.md §9.9, the create-only `POST /api/v1/keepers`; §11 "Keeper
//! create"; sources.md H-14…H-17). The declaration comes back from `$EDITOR`; the save job owns
//! it: the machinery's outbox row and fresh `/health` are the workspace confirm ("confirming"),
//! then one create-only POST ("sending"), then the terminal receipt — not sent, rejected
//! (invalid, or the name exists: never changed), created (with the lane's start), or result
//! unconfirmed (a drop or a failure after the POST may have created it). Never resent. One
//! create per name in flight.
//!
//! Where the create-only route is not served and MASC's create-or-update `/up` is (newer MASC,
//! protocol-15 §15.11), the operator asks for `/up` explicitly (the view offers it only after
//! the create-only route answered "not served", and says the race window before the editor):
//! the job then reads the name's existence fresh (`/gate/keeper-status`, uncached), refuses an
//! existing or unconfirmable name without sending, and sends `/up` at once; an update reply is
//! an existing Keeper reconfigured, never "created". Never a silent fallback.

use super::{KeeperOpEvent, KeeperOpSlot};
use crate::actors::keepers::{KeepersObservation, KeepersSlot};
use crate::actors::saves::{SaveEvent, SaveId, SaveKind};
use crate::protocol::admission::ReadAuthority;
use crate::protocol::client::WorkspaceClient;
use crate::protocol::keeper_config::KeeperCreateRequest;
use crate::protocol::keeper_detail::status::{KeeperStatus, keeper_status_path, not_registered};
use crate::protocol::keeper_up::{classify_keeper_up, keeper_up_path};
use crate::protocol::outcome::{
    KeeperCreateOutcome, SaveOutcome, classify_exchange, classify_keeper_create, classify_transport,
};
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The create-only route (§9.9; a masc-tui extension, per seed 001).
pub const CREATE_PATH: &str = "/api/v1/keepers";

/// What the operator declared: the name and every key of the declaration (MASC's `/up` keys),
/// sent as it is, and the route the operator chose.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreateIntent {
    pub name: String,
    pub declaration: Map<String, Value>,
    #[serde(default)]
    pub route: CreateRoute,
}

/// Which route a create goes by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CreateRoute {
    /// The create-only `POST /api/v1/keepers` (§9.9): an existing name is refused.
    #[default]
    CreateOnly,
    /// MASC's create-or-update `/up` after the existence check (§15.11), asked for by the
    /// operator with the race window said.
    UpAfterCheck,
}

/// Why a create through `/up` was not sent (§15.11 step 3; closed vocabulary).
pub const NAME_EXISTS: &str = "keeper_name_exists";
/// The existence of the name could not be confirmed (the read failed or was refused).
pub const NAME_UNCONFIRMED: &str = "keeper_name_unconfirmed";

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
            match intent.route {
                CreateRoute::CreateOnly => {
                    let body = Value::Object(intent.declaration);
                    let exchange = client.post_json(&auth, CREATE_PATH, &body).await;
                    classify_exchange(&exchange, &request, classify_keeper_create)
                }
                CreateRoute::UpAfterCheck => up_after_check(client, auth, intent, request).await,
            }
        })
    }

    fn payload(event: SaveEvent<Self>) -> KeepersObservation {
        KeepersObservation::Op(Box::new(KeeperOpEvent::Create(event)))
    }
}

/// §15.11 steps 2–5: the name's existence read fresh, immediately before sending (the status
/// route checks MASC's metadata store uncached; `/config` and `/composite` are cached and not
/// used); an existing name or one that cannot be confirmed absent is not sent; else `/up` at
/// once, its reply classified by shape.
async fn up_after_check(
    client: WorkspaceClient,
    auth: ReadAuthority,
    intent: CreateIntent,
    request: KeeperCreateRequest,
) -> KeeperCreateOutcome {
    let name = intent.name.clone();
    let status = client
        .get_with(&auth, &keeper_status_path(&name), {
            let name = name.clone();
            move |b: &[u8]| KeeperStatus::decode_for(b, &name)
        })
        .await;
    match status {
        Ok(_) => {
            return SaveOutcome::NotSent {
                reason: NAME_EXISTS.into(),
            };
        }
        Err(e) if not_registered(&e).is_some() => {}
        Err(e) => {
            tracing::info!(
                target: "masc_tui::keeper_ops",
                class = %e.class(),
                "keeper up: the name's absence could not be confirmed; not sent"
            );
            return SaveOutcome::NotSent {
                reason: format!("{NAME_UNCONFIRMED}:{}", e.class()),
            };
        }
    }
    let declaration = intent.declaration;
    let body = Value::Object(declaration.clone());
    let exchange = client.post_json(&auth, &keeper_up_path(&name), &body).await;
    match classify_transport(&exchange) {
        Ok((status, bytes)) => classify_keeper_up(status, bytes, &request, &declaration),
        Err(outcome) => outcome,
    }
}
