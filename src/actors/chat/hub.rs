//! The chat hub: one supervised source (`SourceKey::ChatHub`) that spawns, linked to itself,
//! one [`ChatSource`] per open Keeper and one [`SendOperation`] per send, hands them the
//! workspace identity, and opens the outbox lazily (a runtime that never opens a chat never
//! touches the state file).
//!
//! Sends outlive their chat screen (H-5: navigation is not cancellation). When a send ends
//! "outcome unknown" (or its actor dies) the hub asks that Keeper's chat source to reconcile the
//! exact request id; it never re-sends.

use super::observation::ChatCommand;
use super::send::{SendArgs, SendOperation};
use super::source::{ChatSource, ChatSourceArgs, ChatSourceConfig, ChatSourceMsg};
use crate::actors::messages::{IdentityState, SourceCommand, ViewMsg};
use crate::actors::read::GenerationBook;
use crate::actors::supervisor::{SourceContext, SourceSpawner};
use crate::actors::ticket::{SourceKey, Ticket};
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
        SourceKey::ChatHub
    }

    fn spawn(
        &self,
        ctx: SourceContext,
        supervisor: ActorCell,
    ) -> BoxFuture<'static, Result<ActorRef<SourceCommand>, SpawnErr>> {
        let args = ChatHubArgs {
            client: ctx.client,
            view: ctx.view,
            generations: ctx.generations,
            config: self.config.clone(),
            fault_drills: ctx.fault_drills,
        };
        Box::pin(async move {
            let (handle, _join) = ChatHub::spawn_linked(None, ChatHub, args, supervisor).await?;
            Ok(handle)
        })
    }
}

pub struct ChatHubArgs {
    pub client: WorkspaceClient,
    pub view: ActorRef<ViewMsg>,
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
    live: HashMap<String, (String, Ticket)>,
    children: HashMap<ActorId, Child>,
}

impl ChatHubState {
    fn authority(&self) -> Option<ReadAuthority> {
        match &self.identity {
            IdentityState::Confirmed { scope, mode, .. } => Some(ReadAuthority {
                scope: scope.clone(),
                expected_root: scope.workspace.0.clone(),
                mode: *mode,
            }),
            _ => None,
        }
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

    fn live_of(&self, keeper: &str) -> HashMap<String, Ticket> {
        self.live
            .iter()
            .filter(|(_, (k, _))| k == keeper)
            .map(|(id, (_, t))| (id.clone(), t.clone()))
            .collect()
    }

    async fn source(
        &mut self,
        myself: &ActorRef<SourceCommand>,
        keeper: &str,
    ) -> Option<ActorRef<ChatSourceMsg>> {
        if let Some(s) = self.sources.get(keeper) {
            return Some(s.clone());
        }
        let key = SourceKey::Chat {
            keeper: keeper.to_string(),
        };
        let args = ChatSourceArgs {
            keeper: keeper.to_string(),
            client: self.args.client.clone(),
            view: self.args.view.clone(),
            generations: self.args.generations.counter(&key),
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
        myself: &ActorRef<SourceCommand>,
        keeper: String,
        request_id: String,
        text: String,
        scope: crate::protocol::admission::ReadScope,
    ) {
        let key = SourceKey::Chat {
            keeper: keeper.clone(),
        };
        // The ticket is cut in the scope the operator saw; a changed epoch makes the send
        // "not sent" (never sent under an authority the operator did not see).
        let ticket = Ticket {
            source: key.clone(),
            generation: self.args.generations.counter(&key).next(),
            scope: scope.clone(),
        };
        let authority = self.authority().filter(|a| a.scope == scope);
        let outbox = self.outbox();
        let Some(authority) = authority else {
            stage::refused(&key, "no_epoch");
            stage::dispatch(&ticket);
            let view = &self.args.view;
            let _ = view.cast(ViewMsg::Dispatched(ticket.clone()));
            let _ = view.cast(ViewMsg::Observed(crate::actors::messages::Observation {
                ticket,
                payload: crate::actors::messages::ObservationPayload::Chat(Box::new(
                    super::ChatObservation::Send {
                        request_id,
                        step: super::SendStep::Ended(super::SendOutcome::NotSent {
                            cause: "no_epoch".into(),
                        }),
                    },
                )),
            }));
            return;
        };
        let args = SendArgs {
            keeper: keeper.clone(),
            request_id: request_id.clone(),
            text,
            authority,
            ticket: ticket.clone(),
            client: self.args.client.clone(),
            view: self.args.view.clone(),
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
    type Msg = SourceCommand;
    type State = ChatHubState;
    type Arguments = ChatHubArgs;

    async fn pre_start(
        &self,
        _myself: ActorRef<SourceCommand>,
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
        myself: ActorRef<SourceCommand>,
        msg: SourceCommand,
        state: &mut ChatHubState,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            SourceCommand::Identity(identity) => {
                for source in state.sources.values() {
                    let _ = source.cast(ChatSourceMsg::Identity(identity.clone()));
                }
                state.identity = identity;
            }
            // No standing read: a chat is read when it is opened.
            SourceCommand::Demand(_)
            | SourceCommand::WorkerReturned(_)
            | SourceCommand::Work(_)
            | SourceCommand::Board(_) => {}
            SourceCommand::InjectPanic => {
                if state.args.fault_drills {
                    crate::actors::read::polled::panic_drill(SourceKey::ChatHub);
                }
            }
            SourceCommand::Chat(cmd) => match cmd {
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
                        stage::refused(&SourceKey::Chat { keeper }, "duplicate_request");
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
        _myself: ActorRef<SourceCommand>,
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
