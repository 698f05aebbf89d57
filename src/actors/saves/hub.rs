//! The save hub: one supervised source (`SAVES`) that spawns, linked to itself, one
//! [`SaveOperation`] per submitted save, refuses a save whose submit-time scope is not the
//! current one (K-5), lets a repeated submit of the same intent share the running job, and,
//! once per workspace and session, reads back the saves an earlier run left unsettled
//! (H-16: a receipt survives; no new authority is granted — they are shown, never resent).

use super::env::{SaveEnv, post_once};
use super::operation::{SaveArgs, SaveOperation};
use super::refusal::Refusal;
use super::registry;
use super::{
    HubMsg, Receipt, SAVES, SaveCommand, SaveHubMsg, SaveId, SaveKind, SaveStep, SubmitScope,
};
use crate::actors::contract::{
    IdentityState, SlotKey, SourceContext, SourceControl, SourceHandle, SourceKey, SourceSpawner,
};
use crate::outbox::{Outbox, SaveRowState, SharedOutbox};
use crate::protocol::admission::{ReadAuthority, WorkspaceId};
use crate::timeline::stage;
use futures::future::BoxFuture;
use ractor::{Actor, ActorCell, ActorId, ActorProcessingErr, ActorRef, SpawnErr, SupervisionEvent};
use std::collections::{HashMap, HashSet};

/// A submitted save of some kind, on its way to the hub.
pub type Submission = Box<dyn SubmitSave>;

/// A save of kind `K` as the view submits it.
pub struct Save<K: SaveKind> {
    pub save_id: SaveId,
    pub intent: K::Intent,
    /// The epoch the operator saw when submitting (K-5).
    pub scope: SubmitScope,
}

impl<K: SaveKind> Save<K> {
    pub fn submission(save_id: SaveId, intent: K::Intent, scope: SubmitScope) -> Submission {
        Box::new(Self {
            save_id,
            intent,
            scope,
        })
    }
}

/// A live save's report, should its actor die without settling.
pub trait CrashReport: Send + 'static {
    fn report(self: Box<Self>, env: &SaveEnv);
}

/// A started save: its actor and what to report should it die without a receipt.
pub type Started = BoxFuture<'static, Result<(ActorCell, Box<dyn CrashReport>), SpawnErr>>;

/// The object-safe face of a [`Save`], so the hub spawns any kind.
pub trait SubmitSave: Send + 'static {
    fn kind(&self) -> &'static str;
    fn save_id(&self) -> &SaveId;
    fn intent_key(&self) -> String;
    fn scope(&self) -> &SubmitScope;
    /// Spawns the save's operation linked to the hub.
    fn start(self: Box<Self>, env: SaveEnv, authority: ReadAuthority) -> Started;
    /// Ends the save without sending anything: a not-sent receipt on its slot.
    fn refuse(self: Box<Self>, env: &SaveEnv, refusal: Refusal);
}

struct Crashed<K: SaveKind> {
    save_id: SaveId,
    intent: K::Intent,
    scope: SubmitScope,
}

impl<K: SaveKind> CrashReport for Crashed<K> {
    fn report(self: Box<Self>, env: &SaveEnv) {
        let refusal = Refusal::NoReceipt;
        if let Some(outbox) = env.outbox.clone() {
            let id = self.save_id.0.clone();
            let (class, why) = (refusal.class(), refusal.token());
            // Fire and forget on the blocking pool: the hub never waits on disk.
            tokio::task::spawn_blocking(move || {
                let _ = outbox.save_state(&id, SaveRowState::Settled(class), Some(&why));
            });
        }
        let ticket = env.ticket::<K>(&self.save_id, &self.intent, &self.scope);
        let receipt = <K::Receipt as Receipt>::refused(refusal);
        post_once::<K>(
            env,
            ticket,
            self.save_id,
            self.intent,
            SaveStep::Ended(receipt),
        );
    }
}

