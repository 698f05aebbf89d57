//! One transcript row of `/chat/history/page` (§4.5) and of the bare-array `/chat/history`
//! (§15.9): the same row object on both routes.
//!
//! The row is read tolerantly where MASC's store grows between releases and strictly where a
//! value would be invented otherwise (§15.9 "masc-tui rules"):
//!
//! - `role` is open: `system` (Gate lifecycle and other server rows), `request_failure` (the
//!   newest store's failed request) and any role this build was not taught decode; an unknown
//!   role is shown in the neutral lane and counted, never a page failure.
//! - `delivery_key` and `transcript_slot` are one pair (MASC writes both or neither,
//!   `Keeper_chat_delivery_identity.delivery_provenance_of_fields`). One without the other, or a
//!   pair that does not decode, keeps the row and ignores the pair ([`RowIdentity::Ignored`]).
//! - `approval_lifecycle`, `autonomous_turn`, the trace block and the speaker fields are parts:
//!   a malformed part is unavailable, the row stays.
//! - A row that is not an object, has no string `id` or `role`, or a `content` that is neither a
//!   string nor null, is not a row: the page keeps the others and counts it
//!   ([`DroppedRow`]). So is a `tool` row without `tool_call_name` (MASC's TUI drops it: a
//!   nameless call says nothing).

use crate::protocol::decode::{DecodeError, DecodeErrorKind};
use serde_json::{Map, Value};

/// The row's `role`. Open: a role this build does not know is kept, by its label.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChatRole {
    User,
    Assistant,
    Tool,
    /// Newer MASC: server rows — Gate lifecycle steps and other notes (§15.9).
    System,
    /// The newest store: a failed request's result (replaces `kind: transport_failure`).
    RequestFailure,
    /// A role this build was not taught: shown in the neutral lane and counted.
    Other(Box<str>),
}

impl ChatRole {
    pub fn from_label(label: &str) -> Self {
        match label {
            "user" => Self::User,
            "assistant" => Self::Assistant,
            "tool" => Self::Tool,
            "system" => Self::System,
            "request_failure" => Self::RequestFailure,
            other => Self::Other(other.into()),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            Self::User => "user",
            Self::Assistant => "assistant",
            Self::Tool => "tool",
            Self::System => "system",
            Self::RequestFailure => "request_failure",
            Self::Other(label) => label,
        }
    }

    /// A role this build does not know.
    pub fn is_unknown(&self) -> bool {
        matches!(self, Self::Other(_))
    }
}

/// Row `kind`: `transport_failure` is the one MASC writes; another label is kept (the row is
/// then neither speech nor a failure: neutral lane, counted).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChatRowKind {
    TransportFailure,
    Other(Box<str>),
}

/// `delivery_key` (§15.9): the exact identity a producer stored the row under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeliveryKey {
    /// A chat send: `operation_id` equals the §4.3 `request_id` of the send.
    Operation {
        operation_id: String,
    },
    FusionRun {
        request_id: String,
    },
    WorkspaceMessage {
        request_id: String,
    },
    /// Newer MASC: a Gate lifecycle step.
    ApprovalLifecycle {
        approval_id: String,
    },
}

impl DeliveryKey {
    /// The send this row belongs to: only an operation key names a request a client sent.
    pub fn operation_id(&self) -> Option<&str> {
        match self {
            Self::Operation { operation_id } => Some(operation_id),
            _ => None,
        }
    }
}

/// `transcript_slot` (§15.9). Open: the newest store renames the terminal slot and a MASC TUI
/// fixture shows a `failure` slot; those labels are kept, the delivery key still joins.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TranscriptSlot {
    AcceptedUser,
    ToolCall { execution_id: String, ordinal: u64 },
    ToolDelivery { ordinal: u64 },
    TerminalAssistant,
    ApprovalRequest,
    ApprovalResolution,
    ApprovalReplay,
    ApprovalReplayCorrection,
    ApprovalContinuation,
    Other(Box<str>),
}

