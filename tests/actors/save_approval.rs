//! The approval decision save on the embedded server (protocol.md §10.5, §11
//! "Approval decision"; sources.md H-4, H-5, H-15, I-2, K-1, K-5): one test per outcome and
//! fault, each asserting the typed receipt, the outbox row, the steps on the save's own slot,
//! the traced stages (source `save:approval_decision`) and what the server holds afterwards
//! (the approval still listed or gone, how many POSTs it saw, how often the action ran) —
//! never wording. The workspace switch and the process kill are in `save_approval_model` and
//! `save_approval_crash`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code
use crate::actor_support::{Rig, post_fault, rig_with, start_rig};
pub use crate::save_rig::confirmed_scope;
use crate::save_rig::step_name;
use masc_tui::actors::contract::SlotEvent;
use masc_tui::actors::decisions::approval::{ApprovalDecision, DecisionIntent};
use masc_tui::actors::decisions::{DecisionsObservation, DecisionsSlot};
use masc_tui::actors::saves::{SaveId, SaveStep};
use masc_tui::outbox::{Outbox, SaveRow, SaveRowState};
use masc_tui::protocol::admission::{ReadScope, WorkspaceId};
use masc_tui::protocol::operator::{ActionType, Decision, DecisionResult};
use masc_tui::protocol::outcome::{ApprovalDecisionOutcome, SaveClass, SaveOutcome};
use masc_tui::server::faults::FaultPlan;
use masc_tui::server::store::operator;
use masc_tui::server::{RunningServer, ServeOptions};
use std::time::Duration;

type Event = SlotEvent<DecisionsSlot, DecisionsObservation>;

pub const CONFIRM: &str = "/api/v1/operator/confirm";
/// Seeded: `keeper_probe` of rondo, pending (protocol.md §10.5 table).
pub const PROBE: &str = "opc_0e5f6a71";
/// Seeded: `task_inject`, pending, no expiry; confirming it numbers one injected task.
pub const INJECT: &str = "opc_9d3b2c48";
/// Seeded: `namespace_resume`, expired long ago and still listed by the server.
pub const EXPIRED: &str = "opc_e1f2a3b4";

pub fn probe_intent(decision: Decision) -> DecisionIntent {
    DecisionIntent {
        confirm_token: PROBE.into(),
        decision,
        action_type: ActionType::KeeperProbe,
        target_id: Some("rondo".into()),
        expires_at: None,
    }
}

pub fn inject_intent(decision: Decision) -> DecisionIntent {
    DecisionIntent {
        confirm_token: INJECT.into(),
        decision,
        action_type: ActionType::TaskInject,
        target_id: None,
        expires_at: None,
    }
}

fn expired_intent() -> DecisionIntent {
    DecisionIntent {
        confirm_token: EXPIRED.into(),
        decision: Decision::Confirm,
        action_type: ActionType::NamespaceResume,
        target_id: None,
        expires_at: None,
    }
}

pub async fn submit(rig: &mut Rig, intent: DecisionIntent, scope: ReadScope) -> SaveId {
    crate::save_rig::submit::<ApprovalDecision>(rig, intent, scope).await
}

fn is_step_of(
    e: &Event,
    id: &SaveId,
    step: fn(&SaveStep<ApprovalDecisionOutcome>) -> bool,
) -> bool {
    matches!(e, SlotEvent::Observed(_, DecisionsObservation::Decision(ev))
        if ev.save_id == *id && step(&ev.step))
}

