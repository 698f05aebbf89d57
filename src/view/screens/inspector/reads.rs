//! The §14.11 readings as rows, shared by the turn inspector (`O`: `1:record`, `2:input`) and
//! the context inspector (`/context`: `1:stack`, `2:request`, `3:proof`): read states, a turn
//! record, a serialized provider input, and the proof (how the recorded components account
//! for the serialized request — an interpretation of MASC's `Input_map`, documented in
//! docs/audits/chat.md "Context inspector tabs").
//!
//! Every server string is sanitised here, once, before it reaches a row; rows are plain
//! `(text, tone)` pairs the caller fits to its width in terminal cells.

use crate::protocol::client::ErrorClass;
use crate::protocol::inspector::provider_input::InputItem;
use crate::protocol::inspector::turn_records::{ComponentSource, TurnKind, TurnRecord};
use crate::protocol::inspector::{ProviderInput, TurnRecordsPage};
use crate::view::fetched::{FailureClass, Fetched};
use crate::view::screens::approvals::asks::clock;
use crate::view::text::{sanitize, sanitize_line};
use crate::view::theme::Tone;
use std::sync::Arc;

/// One row.
pub type Row = (String, Tone);

/// Content lines shown per message or schema before the rest is counted.
pub const CONTENT_LINES: usize = 12;

/// What kind of read a state line names (the 404 of a provider input is its own state).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadKind {
    Records,
    Input,
}

/// The state words of one §14.11 read (K-15: reading ≠ unavailable ≠ denied ≠ failed).
pub fn state_words<T: Clone>(fetched: &Fetched<T>, kind: ReadKind) -> Row {
    let kept = |last: bool| {
        if last {
            " · last observation shown"
        } else {
            ""
        }
    };
    match fetched {
        Fetched::NotRequested => ("not loaded".into(), Tone::Dim),
        Fetched::Loading => ("reading (조회 중)".into(), Tone::Busy),
        Fetched::Refreshing { .. } => (
            "reading again (조회 중) · last observation shown".into(),
            Tone::Busy,
        ),
        Fetched::Warming { last } => (
            format!("server warming up{}", kept(last.is_some())),
            Tone::Warn,
        ),
        Fetched::NotServed { last, .. } => (
            format!(
                "unavailable (조회 불가): not served by this MASC{}",
                kept(last.is_some())
            ),
            Tone::Dim,
        ),
        Fetched::Failed { error, last, .. } => match error.class {
            FailureClass::Read(ErrorClass::Unauthorized(status)) => (
                format!(
                    "permission denied (status {status}){}",
                    kept(last.is_some())
                ),
                Tone::Bad,
            ),
            FailureClass::Read(ErrorClass::Status(404)) if kind == ReadKind::Input => (
                format!(
                    "unavailable (조회 불가): no serialized input kept for this turn (404){}",
                    kept(last.is_some())
                ),
                Tone::Warn,
            ),
            class => (
                format!(
                    "unavailable (조회 불가): read failed ({class}){}",
                    kept(last.is_some())
                ),
                Tone::Bad,
            ),
        },
        Fetched::Ready(_) => ("received".into(), Tone::Good),
    }
}

/// The state row of a records read (`None`: never asked for), with the page's count when one
/// is shown.
pub fn records_state(fetched: Option<&Fetched<Arc<TurnRecordsPage>>>) -> Row {
    let Some(fetched) = fetched else {
        return ("not loaded".into(), Tone::Dim);
    };
    match fetched {
        Fetched::Ready(o) if o.value.records.is_empty() => (
            format!(
                "received · no turn records (health {})",
                o.value.health.as_str()
            ),
            Tone::Dim,
        ),
        Fetched::Ready(o) => (
            format!("received · {} newest turn records", o.value.records.len()),
            Tone::Good,
        ),
        other => state_words(other, ReadKind::Records),
    }
}

/// The state row of a serialized input read (`None`: never asked for).
pub fn input_state(fetched: Option<&Fetched<Arc<ProviderInput>>>) -> Row {
    match fetched {
        Some(f) => state_words(f, ReadKind::Input),
        None => ("not loaded".into(), Tone::Dim),
    }
}

/// The page's own health facts (never hidden: a refused row is counted, not shown).
pub fn page_rows(page: &TurnRecordsPage) -> Vec<Row> {
    let mut out = Vec::new();
    let mut health = format!("page health {}", page.health.as_str());
    if let Some(reason) = &page.stale_reason {
        health.push_str(&format!(" ({})", sanitize(reason)));
    }
    if page.skipped_rows > 0 {
        health.push_str(&format!(
            " · {} row(s) MASC could not decode (counted, not shown)",
            page.skipped_rows
        ));
    }
    if page.live_turn_in_progress {
        health.push_str(" · a turn is running now (not recorded yet)");
    }
    let tone = match page.health {
        crate::protocol::inspector::turn_records::RecordsHealth::Ok => Tone::Dim,
        _ => Tone::Warn,
    };
    out.push((health, tone));
    out
}

fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or_else(|| "not reported".into(), |v| v.to_string())
}

