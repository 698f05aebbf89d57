#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! Actor-level tests of the runtime that need no server: the polled source actor driven with
//! fake workers and hand-sent identities, and the supervisor's restart policy driven with
//! panic drills. Synchronisation is by messages (the fake view) and stage records only.

use masc_tui::actors::messages::{
    DemandKind, IdentityState, ObservationPayload, SourceCommand, ViewMsg,
};
use masc_tui::actors::read::polled::{PolledSource, PolledSourceArgs};
use masc_tui::actors::read::testing::{ViewLog, collecting_view};
use masc_tui::actors::read::{ExplicitPolicy, GenerationBook, Reader, SlotSpec, reader};
use masc_tui::actors::supervisor::{
    RestartPolicy, RuntimeConfig, SourceContext, SourceSpawner, start_runtime_with,
};
use masc_tui::actors::ticket::SourceKey;
use masc_tui::protocol::admission::{AdmissionMode, ReadScope, WorkspaceId};
use masc_tui::protocol::client::{ClientConfig, ClientError, WorkspaceClient};
use masc_tui::timeline::capture::StageRecorder;
use ractor::{Actor, ActorCell, ActorRef, SpawnErr};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

const KEY: SourceKey = SourceKey::KeepersRoster;

fn client() -> WorkspaceClient {
    WorkspaceClient::new(ClientConfig::new("http://127.0.0.1:9")).unwrap()
}

fn marked(status: u16) -> ObservationPayload {
    ObservationPayload::KeepersRoster(Err(ClientError::Status {
        status,
        body: String::new(),
    }))
}

type Parked = oneshot::Sender<ObservationPayload>;

fn gated_reader(tx: mpsc::UnboundedSender<Parked>) -> Reader {
    reader(move |_auth, _client| {
        let tx = tx.clone();
        async move {
            let (release, wait) = oneshot::channel();
            let _ = tx.send(release);
            wait.await.unwrap_or_else(|_| marked(599))
        }
    })
}

fn confirmed(epoch: u64) -> IdentityState {
    IdentityState::Confirmed {
        scope: ReadScope {
            workspace: WorkspaceId("/srv/.masc".into()),
            epoch,
        },
        base_path: "/srv".into(),
        mode: AdmissionMode::Receipt,
    }
}

async fn polled(
    view: ActorRef<ViewMsg>,
    cadence: Option<Duration>,
    policy: ExplicitPolicy,
) -> (ActorRef<SourceCommand>, mpsc::UnboundedReceiver<Parked>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let args = PolledSourceArgs {
        source: KEY,
        slots: vec![SlotSpec {
            key: KEY,
            explicit: policy,
            standing: true,
            generations: GenerationBook::new().counter(&KEY),
            reader: gated_reader(tx),
        }],
        cadence,
        client: client(),
        view,
        fault_drills: false,
    };
    let (actor, _) = PolledSource::spawn(None, PolledSource, args).await.unwrap();
    (actor, rx)
}

fn dispatched_gen(m: &ViewMsg) -> Option<u64> {
    match m {
        ViewMsg::Dispatched(t) => Some(t.generation),
        _ => None,
    }
}

#[tokio::test]
async fn polled_source_reads_on_confirmation_and_rearms_its_cadence_after_each_read() {
    let (view, mut log) = collecting_view().await.unwrap();
    let (source, mut parked) = polled(
        view,
        Some(Duration::from_millis(1)),
        ExplicitPolicy::Supersede,
    )
    .await;
    source.cast(SourceCommand::Identity(confirmed(1))).unwrap();
    // The standing slot reads at once under the new epoch.
    log.wait_for(|m| dispatched_gen(m) == Some(1))
        .await
        .unwrap();
    parked.recv().await.unwrap().send(marked(500)).unwrap();
    log.wait_for(|m| matches!(m, ViewMsg::Observed(o) if o.ticket.generation == 1))
        .await
        .unwrap();
    // The cadence was re-armed by that completed read: a second read follows.
    log.wait_for(|m| dispatched_gen(m) == Some(2))
        .await
        .unwrap();
    source.stop(None);
}

#[tokio::test]
async fn g3_explicit_refresh_supersedes_through_the_actor() {
    let (view, mut log) = collecting_view().await.unwrap();
    let (source, mut parked) = polled(view, None, ExplicitPolicy::Supersede).await;
    source.cast(SourceCommand::Identity(confirmed(1))).unwrap();
    let mut first = parked.recv().await.unwrap();
    source
        .cast(SourceCommand::Demand(DemandKind::Explicit))
        .unwrap();
    log.wait_for(|m| dispatched_gen(m) == Some(2))
        .await
        .unwrap();
    first.closed().await; // the superseded worker was aborted
    parked.recv().await.unwrap().send(marked(501)).unwrap();
    log.wait_for(|m| matches!(m, ViewMsg::Observed(_)))
        .await
        .unwrap();
    let order: Vec<String> = log
        .seen
        .iter()
        .filter_map(|m| match m {
            ViewMsg::Dispatched(t) => Some(format!("d{}", t.generation)),
            ViewMsg::Retired(t) => Some(format!("r{}", t.generation)),
            ViewMsg::Observed(o) => Some(format!("o{}", o.ticket.generation)),
            _ => None,
        })
        .collect();
    assert_eq!(order, ["d1", "r1", "d2", "o2"]);
    source.stop(None);
}

