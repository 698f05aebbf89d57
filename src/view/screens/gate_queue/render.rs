//! Drawing the Gate queue: the header (mode, how many wait, the read's state), one line per
//! pending row (age, Keeper, tool, where judging stands, what it asks) with the newest decision
//! asked on it, then the recent decisions and the rules; or the selected row's every field.
//! Everything the server sent is sanitised and fitted to cells.

use super::{GateQueueLayer, rows};
use crate::actors::gate_queue::GateQueueSlot;
use crate::actors::gate_queue::resolve::GateResolve;
use crate::actors::gate_queue::retry::GateRetry;
use crate::actors::saves::SaveKind;
use crate::protocol::gate_queue::{GateQueue, Queue, QueueItem, QueueRow, Section};
use crate::protocol::gate_resolve::GateRowMoved;
use crate::protocol::outcome::SaveOutcome;
use crate::view::fetched::Fetched;
use crate::view::model::Model;
use crate::view::save_path::SaveCompanion;
use crate::view::save_path::kinds::newest_on;
use crate::view::saves::SaveEntry;
use crate::view::screens::ProjectionCtx;
use crate::view::text::{fit_width, sanitize_line, wrap};
use crate::view::theme::{Theme, Tone};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Widget};
use serde_json::Value;
use std::time::Instant;

pub fn render(
    layer: &GateQueueLayer,
    model: &Model,
    ctx: &ProjectionCtx,
    body: Rect,
    buf: &mut Buffer,
) -> Option<(u16, u16)> {
    let width = usize::from(body.width);
    let mut lines = header(model, ctx, width);
    let detail = layer.detail.then(|| layer.item(model)).flatten();
    match detail {
        Some(item) => lines.extend(detail_lines(model, item, ctx, width)),
        None => lines.extend(list_lines(layer, model, ctx, body, width)),
    }
    if let Some(draft) = &layer.reason {
        let mut spans = vec![Span::styled(
            format!("reject {} · reason: ", sanitize_line(&draft.id)),
            ctx.theme.style(Tone::Warn),
        )];
        spans.extend(draft.field.spans(ctx.theme, true));
        lines.push(Line::from(spans));
    }
    Clear.render(body, buf);
    Paragraph::new(lines).render(body, buf);
    None
}

/// The mode word as MASC's status line says it (§14.4).
fn mode_words(queue: &GateQueue) -> String {
    match &queue.gate_mode {
        None => "mode not read".into(),
        Some(m) => {
            let word = match m.mode.as_str() {
                "manual" => "manual".to_string(),
                "auto_judge" => "Auto Judge".to_string(),
                "always_allow" => "allow-all".to_string(),
                other => sanitize_line(other).into_owned(),
            };
            match &m.read_error {
                Some(e) => format!("mode {word} ({})", sanitize_line(e)),
                None => format!("mode {word}"),
            }
        }
    }
}

fn header(model: &Model, ctx: &ProjectionCtx, width: usize) -> Vec<Line<'static>> {
    let slot = &model.gate_queue.queue;
    let reading = if slot.in_flight() { " · reading" } else { "" };
    let (head, tone) = match (&slot.fetched, model.gate_queue.latest()) {
        (Fetched::NotRequested, _) => ("GATE QUEUE · not read yet".to_string(), Tone::Dim),
        (Fetched::Loading, _) => ("GATE QUEUE · reading…".to_string(), Tone::Dim),
        (Fetched::Warming { last: None }, _) => (
            "GATE QUEUE · the server is warming up: not read yet".to_string(),
            Tone::Dim,
        ),
        (Fetched::NotServed { route, .. }, _) => (
            format!("GATE QUEUE · not served by this server ({route})"),
            Tone::Warn,
        ),
        (_, Some((q, at))) => {
            let pending = match &q.queue {
                Queue::Ready(rows) => format!("{} pending", rows.len()),
                Queue::Unavailable { .. } => "queue unavailable".into(),
            };
            let age = ctx.now.saturating_duration_since(at).as_secs();
            (
                format!(
                    "GATE QUEUE · {pending} · {} · read {age}s ago{reading}",
                    mode_words(q)
                ),
                Tone::Strong,
            )
        }
        (_, None) => ("GATE QUEUE".to_string(), Tone::Strong),
    };
    let mut lines = vec![Line::styled(
        fit_width(&head, width).into_owned(),
        ctx.theme.style(tone),
    )];
    if let Fetched::Failed { error, last, .. } = &slot.fetched {
        let kept = if last.is_some() {
            " — the last read is kept below"
        } else {
            " — nothing read yet"
        };
        lines.push(Line::styled(
            fit_width(
                &format!(
                    "  read failed ({}): {}{kept}",
                    error.class,
                    sanitize_line(&error.detail)
                ),
                width,
            )
            .into_owned(),
            ctx.theme.style(Tone::Warn),
        ));
    }
    lines
}

