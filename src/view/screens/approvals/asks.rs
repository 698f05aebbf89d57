//! Asks in the Approvals view (surfaces.md "Approvals / Ask"; sources.md K-1…K-8): the open
//! Asks as read, answer drafts, the safe-render rows of one question, the summary preview,
//! and the words of an answer's receipt.
//!
//! - Drafts are bound to the Ask id **and** the question id ([`DraftKey`]; question ids repeat
//!   across Asks, K-8), kept in [`AsksUi`] for the session: navigation, a re-read, a failed
//!   answer or a closed view never drop them.
//! - The summary preview ([`prepare_preview`], [`layout_preview`]) is prepared once per
//!   synchronous draw from the question's complete rows and never enters answer mode, picks a
//!   default or submits (K-6, K-7): it is a pure function of what it is given.

use crate::actors::asks::AskRef;
use crate::actors::decisions::ask_answer::{AnswerIntent, AskAnswer};
use crate::actors::saves::refusal;
use crate::protocol::asks::{
    AnswerResponse, Ask, AskQuestion, AskResolution, FreeText, QuestionAnswer, QuestionMode,
    ResolvedState,
};
use crate::protocol::outcome::{AskAnswerOutcome, SaveClass, SaveOutcome};
use crate::view::model::Model;
use crate::view::saves::{SaveEntry, SavePhase};
use crate::view::text::{display_width, sanitize, wrap};
use crate::view::theme::{Theme, Tone};
use ratatui::text::{Line, Span};
use std::collections::BTreeMap;

/// What a draft is bound to: one question of one Ask in one workspace (K-8).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DraftKey {
    pub workspace: String,
    pub keeper: String,
    pub ask_id: String,
    pub question_id: String,
}

impl DraftKey {
    pub fn of(workspace: &str, ask: &Ask, question: &AskQuestion) -> Self {
        Self {
            workspace: workspace.to_string(),
            keeper: ask.keeper.clone(),
            ask_id: ask.ask_id.clone(),
            question_id: question.question_id.clone(),
        }
    }

    /// Whether this key names `question` of `ask` (both ids, K-8).
    pub fn names(&self, ask: &Ask, question: &AskQuestion) -> bool {
        self.keeper == ask.keeper
            && self.ask_id == ask.ask_id
            && self.question_id == question.question_id
    }
}

/// The operator's draft answer to one question.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QuestionDraft {
    /// Chosen options, by id (a single-choice question holds at most one).
    pub chosen: Vec<String>,
    /// Free text (only where the question allows it).
    pub text: String,
}

impl QuestionDraft {
    pub fn is_empty(&self) -> bool {
        self.chosen.is_empty() && self.text.is_empty()
    }

    /// What this draft sends: a choice wins over text; nothing chosen or written is skipped.
    pub fn response(&self, q: &AskQuestion) -> AnswerResponse {
        let chosen: Vec<String> = q
            .choices
            .iter()
            .filter(|c| self.chosen.contains(&c.choice_id))
            .map(|c| c.choice_id.clone())
            .collect();
        if !chosen.is_empty() {
            return AnswerResponse::Chose { choice_ids: chosen };
        }
        if matches!(q.free_text, FreeText::Allowed { .. }) && !self.text.trim().is_empty() {
            return AnswerResponse::Wrote {
                text: self.text.clone(),
            };
        }
        AnswerResponse::Skipped
    }

    /// Digit `n` (1-based) on `q`: a single-choice question takes that option (or drops it
    /// when it was the one chosen); a multi-choice question toggles it. `false`: no such
    /// option.
    pub fn choose(&mut self, q: &AskQuestion, n: usize) -> bool {
        let Some(choice) = n.checked_sub(1).and_then(|i| q.choices.get(i)) else {
            return false;
        };
        let id = choice.choice_id.clone();
        let had = self.chosen.contains(&id);
        match q.mode {
            QuestionMode::Single => {
                self.chosen.clear();
                if !had {
                    self.chosen.push(id);
                }
            }
            QuestionMode::Multi => {
                if had {
                    self.chosen.retain(|c| *c != id);
                } else {
                    self.chosen.push(id);
                }
            }
        }
        true
    }
}

/// Ask state of the UI that outlives the Approvals view (kept beside the layers): drafts, and
/// the Asks answered this session as they were listed when answered (so the reader keeps
/// showing them, with their receipts and follow-ups, after they leave the open list).
#[derive(Debug, Default)]
pub struct AsksUi {
    drafts: BTreeMap<DraftKey, QuestionDraft>,
    answered: BTreeMap<(String, AskRef), Ask>,
    /// The draft a `$EDITOR` edit (Ctrl-E while writing free text) returns to: bound to the
    /// Ask id and question id it was asked for (K-8), wherever the reader is (or whether it
    /// is still open) when the editor exits.
    pub editing: Option<DraftKey>,
}

