//! The `sources` pane of System: one row per supervised source and save kind, from the live
//! stage-event numbers (`crate::timeline::live`) — state, reads or saves per minute, dispatch
//! → admit p50 / p95 over the sliding window, failures by class, rejections by reason,
//! restarts, the age of the newest admission and a sparkline of the recent latencies. `j`/`k`
//! select a row; `Enter` shows the selected source's recent tickets as a small timeline
//! (dispatched, worker returned, admitted or rejected and why); `Enter` or `Esc` goes back.

use crate::timeline::live::{LiveSnapshot, SourceRow, SourceState};
use crate::timeline::tickets::{Ending, TicketInterval};
use crate::view::model::Model;
use crate::view::screens::ProjectionCtx;
use crate::view::screens::widgets::slot_status_lines;
use crate::view::text::{pad_to, sanitize};
use crate::view::theme::Tone;
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Sparkline, Widget};

/// The pane's own state.
#[derive(Debug, Clone, Default)]
pub struct SourcesUi {
    /// The selected row (clamped to the rows when drawn).
    pub selected: usize,
    /// The selected source's recent tickets are shown instead of the table.
    pub timeline: bool,
}

const NAME_W: usize = 26;
const STATE_W: usize = 11;
const NUM_W: usize = 6;
const TIME_W: usize = 8;
/// Columns before the sparkline.
const FIXED_W: usize = NAME_W + STATE_W + NUM_W + 2 * TIME_W + 3 * NUM_W + TIME_W;
const SPARK_MAX_W: usize = 24;

/// Microseconds as a short duration (`850µs`, `12.3ms`, `4.1s`, `3m`).
pub fn duration_words(us: u64) -> String {
    match us {
        0..1_000 => format!("{us}µs"),
        1_000..1_000_000 => format!("{:.1}ms", us as f64 / 1_000.0),
        1_000_000..120_000_000 => format!("{:.1}s", us as f64 / 1_000_000.0),
        _ => format!("{}m", us / 60_000_000),
    }
}

fn state_tone(state: SourceState) -> Tone {
    match state {
        SourceState::Running => Tone::Good,
        SourceState::Restarting { .. } => Tone::Warn,
        SourceState::Stopped => Tone::Bad,
        SourceState::Quiet => Tone::Dim,
    }
}

fn state_text(state: SourceState) -> String {
    match state {
        SourceState::Restarting { attempt } => format!("restart #{attempt}"),
        other => other.word().to_string(),
    }
}

fn counts_text(counts: &[(String, u64)]) -> String {
    counts
        .iter()
        .map(|(what, n)| format!("{} ×{n}", sanitize(what)))
        .collect::<Vec<_>>()
        .join(" · ")
}

fn heading(ctx: &ProjectionCtx) -> Line<'static> {
    let text = [
        pad_to("SOURCE", NAME_W),
        pad_to("STATE", STATE_W),
        pad_to("/MIN", NUM_W),
        pad_to("P50", TIME_W),
        pad_to("P95", TIME_W),
        pad_to("FAIL", NUM_W),
        pad_to("REJ", NUM_W),
        pad_to("RST", NUM_W),
        pad_to("LAST", TIME_W),
        "LATENCY".to_string(),
    ]
    .concat();
    Line::styled(text, ctx.theme.style(Tone::Strong))
}

/// One row's text columns (the sparkline is drawn after them).
pub fn row_line(row: &SourceRow, selected: bool, ctx: &ProjectionCtx) -> Line<'static> {
    let theme = ctx.theme;
    let optional = |v: Option<u64>| v.map_or_else(|| "-".to_string(), duration_words);
    let count = |n: u64, tone: Tone| {
        let tone = if n == 0 { Tone::Dim } else { tone };
        Span::styled(pad_to(&n.to_string(), NUM_W), theme.style(tone))
    };
    let name_style = if selected {
        theme
            .style(Tone::Accent)
            .add_modifier(ratatui::style::Modifier::REVERSED)
    } else {
        theme.style(Tone::Normal)
    };
    Line::from(vec![
        Span::styled(pad_to(&sanitize(&row.name), NAME_W), name_style),
        Span::styled(
            pad_to(&state_text(row.state), STATE_W),
            theme.style(state_tone(row.state)),
        ),
        Span::raw(pad_to(&row.per_minute.to_string(), NUM_W)),
        Span::raw(pad_to(&optional(row.p50_us), TIME_W)),
        Span::raw(pad_to(&optional(row.p95_us), TIME_W)),
        count(row.failure_count(), Tone::Bad),
        count(row.rejected_count(), Tone::Warn),
        count(u64::from(row.restarts), Tone::Warn),
        Span::raw(pad_to(&optional(row.last_admitted_age_us), TIME_W)),
    ])
}

