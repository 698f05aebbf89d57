//! The Keeper detail pane (surfaces.md "Keeper detail"): tabs Info and Instructions (`[` /
//! `]`), `j`/`k` scroll, `o` the Keeper logs. Info shows Identity and Current Work (§14.7),
//! Settings (§9.5: sandbox, network, runtime), Live Context (§14.8: `%`, bar,
//! `current / max tokens`, Observed, Turn Ref; L-1…L-4), the roster's lifecycle, the activity
//! summary (§14.9, N-5) and every field of the roster row. The Instructions tab and the
//! Settings part read the settings snapshot — the record the settings editor edits — never
//! §14.7's copy, so the detail and the editor cannot disagree (protocol-16 §16.1.2).
//!
//! Every part says which of its states it is in — not requested, reading, not served by this
//! MASC (only that part), failed (with the last good value when there is one), or its value —
//! and a failure or an unread part is never drawn as 0, "no records" or an empty list (N-7).

pub(super) mod fields;
pub mod logs;

use super::ProjectionCtx;
use crate::actors::keepers::ops::sandbox::profile_word;
use crate::protocol::inspector::TurnRecordsPage;
use crate::protocol::keeper_config::KeeperConfigSnapshot;
use crate::protocol::keeper_detail::context::rfc3339_seconds;
use crate::protocol::keeper_detail::{
    ActivitySummary, ContextObservation, ContextSource, KeeperStatus, LiveContext, MetricsTail,
};
use crate::protocol::keeper_detail::{KeeperLogs, NOT_IN_TURN_RECORDS, RecordsSummary};
use crate::view::fetched::{FailureClass, Fetched, SlotFailure};
use crate::view::keepers::detail::{KeeperDetail, not_served};
use crate::view::text::sanitize;
use crate::view::theme::{Theme, Tone};
use ratatui::text::{Line, Span};
use std::sync::Arc;
use std::time::Instant;

/// The tabs of the detail pane this build draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DetailTab {
    #[default]
    Info,
    Instructions,
}

impl DetailTab {
    pub const ALL: [DetailTab; 2] = [Self::Info, Self::Instructions];

    pub fn label(self) -> &'static str {
        match self {
            Self::Info => "Info",
            Self::Instructions => "Instructions",
        }
    }

    /// `]` (forward) / `[` (back), wrapping.
    pub fn step(self, forward: bool) -> Self {
        let n = Self::ALL.len();
        let i = Self::ALL.iter().position(|t| *t == self).unwrap_or(0);
        Self::ALL[if forward {
            (i + 1) % n
        } else {
            (i + n - 1) % n
        }]
    }
}

/// The detail pane's UI state (reset when the pane opens).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DetailUi {
    /// The Keeper whose detail is open (its reads are watched while it is).
    pub keeper: Option<String>,
    pub tab: DetailTab,
    pub scroll: u16,
    /// The Keeper logs view (`o`), with its scroll offset from the top.
    pub logs: Option<usize>,
}

const BAR_CELLS: usize = 20;

fn heading(text: &str, theme: Theme) -> Line<'static> {
    Line::styled(text.to_string(), theme.style(Tone::Strong))
}

fn kv(label: &str, value: String, tone: Tone, theme: Theme) -> Line<'static> {
    Line::from(vec![
        Span::styled(format!("  {label:<18}"), theme.style(Tone::Dim)),
        Span::styled(value, theme.style(tone)),
    ])
}

fn opt_text(value: Option<&str>) -> (String, Tone) {
    match value {
        Some(v) => (sanitize(v).into_owned(), Tone::Normal),
        None => ("(not sent)".to_string(), Tone::Dim),
    }
}

/// Groups of three digits: `100,887`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The words of a failure of one part.
pub fn failure_words(part: &str, error: &SlotFailure) -> String {
    if not_served(error.class) {
        return format!("{part}: not served by this MASC (only this part is unavailable)");
    }
    format!(
        "{part}: read failed — {} ({})",
        error.class,
        sanitize(&error.detail)
    )
}

