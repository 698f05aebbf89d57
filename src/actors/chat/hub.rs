//! The chat hub: one supervised source (`CHAT_HUB`) that spawns, linked to itself, one
//! [`ChatSource`] per open Keeper and hands it the workspace identity and the runtime's
//! outbox (opened lazily: a runtime that never opens a chat never touches the state file).
//!
//! Sends are saves, run by the save hub (one write path for every write); they outlive their chat
//! screen (H-5: navigation is not cancellation). A send that ended "outcome unknown" is
//! reconciled by its exact request id when the chat pane asks ([`ChatCommand::Reconcile`]) or
//! when the chat opens again; it is never re-sent.

use super::ChatMark;
use super::observation::{CHAT_HUB, ChatCommand, ChatHubMsg, ChatObservation, ChatSlot};
use super::source::{ChatSource, ChatSourceArgs, ChatSourceConfig, ChatSourceMsg};
use crate::actors::contract::{
    GenerationBook, IdentityState, Outlet, SourceContext, SourceControl, SourceHandle, SourceKey,
    SourceSpawner,
};
use crate::outbox::SharedOutbox;
use crate::protocol::client::WorkspaceClient;
use futures::future::BoxFuture;
use ractor::{Actor, ActorCell, ActorId, ActorProcessingErr, ActorRef, SpawnErr, SupervisionEvent};
use std::collections::{BTreeMap, HashMap};

/// How the hub is configured.
#[derive(Debug, Clone, Default)]
pub struct ChatHubConfig {
    /// The runtime's outbox (shared with the save hub, which writes the sends).
    pub outbox: SharedOutbox,
    pub source: ChatSourceConfig,
}

/// Spawns the hub under the supervisor.
#[derive(Debug, Clone, Default)]
pub struct ChatHubSpawner {
    pub config: ChatHubConfig,
}

impl SourceSpawner for ChatHubSpawner {
    fn key(&self) -> SourceKey {
        CHAT_HUB
    }

    fn spawn(
        &self,
        ctx: SourceContext,
        supervisor: ActorCell,
    ) -> BoxFuture<'static, Result<SourceHandle, SpawnErr>> {
        let args = ChatHubArgs {
            outlet: ctx.outlet::<ChatSlot, ChatObservation>(),
            client: ctx.client,
            generations: ctx.generations,
            config: self.config.clone(),
            fault_drills: ctx.fault_drills,
        };
        Box::pin(async move {
            let (handle, _join) = ChatHub::spawn_linked(None, ChatHub, args, supervisor).await?;
            Ok(SourceHandle::new(&handle).with_commands::<ChatHubMsg, ChatCommand>(&handle))
        })
    }
}

pub struct ChatHubArgs {
    pub client: WorkspaceClient,
    pub outlet: Outlet<ChatSlot, ChatObservation>,
    pub generations: GenerationBook,
    pub config: ChatHubConfig,
    pub fault_drills: bool,
}

pub struct ChatHubState {
    args: ChatHubArgs,
    identity: IdentityState,
    sources: BTreeMap<String, ActorRef<ChatSourceMsg>>,
    /// Each chat source's actor, by id: its Keeper.
    children: HashMap<ActorId, String>,
}

impl ChatHubState {
    async fn source(
        &mut self,
        myself: &ActorRef<ChatHubMsg>,
        keeper: &str,
    ) -> Option<ActorRef<ChatSourceMsg>> {
        if let Some(s) = self.sources.get(keeper) {
            return Some(s.clone());
        }
        let args = ChatSourceArgs {
            keeper: keeper.to_string(),
            client: self.args.client.clone(),
            outlet: self.args.outlet.clone(),
            generations: self.args.generations.clone(),
            outbox: self.args.config.outbox.get(),
            config: self.args.config.source.clone(),
        };
        match ChatSource::spawn_linked(None, ChatSource, args, myself.get_cell()).await {
            Ok((source, _)) => {
                let _ = source.cast(ChatSourceMsg::Identity(self.identity.clone()));
                self.children.insert(source.get_id(), keeper.to_string());
                self.sources.insert(keeper.to_string(), source.clone());
                Some(source)
            }
            Err(err) => {
                tracing::warn!(target: "masc_tui::chat", error = %err, "chat source did not start");
                None
            }
        }
    }

