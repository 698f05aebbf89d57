//! The runtime assignment save (protocol.md §9.8; §11 "Runtime assignment"; sources.md
//! H-10…H-13): the `U` picker captures the Keeper and a concrete Runtime or "back to default";
//! the worker reads a fresh §9.5 snapshot for `config_revision.runtime_assignment`, reconfirms
//! the workspace just before the POST, and the server's CAS remains. Every 400 is outcome
//! unknown (MASC answers 400 for validation and for an I/O or atomic-replace failure alike,
//! H-12). Never resent; only the operator's next explicit choice reads again (H-13).

use super::{KeeperOpEvent, KeeperOpSlot, fresh_revision, reconfirm};
use crate::actors::keepers::{KeepersObservation, KeepersSlot};
use crate::actors::saves::{SaveEvent, SaveId, SaveKind};
use crate::protocol::admission::ReadAuthority;
use crate::protocol::client::WorkspaceClient;
use crate::protocol::keeper_config::{
    AssignmentState, RuntimeAssignmentRequest, RuntimeAssignmentRevision,
};
use crate::protocol::keeper_ops::ASSIGNMENT_PATH;
use crate::protocol::outcome::{
    RuntimeAssignmentOutcome, SaveOutcome, classify_exchange, classify_runtime_assignment,
};
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::json;

/// What the operator chose: this Keeper on this Runtime, or back to the default (`None`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AssignmentIntent {
    pub keeper: String,
    pub runtime_id: Option<String>,
    /// An undo's guard: sent against exactly this revision (the one the undone save produced)
    /// instead of a fresh read's, so the server refuses it when the assignment moved since.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub only_at: Option<Box<RuntimeAssignmentRevision>>,
}

impl AssignmentIntent {
    /// The choice's words on screen.
    pub fn choice(&self) -> String {
        match &self.runtime_id {
            Some(id) => id.clone(),
            None => "default runtime".into(),
        }
    }
}

/// The kind.
#[derive(Debug)]
pub struct AssignmentSave;

impl SaveKind for AssignmentSave {
    const KIND: &'static str = "keeper_assignment";
    type Slot = KeepersSlot;
    type Payload = KeepersObservation;
    type Intent = AssignmentIntent;
    type Receipt = RuntimeAssignmentOutcome;

    fn slot(save_id: &SaveId, _intent: &AssignmentIntent) -> KeepersSlot {
        KeepersSlot::Op(KeeperOpSlot::Assignment(save_id.clone()))
    }

    /// One assignment per Keeper in flight.
    fn intent_key(intent: &AssignmentIntent) -> String {
        intent.keeper.clone()
    }

    fn target(intent: &AssignmentIntent) -> String {
        intent.keeper.clone()
    }

    fn perform(
        client: WorkspaceClient,
        auth: ReadAuthority,
        intent: AssignmentIntent,
    ) -> BoxFuture<'static, RuntimeAssignmentOutcome> {
        Box::pin(async move {
            // H-10: config GET (fresh), then the assignment POST; an undo is sent against the
            // revision its save produced (the server's CAS refuses it if anything moved).
            let expected = match &intent.only_at {
                Some(revision) => (**revision).clone(),
                None => match fresh_revision(&client, &auth, &intent.keeper).await {
                    Ok((_, composite)) => composite.runtime_assignment,
                    Err(reason) => return SaveOutcome::NotSent { reason },
                },
            };
            let replaced = match &expected {
                RuntimeAssignmentRevision::RuntimeConfigPresent {
                    assignment: AssignmentState::Assigned { runtime_id },
                    ..
                } => Some(runtime_id.clone()),
                _ => None,
            };
            if let Err(reason) = reconfirm(&client, &auth).await {
                return SaveOutcome::NotSent { reason };
            }
            let body = json!({
                "keeper_name": intent.keeper,
                "runtime_id": intent.runtime_id,
                "expected_assignment_revision": expected,
            });
            let request = RuntimeAssignmentRequest {
                keeper_name: intent.keeper.clone(),
                runtime_id: intent.runtime_id.clone(),
                expected,
            };
            let exchange = client.post_json(&auth, ASSIGNMENT_PATH, &body).await;
            let mut outcome = classify_exchange(&exchange, &request, classify_runtime_assignment);
            if let SaveOutcome::Applied { detail, .. } = &mut outcome {
                // What this save replaced, as read for it: the undo puts back exactly that.
                detail.replaced_assignment = Some(replaced);
            }
            outcome
        })
    }

    fn payload(event: SaveEvent<Self>) -> KeepersObservation {
        KeepersObservation::Op(Box::new(KeeperOpEvent::Assignment(event)))
    }
}