/// The state line of a part without a value, or the annotation beside a kept value; `None`
/// when the value is current and nothing is pending.
pub fn state_line<T: Clone>(
    part: &str,
    fetched: &Fetched<T>,
    now: Instant,
    theme: Theme,
) -> Option<Line<'static>> {
    let (text, tone) = match fetched {
        Fetched::NotRequested => (format!("{part}: not requested"), Tone::Dim),
        Fetched::Loading => (format!("{part}: ⟳ reading…"), Tone::Busy),
        Fetched::Warming { last } => (
            format!(
                "{part}: server warming up{}",
                if last.is_some() {
                    " (showing last value)"
                } else {
                    ""
                }
            ),
            Tone::Warn,
        ),
        Fetched::Ready(_) => return None,
        Fetched::Refreshing { .. } if fetched.shows_reading(now) => (
            format!("{part}: ⟳ reading… (showing last value)"),
            Tone::Busy,
        ),
        Fetched::Refreshing { .. } => return None,
        // Not served is its own state, never a failure.
        Fetched::NotServed { last, .. } => (
            format!(
                "{part}: not served by this MASC (only this part is unavailable){}",
                if last.is_some() {
                    " · showing the last good value"
                } else {
                    ""
                }
            ),
            Tone::Dim,
        ),
        Fetched::Failed { last, error, .. } => {
            let mut text = failure_words(part, error);
            if last.is_some() {
                text.push_str(" · showing the last good value");
            }
            (
                text,
                if not_served(error.class) {
                    Tone::Dim
                } else {
                    Tone::Bad
                },
            )
        }
    };
    Some(Line::styled(format!("  {text}"), theme.style(tone)))
}

fn identity_lines(status: &KeeperStatus, theme: Theme) -> Vec<Line<'static>> {
    let m = &status.meta;
    let flag = |b: Option<bool>| match b {
        Some(b) => (b.to_string(), Tone::Normal),
        None => ("(not sent)".to_string(), Tone::Dim),
    };
    let mut lines = Vec::new();
    let (agent, tone) = opt_text(m.agent_name.as_deref());
    lines.push(kv("agent", agent, tone, theme));
    lines.push(kv(
        "trace",
        sanitize(&m.trace_id).into_owned(),
        Tone::Normal,
        theme,
    ));
    lines.push(kv(
        "generation",
        m.generation.to_string(),
        Tone::Normal,
        theme,
    ));
    let (created, tone) = opt_text(m.created_at.as_deref());
    lines.push(kv("created", created, tone, theme));
    let (paused, tone) = flag(status.paused);
    lines.push(kv("paused", paused, tone, theme));
    let (keepalive, tone) = flag(status.keepalive_running);
    lines.push(kv("keepalive", keepalive, tone, theme));
    lines
}

/// The Settings part (§9.5): what the settings editor edits, as last read.
fn settings_lines(snapshot: &KeeperConfigSnapshot, theme: Theme) -> Vec<Line<'static>> {
    let runtime = match snapshot.execution.selected_runtime_id.as_deref() {
        Some(id) => (sanitize(id).into_owned(), Tone::Normal),
        None => ("(none selected)".to_string(), Tone::Dim),
    };
    vec![
        kv(
            "sandbox",
            profile_word(snapshot.sandbox_profile).to_string(),
            Tone::Normal,
            theme,
        ),
        kv(
            "network",
            snapshot.network_mode.as_str().to_string(),
            Tone::Normal,
            theme,
        ),
        kv("runtime", runtime.0, runtime.1, theme),
    ]
}

fn current_work_lines(status: &KeeperStatus, theme: Theme) -> Vec<Line<'static>> {
    let m = &status.meta;
    let task = match &m.current_task_id {
        Some(Some(t)) => (sanitize(t).into_owned(), Tone::Normal),
        Some(None) => ("none".to_string(), Tone::Normal),
        None => ("(not sent)".to_string(), Tone::Dim),
    };
    let blocker = match &m.last_blocker {
        Some(Some(b)) => (
            format!(
                "{}{}",
                sanitize(b.class_name().unwrap_or("(unnamed)")),
                b.detail
                    .as_deref()
                    .map(|d| format!(" — {}", sanitize(d)))
                    .unwrap_or_default()
            ),
            Tone::Warn,
        ),
        Some(None) => ("none recorded".to_string(), Tone::Normal),
        None => ("(not sent)".to_string(), Tone::Dim),
    };
    let last_turn = match status.last_turn_ago_s {
        Some(s) if s.is_finite() => (format!("{} ago", age(s)), Tone::Normal),
        _ => ("never / not sent".to_string(), Tone::Dim),
    };
    let turns = match m.total_turns {
        Some(n) => (n.to_string(), Tone::Normal),
        None => ("(not sent)".to_string(), Tone::Dim),
    };
    vec![
        kv("task", task.0, task.1, theme),
        kv("last blocker", blocker.0, blocker.1, theme),
        kv("last turn", last_turn.0, last_turn.1, theme),
        kv("turns", turns.0, turns.1, theme),
    ]
}

