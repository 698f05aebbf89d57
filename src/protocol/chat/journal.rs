//! `GET /api/v1/keepers/{name}/chat/events?operation_id=&since_seq=&limit=` (protocol-15 §15.9:
//! the turn journal of newer MASC, RFC-0412 §3.2; absent on v0.24.0 and August main).
//!
//! One page of one operation's journal: `schema` `masc.keeper_chat_events.v2`, the
//! `operation_id` echo (another operation fails the page), the lines, `has_more` and
//! `next_since_seq`. A line is `{v, seq, ts, event}`; a codec version other than 1 fails the
//! page (MASC's `Keeper_chat_events_journal.codec_version`), sequences only grow (they may have
//! gaps: events that project to nothing still take one), and `next_since_seq` never moves back.
//! An event type this build does not act on is kept by its tag; a known one whose fields do not
//! decode fails the page at its path. Errors are the route's own: 404 `unknown_operation`, 410
//! `journal_pruned` (the turn settled and its journal aged out: the transcript rows are all
//! there is), 503 `journal_unreadable` / `journal_corrupt` ([`JournalRefusal`]).

use crate::protocol::decode::{DecodeError, DecodeErrorKind, decode_json_object, decode_value};
use serde::Deserialize;
use serde_json::Value;

pub const CHAT_EVENTS_SCHEMA: &str = "masc.keeper_chat_events.v2";
/// The journal line codec this build reads.
pub const JOURNAL_CODEC_VERSION: u64 = 1;

/// One journaled event, by its snake-case `type`.
#[derive(Debug, Clone, PartialEq)]
pub enum JournalEvent {
    RunStarted {
        run_id: String,
    },
    TextMessageStart {
        message_id: String,
    },
    TextDelta {
        delta: String,
    },
    TextMessageEnd,
    RunFinished {
        run_id: String,
    },
    EventError {
        message: String,
    },
    ReplyDetails {
        reply: String,
        turn_outcome: String,
        turn_ref: String,
    },
    BatchBound {
        operation_id: String,
        execution_id: String,
    },
    ToolCallStart {
        tool_call_id: Option<String>,
        tool_call_name: String,
    },
    ToolCallEnd {
        tool_call_id: Option<String>,
    },
    ToolApprovalRequested {
        tool_call_id: String,
    },
    ToolApprovalSettled {
        tool_call_id: String,
        outcome: String,
    },
    /// A type this build does not act on (stream details, display blocks, checkpoints, …).
    Other {
        kind: String,
    },
}

/// One journal line.
#[derive(Debug, Clone, PartialEq)]
pub struct JournalLine {
    pub seq: u64,
    pub ts: f64,
    pub event: JournalEvent,
}

/// One page of an operation's journal.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatEventsPage {
    pub operation_id: String,
    pub events: Vec<JournalLine>,
    pub has_more: bool,
    pub next_since_seq: u64,
}

impl ChatEventsPage {
    /// The terminal event of the turn in this page, if it holds one.
    pub fn terminal(&self) -> Option<&JournalLine> {
        self.events.iter().find(|l| {
            matches!(
                l.event,
                JournalEvent::RunFinished { .. } | JournalEvent::EventError { .. }
            )
        })
    }
}

/// A refusal the route defines (a typed answer, not a failed read).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JournalRefusal {
    /// 404 `unknown_operation`.
    UnknownOperation,
    /// 410 `journal_pruned`: the turn settled and its journal aged out.
    Pruned,
    /// 503 `journal_unreadable` / `journal_corrupt`.
    Unreadable,
}

impl JournalRefusal {
    /// The refusal a status and body name, if they are one the route defines.
    pub fn of(status: u16, body: &[u8]) -> Option<Self> {
        let error = serde_json::from_slice::<Value>(body)
            .ok()
            .and_then(|v| v.get("error").and_then(Value::as_str).map(str::to_string));
        match (status, error.as_deref()) {
            (404, Some("unknown_operation")) => Some(Self::UnknownOperation),
            (410, _) => Some(Self::Pruned),
            (503, Some("journal_unreadable" | "journal_corrupt")) => Some(Self::Unreadable),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::UnknownOperation => "unknown_operation",
            Self::Pruned => "journal_pruned",
            Self::Unreadable => "journal_unreadable",
        }
    }
}

#[derive(Deserialize)]
struct PageWire {
    schema: String,
    operation_id: String,
    events: Vec<Value>,
    has_more: bool,
    next_since_seq: u64,
}

#[derive(Deserialize)]
struct LineWire {
    v: u64,
    seq: u64,
    ts: f64,
    event: Value,
}

