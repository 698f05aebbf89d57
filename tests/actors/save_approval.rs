//! The approval decision save on the embedded server (issue 9; protocol.md §10.5, §11;
//! sources.md H-5, H-15, K-1, K-5): typed receipts, the outbox row, the traced stages.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code
use crate::actor_support::{Rig, rig_with};
use masc_tui::actors::contract::{IdentityState, SlotEvent, SourceEvent};
use masc_tui::actors::decisions::approval::{ApprovalDecision, DecisionIntent};
use masc_tui::actors::decisions::{DecisionsObservation, DecisionsSlot};
use masc_tui::actors::saves::hub::Save;
use masc_tui::actors::saves::{SAVES, SaveCommand, SaveId, SaveStep};
use masc_tui::protocol::admission::ReadScope;
use masc_tui::protocol::operator::{ActionType, Decision, DecisionResult};
use masc_tui::protocol::outcome::SaveOutcome;
use masc_tui::server::faults::FaultPlan;

type Event = SlotEvent<DecisionsSlot, DecisionsObservation>;

const CONFIRM: &str = "/api/v1/operator/confirm";

async fn confirmed_scope(rig: &mut Rig) -> ReadScope {
    match rig
        .view
        .wait_event(|e| matches!(e, SourceEvent::Identity(IdentityState::Confirmed { .. })))
        .await
    {
        Some(SourceEvent::Identity(IdentityState::Confirmed { scope, .. })) => scope.clone(),
        other => panic!("no confirmation: {other:?}"),
    }
}

fn probe_intent(decision: Decision) -> DecisionIntent {
    DecisionIntent {
        confirm_token: "opc_0e5f6a71".into(),
        decision,
        action_type: ActionType::KeeperProbe,
        target_id: Some("rondo".into()),
        expires_at: None,
    }
}

async fn submit(rig: &mut Rig, intent: DecisionIntent, scope: ReadScope) -> SaveId {
    let hub = rig
        .source_handle(SAVES)
        .await
        .commands::<SaveCommand>()
        .expect("the save hub takes SaveCommand");
    let id = SaveId::fresh();
    hub.send_message(SaveCommand::Submit(Save::<ApprovalDecision>::submission(
        id.clone(),
        intent,
        scope,
    )))
    .unwrap();
    id
}

/// The receipt of `id` (its `Ended` step).
async fn receipt(
    rig: &mut Rig,
    id: &SaveId,
) -> SaveOutcome<
    masc_tui::protocol::operator::ApprovalDecisionReply,
    masc_tui::protocol::outcome::NoLongerPending,
> {
    let ended = rig
        .view
        .wait_slot::<DecisionsSlot, DecisionsObservation>(|e: &Event| {
            matches!(e, SlotEvent::Observed(_, DecisionsObservation::Decision(ev))
                if ev.save_id == *id && matches!(ev.step, SaveStep::Ended(_)))
        })
        .await;
    match ended {
        Some(SlotEvent::Observed(_, DecisionsObservation::Decision(ev))) => match &ev.step {
            SaveStep::Ended(r) => r.clone(),
            other => panic!("not a receipt: {other:?}"),
        },
        other => panic!("no receipt: {other:?}"),
    }
}

/// §11 approval decision, applied: a deny removes the approval and nothing runs; the receipt
/// lands once in the save's own slot; the POST is made exactly once; the outbox row settles.
#[tokio::test(flavor = "current_thread")]
async fn s11_a_deny_is_applied_once_and_lands_in_its_own_slot() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let scope = confirmed_scope(&mut rig).await;
    let id = submit(&mut rig, probe_intent(Decision::Deny), scope).await;
    match receipt(&mut rig, &id).await {
        SaveOutcome::Applied { detail, warning } => {
            assert_eq!(detail.result, DecisionResult::Denied);
            assert_eq!(warning, None);
        }
        other => panic!("not applied: {other:?}"),
    }
    assert_eq!(rig.server.request_count("POST", CONFIRM), 1);
    let steps: Vec<String> = rig
        .view
        .slot_events::<DecisionsSlot, DecisionsObservation>()
        .iter()
        .filter_map(|e| match e {
            SlotEvent::Observed(t, DecisionsObservation::Decision(ev))
                if t.slot == DecisionsSlot::Decision(id.clone()) =>
            {
                Some(match &ev.step {
                    SaveStep::Written => "written".to_string(),
                    SaveStep::Sending => "sending".to_string(),
                    SaveStep::Ended(r) => format!("ended:{}", r.class()),
                    SaveStep::Restored(r) => format!("restored:{}", r.class()),
                })
            }
            _ => None,
        })
        .collect();
    assert_eq!(steps, ["written", "sending", "ended:applied"]);
    let stages: Vec<String> = rig
        .recorder
        .records_where(|r| r.source == "save:approval_decision")
        .iter()
        .map(|r| format!("{}:{}", r.stage, r.outcome.clone().unwrap_or_default()))
        .collect();
    assert_eq!(stages, ["dispatch:", "worker_enter:", "worker_return:ok"]);
    rig.finish().await;
}
