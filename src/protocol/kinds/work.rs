//! Manifest kinds of the work families (health, keepers, chat, tasks, goals, planning):
//! decode a payload and summarise it in one line of typed facts.

use super::KindSummary;
use crate::protocol::chat::{
    ChatHistoryArray, ChatHistoryPage, ChatHistoryRow, ChatOperationRecord, ChatPostAnswer,
    ChatStreamEvent, ChatStreamOutcome, ChatTranscript, OperationProgress, RowCounts,
};
use crate::protocol::decode::{DecodeError, DecodeErrorKind, WireDecode, decode_json};
use crate::protocol::goals::{ApprovalQueueState, GoalDetailRead, GoalsTree, Timeline};
use crate::protocol::health::{CommitField, Health};
use crate::protocol::keepers::{Candle, KeeperRoster};
use crate::protocol::planning::{PlanningRead, ProofObservation};
use crate::protocol::tasks::LegacyTaskEvents;
use std::collections::BTreeMap;

/// Kind dispatcher of these families (registered in `kinds::decode_kind`).
pub fn decode(kind: &str, bytes: &[u8]) -> Option<Result<KindSummary, DecodeError>> {
    Some(match kind {
        "health" => health(bytes),
        "gate_keepers" => gate_keepers(bytes),
        "keeper_chat_stream" => keeper_chat_stream(bytes),
        "keeper_chat_history_page" => chat_history_page(bytes),
        "keeper_chat_history" => chat_history_array(bytes),
        "keeper_chat_events" => chat_events(bytes),
        "turn_transcript" => turn_transcript(bytes),
        "keeper_chat_operation" => chat_operation(bytes),
        "tasks_history" => tasks_history(bytes),
        "goals_tree" => goals_tree(bytes),
        "goals_detail" => goals_detail(bytes),
        "planning" => planning(bytes),
        _ => return None,
    })
}

fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

/// ` (a 1, b 2)` from a tally; empty when nothing was counted.
fn tally<K: std::fmt::Display>(counts: &BTreeMap<K, usize>) -> String {
    if counts.is_empty() {
        return String::new();
    }
    let items = counts
        .iter()
        .map(|(k, n)| format!("{k} {n}"))
        .collect::<Vec<_>>()
        .join(", ");
    format!(" ({items})")
}

fn health(bytes: &[u8]) -> Result<KindSummary, DecodeError> {
    let h: Health = decode_json(bytes)?;
    let startup = match &h.startup {
        Some(s) => format!("state_ready {}", s.state_ready),
        None => "no startup block (older server)".to_string(),
    };
    let receipts = h.admission.as_ref().is_some_and(|a| a.receipts);
    let commit = match h.build.as_ref().and_then(|b| b.commit()) {
        Some((_, CommitField::Commit)) => "build.commit",
        Some((_, CommitField::BinaryCommit)) => "build.binary_commit",
        None => "no commit",
    };
    Ok(format!(
        "health: paths read (base {} chars, root {} chars), {startup}, receipts advertised {}, {commit}",
        h.paths.effective_base_path.chars().count(),
        h.paths.effective_masc_root.chars().count(),
        yes_no(receipts)
    ))
}

/// §4.4 record (no request id to echo: the CLI reads the record alone).
fn chat_operation(bytes: &[u8]) -> Result<KindSummary, DecodeError> {
    let r = ChatOperationRecord::decode(bytes)?;
    let detail = match &r.progress {
        OperationProgress::Failed {
            outcome_ref,
            failure_kind,
            ..
        } => format!(
            " ({failure_kind}, outcome_ref {})",
            if outcome_ref.is_some() { "set" } else { "null" }
        ),
        _ => String::new(),
    };
    Ok(format!(
        "chat operation: state {}{detail}, cancellation {}",
        r.progress.state().as_str(),
        yes_no(r.progress.is_cancellation())
    ))
}

