//! The preparation detail source on the embedded server (protocol.md §14.12;
//! sources.md M-1, M-4, M-5, M-8, M-9): read only on a command naming an exact turn link; each
//! answer carries the target fixed at dispatch; a new target supersedes the read in flight;
//! failures are typed (never an empty report); every row kind of the report is kept apart.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code
use crate::actor_support::{Rig, plan, registry_entry, rig_with, rig_with_sources};
use crate::save_approval::confirmed_scope;
use masc_tui::actors::contract::SlotEvent;
use masc_tui::actors::preparation_report::{
    PREPARATION_REPORT, PreparationReportCommand, PreparationReportObservation,
    PreparationReportSlot, PreparationReportSpawner, PreparationReportTarget,
};
use masc_tui::protocol::client::ErrorClass;
use masc_tui::protocol::runtime_trace::{ManifestEntry, TraceHealth, TurnLink};
use masc_tui::server::faults::FaultPlan;
use std::time::Duration;

type Event = SlotEvent<PreparationReportSlot, PreparationReportObservation>;

fn target(keeper: &str, turn_ref: &str) -> PreparationReportTarget {
    PreparationReportTarget {
        keeper: keeper.into(),
        link: TurnLink::parse(turn_ref).unwrap(),
    }
}

async fn read(rig: &mut Rig, t: PreparationReportTarget) {
    rig.source_handle(PREPARATION_REPORT)
        .await
        .commands::<PreparationReportCommand>()
        .expect("the preparation source takes PreparationReportCommand")
        .send_message(PreparationReportCommand::Read(t))
        .unwrap();
}

/// The next answer for `t`.
async fn answer(rig: &mut Rig, t: &PreparationReportTarget) -> PreparationReportObservation {
    let t = t.clone();
    match rig
        .view
        .wait_slot::<PreparationReportSlot, PreparationReportObservation>(
            move |e: &Event| matches!(e, SlotEvent::Observed(_, o) if o.target == t),
        )
        .await
    {
        Some(SlotEvent::Observed(_, o)) => o.clone(),
        other => panic!("no answer: {other:?}"),
    }
}

fn stages(rig: &Rig) -> Vec<String> {
    rig.recorder
        .records_where(|r| r.source == "preparation_report")
        .iter()
        .map(|r| r.stage.clone())
        .collect()
}

/// M-9, M-1: nothing is read before a command names a turn; the read is the exact link's,
/// traced under its own slot; M-4: rondo's report keeps its unsupported event and the previous
/// turn's row apart from this turn's rows.
#[tokio::test(flavor = "current_thread")]
async fn m1_m4_m9_a_report_is_read_only_on_demand_and_keeps_every_row_kind() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let _ = confirmed_scope(&mut rig).await;
    let _ = rig.source_handle(PREPARATION_REPORT).await;
    assert_eq!(
        rig.server
            .request_count("GET", "/api/v1/keepers/rondo/runtime-trace"),
        0,
        "M-9: nothing is read before the details ask"
    );
    let t = target("rondo", "trace-rondo#7");
    read(&mut rig, t.clone()).await;
    let obs = answer(&mut rig, &t).await;
    let report = obs.result.expect("read").value;
    assert_eq!(report.link, t.link);
    assert_eq!(report.health, TraceHealth::Ok);
    assert_eq!(report.rows().count(), 7);
    assert_eq!(
        report.count(|e| matches!(e, ManifestEntry::Unsupported { .. })),
        1
    );
    assert_eq!(report.count(|e| matches!(e, ManifestEntry::OtherTurn)), 1);
    assert_eq!(report.receipts.len(), 1);
    assert_eq!(
        rig.server
            .request_count("GET", "/api/v1/keepers/rondo/runtime-trace"),
        1
    );
    let s = stages(&rig);
    assert!(
        s.contains(&"dispatch".to_string()) && s.contains(&"observe".to_string()),
        "{s:?}"
    );
    rig.finish().await;
}

