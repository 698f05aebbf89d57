//! Held tool calls on the embedded server (protocol.md §14.5, §11; chat-screen.md
//! C-44, C-53): the list read as its own slot of the Decisions source, and the answer as save
//! kind `held_call_decision` — one test per outcome and fault, each asserting the typed
//! receipt, the steps on the save's own slot, the traced stages (source
//! `save:held_call_decision`), how many POSTs the server saw and what it still holds — never
//! wording.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code
use crate::actor_support::{Rig, post_fault, rig_on_release, rig_with};
use crate::save_rig::{confirmed_scope, step_name};
use masc_tui::actors::contract::SlotEvent;
use masc_tui::actors::decisions::held_call::{HeldCallDecision, HeldCallIntent};
use masc_tui::actors::decisions::{DecisionsObservation, DecisionsSlot};
use masc_tui::actors::saves::{SaveId, SaveStep};
use masc_tui::protocol::admission::ReadScope;
use masc_tui::protocol::client::ClientError;
use masc_tui::protocol::held_calls::{
    HeldCallDecisionOutcome, HeldCallEffect, NothingWaiting, ToolCallVerdict,
};
use masc_tui::protocol::outcome::{ROUTE_NOT_SERVED, SaveClass, SaveOutcome};
use masc_tui::server::RunningServer;
use masc_tui::server::compat::MascRelease;
use masc_tui::server::faults::FaultPlan;
use masc_tui::server::store::held_calls;

type Event = SlotEvent<DecisionsSlot, DecisionsObservation>;

const ANSWER: &str = "/api/v1/keepers/tool-approval";
/// Seeded: rondo's `bash` call, waiting for an hour after the store was seeded.
const HELD: &str = "call-rondo-held-1";

fn intent(decision: ToolCallVerdict) -> HeldCallIntent {
    HeldCallIntent {
        keeper: "rondo".into(),
        tool_call_id: HELD.into(),
        tool: "bash".into(),
        decision,
    }
}

async fn submit(rig: &mut Rig, intent: HeldCallIntent, scope: ReadScope) -> SaveId {
    crate::save_rig::submit::<HeldCallDecision>(rig, intent, scope).await
}

async fn receipt(rig: &mut Rig, id: &SaveId) -> HeldCallDecisionOutcome {
    let ended = rig
        .view
        .wait_slot::<DecisionsSlot, DecisionsObservation>(|e: &Event| {
            matches!(e, SlotEvent::Observed(_, DecisionsObservation::HeldCallDecision(ev))
                if ev.save_id == *id && matches!(ev.step, SaveStep::Ended(_)))
        })
        .await;
    match ended {
        Some(SlotEvent::Observed(_, DecisionsObservation::HeldCallDecision(ev))) => {
            match &ev.step {
                SaveStep::Ended(r) => r.clone(),
                other => panic!("not a receipt: {other:?}"),
            }
        }
        other => panic!("no receipt: {other:?}"),
    }
}

/// The steps posted on the save's own slot, in order.
fn steps(rig: &mut Rig, id: &SaveId) -> Vec<String> {
    rig.view
        .slot_events::<DecisionsSlot, DecisionsObservation>()
        .iter()
        .filter_map(|e| match e {
            SlotEvent::Observed(t, DecisionsObservation::HeldCallDecision(ev))
                if ev.save_id == *id =>
            {
                assert_eq!(
                    t.slot,
                    DecisionsSlot::HeldCallDecision(id.clone()),
                    "a save's steps land in its own slot"
                );
                Some(step_name(&ev.step))
            }
            _ => None,
        })
        .collect()
}

fn stages(rig: &Rig) -> Vec<String> {
    crate::save_rig::stages(rig, "held_call_decision")
}

/// Whether the server still holds rondo's call waiting (read from its store).
async fn still_held(server: &RunningServer) -> bool {
    server
        .state()
        .store()
        .read(|c| held_calls::waiting(c, masc_tui::server::store::now_unix()))
        .await
        .unwrap()
        .iter()
        .any(|c| c.keeper == "rondo" && c.tool_call_id == HELD)
}

fn answer_fault(fault: &str) -> FaultPlan {
    post_fault(ANSWER, fault)
}

/// §14.5: the held calls are one standing read of the Decisions source (its own slot and
/// ticket), every Keeper's calls, oldest first as the server sent them.
#[tokio::test(flavor = "current_thread")]
async fn s14_5_the_held_calls_are_their_own_read_every_keeper_oldest_first() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let _ = confirmed_scope(&mut rig).await;
    let obs = rig
        .observed_of::<DecisionsSlot, DecisionsObservation>(&DecisionsSlot::HeldCalls)
        .await;
    let DecisionsObservation::HeldCalls(Ok(list)) = obs.payload else {
        panic!("{:?}", obs.payload);
    };
    let ids: Vec<&str> = list
        .value
        .pending
        .iter()
        .map(|c| c.tool_call_id.as_str())
        .collect();
    assert_eq!(
        ids,
        ["call-rondo-held-1", "call-rondo-held-2", "call-mira-held-1"]
    );
    assert_eq!(list.value.of_keeper("rondo").count(), 2);
    let traced = rig
        .recorder
        .records_where(|r| r.source == "held_tool_calls");
    let stages: Vec<&str> = traced.iter().map(|r| r.stage.as_str()).collect();
    assert!(
        stages.contains(&"dispatch") && stages.contains(&"observe"),
        "traced under its own slot: {stages:?}"
    );
    rig.finish().await;
}

