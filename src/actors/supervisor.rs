//! The root actor: spawns the workspace actor and every source the registry lists, linked to
//! itself, restarts a failed child with capped exponential backoff under a restart-intensity
//! limit, and tells the view (`SourceRestarted`, `SourceUp`, `SourceStopped`). It only
//! supervises: which sources exist is `crate::actors::registry`'s business. No terminal code
//! lives here: a panic in a source is a supervision event, never a terminal event
//! (architecture.md §4.2).
//!
//! Generation and epoch counters live here, outside any child, so restarts never reset them
//! (G-6). A restarted source registers with the workspace actor, which sends it the current
//! identity; its standing slots are re-dispatched on the next confirmed epoch.

use crate::actors::contract::{
    EventSink, GenerationBook, IdentityState, Inboxes, SourceContext, SourceControl, SourceEvent,
    SourceHandle, SourceKey, SourceSpawner,
};
use crate::actors::registry::{self, SourceEntry};
use crate::actors::workspace::{
    EpochCounter, HealthProbe, WorkspaceActor, WorkspaceArgs, WorkspaceMsg,
};
use crate::protocol::client::WorkspaceClient;
use crate::timeline::stage;
use ractor::{Actor, ActorId, ActorProcessingErr, ActorRef, SpawnErr, SupervisionEvent};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Restart policy of every child.
#[derive(Debug, Clone)]
pub struct RestartPolicy {
    /// Delay before the first restart; doubles per restart in the window.
    pub initial_backoff: Duration,
    pub max_backoff: Duration,
    /// More than this many restarts within `window` and the child is given up.
    pub max_restarts: u32,
    pub window: Duration,
}

impl Default for RestartPolicy {
    fn default() -> Self {
        Self {
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(5),
            max_restarts: 5,
            window: Duration::from_secs(30),
        }
    }
}

impl RestartPolicy {
    /// A child went down at `now`: forgets its restarts older than the window and returns the
    /// attempt this restart would be — `Err(attempt)` past `max_restarts` (give it up), else
    /// `Ok(attempt)`, recorded in `restarts`. One rule for the runtime's children and the
    /// fleet's watches.
    pub fn next_attempt(
        &self,
        restarts: &mut std::collections::VecDeque<Instant>,
        now: Instant,
    ) -> Result<u32, u32> {
        while restarts
            .front()
            .is_some_and(|t| now.duration_since(*t) > self.window)
        {
            restarts.pop_front();
        }
        let attempt = u32::try_from(restarts.len())
            .unwrap_or(u32::MAX)
            .saturating_add(1);
        if attempt > self.max_restarts {
            return Err(attempt);
        }
        restarts.push_back(now);
        Ok(attempt)
    }

    /// Backoff before restart number `n` (1-based) in the window.
    pub fn backoff(&self, n: u32) -> Duration {
        let factor = 1u32.checked_shl(n.saturating_sub(1)).unwrap_or(u32::MAX);
        self.initial_backoff
            .checked_mul(factor)
            .unwrap_or(self.max_backoff)
            .min(self.max_backoff)
    }
}

#[derive(Debug, Clone)]
pub struct RuntimeConfig {
    /// The operator's expected base path (`MASC_BASE_PATH`); `None` accepts the served one.
    pub expected_base: Option<String>,
    /// `/health` cadence (protocol.md §2.1, default 2 s).
    pub health_interval: Duration,
    /// Keepers roster cadence (default 5 s).
    pub keepers_roster_interval: Duration,
    pub restart: RestartPolicy,
    /// Honour panic drills (`RuntimeHandle::inject_panic`); tests and `demo` only.
    pub fault_drills: bool,
    /// Where the durable outbox of chat sends and saves lives (tests use a temporary file).
    pub outbox: crate::outbox::OutboxLocation,
    /// The sources the surface in front at start shows; `None`: every source starts shown
    /// (no view tells them otherwise: tests, benches).
    pub shown_at_start: Option<Vec<SourceKey>>,
}

impl Default for RuntimeConfig {
    fn default() -> Self {
        Self {
            expected_base: None,
            health_interval: Duration::from_secs(2),
            keepers_roster_interval: Duration::from_secs(5),
            restart: RestartPolicy::default(),
            fault_drills: false,
            outbox: crate::outbox::OutboxLocation::StateDir,
            shown_at_start: None,
        }
    }
}

pub enum SupervisorMsg {
    /// Backoff elapsed: start this child again.
    Restart(SourceKey),
    /// Forward a panic drill to the current incarnation of this child.
    InjectPanic(SourceKey),
    /// Stop every child (no restarts), then the supervisor.
    Shutdown,
}

struct Child {
    /// Restart instants within the policy window.
    restarts: VecDeque<Instant>,
    given_up: bool,
}

pub struct SupervisorState {
    client: WorkspaceClient,
    view: Arc<dyn EventSink>,
    inboxes: Inboxes,
    cfg: RuntimeConfig,
    epochs: EpochCounter,
    generations: GenerationBook,
    spawners: BTreeMap<SourceKey, Arc<dyn SourceSpawner>>,
    children: BTreeMap<SourceKey, Child>,
    /// Live incarnations: actor id → child.
    live: HashMap<ActorId, SourceKey>,
    workspace: Option<ActorRef<WorkspaceMsg>>,
    sources: BTreeMap<SourceKey, SourceHandle>,
    shutting_down: bool,
}