impl<K: SaveKind> SubmitSave for Save<K> {
    fn kind(&self) -> &'static str {
        K::KIND
    }
    fn save_id(&self) -> &SaveId {
        &self.save_id
    }
    fn intent_key(&self) -> String {
        K::intent_key(&self.intent)
    }
    fn scope(&self) -> &SubmitScope {
        &self.scope
    }

    fn start(self: Box<Self>, env: SaveEnv, authority: ReadAuthority) -> Started {
        Box::pin(async move {
            let ticket = env.ticket::<K>(&self.save_id, &self.intent, &self.scope);
            let crash = Crashed::<K> {
                save_id: self.save_id.clone(),
                intent: self.intent.clone(),
                scope: self.scope.clone(),
            };
            let args = SaveArgs::<K> {
                save_id: self.save_id,
                intent: self.intent,
                authority,
                ticket,
                client: env.client.clone(),
                outbox: env.outbox.clone(),
                outlet: env.outlet::<K>(),
                hub: env.hub.clone(),
            };
            let (op, _) = SaveOperation::<K>::spawn_linked(
                None,
                SaveOperation::default(),
                args,
                env.hub.get_cell(),
            )
            .await?;
            Ok((op.get_cell(), Box::new(crash) as Box<dyn CrashReport>))
        })
    }

    fn refuse(self: Box<Self>, env: &SaveEnv, refusal: Refusal) {
        let slot = K::slot(&self.save_id, &self.intent);
        stage::refused(&slot.trace_name(), &refusal.token());
        let ticket = env.ticket::<K>(&self.save_id, &self.intent, &self.scope);
        let receipt = <K::Receipt as Receipt>::refused(refusal);
        post_once::<K>(
            env,
            ticket,
            self.save_id,
            self.intent,
            SaveStep::Ended(receipt),
        );
    }
}

/// Spawns the hub under the supervisor.
#[derive(Debug, Clone, Default)]
pub struct SaveHubSpawner {
    /// The runtime's outbox (shared with the chat sources, which read the chat sends back).
    pub outbox: SharedOutbox,
}

impl SourceSpawner for SaveHubSpawner {
    fn key(&self) -> SourceKey {
        SAVES
    }

    fn spawn(
        &self,
        ctx: SourceContext,
        supervisor: ActorCell,
    ) -> BoxFuture<'static, Result<SourceHandle, SpawnErr>> {
        let args = SaveHubArgs {
            ctx,
            outbox: self.outbox.clone(),
        };
        Box::pin(async move {
            let (handle, _join) = SaveHub::spawn_linked(None, SaveHub, args, supervisor).await?;
            Ok(SourceHandle::new(&handle).with_commands::<SaveHubMsg, SaveCommand>(&handle))
        })
    }
}

pub struct SaveHubArgs {
    pub ctx: SourceContext,
    pub outbox: SharedOutbox,
}

struct LiveSave {
    save_id: SaveId,
    intent: (&'static str, String),
    crash: Box<dyn CrashReport>,
}

pub struct SaveHubState {
    ctx: SourceContext,
    outbox: SharedOutbox,
    identity: IdentityState,
    live: HashMap<ActorId, LiveSave>,
    /// (kind, intent key) of every save in flight: a repeated submit shares the job.
    intents: HashSet<(&'static str, String)>,
    /// Workspaces whose orphans this session has read back.
    restored: HashSet<WorkspaceId>,
}

impl SaveHubState {
    fn outbox(&mut self) -> Option<Outbox> {
        self.outbox.get()
    }

    fn env(&mut self, myself: &ActorRef<SaveHubMsg>) -> SaveEnv {
        SaveEnv {
            client: self.ctx.client.clone(),
            outbox: self.outbox(),
            inboxes: self.ctx.inboxes.clone(),
            events: self.ctx.events.clone(),
            generations: self.ctx.generations.clone(),
            hub: myself.clone(),
        }
    }

    async fn submit(&mut self, myself: &ActorRef<SaveHubMsg>, save: Submission) {
        let env = self.env(myself);
        let intent = (save.kind(), save.intent_key());
        if self.intents.contains(&intent) {
            // The same intent is running: it is that job's receipt the operator will see.
            stage::refused(&format!("save:{}", save.kind()), "duplicate_intent");
            return;
        }
        let authority = self
            .identity
            .authority()
            .filter(|a| &a.scope == save.scope());
        let Some(authority) = authority else {
            // K-5: a save is made under the epoch the operator saw, or not at all.
            save.refuse(&env, Refusal::NoEpoch);
            return;
        };
        let save_id = save.save_id().clone();
        match save.start(env, authority).await {
            Ok((cell, crash)) => {
                self.intents.insert(intent.clone());
                self.live.insert(
                    cell.get_id(),
                    LiveSave {
                        save_id,
                        intent,
                        crash,
                    },
                );
            }
            Err(err) => {
                tracing::warn!(target: "masc_tui::saves", error = %err, "save actor did not start");
            }
        }
    }

    fn settled(&mut self, save_id: &SaveId) {
        let found = self
            .live
            .iter()
            .find(|(_, l)| &l.save_id == save_id)
            .map(|(id, _)| *id);
        if let Some(id) = found
            && let Some(live) = self.live.remove(&id)
        {
            self.intents.remove(&live.intent);
        }
    }