fn gate_keepers(bytes: &[u8]) -> Result<KindSummary, DecodeError> {
    let roster = KeeperRoster::decode(bytes)?;
    // Strict for the decode command: one refused row refuses the payload.
    if let Some(err) = roster.first_refused_row() {
        return Err(err.clone());
    }
    let mut by_status = BTreeMap::new();
    for k in roster.keepers() {
        *by_status.entry(k.status.as_str()).or_insert(0usize) += 1;
    }
    let candle = match &roster.candle {
        None => "no candle key",
        Some(Candle::Off {}) => "candle off",
        Some(Candle::Disabled { .. }) => "candle disabled",
        Some(Candle::Ready { .. }) => "candle ready",
    };
    let statuses = tally(&by_status);
    Ok(format!(
        "gate_keepers: {} keepers{statuses}, {candle}, total {}, {}",
        roster.count,
        roster.total,
        if roster.truncated {
            "truncated"
        } else {
            "not truncated"
        }
    ))
}

fn keeper_chat_stream(bytes: &[u8]) -> Result<KindSummary, DecodeError> {
    let transcript = match ChatPostAnswer::from_recorded(bytes, None, None)? {
        ChatPostAnswer::Refused(refusal) => {
            return Err(DecodeError::new(
                DecodeErrorKind::Other(refusal.reject_reason()),
                ".",
                "a JSON refusal before any stream: the turn was not applied",
            ));
        }
        ChatPostAnswer::Stream(t) => t,
    };
    let ChatTranscript { events, outcome } = &transcript;
    if let Some(reason) = outcome.reject_reason() {
        return Err(DecodeError::new(
            DecodeErrorKind::Other(reason),
            ".",
            outcome_detail(outcome, events.len()),
        ));
    }
    let text_deltas = events
        .iter()
        .filter(|e| matches!(e, ChatStreamEvent::TextDelta { .. }))
        .count();
    let tool_calls = events
        .iter()
        .filter(|e| matches!(e, ChatStreamEvent::ToolCallStart { .. }))
        .count();
    Ok(match outcome {
        ChatStreamOutcome::Completed {
            reply,
            replayed_from,
            ..
        } => format!(
            "keeper_chat_stream: completed after {} events ({text_deltas} text deltas, {tool_calls} tool calls), reply {} chars, turn_outcome {}{}",
            events.len(),
            reply.reply.chars().count(),
            reply.turn_outcome.as_str(),
            replayed_from
                .map(|s| format!(", replayed from {}", s.as_str()))
                .unwrap_or_default()
        ),
        ChatStreamOutcome::ReplayedTerminal { state, .. } => format!(
            "keeper_chat_stream: replayed terminal state {} ({} event, no live turn)",
            state.as_str(),
            events.len()
        ),
        other => outcome_detail(other, events.len()),
    })
}

fn outcome_detail(outcome: &ChatStreamOutcome, events: usize) -> String {
    match outcome {
        ChatStreamOutcome::Failed {
            pre_acceptance,
            code,
            message,
        } => format!(
            "RUN_ERROR {} acceptance, code {}, message {} chars{}",
            if *pre_acceptance { "before" } else { "after" },
            code.as_ref().map(|c| c.as_str()).unwrap_or("absent"),
            message.chars().count(),
            if outcome.verified_not_applied() {
                ", verified not applied"
            } else {
                ""
            }
        ),
        ChatStreamOutcome::Interrupted {
            accepted,
            partial_text_len,
        } => format!(
            "no terminal event after {events} events: outcome unknown (accepted {}, {partial_text_len} bytes of partial text, not a reply)",
            yes_no(*accepted)
        ),
        ChatStreamOutcome::ReplayedTerminal { state, .. } => {
            format!("replayed acceptance in state {}", state.as_str())
        }
        ChatStreamOutcome::Completed { .. } => "completed".to_string(),
    }
}

fn chat_history_page(bytes: &[u8]) -> Result<KindSummary, DecodeError> {
    let page = ChatHistoryPage::decode(bytes)?;
    Ok(format!(
        "keeper_chat_history_page: {} messages{}, has_more {}, next_before {}{}",
        page.messages.len(),
        chat_rows_summary(&page.messages, page.counts()),
        page.has_more,
        page.next_before
            .map(|b| b.to_string())
            .unwrap_or_else(|| "none".into()),
        if page.schema_sent {
            ""
        } else {
            ", no schema key (older server)"
        }
    ))
}