/// M-4: a turn without `turn_finished` is incomplete and one without a receipt partial —
/// never success; another trace of the Keeper is an empty report, not a failure.
#[tokio::test(flavor = "current_thread")]
async fn m4_incomplete_partial_and_empty_reports_are_their_own_health() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let _ = confirmed_scope(&mut rig).await;
    for (t, health) in [
        (target("scout", "trace-scout#2"), TraceHealth::Incomplete),
        (target("mira", "trace-mira#3"), TraceHealth::Partial),
        (target("mira", "trace-elsewhere#3"), TraceHealth::Empty),
    ] {
        read(&mut rig, t.clone()).await;
        let report = answer(&mut rig, &t).await.result.expect("read").value;
        assert_eq!(report.health, health, "{t:?}");
        assert!(!report.health.is_ok());
    }
    rig.finish().await;
}

/// M-8, §13: a 500, a wrong echo and a 403 are typed failures of the read (the view words
/// them `조회 불가` / `권한 거절`), never an empty report.
#[tokio::test(flavor = "current_thread")]
async fn m8_failures_are_typed_never_an_empty_report() {
    for (fault, class) in [
        (
            r#"{"status":500,"body":"{\"error\":\"boom\"}"}"#,
            ErrorClass::Status(500),
        ),
        (
            r#"{"status":403,"body":"{\"error\":\"forbidden\"}"}"#,
            ErrorClass::Unauthorized(403),
        ),
    ] {
        let mut rig = rig_with(plan(&format!(
            r#"{{"match":{{"method":"GET","path":"/api/v1/keepers/rondo/runtime-trace"}},"fault":{fault}}}"#
        )))
        .await;
        let _ = confirmed_scope(&mut rig).await;
        let t = target("rondo", "trace-rondo#7");
        read(&mut rig, t.clone()).await;
        let err = answer(&mut rig, &t).await.result.expect_err(fault);
        assert_eq!(err.class(), class, "{fault}");
        rig.finish().await;
    }
    let mut rig = rig_with(plan(
        r#"{"match":{"method":"GET","path":"/api/v1/keepers/rondo/runtime-trace"},"fault":{"echo":"wrong"}}"#,
    ))
    .await;
    let _ = confirmed_scope(&mut rig).await;
    let t = target("rondo", "trace-rondo#7");
    read(&mut rig, t.clone()).await;
    let err = answer(&mut rig, &t).await.result.expect_err("wrong echo");
    assert!(
        matches!(err.class(), ErrorClass::Decode(_)),
        "{:?}",
        err.class()
    );
    rig.finish().await;
}

/// M-5: a new target supersedes the read in flight (held by a delay): the old read is retired,
/// never answered; the new target's answer lands.
#[tokio::test(flavor = "current_thread")]
async fn m5_a_new_target_supersedes_the_read_in_flight() {
    let mut rig = rig_with(plan(
        r#"{"match":{"method":"GET","path":"/api/v1/keepers/rondo/runtime-trace","query":"turn_id=7"},"fault":{"delay_ms":2000}}"#,
    ))
    .await;
    let _ = confirmed_scope(&mut rig).await;
    let old = target("rondo", "trace-rondo#7");
    let new = target("rondo", "trace-rondo#8");
    read(&mut rig, old.clone()).await;
    read(&mut rig, new.clone()).await;
    let obs = answer(&mut rig, &new).await;
    assert!(obs.result.is_ok());
    let answered_old = rig
        .view
        .slot_events::<PreparationReportSlot, PreparationReportObservation>()
        .iter()
        .any(|e| matches!(e, SlotEvent::Observed(_, o) if o.target == old));
    assert!(!answered_old, "the superseded read is never answered");
    assert!(
        rig.recorder
            .records_where(|r| r.source == "preparation_report" && r.stage == "retire")
            .iter()
            .any(|r| r.reason.as_deref() == Some("superseded")),
        "traced retire superseded"
    );
    rig.finish().await;
}