fn invalid(path: String, detail: impl Into<String>) -> DecodeError {
    DecodeError::new(DecodeErrorKind::InvalidValue, path, detail)
}

impl ChatEventsPage {
    /// Decodes the page asked for `operation_id` after `since_seq` (absent: the whole
    /// journal).
    pub fn decode_for(
        bytes: &[u8],
        operation_id: &str,
        since_seq: Option<u64>,
    ) -> Result<Self, DecodeError> {
        let w: PageWire = decode_json_object(bytes)?;
        if w.schema != CHAT_EVENTS_SCHEMA {
            return Err(invalid(
                ".schema".into(),
                format!("schema is not {CHAT_EVENTS_SCHEMA}"),
            ));
        }
        if w.operation_id != operation_id {
            return Err(DecodeError::new(
                DecodeErrorKind::EchoMismatch,
                ".operation_id",
                "a journal of another operation",
            ));
        }
        let mut events = Vec::with_capacity(w.events.len());
        let mut last = since_seq;
        for (i, raw) in w.events.iter().enumerate() {
            let at = format!(".events[{i}]");
            let line: LineWire = decode_value(raw).map_err(|e| e.under(&at))?;
            if line.v != JOURNAL_CODEC_VERSION {
                return Err(invalid(
                    format!("{at}.v"),
                    format!("journal codec {} is not {JOURNAL_CODEC_VERSION}", line.v),
                ));
            }
            if last.is_some_and(|l| line.seq <= l) {
                return Err(invalid(
                    format!("{at}.seq"),
                    "a sequence at or before the previous one",
                ));
            }
            last = Some(line.seq);
            events.push(JournalLine {
                seq: line.seq,
                ts: line.ts,
                event: event(&line.event).map_err(|e| e.under(&format!("{at}.event")))?,
            });
        }
        if last.is_some_and(|l| w.next_since_seq < l) {
            return Err(invalid(
                ".next_since_seq".into(),
                "next_since_seq before the last line",
            ));
        }
        Ok(Self {
            operation_id: w.operation_id,
            events,
            has_more: w.has_more,
            next_since_seq: w.next_since_seq,
        })
    }
}

impl ChatEventsPage {
    /// Decodes a page read without a request to hold it to (`masc-tui decode --as
    /// keeper_chat_events`): its own `operation_id` is the echo and no `since_seq` was asked.
    pub fn decode_standalone(bytes: &[u8]) -> Result<Self, DecodeError> {
        #[derive(Deserialize)]
        struct Echo {
            operation_id: String,
        }
        let Echo { operation_id } = decode_json_object(bytes)?;
        Self::decode_for(bytes, &operation_id, None)
    }
}

