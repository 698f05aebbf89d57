//! The body of each block as styled logical lines, per mode: utterances (Markdown), tool
//! blocks (`project_tool_block`, C-47..C-51), finished skills (`skill_rows`, C-46), folded
//! reasoning (C-38), the journal lane, failures (C-8, C-52), pending input (C-32..C-35) and the
//! hidden coop-report status rows ([S2]). Gutters are added later, per row, by the window.

use super::markdown::{plain_lines, render_markdown};
use super::marks::{Role, call_mark, call_state_words, skill_mark};
use super::model::{CallState, Entry, EntryKind, ReportFacts, SkillRun, SkillState, ToolCall};
use super::modes::{JournalMode, OriginMode, ReasoningMode, ToolVisibility, ViewModes};
use super::style::ChatStyle;
use super::wrap::{LogicalLine, Run};
use crate::view::text::{fit_width, sanitize};
use ratatui::style::Style;

/// Everything a body projection may depend on besides the entries.
#[derive(Debug, Clone, Copy)]
pub struct ProjectCtx {
    pub modes: ViewModes,
    pub style: ChatStyle,
}

impl ProjectCtx {
    /// Work rows carry their kind mark inside the body except in the inline layout, where
    /// the gutter already shows it.
    fn body_marks(&self) -> bool {
        self.modes.origin != OriginMode::Inline
    }
}

/// Bodies bigger than this are split into chunks wrapped (and cached) one at a time.
pub const CHUNK_THRESHOLD: usize = 32 * 1024;
const CHUNK_TARGET: usize = 16 * 1024;
const CHUNK_FORCE: usize = 64 * 1024;

/// Chunk boundaries of a body: before blank lines outside code fences, once a chunk holds
/// [`CHUNK_TARGET`] bytes; forced at a line end after [`CHUNK_FORCE`] bytes. Each chunk starts
/// at a line start, so per-line sanitising and soft-break rendering are unchanged.
pub fn chunk_ranges(text: &str) -> Vec<std::ops::Range<usize>> {
    if text.len() <= CHUNK_THRESHOLD {
        return std::iter::once(0..text.len()).collect();
    }
    let mut out = Vec::new();
    let mut start = 0;
    let mut in_fence = false;
    let mut pos = 0;
    for line in text.split_inclusive('\n') {
        let end = pos + line.len();
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_fence = !in_fence;
        }
        let blank = line.trim().is_empty();
        if blank && !in_fence && pos - start >= CHUNK_TARGET {
            // Cut before the blank line: the next chunk opens with it, so the paragraph gap
            // is drawn there.
            out.push(start..pos);
            start = pos;
        } else if end - start >= CHUNK_FORCE {
            out.push(start..end);
            start = end;
        }
        pos = end;
    }
    if start < text.len() || out.is_empty() {
        out.push(start..text.len());
    }
    out
}

fn run(text: impl Into<String>, style: Style) -> Run {
    Run::new(text, style)
}

fn mark_style(style: ChatStyle, state: CallState) -> Style {
    match state {
        CallState::Succeeded => style.ok(),
        CallState::Failed => style.failure(),
        CallState::AwaitingResult
        | CallState::NotSeen
        | CallState::NoCallLog
        | CallState::Unrecorded => style.warn(),
        CallState::ResultReceived | CallState::ArgsStreaming => style.info(),
    }
}

/// The first string value of a JSON argument object (a path, a query), else the raw text.
fn args_summary(args: &str) -> Option<String> {
    let value: Option<serde_json::Value> = serde_json::from_str(args).ok();
    let text = match value {
        Some(serde_json::Value::Object(map)) => {
            map.values().find_map(|v| v.as_str().map(str::to_string))?
        }
        Some(serde_json::Value::String(s)) => s,
        _ => args.trim().to_string(),
    };
    let first = text.lines().next().unwrap_or("").trim().to_string();
    (!first.is_empty()).then(|| fit_width(&sanitize(&first), 40).into_owned())
}

fn first_line(text: &str) -> Option<String> {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(|l| sanitize(l).into_owned())
}

