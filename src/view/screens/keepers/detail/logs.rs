//! The Keeper logs (`o` in the detail; surfaces.md "Keeper logs", protocol.md §14.9): the
//! newest 200 physical rows of `keeper.metrics.v1`, oldest first — Time, Kind, Channel
//! (`turn`, `sched`, `hb`), Msgs, In/Out, Lat, Cost, Work. Malformed, undecodable and
//! wrong-name rows keep their window slot and say what they are (N-7); the title counts them
//! (`rejected N/M physical rows`). Unread or failed is never "no records" (N-7).

use super::ProjectionCtx;
use super::{state_line, thousands};
use crate::protocol::inspector::turn_records::TurnKind;
use crate::protocol::inspector::{TurnRecord, TurnRecordsPage};
use crate::protocol::keeper_detail::context::rfc3339_seconds;
use crate::protocol::keeper_detail::{
    KeeperLogs, MetricsEntry, MetricsRecord, MetricsRow, MetricsRowKind, NOT_IN_TURN_RECORDS,
};
use crate::view::fetched::Fetched;
use crate::view::keepers::detail::KeeperDetail;
use crate::view::text::{pad_to, sanitize};
use crate::view::theme::{Theme, Tone};
use ratatui::text::{Line, Span};
use std::sync::Arc;

/// The column heading.
pub fn heading_line(theme: Theme) -> Line<'static> {
    Line::styled(
        format!(
            "{} {} {} {} {} {} {} {}",
            pad_to("#", 4),
            pad_to("TIME", 20),
            pad_to("KIND", 9),
            pad_to("CHAN", 5),
            pad_to("MSGS", 4),
            pad_to("IN/OUT", 15),
            pad_to("LAT", 7),
            pad_to("COST", 8),
        ) + "WORK",
        theme.style(Tone::Strong),
    )
}

fn record_line(index: u32, r: &MetricsRecord) -> String {
    let (kind, msgs, inout, lat, cost, work) = match &r.entry {
        MetricsEntry::Turn {
            message_count,
            usage,
            usage_trusted,
            latency_ms,
            cost_usd,
            turn_mode,
            ..
        } => (
            "turn",
            message_count.to_string(),
            match usage {
                Some(u) => format!(
                    "{}/{}{}",
                    signed_thousands(u.input_tokens),
                    signed_thousands(u.output_tokens),
                    if *usage_trusted { "" } else { " untrusted" }
                ),
                None => "--".to_string(),
            },
            format!("{:.1}s", *latency_ms as f64 / 1000.0),
            match cost_usd {
                Some(c) if c.is_finite() => format!("${c:.4}"),
                _ => "--".to_string(),
            },
            turn_mode.work(),
        ),
        MetricsEntry::Heartbeat { message_count } => (
            "heartbeat",
            message_count.map_or("--".to_string(), |m| m.to_string()),
            "--".to_string(),
            "--".to_string(),
            "--".to_string(),
            "",
        ),
    };
    format!(
        "{} {} {} {} {} {} {} {} {work}",
        pad_to(&index.to_string(), 4),
        pad_to(&sanitize(&r.ts), 20),
        pad_to(kind, 9),
        pad_to(r.channel.short(), 5),
        pad_to(&msgs, 4),
        pad_to(&inout, 15),
        pad_to(&lat, 7),
        pad_to(&cost, 8),
    )
}

/// One window row as drawn.
pub fn row_line(row: &MetricsRow, theme: Theme) -> Line<'static> {
    let index = pad_to(&row.index.to_string(), 4);
    match &row.kind {
        MetricsRowKind::Record(r) => Line::raw(record_line(row.index, r)),
        MetricsRowKind::Malformed(why) => Line::from(vec![
            Span::raw(format!("{index} ")),
            Span::styled(
                format!("✗ malformed line: {}", sanitize(why)),
                theme.style(Tone::Bad),
            ),
        ]),
        MetricsRowKind::Undecodable(e) => Line::from(vec![
            Span::raw(format!("{index} ")),
            Span::styled(
                format!(
                    "✗ not a keeper.metrics.v1 record: {} at {}",
                    e.reason(),
                    sanitize(&e.path)
                ),
                theme.style(Tone::Bad),
            ),
        ]),
        MetricsRowKind::OtherKeeper(name) => Line::from(vec![
            Span::raw(format!("{index} ")),
            Span::styled(
                format!("✗ a record naming another Keeper ({})", sanitize(name)),
                theme.style(Tone::Bad),
            ),
        ]),
    }
}

/// The column heading of a turn-records window (a MASC without the metrics tail).
pub fn records_heading_line(theme: Theme) -> Line<'static> {
    Line::styled(
        format!(
            "{} {} {} {} {} {} ",
            pad_to("#", 4),
            pad_to("TIME", 20),
            pad_to("KIND", 10),
            pad_to("MODEL", 16),
            pad_to("IN/OUT", 15),
            pad_to("LAT", 7),
        ) + "FINISH",
        theme.style(Tone::Strong),
    )
}