/// The preparation source alone, its M-2 re-check on a 150 ms turns cadence.
async fn recheck_rig(faults: &str) -> Rig {
    let mut rig = rig_with_sources(
        plan(faults),
        vec![registry_entry(PreparationReportSpawner::new(
            Duration::from_millis(150),
        ))],
    )
    .await;
    let _ = confirmed_scope(&mut rig).await;
    rig
}

const TRACE: &str = "/api/v1/keepers/rondo/runtime-trace";

/// How many reads were dispatched, once each has answered or been retired.
async fn reads_settled(rig: &mut Rig) -> usize {
    loop {
        let events = rig
            .view
            .slot_events::<PreparationReportSlot, PreparationReportObservation>();
        let dispatched = events
            .iter()
            .filter(|e| matches!(e, SlotEvent::Dispatched(_)))
            .count();
        let ended = events
            .iter()
            .filter(|e| matches!(e, SlotEvent::Observed(..) | SlotEvent::Retired(_)))
            .count();
        if dispatched == ended {
            return dispatched;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// M-2: a failure before the report is saved (the first read fails) is re-read — the aimed
/// target only, with no new command — on the turns cadence, until the report is admitted;
/// then the re-check stops.
#[tokio::test(flavor = "current_thread")]
async fn m2_a_failure_before_the_save_is_rechecked_on_the_turns_cadence_until_saved() {
    let mut rig = recheck_rig(&format!(
        r#"{{"match":{{"method":"GET","path":"{TRACE}"}},"when":{{"first":1}},"fault":{{"status":500,"body":"{{\"error\":\"not yet\"}}"}}}}"#
    ))
    .await;
    let t = target("rondo", "trace-rondo#7");
    read(&mut rig, t.clone()).await;
    let first = answer(&mut rig, &t).await;
    assert_eq!(
        first.result.expect_err("the first read fails").class(),
        ErrorClass::Status(500)
    );
    // No command: the re-check reads the same target again and the report is admitted.
    let second = answer(&mut rig, &t).await;
    assert_eq!(second.result.expect("saved now").value.link, t.link);
    assert_eq!(rig.server.request_count("GET", TRACE), 2);
    // Saved: the re-check stopped (three periods later, still two reads).
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(
        rig.server.request_count("GET", TRACE),
        2,
        "no re-check after the save"
    );
    rig.finish().await;
}

/// M-2: the re-check ends when the aim changes (`Stop`: the details folded) and is never made
/// for a failure waiting cannot mend (a permission refusal).
#[tokio::test(flavor = "current_thread")]
async fn m2_the_recheck_ends_with_the_aim_and_never_follows_a_refusal() {
    let mut rig = recheck_rig(&format!(
        r#"{{"match":{{"method":"GET","path":"{TRACE}","query":"turn_id=7"}},"fault":{{"status":503,"body":"{{\"error\":\"busy\"}}"}}}},{{"match":{{"method":"GET","path":"{TRACE}","query":"turn_id=8"}},"fault":{{"status":403,"body":"{{\"error\":\"forbidden\"}}"}}}}"#
    ))
    .await;
    let t = target("rondo", "trace-rondo#7");
    read(&mut rig, t.clone()).await;
    assert!(answer(&mut rig, &t).await.result.is_err());
    assert!(answer(&mut rig, &t).await.result.is_err(), "re-checked");
    rig.source_handle(PREPARATION_REPORT)
        .await
        .commands::<PreparationReportCommand>()
        .unwrap()
        .send_message(PreparationReportCommand::Stop)
        .unwrap();
    // A read dispatched before `Stop` (a tick can beat it under load) answers first.
    let stopped_at = reads_settled(&mut rig).await;
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(
        reads_settled(&mut rig).await,
        stopped_at,
        "no re-check after Stop"
    );
    // A permission refusal is not re-read.
    let refused = target("rondo", "trace-rondo#8");
    read(&mut rig, refused.clone()).await;
    let err = answer(&mut rig, &refused).await.result.expect_err("403");
    assert_eq!(err.class(), ErrorClass::Unauthorized(403));
    let after = reads_settled(&mut rig).await;
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(reads_settled(&mut rig).await, after, "403 not re-read");
    rig.finish().await;
}
