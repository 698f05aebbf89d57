#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! One async request's single GET (protocol.md §6.4; sources.md T-5, T-8…T-12, T-15, A-17)
//! against the embedded server's seeded requests and fault plans. Assertions are on the typed
//! payload, the view model's typed state and the traced stages (rule ids in the names).

use crate::tools_rig::{held, request_key, rig};
use crate::work_rig::plan;
use masc_tui::actors::contract::DemandKind;
use masc_tui::actors::tools::{ToolsCommand, ToolsObservation, ToolsSlot};
use masc_tui::protocol::async_requests::{LogicalObservation, PhysicalState, TerminalDecisionKind};
use masc_tui::protocol::client::{ClientError, ErrorClass};
use masc_tui::protocol::decode::DecodeErrorKind;
use masc_tui::server::faults::FaultPlan;
use masc_tui::view::admission::RejectReason;
use masc_tui::view::fetched::{FailureClass, Fetched};

const SINGLE: &str = "/api/v1/async-requests/kmsg-7f3a";

fn detail_of(payload: &ToolsObservation) -> &masc_tui::actors::tools::AsyncDetailRead {
    match payload {
        ToolsObservation::AsyncRequest(d) => d,
        other => panic!("not a request read: {other:?}"),
    }
}

/// T-9, T-6: a request opened from the list row is read by its own GET; the requester,
/// request id and target echo what the row held; the run, its source Task and the logical
/// owner arrive typed; the model shows it with the held context.
#[tokio::test]
async fn t9_the_single_get_checks_the_held_echoes_and_is_admitted() {
    let mut rig = rig(FaultPlan::none()).await;
    let ticket = rig.open("kmsg-7f3a", held("operator", "rondo")).await;
    let payload = rig.observed_ticket(&ticket).await;
    let read = detail_of(&payload);
    let d = read.result.as_ref().expect("admitted").value.clone();
    assert_eq!(
        (
            d.request_id.as_str(),
            d.submitted_by.as_str(),
            d.target_keeper.as_str()
        ),
        ("kmsg-7f3a", "operator", "rondo")
    );
    assert_eq!(d.physical.state, PhysicalState::Running);
    assert_eq!(d.source_task_id(), Some("task-1013"));
    assert!(
        matches!(&d.logical, LogicalObservation::Observed { owner, terminal_decision: None } if owner == "rondo")
    );
    let open = rig.model.tools.request.as_ref().unwrap();
    assert!(matches!(open.detail.fetched, Fetched::Ready(_)));
    assert_eq!(open.source_task().map(|(t, _)| t), Some("task-1013"));
    assert_eq!(
        rig.stage_names(&ticket),
        [
            "dispatch",
            "worker_enter",
            "worker_return",
            "observe",
            "unregistered",
            "admit"
        ]
    );
    assert_eq!(rig.server.request_count("GET", SINGLE), 1);
    rig.finish().await;
}

/// T-9: a requester held from the list row that the server does not echo fails the read
/// (`decode_echo_mismatch`), never shows the other request.
#[tokio::test]
async fn t9_a_requester_unlike_the_held_row_is_an_echo_failure() {
    let mut rig = rig(FaultPlan::none()).await;
    let ticket = rig.open("kmsg-7f3a", held("someone-else", "rondo")).await;
    let payload = rig.observed_ticket(&ticket).await;
    match &detail_of(&payload).result {
        Err(ClientError::Decode(e)) => {
            assert_eq!(
                (e.kind, e.path.as_str()),
                (DecodeErrorKind::EchoMismatch, ".submitted_by")
            )
        }
        other => panic!("expected an echo failure: {other:?}"),
    }
    let open = rig.model.tools.request.as_ref().unwrap();
    assert!(matches!(
        &open.detail.fetched,
        Fetched::Failed { last: None, error, .. }
            if error.class == FailureClass::Read(ErrorClass::Decode(DecodeErrorKind::EchoMismatch))
    ));
    rig.finish().await;
}

/// T-9: the server's wrong echo of the request id (fault plan `echo: wrong`) fails the read.
#[tokio::test]
async fn t9_a_wrong_request_id_echo_fails_the_read() {
    let mut rig = rig(plan(&format!(
        r#"{{"match":{{"method":"GET","path":"{SINGLE}"}},"when":{{"every":true}},"fault":{{"echo":"wrong"}}}}"#
    )))
    .await;
    let ticket = rig.open("kmsg-7f3a", held("operator", "rondo")).await;
    let payload = rig.observed_ticket(&ticket).await;
    assert!(matches!(
        &detail_of(&payload).result,
        Err(ClientError::Decode(e)) if e.kind == DecodeErrorKind::EchoMismatch && e.path == ".request_id"
    ));
    rig.finish().await;
}

