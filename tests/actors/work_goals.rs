#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! Goal timeline (B-1, B-2; protocol.md §5.6), the Planning rollup (§5.7, G-5 warming) and the
//! Task list coverage (§5.1) against the embedded server with fault plans.

use crate::work_rig::*;
use masc_tui::actors::contract::{DemandKind, IdentityState, SourceControl};
use masc_tui::actors::work::{PLANNING, WorkCommand, WorkObservation, WorkSlot};
use masc_tui::protocol::client::ClientError;
use masc_tui::protocol::goals::{GoalDetailRead, Timeline};
use masc_tui::protocol::planning::PlanningRead;
use masc_tui::server::faults::FaultPlan;
use masc_tui::view::fetched::Fetched;

const GOAL_DETAIL: &str = "/api/v1/dashboard/goals/detail";

fn goal(id: &str) -> WorkSlot {
    WorkSlot::GoalTimeline(id.into())
}

async fn open_goal(rig: &mut Rig, id: &str) -> WorkTicket {
    rig.command(WorkCommand::OpenGoal { goal_id: id.into() })
        .await;
    rig.dispatched(&goal(id)).await
}

#[tokio::test]
async fn b1_the_goal_timeline_is_its_own_owned_read() {
    let mut rig = rig(FaultPlan::none(), Sources::Detail).await;
    let t = open_goal(&mut rig, "goal-2").await;
    let obs = rig.observed_ticket(&t).await;
    let WorkObservation::GoalTimeline(Ok(read)) = &obs.payload else {
        panic!("{:?}", obs.payload);
    };
    let GoalDetailRead::Found(detail) = read.value.as_ref() else {
        panic!("goal-2 exists");
    };
    assert!(matches!(&detail.timeline, Timeline::Events(e) if !e.is_empty()));
    let g = rig.model.work.goal.as_ref().unwrap();
    assert!(matches!(g.timeline.fetched, Fetched::Ready(_)));
    assert_eq!(
        rig.stage_names(&t),
        [
            "dispatch",
            "worker_enter",
            "worker_return",
            "observe",
            "unregistered",
            "admit"
        ]
    );
    rig.finish().await;
}

#[tokio::test]
async fn b1_an_unknown_goal_is_a_typed_failure_of_that_read_only() {
    let mut rig = rig(FaultPlan::none(), Sources::All).await;
    rig.observed(&WorkSlot::Planning).await;
    let t = open_goal(&mut rig, "goal-404").await;
    let obs = rig.observed_ticket(&t).await;
    let WorkObservation::GoalTimeline(Ok(read)) = &obs.payload else {
        panic!("HTTP 200 ok:false is an answer: {:?}", obs.payload);
    };
    assert!(
        matches!(read.value.as_ref(), GoalDetailRead::NotFound { goal_id, .. } if goal_id == "goal-404")
    );
    let outcome = rig
        .stages_of(&t)
        .into_iter()
        .find(|r| r.stage == "worker_return")
        .and_then(|r| r.outcome);
    assert_eq!(outcome.as_deref(), Some("goal_not_found"));
    let g = rig.model.work.goal.as_ref().unwrap();
    assert!(matches!(
        g.timeline.fetched,
        Fetched::Failed { last: None, ref error, .. } if error.class.to_string() == "goal_not_found"
    ));
    // Only that read failed: the planning rollup is untouched.
    assert!(matches!(rig.model.work.planning.fetched, Fetched::Ready(_)));
    rig.finish().await;
}

#[tokio::test]
async fn b1_timeline_null_is_unavailable_never_empty() {
    let body = serde_json::json!({
        "generated_at": "2026-10-19T00:00:00Z",
        "approval_queue_state": {"state": "ready"},
        "goal": {"id": "goal-3", "title": "G", "phase": "executing"},
        "linked_tasks": [], "linked_keepers": [], "approvals": [], "execution_receipts": [],
        "timeline": null
    });
    let mut rig = rig(
        plan(&format!(
            r#"{{"match":{{"method":"GET","path":"{GOAL_DETAIL}"}},"fault":{{"status":200,"body":{body}}}}}"#
        )),
        Sources::Detail,
    )
    .await;
    let t = open_goal(&mut rig, "goal-3").await;
    let obs = rig.observed_ticket(&t).await;
    let WorkObservation::GoalTimeline(Ok(read)) = &obs.payload else {
        panic!("{:?}", obs.payload);
    };
    let GoalDetailRead::Found(detail) = read.value.as_ref() else {
        panic!("found");
    };
    assert_eq!(detail.timeline, Timeline::Unavailable);
    assert_ne!(detail.timeline, Timeline::Events(Vec::new()));
    rig.finish().await;
}

