#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! The Gate queue (protocol-15-operator.md §15.3, §15.12, §15.14; issue 28 item 5) against the
//! embedded server with fault plans: the queue read as its own source (seeded rows in
//! `sequence` order, history, rules, mode), the read's faults — 5xx, delay, malformed, not
//! served, `reset_required`, an undecodable row among good ones — each typed and on the
//! timeline under `gate_queue`; and the two saves, `gate_resolve` and `gate_retry`: applied
//! once and never resent, "already resolved" its own conflict, a 503 after recording unknown,
//! a retry of a row that changed since the read a conflict — each asserting the typed receipt,
//! how many POSTs the server saw and what it still holds.

use crate::actor_support::{Rig, plan, post_fault, rig_with};
use crate::save_rig::{confirmed_scope, step_name};
use masc_tui::actors::contract::SlotEvent;
use masc_tui::actors::gate_queue::resolve::{GateResolve, ResolveIntent};
use masc_tui::actors::gate_queue::retry::{GateRetry, RetryIntent};
use masc_tui::actors::gate_queue::{GateQueueObservation, GateQueueSlot};
use masc_tui::actors::saves::{SaveId, SaveStep};
use masc_tui::protocol::admission::ReadScope;
use masc_tui::protocol::client::ClientError;
use masc_tui::protocol::gate_queue::{GateQueue, Queue, QueueItem, QueueRow, Section};
use masc_tui::protocol::gate_resolve::{
    GateDecision, GateResolveOutcome, GateRetryOutcome, GateRowMoved,
};
use masc_tui::protocol::outcome::{SaveClass, SaveOutcome};
use masc_tui::protocol::routes::RouteFamily;
use masc_tui::server::RunningServer;
use masc_tui::server::faults::FaultPlan;
use masc_tui::server::store::gate_queue as store;

type Event = SlotEvent<GateQueueSlot, GateQueueObservation>;

const GATE: &str = "/api/v1/dashboard/gate";
const RESOLVE: &str = "/api/v1/dashboard/gate/resolve";
const RETRY: &str = "/api/v1/dashboard/gate/retry";

async fn first_queue(rig: &mut Rig) -> Result<GateQueue, ClientError> {
    let obs = rig
        .observed_of::<GateQueueSlot, GateQueueObservation>(&GateQueueSlot::Queue)
        .await;
    match obs.payload {
        GateQueueObservation::Queue(r) => r.map(|a| (*a.value).clone()),
        other => panic!("{other:?}"),
    }
}

fn item<'q>(q: &'q GateQueue, id: &str) -> &'q QueueItem {
    q.item(id)
        .unwrap_or_else(|| panic!("{id} not listed: {:?}", q.queue))
}

/// The ids the server still holds pending.
async fn pending_ids(server: &RunningServer) -> Vec<String> {
    server
        .state()
        .store()
        .read(|c| store::pending(c, 0.0))
        .await
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect()
}

/// §15.3: the queue is its own standing read — the seeded rows in `sequence` order with their
/// dispositions, the history of both decision kinds, the rule, Auto Judge — traced under its
/// own name.
#[tokio::test(flavor = "current_thread")]
async fn s15_3_the_queue_is_its_own_read_in_sequence_order() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let q = first_queue(&mut rig).await.expect("read");
    let ids: Vec<&str> = q.items().map(|i| i.id.as_str()).collect();
    assert_eq!(ids, ["gate-101", "gate-102", "gate-103"]);
    let codes: Vec<&str> = q.items().filter_map(QueueItem::disposition).collect();
    assert_eq!(codes, ["ready", "in_flight", "pre_worker_unavailable"]);
    assert!(
        item(&q, "gate-101").waiting_s.unwrap() > 60.0,
        "asked minutes ago"
    );
    assert_eq!(item(&q, "gate-101").input["repo"], "masc/ops-notes");
    assert!(item(&q, "gate-103").retry_offered(q.gate_mode.as_ref()));
    assert!(!item(&q, "gate-101").retry_offered(q.gate_mode.as_ref()));
    let Section::Ready(resolved) = &q.resolved else {
        panic!("{:?}", q.resolved)
    };
    let kinds: Vec<&str> = resolved
        .iter()
        .filter_map(|r| r.decision_kind.as_deref())
        .collect();
    assert!(kinds.contains(&"approve") && kinds.contains(&"reject"));
    assert_eq!(q.resolved_count_mismatch, None);
    assert!(matches!(&q.rules, Section::Ready(r) if r.len() == 1));
    let traced: Vec<String> = rig
        .recorder
        .records_where(|r| r.source == "gate_queue")
        .into_iter()
        .map(|r| r.stage)
        .collect();
    assert!(
        traced.contains(&"dispatch".to_string()) && traced.contains(&"observe".to_string()),
        "{traced:?}"
    );
    rig.finish().await;
}