impl crate::view::screens::layer::Kept for AsksUi {}

impl AsksUi {
    pub fn draft(&self, key: &DraftKey) -> Option<&QuestionDraft> {
        self.drafts.get(key)
    }

    pub fn draft_mut(&mut self, key: DraftKey) -> &mut QuestionDraft {
        self.drafts.entry(key).or_default()
    }

    /// Every draft (tests, diagnostics).
    pub fn drafts(&self) -> impl Iterator<Item = (&DraftKey, &QuestionDraft)> {
        self.drafts.iter()
    }

    /// Remembers `ask` as answered in `workspace` (its listing as the operator saw it).
    pub fn answered(&mut self, workspace: &str, ask: &Ask) {
        self.answered
            .insert((workspace.to_string(), ask_ref(ask)), ask.clone());
    }

    /// The intent of answering `ask` with its drafts: one answer per question, in order.
    pub fn intent(&self, workspace: &str, ask: &Ask) -> AnswerIntent {
        let answers = ask
            .questions
            .iter()
            .map(|q| QuestionAnswer {
                question_id: q.question_id.clone(),
                response: self
                    .draft(&DraftKey::of(workspace, ask, q))
                    .map_or(AnswerResponse::Skipped, |d| d.response(q)),
            })
            .collect();
        AnswerIntent {
            keeper: ask.keeper.clone(),
            ask_id: ask.ask_id.clone(),
            answers,
        }
    }
}

pub fn ask_ref(ask: &Ask) -> AskRef {
    AskRef {
        keeper: ask.keeper.clone(),
        ask_id: ask.ask_id.clone(),
    }
}

/// The open Asks as last read (an Ask the server lists as answered or withdrawn is not open).
pub fn open_asks(model: &Model) -> Vec<&Ask> {
    model
        .decisions
        .asks
        .fetched
        .last()
        .map(|o| {
            o.value
                .asks
                .iter()
                .filter(|a| a.resolution == AskResolution::Open {})
                .collect()
        })
        .unwrap_or_default()
}

/// An Ask the reader can show: open as last read, or answered this session.
#[derive(Debug, Clone, Copy)]
pub struct ReaderAsk<'a> {
    pub ask: &'a Ask,
    /// Listed open by the last read.
    pub open: bool,
}

/// What the reader walks with `[`/`]`: the open Asks, then the Asks answered this session
/// in this workspace that the last read no longer lists.
pub fn reader_asks<'a>(model: &'a Model, ui: &'a AsksUi) -> Vec<ReaderAsk<'a>> {
    let mut out: Vec<ReaderAsk<'a>> = open_asks(model)
        .into_iter()
        .map(|ask| ReaderAsk { ask, open: true })
        .collect();
    let ws = super::workspace(model).unwrap_or_default();
    for ((w, r), ask) in &ui.answered {
        if *w == ws && !out.iter().any(|a| ask_ref(a.ask) == *r) {
            out.push(ReaderAsk { ask, open: false });
        }
    }
    out
}

/// The newest answer to `ask` in `workspace`.
pub fn latest_answer<'a>(
    model: &'a Model,
    workspace: &str,
    ask: &AskRef,
) -> Option<&'a SaveEntry<AskAnswer>> {
    model
        .decisions
        .answers
        .latest(&AnswerIntent::key_of(&ask.keeper, &ask.ask_id), workspace)
}

