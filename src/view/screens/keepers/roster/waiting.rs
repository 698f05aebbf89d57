//! What a Keeper waits on (protocol-15-operator.md §15.8): the roster's "waits on" line for
//! the selected Keeper and the WAITS ON part of its detail.
//!
//! Each row reads by MASC's operator sentence (`what`), else its technical name, then the
//! source, the next action and the due time; the technical words (`waiting_on`, what would wake
//! it) are in the detail. A `read_error` row is a failure of that source and is shown as one; an
//! unknown source, state or next action is shown raw. The inventory not sent by this MASC, not
//! read yet, or failed each say so — never "nothing waiting".

use super::row::turn_age;
use crate::protocol::waiting::{
    RowSlot, WaitState, WaitingInventory, WaitingInventoryRead, WaitingKeeper, WaitingRow,
    WaitingSource,
};
use crate::view::fetched::Fetched;
use crate::view::model::Model;
use crate::view::screens::ProjectionCtx;
use crate::view::text::{fit_width, sanitize};
use crate::view::theme::{Theme, Tone};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Widget};
use std::sync::Arc;

/// Whether a roster surface of `height` rows has room for the "waits on" line beside its rows.
pub fn has_room(height: u16) -> bool {
    height > 6
}

/// Paints the selected `keeper`'s line into the one-row `row`.
pub fn render_line(model: &Model, keeper: &str, ctx: &ProjectionCtx, row: Rect, buf: &mut Buffer) {
    let (text, tone) = roster_line(model, keeper, ctx);
    Clear.render(row, buf);
    Line::styled(
        fit_width(&text, row.width as usize).into_owned(),
        ctx.theme.style(tone),
    )
    .render(row, buf);
}

/// `due in 14m`, `overdue 3m`.
fn due_words(due_at: f64, now_unix: f64) -> String {
    if due_at >= now_unix {
        format!("due in {}", turn_age(Some(now_unix), due_at))
    } else {
        format!("overdue {}", turn_age(Some(due_at), now_unix))
    }
}

/// One row in a line: sentence (source) · next action · due.
fn row_words(row: &WaitingRow, now_unix: f64) -> String {
    let mut text = format!(
        "{} ({}) · next {}",
        sanitize(row.sentence()),
        sanitize(row.source.label()),
        sanitize(&row.next_action)
    );
    if let Some(due) = row.due_at.filter(|d| d.is_finite()) {
        text.push_str(" · ");
        text.push_str(&due_words(due, now_unix));
    }
    text
}

fn row_tone(row: &WaitingRow) -> Tone {
    match row.source {
        WaitingSource::ReadError => Tone::Bad,
        WaitingSource::Unknown(_) => Tone::Warn,
        _ => Tone::Normal,
    }
}

fn inventory(model: &Model) -> &Fetched<Arc<WaitingInventoryRead>> {
    &model.waiting.inventory.fetched
}

/// Why there is no inventory to draw (`None` when there is one).
fn absent_words(fetched: &Fetched<Arc<WaitingInventoryRead>>) -> Option<(String, Tone)> {
    if let Some(observed) = fetched.last() {
        return match &*observed.value {
            WaitingInventoryRead::NotSent => Some((
                "waits on: not sent by this MASC (its Tools body has no waiting inventory)".into(),
                Tone::Dim,
            )),
            WaitingInventoryRead::Sent(_) => None,
        };
    }
    Some(match fetched {
        Fetched::NotRequested => ("waits on: not loaded yet".into(), Tone::Dim),
        Fetched::Loading | Fetched::Refreshing { .. } => ("waits on: reading…".into(), Tone::Busy),
        Fetched::Warming { .. } => ("waits on: server warming up".into(), Tone::Warn),
        Fetched::Failed { error, .. } => (
            format!(
                "waits on: read failed ({}: {})",
                error.class,
                sanitize(&error.detail)
            ),
            Tone::Bad,
        ),
        Fetched::NotServed { .. } => (
            "waits on: not served by this MASC (the Tools route)".into(),
            Tone::Warn,
        ),
        Fetched::Ready(_) => ("waits on: not loaded yet".into(), Tone::Dim),
    })
}

