//! Chat stream events (protocol.md §4.3) into transcript entries, one live turn at a time.
//!
//! Live and settled blocks go through the same projection (C-50): this only writes entries.
//! The group key of a live turn is the full request id (C-17); the Keeper's `turn_ref`
//! replaces it when the reply details name it.

use super::model::{CallState, Entry, EntryKind, FailureOrigin, Speaker, ToolCall, Transcript};
use crate::protocol::chat::{ChatStreamEvent, OperationProgress, ToolCallArgs};
use std::sync::Arc;

/// The status row of a turn stopped at a request before its reply (`<request id>:error`),
/// live and in a rebuilt chat.
pub const STOPPED_BEFORE_REPLY: &str = "interrupted · the turn was stopped before its reply";

/// Assembles the entries of one streamed turn.
#[derive(Debug, Clone)]
pub struct LiveTurn {
    /// Shared by every entry of the turn (its turn key and request id until the reply
    /// details name the turn).
    request_id: Arc<str>,
    /// Shared by every Keeper entry of the turn.
    keeper: Arc<str>,
    /// Entry ids created by this turn, in order.
    created: Vec<String>,
    thinking: Option<String>,
    /// Tool entry ids by their wire call id (or position when the wire gave none).
    calls: Vec<(Option<String>, String)>,
    text_seen: bool,
    /// Message ids of the streamed text of this turn: partial until the reply details name
    /// the reply; never a reply when the run fails.
    texts: Vec<String>,
    seq: u32,
}

impl LiveTurn {
    pub fn new(request_id: impl Into<String>, keeper: impl Into<String>) -> Self {
        Self {
            request_id: Arc::from(request_id.into()),
            keeper: Arc::from(keeper.into()),
            created: Vec::new(),
            thinking: None,
            calls: Vec::new(),
            text_seen: false,
            texts: Vec::new(),
            seq: 0,
        }
    }

    pub fn request_id(&self) -> &str {
        &self.request_id
    }

    fn next_id(&mut self, what: &str) -> String {
        self.seq += 1;
        format!("{}:{what}:{}", self.request_id, self.seq)
    }

    fn insert(&mut self, transcript: &mut Transcript, entry: Entry, ts: f64) -> String {
        let id = entry.id.to_string();
        let entry = entry
            .with_ts(ts)
            .with_turn(Arc::clone(&self.request_id))
            .with_request(Arc::clone(&self.request_id));
        transcript.upsert(entry);
        self.created.push(id.clone());
        id
    }

    /// The tool entry of a wire call id (TOOL_CALL_ARGS / TOOL_CALL_END always name one).
    fn call_entry(&self, call_id: &str) -> Option<String> {
        self.calls
            .iter()
            .find(|(wire, _)| wire.as_deref() == Some(call_id))
            .map(|(_, id)| id.clone())
    }

    fn keeper(&self) -> Speaker {
        Speaker::Keeper {
            name: Arc::clone(&self.keeper),
            owner: true,
        }
    }

