//! The Task detail (document pane + history pane) and the Goal detail (with its timeline).
//!
//! Task rows come from the row layout (`view::work::layout`): the frame draws the visible slice
//! of already wrapped rows and never re-wraps server text. Every read state has its own words:
//! the history end is "end of stored history" (never "complete"), a failed page keeps its rows
//! with the retry cursor, and a withdrawal says the values were dropped.
//!
//! Where this MASC does not serve the task detail or history page route: the body
//! says so (with what the goal links know of the task, if they list it), and the history pane
//! shows the legacy recent events, marked "not the full history, no older pages".

use super::WorkUi;
use super::state::detail_layout;
use crate::actors::work::WorkSlot;
use crate::actors::work::{ChainNext, HistoryChain};
use crate::protocol::goals::{GoalDetailRead, Timeline, TimelineSeverity};
use crate::protocol::tasks::LegacyTaskEvent;
use crate::view::fetched::Fetched;
use crate::view::model::Model;
use crate::view::save_path::kinds::newest_on;
use crate::view::screens::ProjectionCtx;
use crate::view::screens::widgets::receipt_tone;
use crate::view::screens::widgets::{
    annotation, failure_text, not_served_lines, not_served_text, row,
};
use crate::view::text::{fit_width, sanitize};
use crate::view::theme::{Theme, Tone};
use crate::view::work::detail::OlderProgress;
use crate::view::work::{LaidOutLine, Shown, TaskDetailModel};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

fn paint_prepared(
    lines: &[LaidOutLine],
    scroll: usize,
    area: Rect,
    theme: Theme,
    buf: &mut Buffer,
) {
    for (i, line) in lines
        .iter()
        .skip(scroll)
        .take(area.height as usize)
        .enumerate()
    {
        let spans: Vec<Span<'_>> = line
            .segments
            .iter()
            .map(|(tone, text)| Span::styled(text.as_str(), theme.style(*tone)))
            .collect();
        if let Some(r) = row(area, i as u16) {
            Line::from(spans).render(r, buf);
        }
    }
}

/// The scroll actually drawn: the saved scroll clamped to the shown rows. The saved value is
/// not written back, so a provisional (shorter) rendering never resets it.
pub fn drawn_scroll(saved: usize, shown: usize, height: usize) -> usize {
    saved.min(shown.saturating_sub(height.max(1)))
}

/// The legacy marker (A-4: the recent array is never called the history).
pub const LEGACY_MARKER: &str = "legacy recent events: not the full history, no older pages";

/// The history pane's status where this MASC does not serve the page route: the legacy
/// recent events' own state; the not-served notice stands on the rows below.
fn legacy_status(task: &TaskDetailModel, ctx: &ProjectionCtx) -> (String, Tone) {
    let legacy = &task.legacy.fetched;
    match legacy {
        Fetched::NotRequested => (format!("{LEGACY_MARKER} · not read yet"), Tone::Warn),
        Fetched::Loading => (format!("{LEGACY_MARKER} · reading…"), Tone::Busy),
        Fetched::Warming { last: None } => {
            (format!("{LEGACY_MARKER} · server warming up"), Tone::Warn)
        }
        Fetched::Failed {
            last: None,
            error,
            retrying,
        } => (
            format!(
                "{} · r retries",
                failure_text("legacy recent events", error, *retrying)
            ),
            Tone::Bad,
        ),
        Fetched::NotServed { route, last: None } => {
            (not_served_text("legacy recent events", *route), Tone::Warn)
        }
        _ => {
            let n = legacy.last().map(|o| o.value.events.len()).unwrap_or(0);
            let count = match n {
                0 => "no recent events listed".to_string(),
                1 => "1 recent event".to_string(),
                n => format!("{n} recent events"),
            };
            match annotation(legacy, ctx.now) {
                Some((text, tone)) => (format!("{count} · {LEGACY_MARKER} · {text}"), tone),
                None => (format!("{count} · {LEGACY_MARKER}"), Tone::Warn),
            }
        }
    }
}

