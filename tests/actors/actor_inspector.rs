//! The turn-inspector source on the embedded server (protocol.md §14.11, §13; sources.md
//! K-14…K-17): the turn records and the serialized input read on command only, each its own
//! typed result; 500, 403, a wrong echo, a turn without a snapshot and an older MASC that does
//! not serve the input route; the traced timeline.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code
use crate::actor_support::{Rig, plan, rig_with, start_rig};
use masc_tui::actors::asks::TurnTarget;
use masc_tui::actors::contract::{IdentityState, SourceEvent};
use masc_tui::actors::inspector::{
    InspectorCommand, InspectorObservation, InspectorSlot, TURN_INSPECTOR,
};
use masc_tui::protocol::client::ClientError;
use masc_tui::protocol::decode::DecodeErrorKind;
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

/// Issue 13 on §14.11: MASC v0.24.0 serves the turn records but not the provider input — a
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
