//! The settings preparation of `e` (protocol.md §9.5; sources.md H-1…H-3): one owned read per
//! request — the submit-time workspace is the read's confirmed authority, the settings
//! snapshot is read, and the workspace is reconfirmed with a fresh `/health` before the
//! snapshot is handed to the view. Key handling never waits on it: the view sends
//! [`KeeperSettingsCommand::Prepare`] and goes on; the result lands in the Keepers surface's
//! [`KeepersSlot::Settings`] slot with the ticket captured at dispatch.
//!
//! One slot, re-aimed at the Keeper each preparation is for: a preparation for another Keeper
//! supersedes the read in flight (its late answer is rejected by ticket), a repeated `e` for
//! the same Keeper is shared by the view (it sends nothing). Withdrawal retires the read.
//! No cadence: it reads only when asked. Ownership contract: docs/audits/keeper-settings.md.

use super::ops::{OWNER_NOT_RECONFIRMED, reconfirm};
use super::{KeepersObservation, KeepersSlot};
use crate::actors::contract::{
    DemandKind, GenerationBook, IdentityState, Outlet, SourceContext, SourceKey,
};
use crate::actors::read::shell::{Ctl, Myself, OnCommand, OwnKey, SourceState};
use crate::actors::read::{ExplicitPolicy, ReadOwner, Reader, SlotSpec, WorkerReturn, reader};
use crate::protocol::client::{ClientError, WorkspaceClient};
use crate::protocol::keeper_config::{CompositeRevision, KeeperConfigSnapshot};
use crate::protocol::keeper_ops::keeper_config_path;
use std::sync::Arc;

/// The settings preparation source (supervision key).
pub const KEEPER_SETTINGS: SourceKey = SourceKey("keeper_settings");

/// What the view asks of the preparation source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeeperSettingsCommand {
    /// `e`: read `keeper`'s settings snapshot now (supersedes a read in flight).
    Prepare { keeper: String },
}

/// Why a preparation produced no snapshot to edit.
#[derive(Debug, Clone, PartialEq)]
pub enum SettingsSnapshotFailure {
    /// The snapshot read failed (its class).
    Read(ClientError),
    /// `config_revision` is `unavailable`: editing is refused (§9.5).
    RevisionUnavailable(String),
    /// The snapshot names another Keeper.
    OtherKeeper,
    /// The reconfirmation after the read served another workspace, a booting one, or failed.
    NotReconfirmed(String),
}

impl SettingsSnapshotFailure {
    /// The trace outcome (no body text, G-10).
    pub fn class(&self) -> String {
        match self {
            Self::Read(e) => e.class().to_string(),
            Self::RevisionUnavailable(_) => "revision_unavailable".into(),
            Self::OtherKeeper => "snapshot_other_keeper".into(),
            Self::NotReconfirmed(_) => OWNER_NOT_RECONFIRMED.into(),
        }
    }

    /// Words for the footer.
    pub fn words(&self) -> String {
        match self {
            Self::Read(e) => format!("settings snapshot could not be read ({})", e.class()),
            Self::RevisionUnavailable(detail) => {
                format!("settings revision unavailable, editing refused ({detail})")
            }
            Self::OtherKeeper => "settings snapshot names another keeper".into(),
            Self::NotReconfirmed(why) => format!("workspace not reconfirmed ({why})"),
        }
    }
}

/// A snapshot to edit: the text and the patch base both come from it (H-3).
#[derive(Debug, Clone, PartialEq)]
pub struct EditableSettings {
    pub snapshot: Arc<KeeperConfigSnapshot>,
    pub revision: CompositeRevision,
}

/// One preparation's result, for the Keeper it was launched for.
#[derive(Debug, Clone, PartialEq)]
pub struct SettingsPrepared {
    pub keeper: String,
    pub outcome: Result<EditableSettings, SettingsSnapshotFailure>,
}

impl SettingsPrepared {
    pub fn trace_outcome(&self) -> String {
        match &self.outcome {
            Ok(_) => "ok".into(),
            Err(f) => f.class(),
        }
    }
}

/// The reader for `keeper`: snapshot, then the reconfirmation (H-1).
pub fn settings_reader(keeper: String) -> Reader<KeepersObservation> {
    reader(move |auth, client| {
        let keeper = keeper.clone();
        async move {
            let outcome = prepare(&client, &auth, &keeper).await;
            KeepersObservation::Settings(Box::new(SettingsPrepared { keeper, outcome }))
        }
    })
}