/// The receipt of `id` (its `Ended` step).
pub async fn receipt(rig: &mut Rig, id: &SaveId) -> ApprovalDecisionOutcome {
    let ended = rig
        .view
        .wait_slot::<DecisionsSlot, DecisionsObservation>(|e: &Event| {
            is_step_of(e, id, |s| matches!(s, SaveStep::Ended(_)))
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

/// Waits until the save `id` says its request may be on the wire.
async fn sending(rig: &mut Rig, id: &SaveId) {
    let seen = rig
        .view
        .wait_slot::<DecisionsSlot, DecisionsObservation>(|e: &Event| {
            is_step_of(e, id, |s| matches!(s, SaveStep::Sending))
        })
        .await;
    assert!(seen.is_some(), "no sending step of {id}");
}

/// The steps posted on the save's own slot, in order.
pub fn steps(rig: &mut Rig, id: &SaveId) -> Vec<String> {
    rig.view
        .slot_events::<DecisionsSlot, DecisionsObservation>()
        .iter()
        .filter_map(|e| match e {
            SlotEvent::Observed(t, DecisionsObservation::Decision(ev)) if ev.save_id == *id => {
                assert_eq!(
                    t.slot,
                    DecisionsSlot::Decision(id.clone()),
                    "a save's steps land in its own slot"
                );
                Some(step_name(&ev.step))
            }
            _ => None,
        })
        .collect()
}

/// The stage records of source `save:approval_decision`, as `stage:outcome` (a refusal as
/// `refused:<reason>`).
pub fn stages(rig: &Rig) -> Vec<String> {
    rig.recorder
        .records_where(|r| r.source == "save:approval_decision")
        .iter()
        .map(|r| {
            let what = r.outcome.clone().or_else(|| r.reason.clone());
            format!("{}:{}", r.stage, what.unwrap_or_default())
        })
        .collect()
}

fn row(rig: &Rig, id: &SaveId) -> Option<SaveRow> {
    Outbox::open_path(&rig.outbox_path)
        .unwrap()
        .save_row(&id.0)
        .unwrap()
}

/// The settled outbox row of `id`, checked against what was submitted.
pub fn settled_row(rig: &Rig, id: &SaveId, intent: &DecisionIntent, scope: &ReadScope) -> SaveRow {
    let row = row(rig, id).expect("the save was written to the outbox");
    assert_eq!(row.kind, "approval_decision");
    assert_eq!(row.workspace, scope.workspace.0);
    assert_eq!(row.target, intent.confirm_token);
    assert_eq!(row.intent_key, intent.confirm_token);
    assert_eq!(
        serde_json::from_str::<DecisionIntent>(&row.intent).unwrap(),
        *intent,
        "the inputs are stored verbatim"
    );
    row
}

/// The trail of a save sent once and settled as `class`: its own slot saw `written`,
/// `sending` and the receipt; the kind traced dispatch, worker enter and a worker return with
/// `traced` (`ok` for an applied one); the outbox row holds what was submitted, settled as
/// `class`.
#[track_caller]
pub fn settled_as(
    rig: &mut Rig,
    id: &SaveId,
    intent: &DecisionIntent,
    scope: &ReadScope,
    class: SaveClass,
    traced: &str,
) {
    let ended = format!("ended:{}", class.as_str());
    assert_eq!(steps(rig, id), ["written", "sending", ended.as_str()]);
    let returned = format!("worker_return:{traced}");
    assert_eq!(
        stages(rig),
        ["dispatch:", "worker_enter:", returned.as_str()]
    );
    let row = settled_row(rig, id, intent, scope);
    assert_eq!(row.state, SaveRowState::Settled(class));
}

/// Whether the server still holds `token` as pending (read from its store, not over HTTP:
/// no fault and no request counter is involved).
pub async fn listed(server: &RunningServer, token: &str) -> bool {
    let token = token.to_string();
    server
        .state()
        .store()
        .read(move |c| operator::find(c, &token))
        .await
        .unwrap()
        .is_some()
}

/// How many tasks confirmed `task_inject` actions have injected (each run numbers one).
pub async fn injected_tasks(server: &RunningServer) -> i64 {
    server
        .state()
        .store()
        .read(|c| {
            Ok(c.query_row(
                "SELECT injected_tasks FROM operator_state WHERE id = 1",
                [],
                |r| r.get::<_, i64>(0),
            )?)
        })
        .await
        .unwrap()
}

/// Holds the server's store (one connection behind a lock) until the returned sender sends or
/// drops: a POST that reaches its handler waits there, with no timing involved.
pub async fn hold_store(server: &RunningServer) -> std::sync::mpsc::Sender<()> {
    let (release, released) = std::sync::mpsc::channel::<()>();
    let (held_tx, held) = tokio::sync::oneshot::channel::<()>();
    let store = server.state().store().clone();
    tokio::spawn(async move {
        let _ = store
            .write(move |_tx| {
                let _ = held_tx.send(());
                let _ = released.recv();
                Ok(())
            })
            .await;
    });
    held.await.expect("the store was taken");
    release
}

fn confirm_fault(fault: &str) -> FaultPlan {
    post_fault(CONFIRM, fault)
}

/// §11 approval decision, applied: a deny removes the approval and nothing runs; the receipt
/// lands once in the save's own slot; the POST is made exactly once; the outbox row settles.
#[tokio::test(flavor = "current_thread")]
async fn s11_a_deny_is_applied_once_and_lands_in_its_own_slot() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let scope = confirmed_scope(&mut rig).await;
    let intent = probe_intent(Decision::Deny);
    let id = submit(&mut rig, intent.clone(), scope.clone()).await;
    match receipt(&mut rig, &id).await {
        SaveOutcome::Applied { detail, warning } => {
            assert_eq!(detail.result, DecisionResult::Denied);
            assert_eq!(detail.executed_action.confirm_token, PROBE);
            assert_eq!(warning, None);
        }
        other => panic!("not applied: {other:?}"),
    }
    assert_eq!(rig.server.request_count("POST", CONFIRM), 1);
    assert!(!listed(&rig.server, PROBE).await, "the deny removed it");
    settled_as(&mut rig, &id, &intent, &scope, SaveClass::Applied, "ok");
    rig.finish().await;
}

/// §11: a confirm whose action ran is applied; the server ran the action exactly once.
#[tokio::test(flavor = "current_thread")]
async fn s11_a_confirm_is_applied_and_its_action_ran_once() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let scope = confirmed_scope(&mut rig).await;
    let intent = inject_intent(Decision::Confirm);
    let id = submit(&mut rig, intent.clone(), scope.clone()).await;
    match receipt(&mut rig, &id).await {
        SaveOutcome::Applied { detail, warning } => {
            assert!(
                matches!(detail.result, DecisionResult::Ran { .. }),
                "{:?}",
                detail.result
            );
            assert_eq!(detail.executed_action.confirm_token, INJECT);
            assert_eq!(warning, None);
        }
        other => panic!("not applied: {other:?}"),
    }
    assert_eq!(rig.server.request_count("POST", CONFIRM), 1);
    assert_eq!(injected_tasks(&rig.server).await, 1, "the action ran once");
    assert!(!listed(&rig.server, INJECT).await);
    settled_as(&mut rig, &id, &intent, &scope, SaveClass::Applied, "ok");
    rig.finish().await;
}

/// H-15, I-2, §11: the connection closed before the handler ran — the client cannot know
/// that, so the receipt is outcome unknown (never resent); the server still lists the
/// approval and ran nothing.
#[tokio::test(flavor = "current_thread")]
async fn h15_dropped_before_apply_is_outcome_unknown_and_nothing_was_applied() {
    let mut rig = rig_with(confirm_fault(r#"{"drop":"before_apply"}"#)).await;
    let scope = confirmed_scope(&mut rig).await;
    let intent = inject_intent(Decision::Confirm);
    let id = submit(&mut rig, intent.clone(), scope.clone()).await;
    let r = receipt(&mut rig, &id).await;
    assert_eq!(r.save_class(), SaveClass::OutcomeUnknown, "{r:?}");
    assert_eq!(rig.server.request_count("POST", CONFIRM), 1, "never resent");
    assert!(listed(&rig.server, INJECT).await, "nothing was applied");
    assert_eq!(injected_tasks(&rig.server).await, 0);
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

/// H-15, §11, §13 "drop after applying": the decision was committed and the action ran, then
/// the connection closed: outcome unknown, and the server applied it exactly once (the
/// approval is gone, one POST, one run).
#[tokio::test(flavor = "current_thread")]
async fn h15_dropped_after_apply_is_outcome_unknown_and_applied_exactly_once() {
    let mut rig = rig_with(confirm_fault(r#"{"drop":"after_apply"}"#)).await;
    let scope = confirmed_scope(&mut rig).await;
    let intent = inject_intent(Decision::Confirm);
    let id = submit(&mut rig, intent.clone(), scope.clone()).await;
    let r = receipt(&mut rig, &id).await;
    assert_eq!(r.save_class(), SaveClass::OutcomeUnknown, "{r:?}");
    assert_eq!(rig.server.request_count("POST", CONFIRM), 1, "never resent");
    assert!(!listed(&rig.server, INJECT).await, "applied");
    assert_eq!(injected_tasks(&rig.server).await, 1, "exactly once");
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

/// §11: a token no longer pending (decided elsewhere between the list and the send) is a
/// conflict: nothing ran for this request.
#[tokio::test(flavor = "current_thread")]
async fn s11_a_token_no_longer_pending_is_a_conflict() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let scope = confirmed_scope(&mut rig).await;
    // Decided elsewhere: the approval leaves the server's store.
    rig.server
        .state()
        .store()
        .write(|tx| operator::remove(tx, INJECT, masc_tui::server::store::now_unix() as i64))
        .await
        .unwrap();
    let intent = inject_intent(Decision::Confirm);
    let id = submit(&mut rig, intent.clone(), scope.clone()).await;
    let r = receipt(&mut rig, &id).await;
    assert_eq!(r.save_class(), SaveClass::Conflict, "{r:?}");
    assert_eq!(rig.server.request_count("POST", CONFIRM), 1);
    assert_eq!(injected_tasks(&rig.server).await, 0, "nothing ran");
    settled_as(
        &mut rig,
        &id,
        &intent,
        &scope,
        SaveClass::Conflict,
        "conflict",
    );
    rig.finish().await;
}

/// §10.5, §11: the seeded approval the server still lists after it expired is not applied
/// with the server's `pending confirmation expired`; the server drops it and nothing runs.
#[tokio::test(flavor = "current_thread")]
async fn s11_the_expired_approval_is_not_applied_and_dropped() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let scope = confirmed_scope(&mut rig).await;
    assert!(
        listed(&rig.server, EXPIRED).await,
        "seeded, expired, listed"
    );
    let intent = expired_intent();
    let id = submit(&mut rig, intent.clone(), scope.clone()).await;
    match receipt(&mut rig, &id).await {
        SaveOutcome::NotApplied { reason } => {
            // The server's §10.5 message, carried as the reason (a protocol value).
            assert!(reason.contains("pending confirmation expired"), "{reason}");
        }
        other => panic!("not `not applied`: {other:?}"),
    }
    assert_eq!(rig.server.request_count("POST", CONFIRM), 1);
    assert!(!listed(&rig.server, EXPIRED).await, "the server dropped it");
    settled_as(
        &mut rig,
        &id,
        &intent,
        &scope,
        SaveClass::NotApplied,
        "not_applied",
    );
    rig.finish().await;
}

/// §11 common cases: a 5xx the kind does not list is outcome unknown (here the handler never
/// ran, but the client cannot know that); never resent.
#[tokio::test(flavor = "current_thread")]
async fn h15_a_500_is_outcome_unknown() {
    let mut rig = rig_with(confirm_fault(
        r#"{"status":500,"body":{"error":"internal"}}"#,
    ))
    .await;
    let scope = confirmed_scope(&mut rig).await;
    let intent = inject_intent(Decision::Confirm);
    let id = submit(&mut rig, intent.clone(), scope.clone()).await;
    let r = receipt(&mut rig, &id).await;
    assert_eq!(r.save_class(), SaveClass::OutcomeUnknown, "{r:?}");
    assert_eq!(rig.server.request_count("POST", CONFIRM), 1, "never resent");
    assert!(listed(&rig.server, INJECT).await);
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

/// §11, I-2: the client's own timeout (a short one here) while the server holds the POST is
/// outcome unknown; never resent.
#[tokio::test(flavor = "current_thread")]
async fn h15_a_timeout_is_outcome_unknown() {
    let mut rig = start_rig(
        ServeOptions {
            faults: confirm_fault(r#"{"delay_ms":600000}"#),
            ..ServeOptions::default()
        },
        None,
        Some(Duration::from_secs(2)),
    )
    .await;
    let scope = confirmed_scope(&mut rig).await;
    let intent = inject_intent(Decision::Confirm);
    let id = submit(&mut rig, intent.clone(), scope.clone()).await;
    let r = receipt(&mut rig, &id).await;
    assert_eq!(r.save_class(), SaveClass::OutcomeUnknown, "{r:?}");
    assert_eq!(rig.server.request_count("POST", CONFIRM), 1, "never resent");
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

/// H-4, §10.5 "one decision in flight at a time": a second submit of the same intent while
/// the first is in flight shares the job — the hub refuses it (`duplicate_intent`, traced),
/// it writes no row and posts nothing, and the server sees one POST.
#[tokio::test(flavor = "current_thread")]
async fn h4_a_repeated_submit_while_in_flight_shares_the_job() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let scope = confirmed_scope(&mut rig).await;
    let release = hold_store(&rig.server).await;
    let intent = probe_intent(Decision::Confirm);
    let first = submit(&mut rig, intent.clone(), scope.clone()).await;
    sending(&mut rig, &first).await;
    let second = submit(&mut rig, intent.clone(), scope.clone()).await;
    // The hub handles its mailbox in order: once a later submit's receipt lands, the second
    // one has been handled. (This one is refused before sending: a stale scope, K-5.)
    let stale = ReadScope {
        epoch: scope.epoch + 1,
        ..scope.clone()
    };
    let marker = submit(&mut rig, inject_intent(Decision::Deny), stale).await;
    assert_eq!(
        receipt(&mut rig, &marker).await.save_class(),
        SaveClass::NotSent
    );
    let refused: Vec<String> = stages(&rig)
        .into_iter()
        .filter(|s| s.starts_with("refused:"))
        .collect();
    assert_eq!(refused, ["refused:duplicate_intent", "refused:no_epoch"]);
    release.send(()).unwrap();
    match receipt(&mut rig, &first).await {
        SaveOutcome::Applied { detail, .. } => {
            assert!(matches!(detail.result, DecisionResult::Ran { .. }));
        }
        other => panic!("not applied: {other:?}"),
    }
    assert_eq!(rig.server.request_count("POST", CONFIRM), 1, "one job");
    assert!(
        steps(&mut rig, &second).is_empty(),
        "the second made no job"
    );
    assert!(row(&rig, &second).is_none(), "and wrote no row");
    assert_eq!(
        settled_row(&rig, &first, &intent, &scope).state,
        SaveRowState::Settled(SaveClass::Applied)
    );
    rig.finish().await;
}

/// K-5: a save is made under the epoch the operator saw or not at all — a scope that is not
/// the current epoch (a later epoch the view never saw, or another workspace) is refused
/// before anything is written or sent: not sent, traced `refused:no_epoch`, no row, no POST.
#[tokio::test(flavor = "current_thread")]
async fn k5_a_submit_whose_scope_is_not_the_current_epoch_is_not_sent() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let scope = confirmed_scope(&mut rig).await;
    let scopes = [
        ReadScope {
            epoch: scope.epoch + 1,
            ..scope.clone()
        },
        ReadScope {
            workspace: WorkspaceId("/srv/elsewhere/.masc".into()),
            ..scope.clone()
        },
    ];
    for stale in scopes {
        let id = submit(&mut rig, inject_intent(Decision::Confirm), stale).await;
        let r = receipt(&mut rig, &id).await;
        assert_eq!(r.save_class(), SaveClass::NotSent, "{r:?}");
        assert_eq!(steps(&mut rig, &id), ["ended:not_sent"]);
        assert!(row(&rig, &id).is_none(), "nothing written");
    }
    assert_eq!(
        stages(&rig),
        [
            "refused:no_epoch",
            "dispatch:",
            "worker_return:not_sent",
            "refused:no_epoch",
            "dispatch:",
            "worker_return:not_sent"
        ]
    );
    assert_eq!(rig.server.request_count("POST", CONFIRM), 0, "nothing sent");
    assert!(listed(&rig.server, INJECT).await);
    rig.finish().await;
}
