//! Approvals (surfaces.md "Approvals / Ask"; protocol.md §10.5, §11 "Approval decision"):
//! this actor's pending operator approvals, deciding them with an armed `y y` / `n n`, each
//! decision's receipt, and the field-list detail. Reached by `p` from Work and `Enter` on the
//! Overview; drawn over the surface it was opened from.
//!
//! The list is the Decisions source's approvals slot (unread, reading, failed, warming and
//! empty read differently, G-5); decisions are saves (`view::saves`) whose receipts show
//! what the server answered: the action ran, accepted with delivery pending, approval consumed
//! with the action failing, denied, no longer pending, expired, not permitted, not sent,
//! outcome unknown — each distinct.

pub mod asks;
pub mod follow_up;
pub mod inspector;
pub mod inspector_reads;
pub mod keys;
pub mod reader;
pub mod summary;

pub use summary::selected_ask;

use super::widgets::{annotation, effective_offset, no_value_line, row};
use super::{ProjectionCtx, Tab};
use crate::actors::decisions::approval::{ApprovalDecision, DecisionIntent};
use crate::actors::saves::refusal;
use crate::protocol::operator::{Approval, Decision, DecisionResult};
use crate::protocol::outcome::{ApprovalDecisionOutcome, SaveClass, SaveOutcome};
use crate::view::fetched::Observed;
use crate::view::model::Model;
use crate::view::saves::{SaveEntry, SavePhase};
use crate::view::text::{fit_width, sanitize};
use crate::view::theme::{Theme, Tone};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget, Wrap};
use std::sync::Arc;
use std::time::Instant;

/// The approvals view's state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalsUi {
    pub selected: usize,
    pub offset: usize,
    /// The token of the selected approval: the selection (and an open detail) follows the
    /// approval, not its row, when a re-read moves the list.
    pub anchor: Option<String>,
    /// The first `y` or `n` armed this decision on this approval (the second sends it).
    pub armed: Option<(String, Decision)>,
    /// What the armed decision was armed against; a change disarms.
    pub armed_over: Option<ArmedOver>,
    /// The field-list detail of the selected approval is open.
    pub detail_open: bool,
    /// Where `Esc` returns.
    pub opened_from: Tab,
    /// The Ask whose question the summary previews (`[`/`]`), by id.
    pub ask: Option<crate::actors::asks::AskRef>,
    /// The question of that Ask the summary previews.
    pub ask_question: usize,
    /// The answer reader (`a`), when open.
    pub reader: Option<reader::AskReader>,
}

impl ApprovalsUi {
    pub fn new(opened_from: Tab) -> Self {
        Self {
            selected: 0,
            offset: 0,
            anchor: None,
            armed: None,
            armed_over: None,
            detail_open: false,
            opened_from,
            ask: None,
            ask_question: 0,
            reader: None,
        }
    }

    /// The view as opened over `opened_from`, its selection on the first approval listed.
    pub fn opened(opened_from: Tab, model: &Model) -> Self {
        Self {
            anchor: listed(model).first().map(|a| a.confirm_token.clone()),
            ..Self::new(opened_from)
        }
    }
}

/// What an armed decision was armed against: the confirmed workspace and the approval's
/// newest decision at the first press. Either changing before the second press disarms
/// (surfaces.md: a surface change or the request's completion disarms): a decision is sent
/// only in the workspace, and over the decision state, the operator saw when arming.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArmedOver {
    pub workspace: Option<String>,
    pub decision: Option<crate::actors::saves::SaveId>,
}

impl ArmedOver {
    pub fn now(model: &Model, token: &str) -> Self {
        Self {
            workspace: model.gate().current().map(|s| s.workspace.0.clone()),
            decision: latest(model, token).map(|e| e.save_id.clone()),
        }
    }
}

/// The approvals as last read, if any.
pub fn listed(model: &Model) -> &[Approval] {
    model
        .decisions
        .approvals
        .fetched
        .last()
        .map_or(&[], |o| o.value.items.as_slice())
}

/// The workspace whose decisions are shown: the confirmed one, or while authority is
/// withdrawn the last confirmed one (its list stays on screen, G-6; its receipts survive
/// beside it, H-16). Another workspace's decisions are never shown (I-5).
pub fn workspace(model: &Model) -> Option<String> {
    model.decisions.workspace().map(str::to_string)
}

