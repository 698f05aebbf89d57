#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! Actor-level tests of the runtime that need no server: the polled source actor driven with
//! fake workers and hand-sent identities, and the supervisor's restart policy driven with
//! panic drills. Synchronisation is by messages (the fake view) and stage records only.

use masc_tui::actors::contract::{
    DemandKind, GenerationBook, IdentityState, SlotEvent, SourceContext, SourceControl,
    SourceEvent, SourceHandle, SourceKey, SourceSpawner,
};
use masc_tui::actors::keepers::{KeepersObservation, KeepersSlot, ROSTER as KEY};
use masc_tui::actors::read::polled::{PolledMsg, PolledSlots, PolledSource, PolledSourceArgs};
use masc_tui::actors::read::shell::HIDDEN_FIRST_READ_AFTER;
use masc_tui::actors::read::testing::{CollectingView, collecting_view};
use masc_tui::actors::read::{ExplicitPolicy, Reader, SlotSpec, reader, spawn_source};
use masc_tui::actors::registry::SourceEntry;
use masc_tui::actors::supervisor::{RestartPolicy, RuntimeConfig, start_runtime_with};
use masc_tui::protocol::admission::{AdmissionMode, ReadScope, WorkspaceId};
use masc_tui::protocol::client::{ClientConfig, ClientError, WorkspaceClient};
use masc_tui::timeline::capture::StageRecorder;
use ractor::{Actor, ActorCell, ActorRef, SpawnErr};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

const SLOT: KeepersSlot = KeepersSlot::Roster;

type Event = SlotEvent<KeepersSlot, KeepersObservation>;

fn client() -> WorkspaceClient {
    WorkspaceClient::new(ClientConfig::new("http://127.0.0.1:9")).unwrap()
}

fn marked(status: u16) -> KeepersObservation {
    KeepersObservation::Roster(Err(ClientError::Status {
        status,
        body: String::new(),
    }))
}

type Parked = oneshot::Sender<KeepersObservation>;