/// One turn record as a logs row: what MASC recorded of the turn, `--` where it recorded
/// nothing (never 0).
pub fn turn_record_line(index: usize, r: &TurnRecord) -> String {
    let kind = match r.turn_kind {
        TurnKind::Direct => "direct",
        TurnKind::Autonomous => "autonomous",
    };
    let inout = match (r.input_tokens, r.output_tokens) {
        (None, None) => "--".to_string(),
        (i, o) => format!(
            "{}/{}",
            i.map_or("--".to_string(), thousands),
            o.map_or("--".to_string(), thousands)
        ),
    };
    let lat = r
        .request_latency_ms
        .map_or("--".to_string(), |ms| format!("{:.1}s", ms as f64 / 1000.0));
    let model = r.selected_model.as_deref().map_or("--".into(), sanitize);
    let finish = r.finish_reason.as_deref().map_or("--".into(), sanitize);
    format!(
        "{} {} {} {} {} {} {finish}",
        pad_to(&index.to_string(), 4),
        pad_to(&rfc3339_seconds(r.ts), 20),
        pad_to(kind, 10),
        pad_to(&model, 16),
        pad_to(&inout, 15),
        pad_to(&lat, 7),
    )
}

/// The title line: the window, where it comes from and how many rows were rejected.
pub fn title_line(keeper: &str, logs: Option<&KeeperLogs>, theme: Theme) -> Line<'static> {
    let mut spans = vec![Span::styled(
        format!("LOGS {}", sanitize(keeper)),
        theme.style(Tone::Strong),
    )];
    if let Some(KeeperLogs::TurnRecords(page)) = logs {
        spans.push(Span::raw(format!(
            " · newest {} turn records (limit {})",
            page.records.len(),
            page.limit
        )));
        if page.skipped_rows > 0 {
            spans.push(Span::styled(
                format!(" · {} rows MASC could not decode", page.skipped_rows),
                theme.style(Tone::Warn),
            ));
        }
    }
    if let Some(t) = logs.and_then(KeeperLogs::metrics) {
        spans.push(Span::raw(format!(
            " · newest {} physical rows (limit {})",
            t.rows.len(),
            t.limit
        )));
        let rejected = t.rejected();
        if rejected > 0 {
            spans.push(Span::styled(
                format!(" · rejected {rejected}/{} physical rows", t.rows.len()),
                theme.style(Tone::Warn),
            ));
        }
    }
    Line::from(spans)
}

/// The logs view's lines below the title: state, heading, the window from `scroll` on.
pub fn body_lines(
    detail: Option<&KeeperDetail>,
    scroll: usize,
    rows: usize,
    ctx: &ProjectionCtx,
) -> Vec<Line<'static>> {
    let theme = ctx.theme;
    let Some(d) = detail else {
        return vec![Line::styled(
            "logs not requested".to_string(),
            theme.style(Tone::Dim),
        )];
    };
    let fetched: &Fetched<Arc<KeeperLogs>> = &d.metrics.fetched;
    let mut lines = Vec::new();
    if let Some(state) = state_line("logs", fetched, ctx.now, theme) {
        lines.push(state);
    }
    let Some(logs) = fetched.last() else {
        return lines;
    };
    let tail = match &*logs.value {
        KeeperLogs::Metrics(tail) => tail,
        KeeperLogs::TurnRecords(page) => {
            records_lines(page, scroll, rows, theme, &mut lines);
            return lines;
        }
    };
    if tail.rows.is_empty() {
        lines.push(Line::styled(
            "no records in the metrics store".to_string(),
            theme.style(Tone::Dim),
        ));
        return lines;
    }
    lines.push(heading_line(theme));
    let room = rows.saturating_sub(lines.len());
    lines.extend(
        tail.rows
            .iter()
            .skip(scroll)
            .take(room)
            .map(|r| row_line(r, theme)),
    );
    lines
}

/// The turn records of a MASC without the metrics tail: what is not in them said first,
/// then the window from `scroll` on (an empty store says so, never an empty table).
fn records_lines(
    page: &TurnRecordsPage,
    scroll: usize,
    rows: usize,
    theme: Theme,
    lines: &mut Vec<Line<'static>>,
) {
    lines.push(Line::styled(
        "from the turn records: this MASC does not serve /metrics-tail".to_string(),
        theme.style(Tone::Dim),
    ));
    lines.push(Line::styled(
        format!("not in turn records: {NOT_IN_TURN_RECORDS}"),
        theme.style(Tone::Dim),
    ));
    if page.records.is_empty() {
        lines.push(Line::styled(
            "no turn records for this Keeper".to_string(),
            theme.style(Tone::Dim),
        ));
        return;
    }
    lines.push(records_heading_line(theme));
    let room = rows.saturating_sub(lines.len());
    lines.extend(
        page.records
            .iter()
            .enumerate()
            .skip(scroll)
            .take(room)
            .map(|(i, r)| Line::raw(turn_record_line(i + 1, r))),
    );
}

/// A token count as reported: MASC keeps an untrusted provider's negative count as it came.
fn signed_thousands(n: i64) -> String {
    let digits = thousands(n.unsigned_abs());
    if n < 0 { format!("-{digits}") } else { digits }
}
