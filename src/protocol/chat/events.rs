//! Typed events of the chat stream (protocol.md §4.3) and the per-event wire shape.
//!
//! The order and identity rules live in [`super::stream`]; this file only turns one SSE
//! `data:` payload into a typed event or a refusal naming the event index.

use crate::protocol::decode::{DecodeError, DecodeErrorKind, decode_value};
use serde::Deserialize;

/// The closed `state` of an operation (acceptance value and §4.4 record).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum OperationState {
    Queued,
    Running,
    Succeeded,
    Failed,
    Cancelled,
}

impl OperationState {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Queued => "Queued",
            Self::Running => "Running",
            Self::Succeeded => "Succeeded",
            Self::Failed => "Failed",
            Self::Cancelled => "Cancelled",
        }
    }
    /// Succeeded, Failed or Cancelled: the operation ended before this stream was opened.
    pub fn is_terminal(self) -> bool {
        matches!(self, Self::Succeeded | Self::Failed | Self::Cancelled)
    }
}

/// `KEEPER_CHAT_OPERATION_ACCEPTED` value: exactly these three keys, plus (newer MASC, only
/// when the send carried an `admission_intent`) the closed `interactive` block (§14.15). An
/// older server never sends it: its absence is read as "no interactive admission".
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Acceptance {
    pub operation_id: String,
    pub state: OperationState,
    pub queued_count: u64,
    #[serde(default)]
    pub interactive: Option<InteractiveAdmission>,
}

/// The `interactive` block of a newer MASC's acceptance (protocol.md §14.15): what the
/// admission's control token did. Closed keys; `interrupt_error` may be null or absent.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InteractiveAdmission {
    pub outcome: InteractiveOutcome,
    /// Replaces the chat control token the client holds.
    pub chat_control_token: String,
    /// This admission signalled a turn to stop.
    pub signalled: bool,
    /// This admission lifted a stop's pause.
    pub resumed: bool,
    #[serde(default)]
    pub interrupt_error: Option<String>,
}

/// `interactive.outcome`: open (MASC may add outcomes); the four §14.15 names have predicates.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub struct InteractiveOutcome(pub String);

/// What an `interactive.outcome` says, by the §14.15 names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InteractiveKind {
    /// The token was current: `signalled` / `resumed` say what it did.
    Applied,
    /// Controls changed after the token was read: queued, the newer stop or resume stays.
    StaleControl,
    /// Queued; the Keeper stays paused.
    Paused,
    /// A re-POST of the same request id; nothing new.
    Replayed,
    /// Any other outcome: accepted, control effect unknown.
    Unknown,
}

impl InteractiveOutcome {
    pub fn kind(&self) -> InteractiveKind {
        match self.0.as_str() {
            "applied" => InteractiveKind::Applied,
            "stale_control" => InteractiveKind::StaleControl,
            "paused" => InteractiveKind::Paused,
            "replayed" => InteractiveKind::Replayed,
            _ => InteractiveKind::Unknown,
        }
    }
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// `KEEPER_CHAT_BATCH_BOUND` value (newer MASC): the operation `operation_id` runs inside the
/// execution `execution_id` — the request id of the batch's first member (MASC's PTY test
/// "Server batch has one TUI status row", `BatchFixture`, binds each of three queued requests
/// to `submitted[0]` and expects one `3 messages in one turn · running` row).
/// Exactly these two keys, both non-blank strings, as MASC's dashboard decoder pins them
/// (dashboard/src/schemas/sse.ts at 01003857f7, `allowedFields.KEEPER_CHAT_BATCH_BOUND` and
/// `requiredString`; its test "accepts a shared execution binding and rejects unknown
/// fields"). Both ids are kept verbatim: never trimmed, normalised or hashed (C-37).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BatchBinding {
    pub operation_id: String,
    pub execution_id: String,
}

/// `KEEPER_TOOL_APPROVAL_REQUESTED` value (newer MASC, §15.9): a call of this turn now waits
/// for the operator. A hint: the §14.5 held-call list stays the authority.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolApprovalRequest {
    pub tool_call_id: String,
    pub tool_call_name: String,
    /// Absent on the wire reads as empty (§15.9).
    pub args: String,
    /// `None`: the event asked no question (a fault MASC's decoder tolerates; nothing is
    /// invented in its place).
    pub question: Option<String>,
    pub because: Option<String>,
}

