//! The approvals list drawn: each approval's row, its field-list detail and this session's decisions.

use super::receipt_words::verb;
use super::{ApprovalsUi, decision_words, latest, listed, workspace};
use crate::protocol::operator::{Approval, Decision};
use crate::view::fetched::Observed;
use crate::view::model::Model;
use crate::view::screens::ProjectionCtx;
use crate::view::screens::widgets::{annotation, effective_offset, no_value_line, row};
use crate::view::text::{fit_width, sanitize};
use crate::view::theme::{Theme, Tone};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget, Wrap};
use std::sync::Arc;

pub(super) fn target_of(a: &Approval) -> String {
    match a.target_id.as_deref() {
        Some(id) => format!("{} {}", sanitize(&a.target_type), sanitize(id)),
        None => sanitize(&a.target_type).into_owned(),
    }
}

fn minute(t: time::OffsetDateTime) -> String {
    format!("{:02}:{:02}", t.hour(), t.minute())
}

fn expired(a: &Approval, now_unix: f64) -> bool {
    a.expires_at
        .is_some_and(|e| (e.unix_timestamp() as f64) < now_unix)
}

fn title(
    observed: Option<&Observed<Arc<crate::protocol::operator::OperatorApprovals>>>,
    theme: Theme,
) -> Line<'static> {
    let mut spans = vec![Span::styled("APPROVALS", theme.style(Tone::Strong))];
    if let Some(o) = observed {
        let a = &o.value;
        spans.push(Span::raw(format!(
            "  ({}/{}, hidden {}, actor {})",
            a.visible_count,
            a.total_count,
            a.hidden_count,
            sanitize(&a.actor_filter)
        )));
    }
    Line::from(spans)
}

fn approval_line(
    model: &Model,
    a: &Approval,
    selected: bool,
    armed: Option<Decision>,
    ctx: &ProjectionCtx,
    width: usize,
) -> Line<'static> {
    let theme = ctx.theme;
    let mark = if selected { "▸ " } else { "  " };
    let (expiry, tone) = match a.expires_at {
        Some(e) if expired(a, ctx.now_unix) => (
            format!("expired {} (still listed by the server)", minute(e)),
            Tone::Dim,
        ),
        Some(e) => (format!("expires {}", minute(e)), Tone::Normal),
        None => ("no expiry".to_string(), Tone::Normal),
    };
    let mut text = format!(
        "{mark}{} → {} · {} · created {} · {expiry}",
        sanitize(&a.delegated_tool),
        target_of(a),
        action_name(a),
        minute(a.created_at)
    );
    let mut tone = if selected { Tone::Strong } else { tone };
    if let Some(d) = armed {
        text.push_str(&format!(
            "  ◆ press {} again to {} · any other key cancels",
            if d == Decision::Confirm { "y" } else { "n" },
            verb(d).to_uppercase()
        ));
        tone = Tone::Warn;
    } else if let Some(entry) = latest(model, &a.confirm_token) {
        let (words, _) = decision_words(entry);
        text.push_str(&format!("  · {words}"));
    }
    Line::styled(fit_width(&text, width).into_owned(), theme.style(tone))
}

fn action_name(a: &Approval) -> String {
    serde_json::to_value(a.action_type)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// The field list of one approval (every key; the payload as inert, sanitised text).
pub fn detail_lines(a: &Approval, theme: Theme) -> Vec<Line<'static>> {
    let field = |k: &str, v: String| {
        Line::from(vec![
            Span::styled(format!("  {k:<16}"), theme.style(Tone::Dim)),
            Span::raw(v),
        ])
    };
    let rfc = |t: time::OffsetDateTime| {
        t.format(&time::format_description::well_known::Rfc3339)
            .unwrap_or_default()
    };
    let mut out = vec![Line::styled("APPROVAL", theme.style(Tone::Strong))];
    out.push(field(
        "confirm_token",
        sanitize(&a.confirm_token).into_owned(),
    ));
    out.push(field("trace_id", sanitize(&a.trace_id).into_owned()));
    out.push(field("actor", sanitize(&a.actor).into_owned()));
    out.push(field("action_type", action_name(a)));
    out.push(field("target_type", sanitize(&a.target_type).into_owned()));
    out.push(field(
        "target_id",
        a.target_id
            .as_deref()
            .map_or_else(|| "(none)".to_string(), |t| sanitize(t).into_owned()),
    ));
    out.push(field(
        "delegated_tool",
        sanitize(&a.delegated_tool).into_owned(),
    ));
    out.push(field("created_at", rfc(a.created_at)));
    out.push(field(
        "expires_at",
        a.expires_at.map_or_else(|| "(none)".to_string(), rfc),
    ));
    out.push(Line::styled("  payload", theme.style(Tone::Dim)));
    let pretty = serde_json::to_string_pretty(&a.payload).unwrap_or_default();
    for line in pretty.lines() {
        out.push(Line::raw(format!("    {}", sanitize(line))));
    }
    out
}

