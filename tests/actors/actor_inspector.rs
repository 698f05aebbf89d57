//! The turn-inspector source on the embedded server (protocol.md §14.11, §13; sources.md
//! K-14…K-17): the turn records and the serialized input read on command only, each its own
//! typed result; 500, 403, a wrong echo, a turn without a snapshot and an older MASC that does
//! not serve the input route; the traced timeline.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code
use crate::actor_support::{Rig, plan, rig_with, start_rig};
use masc_tui::actors::asks::TurnTarget;
use masc_tui::actors::contract::{IdentityState, SourceEvent};
use masc_tui::actors::contract::{SlotEvent, Ticket};
use masc_tui::actors::inspector::{
    InspectorCommand, InspectorObservation, InspectorSlot, TURN_INSPECTOR,
};
use masc_tui::protocol::client::ClientError;
use masc_tui::protocol::decode::DecodeErrorKind;
use masc_tui::protocol::inspector::turn_records::PinnedLookup;
use masc_tui::protocol::routes::RouteFamily;
use masc_tui::server::ServeOptions;
use masc_tui::server::compat::MascRelease;
use masc_tui::server::faults::FaultPlan;
use std::time::Duration;

const RECORDS: &str = "/api/v1/keepers/rondo/turn-records";
const INPUT: &str = "/api/v1/keepers/rondo/provider-input";

fn turn(n: u32) -> TurnTarget {
    TurnTarget {
        keeper: "rondo".into(),
        turn_ref: format!("trace-rondo#{n}"),
    }
}

async fn confirmed(rig: &mut Rig) {
    rig.view
        .wait_event(|e| matches!(e, SourceEvent::Identity(IdentityState::Confirmed { .. })))
        .await
        .expect("confirmed");
}

async fn command(rig: &mut Rig, cmd: InspectorCommand) {
    rig.source_handle(TURN_INSPECTOR)
        .await
        .commands::<InspectorCommand>()
        .expect("the inspector source takes InspectorCommand")
        .send_message(cmd)
        .unwrap();
}

async fn records(rig: &mut Rig) -> InspectorObservation {
    command(
        rig,
        InspectorCommand::Records {
            keeper: "rondo".into(),
            limit: 50,
        },
    )
    .await;
    rig.observed_of::<InspectorSlot, InspectorObservation>(&InspectorSlot::Records("rondo".into()))
        .await
        .payload
}

async fn input(rig: &mut Rig, n: u32) -> InspectorObservation {
    command(rig, InspectorCommand::Input(turn(n))).await;
    rig.observed_of::<InspectorSlot, InspectorObservation>(&InspectorSlot::Input(turn(n)))
        .await
        .payload
}

/// K-15, K-17: the two reads are independent and happen on command only — none on the
/// epoch, none afterwards (no cadence); each result is typed and carries its own turn.
#[tokio::test]
async fn k15_k17_records_and_input_are_read_on_command_only_and_independently() {
    let mut rig = rig_with(FaultPlan::default()).await;
    confirmed(&mut rig).await;
    tokio::time::sleep(Duration::from_millis(150)).await;
    assert_eq!(
        rig.server.request_count("GET", RECORDS),
        0,
        "no read before a command"
    );
    let InspectorObservation::Input(Ok(i)) = input(&mut rig, 48).await else {
        panic!("input")
    };
    assert_eq!(i.value.turn_ref, "trace-rondo#48");
    let InspectorObservation::Records(Ok(page)) = records(&mut rig).await else {
        panic!("records")
    };
    assert_eq!(page.value.latest().unwrap().turn_ref, "trace-rondo#48");
    // K-14: the pinned turn is found by its ref only.
    assert!(page.value.record_of("trace-rondo#41").is_some());
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        rig.server.request_count("GET", RECORDS),
        1,
        "K-17: no cadence"
    );
    assert_eq!(rig.server.request_count("GET", INPUT), 1);
    let stages: Vec<String> = rig
        .recorder
        .records()
        .into_iter()
        .filter(|r| r.source == "turn_records")
        .map(|r| r.stage)
        .collect();
    assert!(
        stages.starts_with(&["dispatch".to_string(), "worker_enter".to_string()]),
        "{stages:?}"
    );
    assert!(stages.contains(&"worker_return".to_string()), "{stages:?}");
    rig.finish().await;
}

