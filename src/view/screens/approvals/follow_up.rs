//! The follow-up block and the recorded origin in the Ask answer reader (sources.md K-9…K-14;
//! protocol.md §10.3): answer saved, Task link, wake/turn, Tool results and Task step as
//! distinct rows, each with its own state (reading / received / unconfirmed, and a kept last
//! observation marked as not the latest confirmed), and the origin `o` expands locally.

use super::asks::clock;
use crate::actors::asks::TurnTarget;
use crate::protocol::asks::{
    Ask, TaskObservation, ToolResultBucket, ToolResultObservation, WakeObservation,
};
use crate::view::approvals::asks::{FollowUp, FollowUpRead, SourceRead, Unconfirmed};
use crate::view::text::{sanitize, wrap};
use crate::view::theme::{Theme, Tone};
use ratatui::text::Line;

fn mark<T: Clone>(s: &SourceRead<T>) -> (&'static str, Tone) {
    match s {
        SourceRead::NotRead => ("·", Tone::Dim),
        SourceRead::Reading { .. } => ("…", Tone::Busy),
        SourceRead::Received(_) => ("✓", Tone::Good),
        SourceRead::Unconfirmed { .. } => ("?", Tone::Warn),
    }
}

fn why(u: &Unconfirmed) -> String {
    match u {
        Unconfirmed::Cut(cut) => format!("stream ended before completion ({})", cut.class()),
        Unconfirmed::Failed(f) => format!("read failed ({})", f.class()),
        Unconfirmed::Cancelled => "read cancelled".to_string(),
        Unconfirmed::Withdrawn => "read authority withdrawn".to_string(),
    }
}

/// The state words of one source: received (latest confirmed), reading, unconfirmed, with a
/// kept last observation marked as not the latest confirmed (K-10, K-11).
fn state_words<T: Clone>(s: &SourceRead<T>) -> String {
    match s {
        SourceRead::NotRead => "not read".to_string(),
        SourceRead::Reading { last: None } => "reading…".to_string(),
        SourceRead::Reading { last: Some(_) } => {
            "reading… · last observation, not the latest confirmed".to_string()
        }
        SourceRead::Received(_) => "received".to_string(),
        SourceRead::Unconfirmed { last, why: w } => format!(
            "unconfirmed: {}{}",
            why(w),
            if last.is_some() {
                " · last observation, not the latest confirmed"
            } else {
                ""
            }
        ),
    }
}

fn wake_words(o: &WakeObservation) -> String {
    match o {
        WakeObservation::Observed { turns, complete } => {
            let list: Vec<String> = turns
                .iter()
                .map(|t| {
                    format!(
                        "{} ({}, {})",
                        sanitize(&t.turn_ref),
                        sanitize(&t.wake_reason),
                        clock(t.started_at)
                    )
                })
                .collect();
            format!(
                "{} {} turn{}: {}",
                if *complete { "observed" } else { "partial," },
                turns.len(),
                if turns.len() == 1 { "" } else { "s" },
                list.join(", ")
            )
        }
        WakeObservation::ObservedEmpty {} => "observed: no wake turn".to_string(),
        WakeObservation::Unavailable { reason } => {
            format!("unobservable: {}", sanitize(reason))
        }
    }
}

fn bucket_name(b: ToolResultBucket) -> &'static str {
    match b {
        ToolResultBucket::Success => "success",
        ToolResultBucket::Held => "held",
        ToolResultBucket::Failure => "failure",
        ToolResultBucket::Undetermined => "undetermined",
        ToolResultBucket::Malformed => "malformed",
    }
}

fn tool_words(o: &ToolResultObservation) -> String {
    match o {
        ToolResultObservation::Observed { totals, latest } => {
            let latest = match latest {
                Some(l) => format!(
                    " · latest {} {} {}",
                    bucket_name(l.bucket),
                    sanitize(&l.tool),
                    clock(l.at)
                ),
                None => " · no result yet".to_string(),
            };
            format!(
                "success {} · held {} · failure {} · undetermined {} · malformed {}{latest}",
                totals.success, totals.held, totals.failure, totals.undetermined, totals.malformed
            )
        }
        ToolResultObservation::Unavailable { reason } => {
            format!("unobservable: {}", sanitize(reason))
        }
    }
}

fn task_words(o: &TaskObservation) -> String {
    match o {
        TaskObservation::Observed {
            task_id,
            status,
            observed_at,
        } => format!(
            "{} {} (observed {}) · a Task step, not Goal completion",
            sanitize(task_id),
            sanitize(status),
            clock(*observed_at)
        ),
        TaskObservation::Unlinked {} => "no Task linked to the question".to_string(),
        TaskObservation::Unavailable { reason } => format!("unobservable: {}", sanitize(reason)),
    }
}

