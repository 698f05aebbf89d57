//! Held tool calls of the chat target in its transcript (protocol.md §14.5;
//! chat-screen.md C-44, C-53): every call the chat's Keeper's turn waits on is a gate row —
//! news first, then the target, joined by `·` — that stays in the default view while it waits
//! (C-44). `/approve` and `/deny` answer the oldest one through the held call save
//! (`held_call_decision`), armed like the approval decision; its receipt replaces the news
//! (`판정 중 · 이 호출은 미뤄짐`, `승인됨 · 적용 예정`, `거부됨 · 실행 안 됨`). A failed answer is an
//! error row (C-8). A call that leaves the list without an answer from here reads `대기 끝남`
//! (answered elsewhere or timed out: the list does not say which).

use super::pane::ChatPane;
use crate::actors::decisions::held_call::{HeldCallDecision, HeldCallIntent};
use crate::protocol::chat::{ToolApprovalRequest, ToolApprovalSettled};
use crate::protocol::held_calls::{HeldCallEffect, HeldToolCall, ToolCallVerdict};
use crate::protocol::outcome::SaveOutcome;
use crate::view::approvals::decisions::DecisionsModel;
use crate::view::saves::{SaveEntry, SavePhase, Settle, clock};
use crate::view::transcript::model::{Entry, EntryKind, FailureOrigin, Speaker};

/// The row id of a held call.
fn row_id(tool_call_id: &str) -> String {
    format!("held:{tool_call_id}")
}

/// The held calls of `keeper` as last read, oldest first.
pub fn pending_for<'a>(decisions: &'a DecisionsModel, keeper: &'a str) -> Vec<&'a HeldToolCall> {
    decisions
        .held_calls
        .fetched
        .last()
        .map(|o| o.value.of_keeper(keeper).collect())
        .unwrap_or_default()
}

/// The waiting row: `승인 대기 · <tool> · <question> (<because>) · /approve or /deny`.
fn waiting_text(call: &HeldToolCall) -> String {
    waiting_words(&call.tool, Some(&call.question), call.because.as_deref())
}

fn waiting_words(tool: &str, question: Option<&str>, because: Option<&str>) -> String {
    let mut text = format!("승인 대기 · {tool}");
    if let Some(question) = question.map(str::trim).filter(|q| !q.is_empty()) {
        text.push_str(&format!(" · {question}"));
    }
    if let Some(because) = because.map(str::trim).filter(|b| !b.is_empty()) {
        text.push_str(&format!(" ({because})"));
    }
    text.push_str(" · /approve or /deny");
    text
}

/// `KEEPER_TOOL_APPROVAL_REQUESTED` on this chat's stream (§15.9): the call's gate row at once,
/// instead of on the next §14.5 poll. A hint: the list stays the authority, and a row the list
/// already drew is left to it.
pub(crate) fn hint_requested(pane: &mut ChatPane, request: &ToolApprovalRequest) {
    let id = row_id(&request.tool_call_id);
    pane.hinted_calls.insert(request.tool_call_id.clone());
    let mut view = pane.view();
    let t = view.transcript_mut();
    if t.get(&id).is_some() {
        return;
    }
    t.upsert(Entry::new(
        id,
        Speaker::System,
        EntryKind::Status,
        waiting_words(
            &request.tool_call_name,
            request.question.as_deref(),
            request.because.as_deref(),
        ),
    ));
}

/// `KEEPER_TOOL_APPROVAL_SETTLED` (§15.9): the wait ended. Only a call this chat shows is
/// updated; a settlement for a call never announced or listed is traced and ignored (no row
/// is invented for it).
pub(crate) fn hint_settled(pane: &mut ChatPane, settled: &ToolApprovalSettled) {
    let id = row_id(&settled.tool_call_id);
    let mut view = pane.view();
    let t = view.transcript_mut();
    let Some(tool) = t
        .get(&id)
        .filter(|e| e.text.starts_with("승인 대기 · "))
        .map(|e| e.text.split(" · ").nth(1).unwrap_or_default().to_string())
    else {
        tracing::info!(
            target: "masc_tui::chat",
            stage = "reject",
            reason = "unknown_call",
            "held-call settlement for a call this chat does not show"
        );
        return;
    };
    let news = match settled.outcome.to_ascii_lowercase().as_str() {
        "approved" => "승인됨 · 대기 끝남".to_string(),
        "rejected" | "denied" => "거부됨 · 대기 끝남".to_string(),
        "timed_out" => "시간 초과 · 대기 끝남".to_string(),
        "" => "대기 끝남".to_string(),
        other => format!("대기 끝남 ({other})"),
    };
    t.update(&id, |e| e.text = format!("{news} · {tool}"));
}