/// The age of a row: `waiting_s` at the read plus the time since.
fn age(item: &QueueItem, read_at: Instant, now: Instant) -> String {
    let since = now.saturating_duration_since(read_at).as_secs_f64();
    let secs = (item.waiting_s.unwrap_or(0.0).max(0.0) + since) as u64;
    match secs {
        0..=59 => format!("{secs}s"),
        60..=3599 => format!("{}m", secs / 60),
        3600..=86_399 => format!("{}h{:02}m", secs / 3600, secs % 3600 / 60),
        _ => format!("{}d", secs / 86_400),
    }
}

/// Where judging stands on a row, in a few words.
fn disposition_words(item: &QueueItem) -> String {
    let code = item.disposition().unwrap_or("?");
    match code {
        "ready" => "waits for you".to_string(),
        "in_flight" => "Auto Judge judging".to_string(),
        "settled" => "judged".to_string(),
        "identity_unbound" | "persistence_uncertain" | "pre_worker_unavailable" => {
            format!("judge blocked ({code})")
        }
        other => sanitize_line(other).into_owned(),
    }
}

fn list_lines(
    layer: &GateQueueLayer,
    model: &Model,
    ctx: &ProjectionCtx,
    body: Rect,
    width: usize,
) -> Vec<Line<'static>> {
    let theme = ctx.theme;
    let Some((queue, read_at)) = model.gate_queue.latest() else {
        return Vec::new();
    };
    let mut lines = Vec::new();
    if let Queue::Unavailable {
        code,
        title,
        operator_detail,
    } = &queue.queue
    {
        lines.push(Line::styled(
            "  Gate queue unavailable · reset required",
            theme.style(Tone::Warn),
        ));
        for text in [title, operator_detail, code].into_iter().flatten() {
            lines.push(Line::styled(
                fit_width(&format!("  {}", sanitize_line(text)), width).into_owned(),
                theme.style(Tone::Dim),
            ));
        }
    }
    let rows = rows(model);
    if matches!(&queue.queue, Queue::Ready(r) if r.is_empty()) {
        lines.push(Line::styled(
            "  no pending Gate rows",
            theme.style(Tone::Dim),
        ));
    }
    let at = layer.index(rows);
    let room = usize::from(body.height).saturating_sub(8).max(3);
    let offset = at.saturating_sub(room.saturating_sub(1));
    for (i, row) in rows.iter().enumerate().skip(offset).take(room) {
        let marker = if i == at { "▶ " } else { "  " };
        let (text, tone) = match row {
            QueueRow::Item(item) => {
                let mut text = format!(
                    "{marker}{:>4}  {}  {}  {}  {}",
                    age(item, read_at, ctx.now),
                    sanitize_line(&item.keeper_name),
                    sanitize_line(&item.tool_name),
                    disposition_words(item),
                    sanitize_line(&item.input_preview),
                );
                if let Some(save) = newest_on::<GateQueueSlot>(model, &item.id) {
                    text.push_str(&format!(
                        "  · {}: {}",
                        save.asked,
                        sanitize_line(&save.words)
                    ));
                }
                let tone = if i == at { Tone::Strong } else { Tone::Normal };
                (text, tone)
            }
            QueueRow::Undecodable {
                id,
                keeper_name,
                tool_name,
                error,
            } => (
                format!(
                    "{marker}undecodable row {} {} {}: {}",
                    sanitize_line(id.as_deref().unwrap_or("?")),
                    sanitize_line(keeper_name.as_deref().unwrap_or("?")),
                    sanitize_line(tool_name.as_deref().unwrap_or("?")),
                    sanitize_line(error)
                ),
                Tone::Warn,
            ),
        };
        lines.push(Line::styled(
            fit_width(&text, width).into_owned(),
            theme.style(tone),
        ));
    }
    lines.extend(session_lines(model, theme, width));
    lines.extend(history_lines(queue, theme, width));
    lines
}

