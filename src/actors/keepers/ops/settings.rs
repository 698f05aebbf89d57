//! The settings save of `e` (protocol.md §9.6; §11 "Keeper settings and sandbox profile";
//! sources.md H-4…H-7): the edited text's changed keys, and the composite revision of the very
//! snapshot the editor opened on, owned by one save job. The worker sends them once with CAS
//! (`expected_config_revision` exactly as read); it never re-reads first — a change made since
//! the editor opened is the server's revision conflict, never silently overwritten. One per
//! Keeper in flight (a repeated submit shares the job, H-4); Sandbox and assignment of the same
//! Keeper are refused meanwhile by the view (H-11).

use super::{KeeperOpEvent, KeeperOpSlot};
use crate::actors::keepers::{KeepersObservation, KeepersSlot};
use crate::actors::saves::{SaveEvent, SaveId, SaveKind};
use crate::protocol::admission::ReadAuthority;
use crate::protocol::client::WorkspaceClient;
use crate::protocol::keeper_config::{CompositeRevision, KeeperConfigSaveRequest};
use crate::protocol::keeper_ops::keeper_config_path;
use crate::protocol::outcome::{
    KeeperConfigOutcome, SaveOutcome, classify_exchange, classify_keeper_config_save,
};
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// What the operator saved: only the keys they changed (§9.6 patch form), against the revision
/// of the snapshot the editor opened on. `confirm_context_shrink` is this edit's own answer,
/// never carried over from an earlier one (H-7).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SettingsIntent {
    pub keeper: String,
    pub expected: CompositeRevision,
    pub patch: Map<String, Value>,
    #[serde(default)]
    pub confirm_context_shrink: bool,
    /// The patched keys' values in the snapshot `expected` names (the editor's base): what
    /// was there before, exactly, once the server's CAS accepted the patch — the undo's patch.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub before: Map<String, Value>,
}

impl SettingsIntent {
    /// The POST body: the changed keys, `expected_config_revision` exactly as read, and the
    /// shrink confirmation only when the context is among the changes.
    pub fn body(&self) -> Value {
        let mut body = self.patch.clone();
        if self.confirm_context_shrink && body.contains_key("max_context_override") {
            body.insert("confirm_context_shrink".into(), Value::Bool(true));
        }
        body.insert(
            "expected_config_revision".into(),
            serde_json::to_value(&self.expected).unwrap_or(Value::Null),
        );
        Value::Object(body)
    }

    /// The changed keys, for the operation line (identifiers only).
    pub fn keys(&self) -> Vec<&str> {
        self.patch
            .keys()
            .map(String::as_str)
            .filter(|k| *k != "remote_endpoint")
            .collect()
    }
}

/// The kind.
#[derive(Debug)]
pub struct SettingsSave;

impl SaveKind for SettingsSave {
    const KIND: &'static str = "keeper_settings";
    type Slot = KeepersSlot;
    type Payload = KeepersObservation;
    type Intent = SettingsIntent;
    type Receipt = KeeperConfigOutcome;

    fn slot(save_id: &SaveId, _intent: &SettingsIntent) -> KeepersSlot {
        KeepersSlot::Op(KeeperOpSlot::Settings(save_id.clone()))
    }

    /// One settings save per Keeper in flight (H-4).
    fn intent_key(intent: &SettingsIntent) -> String {
        intent.keeper.clone()
    }

    fn target(intent: &SettingsIntent) -> String {
        intent.keeper.clone()
    }

    fn perform(
        client: WorkspaceClient,
        auth: ReadAuthority,
        intent: SettingsIntent,
    ) -> BoxFuture<'static, KeeperConfigOutcome> {
        Box::pin(async move {
            if intent.patch.is_empty() {
                // §9.6: an empty patch is not sent.
                return SaveOutcome::Unchanged;
            }
            let request = KeeperConfigSaveRequest {
                keeper: intent.keeper.clone(),
                expected: intent.expected.clone(),
            };
            let exchange = client
                .post_json(&auth, &keeper_config_path(&intent.keeper), &intent.body())
                .await;
            classify_exchange(&exchange, &request, classify_keeper_config_save)
        })
    }

    fn payload(event: SaveEvent<Self>) -> KeepersObservation {
        KeepersObservation::Op(Box::new(KeeperOpEvent::Settings(event)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::keeper_config::{ManifestRevision, RuntimeAssignmentRevision};
    use serde_json::json;

    fn rev() -> CompositeRevision {
        CompositeRevision {
            manifest: ManifestRevision::Missing {},
            runtime_assignment: RuntimeAssignmentRevision::RuntimeConfigMissing {},
        }
    }

    #[test]
    fn body_is_the_changed_keys_and_the_revision_as_read_s9_6() {
        let mut patch = Map::new();
        patch.insert("autoboot_enabled".into(), json!(false));
        let intent = SettingsIntent {
            keeper: "rondo".into(),
            expected: rev(),
            patch,
            confirm_context_shrink: true,
            before: Map::new(),
        };
        assert_eq!(
            intent.body(),
            json!({"autoboot_enabled": false, "expected_config_revision":
                   {"manifest":{"state":"missing"},"runtime_assignment":{"state":"runtime_config_missing"}}})
        );
        let mut with_context = intent.clone();
        with_context
            .patch
            .insert("max_context_override".into(), json!(1000));
        assert_eq!(
            with_context.body()["confirm_context_shrink"],
            json!(true),
            "sent only with a context change"
        );
    }
}
