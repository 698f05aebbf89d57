//! Work → Goals: the Planning rollup (phase counts with the net change since the first reading
//! of this session, Task backlog counts, filter and sort legend) and the goal rows grouped by
//! phase (protocol.md §5.7). Counts are the server's aggregates, shown as sent; an optional
//! count that was not sent is not shown as 0.

use super::state::{goal_order, phase_group};
use super::{GoalSort, GoalsUi};
use crate::protocol::planning::{Planning, PlanningRead, ProofObservation, Rollup};
use crate::view::model::Model;
use crate::view::screens::ProjectionCtx;
use crate::view::screens::widgets::{annotation, effective_offset, no_value_line, row};
use crate::view::text::{fit_width, pad_to, sanitize};
use crate::view::theme::{Theme, Tone};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

fn delta(now: u64, first: Option<u64>) -> String {
    match first {
        Some(f) if now > f => format!(" (+{})", now - f),
        Some(f) if now < f => format!(" (-{})", f - now),
        _ => String::new(),
    }
}

fn rollup_line(r: &Rollup, first: Option<&Rollup>, theme: Theme) -> Line<'static> {
    let mut spans = Vec::new();
    let mut item = |label: &str, n: Option<u64>, f: Option<u64>, tone: Tone| {
        if let Some(n) = n {
            spans.push(Span::styled(format!("{label} {n}"), theme.style(tone)));
            spans.push(Span::styled(
                format!("{} · ", delta(n, f)),
                theme.style(Tone::Dim),
            ));
        }
    };
    item(
        "Executing",
        Some(r.active_count),
        first.map(|f| f.active_count),
        Tone::Busy,
    );
    item(
        "Paused/Blocked",
        r.paused_count,
        first.and_then(|f| f.paused_count),
        Tone::Warn,
    );
    item(
        "Awaiting",
        r.awaiting_confirmation_count,
        first.and_then(|f| f.awaiting_confirmation_count),
        Tone::Warn,
    );
    item(
        "Verifying",
        Some(r.verifying_count),
        first.map(|f| f.verifying_count),
        Tone::Accent,
    );
    item(
        "Done",
        Some(r.done_count),
        first.map(|f| f.done_count),
        Tone::Good,
    );
    item(
        "Dropped",
        Some(r.dropped_count),
        first.map(|f| f.dropped_count),
        Tone::Dim,
    );
    Line::from(spans)
}

fn backlog_line(p: &Planning, theme: Theme) -> Line<'static> {
    let b = &p.task_backlog;
    let mut text = format!(
        "Tasks: todo {} · claimed {} · in progress {}",
        b.todo, b.claimed, b.in_progress
    );
    if let Some(av) = b.awaiting_verification {
        text.push_str(&format!(" · awaiting verification {av}"));
    }
    text.push_str(&format!(" · done {} · cancelled {}", b.done, b.cancelled));
    Line::styled(text, theme.style(Tone::Normal))
}

/// The proof-ledger observation in full for the Goal detail (§5.7): the verdict's reason and
/// evidence as inert text; a ledger error and an absent row are said as such, never "idle".
pub fn proof_detail(v: &ProofObservation) -> (String, Tone) {
    let verdict = |word: &str, verdict: &crate::protocol::planning::ProofVerdict| {
        let mut text = format!("proof: {word}");
        if verdict.outcome != word {
            text.push_str(&format!(" (verdict {})", sanitize(&verdict.outcome)));
        }
        if let Some(reason) = &verdict.reason {
            text.push_str(&format!(" — {}", sanitize(reason)));
        }
        match &verdict.evidence {
            Some(serde_json::Value::Array(items)) if !items.is_empty() => {
                let items: Vec<String> = items
                    .iter()
                    .map(|i| match i {
                        serde_json::Value::String(s) => sanitize(s).into_owned(),
                        other => sanitize(&other.to_string()).into_owned(),
                    })
                    .collect();
                text.push_str(&format!(" · evidence: {}", items.join(", ")));
            }
            Some(serde_json::Value::Array(_)) | None => text.push_str(" · no evidence listed"),
            Some(other) => text.push_str(&format!(" · evidence: {}", sanitize(&other.to_string()))),
        }
        text
    };
    match v {
        ProofObservation::Idle => ("proof: idle (no proof requested)".into(), Tone::Dim),
        ProofObservation::Pending { requested_at } => (
            match requested_at {
                Some(at) => format!("proof: pending since {}", sanitize(at)),
                None => "proof: pending (requested when: not sent)".to_string(),
            },
            Tone::Warn,
        ),
        ProofObservation::Proven { verdict: v } => (verdict("proven", v), Tone::Good),
        ProofObservation::Refuted { verdict: v } => (verdict("refuted", v), Tone::Bad),
        ProofObservation::LedgerError { detail } => (
            format!("proof: ledger error — {}", sanitize(detail)),
            Tone::Bad,
        ),
        ProofObservation::Unreadable => (
            "proof: unreadable (no readable ledger row in this read)".into(),
            Tone::Warn,
        ),
    }
}

fn proof(v: &ProofObservation) -> &'static str {
    match v {
        ProofObservation::Idle => "proof idle",
        ProofObservation::Pending { .. } => "proof pending",
        ProofObservation::Proven { .. } => "proven",
        ProofObservation::Refuted { .. } => "refuted",
        ProofObservation::LedgerError { .. } => "ledger error",
        ProofObservation::Unreadable => "proof unreadable",
    }
}