/// Short digest: its first 12 hex digits (the full one is in the request tab).
pub fn short(digest: &str) -> String {
    sanitize(digest.get(..12).unwrap_or(digest)).into_owned()
}

/// A byte count as MASC's inspector writes it (`512 B`, `1.0 KB`, `3.0 MB`).
pub fn bytes(n: u64) -> String {
    if n >= 1024 * 1024 {
        format!("{:.1} MB", n as f64 / 1_048_576.0)
    } else if n >= 1024 {
        format!("{:.1} KB", n as f64 / 1024.0)
    } else {
        format!("{n} B")
    }
}

/// The usage rows of a record (tokens are per request, never split per component).
pub fn usage_rows(r: &TurnRecord) -> Vec<Row> {
    let scope = r
        .usage_scope
        .as_deref()
        .map_or_else(String::new, |s| format!(" ({})", sanitize(s)));
    let mut out = vec![(
        format!(
            "tokens in {}{scope} · out {} · cache read {} · cache write {}",
            opt(r.input_tokens),
            opt(r.output_tokens),
            opt(r.cache_read_input_tokens),
            opt(r.cache_creation_input_tokens)
        ),
        Tone::Normal,
    )];
    let window = match (r.input_tokens, r.context_window) {
        (Some(t), Some(w)) if w > 0 => format!(
            "context window {w} · this request used {:.1}%",
            t as f64 * 100.0 / w as f64
        ),
        (_, Some(w)) => format!("context window {w}"),
        (_, None) => "context window not reported".into(),
    };
    out.push((window, Tone::Normal));
    out.push((
        format!(
            "request body {}",
            r.request_body_bytes
                .map_or_else(|| "not recorded".into(), |b| format!("{b} bytes"))
        ),
        Tone::Normal,
    ));
    out
}

/// The components of a record: bytes, share of the recorded total and producer.
pub fn component_rows(r: &TurnRecord) -> Vec<Row> {
    let Some(components) = &r.input_components else {
        return vec![(
            "input components not recorded for this turn (no attribution: not an empty input)"
                .into(),
            Tone::Warn,
        )];
    };
    if components.is_empty() {
        return vec![(
            "input components: none recorded (an empty list)".into(),
            Tone::Dim,
        )];
    }
    let total: u64 = components.iter().map(|c| c.bytes).sum();
    let mut out = vec![(
        format!(
            "input components · {} recorded · {} total",
            components.len(),
            bytes(total)
        ),
        Tone::Strong,
    )];
    for c in components {
        let share = if total > 0 {
            c.bytes as f64 * 100.0 / total as f64
        } else {
            0.0
        };
        let tone = if c.source() == ComponentSource::Unknown {
            Tone::Warn
        } else {
            Tone::Normal
        };
        out.push((
            format!(
                "  {:<28} {:>9} {:>5.1}%  {}",
                sanitize(&c.component),
                bytes(c.bytes),
                share,
                c.source().label()
            ),
            tone,
        ));
    }
    out
}

/// Every row of one turn record (the `O` inspector's `1:record`).
pub fn record_rows(r: &TurnRecord) -> Vec<Row> {
    let kind = match r.turn_kind {
        TurnKind::Autonomous => "autonomous",
        TurnKind::Direct => "direct",
    };
    let mut out = vec![(
        format!(
            "turn {} · {kind} · recorded {}",
            sanitize(&r.turn_ref),
            clock(r.ts)
        ),
        Tone::Strong,
    )];
    out.push((
        format!(
            "keeper {} · agent {}{}",
            sanitize(&r.keeper),
            sanitize(&r.agent_name),
            r.generation
                .map_or_else(String::new, |g| format!(" · generation {g}"))
        ),
        Tone::Dim,
    ));
    out.push((
        format!(
            "runtime {} · model {} · finish {}",
            sanitize(&r.runtime_profile),
            r.selected_model
                .as_deref()
                .map_or_else(|| "not reported".into(), |m| sanitize(m).into_owned()),
            r.finish_reason
                .as_deref()
                .map_or_else(|| "not reported".into(), |m| sanitize(m).into_owned()),
        ),
        Tone::Normal,
    ));
    out.push((
        format!(
            "latency {} ms · first token {} ms",
            opt(r.request_latency_ms),
            opt(r.ttfrc_ms.map(|v| format!("{v:.0}")))
        ),
        Tone::Dim,
    ));
    out.extend(usage_rows(r));
    out.extend(component_rows(r));
    if !r.blocks.is_empty() {
        out.push(("prompt blocks".into(), Tone::Strong));
        for b in &r.blocks {
            out.push((
                format!(
                    "  {:<28} {:>9}  sha256 {}…",
                    sanitize(&b.block),
                    bytes(b.bytes),
                    short(&b.digest)
                ),
                Tone::Normal,
            ));
        }
    }
    if !r.execution_ids.is_empty() {
        let ids: Vec<String> = r
            .execution_ids
            .iter()
            .map(|i| sanitize(i).into_owned())
            .collect();
        out.push((format!("executions {}", ids.join(", ")), Tone::Dim));
    }
    out
}