    /// Applies one validated event; `ts` is the receive time (unix seconds).
    pub fn apply(&mut self, transcript: &mut Transcript, event: &ChatStreamEvent, ts: f64) {
        match event {
            ChatStreamEvent::ThinkingDelta { delta: Some(delta) } => {
                let id = match &self.thinking {
                    Some(id) => id.clone(),
                    None => {
                        let id = self.next_id("thinking");
                        let entry = Entry::new(id, self.keeper(), EntryKind::Thinking, "");
                        let id = self.insert(transcript, entry, ts);
                        self.thinking = Some(id.clone());
                        id
                    }
                };
                transcript.update(&id, |e| e.text.push_str(delta));
            }
            ChatStreamEvent::TextStart { message_id } => {
                self.thinking = None;
                self.text_seen = true;
                if transcript.get(message_id).is_none() {
                    let mut entry =
                        Entry::new(message_id.clone(), self.keeper(), EntryKind::Utterance, "");
                    entry.open = true;
                    self.insert(transcript, entry, ts);
                    self.texts.push(message_id.clone());
                }
            }
            ChatStreamEvent::TextDelta { message_id, delta } => {
                transcript.update(message_id, |e| e.text.push_str(delta));
            }
            ChatStreamEvent::TextEnd { message_id } => {
                transcript.update(message_id, |e| {
                    e.open = false;
                    // The streamed text grew by doubling; a settled entry keeps its bytes only
                    // (100k entries' slack would be megabytes).
                    e.text.shrink_to_fit();
                    e.refresh_reports();
                });
            }
            ChatStreamEvent::ToolCallStart {
                tool_call_id,
                tool_call_name,
            } => {
                self.thinking = None;
                let id = self.next_id("tool");
                let call = ToolCall {
                    call_id: tool_call_id.as_deref().map(Into::into),
                    name: tool_call_name.as_str().into(),
                    state: CallState::ArgsStreaming,
                    args: None,
                    duration_ms: None,
                    turn_stopped: None,
                };
                let entry = Entry::new(id, Speaker::Tool, EntryKind::ToolCall(Box::new(call)), "");
                let id = self.insert(transcript, entry, ts);
                self.calls.push((tool_call_id.clone(), id));
            }
            ChatStreamEvent::ToolCallArgs { tool_call_id, args } => {
                if let Some(id) = self.call_entry(tool_call_id) {
                    transcript.update(&id, |e| {
                        if let EntryKind::ToolCall(call) = &mut e.kind {
                            match args {
                                ToolCallArgs::Delta(d) => {
                                    call.args.get_or_insert_with(String::new).push_str(d)
                                }
                                ToolCallArgs::Snapshot(v) => call.args = Some(v.to_string()),
                            }
                        }
                    });
                }
            }
            ChatStreamEvent::ToolCallEnd { tool_call_id } => {
                if let Some(id) = self.call_entry(tool_call_id) {
                    set_call_state(transcript, &id, |s| {
                        (s == CallState::ArgsStreaming).then_some(CallState::AwaitingResult)
                    });
                }
            }
            ChatStreamEvent::ToolResultReady => {
                // The event names no call: the oldest call still waiting takes it.
                let waiting = self
                    .calls
                    .iter()
                    .find(|(_, id)| call_state(transcript, id) == Some(CallState::AwaitingResult));
                if let Some((_, id)) = waiting.cloned() {
                    set_call_state(transcript, &id, |_| Some(CallState::ResultReceived));
                }
            }
            ChatStreamEvent::ReplyDetails(details) => {
                if !self.text_seen && !details.reply.is_empty() {
                    let id = format!("{}:reply", self.request_id);
                    let entry = Entry::new(
                        id,
                        self.keeper(),
                        EntryKind::Utterance,
                        details.reply.clone(),
                    );
                    self.insert(transcript, entry, ts);
                }
                for id in &self.created {
                    transcript.update(id, |e| {
                        e.turn_ref = Some(Arc::from(details.turn_ref.as_str()))
                    });
                }
            }
            ChatStreamEvent::RunError { message, code } => {
                let code = code.as_ref().map(|c| c.as_str().to_string());
                let stopped = code
                    .as_deref()
                    .is_some_and(|c| c.eq_ignore_ascii_case("turn_cancelled"));
                self.drop_partial_text(transcript, ts, stopped);
                let id = format!("{}:error", self.request_id);
                // MASC ends a stopped turn with `RUN_ERROR` code `Turn_cancelled`: the turn
                // was interrupted, a status (`○`), not an error (C-9: the type decides).
                let entry = if stopped {
                    Entry::new(id, Speaker::System, EntryKind::Status, STOPPED_BEFORE_REPLY)
                } else {
                    Entry::new(
                        id,
                        Speaker::System,
                        EntryKind::Failure(FailureOrigin::Run {
                            code: code.map(String::into_boxed_str),
                        }),
                        message.clone(),
                    )
                };
                // §15.9: the history already holds this send's failure under its request id
                // (delivery_key `operation`): one failure row, not two.
                let recorded = transcript.entries().iter().any(|e| {
                    matches!(e.kind, EntryKind::Failure(FailureOrigin::Transport))
                        && e.origin.request_id.as_deref() == Some(&*self.request_id)
                });
                if !recorded {
                    self.insert(transcript, entry, ts);
                }
                self.close_calls(transcript);
            }
            ChatStreamEvent::RunFinished => self.close_calls(transcript),
            ChatStreamEvent::Accepted { .. }
            | ChatStreamEvent::RunStarted
            | ChatStreamEvent::ThinkingDelta { delta: None }
            | ChatStreamEvent::BatchBound(_)
            | ChatStreamEvent::ToolApprovalRequested(_)
            | ChatStreamEvent::ToolApprovalSettled(_)
            | ChatStreamEvent::Ignored { .. } => {}
        }
    }

