//! The shared rig of the server-driven actor tests: an embedded server with a fault plan, the
//! real client, the whole runtime reporting to a collecting view, and a stage recorder.
//! Install order matters: the recorder is the thread's default subscriber for the rig's life,
//! so tests run on the current-thread runtime.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test rig

use masc_tui::actors::contract::{
    SlotEvent, SlotKey, SourceEvent, SourceHandle, SourceKey, Ticket,
};
use masc_tui::actors::read::testing::{CollectingView, collecting_view};
use masc_tui::actors::supervisor::{
    RestartPolicy, RuntimeConfig, RuntimeHandle, start_runtime, start_runtime_with,
};
use masc_tui::protocol::client::{ClientConfig, TokenSource, WorkspaceClient};
use masc_tui::server::compat::MascRelease;
use masc_tui::server::faults::FaultPlan;
use masc_tui::server::{AuthMode, RunningServer, ServeOptions, start};
use masc_tui::timeline::capture::StageRecorder;
use std::time::Duration;

const TOKEN: &str = "actor-test-token";

pub struct Rig {
    pub server: RunningServer,
    pub runtime: RuntimeHandle,
    pub view: CollectingView,
    pub recorder: StageRecorder,
    /// The rig's own outbox file (chat sends and saves).
    pub outbox_path: std::path::PathBuf,
    _trace: tracing::subscriber::DefaultGuard,
    _state: tempfile::TempDir,
}

/// One observation of a slot: the ticket it carried and its payload.
#[derive(Debug, Clone)]
pub struct Obs<S, P> {
    pub ticket: Ticket<S>,
    pub payload: P,
}

/// The observation in a slot event, if it is one.
pub fn obs_of<S: Clone, P: Clone>(e: &SlotEvent<S, P>) -> Option<Obs<S, P>> {
    match e {
        SlotEvent::Observed(ticket, payload) => Some(Obs {
            ticket: ticket.clone(),
            payload: payload.clone(),
        }),
        _ => None,
    }
}

/// An outbox file of its own for one rig, in a directory removed when the rig drops the
/// returned guard (never the operator's state directory).
pub fn scratch_outbox() -> (tempfile::TempDir, masc_tui::outbox::OutboxLocation) {
    let dir = tempfile::tempdir().unwrap();
    let at = masc_tui::outbox::OutboxLocation::File(dir.path().join("outbox.sqlite3"));
    (dir, at)
}