/// The row's delivery identity pair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeliveryIdentity {
    pub key: DeliveryKey,
    pub slot: TranscriptSlot,
}

/// What the row said about its delivery identity.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum RowIdentity {
    /// Neither key (plain append paths, older rows).
    #[default]
    None,
    Pair(DeliveryIdentity),
    /// One key without the other, or a pair that does not decode: the row is kept, the pair
    /// ignored and counted.
    Ignored(IdentityIssue),
}

impl RowIdentity {
    pub fn pair(&self) -> Option<&DeliveryIdentity> {
        match self {
            Self::Pair(p) => Some(p),
            _ => None,
        }
    }

    /// The §4.3 request id this row was delivered under (an operation key only).
    pub fn operation_id(&self) -> Option<&str> {
        self.pair().and_then(|p| p.key.operation_id())
    }
}

/// Why a row's identity pair was ignored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdentityIssue {
    /// `delivery_key` without `transcript_slot`, or the other way round.
    Unpaired,
    /// The pair is there but one of its halves does not decode (the detail names which).
    Unreadable(String),
}

/// `speaker_authority` of a user row. Open: an authority this build was not taught is never
/// read as the operator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpeakerAuthority {
    Owner,
    External,
    /// Newer MASC: another Keeper.
    Keeper,
    Other(Box<str>),
}

/// Who wrote a user row, as the store recorded it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RowSpeaker {
    pub id: Option<String>,
    pub name: Option<String>,
    pub authority: Option<SpeakerAuthority>,
}

/// Where a row came in (`surface.kind`); an unknown kind is `None` on the row (drawn without a
/// surface label, never guessed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Surface {
    Dashboard,
    Discord { channel: Option<Channel> },
    Slack { channel: Option<Channel> },
    Webhook { source: String },
    Agent,
    Broadcast,
    Gate { label: String },
}

/// A connector channel: its name where the workspace resolved it, else its id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Channel {
    Name(String),
    Id(String),
}

/// `approval_lifecycle.phase` (MASC `Keeper_approval_lifecycle`). Open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApprovalPhase {
    Requested,
    ResolvedApproved,
    ResolvedRejected,
    ReplayApplied,
    ReplayAppliedWithWarning,
    ReplayFailed,
    ReplayIndeterminate,
    ContinuationRecorded,
    ContinuationFailed,
    Other(Box<str>),
}

impl ApprovalPhase {
    pub fn from_label(label: &str) -> Self {
        match label {
            "requested" => Self::Requested,
            "resolved_approved" => Self::ResolvedApproved,
            "resolved_rejected" => Self::ResolvedRejected,
            "replay_applied" => Self::ReplayApplied,
            "replay_applied_with_warning" => Self::ReplayAppliedWithWarning,
            "replay_failed" => Self::ReplayFailed,
            "replay_indeterminate" => Self::ReplayIndeterminate,
            "continuation_recorded" => Self::ContinuationRecorded,
            "continuation_failed" => Self::ContinuationFailed,
            other => Self::Other(other.into()),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            Self::Requested => "requested",
            Self::ResolvedApproved => "resolved_approved",
            Self::ResolvedRejected => "resolved_rejected",
            Self::ReplayApplied => "replay_applied",
            Self::ReplayAppliedWithWarning => "replay_applied_with_warning",
            Self::ReplayFailed => "replay_failed",
            Self::ReplayIndeterminate => "replay_indeterminate",
            Self::ContinuationRecorded => "continuation_recorded",
            Self::ContinuationFailed => "continuation_failed",
            Self::Other(label) => label,
        }
    }
}

/// `approval_lifecycle` of a `system` row (newer MASC). A lifecycle without `approval_id` is not
/// a step that can be placed in an approval: the row stays in the neutral lane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalLifecycle {
    pub approval_id: Option<String>,
    pub phase: ApprovalPhase,
    pub tool_name: Option<String>,
    /// What the held call asked for (travels with every phase).
    pub call_summary: Option<String>,
}

