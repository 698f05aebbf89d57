#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! The Keeper detail source against the embedded server with fault plans (protocol.md
//! §14.7–§14.9; sources.md L-1…L-4, N-1…N-7). Assertions are on typed payloads, tickets and
//! the stage trace; synchronisation is by view messages and stage records only.

use crate::actor_support::{Rig, plan, rig_on_release, rig_with};
use masc_tui::actors::contract::{SlotEvent, Ticket};
use masc_tui::actors::keeper_detail::{
    KEEPER_DETAIL, KeeperDetailCommand, KeeperDetailObservation, KeeperDetailSlot, Viewer,
};
use masc_tui::protocol::client::ClientError;
use masc_tui::protocol::decode::DecodeErrorKind;
use masc_tui::protocol::keeper_detail::{
    ContextObservation, ContextSource, KeeperLogs, LOGS_TURN_RECORDS_LIMIT, MetricsRowKind,
};
use masc_tui::server::compat::MascRelease;
use ractor::DerivedActorRef;

type Obs = crate::actor_support::Obs<KeeperDetailSlot, KeeperDetailObservation>;

async fn detail(rig: &mut Rig) -> DerivedActorRef<KeeperDetailCommand> {
    rig.source_handle(KEEPER_DETAIL)
        .await
        .commands::<KeeperDetailCommand>()
        .expect("the Keeper detail source takes its commands")
}

async fn watch(
    rig: &mut Rig,
    viewer: Viewer,
    keeper: &str,
) -> DerivedActorRef<KeeperDetailCommand> {
    let source = detail(rig).await;
    source
        .send_message(KeeperDetailCommand::Watch {
            viewer,
            keeper: keeper.into(),
        })
        .unwrap();
    source
}

async fn observed(rig: &mut Rig, slot: KeeperDetailSlot) -> Obs {
    rig.observed_of::<_, KeeperDetailObservation>(&slot).await
}

fn meta(k: &str) -> KeeperDetailSlot {
    KeeperDetailSlot::Meta(k.into())
}
fn context(k: &str) -> KeeperDetailSlot {
    KeeperDetailSlot::Context(k.into())
}
fn metrics(k: &str) -> KeeperDetailSlot {
    KeeperDetailSlot::Metrics(k.into())
}

fn dispatches(rig: &mut Rig, slot: &KeeperDetailSlot) -> Vec<Ticket<KeeperDetailSlot>> {
    rig.view
        .slot_events::<KeeperDetailSlot, KeeperDetailObservation>()
        .iter()
        .filter_map(|e| match e {
            SlotEvent::Dispatched(t) if &t.slot == slot => Some(t.clone()),
            _ => None,
        })
        .collect()
}

/// N-1, L-2, N-5: watching a Keeper reads its metadata, then its Live Context for the owner
/// the metadata names (dispatched only after the metadata returned), and its metrics; each
/// is its own slot and ticket.
#[tokio::test]
async fn l2_n1_metadata_first_then_context_for_its_owner_and_metrics_beside() {
    let mut rig = rig_with(plan("")).await;
    watch(&mut rig, Viewer::Detail, "rondo").await;
    let m = observed(&mut rig, meta("rondo")).await;
    let KeeperDetailObservation::Meta(Ok(status)) = &m.payload else {
        panic!("{:?}", m.payload)
    };
    let c = observed(&mut rig, context("rondo")).await;
    let KeeperDetailObservation::Context(read) = &c.payload else {
        panic!("{:?}", c.payload)
    };
    assert_eq!(read.owner.trace_id, status.value.meta.trace_id);
    assert_eq!(read.owner.generation, status.value.meta.generation);
    assert!(!read.owner_changed());
    let live = read.result.as_ref().expect("context admitted");
    assert!(matches!(
        live.value.context,
        ContextObservation::Observed {
            max: Some(200_000),
            ..
        }
    ));
    let t = observed(&mut rig, metrics("rondo")).await;
    let KeeperDetailObservation::Metrics(Ok(logs)) = &t.payload else {
        panic!("{:?}", t.payload)
    };
    let tail = logs.value.metrics().expect("the metrics tail is served");
    // N-7: the seeded malformed line and the other Keeper's line keep their slots.
    assert!(
        tail.rows
            .iter()
            .any(|r| matches!(r.kind, MetricsRowKind::Malformed(_)))
    );
    assert!(
        tail.rows
            .iter()
            .any(|r| matches!(r.kind, MetricsRowKind::OtherKeeper(_)))
    );
    // The trace: the context was dispatched after the metadata's worker returned.
    let recs = rig.recorder.records();
    let meta_return = recs
        .iter()
        .position(|r| r.source == "keeper_meta" && r.stage == "worker_return")
        .expect("meta returned");
    let context_dispatch = recs
        .iter()
        .position(|r| r.source == "keeper_context" && r.stage == "dispatch")
        .expect("context dispatched");
    assert!(
        meta_return < context_dispatch,
        "L-2: owner known before launch"
    );
    rig.finish().await;
}