/// Paints the approvals list part.
pub(super) fn render_approvals(
    model: &Model,
    ui: &ApprovalsUi,
    ctx: &ProjectionCtx,
    area: Rect,
    buf: &mut Buffer,
) {
    let theme = ctx.theme;
    let fetched = &model.decisions.approvals.fetched;
    let mut y = 0u16;
    if let Some(r) = row(area, y) {
        let mut line = title(fetched.last(), theme);
        if let Some((text, tone)) = annotation(fetched, ctx.now) {
            line.spans
                .push(Span::styled(format!("  {text}"), theme.style(tone)));
        }
        line.render(r, buf);
    }
    y += 1;
    if let Some(line) = no_value_line("approvals", fetched, theme)
        && let Some(r) = row(area, y)
    {
        line.render(r, buf);
        y += 1;
    }
    let items = listed(model);
    if ui.detail_open
        && let Some(a) = items.get(ui.selected)
    {
        let body = Rect::new(
            area.x,
            area.y + y,
            area.width,
            area.height.saturating_sub(y),
        );
        Paragraph::new(detail_lines(a, theme))
            .wrap(Wrap { trim: false })
            .render(body, buf);
        return;
    }
    if fetched.last().is_some()
        && items.is_empty()
        && let Some(r) = row(area, y)
    {
        Line::styled(
            "  no pending approvals for this actor",
            theme.style(Tone::Dim),
        )
        .render(r, buf);
        y += 1;
    }
    let decisions_rows = decisions_lines(model, theme, area.width as usize);
    let list_rows =
        area.height
            .saturating_sub(y)
            .saturating_sub((decisions_rows.len() as u16).min(area.height / 3)) as usize;
    let offset = effective_offset(ui.selected, ui.offset, list_rows.max(1), items.len());
    for (i, a) in items.iter().enumerate().skip(offset).take(list_rows) {
        let armed = ui
            .armed
            .as_ref()
            .filter(|(t, _)| *t == a.confirm_token)
            .map(|(_, d)| *d);
        if let Some(r) = row(area, y) {
            approval_line(model, a, i == ui.selected, armed, ctx, area.width as usize)
                .render(r, buf);
        }
        y += 1;
    }
    for line in decisions_rows {
        let Some(r) = row(area, y) else { break };
        line.render(r, buf);
        y += 1;
    }
}

/// "Decisions this session", newest first: every decision of this workspace whose approval
/// is no longer listed (a listed one shows its state on its own row).
fn decisions_lines(model: &Model, theme: Theme, width: usize) -> Vec<Line<'static>> {
    let Some(ws) = workspace(model) else {
        return Vec::new();
    };
    let listed: Vec<&str> = listed(model)
        .iter()
        .map(|a| a.confirm_token.as_str())
        .collect();
    let mut out = Vec::new();
    for entry in model.decisions.decisions.entries().rev() {
        if entry.workspace != ws || listed.contains(&entry.intent.confirm_token.as_str()) {
            continue;
        }
        if out.is_empty() {
            out.push(Line::styled(
                "DECISIONS THIS SESSION",
                theme.style(Tone::Strong),
            ));
        }
        let (words, tone) = decision_words(entry);
        let target = match entry.intent.target_id.as_deref() {
            Some(t) => format!(" {}", sanitize(t)),
            None => String::new(),
        };
        let action = serde_json::to_value(entry.intent.action_type)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        let text = format!(
            "  {action}{target} ({}) · {words}",
            fit_width(&sanitize(&entry.intent.confirm_token), 16)
        );
        out.push(Line::styled(
            fit_width(&text, width).into_owned(),
            theme.style(tone),
        ));
    }
    out
}
