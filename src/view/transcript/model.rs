//! The transcript's entries, independent of the wire: what was said or done, by whom, in which
//! turn. Conversions from the wire ([`ChatHistoryRow`]) are thin functions here; one chat's list
//! of entries is [`Transcript`] (`transcript`); the stream assembler lives in [`super::live`].
//!
//! Identity is the full source id (message id, request id) — never a display string or a
//! shortened id (C-17, C-31). Bodies keep the recorded original (C-29); sanitising happens at
//! projection time, so `/copy` can use [`Entry::text`] as stored.

use crate::protocol::chat::ChatHistoryRow;
use crate::protocol::coop_report::{self, FinalAnalysis};
use compact_str::CompactString;
use std::sync::Arc;

mod from_history;
mod gate;
mod transcript;
pub use from_history::entries_of_row;
pub use gate::GateRecord;
pub use transcript::Transcript;

/// Who produced an entry.
///
/// 24 bytes (a transcript holds 100k entries): the Keeper's name is shared —
/// every entry of one Keeper's chat points at one copy ([`Transcript`] shares equal names of
/// consecutive entries) — and the rare inbound sender is boxed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Speaker {
    /// The operator at this console.
    Operator,
    /// A Keeper. `owner` is the Keeper whose chat this is (its name is in the title).
    Keeper { name: Arc<str>, owner: bool },
    /// Someone outside who sent this here (another agent, a connector).
    Inbound(Box<InboundSender>),
    /// The chat's Keeper in a turn it ran on its own (§15.9: autonomous rows of the bare-array
    /// history): drawn as the Keeper, labelled `AUTO`, never a reply to the operator.
    Autonomous { name: Arc<str> },
    /// A tool the Keeper called.
    Tool,
    /// The screen itself or the server (status notes, failures, journal lane).
    System,
}

/// Who sent an inbound entry, and through what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InboundSender {
    pub sender: String,
    pub source: Option<String>,
}

/// State of one tool call (C-49, C-51). `ResultReceived` is not success.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CallState {
    /// Arguments are still streaming.
    ArgsStreaming,
    /// The call ended; no result yet.
    AwaitingResult,
    /// A result arrived; says nothing about success.
    ResultReceived,
    /// Confirmed success.
    Succeeded,
    /// Confirmed failure (from the type of the record, never from its text: C-9).
    Failed,
    /// The call was seen but no result was ever seen.
    NotSeen,
    /// No call-log row exists for it.
    NoCallLog,
    /// The transcript recorded the call without its outcome (a trace step without status).
    Unrecorded,
}

impl CallState {
    /// Returned = the call came back (folds into the inventory header in compact mode).
    pub fn returned(self) -> bool {
        matches!(self, Self::ResultReceived | Self::Succeeded)
    }
}

/// One tool call. Its id and name are stored inline up to 24 bytes (a quarter of a long
/// transcript's entries are calls; two allocations each would add up).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCall {
    pub call_id: Option<CompactString>,
    pub name: CompactString,
    pub state: CallState,
    /// Arguments as recorded (JSON text or a streamed delta), if any.
    pub args: Option<String>,
    pub duration_ms: Option<u64>,
    /// The call's turn ended without its reply: said beside the call (its own state says
    /// only whether a result came back), the same live and in a rebuilt chat.
    pub turn_stopped: Option<StoppedTurn>,
}

/// How the turn a tool call ran in ended when it ended without its reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StoppedTurn {
    /// Stopped at a request (MASC's `Turn_cancelled`, a cancelled record).
    Interrupted,
    /// The run failed.
    Failed,
}

impl StoppedTurn {
    pub fn words(self) -> &'static str {
        match self {
            Self::Interrupted => "turn interrupted",
            Self::Failed => "turn failed",
        }
    }
}

/// Skill run state (`◇ ◆ △ ✗`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SkillState {
    Running,
    Used,
    NeedsLook,
    Failed,
}

/// A finished or running skill (C-46): whether it was delivered and whether it used tools
/// are separate facts, both readable at the default density.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillRun {
    pub name: String,
    pub state: SkillState,
    pub delivered: bool,
    pub used_tools: bool,
    pub actions: u32,
    /// `use=` id for the proof row (drawn only in `Tools_full`, C-47).
    pub use_id: Option<String>,
}

/// Pending input states (C-33): exactly one label per row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PendingState {
    WaitingToSend,
    Sending,
    WaitingToProcess,
    ConfirmingDelivery,
}