fn age(secs: f64) -> String {
    let s = secs.max(0.0) as u64;
    match s {
        0..=59 => format!("{s}s"),
        60..=3599 => format!("{}m", s / 60),
        3600..=86_399 => format!("{}h", s / 3600),
        _ => format!("{}d", s / 86_400),
    }
}

/// The Live Context bar: `BAR_CELLS` cells, filled by the ratio (clamped to 0–1).
pub fn context_bar(ratio: f64) -> String {
    let r = if ratio.is_finite() {
        ratio.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let filled = (r * BAR_CELLS as f64).round() as usize;
    format!("{}{}", "█".repeat(filled), "░".repeat(BAR_CELLS - filled))
}

/// The Live Context lines (§14.8 display, C-58: observed values only), and where they came
/// from when this MASC does not serve `/context`.
pub fn context_lines(context: &LiveContext, theme: Theme) -> Vec<Line<'static>> {
    let mut lines = observation_lines(context, theme);
    if context.source == ContextSource::NewestTurnRecord {
        lines.push(Line::styled(
            "  from the newest turn record (/turn-records): this MASC does not serve /context"
                .to_string(),
            theme.style(Tone::Dim),
        ));
    }
    lines
}

fn observation_lines(context: &LiveContext, theme: Theme) -> Vec<Line<'static>> {
    match &context.context {
        ContextObservation::Observed {
            tokens,
            max,
            ratio,
            observed_at,
            turn_ref,
            ..
        } => {
            let amount = match (max, ratio) {
                (Some(max), Some(ratio)) => {
                    let tone = if *ratio >= 0.85 {
                        Tone::Warn
                    } else {
                        Tone::Normal
                    };
                    Line::from(vec![
                        Span::styled(
                            format!("  {:>3.0}% ", ratio * 100.0),
                            theme.style(Tone::Strong),
                        ),
                        Span::styled(context_bar(*ratio), theme.style(tone)),
                        Span::raw(format!(
                            "  {} / {} tokens",
                            thousands(*tokens),
                            thousands(*max)
                        )),
                    ])
                }
                _ => Line::raw(format!(
                    "  {} tokens (no window resolved)",
                    thousands(*tokens)
                )),
            };
            vec![
                amount,
                kv(
                    "observed",
                    sanitize(observed_at).into_owned(),
                    Tone::Normal,
                    theme,
                ),
                kv(
                    "turn ref",
                    sanitize(turn_ref).into_owned(),
                    Tone::Normal,
                    theme,
                ),
            ]
        }
        ContextObservation::NotObserved { reason, .. } => vec![Line::styled(
            format!("  unavailable — {}", reason.as_str()),
            theme.style(Tone::Dim),
        )],
    }
}

/// The activity summary of a turn-records window, where this MASC serves no metrics tail: what
/// the records hold, and what they do not.
pub fn records_activity_lines(page: &TurnRecordsPage, theme: Theme) -> Vec<Line<'static>> {
    let s = RecordsSummary::of(page);
    let mut lines = Vec::new();
    if s.turns == 0 {
        lines.push(Line::styled(
            "  no turn records for this Keeper".to_string(),
            theme.style(Tone::Dim),
        ));
    } else {
        lines.push(Line::raw(format!(
            "  turns {} (direct {} · autonomous {})",
            s.turns, s.direct, s.autonomous
        )));
        lines.push(Line::raw(format!(
            "  tokens in {} / out {}{}",
            thousands(s.input_tokens),
            thousands(s.output_tokens),
            if s.usage_unreported > 0 {
                format!(" ({} turns without usage)", s.usage_unreported)
            } else {
                String::new()
            }
        )));
        if let Some(ts) = s.last_turn_ts {
            lines.push(kv("last turn", rfc3339_seconds(ts), Tone::Normal, theme));
        }
    }
    if s.skipped_rows > 0 {
        lines.push(Line::styled(
            format!(
                "  {} rows MASC could not decode (not served)",
                s.skipped_rows
            ),
            theme.style(Tone::Warn),
        ));
    }
    lines.push(Line::styled(
        format!(
            "  from the newest {} turn records: this MASC does not serve /metrics-tail (not in them: {NOT_IN_TURN_RECORDS}) · o opens the logs",
            s.turns
        ),
        theme.style(Tone::Dim),
    ));
    lines
}

