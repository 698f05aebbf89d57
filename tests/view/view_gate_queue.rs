#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! The Gate queue layer (protocol-15-operator.md §15.3, §15.12; issue 28 item 5) without a
//! server: `Q` from the Approvals view opens it over them and reads the queue; rows show age,
//! Keeper, tool, where judging stands and what they ask; `Enter` the row's every field with its
//! arguments as inert text; `y` asks an approve of the selected row, `n` a reject with the
//! reason typed, `R` a retry only on a blocked row under Auto Judge (each previewed first by the
//! save path); an unavailable queue is never "no rows"; a failed re-read keeps the rows; each
//! receipt says what happened — "already resolved" as its own receipt — and the save settles
//! when a re-read after it no longer lists the row.

use crate::rig::{SurfaceSlot, admitted, dispatch, observe, screen_text, ticket};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use masc_tui::actors::contract::SlotEvent;
use masc_tui::actors::gate_queue::resolve::{GateResolve, ResolveIntent};
use masc_tui::actors::gate_queue::retry::GateRetry;
use masc_tui::actors::gate_queue::{GATE_QUEUE, GateQueueObservation, GateQueueSlot};
use masc_tui::actors::saves::{SaveEvent, SaveId, SaveStep};
use masc_tui::protocol::admission::AdmissionMode;
use masc_tui::protocol::client::ClientError;
use masc_tui::protocol::decode::WireDecode;
use masc_tui::protocol::gate_queue::GateQueue;
use masc_tui::protocol::gate_resolve::{
    GateDecision, GateResolveOutcome, GateResolved, GateRowMoved,
};
use masc_tui::protocol::outcome::SaveOutcome;
use masc_tui::view::keys::{UiCommand, handle_key};
use masc_tui::view::model::Model;
use masc_tui::view::sample::{confirmed, scope};
use masc_tui::view::save_path::kinds;
use masc_tui::view::saves::Settle;
use masc_tui::view::screens::approvals::ApprovalsUi;
use masc_tui::view::screens::gate_queue::GateQueueLayer;
use masc_tui::view::screens::{Tab, Ui};
use ratatui::layout::Rect;
use serde_json::{Value, json};
use std::time::Instant;

impl SurfaceSlot for GateQueueSlot {
    type Payload = GateQueueObservation;
}

const HASH: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

fn row(id: &str, seq: u64, keeper: &str, tool: &str, code: &str, preview: &str) -> Value {
    json!({"id": id, "keeper_name": keeper, "tool_name": tool, "input_hash": HASH,
        "sequence": seq, "requested_at": 1.0, "waiting_s": 125.0, "turn_id": 4,
        "task_id": null, "goal_id": null,
        "input": {"repo": "masc/ops-notes", "note": "line\u{1b}[31mred"},
        "input_preview": preview, "summary_status": "pending",
        "exact_attempt": {"state": "unbound"},
        "summary_attempt_disposition": {"code": code, "reason_code": "auto_judge_unavailable",
            "operator_detail": "the judge lane has no free slot"}})
}

fn body(rows: Value, mode: &str) -> GateQueue {
    let v = json!({
        "generated_at": "2026-12-07T23:00:00Z", "note": "",
        "approval_queue": rows, "approval_queue_state": {"state": "ready"},
        "recent_resolved": [{"id": "gate-092", "event": "resolved", "keeper_name": "rondo",
            "tool_name": "shell_exec", "decision": "reject:outside", "decision_kind": "reject",
            "decision_reason": "outside", "resolved_at": 1.0, "actor": "operator",
            "decision_source": "human_operator"}],
        "recent_resolved_page": {"returned": 1, "matched": 1, "limit": 20, "window_minutes": 1440,
            "truncated": false, "scan_exhausted": true},
        "recent_resolved_state": {"state": "ready"},
        "approval_rules": [], "approval_rules_state": {"state": "ready"},
        "hitl": {"gate_mode": {"mode": mode, "configured": true, "state": "ready"}},
    });
    GateQueue::decode(&serde_json::to_vec(&v).unwrap()).unwrap()
}

