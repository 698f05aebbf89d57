#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! The shared Runtime catalogue read (sources.md F-1, F-2, F-6, F-7, P-1) against the embedded
//! server with fault plans: the production source (`RuntimeSource` with `runtime_slot`'s
//! coalescing policy), its joined load (catalogue + reachability probe), typed payloads and the
//! stage trace. Synchronisation is by view messages and stage records only.

use crate::actor_support::{Obs, obs_of, plan, rig_with};
use masc_tui::actors::contract::{
    DemandKind, GenerationBook, IdentityState, SlotEvent, SourceContext, SourceControl,
    SourceHandle,
};
use masc_tui::actors::read::testing::{CollectingView, collecting_view};
use masc_tui::actors::runtime::catalogue::{RuntimeSource, RuntimeSourceArgs};
use masc_tui::actors::runtime::{LoadOutcome, LoadPart, PartOutcome, RUNTIME};
use masc_tui::actors::runtime::{RuntimeObservation, RuntimeSlot};
use masc_tui::protocol::admission::{AdmissionMode, ReadScope, WorkspaceId};
use masc_tui::protocol::client::{ClientConfig, ClientError, TokenSource, WorkspaceClient};
use masc_tui::server::faults::FaultPlan;
use masc_tui::server::{AuthMode, RunningServer, ServeOptions, start};
use masc_tui::timeline::capture::StageRecorder;
use ractor::Actor;
use std::time::Duration;

type Event = SlotEvent<RuntimeSlot, RuntimeObservation>;

const RESOLVED: &str = "/api/v1/runtime/resolved";
const PROBE: &str = "/api/v1/dashboard/runtime-probe";

fn is_runtime_dispatch(e: &Event, generation: u64) -> bool {
    matches!(e, SlotEvent::Dispatched(t) if t.slot == RuntimeSlot::Catalogue && t.generation == generation)
}

fn is_runtime_obs(e: &Event, generation: u64) -> bool {
    matches!(e, SlotEvent::Observed(t, _) if t.slot == RuntimeSlot::Catalogue && t.generation == generation)
}

fn load_of(o: &Obs<RuntimeSlot, RuntimeObservation>) -> &masc_tui::actors::runtime::RuntimeLoad {
    match &o.payload {
        RuntimeObservation::Catalogue(load) => load,
        other => panic!("not a runtime load: {other:?}"),
    }
}

fn runtime_dispatches(view: &mut CollectingView) -> Vec<u64> {
    view.slot_events::<RuntimeSlot, RuntimeObservation>()
        .iter()
        .filter_map(|e| match e {
            SlotEvent::Dispatched(t) if t.slot == RuntimeSlot::Catalogue => Some(t.generation),
            _ => None,
        })
        .collect()
}

/// F-1, F-2, F-7: the one shared read; a refresh from the Runtime screen and a post-save
/// demand arriving during a read (and a cadence tick) coalesce into exactly one follow-up
/// read after it, which asks for a fresh probe (`force=1`). Nothing is cancelled; the earlier
/// response comes first and is not the forced one.
#[tokio::test]
async fn f1_f2_f7_demands_during_a_read_coalesce_into_one_forced_follow_up() {
    let mut rig = rig_with(plan(&format!(
        r#"{{"match":{{"method":"GET","path":"{RESOLVED}"}},"when":{{"nth":1}},"fault":{{"delay_ms":1500}}}}"#
    )))
    .await;
    let first = rig
        .dispatched_of::<_, RuntimeObservation>(&RuntimeSlot::Catalogue)
        .await;
    let source = rig.source_handle(RUNTIME).await;
    // `r` on System › Runtime, then a committed save's demand, then a periodic tick.
    assert!(source.send_control(SourceControl::Demand(DemandKind::Explicit)));
    assert!(source.send_control(SourceControl::Demand(DemandKind::Explicit)));
    assert!(source.send_control(SourceControl::Demand(DemandKind::Cadence)));
    let g = first.generation;
    let earlier = rig
        .view
        .wait_slot(|e: &Event| is_runtime_obs(e, g))
        .await
        .and_then(obs_of)
        .unwrap();
    assert!(
        !load_of(&earlier).forced,
        "the read in flight was not forced"
    );
    let follow = rig
        .view
        .wait_slot(|e: &Event| is_runtime_obs(e, g + 1))
        .await
        .and_then(obs_of)
        .unwrap();
    assert!(load_of(&follow).forced, "the follow-up asks for force=1");
    assert_eq!(load_of(&follow).outcome(), LoadOutcome::Received);
    // Exactly one follow-up: two loads, two GETs of each route, no cancellation.
    assert_eq!(runtime_dispatches(&mut rig.view), vec![g, g + 1]);
    assert_eq!(rig.server.request_count("GET", RESOLVED), 2);
    assert_eq!(rig.server.request_count("GET", PROBE), 2);
    let cancelled = rig.recorder.records_where(|r| {
        r.source == "runtime_catalogue" && (r.stage == "cancel_requested" || r.stage == "retire")
    });
    assert!(cancelled.is_empty(), "{cancelled:?}");
    rig.finish().await;
}