impl SupervisorState {
    async fn start_child(
        &mut self,
        key: &SourceKey,
        myself: &ActorRef<SupervisorMsg>,
    ) -> Result<(), SpawnErr> {
        if key == &SourceKey::WORKSPACE {
            let args = WorkspaceArgs {
                client: self.client.clone(),
                view: self.view.clone(),
                expected_base: self.cfg.expected_base.clone(),
                interval: self.cfg.health_interval,
                epochs: self.epochs.clone(),
                probes: self.generations.counter(&HealthProbe),
                fault_drills: self.cfg.fault_drills,
            };
            let (ws, _) =
                WorkspaceActor::spawn_linked(None, WorkspaceActor, args, myself.get_cell()).await?;
            self.live.insert(ws.get_id(), *key);
            for (source, handle) in &self.sources {
                let _ = ws.cast(WorkspaceMsg::Register {
                    source: *source,
                    handle: handle.clone(),
                });
            }
            self.workspace = Some(ws);
            return Ok(());
        }
        let Some(spawner) = self.spawners.get(key).cloned() else {
            return Err(SpawnErr::StartupFailed(
                format!("no spawner for {key}").into(),
            ));
        };
        let ctx = SourceContext {
            client: self.client.clone(),
            events: self.view.clone(),
            inboxes: self.inboxes.clone(),
            generations: self.generations.clone(),
            fault_drills: self.cfg.fault_drills,
            shown_at_start: self
                .cfg
                .shown_at_start
                .as_ref()
                .is_none_or(|shown| shown.contains(key)),
        };
        let handle = spawner.spawn(ctx, myself.get_cell()).await?;
        self.live.insert(handle.actor_id(), *key);
        self.sources.insert(*key, handle.clone());
        if let Some(ws) = &self.workspace {
            let _ = ws.cast(WorkspaceMsg::Register {
                source: *key,
                handle: handle.clone(),
            });
        }
        self.view.send(SourceEvent::SourceUp {
            source: *key,
            handle,
        });
        Ok(())
    }

    /// A child exited or failed to start: schedule a restart or give it up.
    fn child_down(&mut self, key: SourceKey, myself: &ActorRef<SupervisorMsg>) {
        if key == SourceKey::WORKSPACE {
            self.workspace = None;
        } else {
            self.sources.remove(&key);
        }
        let policy = self.cfg.restart.clone();
        let now = Instant::now();
        let child = self.children.entry(key).or_insert(Child {
            restarts: VecDeque::new(),
            given_up: false,
        });
        let attempt = match policy.next_attempt(&mut child.restarts, now) {
            Ok(attempt) => attempt,
            Err(attempt) => {
                child.given_up = true;
                stage::restart(&key, attempt, "gave_up");
                tracing::warn!(target: "masc_tui::supervisor", source = %key, "restart intensity exceeded; source stopped");
                self.view.send(SourceEvent::SourceStopped(key));
                if key == SourceKey::WORKSPACE {
                    // Without a workspace actor nothing can vouch for an epoch: withdraw.
                    self.epochs.advance();
                    let withdrawn = IdentityState::Unconfirmed {
                        reason: "workspace actor stopped".to_string(),
                    };
                    self.view.send(SourceEvent::Identity(withdrawn.clone()));
                    for handle in self.sources.values() {
                        handle.send_control(SourceControl::Identity(withdrawn.clone()));
                    }
                }
                return;
            }
        };
        let delay = policy.backoff(attempt);
        tracing::info!(
            target: "masc_tui::supervisor",
            source = %key,
            attempt = attempt,
            backoff_ms = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
            "child down; restart scheduled"
        );
        myself.send_after(delay, move || SupervisorMsg::Restart(key));
    }
}

pub struct Supervisor;

pub struct SupervisorArgs {
    pub client: WorkspaceClient,
    pub view: Arc<dyn EventSink>,
    pub inboxes: Inboxes,
    pub cfg: RuntimeConfig,
    pub sources: Vec<SourceEntry>,
}

impl Actor for Supervisor {
    type Msg = SupervisorMsg;
    type State = SupervisorState;
    type Arguments = SupervisorArgs;

    async fn pre_start(
        &self,
        myself: ActorRef<SupervisorMsg>,
        args: SupervisorArgs,
    ) -> Result<SupervisorState, ActorProcessingErr> {
        let spawners: BTreeMap<_, _> = args
            .sources
            .into_iter()
            .map(|e| (e.key(), e.spawner))
            .collect();
        let mut state = SupervisorState {
            client: args.client,
            view: args.view,
            inboxes: args.inboxes,
            cfg: args.cfg,
            epochs: EpochCounter::new(),
            generations: GenerationBook::new(),
            spawners,
            children: BTreeMap::new(),
            live: HashMap::new(),
            workspace: None,
            sources: BTreeMap::new(),
            shutting_down: false,
        };
        // The workspace actor first: its `/health` probe is on the way to every first value,
        // so it leaves while the sources start (a source that registers later is handed the
        // identity in force, as a restarted one is).
        state.start_child(&SourceKey::WORKSPACE, &myself).await?;
        let keys: Vec<SourceKey> = state.spawners.keys().copied().collect();
        for key in keys {
            state.start_child(&key, &myself).await?;
        }
        Ok(state)
    }