/// What the selected row's failures and rejections were, by class and reason.
fn why_lines(row: &SourceRow, ctx: &ProjectionCtx) -> Vec<Line<'static>> {
    let theme = ctx.theme;
    let mut lines = vec![Line::styled(
        format!(
            "{} (source {}) · {} admitted in the window",
            sanitize(&row.name),
            sanitize(&row.owner),
            row.samples
        ),
        theme.style(Tone::Strong),
    )];
    if !row.failures.is_empty() {
        lines.push(Line::styled(
            format!("failures: {}", counts_text(&row.failures)),
            theme.style(Tone::Bad),
        ));
    }
    if !row.rejected.is_empty() {
        lines.push(Line::styled(
            format!("rejected: {}", counts_text(&row.rejected)),
            theme.style(Tone::Warn),
        ));
    }
    lines
}

/// One ended ticket on the timeline: when it was dispatched (before the snapshot), the worker's
/// return and the end, each after the dispatch, and how it ended.
pub fn ticket_line(t: &TicketInterval, taken_us: u64, ctx: &ProjectionCtx) -> Line<'static> {
    let theme = ctx.theme;
    let after = |at: Option<u64>| at.map(|at| duration_words(at.saturating_sub(t.dispatch_us)));
    let mut spans = vec![
        Span::styled(
            format!(
                "{:>9} ago  #{:<6}",
                duration_words(taken_us.saturating_sub(t.dispatch_us)),
                t.key.generation
            ),
            theme.style(Tone::Dim),
        ),
        Span::raw("dispatched"),
    ];
    match (after(t.worker_return_us), &t.failure_class) {
        (Some(at), None) => spans.push(Span::raw(format!(" → worker returned +{at}"))),
        (Some(at), Some(class)) => spans.push(Span::styled(
            format!(" → worker returned +{at} ({})", sanitize(class)),
            theme.style(Tone::Bad),
        )),
        (None, _) => spans.push(Span::styled(" → no worker return", theme.style(Tone::Dim))),
    }
    let end = after(t.end_us).unwrap_or_else(|| "?".into());
    spans.push(match &t.ending {
        Ending::Admitted => Span::styled(format!(" → admitted +{end}"), theme.style(Tone::Good)),
        Ending::Rejected(why) => Span::styled(
            format!(" → rejected +{end}: {}", sanitize(why)),
            theme.style(Tone::Warn),
        ),
        Ending::Retired(why) => Span::styled(
            format!(" → retired +{end}: {}", sanitize(why)),
            theme.style(Tone::Dim),
        ),
        Ending::Unfinished => Span::styled(" → unfinished", theme.style(Tone::Dim)),
    });
    Line::from(spans)
}

fn timeline_lines(row: &SourceRow, taken_us: u64, ctx: &ProjectionCtx) -> Vec<Line<'static>> {
    let mut lines = vec![Line::styled(
        format!(
            "recent tickets of {} (newest last) · Enter / Esc back",
            sanitize(&row.name)
        ),
        ctx.theme.style(Tone::Strong),
    )];
    if row.recent.is_empty() {
        lines.push(Line::styled(
            "no ticket of this source has ended yet",
            ctx.theme.style(Tone::Dim),
        ));
    }
    lines.extend(row.recent.iter().map(|t| ticket_line(t, taken_us, ctx)));
    lines.extend(why_lines(row, ctx));
    lines
}

/// The rows of the newest snapshot, if any.
pub fn rows(model: &Model) -> &[SourceRow] {
    match model.sources.latest() {
        Some(LiveSnapshot::Recording { rows, .. }) => rows,
        _ => &[],
    }
}