/// `autonomous_turn` of a bare-array row: a turn the Keeper ran on its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AutonomousTurn {
    pub turn_id: String,
}

/// `status` of a trace tool step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TraceToolStatus {
    Ok,
    Err,
    Pending,
}

/// One step of a trace block (`blocks[].trace[]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TraceStep {
    /// `think`: `withheld` when the server scrubbed the text (`content_withheld`).
    Think { text: String, withheld: bool },
    Reason {
        text: String,
        detail: Option<String>,
    },
    Tool {
        name: String,
        tool_call_id: Option<String>,
        execution_id: Option<String>,
        /// `None`: no status recorded (or one this build does not know).
        status: Option<TraceToolStatus>,
        dur: Option<String>,
        args: Option<String>,
    },
}

/// The trace block of a row (`{t:"trace", trace:[step], omitted?}`): steps in the order the turn
/// ran them; `omitted` counts steps the server left out plus steps this build cannot read.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TraceBlock {
    pub steps: Vec<TraceStep>,
    pub omitted: u64,
}

/// One transcript row.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatHistoryRow {
    pub id: String,
    pub role: ChatRole,
    /// `null` on the wire (an autonomous row that said nothing) reads as empty.
    pub content: String,
    /// Unix seconds; `None` when the row carries no usable `ts` (kept in server order).
    pub ts: Option<f64>,
    pub kind: Option<ChatRowKind>,
    pub turn_ref: Option<String>,
    pub tool_call_id: Option<String>,
    pub tool_call_name: Option<String>,
    /// Newer MASC: a tool row's exact join key to the tool-call store (§14.10).
    pub execution_id: Option<String>,
    pub speaker: Option<RowSpeaker>,
    pub surface: Option<Surface>,
    pub identity: RowIdentity,
    pub approval: Option<ApprovalLifecycle>,
    pub autonomous: Option<AutonomousTurn>,
    /// The trace block, read only on autonomous rows (a direct row's calls are its tool rows).
    pub trace: Option<TraceBlock>,
}

impl ChatHistoryRow {
    /// A row with only the fields every release sends.
    pub fn new(id: impl Into<String>, role: ChatRole, content: impl Into<String>, ts: f64) -> Self {
        Self {
            id: id.into(),
            role,
            content: content.into(),
            ts: Some(ts),
            kind: None,
            turn_ref: None,
            tool_call_id: None,
            tool_call_name: None,
            execution_id: None,
            speaker: None,
            surface: None,
            identity: RowIdentity::None,
            approval: None,
            autonomous: None,
            trace: None,
        }
    }

    /// A failed request's row: `kind: transport_failure` (Aug, newer) or the newest store's
    /// `request_failure` role.
    pub fn is_request_failure(&self) -> bool {
        self.role == ChatRole::RequestFailure || self.kind == Some(ChatRowKind::TransportFailure)
    }

    /// A Gate lifecycle step that names its approval.
    pub fn gate_step(&self) -> Option<&ApprovalLifecycle> {
        match (&self.role, &self.approval) {
            (ChatRole::System, Some(a)) if a.approval_id.is_some() => Some(a),
            _ => None,
        }
    }
}

/// A row the page could not read: kept out, counted, and named by its index and the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DroppedRow {
    pub index: usize,
    pub error: DecodeError,
}

/// What a page or array holds besides its rows: the counts the screen must show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RowCounts {
    pub dropped: usize,
    pub unknown_role: usize,
    pub unknown_kind: usize,
    pub identity_ignored: usize,
}

impl RowCounts {
    pub fn of(rows: &[ChatHistoryRow], dropped: &[DroppedRow]) -> Self {
        let mut c = Self {
            dropped: dropped.len(),
            ..Self::default()
        };
        for r in rows {
            c.unknown_role += usize::from(r.role.is_unknown());
            c.unknown_kind += usize::from(matches!(r.kind, Some(ChatRowKind::Other(_))));
            c.identity_ignored += usize::from(matches!(r.identity, RowIdentity::Ignored(_)));
        }
        c
    }