/// The intent of deciding `approval` this way.
pub fn intent_of(approval: &Approval, decision: Decision) -> DecisionIntent {
    DecisionIntent {
        confirm_token: approval.confirm_token.clone(),
        decision,
        action_type: approval.action_type,
        target_id: approval.target_id.clone(),
        expires_at: approval.expires_at.and_then(|t| {
            t.format(&time::format_description::well_known::Rfc3339)
                .ok()
        }),
    }
}

/// The newest decision of `token` in this workspace.
pub fn latest<'a>(model: &'a Model, token: &str) -> Option<&'a SaveEntry<ApprovalDecision>> {
    let ws = workspace(model)?;
    model.decisions.decisions.latest(token, &ws)
}

/// Whether `R` may send the same decision again: only with authority in the workspace shown,
/// and only when nothing can have run — the decision was not sent, or refused while the
/// server was warming — or, for an unknown outcome, once a read of the list dispatched after
/// the receipt landed still lists the approval (§11: an unknown outcome requires a re-read
/// before any retry; a read already in flight then may show the list from before the write).
/// Never resent by itself.
pub fn retry_offered(model: &Model, approval: &Approval) -> Option<DecisionIntent> {
    let current = model.gate().current()?;
    if model.decisions.workspace() != Some(current.workspace.0.as_str()) {
        return None;
    }
    let entry = latest(model, &approval.confirm_token)?;
    let receipt = entry.phase.receipt()?;
    let offered = match receipt {
        SaveOutcome::NotSent { .. } => true,
        SaveOutcome::NotApplied { reason } => reason.contains("warming"),
        SaveOutcome::OutcomeUnknown { .. } => model.decisions.rereads.since_receipt(&entry.save_id),
        SaveOutcome::Applied { .. } | SaveOutcome::Unchanged | SaveOutcome::Conflict { .. } => {
            false
        }
    };
    offered.then(|| entry.intent.clone())
}

fn verb(d: Decision) -> &'static str {
    match d {
        Decision::Confirm => "confirm",
        Decision::Deny => "deny",
    }
}

/// What a decision's state says, in words and tone (each outcome distinct).
pub fn decision_words(entry: &SaveEntry<ApprovalDecision>) -> (String, Tone) {
    let what = verb(entry.intent.decision);
    let receipt: &ApprovalDecisionOutcome = match &entry.phase {
        SavePhase::Submitted | SavePhase::Written => {
            return (format!("{what}: waiting to send"), Tone::Busy);
        }
        SavePhase::Sending => return (format!("{what}: sending…"), Tone::Busy),
        SavePhase::Ended(r) => r,
        SavePhase::Restored(r) => {
            let (text, tone) = restored_words(r);
            return (format!("{what}: {text}"), tone);
        }
    };
    let (text, tone) = match receipt {
        SaveOutcome::Applied { detail, .. } => match &detail.result {
            DecisionResult::Ran { .. } => ("confirmed · the action ran".to_string(), Tone::Good),
            DecisionResult::Deferred { .. } => (
                "confirmed · accepted, delivery pending".to_string(),
                Tone::Good,
            ),
            DecisionResult::Failed { detail } => (
                format!(
                    "confirmed · approval consumed, the action failed: {}",
                    sanitize(detail)
                ),
                Tone::Bad,
            ),
            DecisionResult::Denied => ("denied · nothing ran".to_string(), Tone::Good),
        },
        SaveOutcome::Conflict { .. } => (
            format!(
                "{what}: no longer pending (decided elsewhere, expired or gone) · nothing ran for this request"
            ),
            Tone::Warn,
        ),
        SaveOutcome::NotApplied { reason } if reason.contains("pending confirmation expired") => (
            format!("{what}: expired · the server dropped it; its action never runs"),
            Tone::Warn,
        ),
        SaveOutcome::NotApplied { reason } if reason.contains("not allowed") => (
            format!("{what}: not permitted · {}", sanitize(reason)),
            Tone::Bad,
        ),
        SaveOutcome::NotApplied { reason } => (
            format!("{what}: not applied · {}", sanitize(reason)),
            Tone::Bad,
        ),
        SaveOutcome::NotSent { reason } => (
            format!("{what}: not sent · {}", sanitize(refusal::describe(reason))),
            Tone::Bad,
        ),
        SaveOutcome::OutcomeUnknown { reason } => (
            format!(
                "{what}: outcome unknown · {} · re-read before deciding again (never resent)",
                sanitize(refusal::describe(reason))
            ),
            Tone::Bad,
        ),
        SaveOutcome::Unchanged => (format!("{what}: unchanged"), Tone::Dim),
    };
    (text, tone)
}