#[tokio::test]
async fn g6_withdrawal_through_the_actor_retires_and_reconfirmation_redispatches() {
    let (view, mut log) = collecting_view().await.unwrap();
    let (source, mut parked) = polled(view, None, ExplicitPolicy::Supersede).await;
    source.cast(SourceCommand::Identity(confirmed(1))).unwrap();
    let mut first = parked.recv().await.unwrap();
    source
        .cast(SourceCommand::Identity(IdentityState::Booting))
        .unwrap();
    log.wait_for(|m| matches!(m, ViewMsg::Retired(t) if t.generation == 1))
        .await
        .unwrap();
    first.closed().await;
    source.cast(SourceCommand::Identity(confirmed(3))).unwrap();
    let hit = log
        .wait_for(|m| matches!(m, ViewMsg::Dispatched(_)) && dispatched_gen(m) == Some(2))
        .await
        .unwrap();
    let ViewMsg::Dispatched(t) = hit else {
        unreachable!()
    };
    assert_eq!(t.scope.epoch, 3);
    source.stop(None);
}

/// A source that is only the roster slot with a gated reader, for supervision tests.
struct GatedSpawner {
    parked: mpsc::UnboundedSender<Parked>,
}

impl SourceSpawner for GatedSpawner {
    fn key(&self) -> SourceKey {
        KEY
    }
    fn spawn(
        &self,
        ctx: SourceContext,
        supervisor: ActorCell,
    ) -> futures::future::BoxFuture<'static, Result<ActorRef<SourceCommand>, SpawnErr>> {
        let args = PolledSourceArgs {
            source: KEY,
            slots: vec![SlotSpec {
                key: KEY,
                explicit: ExplicitPolicy::Supersede,
                standing: true,
                generations: ctx.generations.counter(&KEY),
                reader: gated_reader(self.parked.clone()),
            }],
            cadence: None,
            client: ctx.client,
            view: ctx.view,
            fault_drills: ctx.fault_drills,
        };
        Box::pin(async move {
            Ok(
                PolledSource::spawn_linked(None, PolledSource, args, supervisor)
                    .await?
                    .0,
            )
        })
    }
}

fn drill_config(max_restarts: u32) -> RuntimeConfig {
    RuntimeConfig {
        // The stub client never confirms; a long cadence keeps probes out of the way.
        health_interval: Duration::from_secs(3600),
        restart: RestartPolicy {
            initial_backoff: Duration::from_millis(1),
            max_backoff: Duration::from_millis(4),
            max_restarts,
            window: Duration::from_secs(3600),
        },
        fault_drills: true,
        ..RuntimeConfig::default()
    }
}

async fn source_up(log: &mut ViewLog) -> ActorRef<SourceCommand> {
    match log
        .wait_for(|m| matches!(m, ViewMsg::SourceUp { source, .. } if *source == KEY))
        .await
    {
        Some(ViewMsg::SourceUp { handle, .. }) => handle.clone(),
        _ => panic!("view stopped before SourceUp"),
    }
}

#[tokio::test]
async fn a_source_panic_restarts_it_and_the_view_gets_the_new_handle() {
    let recorder = StageRecorder::new();
    let _trace = tracing::subscriber::set_default(recorder.subscriber());
    let (view, mut log) = collecting_view().await.unwrap();
    let (tx, _parked) = mpsc::unbounded_channel();
    let runtime = start_runtime_with(
        client(),
        view,
        drill_config(5),
        vec![Arc::new(GatedSpawner { parked: tx })],
    )
    .await
    .unwrap();
    let first = source_up(&mut log).await;
    runtime.inject_panic(KEY);
    log.wait_for(|m| matches!(m, ViewMsg::SourceRestarted(s) if *s == KEY))
        .await
        .unwrap();
    let second = source_up(&mut log).await;
    assert_ne!(first.get_id(), second.get_id());
    let restart = recorder
        .wait_for(|r| r.stage == "restart" && r.reason.as_deref() == Some("restarted"))
        .await
        .unwrap();
    assert_eq!(restart.source, "keepers_roster");
    // The view (and the rest of the tree) is untouched: the new source answers.
    second.cast(SourceCommand::Identity(confirmed(50))).unwrap();
    log.wait_for(|m| matches!(m, ViewMsg::Dispatched(_)))
        .await
        .unwrap();
    runtime.stop().await;
}

#[tokio::test]
async fn restart_intensity_exceeded_stops_the_source_and_keeps_the_runtime() {
    let recorder = StageRecorder::new();
    let _trace = tracing::subscriber::set_default(recorder.subscriber());
    let (view, mut log) = collecting_view().await.unwrap();
    let (tx, _parked) = mpsc::unbounded_channel();
    let runtime = start_runtime_with(
        client(),
        view,
        drill_config(2),
        vec![Arc::new(GatedSpawner { parked: tx })],
    )
    .await
    .unwrap();
    source_up(&mut log).await;
    for _ in 0..2 {
        runtime.inject_panic(KEY);
        source_up(&mut log).await;
    }
    runtime.inject_panic(KEY);
    log.wait_for(|m| matches!(m, ViewMsg::SourceStopped(s) if *s == KEY))
        .await
        .unwrap();
    let gave_up = recorder
        .wait_for(|r| r.stage == "restart" && r.reason.as_deref() == Some("gave_up"))
        .await
        .unwrap();
    assert_eq!(gave_up.source, "keepers_roster");
    // The supervisor is still alive and stops cleanly.
    assert_eq!(
        runtime.supervisor().get_status(),
        ractor::ActorStatus::Running
    );
    runtime.stop().await;
}