/// A failure beside a kept value, said after the line (`· read failed, showing last`).
fn stale_suffix(fetched: &Fetched<Arc<WaitingInventoryRead>>) -> &'static str {
    match fetched {
        Fetched::Failed { last: Some(_), .. } => " · read failed, showing last value",
        Fetched::NotServed { last: Some(_), .. } => " · not served any more, showing last value",
        _ => "",
    }
}

/// The roster's line for the selected `keeper`.
pub fn roster_line(model: &Model, keeper: &str, ctx: &ProjectionCtx) -> (String, Tone) {
    let fetched = inventory(model);
    if let Some(absent) = absent_words(fetched) {
        return absent;
    }
    let Some(inv) = fetched.last().and_then(|o| o.value.inventory()) else {
        return ("waits on: not loaded yet".into(), Tone::Dim);
    };
    let suffix = stale_suffix(fetched);
    let (mut text, tone) = match keeper_line(inv, keeper, ctx.now_unix) {
        Some(line) => line,
        None => match inv.undecodable_for(keeper) {
            Some(e) => (
                format!("waits on: undecodable entry ({})", e.reason()),
                Tone::Bad,
            ),
            None if inv.keeper_count_known == Some(false) => (
                "waits on: unknown (MASC could not read its Keeper list)".into(),
                Tone::Warn,
            ),
            None => ("waits on: not in the inventory".into(), Tone::Dim),
        },
    };
    text.push_str(suffix);
    (text, tone)
}

fn keeper_line(inv: &WaitingInventory, keeper: &str, now_unix: f64) -> Option<(String, Tone)> {
    let k = inv.of(keeper)?;
    let shown = k.decoded_rows().count();
    let Some(head) = k.headline() else {
        let bad = k.undecodable_rows();
        return Some(match (&k.state, bad) {
            (_, n) if n > 0 => (
                format!(
                    "waits on: {n} undecodable rows ({})",
                    sanitize(k.state.as_str())
                ),
                Tone::Bad,
            ),
            (WaitState::Busy, _) => (
                "waits on: nothing · busy (a turn is running)".into(),
                Tone::Normal,
            ),
            (WaitState::Idle, _) => ("waits on: nothing (idle)".into(), Tone::Dim),
            (state, _) => (
                format!("waits on: nothing listed ({})", sanitize(state.as_str())),
                Tone::Dim,
            ),
        });
    };
    let mut text = format!("waits on: {}", row_words(head, now_unix));
    let more = shown.saturating_sub(1);
    if more > 0 {
        text.push_str(&format!(" · +{more} more"));
    }
    if k.is_truncated() {
        text.push_str(" (cut by MASC)");
    }
    if k.undecodable_rows() > 0 {
        text.push_str(&format!(" · {} undecodable", k.undecodable_rows()));
    }
    Some((text, row_tone(head)))
}

/// The roster title's note: how many Keepers wait, the workspace read errors, inexact counts.
pub fn title_note(model: &Model) -> Option<(String, Tone)> {
    let inv = inventory(model).last()?.value.inventory()?.clone();
    let errors = inv.global_read_errors().count();
    if errors > 0 {
        return Some((
            format!("waiting inventory: {errors} read errors"),
            Tone::Bad,
        ));
    }
    let waiting = inv
        .waiting_keeper_count
        .map(|n| n.to_string())
        .unwrap_or_else(|| "?".into());
    let exact = if inv.counts_exact() {
        ""
    } else {
        " (not exact)"
    };
    Some((format!("{waiting} waiting{exact}"), Tone::Dim))
}

fn kv(label: &str, value: String, tone: Tone, theme: Theme) -> Line<'static> {
    Line::from(vec![
        Span::styled(format!("  {label:<18}"), theme.style(Tone::Dim)),
        Span::styled(value, theme.style(tone)),
    ])
}