#[tokio::test]
async fn b2_a_rejected_timeline_get_keeps_the_last_good_timeline() {
    let mut rig = rig(FaultPlan::none(), Sources::Detail).await;
    let t1 = open_goal(&mut rig, "goal-2").await;
    rig.observed_ticket(&t1).await;
    rig.server.set_faults(plan(&format!(
        r#"{{"match":{{"method":"GET","path":"{GOAL_DETAIL}"}},"fault":{{"receipt":"wrong"}}}}"#
    )));
    rig.command(WorkCommand::RefreshGoal).await;
    let t2 = rig.dispatched(&goal("goal-2")).await;
    // G-4: a re-read shows the last good value plus "reading".
    assert!(matches!(
        rig.model.work.goal.as_ref().unwrap().timeline.fetched,
        Fetched::Refreshing { .. }
    ));
    let obs = rig.observed_ticket(&t2).await;
    assert!(matches!(
        &obs.payload,
        WorkObservation::GoalTimeline(Err(ClientError::ReceiptMismatch { .. }))
    ));
    match &rig.model.work.goal.as_ref().unwrap().timeline.fetched {
        Fetched::Failed {
            last: Some(o),
            error,
            ..
        } => {
            assert_eq!(error.class.to_string(), "receipt_mismatch");
            assert!(matches!(o.value.as_ref(), GoalDetailRead::Found(_)));
        }
        other => panic!("{other:?}"),
    }
    // A rejected read is not an identity observation (§2.1): no new Identity message.
    let confirmed_at = rig
        .log
        .seen
        .iter()
        .position(|m| matches!(m, ViewMsg::Identity(IdentityState::Confirmed { .. })))
        .unwrap();
    assert!(
        !rig.log.seen[confirmed_at + 1..]
            .iter()
            .any(|m| matches!(m, ViewMsg::Identity(_))),
        "the workspace stays confirmed"
    );
    rig.finish().await;
}

#[tokio::test]
async fn g5_planning_warming_is_warming_never_an_empty_rollup() {
    let mut rig = rig(
        plan(r#"{"match":{"method":"GET","path":"/api/v1/dashboard/planning"},"when":{"first":1},"fault":{"status":200,"body":{"status":"initializing","message":"Server is warming up"}}}"#),
        Sources::All,
    )
    .await;
    let first = rig.observed(&WorkSlot::Planning).await;
    assert!(matches!(
        &first.payload,
        WorkObservation::Planning(Err(ClientError::Warming))
    ));
    assert!(matches!(
        rig.model.work.planning.fetched,
        Fetched::Warming { last: None }
    ));
    assert!(
        rig.model.work.first_planning.is_none(),
        "warming is no reading"
    );
    // An explicit refresh after warming reads the real rollup.
    let source = match rig
        .log
        .last_seen(|m| matches!(m, ViewMsg::SourceUp { source, .. } if *source == PLANNING))
    {
        Some(ViewMsg::SourceUp { handle, .. }) => handle.clone(),
        _ => panic!("planning source up"),
    };
    assert!(source.send_control(SourceControl::Demand(DemandKind::Explicit)));
    let second = rig.observed(&WorkSlot::Planning).await;
    let WorkObservation::Planning(Ok(read)) = &second.payload else {
        panic!("{:?}", second.payload);
    };
    assert!(matches!(read.value.as_ref(), PlanningRead::Snapshot(p) if !p.goals.is_empty()));
    assert!(rig.model.work.first_planning.is_some());
    rig.finish().await;
}

#[tokio::test]
async fn s5_1_an_unavailable_task_list_part_reaches_the_view_typed() {
    let body = serde_json::json!({
        "schema": "masc.task_list.v1",
        "sources": {"backlog": {"state": "read"}, "archive": {"state": "unavailable", "reason": "archive unreadable"},
                    "goal_links": {"state": "read"}},
        "tasks": []
    });
    let mut rig = rig(
        plan(&format!(
            r#"{{"match":{{"method":"GET","path":"/api/v1/dashboard/tasks"}},"fault":{{"status":200,"body":{body}}}}}"#
        )),
        Sources::All,
    )
    .await;
    let obs = rig.observed(&WorkSlot::TaskList).await;
    let WorkObservation::TaskList(Ok(list)) = &obs.payload else {
        panic!("{:?}", obs.payload);
    };
    assert!(list.value.tasks.is_empty());
    assert!(!list.value.sources.archive.is_read());
    rig.finish().await;
}

/// §5.7 `verification`: the seeded proof ledger reaches the typed planning rows as every
/// distinct observation — idle, pending, proven, refuted, a ledger row that does not decode,
/// and no ledger row at all (absent = unreadable, never idle).
#[tokio::test]
async fn s5_7_the_proof_ledger_is_read_per_goal_and_absent_is_not_idle() {
    use masc_tui::protocol::planning::ProofObservation;
    let mut rig = rig(FaultPlan::none(), Sources::All).await;
    let obs = rig.observed(&WorkSlot::Planning).await;
    let WorkObservation::Planning(Ok(read)) = &obs.payload else {
        panic!("{:?}", obs.payload);
    };
    let PlanningRead::Snapshot(planning) = read.value.as_ref() else {
        panic!("snapshot expected");
    };
    let proof = |id: &str| {
        planning
            .goals
            .iter()
            .find(|g| g.id == id)
            .map(|g| g.verification.clone())
            .unwrap()
    };
    assert_eq!(proof("goal-1"), ProofObservation::Idle);
    assert!(matches!(proof("goal-3"), ProofObservation::Pending { .. }));
    assert!(matches!(proof("goal-6"), ProofObservation::Proven { .. }));
    assert!(matches!(proof("goal-8"), ProofObservation::Refuted { .. }));
    assert!(matches!(
        proof("goal-5"),
        ProofObservation::LedgerError { .. }
    ));
    assert_eq!(proof("goal-7"), ProofObservation::Unreadable);
    rig.finish().await;
}