/// `KEEPER_TOOL_APPROVAL_SETTLED` value (newer MASC, §15.9): the wait ended. The outcome's
/// vocabulary is unverified (`approved`, `Approved`, `timed_out` seen): kept as sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolApprovalSettled {
    pub tool_call_id: String,
    pub outcome: String,
}

/// `turn_outcome` of the reply details. The set grows with MASC, so it stays open; the
/// outcomes masc-tui treats specially have named predicates.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub struct TurnOutcome(pub String);

impl TurnOutcome {
    pub fn is_visible_reply(&self) -> bool {
        self.0 == "visible_reply"
    }
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// `KEEPER_REPLY_DETAILS` value: exactly these three keys. `reply` may be empty (media-only
/// replies, non-visible outcomes); it is the only text that counts as the Keeper's reply.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplyDetails {
    pub reply: String,
    pub turn_outcome: TurnOutcome,
    pub turn_ref: String,
}

/// `RUN_ERROR.code`. Four codes before the acceptance prove the turn was not applied (§11).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunErrorCode {
    InvalidInput,
    OwnerStopping,
    UnknownOperation,
    NotQueued,
    /// Any other code, kept verbatim (it proves nothing about application).
    Unlisted(String),
}

impl RunErrorCode {
    fn from_wire(code: String) -> Self {
        match code.as_str() {
            "invalid_input" => Self::InvalidInput,
            "owner_stopping" => Self::OwnerStopping,
            "unknown_operation" => Self::UnknownOperation,
            "not_queued" => Self::NotQueued,
            _ => Self::Unlisted(code),
        }
    }
    pub fn as_str(&self) -> &str {
        match self {
            Self::InvalidInput => "invalid_input",
            Self::OwnerStopping => "owner_stopping",
            Self::UnknownOperation => "unknown_operation",
            Self::NotQueued => "not_queued",
            Self::Unlisted(code) => code,
        }
    }
    /// True for the codes that, before the acceptance, mean "verified not applied".
    pub fn proves_not_applied(&self) -> bool {
        !matches!(self, Self::Unlisted(_))
    }
}

/// Tool-call arguments: exactly one of `delta` / `snapshot`.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolCallArgs {
    Delta(String),
    Snapshot(serde_json::Value),
}

/// One typed chat-stream event, in wire order.
#[derive(Debug, Clone, PartialEq)]
pub enum ChatStreamEvent {
    Accepted {
        operation_id: String,
        state: OperationState,
        queued_count: u64,
        /// §14.15 (newer MASC): present only when the send carried an admission intent.
        interactive: Option<InteractiveAdmission>,
    },
    RunStarted,
    /// `KEEPER_THINKING_DELTA`; `delta` is the text when the value carries one.
    ThinkingDelta {
        delta: Option<String>,
    },
    TextStart {
        message_id: String,
    },
    TextDelta {
        message_id: String,
        delta: String,
    },
    TextEnd {
        message_id: String,
    },
    ToolCallStart {
        tool_call_id: Option<String>,
        tool_call_name: String,
    },
    /// `toolCallId` is required and non-blank: it is the only link to the call it continues
    /// (MASC's dashboard records a missing one as a stream protocol error,
    /// dashboard/src/keeper-stream.ts).
    ToolCallArgs {
        tool_call_id: String,
        args: ToolCallArgs,
    },
    /// `toolCallId` required and non-blank, as for [`ChatStreamEvent::ToolCallArgs`].
    ToolCallEnd {
        tool_call_id: String,
    },
    ToolResultReady,
    /// `KEEPER_CHAT_BATCH_BOUND` (newer MASC; an older MASC never sends it): the execution
    /// an operation runs in. It may come before or after `RUN_STARTED` (MASC's Owner: "a
    /// member can observe Run_started before Batch_bound reaches its socket").
    BatchBound(BatchBinding),
    ReplyDetails(ReplyDetails),
    RunFinished,
    RunError {
        message: String,
        code: Option<RunErrorCode>,
    },
    /// `KEEPER_TOOL_APPROVAL_REQUESTED` (newer MASC): a hint for the held-call rows.
    ToolApprovalRequested(Box<ToolApprovalRequest>),
    /// `KEEPER_TOOL_APPROVAL_SETTLED` (newer MASC): a hint for the held-call rows.
    ToolApprovalSettled(ToolApprovalSettled),
    /// A `CUSTOM` name masc-tui does not act on (§4.3: other names are ignored), or a held-call
    /// hint that names no call (it cannot be placed; traced).
    Ignored {
        name: String,
    },
}