fn chat_events(bytes: &[u8]) -> Result<KindSummary, DecodeError> {
    use crate::protocol::chat::journal::{ChatEventsPage, JournalEvent};
    let page = ChatEventsPage::decode_standalone(bytes)?;
    let kept = page
        .events
        .iter()
        .filter(|l| matches!(l.event, JournalEvent::Other { .. }))
        .count();
    let terminal = match page.terminal().map(|l| &l.event) {
        Some(JournalEvent::RunFinished { .. }) => "run_finished",
        Some(_) => "event_error",
        None => "none on this page",
    };
    Ok(format!(
        "keeper_chat_events: operation {} (its own echo), {} lines ({kept} of types kept by tag), \
         terminal {terminal}, has_more {}, next_since_seq {}",
        crate::sanitize::sanitize_line(&page.operation_id),
        page.events.len(),
        page.has_more,
        page.next_since_seq
    ))
}

fn chat_history_array(bytes: &[u8]) -> Result<KindSummary, DecodeError> {
    let array = ChatHistoryArray::decode(bytes)?;
    Ok(format!(
        "keeper_chat_history: {} rows{}, {} autonomous",
        array.rows.len(),
        chat_rows_summary(&array.rows, array.counts()),
        array.autonomous().count()
    ))
}

/// Roles tallied, Gate steps, and what the rows carried that is not shown as speech (§15.9).
fn chat_rows_summary(rows: &[ChatHistoryRow], counts: RowCounts) -> String {
    let mut roles = BTreeMap::new();
    for m in rows {
        *roles.entry(m.role.as_str()).or_insert(0usize) += 1;
    }
    let gate = rows.iter().filter(|r| r.gate_step().is_some()).count();
    let mut out = tally(&roles);
    if gate > 0 {
        out.push_str(&format!(", {gate} Gate steps"));
    }
    for (n, words) in [
        (counts.dropped, "rows dropped (not rows)"),
        (
            counts.unknown_role,
            "rows of an unknown role (neutral lane)",
        ),
        (
            counts.unknown_kind,
            "rows of an unknown kind (neutral lane)",
        ),
        (counts.identity_ignored, "identity pairs ignored"),
    ] {
        if n > 0 {
            out.push_str(&format!(", {n} {words}"));
        }
    }
    out
}

fn turn_transcript(bytes: &[u8]) -> Result<KindSummary, DecodeError> {
    use crate::protocol::transcript::{TranscriptRowKind, TranscriptVersion, TurnTranscript};
    let t = TurnTranscript::decode(bytes)?;
    let version = |v: &TranscriptVersion| match v {
        TranscriptVersion::V1 => "version 1 (MASC)",
        TranscriptVersion::V2 => "version 2 (masc-tui extension)",
    };
    Ok(match &t {
        TurnTranscript::Found {
            rows, version: v, ..
        } => format!(
            "turn_transcript {}: {} rows, {} failed requests",
            version(v),
            rows.len(),
            rows.iter()
                .filter(|r| r.kind == TranscriptRowKind::RequestFailure)
                .count()
        ),
        TurnTranscript::NotRetained { version: v, .. } => {
            format!("turn_transcript {}: not retained", version(v))
        }
    })
}

fn tasks_history(bytes: &[u8]) -> Result<KindSummary, DecodeError> {
    let legacy = LegacyTaskEvents::decode(bytes)?;
    Ok(format!(
        "tasks_history: legacy recent array, {} events (no cursor, no end signal)",
        legacy.events.len()
    ))
}

fn approval(state: &Option<ApprovalQueueState>) -> &'static str {
    match state {
        None => "approval queue not reported",
        Some(ApprovalQueueState::Ready {}) => "approval queue ready",
        Some(ApprovalQueueState::Unavailable { .. }) => "approval queue unavailable",
    }
}