/// One call row: mark, name, then dim clauses (dim re-opened after each: C-11).
fn call_row(call: &ToolCall, clauses: &[String], style: ChatStyle) -> LogicalLine {
    let dim = style.dim();
    let mut runs = vec![
        run(
            call_mark(call.state).to_string(),
            mark_style(style, call.state),
        ),
        run(" ", dim),
    ];
    if call.state == CallState::Failed {
        runs.push(run(sanitize(&call.name).into_owned(), dim));
        runs.push(run(" · ", dim));
        runs.push(run("failed", style.failure()));
    } else {
        runs.push(run(sanitize(&call.name).into_owned(), dim));
    }
    for c in clauses {
        runs.push(run(" · ", dim));
        runs.push(run(c.clone(), dim));
    }
    if let Some(stopped) = call.turn_stopped {
        runs.push(run(" · ", dim));
        runs.push(run(stopped.words(), style.warn()));
    }
    LogicalLine {
        rest_prefix: vec![run("  ", dim)],
        runs,
        ..LogicalLine::default()
    }
}

fn failed_named(count: usize, name: &str, style: ChatStyle) -> LogicalLine {
    let f = style.failure();
    LogicalLine::plain(vec![
        run("✗", f),
        run(" ", style.dim()),
        run(format!("{count} failed: {}", sanitize(name)), f),
    ])
}

fn duration(call: &ToolCall) -> Option<String> {
    call.duration_ms.map(|ms| format!("{ms}ms"))
}

/// `project_tool_block`: one block of contiguous tool calls, `results[i]` the result text of
/// `calls[i]` (empty when none). Live and settled blocks use the same projection (C-50).
pub fn project_tool_block(
    calls: &[(&ToolCall, &str)],
    tools: ToolVisibility,
    style: ChatStyle,
) -> Vec<LogicalLine> {
    let dim = style.dim();
    let mut out = Vec::new();
    match tools {
        ToolVisibility::Compact if calls.len() >= 3 => {
            // C-48: returned calls fold into one inventory header; failed, unreturned and
            // in-progress calls stay as their own rows; failures are named.
            let mut names: Vec<(&str, usize)> = Vec::new();
            for (call, _) in calls {
                match names.iter_mut().find(|(n, _)| *n == call.name) {
                    Some((_, c)) => *c += 1,
                    None => names.push((call.name.as_str(), 1)),
                }
            }
            let returned = calls.iter().filter(|(c, _)| c.state.returned()).count();
            let any_failed = calls.iter().any(|(c, _)| c.state == CallState::Failed);
            let all_ok = calls.iter().all(|(c, _)| c.state == CallState::Succeeded);
            let (mark, mstyle) = if any_failed {
                ('✗', style.failure())
            } else if returned < calls.len() {
                ('▶', style.warn())
            } else if all_ok {
                ('✓', style.ok())
            } else {
                ('↩', style.info())
            };
            let mut header = format!("Tools {}", calls.len());
            for (name, count) in &names {
                header.push_str(&format!(" · {} {count}", sanitize(name)));
            }
            header.push_str(&format!(
                " · {returned} returned · {} details folded",
                calls.len()
            ));
            // The turn's end folds with the calls it stopped (one turn per block).
            if let Some(stopped) = calls.iter().find_map(|(c, _)| c.turn_stopped) {
                header.push_str(&format!(" · {}", stopped.words()));
            }
            out.push(LogicalLine {
                rest_prefix: vec![run("  ", dim)],
                runs: vec![
                    run(mark.to_string(), mstyle),
                    run(" ", dim),
                    run(header, dim),
                ],
                ..LogicalLine::default()
            });
            let mut failed: Vec<(&str, usize)> = Vec::new();
            for (call, _) in calls.iter().filter(|(c, _)| c.state == CallState::Failed) {
                match failed.iter_mut().find(|(n, _)| *n == call.name) {
                    Some((_, c)) => *c += 1,
                    None => failed.push((call.name.as_str(), 1)),
                }
            }
            for (name, count) in failed {
                out.push(failed_named(count, name, style));
            }
            for (call, _) in calls
                .iter()
                .filter(|(c, _)| !c.state.returned() && c.state != CallState::Failed)
            {
                out.push(call_row(
                    call,
                    &[call_state_words(call.state).to_string()],
                    style,
                ));
            }
        }
        ToolVisibility::Compact => {
            for (call, _) in calls {
                if call.state == CallState::Failed {
                    out.push(failed_named(1, &call.name, style));
                    continue;
                }
                let mut clauses = Vec::new();
                if call.state.returned() {
                    clauses.extend(call.args.as_deref().and_then(args_summary));
                    clauses.extend(duration(call));
                } else {
                    clauses.push(call_state_words(call.state).to_string());
                }
                out.push(call_row(call, &clauses, style));
            }
        }
        ToolVisibility::Results => {
            for (call, result) in calls {
                let mut clauses = Vec::new();
                if call.state != CallState::Failed {
                    clauses.push(call_state_words(call.state).to_string());
                }
                clauses.extend(first_line(result).map(|l| fit_width(&l, 60).into_owned()));
                out.push(call_row(call, &clauses, style));
            }
        }
        ToolVisibility::Full => {
            for (call, result) in calls {
                let mut clauses = Vec::new();
                if call.state != CallState::Failed {
                    clauses.push(call_state_words(call.state).to_string());
                }
                clauses.extend(duration(call));
                out.push(call_row(call, &clauses, style));
                if let Some(args) = call.args.as_deref().filter(|a| !a.trim().is_empty()) {
                    for (i, mut line) in plain_lines(args, dim).into_iter().enumerate() {
                        let lead = if i == 0 { "  ↳ " } else { "    " };
                        line.first_prefix = vec![run(lead, dim)];
                        line.rest_prefix = vec![run("    ", dim)];
                        out.push(line);
                    }
                }
                if !result.is_empty() {
                    for mut line in plain_lines(result, dim) {
                        line.first_prefix = vec![run("    ", dim)];
                        line.rest_prefix = vec![run("    ", dim)];
                        out.push(line);
                    }
                }
            }
        }
    }
    out
}

