#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! Approval questions of the chat target in its transcript (chat-screen.md
//! C-44, C-53; protocol.md §10.5): a pending approval whose target is this Keeper is a gate row
//! (news · target), another Keeper's is not; `/approve` and `/deny` are armed like `y y` /
//! `n n` — the first previews, the second decides through the approval save — and anything
//! else in between disarms; the receipt replaces the row's news (`승인됨 · 적용 예정`).

use crate::chat_screen::{draw, opened, type_text};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use masc_tui::actors::contract::{SlotEvent, Ticket};
use masc_tui::actors::decisions::approval::ApprovalDecision;
use masc_tui::actors::decisions::{DecisionsObservation, DecisionsSlot};
use masc_tui::actors::saves::{SaveEvent, SaveId, SaveStep};
use masc_tui::protocol::admission::AdmissionMode;
use masc_tui::protocol::client::Admitted;
use masc_tui::protocol::decode::WireDecode;
use masc_tui::protocol::operator::{
    ApprovalDecisionReply, Decision, DecisionResult, OperatorApprovals,
};
use masc_tui::protocol::outcome::SaveOutcome;
use masc_tui::view::keys::{UiCommand, handle_key};
use masc_tui::view::model::Model;
use masc_tui::view::sample::{self, buffer_text};
use masc_tui::view::screens::Ui;
use std::sync::Arc;

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn approval_json(token: &str, keeper: &str) -> String {
    format!(
        r#"{{"confirm_token":"{token}","trace_id":"ops_{token}","actor":"masc-tui","action_type":"keeper_probe","target_type":"keeper","target_id":"{keeper}","payload":{{}},"delegated_tool":"masc_keeper_status","created_at":"2026-11-20T08:50:00Z","expires_at":"2099-01-01T00:00:00Z"}}"#
    )
}

/// The approvals list read for the model's workspace: `mine` targets `keeper`, `other` another
/// Keeper. The view actor then runs the chat's after-observation step.
fn read_list(model: &mut Model, ui: &mut Ui, keeper: &str) {
    let items = [
        approval_json("opc_mine", keeper),
        approval_json("opc_other", "somebody-else"),
    ];
    let body = format!(
        r#"{{"pending_confirm_envelope":{{"items":[{}],"summary":{{"actor_filter":"masc-tui","filter_active":true,"visible_count":2,"hidden_count":0,"total_count":2,"hidden_actors":[],"confirm_required_actions":[]}}}}}}"#,
        items.join(",")
    );
    let list = OperatorApprovals::decode(body.as_bytes()).unwrap();
    let observation = DecisionsObservation::Approvals(Ok(receipt(list)));
    observe_decision_read(model, ui, DecisionsSlot::Approvals, 41, observation);
}

/// A value admitted by its receipt, as the Decisions source admits a fresh read.
pub(crate) fn receipt<T>(value: T) -> Admitted<T> {
    Admitted {
        value: Arc::new(value),
        mode: AdmissionMode::Receipt,
        from_cache: false,
    }
}

/// One Decisions read of `slot` (generation `generation`) dispatched and observed as the source
/// posts it; the view actor then runs the chat's after-observation step.
pub(crate) fn observe_decision_read(
    model: &mut Model,
    ui: &mut Ui,
    slot: DecisionsSlot,
    generation: u64,
    observation: DecisionsObservation,
) {
    let t = Ticket {
        slot,
        generation,
        scope: sample::scope(1),
    };
    crate::rig::dispatch(model, t.clone());
    crate::rig::observe(model, SlotEvent::Observed(t, observation)).unwrap();
    crate::rig::chat_observed(model, ui, None);
}

pub(crate) fn slash(ui: &mut Ui, model: &Model, command: &str) -> UiCommand {
    type_text(ui, model, command);
    handle_key(ui, model, key(KeyCode::Enter))
}

/// C-53, C-44: this Keeper's pending approval is a gate row in the default view, news first;
/// another Keeper's approval is not drawn here.
#[test]
fn c53_c44_a_pending_approval_of_this_keeper_is_a_gate_row() {
    let (mut model, mut ui, keeper) = opened(0);
    read_list(&mut model, &mut ui, &keeper);
    let text = buffer_text(&draw(&model, &ui));
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("승인 대기 · keeper_probe (masc_keeper_status)"))
        .collect();
    assert_eq!(rows.len(), 1, "{text}");
    assert!(rows[0].contains('○'), "{}", rows[0]);
    let view = model.chat.pane.as_ref().unwrap().view();
    assert!(view.transcript().get("approval:opc_mine").is_some());
    assert!(view.transcript().get("approval:opc_other").is_none());
}