/// K-15, §13: a 500 on the records and a 403 on the input are typed failures of their own
/// read; neither touches the other.
#[tokio::test]
async fn k15_a_500_and_a_403_fail_only_their_own_read() {
    let mut rig = rig_with(plan(&format!(
        r#"{{"match":{{"method":"GET","path":"{RECORDS}"}},"when":{{"every":true}},"fault":{{"status":500,"body":{{"error":"store locked"}}}}}},
           {{"match":{{"method":"GET","path":"{INPUT}"}},"when":{{"every":true}},"fault":{{"status":403,"body":{{"error":"forbidden","auth_error_code":"insufficient_role"}}}}}}"#
    )))
    .await;
    confirmed(&mut rig).await;
    match records(&mut rig).await {
        InspectorObservation::Records(Err(ClientError::Status { status: 500, .. })) => {}
        other => panic!("{other:?}"),
    }
    match input(&mut rig, 48).await {
        InspectorObservation::Input(Err(ClientError::Unauthorized { status: 403, .. })) => {}
        other => panic!("{other:?}"),
    }
    let outcomes: Vec<Option<String>> = rig
        .recorder
        .records()
        .into_iter()
        .filter(|r| r.stage == "worker_return")
        .filter(|r| r.source == "turn_records" || r.source == "provider_input")
        .map(|r| r.outcome)
        .collect();
    assert!(
        outcomes.contains(&Some("status_500".into())),
        "{outcomes:?}"
    );
    assert!(
        outcomes.contains(&Some("unauthorized_403".into())),
        "{outcomes:?}"
    );
    rig.finish().await;
}

/// K-14, K-15: a body naming another Keeper or turn fails the read (never shown as this
/// turn's); a turn without a kept snapshot is the served route's object 404.
#[tokio::test]
async fn k14_a_wrong_echo_fails_and_a_missing_snapshot_is_an_object_404() {
    let mut rig = rig_with(plan(
        r#"{"match":{"method":"GET","path":"/api/v1/keepers/rondo/*"},"fault":{"echo":"wrong"}}"#,
    ))
    .await;
    confirmed(&mut rig).await;
    match records(&mut rig).await {
        InspectorObservation::Records(Err(ClientError::Decode(e))) => {
            assert_eq!(e.kind, DecodeErrorKind::EchoMismatch)
        }
        other => panic!("{other:?}"),
    }
    match input(&mut rig, 48).await {
        InspectorObservation::Input(Err(ClientError::Decode(e))) => {
            assert_eq!(e.kind, DecodeErrorKind::EchoMismatch)
        }
        other => panic!("{other:?}"),
    }
    match input(&mut rig, 37).await {
        InspectorObservation::Input(Err(ClientError::Status { status: 404, .. })) => {}
        other => panic!("{other:?}"),
    }
    rig.finish().await;
}

/// §14.11 on an older MASC: MASC v0.24.0 serves the turn records but not the provider input — a
/// typed "not served" (its unknown-route 404), asked of the server once.
#[tokio::test]
async fn k15_older_masc_serves_records_but_not_the_input() {
    let mut rig = start_rig(
        ServeOptions {
            compat: Some(MascRelease::V0_24_0),
            ..ServeOptions::default()
        },
        None,
        None,
    )
    .await;
    confirmed(&mut rig).await;
    assert!(matches!(
        records(&mut rig).await,
        InspectorObservation::Records(Ok(_))
    ));
    match input(&mut rig, 48).await {
        InspectorObservation::Input(Err(ClientError::NotServed { route })) => {
            assert_eq!(route, RouteFamily::ProviderInput)
        }
        other => panic!("{other:?}"),
    }
    rig.finish().await;
}

const SANGSU_RECORDS: &str = "/api/v1/keepers/sangsu/turn-records";

fn sangsu(limit: u32) -> InspectorCommand {
    InspectorCommand::Records {
        keeper: "sangsu".into(),
        limit,
    }
}

/// Asks for sangsu's newest `limit` records; the ticket of the read it dispatched.
async fn dispatch_sangsu(rig: &mut Rig, limit: u32) -> Ticket<InspectorSlot> {
    command(rig, sangsu(limit)).await;
    rig.dispatched_of::<InspectorSlot, InspectorObservation>(&InspectorSlot::Records(
        "sangsu".into(),
    ))
    .await
}