/// `skill_rows` (C-46, C-47): delivered / used is readable at the default density.
pub fn skill_rows(run_: &SkillRun, turn_ref: Option<&str>, ctx: &ProjectCtx) -> Vec<LogicalLine> {
    let style = ctx.style;
    let dim = style.dim();
    let mut runs = Vec::new();
    if ctx.body_marks() {
        let mstyle = if run_.state == SkillState::Failed {
            style.failure()
        } else {
            style.mark(Role::Skill(run_.state))
        };
        runs.push(run(format!("{} ", skill_mark(run_.state)), mstyle));
    }
    let name = sanitize(&run_.name).into_owned();
    match run_.state {
        SkillState::Failed => {
            runs.push(run("실패", style.failure()));
            runs.push(run(format!(" · {name}"), dim));
        }
        SkillState::Running => runs.push(run(format!("도는 중 · {name}"), dim)),
        SkillState::Used | SkillState::NeedsLook => {
            let state = match (run_.delivered, run_.used_tools) {
                (true, true) => "전달됨, 도구 씀",
                (true, false) => "전달됨, 도구 안 씀",
                (false, _) => "읽음, 전달 확인 중",
            };
            runs.push(run(
                format!("{state} · {name} · {} action", run_.actions),
                dim,
            ));
        }
    }
    let mut out = vec![LogicalLine {
        rest_prefix: vec![run("  ", dim)],
        runs,
        ..LogicalLine::default()
    }];
    if ctx.modes.tools == ToolVisibility::Full {
        let mut proof = String::from("↳ proof");
        if let Some(t) = turn_ref {
            proof.push_str(&format!(" · turn={}", sanitize(t)));
        }
        if let Some(u) = &run_.use_id {
            proof.push_str(&format!(" · use={}", sanitize(u)));
        }
        out.push(LogicalLine::plain(vec![run(
            format!("  {proof}"),
            style.recede(),
        )]));
    }
    out
}