fn row_lines(row: &WaitingRow, now_unix: f64, theme: Theme) -> Vec<Line<'static>> {
    let mut head = format!(
        "  · {} — {}",
        sanitize(row.sentence()),
        sanitize(row.source.label())
    );
    if !row.source.is_known() {
        head.push_str(" (unknown source)");
    }
    let mut when = format!("next {}", sanitize(&row.next_action));
    if let Some(since) = row.since.filter(|s| s.is_finite()) {
        when.push_str(&format!(" · waiting {}", turn_age(Some(since), now_unix)));
    }
    if let Some(due) = row.due_at.filter(|d| d.is_finite()) {
        when.push_str(" · ");
        when.push_str(&due_words(due, now_unix));
    }
    let mut technical = format!("on {}", sanitize(&row.waiting_on));
    if let Some(producer) = &row.wake_producer {
        technical.push_str(&format!(" · woken by {}", sanitize(producer)));
    }
    vec![
        Line::styled(head, theme.style(row_tone(row))),
        Line::styled(format!("      {when}"), theme.style(Tone::Normal)),
        Line::styled(format!("      {technical}"), theme.style(Tone::Dim)),
    ]
}

fn keeper_lines(k: &WaitingKeeper, now_unix: f64, theme: Theme) -> Vec<Line<'static>> {
    let mut lines = vec![kv(
        "state",
        sanitize(k.state.as_str()).into_owned(),
        if matches!(k.state, WaitState::Unknown(_)) {
            Tone::Warn
        } else {
            Tone::Normal
        },
        theme,
    )];
    if k.rows.is_empty() {
        lines.push(Line::styled(
            "  nothing waiting".to_string(),
            theme.style(Tone::Dim),
        ));
    }
    for slot in &k.rows {
        match slot {
            RowSlot::Row(row) => lines.extend(row_lines(row, now_unix, theme)),
            RowSlot::Undecodable(e) => lines.push(Line::styled(
                format!("  · undecodable row: {e}"),
                theme.style(Tone::Bad),
            )),
        }
    }
    if k.is_truncated() {
        let sources = if k.truncated_sources.is_empty() {
            "rows".to_string()
        } else {
            k.truncated_sources.join(", ")
        };
        lines.push(Line::styled(
            format!("  cut by MASC: more {sources} wait than are listed"),
            theme.style(Tone::Warn),
        ));
    }
    lines
}

/// The WAITS ON part of `keeper`'s detail.
pub fn detail_lines(model: &Model, keeper: &str, ctx: &ProjectionCtx) -> Vec<Line<'static>> {
    let theme = ctx.theme;
    let mut lines = vec![Line::styled(
        "WAITS ON".to_string(),
        theme.style(Tone::Strong),
    )];
    let fetched = inventory(model);
    if let Some((text, tone)) = absent_words(fetched) {
        lines.push(Line::styled(format!("  {text}"), theme.style(tone)));
        return lines;
    }
    let Some(inv) = fetched.last().and_then(|o| o.value.inventory()) else {
        return lines;
    };
    let suffix = stale_suffix(fetched);
    if !suffix.is_empty() {
        lines.push(Line::styled(
            format!("  {}", suffix.trim_start_matches(" · ")),
            theme.style(Tone::Warn),
        ));
    }
    match inv.of(keeper) {
        Some(k) => lines.extend(keeper_lines(k, ctx.now_unix, theme)),
        None => {
            let (text, tone) = roster_line(model, keeper, ctx);
            lines.push(Line::styled(format!("  {text}"), theme.style(tone)));
        }
    }
    for row in inv.global_read_errors() {
        lines.push(Line::styled(
            format!(
                "  workspace: {} — next {}",
                sanitize(row.sentence()),
                sanitize(&row.next_action)
            ),
            theme.style(Tone::Bad),
        ));
    }
    if !inv.counts_exact() {
        lines.push(Line::styled(
            "  counts not exact (Keeper list unread or rows cut)".to_string(),
            theme.style(Tone::Warn),
        ));
    }
    lines
}