/// Whether the operator may send an answer to `ask` now, or why not. Never resent by itself:
/// an unknown outcome needs a re-read that still lists the Ask open (§11).
pub fn may_answer(model: &Model, workspace: &str, ask: ReaderAsk<'_>) -> Result<(), &'static str> {
    let r = ask_ref(ask.ask);
    let entry = latest_answer(model, workspace, &r);
    if let Some(entry) = entry {
        let Some(receipt) = entry.phase.receipt() else {
            return Err("an answer to this Ask is in flight");
        };
        match receipt.save_class() {
            SaveClass::Applied | SaveClass::Unchanged => return Err("already answered"),
            SaveClass::Conflict => return Err("another answer stands (never resent)"),
            SaveClass::OutcomeUnknown => {
                let reread = model.decisions.asks.fetched.last().map(|o| o.observed_at);
                let after = matches!((reread, entry.settled_at), (Some(r), Some(s)) if r > s);
                if !(after && ask.open) {
                    return Err("outcome unknown: r re-reads the Asks before answering again");
                }
            }
            SaveClass::NotSent | SaveClass::NotApplied => {}
        }
    }
    if !ask.open {
        return Err("this Ask is no longer listed open");
    }
    Ok(())
}

/// What the receipt of an answer says, in words and tone (each outcome distinct).
pub fn answer_words(entry: &SaveEntry<AskAnswer>) -> (String, Tone) {
    let receipt: &AskAnswerOutcome = match &entry.phase {
        SavePhase::Submitted | SavePhase::Written => {
            return ("answer: waiting to send".into(), Tone::Busy);
        }
        SavePhase::Sending => return ("answer: sending…".into(), Tone::Busy),
        SavePhase::Ended(r) => r,
        SavePhase::Restored(r) => {
            return match r.save_class() {
                SaveClass::NotSent => (
                    "answer: not sent (an earlier run stopped before sending it)".into(),
                    Tone::Warn,
                ),
                _ => (
                    "answer: outcome unknown (an earlier run stopped while it may have been sent; never resent)"
                        .into(),
                    Tone::Bad,
                ),
            };
        }
    };
    match receipt {
        SaveOutcome::Applied { detail, .. } => {
            let remaining = detail
                .open_remaining
                .map(|n| format!(" · {n} open Asks remain"))
                .unwrap_or_default();
            (
                format!(
                    "answer saved · recorded by {}{remaining}",
                    sanitize(&detail.actor)
                ),
                Tone::Good,
            )
        }
        SaveOutcome::Conflict { current } => {
            let state = match current.state {
                Some(ResolvedState::Answered) => "already answered",
                Some(ResolvedState::Withdrawn) => "withdrawn",
                None => "already resolved",
            };
            (
                format!("answer not taken: {state} · another answer stands (never resent)"),
                Tone::Warn,
            )
        }
        SaveOutcome::NotApplied { reason } => (
            format!("answer not applied · {}", sanitize(reason)),
            Tone::Bad,
        ),
        SaveOutcome::NotSent { reason } => (
            format!("answer not sent · {}", sanitize(refusal::describe(reason))),
            Tone::Bad,
        ),
        SaveOutcome::OutcomeUnknown { reason } => (
            format!(
                "answer outcome unknown · {} · the re-read shows whether the Ask is still open; never resent",
                sanitize(refusal::describe(reason))
            ),
            Tone::Bad,
        ),
        SaveOutcome::Unchanged => ("answer unchanged".into(), Tone::Dim),
    }
}

/// `HH:MM` (UTC) of a unix time.
pub fn clock(unix: f64) -> String {
    match time::OffsetDateTime::from_unix_timestamp(unix.floor() as i64) {
        Ok(t) => format!("{:02}:{:02}", t.hour(), t.minute()),
        Err(_) => "--:--".into(),
    }
}

/// Wraps `text` (already sanitised) at `width` with `first`/`rest` prefixes, as whole rows.
fn wrapped(
    first: &str,
    rest: &str,
    text: &str,
    width: usize,
    tone: Tone,
    theme: Theme,
) -> Vec<Line<'static>> {
    let avail = width.saturating_sub(display_width(first)).max(1);
    let mut out = Vec::new();
    for (i, part) in text.split('\n').flat_map(|p| wrap(p, avail)).enumerate() {
        let prefix = if i == 0 { first } else { rest };
        out.push(Line::styled(format!("{prefix}{part}"), theme.style(tone)));
    }
    out
}

/// The typing caret, when the input is shown on this question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input {
    /// Not typing here.
    Hidden,
    /// Typing into this question's draft.
    Typing,
}

/// The complete safe-render rows of one question (sanitised, wrapped to `width` cells): its
/// heading, prompt, options with their numbers and marks, the free-text rule, and the draft.
pub fn question_rows(
    ask: &Ask,
    index: usize,
    draft: Option<&QuestionDraft>,
    input: Input,
    width: usize,
    theme: Theme,
) -> Vec<Line<'static>> {
    let Some(q) = ask.questions.get(index) else {
        return Vec::new();
    };
    let mode = match q.mode {
        QuestionMode::Single => "choose one",
        QuestionMode::Multi => "choose any",
    };
    let mut rows = wrapped(
        "",
        "",
        &format!(
            "{} · question {}/{} · {mode}",
            sanitize(&q.header),
            index + 1,
            ask.questions.len()
        ),
        width,
        Tone::Strong,
        theme,
    );
    rows.extend(wrapped(
        "  ",
        "  ",
        &sanitize(&q.prompt),
        width,
        Tone::Normal,
        theme,
    ));
    for (i, c) in q.choices.iter().enumerate() {
        let chosen = draft.is_some_and(|d| d.chosen.contains(&c.choice_id));
        let mark = if chosen { "[x]" } else { "[ ]" };
        let number = if i < 9 {
            format!("{}", i + 1)
        } else if i == 9 {
            "0".to_string()
        } else {
            " ".to_string()
        };
        let first = format!("  {number} {mark} ");
        let rest = " ".repeat(display_width(&first));
        let tone = if chosen { Tone::Accent } else { Tone::Normal };
        rows.extend(wrapped(
            &first,
            &rest,
            &sanitize(&c.label),
            width,
            tone,
            theme,
        ));
        if let Some(d) = &c.description {
            rows.extend(wrapped(&rest, &rest, &sanitize(d), width, Tone::Dim, theme));
        }
    }
    match &q.free_text {
        FreeText::NotAllowed => {
            rows.push(Line::styled(
                "  free text: not allowed",
                theme.style(Tone::Dim),
            ));
        }
        FreeText::Allowed { hint } => {
            let hint = hint
                .as_deref()
                .map(|h| format!(" · {}", sanitize(h)))
                .unwrap_or_default();
            rows.extend(wrapped(
                "  ",
                "  ",
                &format!("free text allowed{hint}"),
                width,
                Tone::Dim,
                theme,
            ));
            let text = draft.map(|d| d.text.as_str()).unwrap_or_default();
            match input {
                Input::Typing => {
                    let shown = format!("{}▏", sanitize(text));
                    rows.extend(wrapped("  ✎ ", "    ", &shown, width, Tone::Accent, theme));
                }
                Input::Hidden if !text.is_empty() => {
                    rows.extend(wrapped(
                        "  ✎ ",
                        "    ",
                        &sanitize(text),
                        width,
                        Tone::Normal,
                        theme,
                    ));
                }
                Input::Hidden => {}
            }
        }
    }
    rows
}

