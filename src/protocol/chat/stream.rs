//! The chat stream validator (protocol.md §4.3): an incremental state machine over SSE frames
//! that yields typed events and enforces the order and identity rules, and the typed outcome
//! at end of stream.

use super::events::{
    ACCEPTED_NAME, ChatStreamEvent, EventWire, MALFORMED_EVENT, OperationState, ReplyDetails,
    RunErrorCode, event_path, parse_event, truncate,
};
use crate::protocol::decode::{DecodeError, DecodeErrorKind};
use crate::protocol::sse::{SseFrame, SseFramer};

/// The thread id the acceptance carries (it is sent before the operation is bound to a keeper).
const ACCEPTANCE_THREAD: &str = "default";
const THREAD_PREFIX: &str = "keeper:";
const RUN_PREFIX: &str = "keeper-operation-run-";

const IDENTITY_MISMATCH: DecodeErrorKind = DecodeErrorKind::Other("event_identity_mismatch");

/// How a chat stream ended, judged at end of stream.
#[derive(Debug, Clone, PartialEq)]
pub enum ChatStreamOutcome {
    /// `RUN_FINISHED` after `KEEPER_REPLY_DETAILS`: the reply is `reply.reply` (possibly empty).
    Completed {
        operation_id: String,
        reply: ReplyDetails,
        /// The acceptance state when it was already terminal (a replayed operation whose
        /// buffered completion followed); `None` for a live turn.
        replayed_from: Option<OperationState>,
    },
    /// `RUN_ERROR`. Before the acceptance with a code of [`RunErrorCode::proves_not_applied`]
    /// it is a verified "not applied"; otherwise the turn failed after it was accepted, or
    /// (pre-acceptance with another code) its application is unknown.
    Failed {
        pre_acceptance: bool,
        code: Option<RunErrorCode>,
        message: String,
    },
    /// A re-POST of a finished operation answered only with its terminal acceptance state.
    ReplayedTerminal {
        operation_id: String,
        state: OperationState,
    },
    /// No terminal event: outcome unknown, reconcile with §4.4. Partial text is never a reply;
    /// only its length is kept.
    Interrupted {
        accepted: bool,
        partial_text_len: usize,
    },
}

impl ChatStreamOutcome {
    /// `Failed` before the acceptance with one of the four proving codes (§11: not applied).
    pub fn verified_not_applied(&self) -> bool {
        matches!(self, Self::Failed { pre_acceptance: true, code: Some(c), .. } if c.proves_not_applied())
    }

    /// The fixture-manifest reject name for every outcome that is not a usable reply.
    pub fn reject_reason(&self) -> Option<&'static str> {
        match self {
            Self::Completed { .. } => None,
            Self::Failed {
                pre_acceptance: true,
                ..
            } => Some("run_failed_pre_acceptance"),
            Self::Failed { .. } => Some("run_failed"),
            Self::ReplayedTerminal { state, .. } => match state {
                OperationState::Failed => Some("replayed_failed"),
                OperationState::Cancelled => Some("replayed_cancelled"),
                _ => None,
            },
            Self::Interrupted { .. } => Some("stream_interrupted"),
        }
    }
}

#[derive(Debug, Clone)]
enum Terminal {
    Finished,
    Error {
        pre_acceptance: bool,
        code: Option<RunErrorCode>,
        message: String,
    },
}

/// Incremental validator. Feed frames with [`ChatStreamValidator::push_frame`]; call
/// [`ChatStreamValidator::finish`] at end of stream. The first refusal is sticky.
#[derive(Debug, Clone)]
pub struct ChatStreamValidator {
    request_id: Option<String>,
    keeper: Option<String>,
    events_seen: usize,
    acceptance: Option<OperationState>,
    events_after_acceptance: usize,
    run_started: bool,
    reply: Option<ReplyDetails>,
    terminal: Option<Terminal>,
    partial_text_len: usize,
    refused: Option<DecodeError>,
    /// A cut stream was re-opened with `since_seq` (§4.3, newer MASC): its first event must be
    /// its own acceptance, checked like the first stream's.
    awaiting_resume_acceptance: bool,
    /// The acceptance state of the newest resumed stream.
    resumed_state: Option<OperationState>,
}

/// Why a cut stream cannot be resumed by this validator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResumeRefusal {
    /// No acceptance was received: nothing proves the operation exists (never re-posted).
    NotAccepted,
    /// The stream already ended with its terminal event.
    Ended,
    /// The stream broke the §4.3 rules: it is not trusted any further.
    Refused,
}

