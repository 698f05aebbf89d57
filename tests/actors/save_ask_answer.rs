//! The Ask answer save on the embedded server's fault plans (protocol.md §10.2, §11
//! "Ask answer", §13; sources.md K-1…K-5): typed receipts in the save's own slot, the outbox
//! row, the traced stages, never a resend.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code
use crate::actor_support::{Rig, post_fault, rig_with, start_rig};
use crate::save_rig::{confirmed_scope, stages, step_name};
use masc_tui::actors::contract::SlotEvent;
use masc_tui::actors::decisions::ask_answer::{AnswerIntent, AskAnswer};
use masc_tui::actors::decisions::{DecisionsObservation, DecisionsSlot};
use masc_tui::actors::saves::{SaveId, SaveStep};
use masc_tui::protocol::admission::ReadScope;
use masc_tui::protocol::asks::{AnswerResponse, QuestionAnswer, ResolvedState};
use masc_tui::protocol::outcome::{AskAnswerOutcome, SaveClass, SaveOutcome};
use masc_tui::server::ServeOptions;
use masc_tui::server::faults::FaultPlan;
use std::time::Duration;

type Event = SlotEvent<DecisionsSlot, DecisionsObservation>;

pub const ANSWER: &str = "/api/v1/keepers/ask-answer";

/// 하늘's one-question Ask, answered with option `route-4`.
pub fn sky_answer() -> AnswerIntent {
    AnswerIntent {
        keeper: "하늘".into(),
        ask_id: "ask-sky-0415".into(),
        answers: vec![QuestionAnswer {
            question_id: "q-1".into(),
            response: AnswerResponse::Chose {
                choice_ids: vec!["route-4".into()],
            },
        }],
    }
}

async fn submit(rig: &mut Rig, intent: AnswerIntent, scope: ReadScope) -> SaveId {
    crate::save_rig::submit::<AskAnswer>(rig, intent, scope).await
}

/// The receipt of `id` (its `Ended` step) and the workspace the event names.
async fn receipt(rig: &mut Rig, id: &SaveId) -> (AskAnswerOutcome, String) {
    let ended = rig
        .view
        .wait_slot::<DecisionsSlot, DecisionsObservation>(|e: &Event| {
            matches!(e, SlotEvent::Observed(_, DecisionsObservation::Answer(ev))
                if ev.save_id == *id && matches!(ev.step, SaveStep::Ended(_)))
        })
        .await;
    match ended {
        Some(SlotEvent::Observed(_, DecisionsObservation::Answer(ev))) => match &ev.step {
            SaveStep::Ended(r) => (r.clone(), ev.workspace.clone()),
            other => panic!("not a receipt: {other:?}"),
        },
        other => panic!("no receipt: {other:?}"),
    }
}

/// The steps `id`'s slot received, in order.
fn steps(rig: &mut Rig, id: &SaveId) -> Vec<String> {
    rig.view
        .slot_events::<DecisionsSlot, DecisionsObservation>()
        .iter()
        .filter_map(|e| match e {
            SlotEvent::Observed(t, DecisionsObservation::Answer(ev))
                if t.slot == DecisionsSlot::Answer(id.clone()) =>
            {
                Some(step_name(&ev.step))
            }
            _ => None,
        })
        .collect()
}

/// The state of `ask_id` as the server lists it now (`include_resolved`).
async fn server_state(rig: &Rig, ask_id: &str) -> String {
    let url = format!(
        "{}/api/v1/keepers/asks?include_resolved=true",
        rig.server.base_url()
    );
    let body: serde_json::Value = reqwest::Client::new()
        .get(url)
        .bearer_auth("actor-test-token")
        .header("X-MASC-Expected-Root", rig.server.masc_root())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    body["asks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["ask_id"] == ask_id)
        .map(|a| a["resolution"]["state"].as_str().unwrap().to_string())
        .unwrap()
}

/// K-1, §11: an applied answer lands once in its own slot, after `written` and `sending`; the
/// POST is made once; the stages are traced as `save:ask_answer`.
#[tokio::test(flavor = "current_thread")]
async fn k1_s11_an_answer_is_applied_once_and_lands_in_its_own_slot() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let scope = confirmed_scope(&mut rig).await;
    let id = submit(&mut rig, sky_answer(), scope.clone()).await;
    let (outcome, workspace) = receipt(&mut rig, &id).await;
    match outcome {
        SaveOutcome::Applied { detail, warning } => {
            assert!(!detail.actor.trim().is_empty());
            assert_eq!(warning, None);
        }
        other => panic!("not applied: {other:?}"),
    }
    assert_eq!(workspace, scope.workspace.0);
    assert_eq!(rig.server.request_count("POST", ANSWER), 1);
    assert_eq!(
        steps(&mut rig, &id),
        ["written", "sending", "ended:applied"]
    );
    assert_eq!(server_state(&rig, "ask-sky-0415").await, "answered");
    assert_eq!(
        stages(&rig, "ask_answer"),
        ["dispatch:", "worker_enter:", "worker_return:ok"]
    );
    rig.finish().await;
}