/// The preview buffer of one question, prepared once per synchronous draw (K-7): its complete
/// safe-render rows, for the height decision and the display alike.
#[derive(Debug, Clone)]
pub struct PreviewBuffer {
    pub rows: Vec<Line<'static>>,
    /// Questions of the Ask not shown (the preview shows one).
    pub hidden_questions: usize,
}

/// Prepares the preview of `ask`'s question `index` (never answer mode: no input caret).
pub fn prepare_preview(
    ask: &Ask,
    index: usize,
    draft: Option<&QuestionDraft>,
    width: usize,
    theme: Theme,
) -> PreviewBuffer {
    PreviewBuffer {
        rows: question_rows(ask, index, draft, Input::Hidden, width, theme),
        hidden_questions: ask.questions.len().saturating_sub(1),
    }
}

/// What the preview shows in `budget` rows (K-6): the whole question when it fits, else its
/// first complete rows; then, as room allows, the `a` hint and the hidden-question count, each
/// taking a real row of the budget. With one row, the selected question's first row wins.
pub fn layout_preview(buf: &PreviewBuffer, budget: usize, theme: Theme) -> Vec<Line<'static>> {
    if budget == 0 || buf.rows.is_empty() {
        return Vec::new();
    }
    let fits = buf.rows.len() <= budget;
    let hint = Line::styled(
        if fits {
            "  a: answer in the reader"
        } else {
            "  … a: read the whole question and answer"
        },
        theme.style(Tone::Accent),
    );
    let hidden = (buf.hidden_questions > 0).then(|| {
        Line::styled(
            format!(
                "  +{} more question{} in this Ask",
                buf.hidden_questions,
                if buf.hidden_questions == 1 { "" } else { "s" }
            ),
            theme.style(Tone::Dim),
        )
    });
    let mut extras = vec![hint];
    extras.extend(hidden);
    let question = buf.rows.len().min(budget);
    // The question keeps at least one row; extras take what is left, in order.
    let room = budget.saturating_sub(if fits { question } else { 1 });
    let extras_shown = extras.len().min(room);
    let question = question.min(budget - extras_shown);
    let mut out: Vec<Line<'static>> = buf.rows.iter().take(question).cloned().collect();
    out.extend(extras.into_iter().take(extras_shown));
    out
}

/// One compact row per listed Ask: `▸ keeper · n questions · context`.
pub fn ask_line(
    ask: &Ask,
    selected: bool,
    drafted: usize,
    words: Option<(String, Tone)>,
    width: usize,
    theme: Theme,
) -> Line<'static> {
    let mark = if selected { "▸ " } else { "  " };
    let n = ask.questions.len();
    let mut spans = vec![Span::styled(
        format!(
            "{mark}{} · {n} question{} · ",
            sanitize(&ask.keeper),
            if n == 1 { "" } else { "s" },
        ),
        theme.style(if selected { Tone::Strong } else { Tone::Normal }),
    )];
    if drafted > 0 {
        spans.push(Span::styled(
            format!("draft {drafted}/{n} · "),
            theme.style(Tone::Accent),
        ));
    }
    if let Some((w, tone)) = words {
        spans.push(Span::styled(format!("{w} · "), theme.style(tone)));
    }
    let used: usize = spans.iter().map(|s| display_width(&s.content)).sum();
    let context = sanitize(&ask.context);
    spans.push(Span::raw(
        crate::view::text::fit_width(&context, width.saturating_sub(used)).into_owned(),
    ));
    Line::from(spans)
}