fn restored_words(r: &ApprovalDecisionOutcome) -> (String, Tone) {
    match r.save_class() {
        SaveClass::NotSent => (
            "not sent (an earlier run stopped before sending it)".to_string(),
            Tone::Warn,
        ),
        _ => (
            "outcome unknown (an earlier run stopped while it may have been sent; never resent)"
                .to_string(),
            Tone::Bad,
        ),
    }
}

fn target_of(a: &Approval) -> String {
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

/// Paints the approvals view into the body area (without the session's Ask drafts).
pub fn render(model: &Model, ui: &ApprovalsUi, ctx: &ProjectionCtx, area: Rect, buf: &mut Buffer) {
    render_view(model, ui, &asks::AsksUi::default(), ctx, area, buf);
}

/// Paints the approvals view — the approvals above, the open Asks with the summary preview
/// below — or the answer reader when it is open.
pub fn render_view(
    model: &Model,
    ui: &ApprovalsUi,
    drafts: &asks::AsksUi,
    ctx: &ProjectionCtx,
    area: Rect,
    buf: &mut Buffer,
) {
    if let Some(reader) = &ui.reader {
        reader::render(model, drafts, reader, ctx, area, buf);
        return;
    }
    let (top, bottom) = summary::split_for_asks(model, area);
    render_approvals(model, ui, ctx, top, buf);
    if let Some(bottom) = bottom {
        summary::render_asks(model, ui, drafts, ctx, bottom, buf);
    }
}

/// Paints the approvals list part.
fn render_approvals(
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

/// The footer of the approvals view (the reader's when it is open).
pub fn footer_view(
    model: &Model,
    ui: &ApprovalsUi,
    drafts: &asks::AsksUi,
    theme: Theme,
) -> Vec<Span<'static>> {
    match &ui.reader {
        Some(reader) => reader::footer(model, drafts, reader, theme).spans,
        None => footer_spans(model, ui, theme),
    }
}

/// The keys `?` lists for the open view.
pub fn help_keys(ui: &ApprovalsUi) -> &'static [(&'static str, &'static str)] {
    match &ui.reader {
        Some(r) if r.inspector.is_some() => inspector::INSPECTOR_KEYS,
        Some(_) => reader::READER_KEYS,
        None => APPROVALS_KEYS,
    }
}

/// The footer of the approvals view.
pub fn footer_spans(model: &Model, ui: &ApprovalsUi, theme: Theme) -> Vec<Span<'static>> {
    if let Some((token, d)) = &ui.armed {
        let what = listed(model)
            .iter()
            .find(|a| &a.confirm_token == token)
            .map(|a| format!("{} → {}", sanitize(&a.delegated_tool), target_of(a)))
            .unwrap_or_default();
        return vec![Span::styled(
            format!(
                "press {} again to {} {what} · any other key cancels",
                if *d == Decision::Confirm { "y" } else { "n" },
                verb(*d).to_uppercase()
            ),
            theme.style(Tone::Warn),
        )];
    }
    let mut text = String::from(
        " · y y confirm · n n deny · Enter detail · [ ] Ask · a answer · r re-read · Esc back",
    );
    if listed(model)
        .get(ui.selected)
        .is_some_and(|a| retry_offered(model, a).is_some())
    {
        text.push_str(" · R retry");
    }
    vec![Span::styled(text, theme.style(Tone::Dim))]
}

/// The keys of the approvals view, for `?`.
pub const APPROVALS_KEYS: &[(&str, &str)] = &[
    ("j / k", "move"),
    (
        "y y",
        "confirm the selected approval (the first y arms, the second sends)",
    ),
    (
        "n n",
        "deny the selected approval (the first n arms, the second sends)",
    ),
    ("any other key", "disarms"),
    ("Enter", "every field of the selected approval; Esc closes"),
    (
        "R",
        "send the same decision again, only when offered (nothing ran)",
    ),
    ("[ / ]", "previous / next open Ask in the summary preview"),
    ("a", "open the Ask answer reader on the selected Ask"),
    ("r", "re-read the approvals and the Asks"),
    ("Esc", "back"),
];

/// `Instant` of the approvals read, for tests and the retry rule.
pub fn observed_at(model: &Model) -> Option<Instant> {
    model
        .decisions
        .approvals
        .fetched
        .last()
        .map(|o| o.observed_at)
}
