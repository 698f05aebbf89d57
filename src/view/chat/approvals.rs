//! Approval questions of the chat target in its transcript (chat-screen.md C-44,
//! C-53; protocol.md §10.5): every pending operator approval whose target is this Keeper is a
//! gate row — news first, then the target, joined by `·` (`승인 대기 · keeper_probe`,
//! `판정 중 · keeper_probe`, `승인됨 · 적용 예정`) — and stays in the default view while it
//! waits (C-44). `/approve` and `/deny` decide it through the approval save
//! (`approval_decision`), armed like `y y` / `n n` in Approvals; its receipt replaces the row's
//! news. A failed decision is an error row (C-8).

use super::pane::ChatPane;
use crate::actors::decisions::approval::ApprovalDecision;
use crate::protocol::operator::{Approval, Decision, DecisionResult};
use crate::protocol::outcome::SaveOutcome;
use crate::view::approvals::decisions::DecisionsModel;
use crate::view::saves::{SaveEntry, SavePhase};
use crate::view::transcript::model::{Entry, EntryKind, FailureOrigin, Speaker};

/// The pending approvals whose target is `keeper`, oldest first (as listed).
pub fn pending_for<'a>(decisions: &'a DecisionsModel, keeper: &str) -> Vec<&'a Approval> {
    decisions
        .approvals
        .fetched
        .last()
        .map(|o| {
            o.value
                .items
                .iter()
                .filter(|a| a.action_type.targets_keeper())
                .filter(|a| a.target_id.as_deref() == Some(keeper))
                .collect()
        })
        .unwrap_or_default()
}

fn action_words(action: &str, tool: &str) -> String {
    format!("{action} ({tool})")
}

fn action_name(approval: &Approval) -> String {
    serde_json::to_value(approval.action_type)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// The row of one decision's receipt, or `None` while it is in flight.
fn decided_row(id: &str, entry: &SaveEntry<ApprovalDecision>) -> Option<Entry> {
    let receipt = match &entry.phase {
        SavePhase::Ended(r) | SavePhase::Restored(r) => r,
        _ => return None,
    };
    let status = |text: &str| Entry::new(id, Speaker::System, EntryKind::Status, text.to_string());
    let failure = |text: String| {
        Entry::new(
            id,
            Speaker::System,
            EntryKind::Failure(FailureOrigin::Other("approval".into())),
            text,
        )
    };
    Some(match receipt {
        SaveOutcome::Applied { detail, .. } => match &detail.result {
            DecisionResult::Denied => status("거부됨 · 실행 안 됨"),
            DecisionResult::Deferred { .. } => status("승인됨 · 적용 예정"),
            DecisionResult::Ran { .. } => status("승인됨 · 적용됨"),
            DecisionResult::Failed { detail } => {
                failure(format!("approval · approved, the action failed: {detail}"))
            }
        },
        SaveOutcome::Conflict { .. } => status("결정 안 됨 · 더 이상 대기 중이 아님"),
        SaveOutcome::Unchanged => status("결정 안 됨 · 바뀐 것 없음"),
        SaveOutcome::NotApplied { reason } | SaveOutcome::NotSent { reason } => failure(format!(
            "approval · {}",
            crate::actors::saves::refusal::describe(reason)
        )),
        SaveOutcome::OutcomeUnknown { reason } => status(&format!(
            "결정 결과 모름 · {} · not resent",
            crate::actors::saves::refusal::describe(reason)
        )),
    })
}

/// Keeps the chat target's gate rows in step with the approvals list and this session's
/// decisions: one row per approval (by its confirm token), written only when it changes; then
/// the held tool calls' gate rows (§14.5, `super::held_calls`).
pub fn sync(decisions: &DecisionsModel, pane: &mut ChatPane) {
    sync_approvals(decisions, pane);
    super::held_calls::sync(decisions, pane);
}

fn sync_approvals(decisions: &DecisionsModel, pane: &mut ChatPane) {
    let Some(workspace) = pane.workspace.as_ref().map(|w| w.0.clone()) else {
        return;
    };
    if decisions.workspace() != Some(workspace.as_str()) {
        return;
    }
    let keeper = pane.keeper.clone();
    let mut rows: Vec<Entry> = Vec::new();
    for approval in pending_for(decisions, &keeper) {
        let id = format!("approval:{}", approval.confirm_token);
        let latest = decisions
            .decisions
            .latest(&approval.confirm_token, &workspace);
        let row = match latest {
            Some(e) if e.phase.in_flight() => {
                let news = match e.intent.decision {
                    Decision::Confirm => "판정 중",
                    Decision::Deny => "판정 중",
                };
                Entry::new(
                    id,
                    Speaker::System,
                    EntryKind::Status,
                    format!("{news} · {}", action_name(approval)),
                )
            }
            Some(e) => match decided_row(&id, e) {
                Some(row) => row,
                None => continue,
            },
            None => Entry::new(
                id,
                Speaker::System,
                EntryKind::Status,
                format!(
                    "승인 대기 · {} · /approve or /deny",
                    action_words(&action_name(approval), &approval.delegated_tool)
                ),
            ),
        };
        rows.push(row);
    }
    // Decisions on this Keeper whose approval left the list keep their receipt row.
    for entry in decisions.decisions.entries() {
        if entry.workspace != workspace || entry.intent.target_id.as_deref() != Some(&keeper) {
            continue;
        }
        let id = format!("approval:{}", entry.intent.confirm_token);
        if rows.iter().any(|r| r.id == id) {
            continue;
        }
        if let Some(row) = decided_row(&id, entry) {
            rows.push(row);
        }
    }
    let mut view = pane.view();
    let t = view.transcript_mut();
    for row in rows {
        if t.get(&row.id)
            .is_none_or(|e| e.text != row.text || e.kind != row.kind)
        {
            t.upsert(row);
        }
    }
}