/// The activity summary of one metrics observation (N-5). Numbers are of this window only.
pub fn activity_lines(tail: &MetricsTail, theme: Theme) -> Vec<Line<'static>> {
    let s: ActivitySummary = tail.summary();
    if s.physical == 0 {
        return vec![Line::styled(
            "  no records in the metrics store".to_string(),
            theme.style(Tone::Dim),
        )];
    }
    let cost = match s.cost_usd {
        Some(c) => format!("${c:.2}"),
        None => "--".to_string(),
    };
    let mut lines = vec![
        Line::raw(format!(
            "  turns {} · scheduled {} · heartbeats {} · tool calls {}",
            s.turns, s.scheduled, s.heartbeats, s.tool_calls
        )),
        Line::raw(format!(
            "  tokens in {} / out {}{} · cost {cost}",
            thousands(s.input_tokens),
            thousands(s.output_tokens),
            match (s.usage_unreported, s.usage_untrusted) {
                (0, 0) => String::new(),
                (n, 0) => format!(" ({n} turns without usage)"),
                (0, u) => format!(" ({u} turns with untrusted usage left out)"),
                (n, u) => format!(" ({n} turns without usage, {u} with untrusted usage left out)"),
            }
        )),
    ];
    if let Some(last) = &s.last_turn {
        lines.push(kv(
            "last turn",
            sanitize(last).into_owned(),
            Tone::Normal,
            theme,
        ));
    }
    if s.rejected > 0 {
        lines.push(Line::styled(
            format!(
                "  rejected {}/{} physical rows (shown in logs)",
                s.rejected, s.physical
            ),
            theme.style(Tone::Warn),
        ));
    }
    lines.push(Line::styled(
        format!("  newest {} rows · o opens the logs", s.physical),
        theme.style(Tone::Dim),
    ));
    lines
}

/// One part: its state line, then its value's lines when it has one.
fn part<T: Clone>(
    lines: &mut Vec<Line<'static>>,
    name: &str,
    fetched: &Fetched<T>,
    ctx: &ProjectionCtx,
    draw: impl FnOnce(&T) -> Vec<Line<'static>>,
) {
    lines.push(heading(name, ctx.theme));
    if let Some(state) = state_line(name, fetched, ctx.now, ctx.theme) {
        lines.push(state);
    }
    if let Some(value) = fetched.last() {
        lines.extend(draw(&value.value));
    }
}

/// The metadata part's words when its read answered 404: the Keeper is not registered
/// (§14.7), which is not a failed read.
fn meta_fetched_words(fetched: &Fetched<Arc<KeeperStatus>>) -> Option<&'static str> {
    match fetched {
        Fetched::Failed { error, .. }
            if error.class
                == FailureClass::Read(crate::protocol::client::ErrorClass::Status(404)) =>
        {
            Some("  not registered on this server (unknown keeper)")
        }
        _ => None,
    }
}

/// A Keeper whose detail was never watched in this session.
fn not_requested(theme: Theme) -> Vec<Line<'static>> {
    vec![Line::styled(
        "detail reads not requested".to_string(),
        theme.style(Tone::Dim),
    )]
}

