//! Batch diagnostics in the `/queue` overlay (chat-screen.md C-37, C-30): which of this
//! chat's inputs run together in one execution, read from the pane's batch index on every
//! frame. Execution and request ids are shown in full here — the overlay is the explicitly
//! opened diagnostic (C-30); the conversation and the progress line never carry them.

use crate::view::chat::batch::Execution;
use crate::view::chat::pane::{ChatPane, PendingSend, SendPhase};
use crate::view::text::sanitize;
use crate::view::theme::Tone;

/// The diagnostic row under a waiting input that a binding already placed in an execution
/// (a binding may come before its `RUN_STARTED`).
pub(super) fn waiting_execution(
    pane: &ChatPane,
    request_id: &str,
    send: &PendingSend,
) -> Option<(String, Tone)> {
    let execution = pane
        .batches
        .execution_of(request_id, &pane.keeper, &send.text)?;
    // The id first and whole (the overlay is 68 cells wide; a request id is 40).
    Some((
        format!("   execution {}", sanitize(&execution.execution_id)),
        Tone::Dim,
    ))
}

/// The executions of this chat with an input still open, in first-appearance order, each
/// with its members (the earliest first); and the bindings that named no input.
pub(super) fn lines(pane: &ChatPane) -> Vec<(String, Tone)> {
    let open: Vec<&Execution> = pane
        .batches
        .executions()
        .iter()
        .filter(|e| e.members.iter().any(|m| is_open(pane.send(&m.request_id))))
        .collect();
    let mut out = Vec::new();
    if !open.is_empty() {
        out.push((
            "inputs run together (request ids, earliest first)".to_string(),
            Tone::Strong,
        ));
    }
    for execution in open {
        let running = execution.members.iter().any(|m| {
            pane.send(&m.request_id)
                .is_some_and(|s| s.phase == SendPhase::Running || s.activity.is_some())
        });
        out.push((
            format!("execution {}", sanitize(&execution.execution_id)),
            Tone::Normal,
        ));
        out.push((
            format!(
                "   {} input(s) · {}",
                execution.members.len(),
                if running { "running" } else { "not started" }
            ),
            Tone::Dim,
        ));
        for (i, member) in execution.members.iter().enumerate() {
            let first = member.body.lines().next().unwrap_or("");
            // The count before the text: a long first line is what the width cuts.
            let again = if member.reconfirmed > 0 {
                format!(" · bound again {}×", member.reconfirmed)
            } else {
                String::new()
            };
            out.push((
                format!(
                    "   {} {}{again} · {}",
                    i + 1,
                    sanitize(&member.request_id),
                    sanitize(first)
                ),
                Tone::Dim,
            ));
        }
    }
    let unattached = pane.batches.unattached;
    if unattached.total() > 0 {
        out.push((
            format!(
                "{} batch binding(s) named no input of this chat · not attached",
                unattached.total()
            ),
            Tone::Warn,
        ));
    }
    out
}

fn is_open(send: Option<&PendingSend>) -> bool {
    send.is_some_and(|s| !matches!(s.phase, SendPhase::Ended(_) | SendPhase::Restored))
}
