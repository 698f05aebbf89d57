//! One configured workspace's watch: a round every period, at most one in flight, the next
//! armed with `send_after` when a round returns (never an interval that queues behind a slow
//! round). The round runs on a worker task; the actor only tags and posts what it returned.

use super::{FleetLine, FleetObservation, FleetSlot, WatchTarget, read_round};
use crate::actors::contract::{GenerationCounter, Outlet, Ticket};
use crate::actors::read::Running;
use crate::protocol::admission::{ReadScope, WorkspaceId};
use crate::protocol::client::WorkspaceClient;
use crate::timeline::stage;
use ractor::{Actor, ActorProcessingErr, ActorRef};
use std::time::Duration;

pub struct FleetWatch;

pub struct WatchArgs {
    pub target: WatchTarget,
    pub outlet: Outlet<FleetSlot, FleetObservation>,
    /// Rounds of this workspace: owned by the fleet supervisor, so a restarted watch never
    /// reuses one (G-6).
    pub rounds: GenerationCounter,
    pub period: Duration,
    /// Honour [`WatchMsg::InjectPanic`] (tests).
    pub fault_drills: bool,
}

pub enum WatchMsg {
    /// Read a round unless one is in flight.
    Round,
    Returned {
        ticket: Ticket<FleetSlot>,
        line: Box<FleetLine>,
    },
    /// Supervision drill: the handler fails.
    InjectPanic,
}

pub struct WatchState {
    args: WatchArgs,
    client: WorkspaceClient,
    round: Option<Running<FleetSlot>>,
    timer: Option<tokio::task::JoinHandle<Result<(), ractor::MessagingErr<WatchMsg>>>>,
}

impl Drop for WatchState {
    fn drop(&mut self) {
        if let Some(t) = self.timer.take() {
            t.abort();
        }
    }
}

impl Actor for FleetWatch {
    type Msg = WatchMsg;
    type State = WatchState;
    type Arguments = WatchArgs;

    async fn pre_start(
        &self,
        myself: ActorRef<WatchMsg>,
        args: WatchArgs,
    ) -> Result<WatchState, ActorProcessingErr> {
        let client = WorkspaceClient::new(args.target.client.clone())?;
        if let Some(reason) = &args.target.refused {
            // Said once; no request leaves with a credential others may have read.
            let slot = FleetSlot::Line(args.target.name.clone());
            let ticket = Ticket {
                generation: args.rounds.next(),
                slot,
                scope: ReadScope {
                    workspace: WorkspaceId(String::new()),
                    epoch: 0,
                },
            };
            let line = FleetLine::unread(super::FleetConnection::Refused {
                reason: reason.clone(),
            });
            args.outlet.observed(ticket, FleetObservation(line));
        } else {
            let _ = myself.cast(WatchMsg::Round);
        }
        Ok(WatchState {
            args,
            client,
            round: None,
            timer: None,
        })
    }

    async fn handle(
        &self,
        myself: ActorRef<WatchMsg>,
        msg: WatchMsg,
        state: &mut WatchState,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            WatchMsg::Round => {
                if state.round.is_some() {
                    return Ok(());
                }
                let generation = state.args.rounds.next();
                // The root is not known before the round's own `/health`: the dispatch names
                // none, the observation names the one its counts were read under.
                let ticket = Ticket {
                    slot: FleetSlot::Line(state.args.target.name.clone()),
                    generation,
                    scope: ReadScope {
                        workspace: WorkspaceId(String::new()),
                        epoch: generation,
                    },
                };
                stage::dispatch(&ticket);
                state.args.outlet.dispatched(ticket.clone());
                let client = state.client.clone();
                let expected = state.args.target.expected_base.clone();
                let me = myself.clone();
                let worker_ticket = ticket.clone();
                state.round = Some(Running::spawn(ticket, async move {
                    stage::worker_enter(&worker_ticket);
                    let line = read_round(&client, expected.as_deref(), generation).await;
                    let _ = me.cast(WatchMsg::Returned {
                        ticket: worker_ticket,
                        line: Box::new(line),
                    });
                }));
            }
            WatchMsg::Returned { mut ticket, line } => {
                if state.round.as_ref().map(|r| &r.ticket) != Some(&ticket) {
                    stage::reject(&ticket, "late_after_retire");
                    return Ok(());
                }
                state.round = None;
                if let Some(root) = line.connection.root() {
                    ticket.scope.workspace = root.clone();
                }
                let observation = FleetObservation(*line);
                let outcome = crate::actors::contract::Payload::outcome(&observation);
                stage::worker_return(&ticket, &outcome);
                stage::observe(&ticket, &outcome);
                state.args.outlet.observed(ticket, observation);
                if let Some(t) = state.timer.take() {
                    t.abort();
                }
                state.timer = Some(myself.send_after(state.args.period, || WatchMsg::Round));
            }
            WatchMsg::InjectPanic => {
                if state.args.fault_drills {
                    return Err(
                        format!("fault drill: fleet watch {}", state.args.target.name).into(),
                    );
                }
            }
        }
        Ok(())
    }
}