fn seeded() -> GateQueue {
    body(
        json!([
            row(
                "gate-101",
                1,
                "rondo",
                "github_push",
                "ready",
                "push 3 commits"
            ),
            row(
                "gate-102",
                2,
                "mira",
                "email_send",
                "in_flight",
                "email oncall"
            ),
            row(
                "gate-103",
                3,
                "rondo",
                "http_post",
                "pre_worker_unavailable",
                "POST deploy"
            ),
        ]),
        "auto_judge",
    )
}

fn read(m: &mut Model, generation: u64, result: Result<GateQueue, ClientError>) {
    let t = ticket(GateQueueSlot::Queue, generation);
    dispatch(m, t.clone());
    observe(
        m,
        SlotEvent::Observed(t, GateQueueObservation::Queue(result.and_then(admitted))),
    )
    .unwrap();
}

fn model() -> Model {
    let mut m = Model::default();
    m.on_identity(confirmed(1, AdmissionMode::Receipt));
    read(&mut m, 1, Ok(seeded()));
    m
}

/// The Approvals view over Work, as `p` opens it.
fn ui(m: &Model) -> Ui {
    let mut ui = Ui {
        area: Rect::new(0, 0, 150, 40),
        tab: Tab::Work,
        ..Ui::default()
    };
    ui.layers.push(ApprovalsUi::opened(Tab::Work, m));
    ui
}

fn press(ui: &mut Ui, m: &Model, code: KeyCode) -> UiCommand {
    handle_key(ui, m, KeyEvent::new(code, KeyModifiers::NONE))
}

fn opened(m: &Model) -> Ui {
    let mut ui = ui(m);
    assert_eq!(
        press(&mut ui, m, KeyCode::Char('Q')),
        UiCommand::Refresh(GATE_QUEUE)
    );
    assert!(ui.layer::<GateQueueLayer>().is_some());
    ui
}

#[test]
fn s15_3_q_from_approvals_opens_the_queue_with_age_keeper_tool_and_judging() {
    let m = model();
    let mut ui = opened(&m);
    let text = screen_text(&m, &ui);
    assert!(
        text.contains("GATE QUEUE · 3 pending · mode Auto Judge"),
        "{text}"
    );
    for words in [
        "2m  rondo  github_push  waits for you  push 3 commits",
        "mira  email_send  Auto Judge judging",
        "rondo  http_post  judge blocked (pre_worker_unavailable)",
        "RECENT DECISIONS · 1",
        "reject rondo shell_exec by human_operator (outside)",
    ] {
        assert!(text.contains(words), "{words}: {text}");
    }
    // Esc goes back to the Approvals view it was opened over.
    press(&mut ui, &m, KeyCode::Esc);
    assert!(ui.layer::<GateQueueLayer>().is_none());
    assert!(ui.layer::<ApprovalsUi>().is_some());
}

#[test]
fn s15_3_enter_shows_every_field_and_the_arguments_as_inert_text() {
    let m = model();
    let mut ui = opened(&m);
    press(&mut ui, &m, KeyCode::Enter);
    let text = screen_text(&m, &ui);
    assert!(
        text.contains("gate-101") && text.contains("input hash"),
        "{text}"
    );
    assert!(text.contains("\"repo\": \"masc/ops-notes\""), "{text}");
    assert!(!text.contains('\u{1b}'), "the escape is inert text: {text}");
    assert!(
        text.contains("\\u{1b}") || text.contains("\\x1b") || text.contains("\\u001b"),
        "{text}"
    );
}

