//! The Goal action save on the embedded server (protocol-15-operator.md §15.4, §15.12,
//! §15.14): one test per outcome and fault, each asserting the typed receipt, the steps on the
//! save's own slot, how many POSTs the server saw and the goal's phase in the server's store
//! afterwards — never wording.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code
use crate::actor_support::{Rig, post_fault, rig_on_release, rig_with};
use crate::save_rig::{current_scope, receipt_on, stages, steps_on};
use masc_tui::actors::saves::{SaveEvent, SaveId};
use masc_tui::actors::work::goal_transition::{GoalTransition, TransitionIntent};
use masc_tui::actors::work::{WorkObservation, WorkSlot};
use masc_tui::protocol::goal_transition::{
    GoalAction, GoalRefusal, GoalTransitionOutcome, GoalTransitioned,
};
use masc_tui::protocol::planning::GoalPhase;
use masc_tui::server::RunningServer;
use masc_tui::server::compat::MascRelease;
use masc_tui::server::faults::FaultPlan;
use masc_tui::server::store::goals;

const TRANSITION: &str = "/api/v1/tools/masc_goal_transition";

fn transition_event(p: &WorkObservation) -> Option<&SaveEvent<GoalTransition>> {
    match p {
        WorkObservation::GoalTransition(ev) => Some(ev),
        _ => None,
    }
}

async fn act(rig: &mut Rig, goal_id: &str, action: GoalAction) -> (SaveId, GoalTransitionOutcome) {
    let scope = current_scope(rig).await;
    let intent = TransitionIntent {
        goal_id: goal_id.into(),
        action,
        note: Some("operator review".into()),
    };
    let id = crate::save_rig::submit::<GoalTransition>(rig, intent, scope).await;
    let receipt =
        receipt_on::<WorkSlot, WorkObservation, GoalTransition>(rig, &id, transition_event).await;
    (id, receipt)
}

/// The goal's phase and proof-ledger state as the server stores them.
async fn stored(server: &RunningServer, goal_id: &str) -> (String, String) {
    let id = goal_id.to_string();
    server
        .state()
        .store()
        .read(move |c| {
            let row = goals::goals(c)?.into_iter().find(|g| g.id == id).unwrap();
            let phase = row.body["phase"].as_str().unwrap_or_default().to_string();
            let proof = row.body["verification"]["completion"]["state"]
                .as_str()
                .unwrap_or("none")
                .to_string();
            Ok((phase, proof))
        })
        .await
        .unwrap()
}

fn unknown(r: &GoalTransitionOutcome) -> bool {
    matches!(r, GoalTransitionOutcome::OutcomeUnknown { .. })
}

/// §15.4, §15.12: `request_complete` on an executing goal moves it to verifying with a proof
/// request ("proof requested", never "completed"); its steps land in its own slot, traced as
/// `save:goal_transition`.
#[tokio::test(flavor = "current_thread")]
async fn s15_4_request_complete_moves_an_executing_goal_with_a_proof_request() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let (id, r) = act(&mut rig, "goal-1", GoalAction::RequestComplete).await;
    assert_eq!(
        r,
        GoalTransitionOutcome::Moved(GoalTransitioned {
            goal_id: "goal-1".into(),
            action: GoalAction::RequestComplete,
            phase: Some(GoalPhase::Verifying),
            proof_requested: true,
        })
    );
    assert_eq!(
        steps_on(
            &mut rig,
            &id,
            &WorkSlot::GoalTransition(id.clone()),
            transition_event
        ),
        ["written", "sending", "ended:applied"]
    );
    assert_eq!(
        stages(&rig, "goal_transition"),
        ["dispatch:", "worker_enter:", "worker_return:ok"]
    );
    assert_eq!(
        stored(&rig.server, "goal-1").await,
        ("verifying".into(), "proof_pending".into())
    );
    rig.finish().await;
}

/// §15.4: a goal already where the action leads answers `noop` — unchanged, "already
/// <phase>" — and nothing is written.
#[tokio::test(flavor = "current_thread")]
async fn s15_4_already_in_that_phase_is_unchanged() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let before = stored(&rig.server, "goal-8").await;
    let (_, r) = act(&mut rig, "goal-8", GoalAction::Drop).await;
    match r {
        GoalTransitionOutcome::Already(t) => assert_eq!(t.phase, Some(GoalPhase::Dropped)),
        other => panic!("{other:?}"),
    }
    assert_eq!(stored(&rig.server, "goal-8").await, before);
    rig.finish().await;
}

/// §15.4, §15.12: the server owns the table — an action the goal's phase refuses is its
/// `conflict`; the goal stays.
#[tokio::test(flavor = "current_thread")]
async fn s15_12_an_invalid_transition_is_a_conflict() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let (_, r) = act(&mut rig, "goal-8", GoalAction::RequestComplete).await;
    assert!(matches!(r, GoalTransitionOutcome::Conflict { .. }), "{r:?}");
    assert_eq!(stored(&rig.server, "goal-8").await.0, "dropped");
    rig.finish().await;
}