    async fn handle(
        &self,
        myself: ActorRef<SupervisorMsg>,
        msg: SupervisorMsg,
        state: &mut SupervisorState,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            SupervisorMsg::Restart(key) => {
                if state.shutting_down {
                    return Ok(());
                }
                let attempt = state
                    .children
                    .get(&key)
                    .map(|c| u32::try_from(c.restarts.len()).unwrap_or(u32::MAX))
                    .unwrap_or(0);
                // The view first fails the dead incarnation's slots, then learns the new handle.
                state.view.send(SourceEvent::SourceRestarted(key));
                match state.start_child(&key, &myself).await {
                    Ok(()) => stage::restart(&key, attempt, "restarted"),
                    Err(_) => {
                        stage::restart(&key, attempt, "start_failed");
                        state.child_down(key, &myself);
                    }
                }
            }
            SupervisorMsg::InjectPanic(key) => {
                if key == SourceKey::WORKSPACE {
                    if let Some(ws) = &state.workspace {
                        let _ = ws.cast(WorkspaceMsg::InjectPanic);
                    }
                } else if let Some(handle) = state.sources.get(&key) {
                    handle.send_control(SourceControl::InjectPanic);
                }
            }
            SupervisorMsg::Shutdown => {
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
        myself: ActorRef<SupervisorMsg>,
        evt: SupervisionEvent,
        state: &mut SupervisorState,
    ) -> Result<(), ActorProcessingErr> {
        // Overridden so a child's exit never stops the supervisor (ractor's default does).
        let id = match &evt {
            SupervisionEvent::ActorFailed(cell, _)
            | SupervisionEvent::ActorTerminated(cell, _, _) => cell.get_id(),
            _ => return Ok(()),
        };
        let Some(key) = state.live.remove(&id) else {
            return Ok(());
        };
        if state.shutting_down {
            return Ok(());
        }
        let class = if matches!(evt, SupervisionEvent::ActorFailed(..)) {
            "failed"
        } else {
            "terminated"
        };
        tracing::warn!(target: "masc_tui::supervisor", source = %key, exit = class, "child exited");
        state.child_down(key, &myself);
        Ok(())
    }
}

#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    #[error("the runtime could not start: {0}")]
    Spawn(#[source] SpawnErr),
}

/// The running actor tree.
pub struct RuntimeHandle {
    supervisor: ActorRef<SupervisorMsg>,
    join: tokio::task::JoinHandle<()>,
}

impl RuntimeHandle {
    /// Stops every child (no restarts) and the supervisor, and waits for them.
    pub async fn stop(self) {
        let _ = self.supervisor.cast(SupervisorMsg::Shutdown);
        let _ = self.join.await;
    }

    /// Supervision drill: the current incarnation of `source` panics in its handler. Needs
    /// `RuntimeConfig::fault_drills`.
    pub fn inject_panic(&self, source: SourceKey) {
        let _ = self.supervisor.cast(SupervisorMsg::InjectPanic(source));
    }

    pub fn supervisor(&self) -> &ActorRef<SupervisorMsg> {
        &self.supervisor
    }
}

/// Starts the supervisor with the workspace actor and every source of the registry.
pub async fn start_runtime(
    client: WorkspaceClient,
    view: Arc<dyn EventSink>,
    inboxes: Inboxes,
    cfg: RuntimeConfig,
) -> Result<RuntimeHandle, RuntimeError> {
    let sources = registry::sources(cfg.keepers_roster_interval, &cfg.outbox);
    start_runtime_with(client, view, inboxes, cfg, sources).await
}

/// [`start_runtime`] with an explicit list of sources (tests, partial runtimes).
pub async fn start_runtime_with(
    client: WorkspaceClient,
    view: Arc<dyn EventSink>,
    inboxes: Inboxes,
    cfg: RuntimeConfig,
    sources: Vec<SourceEntry>,
) -> Result<RuntimeHandle, RuntimeError> {
    let args = SupervisorArgs {
        client,
        view,
        inboxes,
        cfg,
        sources,
    };
    let (supervisor, join) = Supervisor::spawn(None, Supervisor, args)
        .await
        .map_err(RuntimeError::Spawn)?;
    Ok(RuntimeHandle { supervisor, join })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_and_caps() {
        let p = RestartPolicy::default();
        let ms: Vec<u128> = (1..=8).map(|n| p.backoff(n).as_millis()).collect();
        assert_eq!(ms, [100, 200, 400, 800, 1600, 3200, 5000, 5000]);
        assert_eq!(p.backoff(64), p.max_backoff);
    }
}