impl ChatStreamEvent {
    pub fn is_terminal(&self) -> bool {
        matches!(self, Self::RunFinished | Self::RunError { .. })
    }
}

/// The envelope fields of any event; which are required depends on `type`.
#[derive(Debug, Deserialize)]
pub(super) struct EventWire {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(rename = "timestamp")]
    _timestamp: f64,
    #[serde(rename = "threadId", default)]
    pub thread_id: Option<String>,
    #[serde(rename = "runId", default)]
    pub run_id: Option<String>,
    #[serde(rename = "messageId", default)]
    message_id: Option<String>,
    #[serde(default)]
    role: Option<String>,
    #[serde(default)]
    delta: Option<String>,
    #[serde(default)]
    snapshot: Option<serde_json::Value>,
    #[serde(rename = "toolCallId", default)]
    tool_call_id: Option<String>,
    #[serde(rename = "toolCallName", default)]
    tool_call_name: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    value: Option<serde_json::Value>,
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    code: Option<String>,
}

pub(super) const ACCEPTED_NAME: &str = "KEEPER_CHAT_OPERATION_ACCEPTED";
const REPLY_DETAILS_NAME: &str = "KEEPER_REPLY_DETAILS";
const THINKING_NAME: &str = "KEEPER_THINKING_DELTA";
const TOOL_RESULT_NAME: &str = "KEEPER_TOOL_RESULT_READY";
pub(super) const BATCH_BOUND_NAME: &str = "KEEPER_CHAT_BATCH_BOUND";
const APPROVAL_REQUESTED_NAME: &str = "KEEPER_TOOL_APPROVAL_REQUESTED";
const APPROVAL_SETTLED_NAME: &str = "KEEPER_TOOL_APPROVAL_SETTLED";

pub(super) const MALFORMED_EVENT: DecodeErrorKind = DecodeErrorKind::Other("malformed_event");
pub(super) const UNKNOWN_EVENT_TYPE: DecodeErrorKind = DecodeErrorKind::Other("unknown_event_type");

pub(super) fn event_path(index: usize, field: &str) -> String {
    if field.is_empty() {
        format!(".events[{index}]")
    } else {
        format!(".events[{index}].{field}")
    }
}

fn missing(index: usize, field: &str, kind: &str) -> DecodeError {
    DecodeError::new(
        MALFORMED_EVENT,
        event_path(index, field),
        format!("{kind} without {field}"),
    )
}

/// Parse one `data:` payload into the envelope (refusals: `malformed_event`,
/// `unknown_event_type`) and then into a typed event.
pub(super) fn parse_event(
    index: usize,
    data: &str,
) -> Result<(EventWire, ChatStreamEvent), DecodeError> {
    let value: serde_json::Value = serde_json::from_str(data).map_err(|e| {
        let detail = e.to_string();
        let detail = detail.split(" at line ").next().unwrap_or("").to_string();
        DecodeError::new(
            MALFORMED_EVENT,
            event_path(index, ""),
            format!("data is not JSON: {detail}"),
        )
    })?;
    if !value.is_object() {
        return Err(DecodeError::new(
            MALFORMED_EVENT,
            event_path(index, ""),
            "data is not a JSON object",
        ));
    }
    let wire: EventWire = decode_value(&value).map_err(|e| {
        DecodeError::new(
            MALFORMED_EVENT,
            event_path(index, inner_path(&e.path)),
            e.detail,
        )
    })?;
    let event = typed_event(index, &wire)?;
    Ok((wire, event))
}