/// T-8: an explicit id lookup holds no requester or target: only the id echo is checked and
/// the detail shows the server's requester and target, nothing filled from a Keeper.
#[tokio::test]
async fn t8_an_explicit_lookup_fills_nothing_and_checks_the_id() {
    let mut rig = rig(FaultPlan::none()).await;
    let ticket = rig.open("kmsg-5e07", None).await;
    let payload = rig.observed_ticket(&ticket).await;
    let read = detail_of(&payload);
    assert_eq!(read.held, None);
    let d = read.result.as_ref().expect("admitted").value.clone();
    assert_eq!(
        (d.submitted_by.as_str(), d.target_keeper.as_str()),
        ("release-bot", "하늘")
    );
    assert!(rig.model.tools.request.as_ref().unwrap().held.is_none());
    rig.finish().await;
}

/// T-10: physical waiting, physical failure with a logical terminal decision, and physical
/// failure with the logical state unobservable are three different typed states.
#[tokio::test]
async fn t10_waiting_failed_decided_and_unobservable_are_distinct() {
    let mut rig = rig(FaultPlan::none()).await;
    let mut seen = Vec::new();
    for id in ["kmsg-81c2", "kmsg-3b11", "kmsg-29aa"] {
        let ticket = rig.open(id, None).await;
        let payload = rig.observed_ticket(&ticket).await;
        let d = detail_of(&payload)
            .result
            .as_ref()
            .expect("admitted")
            .value
            .clone();
        seen.push((
            d.physical.state,
            d.run.is_some(),
            match &d.logical {
                LogicalObservation::Observed {
                    terminal_decision, ..
                } => terminal_decision.as_ref().map(|t| t.decision),
                LogicalObservation::Unavailable { .. } => None,
            },
            matches!(d.logical, LogicalObservation::Unavailable { .. }),
        ));
    }
    assert_eq!(
        seen,
        [
            (PhysicalState::Pending, false, None, false),
            (
                PhysicalState::Failed,
                true,
                Some(TerminalDecisionKind::Failed),
                false
            ),
            (PhysicalState::Failed, true, None, true),
        ]
    );
    rig.finish().await;
}

/// T-5, T-12: a server without the single-request route (MASC's router 404) fails the detail
/// as `not_served`; the list slot is untouched and still admitted.
#[tokio::test]
async fn t5_a_missing_route_fails_the_detail_only() {
    let mut rig = rig(plan(&format!(
        r#"{{"match":{{"method":"GET","path":"{SINGLE}"}},"when":{{"every":true}},"fault":{{"status":404,"body":"Not Found"}}}}"#
    )))
    .await;
    let list = rig.dispatched(&ToolsSlot::AsyncRequests).await;
    rig.observed_ticket(&list).await;
    let ticket = rig.open("kmsg-7f3a", held("operator", "rondo")).await;
    let payload = rig.observed_ticket(&ticket).await;
    let err = detail_of(&payload).result.clone().unwrap_err();
    assert!(
        matches!(err.class(), ErrorClass::NotServed | ErrorClass::Status(404)),
        "{err:?}"
    );
    let system = &rig.model.tools;
    // MASC's unknown-route 404 is "not served by this MASC", its own value; any
    // other 404 is a failed read. Either way only the detail is affected.
    let detail = &system.request.as_ref().unwrap().detail.fetched;
    if matches!(err.class(), ErrorClass::NotServed) {
        assert!(
            matches!(detail, Fetched::NotServed { last: None, .. }),
            "{detail:?}"
        );
    } else {
        assert!(
            matches!(detail, Fetched::Failed { last: None, .. }),
            "{detail:?}"
        );
    }
    assert!(matches!(system.asyncs.fetched, Fetched::Ready(_)));
    rig.finish().await;
}

