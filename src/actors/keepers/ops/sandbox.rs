//! The Sandbox profile save (protocol.md §9.7, a §9.6 patch; §11 "Keeper settings and sandbox
//! profile"; sources.md H-8, H-9, H-11): `d` / `m` / `s` in the Keeper detail capture the typed
//! profile; the worker reads the latest snapshot and composite revision, sends nothing when the
//! profile already holds ("unchanged, not sent"), reconfirms the workspace and CAS-sends only
//! that profile (and its default network mode). One per Keeper in flight: another profile key
//! never alters the original request (H-9).

use super::{KeeperOpEvent, KeeperOpSlot, fresh_revision, reconfirm};
use crate::actors::keepers::{KeepersObservation, KeepersSlot};
use crate::actors::saves::{SaveEvent, SaveId, SaveKind};
use crate::protocol::admission::ReadAuthority;
use crate::protocol::client::WorkspaceClient;
use crate::protocol::keeper_config::{
    KeeperConfigSaveRequest, NetworkMode, ReplacedSandbox, SandboxProfile,
};
use crate::protocol::keeper_ops::keeper_config_path;
use crate::protocol::outcome::{
    KeeperConfigApplied, KeeperConfigOutcome, SaveOutcome, classify_exchange,
    classify_keeper_config_save,
};
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// What the operator asked: this Keeper on this profile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SandboxIntent {
    pub keeper: String,
    pub profile: SandboxProfile,
}

impl SandboxIntent {
    /// §9.7 defaults: `none` for docker and microvm, `inherit` for remote_ssh.
    pub fn network(&self) -> NetworkMode {
        match self.profile {
            SandboxProfile::Docker | SandboxProfile::Microvm => NetworkMode::None,
            SandboxProfile::RemoteSsh => NetworkMode::Inherit,
        }
    }

    /// The patch: the profile, its network mode, and `remote_endpoint: null` when leaving
    /// `remote_ssh` (§9.7); the revision exactly as read.
    pub fn patch(&self, current: SandboxProfile, expected: &Value) -> Value {
        let mut body = json!({
            "expected_config_revision": expected,
            "sandbox_profile": self.profile,
            "network_mode": self.network(),
        });
        if current == SandboxProfile::RemoteSsh
            && self.profile != SandboxProfile::RemoteSsh
            && let Some(obj) = body.as_object_mut()
        {
            obj.insert("remote_endpoint".into(), Value::Null);
        }
        body
    }
}

/// The profile's word on screen (surfaces.md: docker, microvm, local).
pub fn profile_word(profile: SandboxProfile) -> &'static str {
    match profile {
        SandboxProfile::Docker => "docker",
        SandboxProfile::Microvm => "microvm",
        SandboxProfile::RemoteSsh => "remote_ssh",
    }
}

/// The kind.
#[derive(Debug)]
pub struct SandboxSave;

impl SaveKind for SandboxSave {
    const KIND: &'static str = "keeper_sandbox";
    type Slot = KeepersSlot;
    type Payload = KeepersObservation;
    type Intent = SandboxIntent;
    type Receipt = KeeperConfigOutcome;

    fn slot(save_id: &SaveId, _intent: &SandboxIntent) -> KeepersSlot {
        KeepersSlot::Op(KeeperOpSlot::Sandbox(save_id.clone()))
    }

    /// One sandbox save per Keeper in flight, whatever the profile (H-9).
    fn intent_key(intent: &SandboxIntent) -> String {
        intent.keeper.clone()
    }

    fn target(intent: &SandboxIntent) -> String {
        intent.keeper.clone()
    }

    fn perform(
        client: WorkspaceClient,
        auth: ReadAuthority,
        intent: SandboxIntent,
    ) -> BoxFuture<'static, KeeperConfigOutcome> {
        Box::pin(async move {
            // H-8: the latest snapshot, read now; never a revision cached by a pane.
            let (snapshot, expected) = match fresh_revision(&client, &auth, &intent.keeper).await {
                Ok(read) => read,
                Err(reason) => return SaveOutcome::NotSent { reason },
            };
            if snapshot.sandbox_profile == intent.profile {
                // Verified against the fresh revision: nothing needs writing, nothing is sent.
                return SaveOutcome::Unchanged;
            }
            if let Err(reason) = reconfirm(&client, &auth).await {
                return SaveOutcome::NotSent { reason };
            }
            let Ok(expected_json) = serde_json::to_value(&expected) else {
                return SaveOutcome::NotSent {
                    reason: super::REVISION_UNAVAILABLE.into(),
                };
            };
            let body = intent.patch(snapshot.sandbox_profile, &expected_json);
            let request = KeeperConfigSaveRequest {
                keeper: intent.keeper.clone(),
                expected,
            };
            let exchange = client
                .post_json(&auth, &keeper_config_path(&intent.keeper), &body)
                .await;
            let mut outcome = classify_exchange(&exchange, &request, classify_keeper_config_save);
            if let SaveOutcome::Applied {
                detail: KeeperConfigApplied::Written(write),
                ..
            } = &mut outcome
            {
                // What this worker read just before writing: the undo puts back exactly that.
                write.replaced = Some(ReplacedSandbox {
                    profile: snapshot.sandbox_profile,
                    network: snapshot.network_mode,
                });
            }
            outcome
        })
    }

    fn payload(event: SaveEvent<Self>) -> KeepersObservation {
        KeepersObservation::Op(Box::new(KeeperOpEvent::Sandbox(event)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaving_remote_ssh_clears_the_endpoint_and_defaults_the_network_h8_s9_7() {
        let to_docker = SandboxIntent {
            keeper: "alpha".into(),
            profile: SandboxProfile::Docker,
        };
        let rev = json!({"manifest":{"state":"missing"}});
        assert_eq!(
            to_docker.patch(SandboxProfile::RemoteSsh, &rev),
            json!({"expected_config_revision": rev, "sandbox_profile":"docker",
                   "network_mode":"none", "remote_endpoint": null})
        );
        assert_eq!(
            to_docker.patch(SandboxProfile::Microvm, &rev),
            json!({"expected_config_revision": rev, "sandbox_profile":"docker",
                   "network_mode":"none"})
        );
        let to_ssh = SandboxIntent {
            keeper: "alpha".into(),
            profile: SandboxProfile::RemoteSsh,
        };
        assert_eq!(to_ssh.network(), NetworkMode::Inherit);
    }
}