/// N-1, L-3: a failed Live Context read is a typed failure of its own slot; metadata and
/// metrics are admitted beside it.
#[tokio::test]
async fn l3_a_failed_context_fails_only_its_own_slot() {
    let mut rig = rig_with(plan(
        r#"{"match":{"method":"GET","path":"/api/v1/keepers/rondo/context"},"fault":{"status":500,"body":{"error":"boom"}}}"#,
    ))
    .await;
    watch(&mut rig, Viewer::Detail, "rondo").await;
    let c = observed(&mut rig, context("rondo")).await;
    let KeeperDetailObservation::Context(read) = &c.payload else {
        panic!("{:?}", c.payload)
    };
    assert!(matches!(
        read.result,
        Err(ClientError::Status { status: 500, .. })
    ));
    let m = observed(&mut rig, meta("rondo")).await;
    assert!(matches!(m.payload, KeeperDetailObservation::Meta(Ok(_))));
    let t = observed(&mut rig, metrics("rondo")).await;
    assert!(matches!(t.payload, KeeperDetailObservation::Metrics(Ok(_))));
    let outcome = rig
        .recorder
        .records_where(|r| r.source == "keeper_context" && r.stage == "worker_return")
        .first()
        .and_then(|r| r.outcome.clone());
    assert_eq!(outcome.as_deref(), Some("status_500"));
    rig.finish().await;
}

/// N-7, §14.9: a metrics store that cannot be read is a failed read (500
/// `metrics_read_failed`), never "no records"; a malformed body is a decode failure; a wrong
/// echo is refused.
#[tokio::test]
async fn n7_unreadable_malformed_or_misattributed_metrics_are_failures_not_no_records() {
    let mut rig = rig_with(plan(
        r#"{"match":{"method":"GET","path":"/api/v1/keepers/sangsu/metrics-tail"},"fault":{"malformed":true}},
           {"match":{"method":"GET","path":"/api/v1/keepers/ops-bot/metrics-tail"},"fault":{"echo":"wrong"}}"#,
    ))
    .await;
    let source = watch(&mut rig, Viewer::Detail, "juno").await;
    let juno = observed(&mut rig, metrics("juno")).await;
    assert!(
        matches!(
            &juno.payload,
            KeeperDetailObservation::Metrics(Err(ClientError::Status { status: 500, body }))
                if body.contains("metrics_read_failed")
        ),
        "{:?}",
        juno.payload
    );
    source
        .send_message(KeeperDetailCommand::Watch {
            viewer: Viewer::Detail,
            keeper: "sangsu".into(),
        })
        .unwrap();
    let sangsu = observed(&mut rig, metrics("sangsu")).await;
    assert!(
        matches!(
            &sangsu.payload,
            KeeperDetailObservation::Metrics(Err(ClientError::Decode(e))) if e.kind == DecodeErrorKind::Syntax
        ),
        "{:?}",
        sangsu.payload
    );
    source
        .send_message(KeeperDetailCommand::Watch {
            viewer: Viewer::Detail,
            keeper: "ops-bot".into(),
        })
        .unwrap();
    let ops = observed(&mut rig, metrics("ops-bot")).await;
    assert!(
        matches!(
            &ops.payload,
            KeeperDetailObservation::Metrics(Err(ClientError::Decode(e))) if e.kind == DecodeErrorKind::EchoMismatch
        ),
        "{:?}",
        ops.payload
    );
    rig.finish().await;
}

/// §14.7, L-2: a Keeper that is not registered answers 404 on its metadata; no Live Context
/// read is launched without an owner.
#[tokio::test]
async fn l2_an_unregistered_keeper_launches_no_context_read() {
    let mut rig = rig_with(plan("")).await;
    watch(&mut rig, Viewer::Detail, "ghost").await;
    let m = observed(&mut rig, meta("ghost")).await;
    assert!(matches!(
        m.payload,
        KeeperDetailObservation::Meta(Err(ClientError::Status { status: 404, .. }))
    ));
    let t = observed(&mut rig, metrics("ghost")).await;
    assert!(matches!(
        t.payload,
        KeeperDetailObservation::Metrics(Err(ClientError::Status { status: 404, .. }))
    ));
    assert!(dispatches(&mut rig, &context("ghost")).is_empty());
    assert_eq!(
        rig.server
            .request_count("GET", "/api/v1/keepers/ghost/context"),
        0
    );
    rig.finish().await;
}