/// Until the server has received `n` requests of `path` (a condition, polled; the deadline is
/// a failsafe, never a pacing device).
async fn arrived(rig: &Rig, path: &str, n: usize) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while rig.server.request_count("GET", path) < n {
        assert!(
            tokio::time::Instant::now() < deadline,
            "{path} never reached {n}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// K-14, §14.11 (MASC has no cursor on turn records, only `limit`): sangsu's Ask origin,
/// turn 17, is not among its 50 newest records; a wider page of 200 is a new dispatch with its
/// own ticket that supersedes the narrower read still in flight (held at the server by the
/// fault plan):
/// the narrower one is cancel-requested and retired (`superseded`, traced) and never
/// observed; the wider page reads all 180 rows and holds turn 17, never another turn's
/// record. The 50 page, read afterwards, says where the turn stands: not on this page.
#[tokio::test]
async fn k14_a_wider_page_supersedes_the_narrower_read_and_reaches_an_older_turn() {
    let mut rig = rig_with(plan(&format!(
        r#"{{"match":{{"method":"GET","path":"{SANGSU_RECORDS}","query":"limit=50"}},"when":{{"nth":1}},"fault":{{"delay_ms":3000}}}}"#
    )))
    .await;
    confirmed(&mut rig).await;
    let slot = InspectorSlot::Records("sangsu".into());
    let narrow = dispatch_sangsu(&mut rig, 50).await;
    arrived(&rig, SANGSU_RECORDS, 1).await;
    let wide = dispatch_sangsu(&mut rig, 200).await;
    assert!(wide.generation > narrow.generation, "its own ticket");
    let seen = rig
        .observed_of::<InspectorSlot, InspectorObservation>(&slot)
        .await;
    assert_eq!(seen.ticket, wide, "only the wider read is observed");
    let InspectorObservation::Records(Ok(page)) = seen.payload else {
        panic!("records")
    };
    assert_eq!(page.value.limit, 200);
    assert_eq!(page.value.records.len(), 180, "sangsu's whole history");
    let found = page.value.lookup("trace-sangsu#17");
    assert!(
        matches!(found, PinnedLookup::Found(r) if r.turn_ref == "trace-sangsu#17"),
        "{found:?}"
    );
    // The narrower read: dispatched, superseded (traced), retired, never observed.
    let of_narrow = |stage: &str| {
        rig.recorder.records_where(|r| {
            r.source == "turn_records"
                && r.stage == stage
                && r.generation == Some(narrow.generation)
        })
    };
    let cancel = of_narrow("cancel_requested");
    assert_eq!(cancel.len(), 1, "{cancel:?}");
    assert_eq!(cancel[0].reason.as_deref(), Some("superseded"));
    assert_eq!(of_narrow("retire")[0].reason.as_deref(), Some("superseded"));
    let events = rig
        .view
        .slot_events::<InspectorSlot, InspectorObservation>();
    assert!(
        events
            .iter()
            .any(|e| matches!(e, SlotEvent::Retired(t) if *t == narrow)),
        "the view is told the narrower read is retired"
    );
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, SlotEvent::Observed(t, _) if *t == narrow)),
        "never forwarded"
    );
    // A narrower request while nothing is in flight reads its own page: turn 17 is not on
    // it, and the page says how wide it was.
    let again = dispatch_sangsu(&mut rig, 50).await;
    let page = match rig
        .view
        .wait_slot::<InspectorSlot, InspectorObservation>(
            |e| matches!(e, SlotEvent::Observed(t, _) if *t == again),
        )
        .await
    {
        Some(SlotEvent::Observed(_, InspectorObservation::Records(Ok(page)))) => page.value.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(page.limit, 50);
    assert_eq!(
        page.lookup("trace-sangsu#17"),
        PinnedLookup::NotOnPage {
            read: 50,
            wider: 200
        }
    );
    assert_eq!(
        page.lookup("trace-sangsu#131"),
        PinnedLookup::Found(page.record_of("trace-sangsu#131").unwrap())
    );
    assert_eq!(
        rig.server.request_count("GET", SANGSU_RECORDS),
        3,
        "each read its own request"
    );
    rig.finish().await;
}

/// K-14: MASC's maximum is 500 (a larger `limit` is clamped, as MASC clamps it); a page of
/// fewer rows than asked holds every row MASC keeps — a turn absent from it is found nowhere,
/// not "not on this page". A request no wider than the read in flight shares it.
#[tokio::test]
async fn k14_the_maximum_page_is_500_and_a_short_page_holds_every_row() {
    let mut rig = rig_with(plan(&format!(
        r#"{{"match":{{"method":"GET","path":"{SANGSU_RECORDS}"}},"when":{{"nth":1}},"fault":{{"delay_ms":3000}}}}"#
    )))
    .await;
    confirmed(&mut rig).await;
    let slot = InspectorSlot::Records("sangsu".into());
    let wide = dispatch_sangsu(&mut rig, 9999).await;
    arrived(&rig, SANGSU_RECORDS, 1).await;
    // No wider than the read in flight (held at the server): shared (no dispatch, no request).
    command(&mut rig, sangsu(200)).await;
    let seen = rig
        .observed_of::<InspectorSlot, InspectorObservation>(&slot)
        .await;
    assert_eq!(seen.ticket, wide);
    let InspectorObservation::Records(Ok(page)) = seen.payload else {
        panic!("records")
    };
    assert_eq!(page.value.limit, 500, "clamped as MASC clamps it");
    assert_eq!(
        page.value.lookup("trace-sangsu#999"),
        PinnedLookup::AllRead { rows: 180 }
    );
    assert_eq!(
        rig.server.request_count("GET", SANGSU_RECORDS),
        1,
        "the narrower request shared the read in flight"
    );
    let dispatches = rig
        .recorder
        .records_where(|r| r.source == "turn_records" && r.stage == "dispatch");
    assert_eq!(dispatches.len(), 1, "{dispatches:?}");
    rig.finish().await;
}