fn item_rows(out: &mut Vec<Row>, prefix: &str, item: &InputItem) {
    out.push((
        format!(
            "{prefix} #{} {} · {} · sha256 {}…",
            item.index,
            sanitize(&item.label),
            bytes(item.bytes),
            short(&item.sha256)
        ),
        Tone::Strong,
    ));
    content_rows(out, &item.content);
}

/// The first [`CONTENT_LINES`] lines of `text`, then how many more there are. Only the lines
/// shown are sanitised (these rows are built on every frame; a body can be the whole prompt).
fn content_rows(out: &mut Vec<Row>, text: &str) {
    let mut lines = text.split('\n');
    for line in lines.by_ref().take(CONTENT_LINES) {
        out.push((format!("    {}", sanitize_line(line)), Tone::Normal));
    }
    let more = lines.count();
    if more > 0 {
        out.push((format!("    … {more} more lines"), Tone::Dim));
    }
}

/// Every row of a serialized provider input (the `O` inspector's `2:input`, `/context`
/// `2:request`).
pub fn input_rows(i: &ProviderInput) -> Vec<Row> {
    let w = &i.wire;
    let (sys, msgs, tools) = i.item_bytes();
    let mut out = vec![(
        format!(
            "turn {} · captured {} · runtime {}",
            sanitize(&i.turn_ref),
            clock(i.captured_at),
            sanitize(&i.runtime_profile)
        ),
        Tone::Strong,
    )];
    out.push((
        format!(
            "wire {} · {} · {} · {} · {}",
            sanitize(&w.phase),
            sanitize(&w.provider),
            sanitize(&w.model),
            sanitize(&w.http_codec),
            if w.stream { "stream" } else { "no stream" }
        ),
        Tone::Dim,
    ));
    out.push((
        format!(
            "request body {} bytes · sha256 {}",
            w.body_bytes,
            sanitize(&w.body_sha256)
        ),
        Tone::Normal,
    ));
    out.push((
        format!(
            "parts: system prompt {} · {} messages {} · {} tool schemas {}",
            bytes(sys),
            i.messages.len(),
            bytes(msgs),
            i.tool_schemas.len(),
            bytes(tools)
        ),
        Tone::Normal,
    ));
    match &i.system_prompt {
        None => out.push(("system prompt: none sent".into(), Tone::Dim)),
        Some(sp) => {
            let check = if sp.sha256_matches_text {
                "✓ digest of the text"
            } else {
                "✗ not the digest of the text received"
            };
            out.push((
                format!(
                    "system prompt · {} · sha256 {}… {check}",
                    bytes(sp.bytes),
                    short(&sp.sha256)
                ),
                if sp.sha256_matches_text {
                    Tone::Strong
                } else {
                    Tone::Bad
                },
            ));
            content_rows(&mut out, &sp.text);
        }
    }
    for m in &i.messages {
        item_rows(&mut out, "message", m);
    }
    for t in &i.tool_schemas {
        item_rows(&mut out, "tool schema", t);
    }
    out
}

/// The reaction of an open inspector (`O`, `/context`): the readings it shows that were not
/// asked for in this epoch are sent to the turn-inspector source as casts, never awaited (K-15,
/// K-17). Tab entry and scrolling change none of these, so they read nothing; `r` re-reads
/// explicitly.
pub fn read_wanted(
    cx: &mut crate::view::screens::react::ReactCx<'_>,
    wanted: Vec<crate::actors::inspector::InspectorSlot>,
) {
    use crate::actors::inspector::TURN_INSPECTOR;
    for slot in wanted {
        // Checked first without `&mut`: a `&mut` access of the model counts as a change (a
        // whole next frame, `crate::view::frame`).
        if cx.model().inspector.asked(&slot) {
            continue;
        }
        if let Some(cmd) = cx.model_mut().inspector.want(slot.clone())
            && cx.send(TURN_INSPECTOR, cmd).is_err()
        {
            // The source is not up: asked again on the next key or delivery.
            cx.model_mut().inspector.unwant(&slot);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::text::sanitize_lines;

    /// T.7: a body's rows are its first lines, each sanitised as `sanitize_lines` does (the CR
    /// before a line feed dropped, controls escaped), then the count of the lines not shown.
    #[test]
    fn t7_content_rows_show_the_first_lines_sanitised_and_count_the_rest() {
        for n in [1, CONTENT_LINES, CONTENT_LINES + 1, CONTENT_LINES + 5] {
            let text: Vec<String> = (0..n).map(|i| format!("line {i}\u{1b}[2J\r")).collect();
            let text = text.join("\n");
            let mut out = Vec::new();
            content_rows(&mut out, &text);
            let mut expect: Vec<Row> = sanitize_lines(&text)
                .into_iter()
                .take(CONTENT_LINES)
                .map(|l| (format!("    {l}"), Tone::Normal))
                .collect();
            if n > CONTENT_LINES {
                let more = n - CONTENT_LINES;
                expect.push((format!("    … {more} more lines"), Tone::Dim));
            }
            assert_eq!(out, expect, "{n} lines");
        }
    }
}