/// L-2, L-3: a context answer for another generation than the owner it was launched for is
/// forwarded as owner-changed (the view retires it unshown), and the source demands fresh
/// metadata, then a fresh context.
#[tokio::test]
async fn l2_a_context_of_another_generation_is_not_this_owners_and_rereads() {
    let other = r#"{"schema":"masc.keeper_context_observation.v1","keeper":"rondo","trace_id":"trace-rondo","generation":99,"context":{"source":null,"context_tokens":null,"context_max":null,"context_ratio":null,"metrics_unavailable":{"kind":"not_observed","reason":"context_measurement_missing"}}}"#;
    let rule = format!(
        r#"{{"match":{{"method":"GET","path":"/api/v1/keepers/rondo/context"}},"when":{{"nth":1}},"fault":{{"status":200,"body":{other}}}}}"#
    );
    let mut rig = rig_with(plan(&rule)).await;
    watch(&mut rig, Viewer::Detail, "rondo").await;
    rig.recorder
        .wait_for(|r| {
            r.source == "keeper_context"
                && r.stage == "worker_return"
                && r.outcome.as_deref() == Some("owner_changed")
        })
        .await
        .expect("the first context answer names another generation");
    // A second metadata read and a second context read follow.
    rig.recorder
        .wait_for(|r| {
            r.source == "keeper_context"
                && r.stage == "worker_return"
                && r.outcome.as_deref() == Some("ok")
        })
        .await
        .expect("a fresh context read for the current owner");
    assert!(
        rig.server
            .request_count("GET", "/api/v1/gate/keeper-status")
            >= 2
    );
    let contexts = dispatches(&mut rig, &context("rondo"));
    assert!(contexts.len() >= 2, "{contexts:?}");
    rig.finish().await;
}

/// N-6, L-2: the chat viewer reads metadata and context only (no metrics); the detail viewer
/// of another Keeper has its own reads. Leaving retires the reads in flight.
#[tokio::test]
async fn n6_the_chat_viewer_requests_no_metrics_and_leaving_retires() {
    let mut rig = rig_with(plan(
        r#"{"match":{"method":"GET","path":"/api/v1/keepers/sangsu/metrics-tail"},"when":{"nth":1},"fault":{"delay_ms":20000}}"#,
    ))
    .await;
    let source = watch(&mut rig, Viewer::Chat, "rondo").await;
    observed(&mut rig, context("rondo")).await;
    assert!(dispatches(&mut rig, &metrics("rondo")).is_empty(), "N-6");
    assert_eq!(
        rig.server
            .request_count("GET", "/api/v1/keepers/rondo/metrics-tail"),
        0
    );
    source
        .send_message(KeeperDetailCommand::Watch {
            viewer: Viewer::Detail,
            keeper: "sangsu".into(),
        })
        .unwrap();
    let slow = rig
        .dispatched_of::<_, KeeperDetailObservation>(&metrics("sangsu"))
        .await;
    rig.recorder
        .wait_for(|r| r.stage == "worker_enter" && r.source == "keeper_metrics")
        .await
        .unwrap();
    source
        .send_message(KeeperDetailCommand::Unwatch {
            viewer: Viewer::Detail,
        })
        .unwrap();
    rig.recorder
        .wait_for(|r| {
            r.source == "keeper_metrics"
                && r.stage == "cancel_requested"
                && r.generation == Some(slow.generation)
        })
        .await
        .expect("leaving the detail retires its metrics read (N-6)");
    assert!(
        rig.view
            .slot_events::<KeeperDetailSlot, KeeperDetailObservation>()
            .iter()
            .any(|e| matches!(e, SlotEvent::Retired(t) if t == &slow))
    );
    rig.finish().await;
}