/// F-7, P-1: a probe failure alone is a `partial` load — the catalogue and usage received,
/// the probe failed — counted apart from received and failed in the trace.
#[tokio::test]
async fn f7_p1_a_probe_failure_alone_is_partial_and_keeps_the_catalogue() {
    let mut rig = rig_with(plan(&format!(
        r#"{{"match":{{"method":"GET","path":"{PROBE}"}},"when":{{"every":true}},"fault":{{"status":503,"body":{{"error":"probe cache locked"}}}}}}"#
    )))
    .await;
    let obs = rig
        .observed_of::<_, RuntimeObservation>(&RuntimeSlot::Catalogue)
        .await;
    let load = load_of(&obs);
    assert!(load.resolved.is_ok());
    assert!(matches!(
        load.probe,
        Err(ClientError::Status { status: 503, .. })
    ));
    assert_eq!(load.outcome(), LoadOutcome::Partial);
    assert_eq!(
        load.parts(),
        [
            (LoadPart::Catalogue, PartOutcome::Received),
            (LoadPart::Usage, PartOutcome::Received),
            (LoadPart::Probe, PartOutcome::Failed("status_503".into())),
        ]
    );
    let returned = rig
        .recorder
        .wait_for(|r| r.source == "runtime_catalogue" && r.stage == "worker_return")
        .await
        .unwrap();
    assert_eq!(returned.outcome.as_deref(), Some("partial"));
    rig.finish().await;
}

/// P-1: a catalogue failure with a received probe is `partial` too; no catalogue part is
/// invented from the probe.
#[tokio::test]
async fn p1_a_catalogue_failure_beside_a_received_probe_is_partial() {
    let mut rig = rig_with(plan(&format!(
        r#"{{"match":{{"method":"GET","path":"{RESOLVED}"}},"when":{{"every":true}},"fault":{{"status":500,"body":{{"error":"resolver crashed"}}}}}}"#
    )))
    .await;
    let obs = rig
        .observed_of::<_, RuntimeObservation>(&RuntimeSlot::Catalogue)
        .await;
    let load = load_of(&obs);
    assert!(load.probe.is_ok());
    assert_eq!(load.outcome(), LoadOutcome::Partial);
    assert_eq!(
        load.parts()[0],
        (
            LoadPart::Catalogue,
            PartOutcome::Failed("status_500".into())
        )
    );
    rig.finish().await;
}

/// An older MASC without the probe route: the probe is "not served", neither received nor
/// failed, and the load counts as received (not a permanent `partial`).
#[tokio::test]
async fn f7_a_probe_route_this_masc_does_not_serve_is_not_a_failure() {
    let mut rig = rig_with(FaultPlan::from_json(&format!(
        r#"{{"rules":[{{"match":{{"method":"GET","path":"{PROBE}"}},"when":{{"every":true}},"fault":{{"status":404}}}}]}}"#
    )).unwrap())
    .await;
    let obs = rig
        .observed_of::<_, RuntimeObservation>(&RuntimeSlot::Catalogue)
        .await;
    let load = load_of(&obs);
    assert!(
        matches!(load.probe, Err(ClientError::NotServed { .. })),
        "{:?}",
        load.probe
    );
    assert_eq!(load.parts()[2], (LoadPart::Probe, PartOutcome::NotServed));
    assert_eq!(load.outcome(), LoadOutcome::Received);
    rig.finish().await;
}

// ---- the production source driven with hand-sent identities (F-6) ----

const TOKEN: &str = "runtime-catalogue-token";

async fn server(faults: FaultPlan) -> RunningServer {
    start(ServeOptions {
        test_mode: true,
        auth: AuthMode::Token(TOKEN.into()),
        faults,
        ..ServeOptions::default()
    })
    .await
    .unwrap()
}

fn confirmed(server: &RunningServer, epoch: u64) -> IdentityState {
    IdentityState::Confirmed {
        scope: ReadScope {
            workspace: WorkspaceId(server.masc_root()),
            epoch,
        },
        base_path: server.base_path(),
        mode: AdmissionMode::Receipt,
    }
}

