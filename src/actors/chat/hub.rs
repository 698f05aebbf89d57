//! The chat hub: one supervised source (`SourceKey::ChatHub`) that spawns, linked to itself,
//! one [`ChatSource`] per open Keeper and one [`SendOperation`] per send, hands them the
//! workspace identity, and opens the outbox lazily (a runtime that never opens a chat never
//! touches the state file).
//!
//! Sends outlive their chat screen (H-5: navigation is not cancellation). When a send ends
//! "outcome unknown" (or its actor dies) the hub asks that Keeper's chat source to reconcile the
//! exact request id; it never re-sends.

use super::observation::{CHAT_HUB, ChatCommand, ChatHubMsg, ChatObservation, ChatSlot};
use super::send::{SendArgs, SendOperation};
use super::source::{ChatSource, ChatSourceArgs, ChatSourceConfig, ChatSourceMsg};
use crate::actors::contract::{
    GenerationBook, IdentityState, Outlet, SlotKey, SourceContext, SourceControl, SourceHandle,
    SourceKey, SourceSpawner, Ticket,
};
use crate::outbox::{Outbox, OutboxLocation, SendState};
use crate::protocol::admission::ReadAuthority;
use crate::protocol::client::WorkspaceClient;
use crate::timeline::stage;
use futures::future::BoxFuture;
use ractor::{Actor, ActorCell, ActorId, ActorProcessingErr, ActorRef, SpawnErr, SupervisionEvent};
use std::collections::{BTreeMap, HashMap};

/// How the hub is configured.
#[derive(Debug, Clone)]
pub struct ChatHubConfig {
    pub outbox: OutboxLocation,
    pub source: ChatSourceConfig,
}

impl Default for ChatHubConfig {
    fn default() -> Self {
        Self {
            outbox: OutboxLocation::StateDir,
            source: ChatSourceConfig::default(),
        }
    }
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

enum Child {
    Source(String),
    Send { keeper: String, request_id: String },
}

pub struct ChatHubState {
    args: ChatHubArgs,
    identity: IdentityState,
    outbox: Option<Result<Outbox, String>>,
    sources: BTreeMap<String, ActorRef<ChatSourceMsg>>,
    /// Sends whose actor runs in this process: request id → (keeper, ticket).
    live: HashMap<String, (String, Ticket<ChatSlot>)>,
    children: HashMap<ActorId, Child>,
}

impl ChatHubState {
    fn authority(&self) -> Option<ReadAuthority> {
        self.identity.authority()
    }

    fn outbox(&mut self) -> Option<Outbox> {
        let opened = self.outbox.get_or_insert_with(|| {
            Outbox::open(&self.args.config.outbox).map_err(|e| {
                tracing::warn!(target: "masc_tui::chat", error = e.class(), "outbox unavailable");
                e.to_string()
            })
        });
        opened.as_ref().ok().cloned()
    }