/// A Gate save's words: "already resolved" and a row that moved are their own receipts, said
/// as what happened, never as a failure; every other receipt as the journal says it.
pub fn receipt_words<K>(entry: &SaveEntry<K>) -> String
where
    K: SaveKind<Receipt = SaveOutcome<<K as GateReceipt>::Applied, GateRowMoved>> + GateReceipt,
{
    match entry.phase.receipt() {
        Some(SaveOutcome::Conflict { current }) => match current {
            GateRowMoved::AlreadyResolved { words } => format!(
                "already resolved by someone else (Auto Judge, a rule or another operator): {words}"
            ),
            GateRowMoved::Gone { words } => format!("no longer in the queue: {words}"),
            GateRowMoved::Changed { words } => {
                format!("the row changed since it was read (not retried): {words}")
            }
        },
        _ => entry.words(),
    }
}

/// The applied detail of a Gate save's receipt (for [`receipt_words`]).
pub trait GateReceipt {
    type Applied: Clone + std::fmt::Debug + Send + Sync + 'static;
}

impl GateReceipt for GateResolve {
    type Applied = crate::protocol::gate_resolve::GateResolved;
}

impl GateReceipt for GateRetry {
    type Applied = ();
}

/// The Gate decisions of this session in the workspace shown, newest first: a decided row
/// leaves the queue, its receipt stays here.
fn session_lines(model: &Model, theme: Theme, width: usize) -> Vec<Line<'static>> {
    let Some(ws) = model.gate().current().map(|s| s.workspace.0.clone()) else {
        return Vec::new();
    };
    let books = &model.gate_queue.saves;
    let mut rows: Vec<(Instant, String)> = books
        .resolves
        .entries()
        .filter(|e| e.workspace == ws)
        .map(|e| {
            (
                e.submitted_at,
                format!(
                    "  {} {} {} {}: {}",
                    GateResolve::asked(&e.intent),
                    e.intent.id,
                    e.intent.keeper,
                    e.intent.tool,
                    receipt_words(e)
                ),
            )
        })
        .chain(
            books
                .retries
                .entries()
                .filter(|e| e.workspace == ws)
                .map(|e| {
                    (
                        e.submitted_at,
                        format!(
                            "  retry {} {} {}: {}",
                            e.intent.id,
                            e.intent.keeper,
                            e.intent.tool,
                            receipt_words(e)
                        ),
                    )
                }),
        )
        .collect();
    if rows.is_empty() {
        return Vec::new();
    }
    rows.sort_by_key(|r| std::cmp::Reverse(r.0));
    let mut lines = vec![
        Line::from(""),
        Line::styled("DECISIONS THIS SESSION", theme.style(Tone::Strong)),
    ];
    for (_, text) in rows.into_iter().take(4) {
        lines.push(Line::styled(
            fit_width(&sanitize_line(&text), width).into_owned(),
            theme.style(Tone::Normal),
        ));
    }
    lines
}