/// §15.14 "Gate list": 5xx, malformed and not served are typed failures of this slot (never an
/// empty queue), each traced under `gate_queue`.
#[tokio::test(flavor = "current_thread")]
async fn g5_s15_14_gate_list_faults_are_typed_failures_of_the_queue_slot() {
    for (fault, check) in [
        (
            r#"{"status":500,"body":{"error":"queue store locked"}}"#,
            (|e: &ClientError| matches!(e, ClientError::Status { status: 500, .. }))
                as fn(&ClientError) -> bool,
        ),
        (r#"{"malformed":true}"#, |e| {
            matches!(e, ClientError::Decode(_))
        }),
        (r#"{"status":404,"body":"404 Not Found"}"#, |e| {
            matches!(
                e,
                ClientError::NotServed {
                    route: RouteFamily::DashboardGate
                }
            )
        }),
    ] {
        let mut rig = rig_with(plan(&format!(
            r#"{{"match":{{"method":"GET","path":"{GATE}"}},"when":{{"every":true}},"fault":{fault}}}"#
        )))
        .await;
        let err = first_queue(&mut rig).await.expect_err(fault);
        assert!(check(&err), "{fault}: {err:?}");
        let returned = rig
            .recorder
            .records_where(|r| r.source == "gate_queue" && r.stage == "worker_return");
        assert!(!returned.is_empty(), "{fault}: on the timeline");
        rig.finish().await;
    }
}

/// §15.14: a delayed read stays in flight (dispatched, not observed) — no timer turns it into
/// a failure or an empty queue — and arrives whole.
#[tokio::test(flavor = "current_thread")]
async fn s15_14_a_delayed_read_arrives_whole() {
    let mut rig = rig_with(plan(&format!(
        r#"{{"match":{{"method":"GET","path":"{GATE}"}},"when":{{"nth":1}},"fault":{{"delay_ms":1500}}}}"#
    )))
    .await;
    let dispatched = rig
        .dispatched_of::<GateQueueSlot, GateQueueObservation>(&GateQueueSlot::Queue)
        .await;
    let obs = rig
        .observed_of::<GateQueueSlot, GateQueueObservation>(&GateQueueSlot::Queue)
        .await;
    assert_eq!(obs.ticket.generation, dispatched.generation);
    let GateQueueObservation::Queue(Ok(q)) = obs.payload else {
        panic!("{:?}", obs.payload)
    };
    assert_eq!(q.value.items().count(), 3);
    rig.finish().await;
}

/// §15.3, §15.14: a `reset_required` queue is its own value (never "no approvals"), and a row
/// that does not decode is kept by its identity while the good rows stay.
#[tokio::test(flavor = "current_thread")]
async fn s15_14_reset_required_and_an_undecodable_row_are_typed() {
    let body = serde_json::json!({
        "approval_queue": null,
        "approval_queue_state": {"state": "reset_required", "code": "reset_required",
            "title": "Approval queue needs a reset", "operator_detail": "run masc gate reset",
            "severity": "bad", "icon": "!"},
        "recent_resolved": [], "recent_resolved_state": {"state": "ready"},
        "approval_rules": [], "approval_rules_state": {"state": "ready"},
        "hitl": {"gate_mode": {"mode": "manual", "configured": true, "state": "ready"}},
    });
    let mut rig = rig_with(plan(&format!(
        r#"{{"match":{{"method":"GET","path":"{GATE}"}},"when":{{"every":true}},"fault":{{"status":200,"body":{body}}}}}"#
    )))
    .await;
    let q = first_queue(&mut rig).await.expect("decoded");
    assert!(
        matches!(&q.queue, Queue::Unavailable { code: Some(c), .. } if c == "reset_required"),
        "{:?}",
        q.queue
    );
    rig.finish().await;

    let body = serde_json::json!({
        "approval_queue": [
            {"id": "gate-7", "keeper_name": "rondo", "tool_name": "github_push",
             "sequence": 7, "exact_attempt": {"state": "unbound"},
             "summary_attempt_disposition": {"code": "ready"}},
            {"id": "gate-8", "keeper_name": "mira", "tool_name": "email_send",
             "input_hash": "ab".repeat(32), "sequence": 8, "waiting_s": 3.0,
             "exact_attempt": {"state": "unbound"},
             "summary_attempt_disposition": {"code": "ready"}}
        ],
        "approval_queue_state": {"state": "ready"},
        "recent_resolved": null,
        "recent_resolved_state": {"state": "unavailable", "stage": "list_recent_resolved",
            "error": "audit log unreadable"},
        "approval_rules": [], "approval_rules_state": {"state": "ready"},
        "hitl": {"gate_mode": {"mode": "manual", "configured": true, "state": "ready"}},
    });
    let mut rig = rig_with(plan(&format!(
        r#"{{"match":{{"method":"GET","path":"{GATE}"}},"when":{{"every":true}},"fault":{{"status":200,"body":{body}}}}}"#
    )))
    .await;
    let q = first_queue(&mut rig).await.expect("decoded");
    let Queue::Ready(rows) = &q.queue else {
        panic!("{:?}", q.queue)
    };
    assert!(matches!(&rows[0], QueueRow::Item(i) if i.id == "gate-8"));
    assert!(
        matches!(&rows[1], QueueRow::Undecodable { id: Some(id), keeper_name: Some(k), .. }
            if id == "gate-7" && k == "rondo"),
        "{rows:?}"
    );
    assert!(matches!(q.resolved, Section::Unavailable { .. }));
    rig.finish().await;
}