fn typed_event(index: usize, wire: &EventWire) -> Result<ChatStreamEvent, DecodeError> {
    let kind = wire.kind.as_str();
    let message_id = || {
        wire.message_id
            .clone()
            .ok_or_else(|| missing(index, "messageId", kind))
    };
    let call_id = || match wire.tool_call_id.as_deref().map(str::trim) {
        Some(id) if !id.is_empty() => Ok(id.to_string()),
        _ => Err(missing(index, "toolCallId", kind)),
    };
    Ok(match kind {
        "CUSTOM" => return custom_event(index, wire),
        "RUN_STARTED" => {
            if wire.run_id.is_none() {
                return Err(missing(index, "runId", kind));
            }
            ChatStreamEvent::RunStarted
        }
        "TEXT_MESSAGE_START" => {
            if wire.role.as_deref() != Some("assistant") {
                return Err(DecodeError::new(
                    MALFORMED_EVENT,
                    event_path(index, "role"),
                    "TEXT_MESSAGE_START role is not \"assistant\"",
                ));
            }
            ChatStreamEvent::TextStart {
                message_id: message_id()?,
            }
        }
        "TEXT_MESSAGE_CONTENT" => ChatStreamEvent::TextDelta {
            message_id: message_id()?,
            delta: wire
                .delta
                .clone()
                .ok_or_else(|| missing(index, "delta", kind))?,
        },
        "TEXT_MESSAGE_END" => ChatStreamEvent::TextEnd {
            message_id: message_id()?,
        },
        "TOOL_CALL_START" => ChatStreamEvent::ToolCallStart {
            tool_call_id: wire.tool_call_id.clone(),
            tool_call_name: wire
                .tool_call_name
                .clone()
                .ok_or_else(|| missing(index, "toolCallName", kind))?,
        },
        "TOOL_CALL_ARGS" => {
            let args = match (&wire.delta, &wire.snapshot) {
                (Some(d), None) => ToolCallArgs::Delta(d.clone()),
                (None, Some(s)) => ToolCallArgs::Snapshot(s.clone()),
                _ => {
                    return Err(DecodeError::new(
                        MALFORMED_EVENT,
                        event_path(index, ""),
                        "TOOL_CALL_ARGS needs exactly one of delta / snapshot",
                    ));
                }
            };
            ChatStreamEvent::ToolCallArgs {
                tool_call_id: call_id()?,
                args,
            }
        }
        "TOOL_CALL_END" => ChatStreamEvent::ToolCallEnd {
            tool_call_id: call_id()?,
        },
        "RUN_FINISHED" => ChatStreamEvent::RunFinished,
        "RUN_ERROR" => ChatStreamEvent::RunError {
            message: wire
                .message
                .clone()
                .ok_or_else(|| missing(index, "message", kind))?,
            code: wire.code.clone().map(RunErrorCode::from_wire),
        },
        _ => {
            return Err(DecodeError::new(
                UNKNOWN_EVENT_TYPE,
                event_path(index, "type"),
                format!("unknown event type {:?}", truncate(kind)),
            ));
        }
    })
}

fn custom_event(index: usize, wire: &EventWire) -> Result<ChatStreamEvent, DecodeError> {
    let name = wire
        .name
        .clone()
        .ok_or_else(|| missing(index, "name", "CUSTOM"))?;
    let null = serde_json::Value::Null;
    let value = wire.value.as_ref().unwrap_or(&null);
    let closed_value = |e: DecodeError| {
        let inner = inner_path(&e.path);
        let field = if inner.is_empty() {
            "value".to_string()
        } else {
            format!("value.{inner}")
        };
        DecodeError::new(e.kind, event_path(index, &field), e.detail)
    };
    Ok(match name.as_str() {
        ACCEPTED_NAME => {
            let a: Acceptance = decode_value(value).map_err(closed_value)?;
            ChatStreamEvent::Accepted {
                operation_id: a.operation_id,
                state: a.state,
                queued_count: a.queued_count,
                interactive: a.interactive,
            }
        }
        REPLY_DETAILS_NAME => {
            ChatStreamEvent::ReplyDetails(decode_value(value).map_err(closed_value)?)
        }
        THINKING_NAME => ChatStreamEvent::ThinkingDelta {
            delta: value
                .as_str()
                .or_else(|| value.get("delta").and_then(|d| d.as_str()))
                .map(str::to_string),
        },
        TOOL_RESULT_NAME => ChatStreamEvent::ToolResultReady,
        BATCH_BOUND_NAME => {
            let binding: BatchBinding = decode_value(value).map_err(closed_value)?;
            for (field, id) in [
                ("operation_id", &binding.operation_id),
                ("execution_id", &binding.execution_id),
            ] {
                // MASC's `requiredString`: a blank id names nothing (the id itself is kept
                // as sent).
                if id.trim().is_empty() {
                    return Err(DecodeError::new(
                        MALFORMED_EVENT,
                        event_path(index, &format!("value.{field}")),
                        format!("{BATCH_BOUND_NAME} with a blank {field}"),
                    ));
                }
            }
            ChatStreamEvent::BatchBound(binding)
        }
        APPROVAL_REQUESTED_NAME | APPROVAL_SETTLED_NAME => approval_hint(name, value),
        _ => ChatStreamEvent::Ignored { name },
    })
}