/// The row of one answer's receipt, or `None` while it is in flight.
fn answered_row(id: &str, entry: &SaveEntry<HeldCallDecision>) -> Option<Entry> {
    let receipt = match &entry.phase {
        SavePhase::Ended(r) | SavePhase::Restored(r) => r,
        _ => return None,
    };
    let tool = &entry.intent.tool;
    let status = |text: String| Entry::new(id, Speaker::System, EntryKind::Status, text);
    let failure = |text: String| {
        Entry::new(
            id,
            Speaker::System,
            EntryKind::Failure(FailureOrigin::Other("tool_call".into())),
            text,
        )
    };
    let describe = crate::actors::saves::refusal::describe;
    // The settle stage: the call left the list after the answer (§14.5), or it did not.
    let settled = match &entry.settle {
        Settle::Confirmed { at } => Some(format!("대기 끝남 확인 {}", clock(*at))),
        Settle::NotConfirmed { .. } | Settle::RereadFailed { .. } => {
            entry.settle.words(entry.phase.class())
        }
        _ => None,
    };
    Some(match receipt {
        SaveOutcome::Applied { detail, .. } => match (detail.effect, detail.decision) {
            (HeldCallEffect::Released, ToolCallVerdict::Approve) => match settled {
                Some(words) => status(format!("승인됨 · {words} · {tool}")),
                None => status(format!("승인됨 · 적용 예정 · {tool}")),
            },
            (HeldCallEffect::Released, ToolCallVerdict::Deny) => match settled {
                Some(words) => status(format!("거부됨 · 실행 안 됨 · {words} · {tool}")),
                None => status(format!("거부됨 · 실행 안 됨 · {tool}")),
            },
            // The wait had ended: the server keeps the answer for the same call retried.
            (HeldCallEffect::Remembered, ToolCallVerdict::Approve) => status(format!(
                "승인 기록됨 · 대기 끝남, 같은 호출이 다시 오면 적용 · {tool}"
            )),
            (HeldCallEffect::Remembered, ToolCallVerdict::Deny) => status(format!(
                "거부 기록됨 · 대기 끝남, 같은 호출이 다시 오면 적용 · {tool}"
            )),
        },
        SaveOutcome::Conflict { .. } => {
            status(format!("결정 안 됨 · 더 이상 대기 중이 아님 · {tool}"))
        }
        SaveOutcome::Unchanged => status(format!("결정 안 됨 · 바뀐 것 없음 · {tool}")),
        SaveOutcome::NotApplied { reason } | SaveOutcome::NotSent { reason } => {
            failure(format!("tool call {tool} · {}", describe(reason)))
        }
        SaveOutcome::OutcomeUnknown { reason } => status(format!(
            "결정 결과 모름 · {tool} · {} · not resent",
            describe(reason)
        )),
    })
}

/// Keeps the chat target's held-call gate rows in step with the list and this session's
/// answers: one row per call (by its id), written only when it changes.
pub fn sync(decisions: &DecisionsModel, pane: &mut ChatPane) {
    let Some(workspace) = pane.workspace.as_ref().map(|w| w.0.clone()) else {
        return;
    };
    if decisions.workspace() != Some(workspace.as_str()) {
        return;
    }
    let keeper = pane.keeper.clone();
    let listed = pending_for(decisions, &keeper);
    let mut rows: Vec<Entry> = Vec::new();
    for call in &listed {
        // Listed: the list is the authority for it now, not the stream's hint.
        pane.hinted_calls.remove(&call.tool_call_id);
        let id = row_id(&call.tool_call_id);
        let key = HeldCallIntent::call_key(&call.keeper, &call.tool_call_id);
        let row = match decisions.held_answers.latest(&key, &workspace) {
            Some(e) if e.phase.in_flight() => Entry::new(
                id,
                Speaker::System,
                EntryKind::Status,
                format!("판정 중 · 이 호출은 미뤄짐 · {}", call.tool),
            ),
            Some(e) => match answered_row(&id, e) {
                Some(row) => row,
                None => continue,
            },
            None => Entry::new(id, Speaker::System, EntryKind::Status, waiting_text(call)),
        };
        rows.push(row);
    }
    // Answers on this Keeper whose call left the list keep their receipt row.
    for entry in decisions.held_answers.entries() {
        if entry.workspace != workspace || entry.intent.keeper != keeper {
            continue;
        }
        let id = row_id(&entry.intent.tool_call_id);
        if rows.iter().any(|r| r.id == id) {
            continue;
        }
        if let Some(row) = answered_row(&id, entry) {
            rows.push(row);
        }
    }
    let read = decisions.held_calls.fetched.last().is_some();
    let hinted: Vec<String> = pane.hinted_calls.iter().map(|c| row_id(c)).collect();
    let mut view = pane.view();
    let t = view.transcript_mut();
    // A waiting row whose call left the list without an answer from here: it waits no more.
    if read {
        let gone: Vec<(String, String)> = t
            .entries()
            .iter()
            .filter(|e| e.id.starts_with("held:") && e.text.starts_with("승인 대기 · "))
            .filter(|e| !rows.iter().any(|r| r.id == e.id))
            // A call the stream announced and the list has not shown yet is not gone.
            .filter(|e| !hinted.iter().any(|h| *h == e.id))
            .map(|e| {
                let tool = e.text.split(" · ").nth(1).unwrap_or_default().to_string();
                (e.id.to_string(), tool)
            })
            .collect();
        for (id, tool) in gone {
            rows.push(Entry::new(
                id,
                Speaker::System,
                EntryKind::Status,
                format!("대기 끝남 · 더 이상 목록에 없음 · {tool}"),
            ));
        }
    }
    for row in rows {
        if t.get(&row.id)
            .is_none_or(|e| e.text != row.text || e.kind != row.kind)
        {
            t.upsert(row);
        }
    }
}