fn resolve_intent(id: &str, decision: GateDecision, reason: Option<&str>) -> ResolveIntent {
    ResolveIntent {
        id: id.into(),
        keeper: "rondo".into(),
        tool: "github_push".into(),
        decision,
        reason: reason.map(str::to_string),
    }
}

async fn submit_resolve(rig: &mut Rig, intent: ResolveIntent, scope: ReadScope) -> SaveId {
    crate::save_rig::submit::<GateResolve>(rig, intent, scope).await
}

async fn resolve_receipt(rig: &mut Rig, id: &SaveId) -> GateResolveOutcome {
    let ended = rig
        .view
        .wait_slot::<GateQueueSlot, GateQueueObservation>(|e: &Event| {
            matches!(e, SlotEvent::Observed(_, GateQueueObservation::Resolve(ev))
                if ev.save_id == *id && matches!(ev.step, SaveStep::Ended(_)))
        })
        .await;
    match ended {
        Some(SlotEvent::Observed(_, GateQueueObservation::Resolve(ev))) => match &ev.step {
            SaveStep::Ended(r) => r.clone(),
            other => panic!("not a receipt: {other:?}"),
        },
        other => panic!("no receipt: {other:?}"),
    }
}

async fn retry_receipt(rig: &mut Rig, id: &SaveId) -> GateRetryOutcome {
    let ended = rig
        .view
        .wait_slot::<GateQueueSlot, GateQueueObservation>(|e: &Event| {
            matches!(e, SlotEvent::Observed(_, GateQueueObservation::Retry(ev))
                if ev.save_id == *id && matches!(ev.step, SaveStep::Ended(_)))
        })
        .await;
    match ended {
        Some(SlotEvent::Observed(_, GateQueueObservation::Retry(ev))) => match &ev.step {
            SaveStep::Ended(r) => r.clone(),
            other => panic!("not a receipt: {other:?}"),
        },
        other => panic!("no receipt: {other:?}"),
    }
}

fn resolve_steps(rig: &mut Rig, id: &SaveId) -> Vec<String> {
    rig.view
        .slot_events::<GateQueueSlot, GateQueueObservation>()
        .iter()
        .filter_map(|e| match e {
            SlotEvent::Observed(t, GateQueueObservation::Resolve(ev)) if ev.save_id == *id => {
                assert_eq!(t.slot, GateQueueSlot::Resolve(id.clone()), "its own slot");
                Some(step_name(&ev.step))
            }
            _ => None,
        })
        .collect()
}