/// L-4, G-3: `Refresh` supersedes the reads in flight (new generations); the superseded read
/// is cancelled and never observed.
#[tokio::test]
async fn l4_refresh_supersedes_the_metadata_read_in_flight() {
    let mut rig = rig_with(plan(
        r#"{"match":{"method":"GET","path":"/api/v1/gate/keeper-status"},"when":{"nth":1},"fault":{"delay_ms":20000}}"#,
    ))
    .await;
    let source = watch(&mut rig, Viewer::Detail, "mira").await;
    let slow = rig
        .dispatched_of::<_, KeeperDetailObservation>(&meta("mira"))
        .await;
    rig.recorder
        .wait_for(|r| r.stage == "worker_enter" && r.source == "keeper_meta")
        .await
        .unwrap();
    source
        .send_message(KeeperDetailCommand::Refresh {
            keeper: "mira".into(),
        })
        .unwrap();
    let fresh = rig
        .dispatched_of::<_, KeeperDetailObservation>(&meta("mira"))
        .await;
    assert!(fresh.generation > slow.generation);
    let m = observed(&mut rig, meta("mira")).await;
    assert_eq!(m.ticket, fresh);
    // mira's context is observed but not measured; her metrics store is empty (real no records).
    let c = observed(&mut rig, context("mira")).await;
    let KeeperDetailObservation::Context(read) = &c.payload else {
        panic!()
    };
    assert!(matches!(
        read.result.as_ref().unwrap().value.context,
        ContextObservation::NotObserved { .. }
    ));
    let t = observed(&mut rig, metrics("mira")).await;
    let KeeperDetailObservation::Metrics(Ok(tail)) = &t.payload else {
        panic!("{:?}", t.payload)
    };
    assert!(tail.value.metrics().is_some_and(|t| t.rows.is_empty()));
    let old: Vec<String> = rig
        .recorder
        .records_where(|r| r.source == "keeper_meta" && r.generation == Some(slow.generation))
        .into_iter()
        .map(|r| r.stage)
        .collect();
    assert!(old.contains(&"cancel_requested".to_string()), "{old:?}");
    assert!(!old.contains(&"observe".to_string()), "{old:?}");
    rig.finish().await;
}

/// The rig on the embedded server playing MASC v0.24.0.
async fn older_masc() -> Rig {
    rig_on_release(MascRelease::V0_24_0).await
}

/// §14.8/§14.9 on an older MASC: MASC v0.24.0 serves neither `/context` nor `/metrics-tail`.
/// Live Context is read from the newest turn record instead (MASC's projection, for the owner
/// the metadata names) and the logs from the newest 200 turn records, each in its own ticket;
/// the metadata is read as usual.
#[tokio::test]
async fn older_masc_reads_context_and_logs_from_the_turn_records() {
    let mut rig = older_masc().await;
    watch(&mut rig, Viewer::Detail, "rondo").await;
    let m = observed(&mut rig, meta("rondo")).await;
    let KeeperDetailObservation::Meta(Ok(status)) = &m.payload else {
        panic!("{:?}", m.payload)
    };
    let c = observed(&mut rig, context("rondo")).await;
    let KeeperDetailObservation::Context(read) = &c.payload else {
        panic!()
    };
    assert!(!read.owner_changed());
    let live = read.result.as_ref().expect("context from the turn records");
    assert_eq!(live.value.source, ContextSource::NewestTurnRecord);
    assert_eq!(live.value.trace_id, status.value.meta.trace_id);
    // The seeded newest record of rondo's trace: what the embedded `/context` serves too.
    match &live.value.context {
        ContextObservation::Observed {
            tokens,
            max,
            turn_ref,
            ..
        } => {
            assert_eq!((*tokens, *max), (100_887, Some(200_000)));
            assert_eq!(turn_ref, &format!("{}#48", status.value.meta.trace_id));
        }
        other => panic!("{other:?}"),
    }
    // §14.9: no metrics tail either; the logs are rondo's turn records, newest last.
    let t = observed(&mut rig, metrics("rondo")).await;
    let KeeperDetailObservation::Metrics(Ok(logs)) = &t.payload else {
        panic!("{:?}", t.payload)
    };
    let KeeperLogs::TurnRecords(page) = &*logs.value else {
        panic!("{:?}", logs.value)
    };
    assert_eq!(page.limit, LOGS_TURN_RECORDS_LIMIT);
    assert!(page.records.iter().all(|r| r.keeper == "rondo"));
    assert_eq!(
        page.latest().map(|r| r.turn_ref.as_str()),
        Some(format!("{}#48", status.value.meta.trace_id).as_str())
    );
    rig.finish().await;
}

const TOOL_MODES: &str = "/api/v1/keepers/tool-approval-mode";