/// §11, §14.5: an approval releases the waiting call, sent once, landing once in its own
/// slot; a second answer to the same call finds nothing waiting (a conflict, not an error).
#[tokio::test(flavor = "current_thread")]
async fn s11_an_approval_releases_the_call_once_then_nothing_is_waiting() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let scope = confirmed_scope(&mut rig).await;
    assert!(still_held(&rig.server).await);
    let id = submit(&mut rig, intent(ToolCallVerdict::Approve), scope.clone()).await;
    match receipt(&mut rig, &id).await {
        SaveOutcome::Applied { detail, warning } => {
            assert_eq!(detail.effect, HeldCallEffect::Released);
            assert_eq!(detail.decision, ToolCallVerdict::Approve);
            assert_eq!(warning, None);
        }
        other => panic!("not applied: {other:?}"),
    }
    assert_eq!(rig.server.request_count("POST", ANSWER), 1);
    assert!(!still_held(&rig.server).await, "released");
    assert_eq!(
        steps(&mut rig, &id),
        ["written", "sending", "ended:applied"]
    );
    assert_eq!(
        stages(&rig),
        ["dispatch:", "worker_enter:", "worker_return:ok"]
    );
    let again = submit(&mut rig, intent(ToolCallVerdict::Deny), scope).await;
    assert_eq!(
        receipt(&mut rig, &again).await,
        SaveOutcome::Conflict {
            current: NothingWaiting
        }
    );
    assert_eq!(rig.server.request_count("POST", ANSWER), 2);
    rig.finish().await;
}

/// H-15, §11, §13: a connection dropped before or after the handler, and a 5xx, are outcome
/// unknown — one POST each, never resent; what the server holds says which it was.
#[tokio::test(flavor = "current_thread")]
async fn s11_dropped_or_5xx_answers_are_unknown_and_never_resent() {
    for (fault, held_after) in [
        (r#"{"drop":"before_apply"}"#, true),
        (r#"{"drop":"after_apply"}"#, false),
        (r#"{"status":503,"body":"{\"error\":\"busy\"}"}"#, true),
    ] {
        let mut rig = rig_with(answer_fault(fault)).await;
        let scope = confirmed_scope(&mut rig).await;
        let id = submit(&mut rig, intent(ToolCallVerdict::Deny), scope).await;
        let r = receipt(&mut rig, &id).await;
        assert_eq!(r.save_class(), SaveClass::OutcomeUnknown, "{fault}: {r:?}");
        assert_eq!(
            rig.server.request_count("POST", ANSWER),
            1,
            "{fault}: never resent"
        );
        assert_eq!(still_held(&rig.server).await, held_after, "{fault}");
        assert_eq!(
            steps(&mut rig, &id),
            ["written", "sending", "ended:outcome_unknown"],
            "{fault}"
        );
        rig.finish().await;
    }
}

/// §14.5 (404 as §14.4): an answer for a Keeper the server does not know is refused before
/// any effect: not applied, sent once.
#[tokio::test(flavor = "current_thread")]
async fn s11_an_answer_for_an_unknown_keeper_is_not_applied() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let scope = confirmed_scope(&mut rig).await;
    let ghost = HeldCallIntent {
        keeper: "ghost".into(),
        ..intent(ToolCallVerdict::Approve)
    };
    let id = submit(&mut rig, ghost, scope).await;
    assert_eq!(
        receipt(&mut rig, &id).await,
        SaveOutcome::NotApplied {
            reason: "HTTP 404: keeper not registered".into()
        }
    );
    assert_eq!(rig.server.request_count("POST", ANSWER), 1);
    assert!(still_held(&rig.server).await, "rondo's call is untouched");
    rig.finish().await;
}

/// §14.5 on an older MASC: a MASC without the routes (v0.24.0) answers the list as not served —
/// never an empty list — and an answer is not applied, naming the absent route.
#[tokio::test(flavor = "current_thread")]
async fn s14_5_a_masc_without_the_routes_is_not_served_never_empty() {
    let mut rig = rig_on_release(MascRelease::V0_24_0).await;
    let scope = confirmed_scope(&mut rig).await;
    let obs = rig
        .observed_of::<DecisionsSlot, DecisionsObservation>(&DecisionsSlot::HeldCalls)
        .await;
    assert!(
        matches!(
            obs.payload,
            DecisionsObservation::HeldCalls(Err(ClientError::NotServed { .. }))
        ),
        "{:?}",
        obs.payload
    );
    let id = submit(&mut rig, intent(ToolCallVerdict::Approve), scope).await;
    assert_eq!(
        receipt(&mut rig, &id).await,
        SaveOutcome::NotApplied {
            reason: ROUTE_NOT_SERVED.into()
        }
    );
    rig.finish().await;
}