/// The follow-up block: answer saved, wake/turn, Tool result and Task as distinct rows, each
/// with its own state (K-9…K-12).
pub fn follow_up_lines(
    f: &FollowUp,
    saved: Option<(String, Tone)>,
    width: usize,
    theme: Theme,
) -> Vec<Line<'static>> {
    let head = match &f.read {
        FollowUpRead::Reading => "reading…".to_string(),
        FollowUpRead::Completed => "complete".to_string(),
        FollowUpRead::Ended(u) => format!("{} · missing sources unconfirmed", why(u)),
    };
    let mut out = vec![Line::styled(
        format!("FOLLOW-UP · read {} · {head}", f.reads),
        theme.style(Tone::Strong),
    )];
    let mut row = |label: &str, m: (&str, Tone), text: String| {
        for (i, part) in wrap(
            &format!("{label:<13} {text}"),
            width.saturating_sub(4).max(1),
        )
        .into_iter()
        .enumerate()
        {
            let lead = if i == 0 { m.0 } else { " " };
            out.push(Line::styled(format!("  {lead} {part}"), theme.style(m.1)));
        }
    };
    if let Some((words, tone)) = saved {
        row("answer saved", ("✓", tone), words);
    }
    let link = match f.task_link.shown() {
        Some(Some(id)) => format!("{} (the Task stored on the question)", sanitize(id)),
        Some(None) => "none (the question has no Task)".to_string(),
        None => String::new(),
    };
    row(
        "task link",
        mark(&f.task_link),
        format!("{link} [{}]", state_words(&f.task_link)),
    );
    let shown = |o: Option<String>| o.map(|t| format!("{t} ")).unwrap_or_default();
    row(
        "wake / turn",
        mark(&f.wake),
        format!(
            "{}[{}]",
            shown(f.wake.shown().map(wake_words)),
            state_words(&f.wake)
        ),
    );
    row(
        "tool results",
        mark(&f.tool_result),
        format!(
            "{}[{}]",
            shown(f.tool_result.shown().map(tool_words)),
            state_words(&f.tool_result)
        ),
    );
    row(
        "task step",
        mark(&f.task),
        format!(
            "{}[{}]",
            shown(f.task.shown().map(task_words)),
            state_words(&f.task)
        ),
    );
    out
}

/// The recorded origin of `ask` (K-14): what this session recorded, expanded locally. §10.1
/// carries no origin field: the origin is the Ask as listed, the Task the follow-up's start
/// names, and the wake turns the follow-up received — never the Keeper's current turn.
pub fn origin_lines(
    ask: &Ask,
    follow: Option<&FollowUp>,
    width: usize,
    theme: Theme,
) -> Vec<Line<'static>> {
    let mut out = vec![Line::styled("ORIGIN (recorded)", theme.style(Tone::Strong))];
    let mut text = |t: String, tone: Tone| {
        for part in wrap(&t, width.saturating_sub(2).max(1)) {
            out.push(Line::styled(format!("  {part}"), theme.style(tone)));
        }
    };
    text(
        format!(
            "{} · {} · asked {}",
            sanitize(&ask.keeper),
            sanitize(&ask.ask_id),
            clock(ask.asked_at)
        ),
        Tone::Normal,
    );
    text(format!("context: {}", sanitize(&ask.context)), Tone::Normal);
    match follow.and_then(|f| f.task_link.shown()) {
        Some(Some(task)) => text(
            format!("Task on the question: {}", sanitize(task)),
            Tone::Normal,
        ),
        Some(None) => text("Task on the question: none".into(), Tone::Dim),
        None => text("Task on the question: not recorded yet".into(), Tone::Dim),
    }
    match origin_turn(ask, follow) {
        Some(t) => text(
            format!("Turn_ref: {} · O opens the inspector pinned to it", sanitize(&t.turn_ref)),
            Tone::Accent,
        ),
        None => text(
            "Turn_ref: none recorded for this Ask (the Keeper's current turn is never used instead)"
                .into(),
            Tone::Dim,
        ),
    }
    out
}

/// The `Turn_ref` `O` pins: the first wake turn the follow-up recorded for this answer.
pub fn origin_turn(ask: &Ask, follow: Option<&FollowUp>) -> Option<TurnTarget> {
    let f = follow?;
    let turn_ref = f.turn_refs().first().map(|t| t.to_string())?;
    Some(TurnTarget {
        keeper: ask.keeper.clone(),
        turn_ref,
    })
}