impl ChatStreamValidator {
    /// `request_id` / `keeper`: what was POSTed. `None` (the decode CLI) learns the request id
    /// from the acceptance and the keeper from the first keeper-thread event.
    pub fn new(request_id: Option<&str>, keeper: Option<&str>) -> Self {
        Self {
            request_id: request_id.map(str::to_string),
            keeper: keeper.map(str::to_string),
            events_seen: 0,
            acceptance: None,
            events_after_acceptance: 0,
            run_started: false,
            reply: None,
            terminal: None,
            partial_text_len: 0,
            refused: None,
            awaiting_resume_acceptance: false,
            resumed_state: None,
        }
    }

    /// Continue this turn on a resumed stream (a re-POST of the same request id with
    /// `since_seq`, §4.3): what was read stays (the reply details, `RUN_STARTED`, the partial
    /// text), the resumed stream must open with its own acceptance of the same operation, and
    /// the events after it continue this stream's order. Refused when there is nothing to
    /// resume.
    pub fn resume(&mut self) -> Result<(), ResumeRefusal> {
        if self.refused.is_some() {
            return Err(ResumeRefusal::Refused);
        }
        if self.terminal.is_some() {
            return Err(ResumeRefusal::Ended);
        }
        if self.acceptance.is_none() {
            return Err(ResumeRefusal::NotAccepted);
        }
        self.awaiting_resume_acceptance = true;
        Ok(())
    }

    /// Waiting for the acceptance of a resumed stream.
    pub fn awaiting_resume_acceptance(&self) -> bool {
        self.awaiting_resume_acceptance
    }

    /// The acceptance state of the newest resumed stream, if any.
    pub fn resumed_state(&self) -> Option<OperationState> {
        self.resumed_state
    }

    /// The acceptance state, once received.
    pub fn acceptance(&self) -> Option<OperationState> {
        self.acceptance
    }

    /// Validate one frame. `Ok(None)` for a frame without data (nothing to dispatch).
    pub fn push_frame(&mut self, frame: &SseFrame) -> Result<Option<ChatStreamEvent>, DecodeError> {
        if let Some(err) = &self.refused {
            return Err(err.clone());
        }
        if frame.data.is_empty() {
            return Ok(None);
        }
        let index = self.events_seen;
        self.events_seen += 1;
        let result = parse_event(index, &frame.data).and_then(|(wire, event)| {
            self.apply(index, &wire, &event)?;
            Ok(event)
        });
        match result {
            Ok(event) => Ok(Some(event)),
            Err(err) => {
                self.refused = Some(err.clone());
                Err(err)
            }
        }
    }

    fn apply(
        &mut self,
        index: usize,
        wire: &EventWire,
        event: &ChatStreamEvent,
    ) -> Result<(), DecodeError> {
        if self.terminal.is_some() {
            return Err(order_error(
                "event_after_terminal",
                index,
                "an event after the terminal event",
            ));
        }
        let Some(state) = self.acceptance else {
            return self.apply_before_acceptance(index, wire, event);
        };
        if self.awaiting_resume_acceptance {
            return self.apply_resume_acceptance(index, wire, event);
        }
        if let ChatStreamEvent::Accepted { .. } = event {
            return Err(order_error(
                "duplicate_acceptance",
                index,
                "a second KEEPER_CHAT_OPERATION_ACCEPTED",
            ));
        }
        // A batch binding names its Keeper thread; its `runId` may be absent (MASC's batch
        // fixture sends none) but when present it is this operation's own run (MASC rewrites
        // lifecycle ids for each member).
        let run_required = !matches!(event, ChatStreamEvent::BatchBound(_));
        self.check_identity(index, wire, true, run_required)?;
        self.events_after_acceptance += 1;
        let needs_run_started = state == OperationState::Queued && !self.run_started;
        match event {
            ChatStreamEvent::RunStarted => {
                if self.run_started {
                    return Err(order_error(
                        "duplicate_run_started",
                        index,
                        "a second RUN_STARTED",
                    ));
                }
                self.run_started = true;
            }
            ChatStreamEvent::RunError { message, code } => {
                self.terminal = Some(Terminal::Error {
                    pre_acceptance: false,
                    code: code.clone(),
                    message: message.clone(),
                });
            }
            // Names masc-tui ignores carry no order meaning; nor does a batch binding (it may
            // come before or after `RUN_STARTED`, and again to re-confirm).
            ChatStreamEvent::Ignored { .. }
            | ChatStreamEvent::BatchBound(_)
            | ChatStreamEvent::ToolApprovalRequested(_)
            | ChatStreamEvent::ToolApprovalSettled(_) => {}
            _ if needs_run_started => {
                return Err(order_error(
                    "missing_run_started",
                    index,
                    "a run event before RUN_STARTED of a queued operation",
                ));
            }
            ChatStreamEvent::ReplyDetails(details) => {
                if self.reply.is_some() {
                    return Err(order_error(
                        "duplicate_reply_details",
                        index,
                        "a second KEEPER_REPLY_DETAILS",
                    ));
                }
                self.reply = Some(details.clone());
            }
            ChatStreamEvent::TextDelta { delta, .. } => {
                self.partial_text_len = self.partial_text_len.saturating_add(delta.len());
            }
            ChatStreamEvent::RunFinished => {
                if self.reply.is_none() {
                    return Err(order_error(
                        "missing_reply_details",
                        index,
                        "RUN_FINISHED without KEEPER_REPLY_DETAILS",
                    ));
                }
                self.terminal = Some(Terminal::Finished);
            }
            _ => {}
        }
        Ok(())
    }