/// §15.14: the goal moved between the operator's read and the send (another operator dropped
/// it): `conflict`, one POST, and the other operator's phase stays.
#[tokio::test(flavor = "current_thread")]
async fn s15_14_a_goal_moved_between_read_and_send_is_a_conflict() {
    let mut rig = rig_with(FaultPlan::default()).await;
    assert_eq!(stored(&rig.server, "goal-7").await.0, "executing");
    rig.server
        .state()
        .store()
        .write(|tx| goals::transition(tx, "goal-7", "drop", None, "mira", 1_800_000_000))
        .await
        .unwrap();
    let (_, r) = act(&mut rig, "goal-7", GoalAction::RequestComplete).await;
    assert!(matches!(r, GoalTransitionOutcome::Conflict { .. }), "{r:?}");
    assert_eq!(rig.server.request_count("POST", TRANSITION), 1);
    assert_eq!(stored(&rig.server, "goal-7").await.0, "dropped");
    rig.finish().await;
}

/// §15.12: a goal the server does not know is not applied (`not_found`).
#[tokio::test(flavor = "current_thread")]
async fn s15_14_an_unknown_goal_is_not_applied() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let (_, r) = act(&mut rig, "goal-999", GoalAction::Reopen).await;
    assert_eq!(r, GoalTransitionOutcome::NotApplied(GoalRefusal::NotFound));
    rig.finish().await;
}

/// §15.12, §15.14, H-5: `internal_error` after the proof request was written is outcome
/// unknown and never resent — the server did write the request.
#[tokio::test(flavor = "current_thread")]
async fn s15_14_internal_error_after_the_proof_request_is_unknown_and_never_resent() {
    let body = serde_json::json!({"ok": false, "message": serde_json::json!({
        "status": "error", "error_code": "internal_error",
        "message": "goal phase write failed"}).to_string()});
    let fault = serde_json::json!({"answer_after_apply": {"status": 400, "body": body}});
    let mut rig = rig_with(post_fault(TRANSITION, &fault.to_string())).await;
    let (_, r) = act(&mut rig, "goal-2", GoalAction::RequestComplete).await;
    assert!(unknown(&r), "{r:?}");
    assert_eq!(rig.server.request_count("POST", TRANSITION), 1);
    assert_eq!(stored(&rig.server, "goal-2").await.1, "proof_pending");
    rig.finish().await;
}

/// §15.12, §15.14: a 200 whose `message` is not JSON is outcome unknown.
#[tokio::test(flavor = "current_thread")]
async fn s15_14_a_200_whose_message_is_not_json_is_unknown() {
    let mut rig = rig_with(post_fault(
        TRANSITION,
        r#"{"answer_after_apply":{"status":200,"body":{"ok":true,"message":"moved"}}}"#,
    ))
    .await;
    let (_, r) = act(&mut rig, "goal-6", GoalAction::Reopen).await;
    assert!(unknown(&r), "{r:?}");
    assert_eq!(stored(&rig.server, "goal-6").await.0, "executing");
    rig.finish().await;
}

/// §15.14: a reply naming another goal is outcome unknown (the request may have moved this
/// one).
#[tokio::test(flavor = "current_thread")]
async fn s15_14_a_reply_naming_another_goal_is_unknown() {
    let mut rig = rig_with(post_fault(TRANSITION, r#"{"echo":"wrong"}"#)).await;
    let (_, r) = act(&mut rig, "goal-1", GoalAction::Drop).await;
    assert!(unknown(&r), "{r:?}");
    rig.finish().await;
}

/// H-5: a transition whose connection drops after the server applied it is outcome unknown
/// and never resent (one POST).
#[tokio::test(flavor = "current_thread")]
async fn s15_14_a_transition_dropped_after_applying_is_unknown_and_never_resent() {
    let mut rig = rig_with(post_fault(TRANSITION, r#"{"drop":"after_apply"}"#)).await;
    let (_, r) = act(&mut rig, "goal-5", GoalAction::Drop).await;
    assert!(unknown(&r), "{r:?}");
    assert_eq!(rig.server.request_count("POST", TRANSITION), 1);
    assert_eq!(stored(&rig.server, "goal-5").await.0, "dropped");
    rig.finish().await;
}

/// §15.4: MASC v0.24.0 has no REST route for goal actions — the receipt says "not
/// served by this MASC" (not applied, its own value), never a failure; nothing moves.
#[tokio::test(flavor = "current_thread")]
async fn s15_4_masc_v0_24_0_does_not_serve_the_route() {
    let mut rig = rig_on_release(MascRelease::V0_24_0).await;
    let (_, r) = act(&mut rig, "goal-1", GoalAction::Drop).await;
    assert_eq!(r, GoalTransitionOutcome::NotApplied(GoalRefusal::NotServed));
    assert_eq!(stored(&rig.server, "goal-1").await.0, "executing");
    rig.finish().await;
}