impl PendingState {
    pub fn label(self) -> &'static str {
        match self {
            Self::WaitingToSend => "전송 대기",
            Self::Sending => "전송 중",
            Self::WaitingToProcess => "처리 대기",
            Self::ConfirmingDelivery => "전송 확인 중",
        }
    }
}

/// Where a failure came from (its type decides that it is an error: C-9).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FailureOrigin {
    /// History row of kind `transport_failure`.
    Transport,
    /// `RUN_ERROR` of the chat stream, with its code if any.
    Run { code: Option<Box<str>> },
    /// The server refused a pending input (C-35).
    Rejected,
    /// Interrupt or observation failure (C-44).
    Other(Box<str>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EntryKind {
    Utterance,
    /// Thinking / reasoning text.
    Thinking,
    /// Boxed, as the skill run: the other kinds are small, and a transcript holds 100k
    /// entries (an unboxed call would make every entry 64 bytes larger).
    ToolCall(Box<ToolCall>),
    SkillSummary(Box<SkillRun>),
    /// The parallel Memory journal lane; also the neutral lane of server rows that are
    /// neither speech nor Gate steps, and of roles this build does not know (§15.9).
    Journal,
    /// One approval's Gate steps from the transcript (§15.9), folded by approval id.
    Gate(Box<GateRecord>),
    Failure(FailureOrigin),
    /// Input not yet confirmed as started (C-32..C-35).
    PendingInput {
        state: PendingState,
        rejection: Option<String>,
    },
    /// The screen's note about the turn (`○`).
    Status,
    /// The screen answering what was just typed (`›`).
    LocalReply,
}

/// Origin fields kept for diagnostics and grouping.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Origin {
    /// Full request / operation id (C-30: shown only in expanded diagnostics). Shared: the
    /// entries of one live turn point at one copy.
    pub request_id: Option<Arc<str>>,
}

/// Facts about hidden coop-report lines in a Keeper final, computed once at ingestion.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportFacts {
    pub hidden: Vec<HiddenReport>,
    pub leaks: Vec<ReportLeak>,
    pub rejected: Vec<usize>,
    /// The body without the report lines a renderer would display (their JSON is never shown
    /// in the chat; the warning row names them). `None` when nothing leaks.
    pub display_text: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HiddenReport {
    pub outcome: String,
    pub binding_id: String,
    pub body: String,
    pub for_dad: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportLeak {
    /// 1-based line of the body.
    pub line: usize,
    pub cause: &'static str,
}

impl ReportFacts {
    /// Runs the coop-report analyser only when the text can hold a report (cheap check first).
    pub fn of_text(text: &str) -> Option<Self> {
        if !text.contains("coop_reports") && !text.contains("[coop-") {
            return None;
        }
        let analysis = coop_report::analyse(text);
        let mut facts = Self::from_analysis(&analysis)?;
        facts.display_text = without_leaked_lines(text, &analysis);
        Some(facts)
    }

    pub fn from_analysis(a: &FinalAnalysis) -> Option<Self> {
        let leaked_spans: Vec<usize> = a.leaks.iter().filter_map(|l| l.span).collect();
        let hidden: Vec<HiddenReport> = a
            .reports
            .iter()
            .filter(|r| !leaked_spans.contains(&r.span))
            .map(|r| HiddenReport {
                outcome: r.report.outcome.clone(),
                binding_id: r.report.binding_id.clone(),
                body: r.report.body.clone(),
                for_dad: r.report.for_dad.clone(),
            })
            .collect();
        let leaks: Vec<ReportLeak> = a
            .leaks
            .iter()
            .map(|l| ReportLeak {
                line: l.line,
                cause: l.cause.name(),
            })
            .collect();
        let rejected: Vec<usize> = a.invalid_reports.iter().map(|r| r.line).collect();
        if hidden.is_empty() && leaks.is_empty() && rejected.is_empty() {
            None
        } else {
            Some(Self {
                hidden,
                leaks,
                rejected,
                display_text: None,
            })
        }
    }
}

/// `text` without every line that holds leaked report text (the whole span of a leaked
/// report container, or the leak's own line), and without report lines only HTML markup or an
/// image's alt text hides: a browser never shows them, but this terminal prints raw HTML and
/// alt text, so they would show here.
fn without_leaked_lines(text: &str, a: &FinalAnalysis) -> Option<String> {
    let printed_here: Vec<usize> = a
        .hidden_lines
        .iter()
        .filter(|h| h.hidden_by != coop_report::HiddenBy::Definition)
        .map(|h| h.line_index)
        .collect();
    if a.leaks.is_empty() && printed_here.is_empty() {
        return None;
    }
    let mut cut: Vec<(usize, usize)> = Vec::new();
    let mut starts = vec![0];
    starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
    let line_of = |byte: usize| starts.partition_point(|&s| s <= byte).saturating_sub(1);
    for leak in &a.leaks {
        match leak.span.and_then(|s| a.spans.get(s)) {
            Some(span) => cut.push((line_of(span.start), line_of(span.end.saturating_sub(1)))),
            None => cut.push((leak.line_index, leak.line_index)),
        }
    }
    cut.extend(printed_here.iter().map(|i| (*i, *i)));
    let kept: Vec<&str> = text
        .split('\n')
        .enumerate()
        .filter(|(i, _)| !cut.iter().any(|(a, b)| (*a..=*b).contains(i)))
        .map(|(_, l)| l)
        .collect();
    Some(kept.join("\n").trim_end().to_string())
}

/// One transcript entry.
///
/// 168 bytes, so an entry in its `Arc` is a 192-byte block (a transcript holds 100k): the id
/// inline up to 24 bytes (no allocation for MASC's message ids), the turn reference, request
/// id and Keeper name shared with the entries around it. A size test guards it.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// Stable identity: the source message id (or request id for pending input).
    pub id: CompactString,
    pub speaker: Speaker,
    pub kind: EntryKind,
    /// Unix seconds.
    pub ts: Option<f64>,
    /// Full turn reference (grouping key for the rail, C-17). Shared: a turn's entries point
    /// at one copy ([`Transcript`] shares equal references of consecutive entries).
    pub turn_ref: Option<Arc<str>>,
    pub origin: Origin,
    /// The recorded original (C-29, C-31).
    pub text: String,
    /// Hidden report facts of a Keeper final (computed when the text is set).
    pub reports: Option<Box<ReportFacts>>,
    /// Streamed text still open (between `TEXT_MESSAGE_START` and `_END`): the renderer closes
    /// its open inline markup for display (`partial::close_open_markup`).
    pub open: bool,
}