    fn apply_before_acceptance(
        &mut self,
        index: usize,
        wire: &EventWire,
        event: &ChatStreamEvent,
    ) -> Result<(), DecodeError> {
        match event {
            ChatStreamEvent::Accepted {
                operation_id,
                state,
                ..
            } => {
                self.check_acceptance(index, wire, operation_id)?;
                self.acceptance = Some(*state);
                Ok(())
            }
            ChatStreamEvent::RunError { message, code } => {
                // A refusal before acceptance names no run; identity is checked where present.
                self.check_identity(index, wire, false, false)?;
                self.terminal = Some(Terminal::Error {
                    pre_acceptance: true,
                    code: code.clone(),
                    message: message.clone(),
                });
                Ok(())
            }
            _ => Err(order_error(
                "missing_acceptance",
                index,
                &format!("{} before {ACCEPTED_NAME}", truncate(&wire.kind)),
            )),
        }
    }

    /// The first event of a resumed stream: its acceptance of the same operation (the order
    /// state of the turn is kept; the acceptance is not counted as an event of the turn).
    fn apply_resume_acceptance(
        &mut self,
        index: usize,
        wire: &EventWire,
        event: &ChatStreamEvent,
    ) -> Result<(), DecodeError> {
        let ChatStreamEvent::Accepted {
            operation_id,
            state,
            ..
        } = event
        else {
            return Err(order_error(
                "resume_without_acceptance",
                index,
                &format!(
                    "{} before the resumed stream's {ACCEPTED_NAME}",
                    truncate(&wire.kind)
                ),
            ));
        };
        self.check_acceptance(index, wire, operation_id)?;
        self.awaiting_resume_acceptance = false;
        self.resumed_state = Some(*state);
        Ok(())
    }

    /// An acceptance names the default thread and echoes the request id.
    fn check_acceptance(
        &mut self,
        index: usize,
        wire: &EventWire,
        operation_id: &str,
    ) -> Result<(), DecodeError> {
        if wire.thread_id.as_deref() != Some(ACCEPTANCE_THREAD) {
            return Err(DecodeError::new(
                IDENTITY_MISMATCH,
                event_path(index, "threadId"),
                "the acceptance threadId is not \"default\"",
            ));
        }
        match &self.request_id {
            Some(expected) if expected != operation_id => Err(DecodeError::new(
                DecodeErrorKind::EchoMismatch,
                event_path(index, "value.operation_id"),
                format!(
                    "operation_id {:?} is not the request id {:?}",
                    truncate(operation_id),
                    truncate(expected)
                ),
            )),
            Some(_) => Ok(()),
            None => {
                self.request_id = Some(operation_id.to_string());
                Ok(())
            }
        }
    }

    /// `threadId` = `keeper:<name>` and `runId` = `keeper-operation-run-<request_id>`, exact.
    /// `required` / `run_required`: the thread / the run must be present (both, for every
    /// event after the acceptance but a batch binding, whose run may be absent).
    fn check_identity(
        &mut self,
        index: usize,
        wire: &EventWire,
        required: bool,
        run_required: bool,
    ) -> Result<(), DecodeError> {
        match wire.thread_id.as_deref() {
            Some(thread) => {
                let name = thread.strip_prefix(THREAD_PREFIX).unwrap_or("");
                match &self.keeper {
                    Some(k) if k == name => {}
                    Some(k) => {
                        return Err(identity_error(
                            index,
                            "threadId",
                            thread,
                            &format!("{THREAD_PREFIX}{k}"),
                        ));
                    }
                    None if name.is_empty() => {
                        return Err(identity_error(index, "threadId", thread, "keeper:<name>"));
                    }
                    None => self.keeper = Some(name.to_string()),
                }
            }
            None if required => {
                return Err(DecodeError::new(
                    IDENTITY_MISMATCH,
                    event_path(index, "threadId"),
                    "event without threadId",
                ));
            }
            None => {}
        }
        self.check_run(index, wire, run_required)
    }