/// C-38: `Reasoning · N lines folded · Ctrl-R` when N ≥ 2 non-blank lines.
pub fn reasoning_rows(text: &str, ctx: &ProjectCtx) -> Vec<LogicalLine> {
    let dim = ctx.style.dim();
    let lead = if ctx.body_marks() { "· " } else { "" };
    let non_blank = text.lines().filter(|l| !l.trim().is_empty()).count();
    let mut lines = match ctx.modes.reasoning {
        ReasoningMode::Hidden => return Vec::new(),
        ReasoningMode::Folded if non_blank >= 2 => {
            vec![LogicalLine::plain(vec![run(
                format!("Reasoning · {non_blank} lines folded · Ctrl-R"),
                dim,
            )])]
        }
        ReasoningMode::Folded => plain_lines(text.trim(), dim),
        ReasoningMode::Full => plain_lines(text, dim),
    };
    for (i, line) in lines.iter_mut().enumerate() {
        if !lead.is_empty() {
            line.first_prefix = vec![run(if i == 0 { lead } else { "  " }, dim)];
            line.rest_prefix = vec![run("  ", dim)];
        }
    }
    lines
}

/// The journal lane (Ctrl-N): summary = first non-blank line, full = every line.
pub fn journal_rows(text: &str, ctx: &ProjectCtx) -> Vec<LogicalLine> {
    let dim = ctx.style.dim();
    let mut lines = match ctx.modes.journal {
        JournalMode::Hidden => return Vec::new(),
        JournalMode::Summary => vec![LogicalLine::plain(vec![run(
            first_line(text).unwrap_or_default(),
            dim,
        )])],
        JournalMode::Full => plain_lines(text, dim),
    };
    if ctx.body_marks() {
        for (i, line) in lines.iter_mut().enumerate() {
            line.first_prefix = vec![run(
                if i == 0 { "◈ " } else { "  " },
                ctx.style.mark(Role::Journal),
            )];
            line.rest_prefix = vec![run("  ", dim)];
        }
    }
    lines
}

/// C-8, C-52: a failure keeps the full producer message, wrapped, never cut; `failed` is
/// reset → bold → bright red.
pub fn failure_rows(text: &str, style: ChatStyle) -> Vec<LogicalLine> {
    let mut lines = plain_lines(text, style.foreground());
    if let Some(first) = lines.first_mut() {
        first.runs.insert(0, run("failed", style.failure()));
        first.runs.insert(1, run(" · ", style.foreground()));
    }
    lines
}

/// C-32..C-35: `대기 입력 N건`, then each input with exactly one label; a rejection reason
/// is its own error row, never part of the body.
pub fn pending_rows(entries: &[&Entry], ctx: &ProjectCtx) -> Vec<LogicalLine> {
    let style = ctx.style;
    let recede = style.recede();
    let mut out = vec![LogicalLine::plain(vec![run(
        format!("대기 입력 {}건", entries.len()),
        style.foreground(),
    )])];
    for entry in entries {
        let EntryKind::PendingInput { state, rejection } = &entry.kind else {
            continue;
        };
        let label = format!("  {} · ", state.label());
        let indent = " ".repeat(crate::view::text::display_width(&label));
        for (i, mut line) in plain_lines(&entry.text, style.foreground())
            .into_iter()
            .enumerate()
        {
            line.first_prefix = vec![run(
                if i == 0 {
                    label.clone()
                } else {
                    indent.clone()
                },
                recede,
            )];
            line.rest_prefix = vec![run(indent.clone(), recede)];
            out.push(line);
        }
        if let Some(reason) = rejection {
            for mut line in failure_rows(reason, style) {
                line.first_prefix = vec![run("  ✗ ", style.failure())];
                line.rest_prefix = vec![run("    ", recede)];
                out.push(line);
            }
        }
        if ctx.modes.details
            && let Some(req) = &entry.origin.request_id
        {
            out.push(LogicalLine::plain(vec![run(
                format!("    request {}", sanitize(req)),
                recede,
            )]));
        }
    }
    out
}