/// Paints the pane into `area` (below the System pane line).
pub fn render(model: &Model, ui: &SourcesUi, ctx: &ProjectionCtx, area: Rect, buf: &mut Buffer) {
    if area.height == 0 {
        return;
    }
    let width = area.width as usize;
    let fetched = &model.sources.snapshot.fetched;
    let (taken_us, rows) = match model.sources.latest() {
        Some(LiveSnapshot::Recording { taken_us, rows }) => (*taken_us, rows.as_slice()),
        Some(LiveSnapshot::NotRecording) => {
            let lines = [Line::styled(
                "sources: not recorded in this process (stage tracing is off)",
                ctx.theme.style(Tone::Dim),
            )];
            crate::view::terminal::cells::render_lines(lines.iter(), area, buf);
            return;
        }
        None => {
            let lines = slot_status_lines("sources", fetched, ctx, width);
            crate::view::terminal::cells::render_lines(lines.iter(), area, buf);
            return;
        }
    };
    let selected = ui.selected.min(rows.len().saturating_sub(1));
    if ui.timeline
        && let Some(row) = rows.get(selected)
    {
        let lines = timeline_lines(row, taken_us, ctx);
        crate::view::terminal::cells::render_lines(lines.iter(), area, buf);
        return;
    }
    let mut lines = vec![heading(ctx)];
    let status = slot_status_lines("sources", fetched, ctx, width);
    // Room for the heading, the status and the selected row's reasons.
    let why = rows
        .get(selected)
        .map(|r| why_lines(r, ctx))
        .unwrap_or_default();
    let table_rows = (area.height as usize)
        .saturating_sub(1 + status.len() + why.len())
        .max(1);
    let first = selected.saturating_sub(table_rows.saturating_sub(1));
    let shown = rows.iter().enumerate().skip(first).take(table_rows);
    let spark_x = area.x.saturating_add(FIXED_W as u16);
    let spark_w = width.saturating_sub(FIXED_W).min(SPARK_MAX_W) as u16;
    let mut sparks = Vec::new();
    for (i, row) in shown {
        let y = area.y.saturating_add(lines.len() as u16);
        lines.push(row_line(row, i == selected, ctx));
        if spark_w > 0 && !row.spark_ms.is_empty() {
            sparks.push((Rect::new(spark_x, y, spark_w, 1), &row.spark_ms));
        }
    }
    lines.extend(status);
    lines.extend(why);
    crate::view::terminal::cells::render_lines(lines.iter(), area, buf);
    for (rect, data) in sparks {
        let keep = (rect.width as usize).min(data.len());
        let newest = data.iter().skip(data.len() - keep);
        Sparkline::default()
            .data(newest)
            .style(ctx.theme.style(Tone::Accent))
            .render(rect.intersection(area), buf);
    }
}

/// Keys of the pane: `j`/`k` select, `Enter` the timeline and back, `Esc` back.
pub fn key(ui: &mut SourcesUi, model: &Model, key: KeyEvent) -> bool {
    let len = rows(model).len();
    match key.code {
        KeyCode::Char('j') | KeyCode::Down if !ui.timeline => {
            ui.selected = (ui.selected + 1).min(len.saturating_sub(1));
        }
        KeyCode::Char('k') | KeyCode::Up if !ui.timeline => {
            ui.selected = ui.selected.min(len.saturating_sub(1)).saturating_sub(1);
        }
        KeyCode::Enter if len > 0 => ui.timeline = !ui.timeline,
        KeyCode::Esc if ui.timeline => ui.timeline = false,
        _ => return false,
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::text::display_width;

    #[test]
    fn durations_read_in_their_unit() {
        assert_eq!(duration_words(850), "850µs");
        assert_eq!(duration_words(12_340), "12.3ms");
        assert_eq!(duration_words(4_100_000), "4.1s");
        assert_eq!(duration_words(180_000_000), "3m");
    }

    #[test]
    fn the_heading_is_as_wide_as_the_text_columns() {
        let ctx = ProjectionCtx::now(crate::view::theme::Theme::default());
        let heading = heading(&ctx).to_string();
        assert_eq!(display_width(&heading), FIXED_W + "LATENCY".len());
    }
}