    /// `runId` = `keeper-operation-run-<request_id>` when present; `required`: present.
    fn check_run(&self, index: usize, wire: &EventWire, required: bool) -> Result<(), DecodeError> {
        match (wire.run_id.as_deref(), &self.request_id) {
            (Some(run), Some(req)) => {
                let expected = format!("{RUN_PREFIX}{req}");
                if run != expected {
                    return Err(identity_error(index, "runId", run, &expected));
                }
            }
            (None, _) if required => {
                return Err(DecodeError::new(
                    IDENTITY_MISMATCH,
                    event_path(index, "runId"),
                    "event without runId",
                ));
            }
            _ => {}
        }
        Ok(())
    }

    /// Judge the stream at end of input (the transport ended or the body is complete).
    pub fn finish(&self) -> Result<ChatStreamOutcome, DecodeError> {
        if let Some(err) = &self.refused {
            return Err(err.clone());
        }
        match (&self.terminal, self.acceptance) {
            (Some(Terminal::Finished), state) => {
                // RUN_FINISHED is only admitted after the reply details.
                let Some(reply) = self.reply.clone() else {
                    return Err(order_error(
                        "missing_reply_details",
                        self.events_seen,
                        "RUN_FINISHED without KEEPER_REPLY_DETAILS",
                    ));
                };
                Ok(ChatStreamOutcome::Completed {
                    operation_id: self.request_id.clone().unwrap_or_default(),
                    reply,
                    replayed_from: state.filter(|s| s.is_terminal()),
                })
            }
            (
                Some(Terminal::Error {
                    pre_acceptance,
                    code,
                    message,
                }),
                _,
            ) => Ok(ChatStreamOutcome::Failed {
                pre_acceptance: *pre_acceptance,
                code: code.clone(),
                message: message.clone(),
            }),
            (None, Some(state)) if state.is_terminal() && self.events_after_acceptance == 0 => {
                Ok(ChatStreamOutcome::ReplayedTerminal {
                    operation_id: self.request_id.clone().unwrap_or_default(),
                    state,
                })
            }
            (None, acceptance) => Ok(ChatStreamOutcome::Interrupted {
                accepted: acceptance.is_some(),
                partial_text_len: self.partial_text_len,
            }),
        }
    }
}

fn order_error(name: &'static str, index: usize, detail: &str) -> DecodeError {
    DecodeError::new(DecodeErrorKind::Other(name), event_path(index, ""), detail)
}

fn identity_error(index: usize, field: &str, got: &str, expected: &str) -> DecodeError {
    DecodeError::new(
        IDENTITY_MISMATCH,
        event_path(index, field),
        format!(
            "{field} {:?} is not {:?}",
            truncate(got),
            truncate(expected)
        ),
    )
}

/// Bytes in, validated events out: an [`SseFramer`] feeding a [`ChatStreamValidator`].
#[derive(Debug)]
pub struct ChatStreamReader {
    framer: SseFramer,
    validator: ChatStreamValidator,
}

impl ChatStreamReader {
    pub fn new(request_id: Option<&str>, keeper: Option<&str>) -> Self {
        Self {
            framer: SseFramer::new(),
            validator: ChatStreamValidator::new(request_id, keeper),
        }
    }

    /// Feed bytes as they arrive; returns the events they completed. Lines are framed one
    /// at a time so that a bad line refuses the stream at the same event however the bytes
    /// were chunked; the refusal is sticky (also for `finish`).
    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<ChatStreamEvent>, DecodeError> {
        if let Some(err) = &self.validator.refused {
            return Err(err.clone());
        }
        let mut events = Vec::new();
        for line in bytes.split_inclusive(|b| *b == b'\n') {
            let frames = match self.framer.push(line) {
                Ok(frames) => frames,
                Err(e) => {
                    let err = DecodeError::new(
                        MALFORMED_EVENT,
                        event_path(self.validator.events_seen, ""),
                        e.to_string(),
                    );
                    self.validator.refused = Some(err.clone());
                    return Err(err);
                }
            };
            for frame in &frames {
                if let Some(event) = self.validator.push_frame(frame)? {
                    events.push(event);
                }
            }
        }
        Ok(events)
    }

    pub fn validator(&self) -> &ChatStreamValidator {
        &self.validator
    }

    /// End of stream. An unterminated trailing event was never dispatched (SSE rule), so it
    /// cannot complete the turn.
    pub fn finish(&self) -> Result<ChatStreamOutcome, DecodeError> {
        self.validator.finish()
    }
}