/// The hidden coop report as folded status rows (outcome, binding), expanded with the tool
/// toggle; a report line that a renderer would display gets a visible warning row.
pub fn report_rows(facts: &ReportFacts, ctx: &ProjectCtx) -> Vec<LogicalLine> {
    let style = ctx.style;
    let dim = style.dim();
    let lead = |s: &str| -> Vec<Run> {
        if ctx.body_marks() {
            vec![run(format!("{s} "), style.mark(Role::Status))]
        } else {
            Vec::new()
        }
    };
    let mut out = Vec::new();
    for report in &facts.hidden {
        let mut runs = lead("○");
        runs.push(run(
            format!(
                "보고 · {} · {}",
                sanitize(&report.outcome),
                sanitize(&report.binding_id)
            ),
            style.foreground(),
        ));
        if ctx.modes.tools == ToolVisibility::Compact {
            runs.push(run(" · Ctrl-D", style.recede()));
        }
        out.push(LogicalLine {
            runs,
            rest_prefix: vec![run("  ", dim)],
            ..LogicalLine::default()
        });
        if ctx.modes.tools != ToolVisibility::Compact {
            for (label, text) in [("for_dad", &report.for_dad), ("body", &report.body)] {
                for (i, mut line) in plain_lines(text, dim).into_iter().enumerate() {
                    let head = if i == 0 {
                        format!("  {label}: ")
                    } else {
                        " ".repeat(label.len() + 4)
                    };
                    line.rest_prefix = vec![run(" ".repeat(label.len() + 4), dim)];
                    line.first_prefix = vec![run(head, style.recede())];
                    out.push(line);
                }
            }
        }
    }
    for leak in &facts.leaks {
        let mut runs = lead("○");
        runs.push(run(
            format!(
                "경고: 보고 줄이 본문에 보임 · {} · {}행",
                leak.cause, leak.line
            ),
            style.warn().add_modifier(ratatui::style::Modifier::BOLD),
        ));
        out.push(LogicalLine {
            runs,
            rest_prefix: vec![run("  ", dim)],
            ..LogicalLine::default()
        });
    }
    for line in &facts.rejected {
        let mut runs = lead("○");
        runs.push(run(
            format!("경고: 보고 거부됨 · {line}행"),
            style.warn().add_modifier(ratatui::style::Modifier::BOLD),
        ));
        out.push(LogicalLine {
            runs,
            rest_prefix: vec![run("  ", dim)],
            ..LogicalLine::default()
        });
    }
    out
}

/// The body lines of one utterance-like chunk (Markdown for speech, plain otherwise).
pub fn utterance_rows(text: &str, role: Role, ctx: &ProjectCtx) -> Vec<LogicalLine> {
    let base = ctx.style.body(role);
    let mut lines = render_markdown(text, base, ctx.style.recede());
    if lines.is_empty() {
        lines.push(LogicalLine::default());
    }
    lines
}

/// Diagnostic rows after the whole body (Ctrl-S, C-30).
pub fn detail_rows(entry: &Entry, ctx: &ProjectCtx) -> Vec<LogicalLine> {
    if !ctx.modes.details {
        return Vec::new();
    }
    let recede = ctx.style.recede();
    let mut out = Vec::new();
    if let Some(t) = &entry.turn_ref {
        out.push(LogicalLine::plain(vec![run(
            format!("turn {}", sanitize(t)),
            recede,
        )]));
    }
    // C-30: the approval a Gate row folds, and how many steps it holds, only when expanded.
    if let EntryKind::Gate(gate) = &entry.kind {
        out.push(LogicalLine::plain(vec![run(
            format!(
                "approval {} · {} steps",
                sanitize(&gate.approval_id),
                gate.steps.len()
            ),
            recede,
        )]));
    }
    if let Some(r) = &entry.origin.request_id
        && entry.turn_ref.as_deref() != Some(&**r)
    {
        out.push(LogicalLine::plain(vec![run(
            format!("request {}", sanitize(r)),
            recede,
        )]));
    }
    out
}