    fn live_of(&self, keeper: &str) -> HashMap<String, Ticket<ChatSlot>> {
        self.live
            .iter()
            .filter(|(_, (k, _))| k == keeper)
            .map(|(id, (_, t))| (id.clone(), t.clone()))
            .collect()
    }

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
            outbox: self.outbox(),
            config: self.args.config.source.clone(),
        };
        match ChatSource::spawn_linked(None, ChatSource, args, myself.get_cell()).await {
            Ok((source, _)) => {
                let _ = source.cast(ChatSourceMsg::Identity(self.identity.clone()));
                self.children
                    .insert(source.get_id(), Child::Source(keeper.to_string()));
                self.sources.insert(keeper.to_string(), source.clone());
                Some(source)
            }
            Err(err) => {
                tracing::warn!(target: "masc_tui::chat", error = %err, "chat source did not start");
                None
            }
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

    async fn send(
        &mut self,
        myself: &ActorRef<ChatHubMsg>,
        keeper: String,
        request_id: String,
        text: String,
        scope: crate::protocol::admission::ReadScope,
    ) {
        let key = ChatSlot::Send {
            keeper: keeper.clone(),
            request_id: request_id.clone(),
        };
        // The ticket is cut in the scope the operator saw; a changed epoch makes the send
        // "not sent" (never sent under an authority the operator did not see).
        let ticket = Ticket {
            slot: key.clone(),
            generation: self.args.generations.counter(&key).next(),
            scope: scope.clone(),
        };
        let authority = self.authority().filter(|a| a.scope == scope);
        let outbox = self.outbox();
        let Some(authority) = authority else {
            stage::refused(&key.trace_name(), "no_epoch");
            stage::dispatch(&ticket);
            self.args.outlet.dispatched(ticket.clone());
            self.args.outlet.observed(
                ticket,
                ChatObservation::Send {
                    request_id,
                    step: super::SendStep::Ended(super::SendOutcome::NotSent {
                        cause: "no_epoch".into(),
                    }),
                },
            );
            return;
        };
        let args = SendArgs {
            keeper: keeper.clone(),
            request_id: request_id.clone(),
            text,
            authority,
            ticket: ticket.clone(),
            client: self.args.client.clone(),
            outlet: self.args.outlet.clone(),
            outbox,
            hub: myself.clone(),
        };
        match SendOperation::spawn_linked(None, SendOperation, args, myself.get_cell()).await {
            Ok((op, _)) => {
                self.children.insert(
                    op.get_id(),
                    Child::Send {
                        keeper: keeper.clone(),
                        request_id: request_id.clone(),
                    },
                );
                self.live.insert(request_id, (keeper, ticket));
            }
            Err(err) => {
                tracing::warn!(target: "masc_tui::chat", error = %err, "send actor did not start");
            }
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
            outbox: None,
            sources: BTreeMap::new(),
            live: HashMap::new(),
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
            ChatHubMsg::Control(SourceControl::InjectPanic) => {
                crate::actors::read::drill::inject_panic(state.args.fault_drills, CHAT_HUB);
            }
            ChatHubMsg::Command(cmd) => match cmd {
                ChatCommand::Open { keeper } => {
                    let live = state.live_of(&keeper);
                    if let Some(source) = state.source(&myself, &keeper).await {
                        let _ = source.cast(ChatSourceMsg::Load { live });
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
                ChatCommand::Send {
                    keeper,
                    request_id,
                    text,
                    scope,
                } => {
                    if state.live.contains_key(&request_id) {
                        // One actor per request id, ever in this process.
                        let slot = ChatSlot::Send { keeper, request_id };
                        stage::refused(&slot.trace_name(), "duplicate_request");
                    } else {
                        state.send(&myself, keeper, request_id, text, scope).await;
                    }
                }
                ChatCommand::Reconcile { keeper, request_id } => {
                    state.reconcile(&keeper, request_id, true);
                }
                ChatCommand::Settled {
                    keeper,
                    request_id,
                    state: settled,
                } => {
                    state.live.remove(&request_id);
                    if settled == SendState::OutcomeUnknown {
                        state.reconcile(&keeper, request_id, false);
                    }
                }
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
        match state.children.remove(&id) {
            Some(Child::Source(keeper)) => {
                if state.sources.get(&keeper).is_some_and(|s| s.get_id() == id) {
                    state.sources.remove(&keeper);
                }
                if failed {
                    tracing::warn!(target: "masc_tui::chat", "chat source failed");
                }
            }
            // A send actor that failed without settling leaves its outcome unknown. (A normal
            // stop always settles first, but its supervision event can overtake the `Settled`
            // cast, so only a failure counts here.)
            Some(Child::Send { keeper, request_id })
                if failed && state.live.remove(&request_id).is_some() =>
            {
                tracing::warn!(target: "masc_tui::chat", "send actor ended without settling");
                state.reconcile(&keeper, request_id, false);
            }
            Some(Child::Send { .. }) | None => {}
        }
        Ok(())
    }
}
