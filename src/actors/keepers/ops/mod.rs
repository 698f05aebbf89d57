//! Keeper operations as saves (protocol.md §9.5–§9.8, §11; sources.md
//! H-8…H-13). Each operation is its own [`SaveKind`] beside this file, run by the save hub;
//! its receipts land in the Keepers surface's own slot, [`KeeperOpSlot`]. Ownership contract
//! and tested faults: docs/audits/keeper-ops.md.
//!
//! What every kind here shares: the worker reads a fresh settings snapshot (§9.5) itself —
//! never a revision cached by a pane (H-8, H-10) — and reconfirms the submit-time workspace
//! with a fresh `/health` just before its POST; the server's CAS stays the last word.

pub mod assignment;
pub mod create;
pub mod lifecycle;
pub mod sandbox;
pub mod settings;

use crate::actors::saves::{SaveEvent, SaveId, SaveKind};
use crate::protocol::admission::ReadAuthority;
use crate::protocol::client::WorkspaceClient;
use crate::protocol::keeper_config::{CompositeRevision, KeeperConfigSnapshot};
use crate::protocol::keeper_ops::keeper_config_path;
use assignment::AssignmentSave;
use create::CreateSave;
use lifecycle::LifecycleSave;
use sandbox::SandboxSave;
use settings::SettingsSave;

/// The fresh settings snapshot could not be read: nothing was sent.
pub const SNAPSHOT_UNREAD: &str = "snapshot_unread";
/// The snapshot's `config_revision` is `unavailable`: editing is refused (§9.5).
pub const REVISION_UNAVAILABLE: &str = "revision_unavailable";
/// The snapshot names another Keeper.
pub const SNAPSHOT_OTHER_KEEPER: &str = "snapshot_other_keeper";
/// The fresh §14.7 metadata read a resume takes its `owner_nonce` from failed: nothing was
/// sent.
pub const STATUS_UNREAD: &str = "keeper_status_unread";
/// The reconfirmation just before the POST served another workspace, a booting one, or
/// failed (H-8, H-10): nothing was sent.
pub const OWNER_NOT_RECONFIRMED: &str = "owner_not_reconfirmed";

/// What a screen says for this module's tokens and the machinery's
/// ([`crate::actors::saves::refusal`]); anything else (a server's reason) as it is.
pub fn describe(reason: &str) -> &str {
    match reason {
        SNAPSHOT_UNREAD => "settings snapshot could not be read",
        REVISION_UNAVAILABLE => "settings revision unavailable (editing refused)",
        SNAPSHOT_OTHER_KEEPER => "settings snapshot names another keeper",
        OWNER_NOT_RECONFIRMED => "workspace not reconfirmed before sending",
        other if other.starts_with(STATUS_UNREAD) => {
            "keeper metadata (its generation) could not be read"
        }
        other if other.starts_with(SNAPSHOT_UNREAD) => "settings snapshot could not be read",
        other if other.starts_with(OWNER_NOT_RECONFIRMED) => {
            "workspace not reconfirmed before sending"
        }
        other => crate::actors::saves::refusal::describe(other),
    }
}

/// One Keeper operation save: its own slot in the Keepers surface.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum KeeperOpSlot {
    /// Sandbox `d` / `m` / `s` (§9.7).
    Sandbox(SaveId),
    /// Runtime picker `U` (§9.8).
    Assignment(SaveId),
    /// Roster `p` / `w` / `s` / `x` / `g` (§14.1–§14.4).
    Lifecycle(SaveId),
    /// Settings `e` (§9.6).
    Settings(SaveId),
    /// Create Keeper `a` (§9.9).
    Create(SaveId),
}

impl KeeperOpSlot {
    pub fn trace_name(&self) -> String {
        let kind = match self {
            Self::Sandbox(_) => SandboxSave::KIND,
            Self::Assignment(_) => AssignmentSave::KIND,
            Self::Lifecycle(_) => LifecycleSave::KIND,
            Self::Settings(_) => SettingsSave::KIND,
            Self::Create(_) => CreateSave::KIND,
        };
        format!("save:{kind}")
    }

    pub fn save_id(&self) -> &SaveId {
        match self {
            Self::Sandbox(id)
            | Self::Assignment(id)
            | Self::Lifecycle(id)
            | Self::Settings(id)
            | Self::Create(id) => id,
        }
    }
}

/// A step or the receipt of one Keeper operation save.
#[derive(Debug, Clone)]
pub enum KeeperOpEvent {
    Sandbox(SaveEvent<SandboxSave>),
    Assignment(SaveEvent<AssignmentSave>),
    Lifecycle(SaveEvent<LifecycleSave>),
    Settings(SaveEvent<SettingsSave>),
    Create(SaveEvent<CreateSave>),
}

impl KeeperOpEvent {
    /// The `outcome` of its stage events.
    pub fn trace_outcome(&self) -> String {
        match self {
            Self::Sandbox(e) => e.step.trace_outcome(),
            Self::Assignment(e) => e.step.trace_outcome(),
            Self::Lifecycle(e) => e.step.trace_outcome(),
            Self::Settings(e) => e.step.trace_outcome(),
            Self::Create(e) => e.step.trace_outcome(),
        }
    }

    pub fn save_id(&self) -> &SaveId {
        match self {
            Self::Sandbox(e) => &e.save_id,
            Self::Assignment(e) => &e.save_id,
            Self::Lifecycle(e) => &e.save_id,
            Self::Settings(e) => &e.save_id,
            Self::Create(e) => &e.save_id,
        }
    }
}

/// A fresh §9.5 snapshot of `keeper` and its composite revision, read by the worker itself.
pub(crate) async fn fresh_revision(
    client: &WorkspaceClient,
    auth: &ReadAuthority,
    keeper: &str,
) -> Result<(KeeperConfigSnapshot, CompositeRevision), String> {
    let snapshot = client
        .get::<KeeperConfigSnapshot>(auth, &keeper_config_path(keeper))
        .await
        .map_err(|e| format!("{SNAPSHOT_UNREAD}: {}", e.class()))?;
    let snapshot = (*snapshot.value).clone();
    if snapshot.name.as_deref().is_some_and(|n| n != keeper) {
        return Err(SNAPSHOT_OTHER_KEEPER.to_string());
    }
    let composite = snapshot
        .config_revision
        .composite()
        .cloned()
        .ok_or_else(|| REVISION_UNAVAILABLE.to_string())?;
    Ok((snapshot, composite))
}

/// Reconfirms the submit-time workspace just before the POST (H-8, H-10).
pub(crate) async fn reconfirm(
    client: &WorkspaceClient,
    auth: &ReadAuthority,
) -> Result<(), String> {
    match client.health().await {
        Ok(h) if h.paths.effective_masc_root == auth.expected_root && !h.is_booting() => Ok(()),
        Ok(_) => Err(OWNER_NOT_RECONFIRMED.to_string()),
        Err(e) => Err(format!("{OWNER_NOT_RECONFIRMED}: {}", e.class())),
    }
}