    /// `RUN_ERROR` after text deltas: the streamed text was never the reply (§4.3: only the
    /// reply details are; seed 001 shows a request failure as its own type, never as the
    /// Keeper's speech; C-2 `●` is the thing itself, C-9 the row's type decides). Its rows
    /// leave the Keeper's lane and one status row (`○`) says how much partial text was not
    /// kept — the same rule as a stream cut without a terminal event.
    fn drop_partial_text(&mut self, transcript: &mut Transcript, ts: f64, stopped: bool) {
        let mut dropped = 0usize;
        for id in std::mem::take(&mut self.texts) {
            if let Some(entry) = transcript.get(&id) {
                dropped += entry.text.len();
            }
            transcript.remove(&id);
            self.created.retain(|c| c != &id);
        }
        if dropped == 0 {
            return;
        }
        let id = format!("{}:partial", self.request_id);
        let entry = Entry::new(
            id,
            Speaker::System,
            EntryKind::Status,
            if stopped {
                format!(
                    "the turn stopped before its reply · {dropped} bytes of partial text not kept"
                )
            } else {
                format!(
                    "the run failed before its reply · {dropped} bytes of partial text not kept"
                )
            },
        );
        self.insert(transcript, entry, ts);
    }

    /// At the end of the run a call still without a result was never seen returning.
    fn close_calls(&self, transcript: &mut Transcript) {
        for (_, id) in &self.calls {
            set_call_state(transcript, id, |s| {
                matches!(s, CallState::ArgsStreaming | CallState::AwaitingResult)
                    .then_some(CallState::NotSeen)
            });
        }
    }
}

/// A send whose outcome was unknown (a stream refused or cut, a restored send) is settled by
/// its operation record (§4.4): the note that said "outcome unknown" is replaced by what the
/// record says. A cancelled turn (`Cancelled`, or `Failed` with MASC's `Turn_cancelled`) reads
/// as cancelled — a status (`○`), not an error (C-9: the record's type decides); another
/// failure is an error row; a success says it was confirmed (the history reload that follows
/// brings the reply). Queued and Running change nothing. Returns whether a row was written.
pub fn settle_unknown_note(
    transcript: &mut Transcript,
    request_id: &str,
    progress: &OperationProgress,
) -> bool {
    let (kind, text) = match progress {
        OperationProgress::Queued | OperationProgress::Running { .. } => return false,
        p if p.is_cancellation() => (
            EntryKind::Status,
            "cancelled · the operation record says the turn was stopped before its reply"
                .to_string(),
        ),
        OperationProgress::Failed {
            failure_kind,
            failure_detail,
            ..
        } => (
            EntryKind::Failure(FailureOrigin::Other("operation".into())),
            match failure_detail.as_str().filter(|d| !d.trim().is_empty()) {
                Some(detail) => format!("failed ({failure_kind}) · no reply · {detail}"),
                None => format!("failed ({failure_kind}) · no reply"),
            },
        ),
        OperationProgress::Cancelled { .. } => (
            EntryKind::Status,
            "cancelled · the operation record says the turn was stopped".to_string(),
        ),
        OperationProgress::Succeeded { .. } => (
            EntryKind::Status,
            "delivered · the operation record confirms the turn succeeded".to_string(),
        ),
    };
    for stale in ["protocol", "interrupted"] {
        transcript.remove(&format!("{request_id}:{stale}"));
    }
    transcript.upsert(
        Entry::new(format!("{request_id}:settled"), Speaker::System, kind, text)
            .with_request(request_id.to_string()),
    );
    true
}