/// T-11, A-17: re-opening the same id is a new read with a new ticket; the earlier read's
/// late answer is never applied (`superseded`), and its stages end in a retire.
#[tokio::test]
async fn a17_reopening_the_same_id_never_reuses_the_old_ticket() {
    let mut rig = rig(plan(&format!(
        r#"{{"match":{{"method":"GET","path":"{SINGLE}"}},"when":{{"nth":1}},"fault":{{"delay_ms":1500}}}}"#
    )))
    .await;
    let first = rig.open("kmsg-7f3a", held("operator", "rondo")).await;
    let second = rig.open("kmsg-7f3a", held("operator", "rondo")).await;
    assert!(second.generation > first.generation);
    rig.observed_ticket(&second).await;
    rig.retired(&first).await;
    let names = rig.stage_names(&first);
    assert!(names.contains(&"retire".to_string()), "{names:?}");
    assert!(!names.contains(&"observe".to_string()), "{names:?}");
    assert!(matches!(
        rig.model.tools.request.as_ref().unwrap().detail.fetched,
        Fetched::Ready(_)
    ));
    rig.finish().await;
}

/// T-12: closing the request retires only its read; the list slots are untouched and a late
/// answer is never applied.
#[tokio::test]
async fn t12_close_retires_only_the_request_read() {
    let mut rig = rig(plan(&format!(
        r#"{{"match":{{"method":"GET","path":"{SINGLE}"}},"when":{{"nth":1}},"fault":{{"delay_ms":1500}}}}"#
    )))
    .await;
    let list = rig.dispatched(&ToolsSlot::AsyncRequests).await;
    rig.observed_ticket(&list).await;
    let ticket = rig.open("kmsg-7f3a", held("operator", "rondo")).await;
    rig.command(ToolsCommand::CloseRequest).await;
    rig.retired(&ticket).await;
    assert!(rig.model.tools.request.is_none());
    assert!(matches!(rig.model.tools.asyncs.fetched, Fetched::Ready(_)));
    assert!(!rig.stage_names(&ticket).contains(&"observe".to_string()));
    rig.finish().await;
}

/// T-15: while a request is open the cadence reads only it (no list read is dispatched); after
/// closing it the cadence reads the lists again.
#[tokio::test]
async fn t15_the_cadence_reads_only_the_open_request() {
    let mut rig = rig(FaultPlan::none()).await;
    for slot in [
        ToolsSlot::ToolsInventory,
        ToolsSlot::SkillsCatalog,
        ToolsSlot::AsyncRequests,
    ] {
        let t = rig.dispatched(&slot).await;
        rig.observed_ticket(&t).await;
    }
    let first = rig.open("kmsg-7f3a", held("operator", "rondo")).await;
    rig.observed_ticket(&first).await;
    rig.demand(DemandKind::Cadence).await;
    let polled = rig.dispatched(&request_key("kmsg-7f3a")).await;
    assert!(polled.generation > first.generation);
    rig.observed_ticket(&polled).await;
    for slot in [
        ToolsSlot::ToolsInventory,
        ToolsSlot::SkillsCatalog,
        ToolsSlot::AsyncRequests,
    ] {
        assert_eq!(
            rig.dispatches_of(&slot),
            1,
            "{slot:?} read while a request is open"
        );
    }
    rig.command(ToolsCommand::CloseRequest).await;
    rig.demand(DemandKind::Cadence).await;
    let list = rig.dispatched(&ToolsSlot::AsyncRequests).await;
    rig.observed_ticket(&list).await;
    assert_eq!(rig.dispatches_of(&request_key("kmsg-7f3a")), 2);
    rig.finish().await;
}

/// T-11: a result for a request that is no longer the open one (another id opened) is
/// rejected by the view, never shown in the new request's detail.
#[tokio::test]
async fn t11_another_open_request_never_takes_the_old_answer() {
    let mut rig = rig(plan(&format!(
        r#"{{"match":{{"method":"GET","path":"{SINGLE}"}},"when":{{"nth":1}},"fault":{{"delay_ms":800}}}}"#
    )))
    .await;
    let first = rig.open("kmsg-7f3a", held("operator", "rondo")).await;
    // The model opens the other request before the source hears of it; the source retires
    // the first read when it does.
    let second = rig.open("kmsg-81c2", held("masc-tui", "sangsu")).await;
    rig.observed_ticket(&second).await;
    rig.retired(&first).await;
    let open = rig.model.tools.request.as_ref().unwrap();
    assert_eq!(open.request_id, "kmsg-81c2");
    assert!(matches!(open.detail.fetched, Fetched::Ready(_)));
    assert!(
        rig.rejected
            .iter()
            .all(|(t, r)| t != &first || *r == RejectReason::Withdrawn),
        "{:?}",
        rig.rejected
    );
    rig.finish().await;
}