fn gated_reader(tx: mpsc::UnboundedSender<Parked>) -> Reader<KeepersObservation> {
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

fn roster_slot(
    generations: &GenerationBook,
    policy: ExplicitPolicy,
    tx: mpsc::UnboundedSender<Parked>,
) -> SlotSpec<KeepersSlot, KeepersObservation> {
    SlotSpec {
        key: SLOT,
        explicit: policy,
        standing: true,
        generations: generations.counter(&SLOT),
        reader: gated_reader(tx),
    }
}

/// A polled source with the roster slot and a gated reader, reporting to `view`, spawned
/// without a supervisor. Returns its actor (to stop it) and its control handle.
async fn polled(
    view: &CollectingView,
    cadence: Option<Duration>,
    policy: ExplicitPolicy,
) -> (
    ActorRef<PolledMsg<KeepersSlot, KeepersObservation>>,
    SourceHandle,
    mpsc::UnboundedReceiver<Parked>,
) {
    polled_shown(view, cadence, policy, true).await
}

/// [`polled`], shown or not by the surface in front at start.
async fn polled_shown(
    view: &CollectingView,
    cadence: Option<Duration>,
    policy: ExplicitPolicy,
    shown_at_start: bool,
) -> (
    ActorRef<PolledMsg<KeepersSlot, KeepersObservation>>,
    SourceHandle,
    mpsc::UnboundedReceiver<Parked>,
) {
    let (tx, rx) = mpsc::unbounded_channel();
    let generations = GenerationBook::new();
    let args = PolledSourceArgs {
        key: KEY,
        args: PolledSlots {
            slots: vec![roster_slot(&generations, policy, tx)],
            cadence,
        },
        ctx: SourceContext {
            client: client(),
            events: view.sink(),
            inboxes: view.inboxes(),
            generations,
            fault_drills: false,
            shown_at_start,
        },
    };
    let (actor, _) = PolledSource::spawn(None, PolledSource::default(), args)
        .await
        .unwrap();
    let handle = SourceHandle::new(&actor);
    (actor, handle, rx)
}

fn dispatched_gen(e: &Event) -> Option<u64> {
    match e {
        SlotEvent::Dispatched(t) => Some(t.generation),
        _ => None,
    }
}

fn identity(source: &SourceHandle, state: IdentityState) {
    assert!(source.send_control(SourceControl::Identity(state)));
}

#[tokio::test]
async fn polled_source_reads_on_confirmation_and_rearms_its_cadence_after_each_read() {
    let mut view = collecting_view();
    let (actor, source, mut parked) = polled(
        &view,
        Some(Duration::from_millis(1)),
        ExplicitPolicy::Supersede,
    )
    .await;
    identity(&source, confirmed(1));
    // The standing slot reads at once under the new epoch.
    view.wait_slot(|e: &Event| dispatched_gen(e) == Some(1))
        .await
        .unwrap();
    parked.recv().await.unwrap().send(marked(500)).unwrap();
    view.wait_slot(|e: &Event| matches!(e, SlotEvent::Observed(t, _) if t.generation == 1))
        .await
        .unwrap();
    // The cadence was re-armed by that completed read: a second read follows.
    view.wait_slot(|e: &Event| dispatched_gen(e) == Some(2))
        .await
        .unwrap();
    actor.stop(None);
}

/// The clock is paused: it moves only when every task waits, so "at once" is virtual time 0
/// and the hold-back is exactly `HIDDEN_FIRST_READ_AFTER`, whatever the machine's load.
#[tokio::test(start_paused = true)]
async fn a_source_hidden_at_start_reads_after_the_shown_ones_had_the_first_moments() {
    let mut view = collecting_view();
    let (actor, source, _parked) = polled_shown(
        &view,
        Some(Duration::from_secs(5)),
        ExplicitPolicy::Supersede,
        false,
    )
    .await;
    let t0 = tokio::time::Instant::now();
    identity(&source, IdentityState::Booting);
    identity(&source, confirmed(1));
    view.wait_slot(|e: &Event| dispatched_gen(e) == Some(1))
        .await
        .unwrap();
    assert!(
        t0.elapsed() >= HIDDEN_FIRST_READ_AFTER,
        "{:?}",
        t0.elapsed()
    );
    actor.stop(None);

    // Shown at start: the confirmation reads at once.
    let mut view = collecting_view();
    let (actor, source, _parked) = polled_shown(
        &view,
        Some(Duration::from_secs(5)),
        ExplicitPolicy::Supersede,
        true,
    )
    .await;
    let t0 = tokio::time::Instant::now();
    identity(&source, confirmed(1));
    view.wait_slot(|e: &Event| dispatched_gen(e) == Some(1))
        .await
        .unwrap();
    assert!(t0.elapsed() < HIDDEN_FIRST_READ_AFTER, "{:?}", t0.elapsed());
    actor.stop(None);
}

#[tokio::test(start_paused = true)]
async fn a_held_back_confirmation_is_handed_over_at_once_when_shown_or_demanded() {
    for wake in [
        SourceControl::Visible(true),
        SourceControl::Demand(DemandKind::Explicit),
    ] {
        let mut view = collecting_view();
        let (actor, source, _parked) = polled_shown(
            &view,
            Some(Duration::from_secs(5)),
            ExplicitPolicy::Supersede,
            false,
        )
        .await;
        let t0 = tokio::time::Instant::now();
        identity(&source, confirmed(1));
        let name = format!("{wake:?}");
        assert!(source.send_control(wake));
        let hit = view
            .wait_slot(|e: &Event| matches!(e, SlotEvent::Dispatched(_)))
            .await
            .unwrap();
        let SlotEvent::Dispatched(t) = hit else {
            unreachable!()
        };
        // Under the held-back epoch, and before the hold-back would have ended.
        assert_eq!(t.scope.epoch, 1, "{name}");
        assert!(
            t0.elapsed() < HIDDEN_FIRST_READ_AFTER,
            "{name}: {:?}",
            t0.elapsed()
        );
        actor.stop(None);
    }
}

#[tokio::test(start_paused = true)]
async fn a_withdrawal_while_held_back_cancels_the_held_confirmation() {
    let mut view = collecting_view();
    let (actor, source, _parked) = polled_shown(
        &view,
        Some(Duration::from_secs(5)),
        ExplicitPolicy::Supersede,
        false,
    )
    .await;
    identity(&source, confirmed(1));
    identity(&source, IdentityState::Booting);
    // Past the hold-back: nothing was read under the withdrawn epoch.
    tokio::time::sleep(HIDDEN_FIRST_READ_AFTER * 2).await;
    identity(&source, confirmed(2));
    let hit = view
        .wait_slot(|e: &Event| matches!(e, SlotEvent::Dispatched(_)))
        .await
        .unwrap();
    let SlotEvent::Dispatched(t) = hit else {
        unreachable!()
    };
    assert_eq!(t.scope.epoch, 2);
    actor.stop(None);
}

#[tokio::test]
async fn g3_explicit_refresh_supersedes_through_the_actor() {
    let mut view = collecting_view();
    let (actor, source, mut parked) = polled(&view, None, ExplicitPolicy::Supersede).await;
    identity(&source, confirmed(1));
    let mut first = parked.recv().await.unwrap();
    assert!(source.send_control(SourceControl::Demand(DemandKind::Explicit)));
    view.wait_slot(|e: &Event| dispatched_gen(e) == Some(2))
        .await
        .unwrap();
    first.closed().await; // the superseded worker was aborted
    parked.recv().await.unwrap().send(marked(501)).unwrap();
    view.wait_slot(|e: &Event| matches!(e, SlotEvent::Observed(..)))
        .await
        .unwrap();
    let order: Vec<String> = view
        .slot_events::<KeepersSlot, KeepersObservation>()
        .iter()
        .map(|e| match e {
            SlotEvent::Dispatched(t) => format!("d{}", t.generation),
            SlotEvent::Retired(t) => format!("r{}", t.generation),
            SlotEvent::Observed(t, _) => format!("o{}", t.generation),
        })
        .collect();
    assert_eq!(order, ["d1", "r1", "d2", "o2"]);
    actor.stop(None);
}

#[tokio::test]
async fn g6_withdrawal_through_the_actor_retires_and_reconfirmation_redispatches() {
    let mut view = collecting_view();
    let (actor, source, mut parked) = polled(&view, None, ExplicitPolicy::Supersede).await;
    identity(&source, confirmed(1));
    let mut first = parked.recv().await.unwrap();
    identity(&source, IdentityState::Booting);
    view.wait_slot(|e: &Event| matches!(e, SlotEvent::Retired(t) if t.generation == 1))
        .await
        .unwrap();
    first.closed().await;
    identity(&source, confirmed(3));
    let hit = view
        .wait_slot(|e: &Event| {
            matches!(e, SlotEvent::Dispatched(_)) && dispatched_gen(e) == Some(2)
        })
        .await
        .unwrap();
    let SlotEvent::Dispatched(t) = hit else {
        unreachable!()
    };
    assert_eq!(t.scope.epoch, 3);
    actor.stop(None);
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
    ) -> futures::future::BoxFuture<'static, Result<SourceHandle, SpawnErr>> {
        let args = PolledSourceArgs {
            key: KEY,
            args: PolledSlots {
                slots: vec![roster_slot(
                    &ctx.generations,
                    ExplicitPolicy::Supersede,
                    self.parked.clone(),
                )],
                cadence: None,
            },
            ctx,
        };
        spawn_source(
            PolledSource::<KeepersSlot, KeepersObservation>::default(),
            args,
            supervisor,
        )
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

async fn source_up(view: &mut CollectingView) -> SourceHandle {
    match view
        .wait_event(|e| matches!(e, SourceEvent::SourceUp { source, .. } if source == &KEY))
        .await
    {
        Some(SourceEvent::SourceUp { handle, .. }) => handle.clone(),
        _ => panic!("view stopped before SourceUp"),
    }
}

/// The gated roster source as the runtime's only source.
fn gated_entry(parked: mpsc::UnboundedSender<Parked>) -> Vec<SourceEntry> {
    vec![crate::actor_support::registry_entry(GatedSpawner {
        parked,
    })]
}

#[tokio::test]
async fn a_source_panic_restarts_it_and_the_view_gets_the_new_handle() {
    let recorder = StageRecorder::new();
    let _trace = tracing::subscriber::set_default(recorder.subscriber());
    let mut view = collecting_view();
    let (tx, _parked) = mpsc::unbounded_channel();
    let runtime = start_runtime_with(
        client(),
        view.sink(),
        view.inboxes(),
        drill_config(5),
        gated_entry(tx),
    )
    .await
    .unwrap();
    let first = source_up(&mut view).await;
    runtime.inject_panic(KEY);
    view.wait_event(|e| matches!(e, SourceEvent::SourceRestarted(s) if s == &KEY))
        .await
        .unwrap();
    let second = source_up(&mut view).await;
    assert_ne!(first.actor_id(), second.actor_id());
    let restart = recorder
        .wait_for(|r| r.stage == "restart" && r.reason.as_deref() == Some("restarted"))
        .await
        .unwrap();
    assert_eq!(restart.source, "keepers_roster");
    // The view (and the rest of the tree) is untouched: the new source answers.
    identity(&second, confirmed(50));
    view.wait_slot(|e: &Event| matches!(e, SlotEvent::Dispatched(_)))
        .await
        .unwrap();
    runtime.stop().await;
}

#[tokio::test]
async fn restart_intensity_exceeded_stops_the_source_and_keeps_the_runtime() {
    let recorder = StageRecorder::new();
    let _trace = tracing::subscriber::set_default(recorder.subscriber());
    let mut view = collecting_view();
    let (tx, _parked) = mpsc::unbounded_channel();
    let runtime = start_runtime_with(
        client(),
        view.sink(),
        view.inboxes(),
        drill_config(2),
        gated_entry(tx),
    )
    .await
    .unwrap();
    source_up(&mut view).await;
    for _ in 0..2 {
        runtime.inject_panic(KEY);
        source_up(&mut view).await;
    }
    runtime.inject_panic(KEY);
    view.wait_event(|e| matches!(e, SourceEvent::SourceStopped(s) if s == &KEY))
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