/// One legacy event as one row, cut (not wrapped) at `width`: the array is at most the page
/// demand long and only the visible rows are formatted.
fn legacy_row(e: &LegacyTaskEvent, width: usize, theme: Theme) -> Line<'static> {
    let ts = e.ts.get(..16).unwrap_or(&e.ts).replace('T', " ");
    let action = e
        .action
        .as_deref()
        .or(e.event_type.as_deref())
        .unwrap_or("event");
    let mut text = format!("{} {}", sanitize(&ts), sanitize(action));
    match (&e.from_status, &e.to_status) {
        (Some(from), Some(to)) => text.push_str(&format!(" {} → {}", sanitize(from), sanitize(to))),
        (None, Some(to)) => text.push_str(&format!(" → {}", sanitize(to))),
        _ => {}
    }
    if let Some(agent) = e.agent.as_deref().or(e.actor.as_deref()) {
        text.push_str(&format!(" · {}", sanitize(agent)));
    }
    Line::styled(
        fit_width(&text, width).into_owned(),
        theme.style(Tone::Normal),
    )
}

/// Rows of the legacy recent events (the count the keys clamp the scroll with).
pub fn legacy_len(task: &TaskDetailModel) -> Option<usize> {
    task.pages_absent()?;
    task.legacy.fetched.last().map(|o| o.value.events.len())
}

/// What the goal links know of `task_id`, when the task detail route is not
/// served: the row the goals tree lists, marked as such; nothing when no goal links it.
fn goal_link_lines(model: &Model, task_id: &str, theme: Theme) -> Vec<Line<'static>> {
    let Some(linked) = model.work.linked_tasks.fetched.last() else {
        return Vec::new();
    };
    let Some(t) = linked.value.task(task_id) else {
        return vec![Line::styled(
            "no goal links this task: nothing else of it is known here",
            theme.style(Tone::Dim),
        )];
    };
    let mut lines = vec![Line::styled(
        "from goal links (not the task body):",
        theme.style(Tone::Dim),
    )];
    lines.push(Line::raw(sanitize(&t.title).into_owned()));
    lines.push(Line::styled(
        format!(
            "{} · {} · {} · goals {}",
            t.status.as_str(),
            t.priority
                .map(|p| format!("P{p}"))
                .unwrap_or_else(|| "P?".into()),
            t.assignee
                .as_deref()
                .map(sanitize)
                .unwrap_or_else(|| "unassigned".into()),
            sanitize(&t.goal_ids.join(", "))
        ),
        theme.style(Tone::Normal),
    ));
    let times: Vec<String> = [("created", &t.created_at), ("updated", &t.updated_at)]
        .into_iter()
        .filter_map(|(label, v)| v.as_deref().map(|v| format!("{label} {}", sanitize(v))))
        .collect();
    if !times.is_empty() {
        lines.push(Line::styled(times.join(" · "), theme.style(Tone::Dim)));
    }
    lines
}

fn history_status(task: &TaskDetailModel, ctx: &ProjectionCtx) -> Line<'static> {
    let theme = ctx.theme;
    let mut spans = vec![Span::styled("HISTORY ", theme.style(Tone::Strong))];
    let pages = |n: usize| {
        if n == 1 {
            "1 page".to_string()
        } else {
            format!("{n} pages")
        }
    };
    let chain_words = |c: &HistoryChain| match &c.next {
        ChainNext::EndOfStoredHistory if c.is_empty() => {
            "no stored events · end of stored history".to_string()
        }
        ChainNext::EndOfStoredHistory => format!(
            "{} events · {} · end of stored history",
            c.len(),
            pages(c.pages_read())
        ),
        ChainNext::Older { .. } => format!(
            "{} events · {} · H reads older (cursor known) · End reads to the oldest",
            c.len(),
            pages(c.pages_read())
        ),
        ChainNext::FirstPage => "no page read yet".to_string(),
    };
    let (mut text, mut tone) = if task.withdrawn {
        (
            "workspace authority withdrawn: values dropped; read again after reconfirmation"
                .to_string(),
            Tone::Warn,
        )
    } else {
        match &task.history.fetched {
            Fetched::NotRequested => ("not read yet".to_string(), Tone::Dim),
            Fetched::Loading => ("reading the newest page…".to_string(), Tone::Busy),
            Fetched::Warming { .. } => ("server warming up".to_string(), Tone::Warn),
            Fetched::Ready(o) => (chain_words(&o.value), Tone::Dim),
            Fetched::Refreshing { last, .. } if task.history.fetched.shows_reading(ctx.now) => (
                format!("{} · reading…", chain_words(&last.value)),
                Tone::Busy,
            ),
            Fetched::Refreshing { last, .. } => (chain_words(&last.value), Tone::Dim),
            // The page route is not served; the legacy recent events stand in.
            Fetched::NotServed { last: None, .. } => legacy_status(task, ctx),
            Fetched::NotServed {
                route,
                last: Some(o),
            } => (
                format!(
                    "{} · {}",
                    chain_words(&o.value),
                    crate::view::screens::widgets::not_served_any_more(*route)
                ),
                Tone::Warn,
            ),
            Fetched::Failed {
                last: None,
                error,
                retrying,
            } => (
                format!(
                    "{} · H retries the newest page",
                    failure_text("history", error, *retrying)
                ),
                Tone::Bad,
            ),
            Fetched::Failed {
                last: Some(o),
                error,
                retrying,
            } => {
                let what = match &task.last_page {
                    Some(p) if p.fresh => "fresh prefix",
                    _ => "older page",
                };
                let retry = match &task.last_page {
                    Some(p) if !p.fresh => " · H retries the same cursor",
                    _ => " · r retries · H continues the shown prefix",
                };
                (
                    format!(
                        "{} rows kept · {what} read failed ({}){}{retry}",
                        o.value.len(),
                        error.class,
                        if *retrying { " · retrying…" } else { "" }
                    ),
                    Tone::Bad,
                )
            }
        }
    };
    // A run of older pages says how far it got (`H` with a count, `End` to the oldest).
    match task.older_progress() {
        Some(OlderProgress::Reading { read, of: Some(n) }) => {
            text = format!("reading older pages: {read} of {n} read… · {text}");
            tone = Tone::Busy;
        }
        Some(OlderProgress::Reading { read, of: None }) => {
            text = format!("reading to the oldest: {read} pages read… · {text}");
            tone = Tone::Busy;
        }
        Some(OlderProgress::Stopped { read }) => {
            text = format!("older pages stopped after {read} · {text}");
        }
        Some(OlderProgress::Done) | None => {}
    }
    spans.push(Span::styled(text, theme.style(tone)));
    Line::from(spans)
}

