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
    DemandKind, GenerationBook, IdentityState, Outlet, SourceContext, SourceControl, SourceHandle,
    SourceKey, SourceSpawner,
};
use crate::actors::read::drill::inject_panic;
use crate::actors::read::{
    ExplicitPolicy, ReadOwner, Reader, SlotSpec, SourceMsg, reader, spawn_source_with,
};
use crate::protocol::client::{ClientError, WorkspaceClient};
use crate::protocol::keeper_config::{CompositeRevision, KeeperConfigSnapshot};
use crate::protocol::keeper_ops::keeper_config_path;
use futures::future::BoxFuture;
use ractor::{Actor, ActorCell, ActorProcessingErr, ActorRef, SpawnErr};
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
pub enum PrepFailure {
    /// The snapshot read failed (its class).
    Read(ClientError),
    /// `config_revision` is `unavailable`: editing is refused (§9.5).
    RevisionUnavailable(String),
    /// The snapshot names another Keeper.
    OtherKeeper,
    /// The reconfirmation after the read served another workspace, a booting one, or failed.
    NotReconfirmed(String),
}

impl PrepFailure {
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
pub struct PreparedSettings {
    pub snapshot: Arc<KeeperConfigSnapshot>,
    pub revision: CompositeRevision,
}

/// One preparation's result, for the Keeper it was launched for.
#[derive(Debug, Clone, PartialEq)]
pub struct SettingsPrepared {
    pub keeper: String,
    pub outcome: Result<PreparedSettings, PrepFailure>,
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
) -> Result<PreparedSettings, PrepFailure> {
    let admitted = client
        .get::<KeeperConfigSnapshot>(auth, &keeper_config_path(keeper))
        .await
        .map_err(PrepFailure::Read)?;
    let snapshot = admitted.value;
    if snapshot.name.as_deref().is_some_and(|n| n != keeper) {
        return Err(PrepFailure::OtherKeeper);
    }
    let revision = match &snapshot.config_revision {
        crate::protocol::keeper_config::ConfigRevision::Composite(c) => c.clone(),
        crate::protocol::keeper_config::ConfigRevision::Unavailable { detail } => {
            return Err(PrepFailure::RevisionUnavailable(detail.clone()));
        }
    };
    reconfirm(client, auth)
        .await
        .map_err(PrepFailure::NotReconfirmed)?;
    Ok(PreparedSettings { snapshot, revision })
}

type Msg = SourceMsg<KeepersSlot, KeepersObservation, KeeperSettingsCommand>;
type Owner = ReadOwner<KeepersSlot, KeepersObservation, ActorRef<Msg>>;

crate::source_commands!(KeepersSlot, KeepersObservation, KeeperSettingsCommand);

pub struct KeeperSettingsSource;

pub struct KeeperSettingsState {
    owner: Owner,
    outlet: Outlet<KeepersSlot, KeepersObservation>,
    myself: ActorRef<Msg>,
    client: WorkspaceClient,
    generations: GenerationBook,
    fault_drills: bool,
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

impl Actor for KeeperSettingsSource {
    type Msg = Msg;
    type State = KeeperSettingsState;
    type Arguments = SourceContext;

    async fn pre_start(
        &self,
        myself: ActorRef<Msg>,
        ctx: SourceContext,
    ) -> Result<KeeperSettingsState, ActorProcessingErr> {
        let outlet: Outlet<KeepersSlot, KeepersObservation> = ctx.outlet();
        let mut owner = ReadOwner::new(outlet.clone(), myself.clone(), ctx.client.clone());
        owner.add_slot(slot(&ctx.generations, ""));
        Ok(KeeperSettingsState {
            owner,
            outlet,
            myself,
            client: ctx.client,
            generations: ctx.generations,
            fault_drills: ctx.fault_drills,
        })
    }

    async fn handle(
        &self,
        _myself: ActorRef<Msg>,
        msg: Msg,
        state: &mut KeeperSettingsState,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            SourceMsg::Command(KeeperSettingsCommand::Prepare { keeper }) => {
                state
                    .owner
                    .set_reader(&KeepersSlot::Settings, settings_reader(keeper));
                state
                    .owner
                    .demand(&KeepersSlot::Settings, DemandKind::Explicit);
            }
            SourceMsg::Control(SourceControl::Identity(identity)) => {
                let _ = state.owner.identity(&identity);
                if !matches!(identity, IdentityState::Confirmed { .. }) {
                    // The read in flight was retired (the view cancels its preparation, H-2);
                    // it is not read again on the next confirmation: only a new `e` reads.
                    // A fresh owner forgets the demand (generations continue: G-6).
                    state.owner = state.fresh_owner();
                    let _ = state.owner.identity(&identity);
                }
            }
            // Only `e` reads: a general refresh is no preparation.
            SourceMsg::Control(SourceControl::Demand(_)) => {}
            SourceMsg::Returned(ret) => {
                let _ = state.owner.worker_returned(ret);
            }
            // No cadence: visibility changes nothing.
            SourceMsg::Control(SourceControl::Visible(_)) => {}
            SourceMsg::Control(SourceControl::InjectPanic) => {
                inject_panic(state.fault_drills, KEEPER_SETTINGS)
            }
        }
        Ok(())
    }

    async fn post_stop(
        &self,
        _myself: ActorRef<Msg>,
        state: &mut KeeperSettingsState,
    ) -> Result<(), ActorProcessingErr> {
        state.owner.retire_all("source_stopped");
        Ok(())
    }
}

/// Spawns the settings preparation source under the supervisor.
pub struct KeeperSettingsSpawner;

impl SourceSpawner for KeeperSettingsSpawner {
    fn key(&self) -> SourceKey {
        KEEPER_SETTINGS
    }

    fn spawn(
        &self,
        ctx: SourceContext,
        supervisor: ActorCell,
    ) -> BoxFuture<'static, Result<SourceHandle, SpawnErr>> {
        spawn_source_with::<_, KeeperSettingsCommand>(KeeperSettingsSource, ctx, supervisor)
    }
}