fn history_lines(queue: &GateQueue, theme: Theme, width: usize) -> Vec<Line<'static>> {
    let mut lines = vec![Line::from("")];
    match &queue.resolved {
        Section::Ready(rows) => {
            lines.push(Line::styled(
                format!("RECENT DECISIONS · {}", rows.len()),
                theme.style(Tone::Strong),
            ));
            for r in rows.iter().take(3) {
                let text = format!(
                    "  {} {} {} by {}{}",
                    sanitize_line(r.decision_kind.as_deref().unwrap_or("?")),
                    sanitize_line(&r.keeper_name),
                    sanitize_line(&r.tool_name),
                    sanitize_line(r.decision_source.as_deref().unwrap_or("?")),
                    r.decision_reason
                        .as_deref()
                        .map(|why| format!(" ({})", sanitize_line(why)))
                        .unwrap_or_default()
                );
                lines.push(Line::styled(
                    fit_width(&text, width).into_owned(),
                    theme.style(Tone::Dim),
                ));
            }
        }
        Section::Unavailable { error } => lines.push(Line::styled(
            fit_width(
                &format!("RECENT DECISIONS · unavailable: {}", sanitize_line(error)),
                width,
            )
            .into_owned(),
            theme.style(Tone::Warn),
        )),
    }
    if let Some((said, sent)) = queue.resolved_count_mismatch {
        lines.push(Line::styled(
            format!("  the server said {said} rows and sent {sent}"),
            theme.style(Tone::Warn),
        ));
    }
    let rules = match &queue.rules {
        Section::Ready(r) => format!("ALWAYS RULES · {}", r.len()),
        Section::Unavailable { error } => {
            format!("ALWAYS RULES · unavailable: {}", sanitize_line(error))
        }
    };
    lines.push(Line::styled(
        fit_width(&rules, width).into_owned(),
        theme.style(Tone::Dim),
    ));
    lines
}

fn json_words(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "-".into(),
        other => other.to_string(),
    }
}

fn detail_lines(
    model: &Model,
    item: &QueueItem,
    ctx: &ProjectionCtx,
    width: usize,
) -> Vec<Line<'static>> {
    let theme = ctx.theme;
    let read_at = model.gate_queue.latest().map_or(ctx.now, |(_, at)| at);
    let mut fields: Vec<(&str, String)> = vec![
        ("id", item.id.clone()),
        ("keeper", item.keeper_name.clone()),
        ("tool", item.tool_name.clone()),
        ("sequence", item.sequence.to_string()),
        ("waiting", age(item, read_at, ctx.now)),
        ("judging", disposition_words(item)),
        (
            "turn",
            item.turn_id.map_or_else(|| "-".into(), |t| t.to_string()),
        ),
        ("task", item.task_id.clone().unwrap_or_else(|| "-".into())),
        ("goal", item.goal_id.clone().unwrap_or_else(|| "-".into())),
        ("input hash", item.input_hash.clone()),
        (
            "attempt",
            json_words(item.exact_attempt.get("state").unwrap_or(&Value::Null)),
        ),
        ("summary", json_words(&item.summary_status)),
        ("preview", item.input_preview.clone()),
    ];
    if let Some(detail) = item
        .summary_attempt_disposition
        .get("operator_detail")
        .and_then(Value::as_str)
    {
        fields.push(("judge detail", detail.to_string()));
    }
    if let Some(save) = newest_on::<GateQueueSlot>(model, &item.id) {
        fields.push(("decision", format!("{}: {}", save.asked, save.words)));
    }
    let mut lines = Vec::new();
    for (name, value) in fields {
        for (i, row) in wrap(&sanitize_line(&value), width.saturating_sub(16).max(8))
            .into_iter()
            .enumerate()
        {
            let label = if i == 0 { name } else { "" };
            lines.push(Line::from(vec![
                Span::styled(format!("  {label:<13} "), theme.style(Tone::Dim)),
                Span::raw(row),
            ]));
        }
    }
    lines.push(Line::styled("  arguments", theme.style(Tone::Dim)));
    let pretty = serde_json::to_string_pretty(&item.input).unwrap_or_default();
    for raw in pretty.lines() {
        for row in wrap(&sanitize_line(raw), width.saturating_sub(4).max(8)) {
            lines.push(Line::raw(format!("    {row}")));
        }
    }
    lines
}