/// A fault plan from the JSON of its rules.
pub fn plan(rules: &str) -> FaultPlan {
    FaultPlan::from_json(&format!(r#"{{"rules":[{rules}]}}"#)).unwrap()
}

/// A fault plan of one rule: every POST of `path` answers with `fault` (its JSON).
pub fn post_fault(path: &str, fault: &str) -> FaultPlan {
    plan(&format!(
        r#"{{"match":{{"method":"POST","path":"{path}"}},"fault":{fault}}}"#
    ))
}

/// The runtime configuration of the rigs: `expected_base` served, `/health` every
/// `health_interval`, the roster read once per epoch and on explicit demand (its cadence an
/// hour away), restarts after 1 ms, fault drills on, and the rig's own outbox.
pub fn rig_runtime_config(
    expected_base: String,
    health_interval: Duration,
    outbox: masc_tui::outbox::OutboxLocation,
) -> RuntimeConfig {
    RuntimeConfig {
        expected_base: Some(expected_base),
        health_interval,
        keepers_roster_interval: Duration::from_secs(3600),
        restart: RestartPolicy {
            initial_backoff: Duration::from_millis(1),
            ..RestartPolicy::default()
        },
        fault_drills: true,
        outbox,
        shown_at_start: None,
    }
}

/// Starts the rig. `expected_base: None` expects the server's own base; `request_timeout`
/// overrides the client's 10 s (timeout scenarios). The roster reads once per epoch and on
/// explicit demand only (no cadence reads in between); `/health` is polled every 20 ms.
pub async fn start_rig(
    serve: ServeOptions,
    expected_base: Option<&str>,
    request_timeout: Option<Duration>,
) -> Rig {
    start_rig_probing(serve, expected_base, request_timeout, Probing::EVERY_20_MS).await
}

/// How the rig's workspace actor probes `/health` after its first confirmation.
#[derive(Debug, Clone, Copy)]
pub struct Probing {
    pub interval: Duration,
    /// Ask the server to hold an unchanged answer.
    pub hold: bool,
}

impl Probing {
    /// The default rig: every 20 ms, held by the server while unchanged.
    pub const EVERY_20_MS: Probing = Probing {
        interval: Duration::from_millis(20),
        hold: true,
    };
    /// Once, then not for an hour and never held: every later `/health` the server sees is a
    /// save's or a preparation's own (pre-check, reconfirmation), so a `/health` fault reaches
    /// exactly those and never withdraws the epoch.
    pub const ONCE: Probing = Probing {
        interval: Duration::from_secs(3600),
        hold: false,
    };
}

/// The rig on the default server with `faults`, whose workspace actor probes `/health` only
/// once (see [`Probing::ONCE`]).
pub async fn quiet_health_rig(faults: FaultPlan) -> Rig {
    start_rig_probing(
        ServeOptions {
            faults,
            ..ServeOptions::default()
        },
        None,
        None,
        Probing::ONCE,
    )
    .await
}

/// [`start_rig`] with the workspace actor's `/health` cadence.
pub async fn start_rig_probing(
    serve: ServeOptions,
    expected_base: Option<&str>,
    request_timeout: Option<Duration>,
    probing: Probing,
) -> Rig {
    start_rig_sources(serve, expected_base, request_timeout, probing, None).await
}

/// The rig on the default server with `faults`, running only `sources` (a partial runtime,
/// e.g. a source with a test cadence).
pub async fn rig_with_sources(
    faults: FaultPlan,
    sources: Vec<masc_tui::actors::registry::SourceEntry>,
) -> Rig {
    start_rig_sources(
        ServeOptions {
            faults,
            ..ServeOptions::default()
        },
        None,
        None,
        Probing::EVERY_20_MS,
        Some(sources),
    )
    .await
}

/// [`start_rig_probing`] with the runtime's sources (`None`: the registry's).
async fn start_rig_sources(
    serve: ServeOptions,
    expected_base: Option<&str>,
    request_timeout: Option<Duration>,
    probing: Probing,
    sources: Option<Vec<masc_tui::actors::registry::SourceEntry>>,
) -> Rig {
    let recorder = StageRecorder::new();
    let trace = tracing::subscriber::set_default(recorder.subscriber());
    let server = start(ServeOptions {
        test_mode: true,
        auth: AuthMode::Token(TOKEN.into()),
        ..serve
    })
    .await
    .unwrap();
    let mut cc = ClientConfig::new(server.base_url());
    cc.token = TokenSource::Fixed(TOKEN.into());
    if let Some(timeout) = request_timeout {
        cc.request_timeout = timeout;
    }
    if !probing.hold {
        cc.health_hold = None;
    }
    let client = WorkspaceClient::new(cc).unwrap();
    let view = collecting_view();
    let (state, state_at) = crate::actor_support::scratch_outbox();
    let outbox_path = match &state_at {
        masc_tui::outbox::OutboxLocation::File(p) => p.clone(),
        masc_tui::outbox::OutboxLocation::StateDir | masc_tui::outbox::OutboxLocation::ReadOnly => {
            unreachable!("scratch outboxes are files")
        }
    };
    let cfg = rig_runtime_config(
        expected_base.map_or_else(|| server.base_path(), str::to_string),
        probing.interval,
        state_at,
    );
    let runtime = match sources {
        Some(sources) => {
            start_runtime_with(client, view.sink(), view.inboxes(), cfg, sources).await
        }
        None => start_runtime(client, view.sink(), view.inboxes(), cfg).await,
    }
    .unwrap();
    Rig {
        server,
        runtime,
        view,
        recorder,
        outbox_path,
        _trace: trace,
        _state: state,
    }
}

/// The rig on the embedded server playing `release` (an older MASC).
pub async fn rig_on_release(release: MascRelease) -> Rig {
    rig_on_release_with(release, FaultPlan::default()).await
}

/// [`rig_on_release`] with `faults`.
pub async fn rig_on_release_with(release: MascRelease, faults: FaultPlan) -> Rig {
    start_rig(
        ServeOptions {
            compat: Some(release),
            faults,
            ..ServeOptions::default()
        },
        None,
        None,
    )
    .await
}

/// The rig on the default server with `faults` (the client's own timeouts).
pub async fn rig_with(faults: FaultPlan) -> Rig {
    start_rig(
        ServeOptions {
            faults,
            ..ServeOptions::default()
        },
        None,
        None,
    )
    .await
}

impl Rig {
    /// The observation of `slot`: one already received (the slots of one source arrive in any
    /// order, E-1/T-1), else the next one.
    pub async fn observed_of<S, P>(&mut self, slot: &S) -> Obs<S, P>
    where
        S: SlotKey,
        P: Clone + Send + std::fmt::Debug + 'static,
    {
        let is_it = |e: &SlotEvent<S, P>| matches!(e, SlotEvent::Observed(t, _) if t.slot == *slot);
        if let Some(o) = self.view.last_slot(is_it).and_then(obs_of) {
            return o;
        }
        match self.view.wait_slot(is_it).await {
            Some(e) => obs_of(e).unwrap(),
            None => panic!("no observation of {slot:?}"),
        }
    }

    /// The next `Dispatched` of `slot` no earlier wait of this surface looked at.
    pub async fn dispatched_of<S, P>(&mut self, slot: &S) -> Ticket<S>
    where
        S: SlotKey,
        P: Send + std::fmt::Debug + 'static,
    {
        match self
            .view
            .wait_slot::<S, P>(|e| matches!(e, SlotEvent::Dispatched(t) if t.slot == *slot))
            .await
        {
            Some(e) => e.ticket().clone(),
            None => panic!("no dispatch of {slot:?}"),
        }
    }

    /// The handle of `source`: the latest `SourceUp` already received, else the next one.
    pub async fn source_handle(&mut self, source: SourceKey) -> SourceHandle {
        let is_it =
            |e: &SourceEvent| matches!(e, SourceEvent::SourceUp { source: s, .. } if *s == source);
        if let Some(SourceEvent::SourceUp { handle, .. }) = self.view.last_event(is_it) {
            return handle.clone();
        }
        match self.view.wait_event(is_it).await {
            Some(SourceEvent::SourceUp { handle, .. }) => handle.clone(),
            other => panic!("no SourceUp of {source}: {other:?}"),
        }
    }

    /// Stops the runtime, then the server.
    pub async fn finish(self) {
        self.runtime.stop().await;
        self.server.shutdown().await;
    }
}

/// Every `Dispatched` of every surface received so far, as (slot trace name, read scope).
pub fn all_dispatched(
    view: &mut CollectingView,
) -> Vec<(String, masc_tui::protocol::admission::ReadScope)> {
    use masc_tui::actors::board::{BoardObservation, BoardSlot};
    use masc_tui::actors::chat::{ChatObservation, ChatSlot};
    use masc_tui::actors::decisions::{DecisionsObservation, DecisionsSlot};
    use masc_tui::actors::keepers::{KeepersObservation, KeepersSlot};
    use masc_tui::actors::tools::{ToolsObservation, ToolsSlot};
    use masc_tui::actors::work::{WorkObservation, WorkSlot};
    fn of<S: SlotKey, P: Send + 'static>(
        view: &mut CollectingView,
    ) -> Vec<(String, masc_tui::protocol::admission::ReadScope)> {
        view.slot_events::<S, P>()
            .iter()
            .filter_map(|e| match e {
                SlotEvent::Dispatched(t) => Some((t.slot.trace_name(), t.scope.clone())),
                _ => None,
            })
            .collect()
    }
    let mut all = of::<KeepersSlot, KeepersObservation>(view);
    all.extend(of::<ChatSlot, ChatObservation>(view));
    all.extend(of::<WorkSlot, WorkObservation>(view));
    all.extend(of::<BoardSlot, BoardObservation>(view));
    all.extend(of::<ToolsSlot, ToolsObservation>(view));
    all.extend(of::<
        masc_tui::actors::runtime::RuntimeSlot,
        masc_tui::actors::runtime::RuntimeObservation,
    >(view));
    all.extend(of::<
        masc_tui::actors::connectors::ConnectorsSlot,
        masc_tui::actors::connectors::ConnectorsObservation,
    >(view));
    all.extend(of::<DecisionsSlot, DecisionsObservation>(view));
    all
}

/// `spawner` as a registry entry, with the slot kinds the registry lists for its source (so a
/// partial runtime of a test declares the same slots as the real one).
pub fn registry_entry(
    spawner: impl masc_tui::actors::contract::SourceSpawner,
) -> masc_tui::actors::registry::SourceEntry {
    let key = spawner.key();
    let slots = masc_tui::actors::registry::sources(
        Duration::from_secs(5),
        &masc_tui::outbox::OutboxLocation::StateDir,
    )
    .into_iter()
    .find(|e| e.key() == key)
    .map(|e| e.slots)
    .unwrap_or_else(|| panic!("{key} is not in the registry"));
    masc_tui::actors::registry::SourceEntry {
        spawner: std::sync::Arc::new(spawner),
        slots,
    }
}

/// A `/health` body serving `base` from another workspace's root (`/srv/another/.masc`), ready:
/// the answer of a server that now serves someone else (§2.1, §2.4).
pub fn foreign_health(base: &str) -> String {
    serde_json::json!({
        "status": "ok",
        "server": "masc",
        "paths": {"effective_base_path": base, "effective_masc_root": "/srv/another/.masc"},
        "startup": {"phase": "ready", "state_ready": true},
        "admission": {"receipts": true},
    })
    .to_string()
}

/// A fault rule (as [`plan`] takes them) answering the `nth` `/health` after the plan is set
/// with `status` and `body`.
pub fn health_rule(nth: usize, status: u16, body: &str) -> String {
    format!(
        r#"{{"match":{{"method":"GET","path":"/health"}},"when":{{"nth":{nth}}},"fault":{{"status":{status},"body":{body}}}}}"#
    )
}