async fn prepare(
    client: &WorkspaceClient,
    auth: &crate::protocol::admission::ReadAuthority,
    keeper: &str,
) -> Result<EditableSettings, SettingsSnapshotFailure> {
    let admitted = client
        .get::<KeeperConfigSnapshot>(auth, &keeper_config_path(keeper))
        .await
        .map_err(SettingsSnapshotFailure::Read)?;
    let snapshot = admitted.value;
    if snapshot.name.as_deref().is_some_and(|n| n != keeper) {
        return Err(SettingsSnapshotFailure::OtherKeeper);
    }
    let revision = match &snapshot.config_revision {
        crate::protocol::keeper_config::ConfigRevision::Composite(c) => c.clone(),
        crate::protocol::keeper_config::ConfigRevision::Unavailable { detail } => {
            return Err(SettingsSnapshotFailure::RevisionUnavailable(detail.clone()));
        }
    };
    reconfirm(client, auth)
        .await
        .map_err(SettingsSnapshotFailure::NotReconfirmed)?;
    Ok(EditableSettings { snapshot, revision })
}

type Owner = ReadOwner<KeepersSlot, KeepersObservation, Myself<KeeperSettingsState>>;

crate::source_commands!(KeepersSlot, KeepersObservation, KeeperSettingsCommand);

pub struct KeeperSettingsState {
    owner: Owner,
    outlet: Outlet<KeepersSlot, KeepersObservation>,
    myself: Myself<Self>,
    client: WorkspaceClient,
    generations: GenerationBook,
}

impl KeeperSettingsState {
    fn fresh_owner(&self) -> Owner {
        let mut owner = ReadOwner::new(
            self.outlet.clone(),
            self.myself.clone(),
            self.client.clone(),
        );
        owner.add_slot(slot(&self.generations, ""));
        owner
    }
}

fn slot(generations: &GenerationBook, keeper: &str) -> SlotSpec<KeepersSlot, KeepersObservation> {
    SlotSpec {
        generations: generations.counter(&KeepersSlot::Settings),
        key: KeepersSlot::Settings,
        explicit: ExplicitPolicy::Supersede,
        standing: false,
        reader: settings_reader(keeper.to_string()),
    }
}

impl SourceState for KeeperSettingsState {
    type Slot = KeepersSlot;
    type Payload = KeepersObservation;
    type Command = KeeperSettingsCommand;
    type Args = ();

    fn start(ctx: SourceContext, myself: &Myself<Self>, _args: ()) -> Self {
        let outlet: Outlet<KeepersSlot, KeepersObservation> = ctx.outlet();
        let mut owner = ReadOwner::new(outlet.clone(), myself.clone(), ctx.client.clone());
        owner.add_slot(slot(&ctx.generations, ""));
        KeeperSettingsState {
            owner,
            outlet,
            myself: myself.clone(),
            client: ctx.client,
            generations: ctx.generations,
        }
    }

    fn command(&mut self, _ctl: &mut Ctl<Self>, command: KeeperSettingsCommand) {
        match command {
            KeeperSettingsCommand::Prepare { keeper } => {
                self.owner
                    .set_reader(&KeepersSlot::Settings, settings_reader(keeper));
                self.owner
                    .demand(&KeepersSlot::Settings, DemandKind::Explicit);
            }
        }
    }

    /// Only `e` reads: a general refresh is no preparation.
    fn demand(&mut self, _ctl: &mut Ctl<Self>, _kind: DemandKind) {}

    fn identity(&mut self, _ctl: &mut Ctl<Self>, identity: IdentityState) {
        let _ = self.owner.identity(&identity);
        if !matches!(identity, IdentityState::Confirmed { .. }) {
            // The read in flight was retired (the view cancels its preparation, H-2); it is
            // not read again on the next confirmation: only a new `e` reads. A fresh owner
            // forgets the demand (generations continue: G-6).
            self.owner = self.fresh_owner();
            let _ = self.owner.identity(&identity);
        }
    }

    fn returned(
        &mut self,
        _ctl: &mut Ctl<Self>,
        ret: WorkerReturn<KeepersSlot, KeepersObservation>,
    ) -> bool {
        let _ = self.owner.worker_returned(ret);
        false
    }

    fn stop(&mut self, reason: &str) {
        self.owner.retire_all(reason);
    }
}

impl OwnKey for KeeperSettingsState {
    const KEY: SourceKey = KEEPER_SETTINGS;
}

/// Spawns the settings preparation source under the supervisor.
pub type KeeperSettingsSpawner = OnCommand<KeeperSettingsState>;