#[test]
fn s15_3_y_asks_an_approve_and_n_a_reject_with_the_typed_reason() {
    let m = model();
    let mut ui = opened(&m);
    let cmd = press(&mut ui, &m, KeyCode::Char('y'));
    let intent = cmd.as_save::<GateResolve>().expect("an approve");
    assert_eq!(intent.id, "gate-101");
    assert_eq!(intent.decision, GateDecision::Approve);
    // n opens the reason line; it takes every key (q is text here).
    press(&mut ui, &m, KeyCode::Char('j'));
    assert_eq!(press(&mut ui, &m, KeyCode::Char('n')), UiCommand::Repaint);
    for c in "not q now".chars() {
        press(&mut ui, &m, KeyCode::Char(c));
    }
    assert!(screen_text(&m, &ui).contains("reject gate-102 · reason: not q now"));
    let cmd = press(&mut ui, &m, KeyCode::Enter);
    let intent = cmd.as_save::<GateResolve>().expect("a reject");
    assert_eq!(
        (
            intent.id.as_str(),
            intent.decision,
            intent.reason.as_deref()
        ),
        ("gate-102", GateDecision::Reject, Some("not q now"))
    );
    // Esc drops a reason being typed and sends nothing.
    press(&mut ui, &m, KeyCode::Char('n'));
    press(&mut ui, &m, KeyCode::Char('x'));
    assert_eq!(press(&mut ui, &m, KeyCode::Esc), UiCommand::Repaint);
    assert!(ui.layer::<GateQueueLayer>().unwrap().reason.is_none());
}

#[test]
fn s15_3_r_retries_only_a_blocked_row_under_auto_judge_with_the_row_as_read() {
    let m = model();
    let mut ui = opened(&m);
    // The ready row: not offered, nothing asked.
    let cmd = press(&mut ui, &m, KeyCode::Char('R'));
    assert!(cmd.as_save::<GateRetry>().is_none());
    press(&mut ui, &m, KeyCode::Char('G'));
    let cmd = press(&mut ui, &m, KeyCode::Char('R'));
    let intent = cmd.as_save::<GateRetry>().expect("a retry");
    assert_eq!(intent.id, "gate-103");
    assert_eq!(intent.row.as_object().unwrap().len(), 5);
    assert_eq!(
        intent.row["summary_attempt_disposition"]["operator_detail"],
        "the judge lane has no free slot"
    );
    // Under manual mode the blocked row is not offered.
    let mut manual = Model::default();
    manual.on_identity(confirmed(1, AdmissionMode::Receipt));
    let rows = json!([row(
        "gate-103",
        3,
        "rondo",
        "http_post",
        "pre_worker_unavailable",
        "p"
    )]);
    read(&mut manual, 1, Ok(body(rows, "manual")));
    let mut ui = opened(&manual);
    assert!(
        press(&mut ui, &manual, KeyCode::Char('R'))
            .as_save::<GateRetry>()
            .is_none()
    );
}

#[test]
fn g4_g5_s15_3_unavailable_is_never_empty_and_a_failed_re_read_keeps_the_rows() {
    let mut m = model();
    read(
        &mut m,
        2,
        Err(ClientError::Status {
            status: 500,
            body: "queue store locked".into(),
        }),
    );
    let ui = opened(&m);
    let text = screen_text(&m, &ui);
    assert!(text.contains("read failed"), "{text}");
    assert!(text.contains("github_push"), "the last rows kept: {text}");

    let mut m = Model::default();
    m.on_identity(confirmed(1, AdmissionMode::Receipt));
    let v = json!({"approval_queue": null, "approval_queue_state": {"state": "reset_required",
        "code": "reset_required", "title": "Approval queue needs a reset",
        "operator_detail": "run masc gate reset", "severity": "bad", "icon": "!"},
        "recent_resolved": [], "recent_resolved_state": {"state": "ready"},
        "approval_rules": [], "approval_rules_state": {"state": "ready"}});
    read(
        &mut m,
        1,
        Ok(GateQueue::decode(&serde_json::to_vec(&v).unwrap()).unwrap()),
    );
    let text = screen_text(&m, &opened(&m));
    assert!(
        text.contains("Gate queue unavailable · reset required"),
        "{text}"
    );
    assert!(text.contains("run masc gate reset"), "{text}");
    assert!(!text.contains("no pending Gate rows"), "{text}");
}