pub fn render(model: &Model, ui: &GoalsUi, ctx: &ProjectionCtx, area: Rect, buf: &mut Buffer) {
    let theme = ctx.theme;
    let slot = &model.work.planning;
    let mut title = vec![Span::styled("GOALS", theme.style(Tone::Strong))];
    if let Some((text, tone)) = annotation(&slot.fetched, ctx.now) {
        title.push(Span::styled(format!("  {text}"), theme.style(tone)));
    }
    if let Some(r) = row(area, 0) {
        Line::from(title).render(r, buf);
    }
    if let Some(line) = no_value_line("planning", &slot.fetched, theme) {
        if let Some(r) = row(area, 1) {
            line.render(r, buf);
        }
        return;
    }
    let Some(observed) = slot.fetched.last() else {
        return;
    };
    let planning = match observed.value.as_ref() {
        PlanningRead::Snapshot(p) => p,
        PlanningRead::GoalStoreUnavailable { error } => {
            if let Some(r) = row(area, 1) {
                Line::styled(
                    format!("goals unavailable (goal store): {}", sanitize(error)),
                    theme.style(Tone::Bad),
                )
                .render(r, buf);
            }
            return;
        }
    };
    let first = model.work.first_planning.as_ref().map(|f| &f.rollup);
    let header = [
        rollup_line(&planning.rollup, first, theme),
        backlog_line(planning, theme),
        Line::styled(
            format!(
                "filter: {} (f) · sort: {} (s) · counts are server aggregates",
                ui.filter.label(),
                ui.sort.label()
            ),
            theme.style(Tone::Dim),
        ),
    ];
    for (i, line) in header.into_iter().enumerate() {
        if let Some(r) = row(area, 1 + i as u16) {
            line.render(r, buf);
        }
    }
    let list = Rect::new(
        area.x,
        area.y + 4.min(area.height),
        area.width,
        area.height.saturating_sub(4),
    );
    let order = goal_order(&planning.goals, ui.filter, ui.sort);
    if order.is_empty() {
        let text = if planning.goals.is_empty() {
            "no goals (the goal store lists none)"
        } else {
            "no goals match this filter"
        };
        if let Some(r) = row(list, 0) {
            Line::styled(text, theme.style(Tone::Dim)).render(r, buf);
        }
        return;
    }
    // With phase grouping every group heading takes a row.
    let mut lines: Vec<(Option<usize>, Line<'static>)> = Vec::new();
    let mut last_group = None;
    for (pos, &i) in order.iter().enumerate() {
        let g = &planning.goals[i];
        if ui.sort == GoalSort::PhasePriority {
            let (n, label) = phase_group(g.phase);
            if last_group != Some(n) {
                lines.push((None, Line::styled(label, theme.style(Tone::Dim))));
                last_group = Some(n);
            }
        }
        let selected = pos == ui.selected.min(order.len() - 1);
        let mark = if selected { "▸ " } else { "  " };
        let when = match ui.sort {
            GoalSort::Due => g.due_date.clone().unwrap_or_else(|| "no due date".into()),
            _ => g
                .updated_at
                .clone()
                .unwrap_or_else(|| "not recorded".into()),
        };
        let meta = format!(
            " P{} · {} · {} · {}",
            g.priority,
            g.phase.as_str(),
            proof(&g.verification),
            sanitize(&when)
        );
        let id = pad_to(&fit_width(&sanitize(&g.id), 10), 10);
        let room = (area.width as usize).saturating_sub(2 + 11 + meta.chars().count());
        let title = fit_width(&sanitize(&g.title), room.max(8)).into_owned();
        let style = if selected {
            theme.selected()
        } else {
            theme.style(Tone::Normal)
        };
        lines.push((
            Some(pos),
            Line::from(vec![
                Span::styled(format!("{mark}{id} "), style),
                Span::styled(title, style),
                Span::styled(meta, theme.style(Tone::Dim)),
            ]),
        ));
    }
    let page = list.height as usize;
    let sel_line = lines
        .iter()
        .position(|(p, _)| *p == Some(ui.selected.min(order.len() - 1)))
        .unwrap_or(0);
    let offset = effective_offset(sel_line, ui.offset, page.max(1), lines.len());
    for (i, (_, line)) in lines.into_iter().skip(offset).take(page).enumerate() {
        if let Some(r) = row(list, i as u16) {
            line.render(r, buf);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::planning::ProofVerdict;

    /// §5.7: every proof observation reads differently; server text is sanitised; an absent
    /// ledger row is never worded as idle.
    #[test]
    fn proof_detail_says_each_observation_distinctly() {
        let verdict = |outcome: &str, evidence| ProofVerdict {
            outcome: outcome.into(),
            reason: Some("ok\u{1b}]0;pwned\u{7}done".into()),
            evidence,
        };
        let all = [
            ProofObservation::Idle,
            ProofObservation::Pending {
                requested_at: Some("2026-11-19T14:00:00Z".into()),
            },
            ProofObservation::Proven {
                verdict: verdict("proven", Some(serde_json::json!(["task:1", "ci:2"]))),
            },
            ProofObservation::Refuted {
                verdict: verdict("refuted_by_review", None),
            },
            ProofObservation::LedgerError {
                detail: "row 5".into(),
            },
            ProofObservation::Unreadable,
        ];
        let texts: Vec<String> = all.iter().map(|v| proof_detail(v).0).collect();
        for (i, a) in texts.iter().enumerate() {
            assert!(!a.chars().any(|c| c.is_control()), "{a:?}");
            for b in &texts[i + 1..] {
                assert_ne!(a, b);
            }
        }
        assert!(texts[2].contains("task:1, ci:2") && !texts[2].contains("verdict"));
        assert!(texts[3].contains("verdict refuted_by_review") && texts[3].contains("no evidence"));
        assert!(!texts[5].contains("idle"));
    }
}