/// C-53 with the approvals' armed confirm: the first `/approve` previews on the footer and
/// decides nothing; the second decides this Keeper's approval through the approval save; a
/// `/deny` in between re-arms for the other decision (anything else disarms).
#[test]
fn c53_approve_and_deny_are_armed_first_press_previews_second_decides() {
    let (mut model, mut ui, keeper) = opened(0);
    read_list(&mut model, &mut ui, &keeper);
    assert_eq!(slash(&mut ui, &model, "/approve"), UiCommand::Repaint);
    assert!(
        ui.notice
            .text
            .as_deref()
            .is_some_and(|n| n.contains("/approve again")),
        "{:?}",
        ui.notice.text
    );
    // Another command disarms: `/deny` is armed afresh, not decided.
    assert_eq!(slash(&mut ui, &model, "/deny"), UiCommand::Repaint);
    match slash(&mut ui, &model, "/deny")
        .as_save::<ApprovalDecision>()
        .cloned()
    {
        Some(intent) => {
            assert_eq!(intent.confirm_token, "opc_mine");
            assert_eq!(intent.decision, Decision::Deny);
        }
        other => panic!("the second /deny decides: {other:?}"),
    }
    // Esc between the two presses disarms too.
    assert_eq!(slash(&mut ui, &model, "/approve"), UiCommand::Repaint);
    let _ = handle_key(&mut ui, &model, key(KeyCode::Char('x')));
    let _ = handle_key(&mut ui, &model, key(KeyCode::Backspace));
    assert!(
        matches!(slash(&mut ui, &model, "/approve").as_save::<ApprovalDecision>(), Some(intent) if intent.decision == Decision::Confirm
        )
    );
}

/// C-53: the receipt of the decision replaces the row's news — approved, delivery pending is
/// `승인됨 · 적용 예정` (the seed's own example).
#[test]
fn c53_an_approved_deferred_decision_reads_approved_will_be_applied() {
    let (mut model, mut ui, keeper) = opened(0);
    read_list(&mut model, &mut ui, &keeper);
    let Some(intent) = ({
        slash(&mut ui, &model, "/approve");
        slash(&mut ui, &model, "/approve")
    })
    .as_save::<ApprovalDecision>()
    .cloned() else {
        panic!("no decision");
    };
    let id = SaveId::fresh();
    let workspace = sample::scope(1).workspace.0;
    model
        .decisions
        .decisions
        .submit(id.clone(), intent.clone(), workspace.clone());
    let t = Ticket {
        slot: DecisionsSlot::Decision(id.clone()),
        generation: 7,
        scope: sample::scope(1),
    };
    crate::rig::dispatch(&mut model, t.clone());
    crate::rig::chat_observed(&mut model, &mut ui, None);
    let text = buffer_text(&draw(&model, &ui));
    assert!(text.contains("판정 중 · keeper_probe"), "{text}");
    let approval = masc_tui::view::screens::approvals::listed(&model)
        .iter()
        .find(|a| a.confirm_token == "opc_mine")
        .cloned()
        .unwrap();
    let reply = ApprovalDecisionReply {
        trace_id: approval.trace_id.clone(),
        tool_name: approval.delegated_tool.clone(),
        executed_action: approval,
        result: DecisionResult::Deferred {
            result: serde_json::json!({}),
        },
    };
    crate::rig::observe(
        &mut model,
        SlotEvent::Observed(
            t,
            DecisionsObservation::Decision(Box::new(SaveEvent::<ApprovalDecision> {
                save_id: id,
                intent,
                workspace,
                step: SaveStep::Ended(SaveOutcome::Applied {
                    detail: reply,
                    warning: None,
                }),
            })),
        ),
    )
    .unwrap();
    crate::rig::chat_observed(&mut model, &mut ui, None);
    let text = buffer_text(&draw(&model, &ui));
    assert!(text.contains("승인됨 · 적용 예정"), "{text}");
    assert!(!text.contains("승인 대기"), "{text}");
}