/// The Info tab of `keeper` (`None`: never watched, e.g. a screen rendered without a runtime).
pub fn info_lines(detail: Option<&KeeperDetail>, ctx: &ProjectionCtx) -> Vec<Line<'static>> {
    let theme = ctx.theme;
    let Some(d) = detail else {
        return not_requested(theme);
    };
    let mut lines = Vec::new();
    if let Some(words) = meta_fetched_words(&d.meta.fetched) {
        lines.push(heading("IDENTITY", theme));
        lines.push(Line::styled(words.to_string(), theme.style(Tone::Warn)));
    } else {
        part(&mut lines, "IDENTITY", &d.meta.fetched, ctx, |s| {
            identity_lines(s, theme)
        });
        lines.push(heading("CURRENT WORK", theme));
        if let Some(s) = d.meta.fetched.last() {
            lines.extend(current_work_lines(&s.value, theme));
        } else {
            lines.push(Line::styled(
                "  (from the metadata above)".to_string(),
                theme.style(Tone::Dim),
            ));
        }
    }
    match (&d.context.fetched, d.meta.fetched.last()) {
        // L-2: the context is launched for the owner the metadata names; without metadata
        // it is not asked for.
        (Fetched::NotRequested, None) => {
            lines.push(heading("LIVE CONTEXT", theme));
            lines.push(Line::styled(
                "  not requested: waits for the Keeper metadata (its owner)".to_string(),
                theme.style(Tone::Dim),
            ));
        }
        (fetched, _) => part(&mut lines, "LIVE CONTEXT", fetched, ctx, |c| {
            context_lines(c, theme)
        }),
    }
    part(&mut lines, "SETTINGS", &d.settings.fetched, ctx, |s| {
        settings_lines(s, theme)
    });
    lines.push(heading("RUNTIME STATS", theme));
    lines.push(Line::styled(
        "  turn phase, idle age, last outcome (§14.6): not read by this build".to_string(),
        theme.style(Tone::Dim),
    ));
    part(
        &mut lines,
        "ACTIVITY",
        &d.metrics.fetched,
        ctx,
        |logs| match &**logs {
            KeeperLogs::Metrics(t) => activity_lines(t, theme),
            KeeperLogs::TurnRecords(page) => records_activity_lines(page, theme),
        },
    );
    lines
}

/// The Instructions tab: the settings snapshot's `prompt.instructions` (§9.5; protocol-16
/// §16.1.2), the text the settings editor opens on.
pub fn instructions_lines(
    detail: Option<&KeeperDetail>,
    ctx: &ProjectionCtx,
) -> Vec<Line<'static>> {
    let theme = ctx.theme;
    let Some(d) = detail else {
        return not_requested(theme);
    };
    let mut lines = Vec::new();
    part(
        &mut lines,
        "INSTRUCTIONS",
        &d.settings.fetched,
        ctx,
        |s| match s.instructions() {
            Some(text) => sanitize(text)
                .lines()
                .map(|l| Line::raw(format!("  {l}")))
                .collect(),
            None => vec![Line::styled(
                "  none set".to_string(),
                theme.style(Tone::Dim),
            )],
        },
    );
    lines.push(Line::styled(
        "  effective system prompt: not served by this MASC".to_string(),
        theme.style(Tone::Dim),
    ));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_and_bar() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(100_887), "100,887");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(context_bar(0.5).chars().filter(|c| *c == '█').count(), 10);
        assert_eq!(
            context_bar(f64::NAN).chars().filter(|c| *c == '█').count(),
            0
        );
        assert_eq!(context_bar(3.0).chars().filter(|c| *c == '█').count(), 20);
    }

    /// §14.8 on a MASC without `/context`: the same lines, and one that says they come from
    /// the newest turn record; a `/context` answer has no such line.
    #[test]
    fn s14_8_context_read_from_a_turn_record_says_so() {
        let body = br#"{"schema":"masc.keeper_context_observation.v1","keeper":"a","trace_id":"t","generation":1,"context":{"source":"turn_record","context_tokens":50,"context_max":100,"context_ratio":0.5,"observed_at":"2026-11-20T08:43:00Z","turn_ref":"t#4","absolute_turn":4,"request_body_bytes":1,"metrics_unavailable":null}}"#;
        let mut live = LiveContext::decode_for(body, "a").unwrap();
        let text = |c: &LiveContext| -> Vec<String> {
            context_lines(c, Theme::default())
                .iter()
                .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
                .collect()
        };
        let served = text(&live);
        assert!(
            served.iter().all(|l| !l.contains("turn record")),
            "{served:?}"
        );
        live.source = ContextSource::NewestTurnRecord;
        let fallback = text(&live);
        assert_eq!(fallback.len(), served.len() + 1);
        assert_eq!(fallback[..served.len()], served[..]);
        assert!(
            fallback[served.len()].contains("this MASC does not serve /context"),
            "{fallback:?}"
        );
    }

    #[test]
    fn tabs_wrap_both_ways() {
        assert_eq!(DetailTab::Info.step(true), DetailTab::Instructions);
        assert_eq!(DetailTab::Info.step(false), DetailTab::Instructions);
        assert_eq!(DetailTab::Instructions.step(true), DetailTab::Info);
    }
}