    /// Both counts together (the newest window and the older pages read since).
    pub fn plus(self, other: Self) -> Self {
        Self {
            dropped: self.dropped + other.dropped,
            unknown_role: self.unknown_role + other.unknown_role,
            unknown_kind: self.unknown_kind + other.unknown_kind,
            identity_ignored: self.identity_ignored + other.identity_ignored,
        }
    }

    pub fn is_clean(&self) -> bool {
        *self == Self::default()
    }
}

/// Decode every row of `values`: the readable ones in order, the others counted.
pub fn decode_rows(values: &[Value], at: &str) -> (Vec<ChatHistoryRow>, Vec<DroppedRow>) {
    let mut rows = Vec::with_capacity(values.len());
    let mut dropped = Vec::new();
    for (index, value) in values.iter().enumerate() {
        match decode_row(value) {
            Ok(row) => rows.push(row),
            Err(e) => dropped.push(DroppedRow {
                index,
                error: e.under(&format!("{at}[{index}]")),
            }),
        }
    }
    if !dropped.is_empty() {
        tracing::info!(
            target: "masc_tui::chat_rows",
            dropped = dropped.len(),
            first = %dropped[0].error.path,
            "chat history rows dropped"
        );
    }
    (rows, dropped)
}

fn not_a_row(path: &str, detail: impl Into<String>) -> DecodeError {
    DecodeError::new(DecodeErrorKind::WrongType, path, detail)
}

fn string(obj: &Map<String, Value>, key: &str) -> Option<String> {
    obj.get(key).and_then(Value::as_str).map(str::to_string)
}

/// One row; `Err` when it is not a row at all (see the module doc).
pub fn decode_row(value: &Value) -> Result<ChatHistoryRow, DecodeError> {
    let obj = value
        .as_object()
        .ok_or_else(|| not_a_row(".", "a transcript row is an object"))?;
    let id = match obj.get("id") {
        Some(Value::String(s)) if !s.is_empty() => s.clone(),
        Some(_) => return Err(not_a_row(".id", "id is not a non-empty string")),
        None => {
            return Err(DecodeError::new(
                DecodeErrorKind::MissingField,
                ".id",
                "missing field `id`",
            ));
        }
    };
    let role = match obj.get("role") {
        Some(Value::String(s)) => ChatRole::from_label(s),
        Some(_) => return Err(not_a_row(".role", "role is not a string")),
        None => {
            return Err(DecodeError::new(
                DecodeErrorKind::MissingField,
                ".role",
                "missing field `role`",
            ));
        }
    };
    let content = match obj.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(_) => return Err(not_a_row(".content", "content is not a string or null")),
    };
    let ts = obj
        .get("ts")
        .and_then(Value::as_f64)
        .filter(|t| t.is_finite());
    let tool_call_name = string(obj, "tool_call_name");
    if role == ChatRole::Tool && tool_call_name.as_deref().is_none_or(str::is_empty) {
        return Err(DecodeError::new(
            DecodeErrorKind::MissingField,
            ".tool_call_name",
            "a tool row without tool_call_name names no call",
        ));
    }
    let kind = obj.get("kind").and_then(Value::as_str).map(|k| match k {
        "transport_failure" => ChatRowKind::TransportFailure,
        other => ChatRowKind::Other(other.into()),
    });
    let autonomous = obj
        .get("autonomous_turn")
        .and_then(Value::as_object)
        .map(|a| AutonomousTurn {
            turn_id: string(a, "turn_id").unwrap_or_default(),
        });
    let trace = if autonomous.is_some() {
        obj.get("blocks")
            .and_then(Value::as_array)
            .map(|b| trace_block(b))
    } else {
        None
    };
    Ok(ChatHistoryRow {
        id,
        role,
        content,
        ts,
        kind,
        turn_ref: string(obj, "turn_ref"),
        tool_call_id: string(obj, "tool_call_id"),
        tool_call_name,
        execution_id: string(obj, "execution_id"),
        speaker: speaker(obj),
        surface: obj.get("surface").and_then(surface),
        identity: identity(obj),
        approval: obj.get("approval_lifecycle").and_then(approval),
        autonomous,
        trace,
    })
}