/// A held-call hint (§15.9). Hints never fail the stream: one that names no call is ignored
/// (and traced), a missing question or outcome part stays absent.
fn approval_hint(name: String, value: &serde_json::Value) -> ChatStreamEvent {
    let text = |key: &str| value.get(key).and_then(serde_json::Value::as_str);
    let Some(tool_call_id) = text("tool_call_id").filter(|id| !id.trim().is_empty()) else {
        tracing::info!(target: "masc_tui::chat", event = %name, "held-call hint without tool_call_id ignored");
        return ChatStreamEvent::Ignored { name };
    };
    let tool_call_id = tool_call_id.to_string();
    if name == APPROVAL_REQUESTED_NAME {
        ChatStreamEvent::ToolApprovalRequested(Box::new(ToolApprovalRequest {
            tool_call_id,
            tool_call_name: text("tool_call_name").unwrap_or_default().to_string(),
            args: text("args").unwrap_or_default().to_string(),
            question: text("question").map(str::to_string),
            because: text("because").map(str::to_string),
        }))
    } else {
        ChatStreamEvent::ToolApprovalSettled(ToolApprovalSettled {
            tool_call_id,
            outcome: text("outcome").unwrap_or_default().to_string(),
        })
    }
}

/// Server text in details is cut short (the view sanitises anything shown).
pub(super) fn truncate(s: &str) -> String {
    s.chars().take(64).collect()
}

/// A decode path without its leading `.` (`"."` becomes empty), for re-rooting it.
pub(crate) fn inner_path(path: &str) -> &str {
    path.strip_prefix('.').unwrap_or(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(data: &str) -> (String, String) {
        let e = parse_event(3, data).unwrap_err();
        (e.reason().to_string(), e.path)
    }

    /// MASC's dashboard (dashboard/src/keeper-stream.ts, `TOOL_CALL_ARGS missing toolCallId`)
    /// treats an args or end event that names no call as a stream protocol error.
    #[test]
    fn tool_call_args_and_end_without_tool_call_id_are_protocol_errors_issue13_defect7() {
        let base = r#""threadId":"keeper:k","timestamp":1.0,"runId":"keeper-operation-run-r""#;
        for data in [
            format!(r#"{{"type":"TOOL_CALL_ARGS",{base},"delta":"{{}}"}}"#),
            format!(r#"{{"type":"TOOL_CALL_ARGS",{base},"toolCallId":"  ","delta":"{{}}"}}"#),
            format!(r#"{{"type":"TOOL_CALL_END",{base}}}"#),
            format!(r#"{{"type":"TOOL_CALL_END",{base},"toolCallId":""}}"#),
        ] {
            assert_eq!(
                refusal(&data),
                (
                    "malformed_event".to_string(),
                    ".events[3].toolCallId".to_string()
                ),
                "{data}"
            );
        }
        let named = format!(r#"{{"type":"TOOL_CALL_END",{base},"toolCallId":"tc-1"}}"#);
        let (_, event) = parse_event(3, &named).unwrap();
        assert_eq!(
            event,
            ChatStreamEvent::ToolCallEnd {
                tool_call_id: "tc-1".into()
            }
        );
    }
}