async fn runtime_source(
    server: &RunningServer,
    view: &CollectingView,
) -> (
    ractor::ActorRef<
        masc_tui::actors::read::SourceMsg<
            RuntimeSlot,
            RuntimeObservation,
            masc_tui::actors::read::NoCommands,
        >,
    >,
    SourceHandle,
) {
    let mut cc = ClientConfig::new(server.base_url());
    cc.token = TokenSource::Fixed(TOKEN.into());
    let args = RuntimeSourceArgs {
        key: RUNTIME,
        args: Duration::from_secs(3600),
        ctx: SourceContext {
            client: WorkspaceClient::new(cc).unwrap(),
            events: view.sink(),
            inboxes: view.inboxes(),
            generations: GenerationBook::new(),
            fault_drills: false,
            shown_at_start: true,
        },
    };
    let (actor, _) = Actor::spawn(None, RuntimeSource::default(), args)
        .await
        .unwrap();
    let handle = SourceHandle::new(&actor);
    (actor, handle)
}

/// F-6: withdrawal retires the read in flight and keeps the nested demand (the coalesced
/// refresh); reconfirmation of the same workspace starts exactly one new read, which serves
/// that demand (`force=1`) — not the withdrawn read plus a follow-up.
#[tokio::test]
async fn f6_withdrawal_keeps_nested_demand_and_reconfirmation_reads_once() {
    let recorder = StageRecorder::new();
    let _trace = tracing::subscriber::set_default(recorder.subscriber());
    let server = server(plan(&format!(
        r#"{{"match":{{"method":"GET","path":"{RESOLVED}"}},"when":{{"nth":1}},"fault":{{"delay_ms":5000}}}}"#
    )))
    .await;
    let mut view = collecting_view();
    let (actor, source) = runtime_source(&server, &view).await;
    assert!(source.send_control(SourceControl::Identity(confirmed(&server, 1))));
    view.wait_slot(|e: &Event| is_runtime_dispatch(e, 1))
        .await
        .unwrap();
    assert!(source.send_control(SourceControl::Demand(DemandKind::Explicit)));
    assert!(source.send_control(SourceControl::Identity(IdentityState::Booting)));
    view.wait_slot(|e: &Event| matches!(e, SlotEvent::Retired(t) if t.generation == 1))
        .await
        .unwrap();
    assert!(source.send_control(SourceControl::Identity(confirmed(&server, 2))));
    let second = view
        .wait_slot(|e: &Event| is_runtime_obs(e, 2))
        .await
        .and_then(obs_of)
        .unwrap();
    assert_eq!(second.ticket.scope.epoch, 2);
    assert!(
        load_of(&second).forced,
        "the kept demand is served by the new read"
    );
    assert_eq!(runtime_dispatches(&mut view), vec![1, 2]);
    // The withdrawn read was never forwarded.
    assert!(
        view.slot_events::<RuntimeSlot, RuntimeObservation>()
            .iter()
            .all(|e| !is_runtime_obs(e, 1))
    );
    let retired = recorder.records_where(|r| {
        r.source == "runtime_catalogue"
            && r.stage == "retire"
            && r.reason.as_deref() == Some("withdrawn")
    });
    assert_eq!(retired.len(), 1, "{retired:?}");
    actor.stop(None);
    server.shutdown().await;
}

/// F-2 (the production policy, not a test double): a refresh with no read in flight starts
/// one forced read at once; a cadence demand during it is shared (no second GET).
#[tokio::test]
async fn f2_an_idle_refresh_reads_at_once_forced_and_a_tick_during_it_is_shared() {
    let recorder = StageRecorder::new();
    let _trace = tracing::subscriber::set_default(recorder.subscriber());
    let server = server(plan(&format!(
        r#"{{"match":{{"method":"GET","path":"{RESOLVED}"}},"when":{{"nth":2}},"fault":{{"delay_ms":800}}}}"#
    )))
    .await;
    let mut view = collecting_view();
    let (actor, source) = runtime_source(&server, &view).await;
    assert!(source.send_control(SourceControl::Identity(confirmed(&server, 1))));
    let first = view
        .wait_slot(|e: &Event| is_runtime_obs(e, 1))
        .await
        .and_then(obs_of)
        .unwrap();
    assert!(!load_of(&first).forced);
    assert!(source.send_control(SourceControl::Demand(DemandKind::Explicit)));
    view.wait_slot(|e: &Event| is_runtime_dispatch(e, 2))
        .await
        .unwrap();
    assert!(source.send_control(SourceControl::Demand(DemandKind::Cadence)));
    let second = view
        .wait_slot(|e: &Event| is_runtime_obs(e, 2))
        .await
        .and_then(obs_of)
        .unwrap();
    assert!(load_of(&second).forced);
    assert_eq!(runtime_dispatches(&mut view), vec![1, 2]);
    assert_eq!(server.request_count("GET", RESOLVED), 2);
    actor.stop(None);
    server.shutdown().await;
}