fn paint_shown(
    shown: Option<Shown<'_>>,
    scroll: usize,
    area: Rect,
    theme: Theme,
    buf: &mut Buffer,
) -> bool {
    let Some(shown) = shown else {
        return false;
    };
    let at = drawn_scroll(scroll, shown.lines.len(), area.height as usize);
    paint_prepared(shown.lines, at, area, theme, buf);
    true
}

pub fn render_task(
    model: &Model,
    work: &WorkUi,
    ctx: &ProjectionCtx,
    area: Rect,
    buf: &mut Buffer,
) {
    let theme = ctx.theme;
    let Some(task) = model.work.task.as_ref() else {
        if let Some(r) = row(area, 0) {
            Line::styled("task detail: not open", theme.style(Tone::Dim)).render(r, buf);
        }
        return;
    };
    let layout = detail_layout(area);
    let width = layout.history.width;
    // Document pane: its title row, then the prepared document.
    let mut title = vec![Span::styled(
        format!("TASK {}", sanitize(&task.task_id)),
        theme.style(Tone::Strong),
    )];
    if let Some((text, tone)) = annotation(&task.body.fetched, ctx.now) {
        title.push(Span::styled(format!("  {text}"), theme.style(tone)));
    }
    if let Some(r) = row(layout.body, 0) {
        Line::from(title).render(r, buf);
    }
    let doc = Rect::new(
        layout.body.x,
        layout.body.y + 1.min(layout.body.height),
        layout.body.width,
        layout.body.height.saturating_sub(1),
    );
    // The document pane: status words, the not-served notice, or the prepared document.
    let body_words: Option<Vec<Line<'static>>> = if task.withdrawn {
        Some(vec![Line::styled(
            "workspace authority withdrawn: task body dropped",
            theme.style(Tone::Warn),
        )])
    } else {
        let words = |text: String, tone: Tone| Some(vec![Line::styled(text, theme.style(tone))]);
        match &task.body.fetched {
            Fetched::NotRequested => words("task body: not read yet".into(), Tone::Dim),
            Fetched::Loading => words("task body: reading…".into(), Tone::Busy),
            Fetched::Warming { last: None } => {
                words("task body: server warming up".into(), Tone::Warn)
            }
            Fetched::NotServed { route, last: None } => {
                // What to do and what is missing, then what the goal links know.
                let mut lines = not_served_lines("task body", *route, doc.width as usize, theme);
                lines.extend(goal_link_lines(model, &task.task_id, theme));
                Some(lines)
            }
            Fetched::Failed {
                last: None,
                error,
                retrying,
            } => words(failure_text("task body", error, *retrying), Tone::Bad),
            _ => None,
        }
    };
    match body_words {
        Some(lines) => {
            for (i, line) in lines.into_iter().enumerate() {
                if let Some(r) = row(doc, i as u16) {
                    line.render(r, buf);
                }
            }
        }
        None => {
            let shown = model.work.layouts.body(task, width);
            if !paint_shown(shown, work.tasks.body_scroll, doc, theme, buf)
                && let Some(r) = row(doc, 0)
            {
                Line::styled("preparing the document…", theme.style(Tone::Dim)).render(r, buf);
            }
        }
    }
    // History pane.
    history_status(task, ctx).render(layout.history_status, buf);
    if task.withdrawn {
        return;
    }
    if let Some(route) = task.pages_absent() {
        // What is missing and what to do, then the legacy recent events (only the
        // visible rows formatted).
        let notice = not_served_lines("task history pages", route, width as usize, theme);
        let top = (notice.len() as u16).min(layout.history.height);
        for (i, line) in notice.into_iter().enumerate() {
            if let Some(r) = row(layout.history, i as u16) {
                line.render(r, buf);
            }
        }
        let rows = Rect::new(
            layout.history.x,
            layout.history.y + top,
            layout.history.width,
            layout.history.height - top,
        );
        if let Some(o) = task.legacy.fetched.last() {
            let events = &o.value.events;
            let h = rows.height as usize;
            let at = drawn_scroll(work.tasks.history_scroll, events.len(), h);
            for (i, e) in events.iter().skip(at).take(h).enumerate() {
                if let Some(r) = row(rows, i as u16) {
                    legacy_row(e, rows.width as usize, theme).render(r, buf);
                }
            }
        }
        return;
    }
    if task.history.fetched.last().is_none() {
        return;
    }
    let shown = model.work.layouts.history(task, width);
    if !paint_shown(shown, work.tasks.history_scroll, layout.history, theme, buf)
        && let Some(r) = row(layout.history, 0)
    {
        Line::styled("preparing history rows…", theme.style(Tone::Dim)).render(r, buf);
    }
}