fn speaker(obj: &Map<String, Value>) -> Option<RowSpeaker> {
    let s = RowSpeaker {
        id: string(obj, "speaker_id"),
        name: string(obj, "speaker_name"),
        authority: obj
            .get("speaker_authority")
            .and_then(Value::as_str)
            .map(|a| match a {
                "owner" => SpeakerAuthority::Owner,
                "external" => SpeakerAuthority::External,
                "keeper" => SpeakerAuthority::Keeper,
                other => SpeakerAuthority::Other(other.into()),
            }),
    };
    (s != RowSpeaker::default()).then_some(s)
}

fn surface(value: &Value) -> Option<Surface> {
    let obj = value.as_object()?;
    let channel = || {
        string(obj, "channel_name")
            .map(|n| n.trim().to_string())
            .filter(|n| !n.is_empty())
            .map(Channel::Name)
            .or_else(|| {
                string(obj, "channel_id")
                    .filter(|i| !i.trim().is_empty())
                    .map(Channel::Id)
            })
    };
    Some(match obj.get("kind")?.as_str()? {
        "dashboard" => Surface::Dashboard,
        "discord" => Surface::Discord { channel: channel() },
        "slack" => Surface::Slack { channel: channel() },
        "webhook" => Surface::Webhook {
            source: string(obj, "source").unwrap_or_else(|| "webhook".into()),
        },
        "agent" => Surface::Agent,
        "broadcast" => Surface::Broadcast,
        "gate" => Surface::Gate {
            label: string(obj, "label").unwrap_or_else(|| "gate".into()),
        },
        _ => return None,
    })
}

fn approval(value: &Value) -> Option<ApprovalLifecycle> {
    let obj = value.as_object()?;
    Some(ApprovalLifecycle {
        approval_id: string(obj, "approval_id").filter(|id| !id.trim().is_empty()),
        phase: ApprovalPhase::from_label(obj.get("phase")?.as_str()?),
        tool_name: string(obj, "tool_name"),
        call_summary: string(obj, "call_summary"),
    })
}

fn identity(obj: &Map<String, Value>) -> RowIdentity {
    match (obj.get("delivery_key"), obj.get("transcript_slot")) {
        (None, None) => RowIdentity::None,
        (Some(_), None) | (None, Some(_)) => RowIdentity::Ignored(IdentityIssue::Unpaired),
        (Some(key), Some(slot)) => match (delivery_key(key), transcript_slot(slot)) {
            (Ok(key), Ok(slot)) => RowIdentity::Pair(DeliveryIdentity { key, slot }),
            (Err(why), _) | (_, Err(why)) => {
                RowIdentity::Ignored(IdentityIssue::Unreadable(why.to_string()))
            }
        },
    }
}

/// A non-blank id of an identity half.
fn id_field(obj: &Map<String, Value>, key: &str) -> Result<String, &'static str> {
    string(obj, key)
        .filter(|v| !v.trim().is_empty())
        .ok_or("delivery identity field missing or blank")
}

fn delivery_key(value: &Value) -> Result<DeliveryKey, &'static str> {
    let obj = value.as_object().ok_or("delivery_key is not an object")?;
    match obj.get("kind").and_then(Value::as_str) {
        Some("operation") => Ok(DeliveryKey::Operation {
            operation_id: id_field(obj, "operation_id")?,
        }),
        Some("fusion_run") => Ok(DeliveryKey::FusionRun {
            request_id: id_field(obj, "request_id")?,
        }),
        Some("workspace_message") => Ok(DeliveryKey::WorkspaceMessage {
            request_id: id_field(obj, "request_id")?,
        }),
        Some("approval_lifecycle") => Ok(DeliveryKey::ApprovalLifecycle {
            approval_id: id_field(obj, "approval_id")?,
        }),
        _ => Err("delivery_key of an unknown kind"),
    }
}