fn goals_tree(bytes: &[u8]) -> Result<KindSummary, DecodeError> {
    let tree = GoalsTree::decode(bytes)?;
    let nodes: usize = tree.tree.iter().map(|n| n.node_count()).sum();
    let dropped: usize = tree
        .tree
        .iter()
        .filter_map(|n| n.timeline_events.as_ref())
        .map(|t| t.dropped_rows)
        .sum();
    Ok(format!(
        "goals_tree: {} root goals ({nodes} nodes), {}, total_goals {}, {dropped} non-server timeline rows dropped",
        tree.tree.len(),
        approval(&tree.approval_queue_state),
        tree.summary
            .total_goals
            .map(|n| n.to_string())
            .unwrap_or_else(|| "not sent".into()),
    ))
}

fn goals_detail(bytes: &[u8]) -> Result<KindSummary, DecodeError> {
    match GoalDetailRead::decode(bytes)? {
        GoalDetailRead::NotFound { .. } => Err(DecodeError::new(
            DecodeErrorKind::Other("goal_not_found"),
            ".ok",
            "HTTP 200 not-found body: the goal read failed",
        )),
        GoalDetailRead::Found(d) => {
            let timeline = match &d.timeline {
                Timeline::Events(e) => format!("timeline {} events", e.len()),
                Timeline::Unavailable => "timeline unavailable".into(),
                Timeline::NotSent => "timeline not sent".into(),
            };
            let goal = match &d.goal {
                Some(g) => format!("goal phase {}", g.phase),
                None => "no goal node".into(),
            };
            let keepers = d
                .linked_keepers
                .as_ref()
                .map(|k| k.len().to_string())
                .unwrap_or_else(|| "not sent".into());
            Ok(format!(
                "goals_detail: {goal}, {}, {timeline}, linked keepers {keepers}",
                approval(&d.approval_queue_state)
            ))
        }
    }
}

fn planning(bytes: &[u8]) -> Result<KindSummary, DecodeError> {
    let p = match PlanningRead::decode(bytes)? {
        PlanningRead::GoalStoreUnavailable { .. } => {
            return Err(DecodeError::new(
                DecodeErrorKind::Other("goal_store_unavailable"),
                ".error_code",
                "the goal store is unavailable: goals unavailable, not \"no goals\"",
            ));
        }
        PlanningRead::Snapshot(p) => p,
    };
    let mut phases = BTreeMap::new();
    for g in &p.goals {
        *phases.entry(g.phase.as_str()).or_insert(0usize) += 1;
    }
    let unreadable_proofs = p
        .goals
        .iter()
        .filter(|g| g.verification == ProofObservation::Unreadable)
        .count();
    let mut proofs = BTreeMap::new();
    for g in &p.goals {
        let word = match &g.verification {
            ProofObservation::Idle => "idle",
            ProofObservation::Pending { .. } => "pending",
            ProofObservation::Proven { .. } => "proven",
            ProofObservation::Refuted { .. } => "refuted",
            ProofObservation::LedgerError { .. } => "ledger_error",
            ProofObservation::Unreadable => "unreadable",
        };
        *proofs.entry(word).or_insert(0usize) += 1;
    }
    let r = &p.rollup;
    let b = &p.task_backlog;
    let opt = |v: Option<u64>| {
        v.map(|n| n.to_string())
            .unwrap_or_else(|| "not sent".into())
    };
    Ok(format!(
        "planning: {} goals{}, rollup active {} verifying {} done {} dropped {} paused {}, backlog todo {} claimed {} in_progress {} awaiting_verification {} done {} cancelled {}, goal_history {}, {unreadable_proofs} proofs unreadable, proofs{}",
        p.goals.len(),
        tally(&phases),
        r.active_count,
        r.verifying_count,
        r.done_count,
        r.dropped_count,
        opt(r.paused_count),
        b.todo,
        b.claimed,
        b.in_progress,
        opt(b.awaiting_verification),
        b.done,
        b.cancelled,
        if p.goal_history.is_some() {
            "sent"
        } else {
            "not sent"
        },
        tally(&proofs),
    ))
}