fn call_state(transcript: &Transcript, id: &str) -> Option<CallState> {
    match &transcript.get(id)?.kind {
        EntryKind::ToolCall(call) => Some(call.state),
        _ => None,
    }
}

fn set_call_state(
    transcript: &mut Transcript,
    id: &str,
    next: impl FnOnce(CallState) -> Option<CallState>,
) {
    let Some(current) = call_state(transcript, id) else {
        return;
    };
    if let Some(state) = next(current) {
        transcript.update(id, |e| {
            if let EntryKind::ToolCall(call) = &mut e.kind {
                call.state = state;
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::chat::RunErrorCode;
    use crate::view::theme::Theme;
    use crate::view::transcript::marks::Role;
    use crate::view::transcript::{ScrollPosition, TranscriptView};

    const T0: f64 = 1_787_000_000.0;

    fn rendered(t: Transcript) -> Vec<String> {
        let mut v = TranscriptView::new(t, Theme::plain());
        v.render(80, 10, ScrollPosition::FromTop(0))
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    fn run_until_error(texts: &[&str]) -> Transcript {
        let mut t = Transcript::new();
        let mut live = LiveTurn::new("tui-1", "alpha");
        let mut events = vec![
            ChatStreamEvent::RunStarted,
            ChatStreamEvent::TextStart {
                message_id: "m-1".into(),
            },
        ];
        events.extend(texts.iter().map(|d| ChatStreamEvent::TextDelta {
            message_id: "m-1".into(),
            delta: (*d).to_string(),
        }));
        events.push(ChatStreamEvent::RunError {
            message: "provider timed out".into(),
            code: Some(RunErrorCode::Unlisted("provider_timeout".into())),
        });
        for e in &events {
            live.apply(&mut t, e, T0);
        }
        t
    }

    /// MASC's fixture `keeper_chat_stream__run_error_after_partial_delta.sse`
    /// (test_run_error_never_returns_partial_delta): the accepted turn fails after a delta.
    #[test]
    fn c2_c9_run_error_mid_reply_never_draws_partial_text_as_a_reply_issue13_defect4() {
        let t = run_until_error(&["half an ", "answer"]);
        assert!(
            t.entries().iter().all(|e| Role::of(e) != Role::Keeper),
            "no Keeper speech row survives a failed run: {:?}",
            t.entries()
        );
        assert!(t.get("m-1").is_none());
        let status = t
            .get("tui-1:partial")
            .expect("a status row names the partial text");
        assert_eq!(Role::of(status), Role::Status);
        assert!(status.text.contains("14 bytes of partial text not kept"));
        assert!(matches!(
            t.get("tui-1:error").map(|e| &e.kind),
            Some(EntryKind::Failure(FailureOrigin::Run { .. }))
        ));
        let rows = rendered(t);
        assert!(
            rows.iter().all(|r| !r.contains('●')),
            "the reply mark is never drawn: {rows:?}"
        );
        assert!(rows.iter().all(|r| !r.contains("half an")));
        assert!(
            rows.iter()
                .any(|r| r.contains('✗') && r.contains("provider timed out"))
        );
    }

    /// A cancelled turn: `RUN_FINISHED` without `KEEPER_REPLY_DETAILS` (the stream is refused,
    /// `missing_reply_details`, outcome unknown), then the §4.4 record MASC writes for it
    /// (`Failed`, `Turn_cancelled`, `outcome_ref: null`). Once the record says so the chat
    /// reads "cancelled", not "chat stream refused … outcome unknown", and nothing is pending.
    #[test]
    fn c9_a_cancelled_turn_reads_as_cancelled_once_the_record_says_so_issue13_defect5() {
        use crate::actors::chat::ChatSlot;
        use crate::actors::chat::{
            ChatObservation, Reconciliation, SendOutcome, SendStep, UnknownCause,
        };
        use crate::actors::contract::Ticket;
        use crate::protocol::chat::{ChatOperationRecord, OperationState};
        use crate::view::chat::ChatPane;
        use crate::view::sample;

        let id = "tui-0190f5a0-0000-7000-8000-00000000cc01";
        let t = Ticket {
            slot: ChatSlot::Send {
                keeper: "rondo".into(),
                request_id: id.into(),
            },
            generation: 3,
            scope: sample::scope(1),
        };
        let mut pane = ChatPane::new("rondo", Some(sample::scope(1).workspace), Theme::default());
        pane.register_send(id, "stop after this");
        let step = |pane: &mut ChatPane, step: SendStep| {
            pane.apply(
                &t,
                ChatObservation::Send {
                    request_id: id.into(),
                    step,
                },
            );
        };
        step(
            &mut pane,
            SendStep::Accepted {
                state: OperationState::Queued,
                interactive: None,
            },
        );
        step(&mut pane, SendStep::Event(ChatStreamEvent::RunStarted));
        step(
            &mut pane,
            SendStep::Event(ChatStreamEvent::TextStart {
                message_id: "m-1".into(),
            }),
        );
        step(
            &mut pane,
            SendStep::Ended(SendOutcome::OutcomeUnknown {
                cause: UnknownCause::ProtocolError {
                    reason: "missing_reply_details".into(),
                },
                accepted: true,
            }),
        );
        let before = pane
            .view()
            .transcript()
            .get(&format!("{id}:protocol"))
            .map(|e| e.text.clone());
        assert!(
            before.is_some_and(|t| t.contains("outcome unknown")),
            "until the record is read the outcome is unknown"
        );
        assert!(pane.send(id).is_some_and(|s| s.outcome_unknown()));

        let record = format!(
            r#"{{"schema":"masc.keeper_chat_operation.v1","operation_id":"{id}","sequence":"9","created_at":1.0,"execution_digest":"e","source":{{}},"input":null,"state":"Failed","completed_at":2.0,"failure_kind":"Turn_cancelled","failure_detail":"cancelled by operator","outcome_ref":null}}"#
        );
        let record = ChatOperationRecord::decode_for(record.as_bytes(), id).unwrap();
        pane.apply(
            &t,
            ChatObservation::Reconciled {
                request_id: id.into(),
                result: Reconciliation::Found(Box::new(record)),
            },
        );
        assert!(pane.send(id).is_some_and(|s| !s.outcome_unknown()));
        assert_eq!(pane.send(id).and_then(|s| s.pending_state()), None);
        let view = pane.view();
        let transcript = view.transcript();
        assert!(transcript.get(&format!("{id}:protocol")).is_none());
        let settled = transcript
            .get(&format!("{id}:settled"))
            .expect("a settled row replaces the unknown one");
        assert_eq!(Role::of(settled), Role::Status);
        assert!(settled.text.starts_with("cancelled"));
        assert!(
            transcript
                .entries()
                .iter()
                .all(|e| !e.text.contains("outcome unknown")),
            "{:?}",
            transcript.entries()
        );
    }

    #[test]
    fn settling_a_record_that_is_still_running_changes_nothing() {
        let mut t = Transcript::new();
        assert!(!settle_unknown_note(
            &mut t,
            "tui-1",
            &OperationProgress::Running { started_at: 1.0 }
        ));
        assert!(t.entries().is_empty());
        assert!(settle_unknown_note(
            &mut t,
            "tui-1",
            &OperationProgress::Failed {
                completed_at: 2.0,
                outcome_ref: None,
                failure_kind: "Interrupted_by_restart".into(),
                failure_detail: serde_json::json!("server restarted"),
            }
        ));
        let row = t.get("tui-1:settled").unwrap();
        assert_eq!(Role::of(row), Role::Error);
        assert!(row.text.contains("Interrupted_by_restart"));
    }

    #[test]
    fn run_error_before_any_text_adds_no_partial_row() {
        let t = run_until_error(&[]);
        assert!(t.get("tui-1:partial").is_none());
        assert!(t.get("tui-1:error").is_some());
    }
}