fn ordinal(obj: &Map<String, Value>) -> Result<u64, &'static str> {
    obj.get("ordinal")
        .and_then(Value::as_u64)
        .ok_or("transcript slot ordinal is not a non-negative integer")
}

fn transcript_slot(value: &Value) -> Result<TranscriptSlot, &'static str> {
    let obj = value
        .as_object()
        .ok_or("transcript_slot is not an object")?;
    let kind = obj
        .get("kind")
        .and_then(Value::as_str)
        .ok_or("transcript_slot has no kind")?;
    Ok(match kind {
        "accepted_user" => TranscriptSlot::AcceptedUser,
        "terminal_assistant" => TranscriptSlot::TerminalAssistant,
        "approval_request" => TranscriptSlot::ApprovalRequest,
        "approval_resolution" => TranscriptSlot::ApprovalResolution,
        "approval_replay" => TranscriptSlot::ApprovalReplay,
        "approval_replay_correction" => TranscriptSlot::ApprovalReplayCorrection,
        "approval_continuation" => TranscriptSlot::ApprovalContinuation,
        "tool_call" => TranscriptSlot::ToolCall {
            execution_id: id_field(obj, "execution_id")?,
            ordinal: ordinal(obj)?,
        },
        "tool_delivery" => TranscriptSlot::ToolDelivery {
            ordinal: ordinal(obj)?,
        },
        other => TranscriptSlot::Other(other.into()),
    })
}

fn trace_block(blocks: &[Value]) -> TraceBlock {
    let mut block = TraceBlock::default();
    for b in blocks.iter().filter_map(Value::as_object) {
        match b.get("t").and_then(Value::as_str) {
            Some("trace") => {
                if let Some(steps) = b.get("trace").and_then(Value::as_array) {
                    for step in steps {
                        match trace_step(step) {
                            Some(s) => block.steps.push(s),
                            // A step this build cannot read is a step the turn took: counted,
                            // never silently shortening the turn.
                            None => block.omitted += 1,
                        }
                    }
                }
                block.omitted += b.get("omitted").and_then(Value::as_u64).unwrap_or(0);
            }
            Some("thinking") => {
                let redacted = b.get("redacted").and_then(Value::as_bool) == Some(true);
                block.steps.push(TraceStep::Think {
                    text: string(b, "content").unwrap_or_default(),
                    withheld: redacted,
                });
            }
            // Every other block kind is prose the row's content already carries.
            _ => {}
        }
    }
    block
}

fn trace_step(value: &Value) -> Option<TraceStep> {
    let obj = value.as_object()?;
    Some(match obj.get("kind")?.as_str()? {
        "think" => TraceStep::Think {
            text: string(obj, "text").unwrap_or_default(),
            withheld: obj.get("content_withheld").and_then(Value::as_bool) == Some(true),
        },
        "reason" => TraceStep::Reason {
            text: string(obj, "text").unwrap_or_default(),
            detail: string(obj, "detail"),
        },
        "tool" => TraceStep::Tool {
            name: string(obj, "name")?,
            tool_call_id: string(obj, "tool_call_id"),
            execution_id: string(obj, "execution_id"),
            status: match obj.get("status").and_then(Value::as_str) {
                Some("ok") => Some(TraceToolStatus::Ok),
                Some("err") => Some(TraceToolStatus::Err),
                Some("pending") => Some(TraceToolStatus::Pending),
                _ => None,
            },
            dur: string(obj, "dur"),
            args: match obj.get("args") {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) => Some(s.clone()),
                Some(other) => Some(other.to_string()),
            },
        },
        _ => return None,
    })
}

#[cfg(test)]
#[path = "rows_tests.rs"]
mod tests;