/// §11, §13: the server answers 409 (the Ask was answered before): conflict — another answer
/// stands — with the server's state; never resent.
#[tokio::test(flavor = "current_thread")]
async fn s11_already_answered_is_a_conflict_never_resent() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let scope = confirmed_scope(&mut rig).await;
    let sangsu = AnswerIntent {
        keeper: "sangsu".into(),
        ask_id: "ask-sangsu-0398".into(),
        answers: vec![QuestionAnswer {
            question_id: "q-1".into(),
            response: AnswerResponse::Chose {
                choice_ids: vec!["c-mira".into()],
            },
        }],
    };
    let id = submit(&mut rig, sangsu, scope).await;
    match receipt(&mut rig, &id).await.0 {
        SaveOutcome::Conflict { current } => {
            assert_eq!(current.state, Some(ResolvedState::Answered))
        }
        other => panic!("not a conflict: {other:?}"),
    }
    assert_eq!(rig.server.request_count("POST", ANSWER), 1);
    rig.finish().await;
}

/// §13 drop before apply: the connection closes after the request arrived, before the store
/// commit. The client cannot tell: outcome unknown (K-3: neither "not applied" nor
/// "success"); the server shows the Ask still open; nothing is resent.
#[tokio::test(flavor = "current_thread")]
async fn s13_dropped_before_apply_is_outcome_unknown_and_the_ask_stays_open() {
    let mut rig = rig_with(post_fault(ANSWER, r#"{"drop":"before_apply"}"#)).await;
    let scope = confirmed_scope(&mut rig).await;
    let id = submit(&mut rig, sky_answer(), scope).await;
    let (outcome, _) = receipt(&mut rig, &id).await;
    assert_eq!(
        outcome.save_class(),
        SaveClass::OutcomeUnknown,
        "{outcome:?}"
    );
    assert_eq!(server_state(&rig, "ask-sky-0415").await, "open");
    assert_eq!(rig.server.request_count("POST", ANSWER), 1);
    rig.finish().await;
}

/// §13 drop after apply: outcome unknown; the server shows the answer exactly once (one POST,
/// the Ask answered); never resent.
#[tokio::test(flavor = "current_thread")]
async fn s13_dropped_after_apply_is_outcome_unknown_and_applied_exactly_once() {
    let mut rig = rig_with(post_fault(ANSWER, r#"{"drop":"after_apply"}"#)).await;
    let scope = confirmed_scope(&mut rig).await;
    let id = submit(&mut rig, sky_answer(), scope).await;
    let (outcome, _) = receipt(&mut rig, &id).await;
    assert_eq!(
        outcome.save_class(),
        SaveClass::OutcomeUnknown,
        "{outcome:?}"
    );
    assert_eq!(server_state(&rig, "ask-sky-0415").await, "answered");
    assert_eq!(rig.server.request_count("POST", ANSWER), 1);
    assert_eq!(
        steps(&mut rig, &id),
        ["written", "sending", "ended:outcome_unknown"]
    );
    rig.finish().await;
}

/// §11 common cases: a 5xx not listed for the Ask answer is outcome unknown.
#[tokio::test(flavor = "current_thread")]
async fn s11_a_5xx_is_outcome_unknown() {
    let mut rig = rig_with(post_fault(
        ANSWER,
        r#"{"status":503,"body":{"error":"overloaded"}}"#,
    ))
    .await;
    let scope = confirmed_scope(&mut rig).await;
    let id = submit(&mut rig, sky_answer(), scope).await;
    let (outcome, _) = receipt(&mut rig, &id).await;
    assert!(
        matches!(&outcome, SaveOutcome::OutcomeUnknown { reason } if reason.contains("503")),
        "{outcome:?}"
    );
    assert_eq!(rig.server.request_count("POST", ANSWER), 1);
    rig.finish().await;
}

/// §11: a timeout after the request left is outcome unknown; nothing is resent.
#[tokio::test(flavor = "current_thread")]
async fn s11_a_timeout_is_outcome_unknown_never_resent() {
    let mut rig = start_rig(
        ServeOptions {
            faults: post_fault(ANSWER, r#"{"delay_ms":3000}"#),
            ..ServeOptions::default()
        },
        None,
        Some(Duration::from_millis(300)),
    )
    .await;
    let scope = confirmed_scope(&mut rig).await;
    let id = submit(&mut rig, sky_answer(), scope).await;
    let (outcome, _) = receipt(&mut rig, &id).await;
    assert!(
        matches!(&outcome, SaveOutcome::OutcomeUnknown { reason } if reason.contains("timed out")),
        "{outcome:?}"
    );
    assert_eq!(rig.server.request_count("POST", ANSWER), 1);
    rig.finish().await;
}

/// §11 not applied: a 400 (answers that do not fit the questions) is refused before any
/// effect.
#[tokio::test(flavor = "current_thread")]
async fn s11_an_answer_that_does_not_fit_is_not_applied() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let scope = confirmed_scope(&mut rig).await;
    let mut wrong = sky_answer();
    wrong.answers[0].response = AnswerResponse::Chose {
        choice_ids: vec!["route-1".into(), "route-2".into()],
    };
    let id = submit(&mut rig, wrong, scope).await;
    let (outcome, _) = receipt(&mut rig, &id).await;
    assert_eq!(outcome.save_class(), SaveClass::NotApplied, "{outcome:?}");
    assert_eq!(server_state(&rig, "ask-sky-0415").await, "open");
    rig.finish().await;
}

/// A repeated submit of the same Ask while the first is in flight shares the job: one POST,
/// one receipt, the second traced as refused `duplicate_intent`.
#[tokio::test(flavor = "current_thread")]
async fn h_double_submit_shares_the_job() {
    let mut rig = rig_with(post_fault(ANSWER, r#"{"delay_ms":300}"#)).await;
    let scope = confirmed_scope(&mut rig).await;
    let first = submit(&mut rig, sky_answer(), scope.clone()).await;
    let second = submit(&mut rig, sky_answer(), scope).await;
    let (outcome, _) = receipt(&mut rig, &first).await;
    assert_eq!(outcome.save_class(), SaveClass::Applied);
    assert_eq!(rig.server.request_count("POST", ANSWER), 1);
    let refused = rig
        .recorder
        .records_where(|r| r.source == "save:ask_answer" && r.stage == "refused");
    assert_eq!(refused.len(), 1);
    assert_eq!(refused[0].reason.as_deref(), Some("duplicate_intent"));
    assert!(steps(&mut rig, &second).is_empty(), "no job of its own");
    rig.finish().await;
}

/// K-5: a save submitted under an epoch that is no longer the current one is not sent.
#[tokio::test(flavor = "current_thread")]
async fn k5_a_stale_submit_scope_is_not_sent() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let mut scope = confirmed_scope(&mut rig).await;
    scope.epoch = scope.epoch.saturating_sub(1);
    let id = submit(&mut rig, sky_answer(), scope).await;
    let (outcome, _) = receipt(&mut rig, &id).await;
    assert_eq!(outcome.save_class(), SaveClass::NotSent, "{outcome:?}");
    assert_eq!(rig.server.request_count("POST", ANSWER), 0);
    rig.finish().await;
}

/// K-3, K-5, I-5: the workspace switches while the POST is on the wire. The save finishes
/// under its submit-time scope: its receipt lands in its own slot, names the workspace it was
/// submitted in, and is not "applied" in the new one; nothing is resent.
#[tokio::test(flavor = "current_thread")]
async fn k3_k5_a_workspace_switch_mid_save_keeps_the_receipt_in_the_submit_workspace() {
    let mut rig = rig_with(post_fault(ANSWER, r#"{"delay_ms":600}"#)).await;
    let scope = confirmed_scope(&mut rig).await;
    let id = submit(&mut rig, sky_answer(), scope.clone()).await;
    rig.view
        .wait_slot::<DecisionsSlot, DecisionsObservation>(|e: &Event| {
            matches!(e, SlotEvent::Observed(_, DecisionsObservation::Answer(ev))
                if ev.save_id == id && ev.step == SaveStep::Sending)
        })
        .await
        .expect("sending");
    let base = rig.server.base_path();
    rig.server
        .switch_workspace(&base, &format!("{base}/.masc-other"));
    let (outcome, workspace) = receipt(&mut rig, &id).await;
    assert_eq!(workspace, scope.workspace.0, "the submit-time workspace");
    assert_ne!(outcome.save_class(), SaveClass::Applied, "{outcome:?}");
    let ticket = rig
        .view
        .slot_events::<DecisionsSlot, DecisionsObservation>()
        .iter()
        .find_map(|e| match e {
            SlotEvent::Observed(t, DecisionsObservation::Answer(ev))
                if ev.save_id == id && matches!(ev.step, SaveStep::Ended(_)) =>
            {
                Some(t.clone())
            }
            _ => None,
        })
        .unwrap();
    assert_eq!(ticket.scope, scope, "completion uses the submit-time scope");
    assert_eq!(rig.server.request_count("POST", ANSWER), 1);
    rig.finish().await;
}