impl Entry {
    pub fn new(
        id: impl Into<CompactString>,
        speaker: Speaker,
        kind: EntryKind,
        text: impl Into<String>,
    ) -> Self {
        let (mut id, mut text) = (id.into(), text.into());
        // A formatted or accumulated string carries spare capacity; an entry keeps its bytes
        // only (a transcript holds 100k of them). An id up to 24 bytes is stored in
        // the entry itself.
        id.shrink_to_fit();
        text.shrink_to_fit();
        let mut entry = Self {
            id,
            speaker,
            kind,
            ts: None,
            turn_ref: None,
            origin: Origin::default(),
            text,
            reports: None,
            open: false,
        };
        entry.refresh_reports();
        entry
    }

    pub fn with_ts(mut self, ts: f64) -> Self {
        self.ts = Some(ts);
        self
    }

    pub fn with_turn(mut self, turn_ref: impl Into<Arc<str>>) -> Self {
        self.turn_ref = Some(turn_ref.into());
        self
    }

    pub fn with_request(mut self, request_id: impl Into<Arc<str>>) -> Self {
        self.origin.request_id = Some(request_id.into());
        self
    }

    /// Recomputes [`Entry::reports`] (Keeper utterances only).
    pub fn refresh_reports(&mut self) {
        let keeper_speech =
            matches!(self.speaker, Speaker::Keeper { .. }) && self.kind == EntryKind::Utterance;
        self.reports = if keeper_speech {
            ReportFacts::of_text(&self.text).map(Box::new)
        } else {
            None
        };
    }

    /// Thin conversion of one history row (§4.5) that is one entry; an autonomous row with
    /// a trace becomes several ([`entries_of_row`]), of which this is the text.
    pub fn from_history_row(row: &ChatHistoryRow, keeper: &str) -> Self {
        let keeper = Arc::from(keeper);
        let mut entries = from_history::entries_of_row(row, &keeper);
        let i = entries.iter().position(|e| e.id == row.id).unwrap_or(0);
        if entries.is_empty() {
            return Self::new(row.id.as_str(), Speaker::System, EntryKind::Journal, "");
        }
        entries.swap_remove(i)
    }
}

#[cfg(test)]
#[path = "model_tests.rs"]
mod tests;