    /// Records `mark` for `request_id` in the outbox, off the hub's thread (C-65).
    async fn mark(&self, request_id: String, mark: ChatMark) {
        let Some(outbox) = self.args.config.outbox.get() else {
            tracing::warn!(target: "masc_tui::chat", mark = mark.name(), "mark not kept: no outbox");
            return;
        };
        let (name, value) = (mark.name(), mark.value());
        let written = tokio::task::spawn_blocking(move || {
            outbox.chat_mark(&request_id, name, value.as_deref())
        })
        .await;
        if !matches!(written, Ok(Ok(_))) {
            tracing::warn!(target: "masc_tui::chat", mark = mark.name(), "mark not kept");
        }
    }

    fn reconcile(&self, keeper: &str, request_id: String, explicit: bool) {
        if let Some(source) = self.sources.get(keeper) {
            let _ = source.cast(ChatSourceMsg::Reconcile {
                request_id,
                explicit,
            });
        }
    }
}

pub struct ChatHub;

impl Actor for ChatHub {
    type Msg = ChatHubMsg;
    type State = ChatHubState;
    type Arguments = ChatHubArgs;

    async fn pre_start(
        &self,
        _myself: ActorRef<ChatHubMsg>,
        args: ChatHubArgs,
    ) -> Result<ChatHubState, ActorProcessingErr> {
        Ok(ChatHubState {
            args,
            identity: IdentityState::Unconfirmed {
                reason: "not confirmed yet".into(),
            },
            sources: BTreeMap::new(),
            children: HashMap::new(),
        })
    }

    async fn handle(
        &self,
        myself: ActorRef<ChatHubMsg>,
        msg: ChatHubMsg,
        state: &mut ChatHubState,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            ChatHubMsg::Control(SourceControl::Identity(identity)) => {
                for source in state.sources.values() {
                    let _ = source.cast(ChatSourceMsg::Identity(identity.clone()));
                }
                state.identity = identity;
            }
            // No standing read: a chat is read when it is opened.
            ChatHubMsg::Control(SourceControl::Demand(_)) => {}
            // No cadence: visibility changes nothing.
            ChatHubMsg::Control(SourceControl::Visible(_)) => {}
            ChatHubMsg::Control(SourceControl::InjectPanic) => {
                crate::actors::read::drill::inject_panic(state.args.fault_drills, CHAT_HUB);
            }
            ChatHubMsg::Command(cmd) => match cmd {
                ChatCommand::Open { keeper } => {
                    if let Some(source) = state.source(&myself, &keeper).await {
                        let _ = source.cast(ChatSourceMsg::Load);
                    }
                }
                ChatCommand::Close { keeper } => {
                    if let Some(source) = state.sources.remove(&keeper) {
                        source.stop(Some("chat closed".into()));
                    }
                }
                ChatCommand::LoadOlder { keeper } => {
                    if let Some(source) = state.sources.get(&keeper) {
                        let _ = source.cast(ChatSourceMsg::LoadOlder);
                    }
                }
                ChatCommand::Reconcile { keeper, request_id } => {
                    state.reconcile(&keeper, request_id, true);
                }
                ChatCommand::Mark { request_id, mark } => state.mark(request_id, mark).await,
            },
        }
        Ok(())
    }

    async fn handle_supervisor_evt(
        &self,
        _myself: ActorRef<ChatHubMsg>,
        evt: SupervisionEvent,
        state: &mut ChatHubState,
    ) -> Result<(), ActorProcessingErr> {
        // Overridden: a child's end never stops the hub (ractor's default would).
        let (id, failed) = match &evt {
            SupervisionEvent::ActorFailed(cell, _) => (cell.get_id(), true),
            SupervisionEvent::ActorTerminated(cell, _, _) => (cell.get_id(), false),
            _ => return Ok(()),
        };
        if let Some(keeper) = state.children.remove(&id) {
            if state.sources.get(&keeper).is_some_and(|s| s.get_id() == id) {
                state.sources.remove(&keeper);
            }
            if failed {
                tracing::warn!(target: "masc_tui::chat", "chat source failed");
            }
        }
        Ok(())
    }
}