fn event(v: &Value) -> Result<JournalEvent, DecodeError> {
    #[derive(Deserialize)]
    struct Tag {
        #[serde(rename = "type")]
        kind: String,
    }
    #[derive(Deserialize)]
    struct Run {
        run_id: String,
    }
    #[derive(Deserialize)]
    struct Start {
        message_id: String,
    }
    #[derive(Deserialize)]
    struct Delta {
        delta: String,
    }
    #[derive(Deserialize)]
    struct Error {
        message: String,
    }
    #[derive(Deserialize)]
    struct Reply {
        reply: String,
        turn_outcome: String,
        turn_ref: String,
    }
    #[derive(Deserialize)]
    struct Bound {
        operation_id: String,
        execution_id: String,
    }
    #[derive(Deserialize)]
    struct ToolStart {
        #[serde(default)]
        tool_call_id: Option<String>,
        tool_call_name: String,
    }
    #[derive(Deserialize)]
    struct ToolEnd {
        #[serde(default)]
        tool_call_id: Option<String>,
    }
    #[derive(Deserialize)]
    struct Asked {
        tool_call_id: String,
    }
    #[derive(Deserialize)]
    struct Settled {
        tool_call_id: String,
        outcome: String,
    }
    let Tag { kind } = decode_value(v)?;
    Ok(match kind.as_str() {
        "run_started" => JournalEvent::RunStarted {
            run_id: decode_value::<Run>(v)?.run_id,
        },
        "text_message_start" => JournalEvent::TextMessageStart {
            message_id: decode_value::<Start>(v)?.message_id,
        },
        "text_delta" => JournalEvent::TextDelta {
            delta: decode_value::<Delta>(v)?.delta,
        },
        "text_message_end" => JournalEvent::TextMessageEnd,
        "run_finished" => JournalEvent::RunFinished {
            run_id: decode_value::<Run>(v)?.run_id,
        },
        "event_error" => JournalEvent::EventError {
            message: decode_value::<Error>(v)?.message,
        },
        "reply_details" => {
            let r: Reply = decode_value(v)?;
            JournalEvent::ReplyDetails {
                reply: r.reply,
                turn_outcome: r.turn_outcome,
                turn_ref: r.turn_ref,
            }
        }
        "batch_bound" => {
            let b: Bound = decode_value(v)?;
            JournalEvent::BatchBound {
                operation_id: b.operation_id,
                execution_id: b.execution_id,
            }
        }
        "tool_call_start" => {
            let t: ToolStart = decode_value(v)?;
            JournalEvent::ToolCallStart {
                tool_call_id: t.tool_call_id,
                tool_call_name: t.tool_call_name,
            }
        }
        "tool_call_end" => JournalEvent::ToolCallEnd {
            tool_call_id: decode_value::<ToolEnd>(v)?.tool_call_id,
        },
        "tool_approval_requested" => JournalEvent::ToolApprovalRequested {
            tool_call_id: decode_value::<Asked>(v)?.tool_call_id,
        },
        "tool_approval_settled" => {
            let s: Settled = decode_value(v)?;
            JournalEvent::ToolApprovalSettled {
                tool_call_id: s.tool_call_id,
                outcome: s.outcome,
            }
        }
        _ => JournalEvent::Other { kind },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = r#"{"schema":"masc.keeper_chat_events.v2","operation_id":"tui-1","has_more":false,"next_since_seq":9,"events":[
        {"v":1,"seq":3,"ts":1.0,"event":{"type":"run_started","run_id":"r","thread_id":"t"}},
        {"v":1,"seq":5,"ts":2.0,"event":{"type":"text_message_start","message_id":"m","role":"assistant"}},
        {"v":1,"seq":6,"ts":2.1,"event":{"type":"text_delta","delta":"done"}},
        {"v":1,"seq":7,"ts":2.2,"event":{"type":"agent_core_stream_ping"}},
        {"v":1,"seq":8,"ts":2.3,"event":{"type":"reply_details","reply":"done","turn_outcome":"visible_reply","turn_ref":"trace-a#1"}},
        {"v":1,"seq":9,"ts":2.4,"event":{"type":"run_finished","run_id":"r"}}
    ]}"#;

    /// §15.9: a page decodes with gaps in its sequences, unknown event types kept by tag, and
    /// its terminal event found.
    #[test]
    fn s15_9_a_journal_page_decodes_with_gaps_and_unknown_types() {
        let p = ChatEventsPage::decode_for(PAGE.as_bytes(), "tui-1", Some(2)).unwrap();
        assert_eq!(p.events.len(), 6);
        assert_eq!(
            p.events[3].event,
            JournalEvent::Other {
                kind: "agent_core_stream_ping".into()
            }
        );
        assert_eq!(p.terminal().map(|l| l.seq), Some(9));
    }

    /// §15.14: another operation echoed, another codec version, a sequence at or before the
    /// asked `since_seq`, a known event without its fields: the page fails at that path.
    #[test]
    fn s15_14_journal_faults_fail_the_page_at_their_path() {
        let e = ChatEventsPage::decode_for(PAGE.as_bytes(), "tui-2", None).unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::EchoMismatch);
        let v2 = PAGE.replacen(r#""v":1,"seq":5"#, r#""v":2,"seq":5"#, 1);
        assert_eq!(
            ChatEventsPage::decode_for(v2.as_bytes(), "tui-1", None)
                .unwrap_err()
                .path,
            ".events[1].v"
        );
        assert_eq!(
            ChatEventsPage::decode_for(PAGE.as_bytes(), "tui-1", Some(3))
                .unwrap_err()
                .path,
            ".events[0].seq"
        );
        let bad = PAGE.replacen(r#""delta":"done""#, r#""delta":7"#, 1);
        assert!(
            ChatEventsPage::decode_for(bad.as_bytes(), "tui-1", None)
                .unwrap_err()
                .path
                .starts_with(".events[2].event")
        );
        assert_eq!(
            JournalRefusal::of(410, br#"{"error":"journal_pruned"}"#),
            Some(JournalRefusal::Pruned)
        );
        assert_eq!(
            JournalRefusal::of(503, br#"{"error":"journal_corrupt"}"#),
            Some(JournalRefusal::Unreadable)
        );
        assert_eq!(JournalRefusal::of(503, b"busy"), None);
    }
}