/// Lands `receipt` for a resolve of `id` submitted into the book.
fn resolved(
    m: &mut Model,
    id: &str,
    decision: GateDecision,
    receipt: GateResolveOutcome,
) -> SaveId {
    let save = SaveId::fresh();
    let ws = scope(1).workspace.0.clone();
    let intent = ResolveIntent {
        id: id.into(),
        keeper: "rondo".into(),
        tool: "github_push".into(),
        decision,
        reason: None,
    };
    m.gate_queue
        .saves
        .resolves
        .submit(save.clone(), intent.clone(), ws.clone());
    let t = ticket(GateQueueSlot::Resolve(save.clone()), 1);
    dispatch(m, t.clone());
    observe(
        m,
        SlotEvent::Observed(
            t,
            GateQueueObservation::Resolve(Box::new(SaveEvent::<GateResolve> {
                save_id: save.clone(),
                intent,
                workspace: ws,
                step: SaveStep::Ended(receipt),
            })),
        ),
    )
    .unwrap();
    save
}

#[test]
fn s15_12_each_receipt_says_what_happened_already_resolved_its_own() {
    let mut m = model();
    resolved(
        &mut m,
        "gate-102",
        GateDecision::Reject,
        SaveOutcome::Conflict {
            current: GateRowMoved::AlreadyResolved {
                words: "approval gate-102 already resolved".into(),
            },
        },
    );
    resolved(
        &mut m,
        "gate-103",
        GateDecision::Approve,
        SaveOutcome::OutcomeUnknown {
            reason: "HTTP 503: approval gate-103 resolution delivery failed".into(),
        },
    );
    let text = screen_text(&m, &opened(&m));
    assert!(text.contains("DECISIONS THIS SESSION"), "{text}");
    assert!(
        text.contains("already resolved by someone else (Auto Judge, a rule or another operator)"),
        "{text}"
    );
    assert!(text.contains("outcome unknown"), "{text}");
    assert!(
        !text.contains("reject gate-102 rondo github_push: conflict"),
        "{text}"
    );
}

#[test]
fn k2_s15_3_an_approve_settles_when_a_re_read_after_it_no_longer_lists_the_row() {
    let mut m = model();
    let save = resolved(
        &mut m,
        "gate-101",
        GateDecision::Approve,
        SaveOutcome::Applied {
            detail: GateResolved {
                decision: GateDecision::Approve,
                rule_id: None,
                unrecorded: Vec::new(),
            },
            warning: None,
        },
    );
    let now = Instant::now();
    kinds::advance(&mut m, now);
    let settle = |m: &Model| {
        m.gate_queue
            .saves
            .resolves
            .get(&save)
            .unwrap()
            .settle
            .clone()
    };
    assert!(matches!(settle(&m), Settle::Awaiting { .. }));
    read(&mut m, 2, Ok(seeded()));
    kinds::advance(&mut m, now);
    assert!(
        matches!(settle(&m), Settle::Awaiting { shown: Some(ref s), .. } if s == "the row still pending"),
        "{:?}",
        settle(&m)
    );
    let rest = body(
        json!([row(
            "gate-102",
            2,
            "mira",
            "email_send",
            "in_flight",
            "email oncall"
        )]),
        "auto_judge",
    );
    read(&mut m, 3, Ok(rest));
    kinds::advance(&mut m, now);
    assert!(
        matches!(settle(&m), Settle::Confirmed { .. }),
        "{:?}",
        settle(&m)
    );
    let text = screen_text(&m, &opened(&m));
    assert!(
        text.contains("approve gate-101 rondo github_push: applied · confirmed"),
        "{text}"
    );
}
