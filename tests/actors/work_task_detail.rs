#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! Task detail ownership: body and history are independent owned reads (A-6), the body is
//! strictly echo-checked (A-9), re-opening never applies an old response (A-10, A-17), and
//! workspace withdrawal retires both together (A-12, G-6). Embedded server with fault plans.

use crate::work_rig::*;
use masc_tui::actors::contract::{DemandKind, IdentityState, SlotEvent};
use masc_tui::actors::work::{WorkCommand, WorkObservation};
use masc_tui::protocol::client::ClientError;
use masc_tui::protocol::decode::DecodeErrorKind;
use masc_tui::protocol::tasks::GoalObservation;
use masc_tui::server::faults::FaultPlan;
use masc_tui::view::admission::RejectReason;
use masc_tui::view::fetched::Fetched;
use std::time::Instant;

fn body_error(o: &Observation) -> ClientError {
    match &o.payload {
        WorkObservation::TaskBody(Err(e)) => e.clone(),
        other => panic!("not a failed body: {other:?}"),
    }
}

#[tokio::test]
async fn a6_body_fails_while_history_succeeds() {
    let mut rig = rig(
        plan(r#"{"match":{"method":"GET","path":"/api/v1/dashboard/tasks/detail"},"fault":{"status":500,"body":{"error":"store"}}}"#),
        Sources::Detail,
    )
    .await;
    let (b, h) = rig.open_task(LONG, 20).await;
    let body = rig.observed_ticket(&b).await;
    assert!(matches!(
        body_error(&body),
        ClientError::Status { status: 500, .. }
    ));
    let history = rig.observed_ticket(&h).await;
    assert_eq!(history_chain(&history).len(), 20);
    let t = rig.task();
    assert!(
        matches!(t.body.fetched, Fetched::Failed { last: None, ref error, .. } if error.class.to_string() == "status_500")
    );
    assert!(matches!(t.history.fetched, Fetched::Ready(ref o) if o.value.len() == 20));
    assert_eq!(
        rig.stages_of(&b)
            .iter()
            .find(|r| r.stage == "worker_return")
            .and_then(|r| r.outcome.clone())
            .as_deref(),
        Some("status_500")
    );
    rig.finish().await;
}

#[tokio::test]
async fn a6_history_fails_while_body_succeeds_and_a_pending_body_is_untouched() {
    let mut rig = rig(
        plan(r#"{"match":{"method":"GET","path":"/api/v1/dashboard/tasks/history/page"},"fault":{"status":500,"body":{"error":"store"}}},
                {"match":{"method":"GET","path":"/api/v1/dashboard/tasks/detail"},"when":{"nth":1},"fault":{"delay_ms":400}}"#),
        Sources::Detail,
    )
    .await;
    let (b, h) = rig.open_task(LONG, 20).await;
    // The history fails first while the body is still pending: the body stays Loading.
    let history = rig.observed_ticket(&h).await;
    assert!(matches!(
        history_error(&history),
        ClientError::Status { status: 500, .. }
    ));
    let t = rig.task();
    assert!(matches!(t.body.fetched, Fetched::Loading));
    assert!(t.body.in_flight());
    assert!(matches!(
        t.history.fetched,
        Fetched::Failed { last: None, .. }
    ));
    let body = rig.observed_ticket(&b).await;
    let WorkObservation::TaskBody(Ok(detail)) = &body.payload else {
        panic!("{:?}", body.payload);
    };
    assert_eq!(detail.value.task_id, LONG);
    let t = rig.task();
    assert!(matches!(t.body.fetched, Fetched::Ready(_)));
    assert!(
        matches!(t.history.fetched, Fetched::Failed { last: None, ref error, .. } if error.class.to_string() == "status_500")
    );
    rig.finish().await;
}

#[tokio::test]
async fn a9_body_echo_mismatch_fails_the_body_read() {
    let mut rig = rig(
        plan(r#"{"match":{"method":"GET","path":"/api/v1/dashboard/tasks/detail"},"fault":{"echo":"wrong"}}"#),
        Sources::Detail,
    )
    .await;
    let (b, h) = rig.open_task(LONG, 10).await;
    let body = rig.observed_ticket(&b).await;
    match body_error(&body) {
        ClientError::Decode(d) => assert!(
            matches!(
                d.kind,
                DecodeErrorKind::EchoMismatch | DecodeErrorKind::IdentityMismatch
            ),
            "{d:?}"
        ),
        other => panic!("{other:?}"),
    }
    rig.observed_ticket(&h).await;
    assert!(matches!(rig.task().history.fetched, Fetched::Ready(_)));
    rig.finish().await;
}

#[tokio::test]
async fn a9_body_carries_the_canonical_goal_observation() {
    let mut rig = rig(FaultPlan::none(), Sources::Detail).await;
    let (b, _) = rig.open_task(LONG, 10).await;
    let body = rig.observed_ticket(&b).await;
    let WorkObservation::TaskBody(Ok(detail)) = &body.payload else {
        panic!("{:?}", body.payload);
    };
    assert_eq!(detail.value.task.id, LONG);
    assert!(
        matches!(&detail.value.goal, GoalObservation::Linked { goal_ids } if !goal_ids.is_empty())
    );
    // A non-canonical goal observation (linked without ids) fails the read.
    let bad = serde_json::json!({
        "schema": "masc.task_detail.v1", "task_id": LONG,
        "goal": {"state": "linked", "goal_ids": []},
        "task": {"id": LONG, "title": "t", "description": "", "files": [], "created_at": "2026-10-01T00:00:00Z", "status": "todo"}
    });
    rig.server.set_faults(plan(&format!(
        r#"{{"match":{{"method":"GET","path":"{DETAIL}"}},"fault":{{"status":200,"body":{bad}}}}}"#
    )));
    rig.command(WorkCommand::RefreshTask { page_rows: 10 })
        .await;
    let b2 = rig.dispatched(&body_key(LONG)).await;
    let refused = rig.observed_ticket(&b2).await;
    assert!(
        matches!(body_error(&refused), ClientError::Decode(ref d) if d.kind == DecodeErrorKind::InvalidValue)
    );
    // G-4: the last good body stays beside the failure.
    assert!(matches!(
        rig.task().body.fetched,
        Fetched::Failed { last: Some(_), .. }
    ));
    rig.finish().await;
}

#[tokio::test]
async fn a10_a17_reopening_the_same_task_never_applies_an_old_response() {
    let mut rig = rig(
        plan(r#"{"match":{"method":"GET","path":"/api/v1/dashboard/tasks/detail"},"when":{"nth":1},"fault":{"delay_ms":3000}}"#),
        Sources::Detail,
    )
    .await;
    let (old_body, old_history) = rig.open_task(LONG, 10).await;
    let old_page = rig.observed_ticket(&old_history).await;
    // Re-open the same id while the first body read is still in flight.
    rig.command(WorkCommand::OpenTask {
        task_id: LONG.into(),
        page_rows: 10,
    })
    .await;
    rig.retired(&old_body).await;
    let new_body = rig.dispatched(&body_key(LONG)).await;
    let new_history = rig.dispatched(&history_key(LONG)).await;
    assert!(new_body.generation > old_body.generation, "a new ticket");
    assert!(new_history.generation > old_history.generation);
    // The re-opened detail starts from nothing: the old page is not shown.
    assert!(matches!(rig.task().history.fetched, Fetched::Loading));
    rig.observed_ticket(&new_body).await;
    rig.observed_ticket(&new_history).await;
    assert!(matches!(rig.task().body.fetched, Fetched::Ready(_)));
    // An old response arriving now is rejected by the view, never applied.
    let late = SlotEvent::Observed(old_history.clone(), old_page.payload.clone());
    let verdict = rig.model.deliver(late, Instant::now()).rejected;
    assert!(
        matches!(
            verdict.as_slice(),
            [RejectReason::Superseded | RejectReason::Withdrawn]
        ),
        "{verdict:?}"
    );
    let shown = shown_chain(rig.task()).unwrap();
    assert_eq!(rig.task().history.owner(), None);
    assert!(shown.len() == 10 && history_chain(&old_page).prefix_id != shown.prefix_id);
    let retire = rig
        .stages_of(&old_body)
        .into_iter()
        .find(|r| r.stage == "retire")
        .unwrap();
    assert_eq!(retire.reason.as_deref(), Some("closed"));
    assert!(
        !rig.any_observed(|t| *t == old_body),
        "the retired body read never reached the view"
    );
    rig.finish().await;
}

#[tokio::test]
async fn a12_epoch_withdrawal_mid_chain_retires_both_reads_together() {
    let mut rig = rig(
        plan(r#"{"match":{"method":"GET","path":"/api/v1/dashboard/tasks/history/page"},"when":{"nth":2},"fault":{"delay_ms":5000}},
                {"match":{"method":"GET","path":"/api/v1/dashboard/tasks/detail"},"when":{"nth":2},"fault":{"delay_ms":5000}}"#),
        Sources::Detail,
    )
    .await;
    let (b1, h1) = rig.open_task(LONG, 15).await;
    rig.observed_ticket(&b1).await;
    rig.observed_ticket(&h1).await;
    // Both reads in flight: a cadence body re-read and the next page.
    rig.demand(DemandKind::Cadence).await;
    let b2 = rig.dispatched(&body_key(LONG)).await;
    rig.command(WorkCommand::OlderHistory { page_rows: 15 })
        .await;
    let h2 = rig.dispatched(&history_key(LONG)).await;
    // /health fails: the epoch is withdrawn mid-chain.
    rig.server.set_faults(plan(
        r#"{"match":{"method":"GET","path":"/health"},"fault":{"status":500,"body":"down"}},
           {"match":{"method":"GET","path":"/api/v1/dashboard/tasks/history/page"},"when":{"nth":1},"fault":{"delay_ms":5000}}"#,
    ));
    rig.wait(|m| matches!(m, ViewMsg::Identity(IdentityState::Unconfirmed { .. })))
        .await;
    rig.retired(&b2).await;
    rig.retired(&h2).await;
    // A-12: both values and their owners are dropped together.
    let t = rig.task();
    assert!(t.withdrawn);
    assert!(matches!(t.body.fetched, Fetched::NotRequested));
    assert!(matches!(t.history.fetched, Fetched::NotRequested));
    assert!(!t.body.in_flight() && !t.history.in_flight());
    for ticket in [&b2, &h2] {
        let retire = rig
            .stages_of(ticket)
            .into_iter()
            .find(|r| r.stage == "retire")
            .unwrap();
        assert_eq!(retire.reason.as_deref(), Some("withdrawn"));
    }
    // Health returns: the same workspace reads both again, the history as a fresh prefix.
    rig.server.set_faults(FaultPlan::none());
    rig.wait(|m| matches!(m, ViewMsg::Identity(IdentityState::Confirmed { .. })))
        .await;
    let b3 = rig.dispatched(&body_key(LONG)).await;
    let h3 = rig.dispatched(&history_key(LONG)).await;
    assert!(b3.scope.epoch > b2.scope.epoch);
    rig.observed_ticket(&b3).await;
    let fresh = rig.observed_ticket(&h3).await;
    assert_eq!(history_read(&fresh).request.cursor, None);
    assert_eq!(history_chain(&fresh).len(), 15);
    assert!(!rig.task().withdrawn);
    assert!(
        !rig.any_observed(|t| *t == h2 || *t == b2),
        "no late result of the withdrawn epoch"
    );
    rig.finish().await;
}

#[tokio::test]
async fn g6_another_workspace_never_borrows_the_open_task_reads() {
    let mut rig = rig(
        plan(r#"{"match":{"method":"GET","path":"/api/v1/dashboard/tasks/history/page"},"when":{"nth":2},"fault":{"delay_ms":5000}}"#),
        Sources::Detail,
    )
    .await;
    let (b1, h1) = rig.open_task(LONG, 15).await;
    rig.observed_ticket(&b1).await;
    rig.observed_ticket(&h1).await;
    rig.command(WorkCommand::OlderHistory { page_rows: 15 })
        .await;
    let h2 = rig.dispatched(&history_key(LONG)).await;
    let base = rig.server.base_path();
    rig.server
        .switch_workspace(&base, &format!("{base}/.masc-other"));
    rig.retired(&h2).await;
    let other = |m: &ViewMsg| {
        matches!(m, ViewMsg::Identity(IdentityState::Confirmed { scope, .. })
            if scope.workspace.0.ends_with(".masc-other"))
    };
    // The view may hear the new confirmation before the source's retirement.
    if rig.log.last_seen(other).is_none() {
        rig.wait(other).await;
    }
    let t = rig.task();
    assert!(t.withdrawn);
    assert!(matches!(t.history.fetched, Fetched::NotRequested));
    assert!(!t.history.in_flight() && !t.body.in_flight());
    // No read of the open task was started in the other workspace.
    assert!(
        !rig.log
            .seen
            .iter()
            .any(|m| matches!(m, ViewMsg::Slot(SlotEvent::Dispatched(t))
            if t.scope.workspace.0.ends_with(".masc-other"))),
        "the request is not carried into another workspace"
    );
    rig.finish().await;
}
