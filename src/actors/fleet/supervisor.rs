//! Keeps one [`FleetWatch`] per configured workspace running: a watch that fails is restarted
//! with the runtime's backoff and intensity limit (its rounds counter lives here, so a new
//! incarnation never reuses a round, G-6); one given up posts a last line saying so.

use super::watch::{FleetWatch, WatchArgs, WatchMsg};
use super::{FleetConnection, FleetLine, FleetName, FleetObservation, FleetSlot, WatchTarget};
use crate::actors::contract::{EventSink, GenerationBook, Inboxes, Outlet, Ticket};
use crate::actors::supervisor::RestartPolicy;
use crate::protocol::admission::{ReadScope, WorkspaceId};
use ractor::{Actor, ActorId, ActorProcessingErr, ActorRef, SpawnErr, SupervisionEvent};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What the fleet is started with.
#[derive(Clone)]
pub struct FleetConfig {
    pub targets: Vec<WatchTarget>,
    /// How often each watch reads a round.
    pub period: Duration,
    /// The workspace the session's own sources read, and how often its watch reads: its full
    /// sources already poll it, so its line may be older (it says how old).
    pub active: Option<FleetName>,
    pub active_period: Duration,
    pub restart: RestartPolicy,
    pub fault_drills: bool,
}

pub enum FleetMsg {
    Restart(FleetName),
    InjectPanic(FleetName),
    Shutdown,
}

struct Watched {
    target: WatchTarget,
    actor: Option<ActorRef<WatchMsg>>,
    restarts: VecDeque<Instant>,
}

pub struct FleetState {
    cfg: FleetConfig,
    outlet: Outlet<FleetSlot, FleetObservation>,
    rounds: GenerationBook,
    watched: BTreeMap<FleetName, Watched>,
    live: HashMap<ActorId, FleetName>,
    shutting_down: bool,
}

impl FleetState {
    async fn start(
        &mut self,
        name: &FleetName,
        myself: &ActorRef<FleetMsg>,
    ) -> Result<(), SpawnErr> {
        let Some(watched) = self.watched.get_mut(name) else {
            return Ok(());
        };
        let args = WatchArgs {
            target: watched.target.clone(),
            outlet: self.outlet.clone(),
            rounds: self.rounds.counter(&FleetSlot::Line(name.clone())),
            period: if self.cfg.active.as_ref() == Some(name) {
                self.cfg.active_period
            } else {
                self.cfg.period
            },
            fault_drills: self.cfg.fault_drills,
        };
        let (actor, _) =
            FleetWatch::spawn_linked(None, FleetWatch, args, myself.get_cell()).await?;
        self.live.insert(actor.get_id(), name.clone());
        watched.actor = Some(actor);
        Ok(())
    }

    fn down(&mut self, name: FleetName, myself: &ActorRef<FleetMsg>) {
        let policy = self.cfg.restart.clone();
        let Some(watched) = self.watched.get_mut(&name) else {
            return;
        };
        watched.actor = None;
        let Ok(attempt) = policy.next_attempt(&mut watched.restarts, Instant::now()) else {
            tracing::warn!(target: "masc_tui::fleet", workspace = %name, "restart intensity exceeded; watch stopped");
            let slot = FleetSlot::Line(name.clone());
            let ticket = Ticket {
                generation: self.rounds.counter(&slot).next(),
                slot,
                scope: ReadScope {
                    workspace: WorkspaceId(String::new()),
                    epoch: 0,
                },
            };
            self.outlet.observed(
                ticket,
                FleetObservation(FleetLine::unread(FleetConnection::WatchStopped)),
            );
            return;
        };
        let delay = policy.backoff(attempt);
        myself.send_after(delay, move || FleetMsg::Restart(name));
    }
}

pub struct FleetSupervisor;

pub struct FleetArgs {
    pub cfg: FleetConfig,
    pub events: Arc<dyn EventSink>,
    pub inboxes: Inboxes,
}

impl Actor for FleetSupervisor {
    type Msg = FleetMsg;
    type State = FleetState;
    type Arguments = FleetArgs;

    async fn pre_start(
        &self,
        myself: ActorRef<FleetMsg>,
        args: FleetArgs,
    ) -> Result<FleetState, ActorProcessingErr> {
        let watched = args
            .cfg
            .targets
            .iter()
            .map(|t| {
                let w = Watched {
                    target: t.clone(),
                    actor: None,
                    restarts: VecDeque::new(),
                };
                (t.name.clone(), w)
            })
            .collect();
        let mut state = FleetState {
            outlet: Outlet::new(&args.inboxes, args.events),
            cfg: args.cfg,
            rounds: GenerationBook::new(),
            watched,
            live: HashMap::new(),
            shutting_down: false,
        };
        let names: Vec<FleetName> = state.watched.keys().cloned().collect();
        for name in names {
            if state.start(&name, &myself).await.is_err() {
                state.down(name, &myself);
            }
        }
        Ok(state)
    }

    async fn handle(
        &self,
        myself: ActorRef<FleetMsg>,
        msg: FleetMsg,
        state: &mut FleetState,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            FleetMsg::Restart(name) => {
                if !state.shutting_down && state.start(&name, &myself).await.is_err() {
                    state.down(name, &myself);
                }
            }
            FleetMsg::InjectPanic(name) => {
                if let Some(actor) = state.watched.get(&name).and_then(|w| w.actor.as_ref()) {
                    let _ = actor.cast(WatchMsg::InjectPanic);
                }
            }
            FleetMsg::Shutdown => {
                state.shutting_down = true;
                let _ = myself
                    .stop_children_and_wait(Some("shutdown".into()), Some(Duration::from_secs(2)))
                    .await;
                myself.stop(Some("shutdown".into()));
            }
        }
        Ok(())
    }

    async fn handle_supervisor_evt(
        &self,
        myself: ActorRef<FleetMsg>,
        evt: SupervisionEvent,
        state: &mut FleetState,
    ) -> Result<(), ActorProcessingErr> {
        // Overridden so a watch's exit never stops the fleet (ractor's default does).
        let id = match &evt {
            SupervisionEvent::ActorFailed(cell, _)
            | SupervisionEvent::ActorTerminated(cell, _, _) => cell.get_id(),
            _ => return Ok(()),
        };
        let Some(name) = state.live.remove(&id) else {
            return Ok(());
        };
        if !state.shutting_down {
            tracing::warn!(target: "masc_tui::fleet", workspace = %name, "watch exited");
            state.down(name, &myself);
        }
        Ok(())
    }
}

/// The running fleet.
pub struct FleetHandle {
    supervisor: ActorRef<FleetMsg>,
    join: tokio::task::JoinHandle<()>,
}

impl FleetHandle {
    /// Stops every watch and the fleet supervisor, and waits for them.
    pub async fn stop(self) {
        let _ = self.supervisor.cast(FleetMsg::Shutdown);
        let _ = self.join.await;
    }

    /// Supervision drill (needs `FleetConfig::fault_drills`).
    pub fn inject_panic(&self, name: &FleetName) {
        let _ = self.supervisor.cast(FleetMsg::InjectPanic(name.clone()));
    }
}

/// Starts one watch per target, posting into `inboxes` and notifying `events`.
pub async fn start_fleet(
    cfg: FleetConfig,
    events: Arc<dyn EventSink>,
    inboxes: Inboxes,
) -> Result<FleetHandle, SpawnErr> {
    let args = FleetArgs {
        cfg,
        events,
        inboxes,
    };
    let (supervisor, join) = FleetSupervisor::spawn(None, FleetSupervisor, args).await?;
    Ok(FleetHandle { supervisor, join })
}