/// C-57, §14.4: every Keeper's tool approval mode is a standing read of the workspace gate
/// source, read on the confirmed epoch (seeded: no override, every Keeper `auto`) and again on
/// an explicit demand (what a `g` tool gate receipt sends) after the mode changed on the
/// server: the status line's `YOLO` comes from the server, never from the receipt.
#[tokio::test]
async fn c57_s14_4_tool_modes_are_read_on_the_epoch_and_again_after_a_change() {
    use masc_tui::actors::contract::{DemandKind, SourceControl};
    use masc_tui::actors::keeper_detail::WORKSPACE_GATE;
    use masc_tui::protocol::keeper_ops::ToolApprovalMode;
    let mut rig = rig_with(plan("")).await;
    let first = observed(&mut rig, KeeperDetailSlot::ToolModes).await;
    let KeeperDetailObservation::ToolModes(Ok(modes)) = &first.payload else {
        panic!("{:?}", first.payload)
    };
    assert!(modes.value.overrides.is_empty(), "{:?}", modes.value);
    assert_eq!(modes.value.mode_of("rondo"), ToolApprovalMode::Auto);
    let status = reqwest::Client::new()
        .post(format!("{}{TOOL_MODES}", rig.server.base_url()))
        .bearer_auth("actor-test-token")
        .header("X-MASC-Expected-Root", rig.server.masc_root())
        .json(&serde_json::json!({"name": "rondo", "mode": "yolo"}))
        .send()
        .await
        .unwrap()
        .status();
    assert_eq!(status, 200);
    let gate = rig.source_handle(WORKSPACE_GATE).await;
    assert!(gate.send_control(SourceControl::Demand(DemandKind::Explicit)));
    let later = first.ticket.generation;
    let again = match rig
        .view
        .wait_slot::<KeeperDetailSlot, KeeperDetailObservation>(|e| {
            matches!(e, SlotEvent::Observed(t, _)
                if t.slot == KeeperDetailSlot::ToolModes && t.generation > later)
        })
        .await
    {
        Some(SlotEvent::Observed(_, payload)) => payload.clone(),
        other => panic!("no second read: {other:?}"),
    };
    let KeeperDetailObservation::ToolModes(Ok(modes)) = &again else {
        panic!("{again:?}")
    };
    assert_eq!(modes.value.mode_of("rondo"), ToolApprovalMode::Yolo);
    assert_eq!(modes.value.mode_of("mira"), ToolApprovalMode::Auto);
    assert_eq!(rig.server.request_count("GET", TOOL_MODES), 2);
    rig.finish().await;
}

/// C-57, §14.4, §13: a mode outside `auto`/`yolo` fails the read (decode; never read as
/// `auto`), a 500 is its own failure; MASC v0.24.0 does not serve the route (typed not served)
/// while it serves the workspace Gate.
#[tokio::test]
async fn c57_s14_4_unknown_mode_and_faults_are_typed_and_an_older_masc_does_not_serve_it() {
    let odd = r#"{"overrides":[{"keeper":"rondo","mode":"ask_everything"}],"default":"auto"}"#;
    let mut rig = rig_with(plan(&format!(
        r#"{{"match":{{"method":"GET","path":"{TOOL_MODES}"}},"fault":{{"status":200,"body":{odd}}}}}"#
    )))
    .await;
    let o = observed(&mut rig, KeeperDetailSlot::ToolModes).await;
    assert!(
        matches!(
            o.payload,
            KeeperDetailObservation::ToolModes(Err(ClientError::Decode(_)))
        ),
        "{:?}",
        o.payload
    );
    rig.finish().await;

    let mut rig = rig_with(plan(&format!(
        r#"{{"match":{{"method":"GET","path":"{TOOL_MODES}"}},"fault":{{"status":500}}}}"#
    )))
    .await;
    let o = observed(&mut rig, KeeperDetailSlot::ToolModes).await;
    assert!(
        matches!(
            o.payload,
            KeeperDetailObservation::ToolModes(Err(ClientError::Status { status: 500, .. }))
        ),
        "{:?}",
        o.payload
    );
    rig.finish().await;

    let mut rig = older_masc().await;
    let o = observed(&mut rig, KeeperDetailSlot::ToolModes).await;
    assert!(
        matches!(
            o.payload,
            KeeperDetailObservation::ToolModes(Err(ClientError::NotServed { .. }))
        ),
        "{:?}",
        o.payload
    );
    let g = observed(&mut rig, KeeperDetailSlot::WorkspaceGate).await;
    assert!(
        matches!(g.payload, KeeperDetailObservation::Gate(Ok(_))),
        "{:?}",
        g.payload
    );
    rig.finish().await;
}