/// §15.3, §15.12: an approval removes the row, sent once, landing once in its own slot; the
/// same row decided again is "already resolved" — a conflict of its own, not a failure.
#[tokio::test(flavor = "current_thread")]
async fn s15_12_approve_removes_the_row_once_then_it_is_already_resolved() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let scope = confirmed_scope(&mut rig).await;
    let id = submit_resolve(
        &mut rig,
        resolve_intent("gate-101", GateDecision::Approve, None),
        scope.clone(),
    )
    .await;
    match resolve_receipt(&mut rig, &id).await {
        SaveOutcome::Applied { detail, warning } => {
            assert_eq!(detail.decision, GateDecision::Approve);
            assert_eq!(warning, None);
        }
        other => panic!("not applied: {other:?}"),
    }
    assert_eq!(rig.server.request_count("POST", RESOLVE), 1);
    assert_eq!(pending_ids(&rig.server).await, ["gate-102", "gate-103"]);
    assert_eq!(
        resolve_steps(&mut rig, &id),
        ["written", "sending", "ended:applied"]
    );
    let again = submit_resolve(
        &mut rig,
        resolve_intent("gate-101", GateDecision::Reject, Some("late")),
        scope,
    )
    .await;
    assert_eq!(
        resolve_receipt(&mut rig, &again).await,
        SaveOutcome::Conflict {
            current: GateRowMoved::AlreadyResolved {
                words: "approval gate-101 already resolved".into()
            }
        }
    );
    assert_eq!(rig.server.request_count("POST", RESOLVE), 2);
    rig.finish().await;
}

/// §15.14 "resolve 404 already resolved (decided between list and send)", "resolve 503 after
/// recording", "reply echo mismatch", "recorded:false": each typed, one POST, never resent.
#[tokio::test(flavor = "current_thread")]
async fn s15_14_resolve_faults_are_typed_and_never_resent() {
    for (fault, class) in [
        (
            r#"{"status":404,"body":{"status":"error","message":"approval gate-102 already resolved"}}"#,
            SaveClass::Conflict,
        ),
        (
            r#"{"status":503,"body":{"status":"error","message":"approval gate-102 resolution delivery failed: keeper gone"}}"#,
            SaveClass::OutcomeUnknown,
        ),
        (
            r#"{"status":200,"body":{"ok":true,"id":"gate-999","decision":"reject"}}"#,
            SaveClass::OutcomeUnknown,
        ),
        (
            r#"{"status":200,"body":{"ok":true,"id":"gate-102","decision":"reject","rule_id":null,"audit_receipts":[{"recorded":false,"stage":"append","detail":"disk full","event":"resolved"}]}}"#,
            SaveClass::Applied,
        ),
        (r#"{"drop":"after_apply"}"#, SaveClass::OutcomeUnknown),
    ] {
        let mut rig = rig_with(post_fault(RESOLVE, fault)).await;
        let scope = confirmed_scope(&mut rig).await;
        let id = submit_resolve(
            &mut rig,
            resolve_intent("gate-102", GateDecision::Reject, Some("not this week")),
            scope,
        )
        .await;
        let r = resolve_receipt(&mut rig, &id).await;
        assert_eq!(r.save_class(), class, "{fault}: {r:?}");
        if class == SaveClass::Applied {
            assert_eq!(r.reason(), Some("audit not recorded (append: disk full)"));
        }
        assert_eq!(
            rig.server.request_count("POST", RESOLVE),
            1,
            "{fault}: never resent"
        );
        rig.finish().await;
    }
}

/// §15.3 `/retry`: the row's five fields as read re-arm a blocked judge (the row goes
/// `in_flight`); the same body again finds the row changed — a conflict, re-read, never resent.
#[tokio::test(flavor = "current_thread")]
async fn s15_12_retry_rearms_a_blocked_row_then_the_row_has_changed() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let scope = confirmed_scope(&mut rig).await;
    let q = first_queue(&mut rig).await.expect("read");
    let blocked = item(&q, "gate-103");
    let intent = RetryIntent {
        id: blocked.id.clone(),
        keeper: blocked.keeper_name.clone(),
        tool: blocked.tool_name.clone(),
        row: blocked.retry_body(),
    };
    let id = crate::save_rig::submit::<GateRetry>(&mut rig, intent.clone(), scope.clone()).await;
    assert_eq!(
        retry_receipt(&mut rig, &id).await.save_class(),
        SaveClass::Applied
    );
    let after = rig
        .server
        .state()
        .store()
        .read(|c| store::pending(c, 0.0))
        .await
        .unwrap();
    let row = after.iter().find(|r| r["id"] == "gate-103").unwrap();
    assert_eq!(row["summary_attempt_disposition"]["code"], "in_flight");
    let again = crate::save_rig::submit::<GateRetry>(&mut rig, intent, scope).await;
    let r = retry_receipt(&mut rig, &again).await;
    assert!(
        matches!(
            &r,
            SaveOutcome::Conflict {
                current: GateRowMoved::Changed { .. }
            }
        ),
        "{r:?}"
    );
    assert_eq!(rig.server.request_count("POST", RETRY), 2);
    rig.finish().await;
}