    /// Once per workspace and session: the saves an earlier run left unsettled, of the kinds
    /// the hub restores (a chat reads its own sends back when it opens).
    fn restore(&mut self, myself: &ActorRef<SaveHubMsg>) {
        let Some(auth) = self.identity.authority() else {
            return;
        };
        let workspace = auth.scope.workspace.clone();
        if !self.restored.insert(workspace.clone()) {
            return;
        }
        let env = self.env(myself);
        let Some(outbox) = env.outbox.clone() else {
            return;
        };
        let scope = auth.scope.clone();
        tokio::spawn(async move {
            let ws = scope.workspace.0.clone();
            let rows = tokio::task::spawn_blocking(move || {
                let rows = outbox.unsettled_saves(&ws)?;
                let mut orphans = Vec::new();
                for row in rows {
                    if !registry::restored().any(|k| k.kind() == row.kind) {
                        continue;
                    }
                    if let Some(class) = row.orphan_class(outbox.session()) {
                        outbox.save_state(
                            &row.save_id,
                            SaveRowState::Settled(class),
                            Some("restored"),
                        )?;
                        orphans.push((row, class));
                    }
                }
                Ok::<_, crate::outbox::OutboxError>(orphans)
            })
            .await;
            match rows {
                Ok(Ok(orphans)) => {
                    for (row, class) in orphans {
                        if let Some(kind) = registry::restored().find(|k| k.kind() == row.kind) {
                            kind.restore(&row, class, &env, &scope);
                        }
                    }
                }
                _ => {
                    tracing::warn!(target: "masc_tui::saves", "outbox unreadable; saves not restored")
                }
            }
            let _ = env.hub.cast(SaveHubMsg::Hub(HubMsg::Restored {
                workspace: scope.workspace,
            }));
        });
    }
}

pub struct SaveHub;

impl Actor for SaveHub {
    type Msg = SaveHubMsg;
    type State = SaveHubState;
    type Arguments = SaveHubArgs;

    async fn pre_start(
        &self,
        _myself: ActorRef<SaveHubMsg>,
        args: SaveHubArgs,
    ) -> Result<SaveHubState, ActorProcessingErr> {
        Ok(SaveHubState {
            ctx: args.ctx,
            outbox: args.outbox,
            identity: IdentityState::Unconfirmed {
                reason: "not confirmed yet".into(),
            },
            live: HashMap::new(),
            intents: HashSet::new(),
            restored: HashSet::new(),
        })
    }

    async fn handle(
        &self,
        myself: ActorRef<SaveHubMsg>,
        msg: SaveHubMsg,
        state: &mut SaveHubState,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            SaveHubMsg::Control(SourceControl::Identity(identity)) => {
                // Saves in flight keep their submit-time authority (K-5); a new epoch only
                // decides what later submits may use.
                state.identity = identity;
                state.restore(&myself);
            }
            // Saves start from submits only; a demand reads the journal's outbox rows.
            SaveHubMsg::Control(SourceControl::Demand(_)) => {
                if let Some(scope) = state.identity.authority().map(|a| a.scope.clone()) {
                    let env = state.env(&myself);
                    super::journal::read(&env, &scope);
                }
            }
            // No cadence: visibility changes nothing.
            SaveHubMsg::Control(SourceControl::Visible(_)) => {}
            SaveHubMsg::Control(SourceControl::InjectPanic) => {
                crate::actors::read::drill::inject_panic(state.ctx.fault_drills, SAVES);
            }
            SaveHubMsg::Command(SaveCommand::Submit(save)) => state.submit(&myself, save).await,
            SaveHubMsg::Hub(HubMsg::Settled { save_id, class }) => {
                tracing::debug!(target: "masc_tui::saves", class = class.as_str(), "save settled");
                state.settled(&save_id);
            }
            SaveHubMsg::Hub(HubMsg::Restored { .. }) => {}
        }
        Ok(())
    }

    async fn handle_supervisor_evt(
        &self,
        myself: ActorRef<SaveHubMsg>,
        evt: SupervisionEvent,
        state: &mut SaveHubState,
    ) -> Result<(), ActorProcessingErr> {
        // Overridden: a save's end never stops the hub (ractor's default would).
        let (id, failed) = match &evt {
            SupervisionEvent::ActorFailed(cell, _) => (cell.get_id(), true),
            SupervisionEvent::ActorTerminated(cell, _, _) => (cell.get_id(), false),
            _ => return Ok(()),
        };
        // A normal stop always settles first (its `Settled` may arrive after this event, so
        // only a failure counts): a save whose actor failed is "outcome unknown", its inputs
        // kept, never resent.
        if failed && let Some(live) = state.live.remove(&id) {
            state.intents.remove(&live.intent);
            tracing::warn!(target: "masc_tui::saves", "save actor failed without a receipt");
            let env = state.env(&myself);
            live.crash.report(&env);
        }
        Ok(())
    }
}