fn severity(s: TimelineSeverity) -> (&'static str, Tone) {
    match s {
        TimelineSeverity::Ok => ("ok  ", Tone::Good),
        TimelineSeverity::Warn => ("warn", Tone::Warn),
        TimelineSeverity::Bad => ("bad ", Tone::Bad),
    }
}

/// The newest save masc-tui asked on `goal_id` in this workspace (any Work kind: a Goal
/// action, §15.4) and where it stands; the phase above is the Planning re-read's, never this
/// receipt's guess.
fn transition_line(model: &Model, goal_id: &str, theme: Theme) -> Option<Line<'static>> {
    let save = newest_on::<WorkSlot>(model, goal_id)?;
    Some(Line::styled(
        format!("{}: {}", save.asked, sanitize(&save.words)),
        theme.style(receipt_tone(save.class)),
    ))
}

pub fn render_goal(
    model: &Model,
    work: &WorkUi,
    ctx: &ProjectionCtx,
    area: Rect,
    buf: &mut Buffer,
) {
    let theme = ctx.theme;
    let goal_id = work.goals.open.clone().unwrap_or_default();
    let mut lines: Vec<Line<'static>> = Vec::new();
    lines.push(Line::styled(
        format!("GOAL {}", sanitize(&goal_id)),
        theme.style(Tone::Strong),
    ));
    // The goal row as the Planning rollup listed it (its own read).
    if let Some(o) = model.work.planning.fetched.last()
        && let crate::protocol::planning::PlanningRead::Snapshot(p) = o.value.as_ref()
        && let Some(g) = p.goals.iter().find(|g| g.id == goal_id)
    {
        lines.push(Line::raw(sanitize(&g.title).into_owned()));
        let target = match (&g.metric, &g.target_value) {
            (Some(m), Some(t)) => format!("{} → {}", sanitize(m), sanitize(t)),
            (Some(m), None) => format!("{} (no target)", sanitize(m)),
            _ => "no metric".to_string(),
        };
        lines.push(Line::styled(
            format!(
                "{} · P{} · {} · actual: not recorded · due {}",
                g.phase.as_str(),
                g.priority,
                target,
                g.due_date
                    .as_deref()
                    .map(sanitize)
                    .unwrap_or_else(|| "none".into())
            ),
            theme.style(Tone::Dim),
        ));
        let (proof, tone) = super::goals::proof_detail(&g.verification);
        lines.push(Line::styled(proof, theme.style(tone)));
        if let Some(note) = &g.last_review_note {
            lines.push(Line::styled(
                format!(
                    "last review {}: {}",
                    g.last_review_at
                        .as_deref()
                        .map(sanitize)
                        .unwrap_or_else(|| "(undated)".into()),
                    sanitize(note)
                ),
                theme.style(Tone::Dim),
            ));
        }
    }
    if let Some(line) = transition_line(model, &goal_id, theme) {
        lines.push(line);
    }
    let Some(goal) = model.work.goal.as_ref() else {
        lines.push(Line::styled("timeline: not open", theme.style(Tone::Dim)));
        paint_lines(lines, area, buf);
        return;
    };
    let mut status = vec![Span::styled("TIMELINE ", theme.style(Tone::Strong))];
    if goal.withdrawn {
        status.push(Span::styled(
            "workspace authority withdrawn: timeline dropped",
            theme.style(Tone::Warn),
        ));
        lines.push(Line::from(status));
        paint_lines(lines, area, buf);
        return;
    }
    let words: Option<(String, Tone)> = match &goal.timeline.fetched {
        Fetched::NotRequested => Some(("not read yet".into(), Tone::Dim)),
        Fetched::Loading => Some(("reading…".into(), Tone::Busy)),
        Fetched::Warming { last: None } => Some(("server warming up".into(), Tone::Warn)),
        Fetched::Failed {
            last: None,
            error,
            retrying,
        } if error.class == crate::view::fetched::FailureClass::GoalNotFound => Some((
            format!(
                "goal not found by the server (this read only){}",
                if *retrying { " · retrying…" } else { "" }
            ),
            Tone::Bad,
        )),
        Fetched::Failed {
            last: None,
            error,
            retrying,
        } => Some((failure_text("timeline", error, *retrying), Tone::Bad)),
        Fetched::NotServed { route, last: None } => {
            Some((not_served_text("timeline", *route), Tone::Warn))
        }
        _ => annotation(&goal.timeline.fetched, ctx.now),
    };
    if let Some((text, tone)) = &words {
        status.push(Span::styled(text.clone(), theme.style(*tone)));
    }
    let detail = goal
        .timeline
        .fetched
        .last()
        .and_then(|o| match o.value.as_ref() {
            GoalDetailRead::Found(d) => Some(d.clone()),
            GoalDetailRead::NotFound { .. } => None,
        });
    let Some(detail) = detail else {
        lines.push(Line::from(status));
        paint_lines(lines, area, buf);
        return;
    };
    match &detail.timeline {
        Timeline::Unavailable => status.push(Span::styled(
            "  timeline unavailable (server sent null) — not empty",
            theme.style(Tone::Warn),
        )),
        Timeline::NotSent => status.push(Span::styled(
            "  timeline not sent by this server",
            theme.style(Tone::Warn),
        )),
        Timeline::Events(e) if e.is_empty() => {
            status.push(Span::styled("  no timeline events", theme.style(Tone::Dim)))
        }
        Timeline::Events(e) => status.push(Span::styled(
            format!("  {} events", e.len()),
            theme.style(Tone::Dim),
        )),
    }
    lines.push(Line::from(status));
    if let Some(keepers) = &detail.linked_keepers {
        let names: Vec<String> = keepers
            .iter()
            .map(|k| sanitize(&k.name).into_owned())
            .collect();
        lines.push(Line::styled(
            format!(
                "RELATED ACTIVITY · keepers: {}",
                if names.is_empty() {
                    "none".into()
                } else {
                    names.join(", ")
                }
            ),
            theme.style(Tone::Dim),
        ));
    }
    if let Timeline::Events(events) = &detail.timeline {
        for e in events {
            let (mark, tone) = severity(e.severity);
            let ts = e.ts.get(..16).unwrap_or(&e.ts).replace('T', " ");
            let text = format!(
                "{} {} {} · {}",
                sanitize(&ts),
                sanitize(&e.lane),
                sanitize(&e.title),
                sanitize(&e.summary)
            );
            lines.push(Line::from(vec![
                Span::styled(format!("{mark} "), theme.style(tone)),
                Span::raw(fit_width(&text, (area.width as usize).saturating_sub(5)).into_owned()),
            ]));
        }
    }
    paint_lines(lines, area, buf);
}

fn paint_lines(lines: Vec<Line<'static>>, area: Rect, buf: &mut Buffer) {
    for (i, line) in lines.into_iter().enumerate() {
        match row(area, i as u16) {
            Some(r) => line.render(r, buf),
            None => break,
        }
    }
}
