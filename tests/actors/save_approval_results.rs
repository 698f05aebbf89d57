//! The approval decision's applied-but-not-ran results and the 400 MASC sends after it has already
//! removed the approval, on the embedded server's seeded approvals (protocol.md §10.5 "MASC's
//! order", §11 "Approval decision"; sources.md H-6, H-15, I-2, K-1): each a typed receipt of its
//! own, the outbox row, the steps on the save's own slot, the traced stages, and what the server
//! holds afterwards.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code
use crate::actor_support::rig_with;
use crate::save_approval::{
    CONFIRM, confirmed_scope, listed, receipt, settled_as, settled_row, stages, steps, submit,
};
use masc_tui::actors::decisions::approval::DecisionIntent;
use masc_tui::outbox::SaveRowState;
use masc_tui::protocol::operator::{ActionType, Decision, DecisionResult};
use masc_tui::protocol::outcome::{SaveClass, SaveOutcome};
use masc_tui::server::faults::FaultPlan;

/// Seeded: `broadcast`, pending; confirming it answers `deferred` (delivery pending).
const BROADCAST: &str = "opc_19c4d7e0";
/// Seeded: `keeper_recover` of juno, pending; confirming it answers `error` (HTTP 200).
const RECOVER: &str = "opc_7a21f03b";
/// Seeded: `keeper_message` to retired-bot; confirming it fails after the removal (HTTP 400).
const MESSAGE: &str = "opc_c3e98d14";

fn confirm(token: &str, action_type: ActionType, target_id: Option<&str>) -> DecisionIntent {
    DecisionIntent {
        confirm_token: token.into(),
        decision: Decision::Confirm,
        action_type,
        target_id: target_id.map(str::to_string),
        expires_at: None,
    }
}

/// §10.5, §11, H-6: `deferred` and `error` replies are applied — the approval is consumed —
/// each with its own result and a warning (delivery pending; the action reported failure),
/// distinct from a plain run; each POST made once.
#[tokio::test(flavor = "current_thread")]
async fn s11_deferred_and_action_failed_are_applied_with_their_own_warning() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let scope = confirmed_scope(&mut rig).await;

    let deferred = confirm(BROADCAST, ActionType::Broadcast, None);
    let id = submit(&mut rig, deferred.clone(), scope.clone()).await;
    match receipt(&mut rig, &id).await {
        SaveOutcome::Applied { detail, warning } => {
            assert!(
                matches!(detail.result, DecisionResult::Deferred { .. }),
                "{:?}",
                detail.result
            );
            assert!(warning.is_some(), "delivery pending is said");
        }
        other => panic!("not applied: {other:?}"),
    }
    assert!(!listed(&rig.server, BROADCAST).await, "consumed");
    assert_eq!(
        steps(&mut rig, &id),
        ["written", "sending", "ended:applied"]
    );
    assert_eq!(
        settled_row(&rig, &id, &deferred, &scope).state,
        SaveRowState::Settled(SaveClass::Applied)
    );

    let failed = confirm(RECOVER, ActionType::KeeperRecover, Some("juno"));
    let id = submit(&mut rig, failed.clone(), scope.clone()).await;
    match receipt(&mut rig, &id).await {
        SaveOutcome::Applied { detail, warning } => {
            assert!(
                matches!(detail.result, DecisionResult::Failed { .. }),
                "{:?}",
                detail.result
            );
            assert!(warning.is_some(), "the action's failure is said");
        }
        other => panic!("not applied: {other:?}"),
    }
    assert!(!listed(&rig.server, RECOVER).await, "consumed");
    assert_eq!(
        steps(&mut rig, &id),
        ["written", "sending", "ended:applied"]
    );
    assert_eq!(
        settled_row(&rig, &id, &failed, &scope).state,
        SaveRowState::Settled(SaveClass::Applied)
    );

    assert_eq!(rig.server.request_count("POST", CONFIRM), 2);
    assert_eq!(
        stages(&rig),
        [
            "dispatch:",
            "worker_enter:",
            "worker_return:ok",
            "dispatch:",
            "worker_enter:",
            "worker_return:ok"
        ]
    );
    rig.finish().await;
}

/// §10.5 "a failure during or after the removal is also a 400", §11, H-15, I-2: MASC removed
/// the approval, then the action failed and the reply is a 400 whose message is none of the
/// refusals: the client cannot tell whether anything ran, so the receipt is outcome unknown
/// (never resent), although the server no longer lists the approval.
#[tokio::test(flavor = "current_thread")]
async fn s11_a_400_after_the_removal_is_outcome_unknown_and_never_resent() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let scope = confirmed_scope(&mut rig).await;
    let intent = confirm(MESSAGE, ActionType::KeeperMessage, Some("retired-bot"));
    let id = submit(&mut rig, intent.clone(), scope.clone()).await;
    let r = receipt(&mut rig, &id).await;
    assert_eq!(r.save_class(), SaveClass::OutcomeUnknown, "{r:?}");
    assert_eq!(rig.server.request_count("POST", CONFIRM), 1, "never resent");
    assert!(!listed(&rig.server, MESSAGE).await, "the removal happened");
    settled_as(
        &mut rig,
        &id,
        &intent,
        &scope,
        SaveClass::OutcomeUnknown,
        "outcome_unknown",
    );
    rig.finish().await;
}
