//! The chat send as a save kind (protocol.md §4.3, §11): one
//! write path for every save, the chat send included.
//!
//! The generic save operation (`crate::actors::saves::operation`) does the order: outbox
//! `written` (on disk before anything leaves) → `/health` pre-check of the submit-time epoch
//! (§2.4) → outbox `sending` → this kind's request, `POST /api/v1/keepers/chat/stream` →
//! acceptance (outbox `accepted`: queued, not processed) → events → one [`SendOutcome`],
//! written to the outbox before the view hears of it. The POST is never repeated: a lost
//! connection or a stream without a terminal event is "outcome unknown", reconciled by the
//! exact request id (the chat pane asks its chat source, §4.4) and never resent.
//!
//! Every step is an observation with this send's ticket (`ChatSlot::Send { keeper,
//! request_id }`); the save id is the request id.

use super::observation::{
    ChatObservation, ChatSlot, ResumeStanding, SendOutcome, SendStep, UnknownCause,
};
use super::resume::{FrameAdmission, MAX_RESUMES, StreamJournal, resume_body};
use crate::actors::saves::refusal::Refusal;
use crate::actors::saves::{Receipt, SaveEvent, SaveId, SaveKind, SaveRun, SaveStep};
use crate::outbox::SaveRowState;
use crate::protocol::admission::ReadAuthority;
use crate::protocol::chat::{ChatStreamEvent, ChatStreamOutcome, ChatStreamValidator};
use crate::protocol::client::{SseEnd, SseOpenFailure, SseStream, WorkspaceClient};
use crate::protocol::outcome::SaveClass;
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};

pub const CHAT_STREAM_PATH: &str = "/api/v1/keepers/chat/stream";

/// The chat send kind.
pub struct ChatSend;

/// What the operator sent: stored verbatim in the outbox before the POST leaves.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatSendIntent {
    pub keeper: String,
    /// `tui-<uuidv7>`, made once by the view for this text; also the save id.
    pub request_id: String,
    pub text: String,
    /// The chat control token held when it was sent (§14.15: from an interrupt's reply or an
    /// earlier acceptance): sent as `admission_intent` `{"kind":"interactive"}`. `None`: no
    /// token held (an older MASC never gives one), no admission intent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control_token: Option<String>,
    /// 0 for the first send of this request id; a text the operator took back after nothing
    /// confirmed it and sent unchanged is sent again under the same request id (§4.3: the
    /// server keeps one operation per id), as attempt 1, 2, …
    #[serde(default, skip_serializing_if = "is_first")]
    pub attempt: u32,
}

fn is_first(attempt: &u32) -> bool {
    *attempt == 0
}

impl ChatSendIntent {
    /// The save id of this send: its request id, with the attempt after the first (each save
    /// is written once to the outbox).
    pub fn save_id(&self) -> SaveId {
        match self.attempt {
            0 => SaveId(self.request_id.clone()),
            n => SaveId(format!("{}~{n}", self.request_id)),
        }
    }
}

impl Receipt for SendOutcome {
    fn class(&self) -> SaveClass {
        match self {
            // The input reached the Keeper, whatever its turn did afterwards.
            Self::Completed { .. } | Self::Failed { .. } => SaveClass::Applied,
            // A re-POST of an operation that already existed applied nothing anew.
            Self::Replayed { .. } => SaveClass::Unchanged,
            Self::NotSent { .. } => SaveClass::NotSent,
            Self::NotApplied { .. } => SaveClass::NotApplied,
            Self::OutcomeUnknown { .. } => SaveClass::OutcomeUnknown,
        }
    }

    fn reason(&self) -> Option<String> {
        Some(match self {
            Self::Failed { .. } => "turn_failed".into(),
            other => other.class(),
        })
    }

    fn not_sent(reason: String) -> Self {
        Self::NotSent { cause: reason }
    }

    fn unknown(reason: String) -> Self {
        Self::OutcomeUnknown {
            cause: UnknownCause::NoReceipt { reason },
            accepted: false,
        }
    }

    /// A send keeps the machinery's token in its cause (its `reason` is the class).
    fn refusal(&self) -> Option<Refusal> {
        match self {
            Self::NotSent { cause }
            | Self::OutcomeUnknown {
                cause: UnknownCause::NoReceipt { reason: cause },
                ..
            } => Refusal::parse(cause),
            _ => None,
        }
    }
}

impl SaveKind for ChatSend {
    const KIND: &'static str = "chat_send";
    type Slot = ChatSlot;
    type Payload = ChatObservation;
    type Intent = ChatSendIntent;
    type Receipt = SendOutcome;

    fn slot(_save_id: &SaveId, intent: &ChatSendIntent) -> ChatSlot {
        ChatSlot::Send {
            keeper: intent.keeper.clone(),
            request_id: intent.request_id.clone(),
        }
    }

    /// One job per request id.
    fn intent_key(intent: &ChatSendIntent) -> String {
        intent.request_id.clone()
    }

    fn target(intent: &ChatSendIntent) -> String {
        intent.keeper.clone()
    }

    /// The send without progress observations (the operation runs [`ChatSend::run`]).
    fn perform(
        client: WorkspaceClient,
        auth: ReadAuthority,
        intent: ChatSendIntent,
    ) -> BoxFuture<'static, SendOutcome> {
        Box::pin(async move { stream(&client, &auth, &intent, |_| {}, None).await })
    }

    fn run(run: SaveRun<Self>) -> BoxFuture<'static, SendOutcome> {
        Box::pin(async move {
            let request_id = run.intent.request_id.clone();
            let observe = |step: SendStep| {
                // The calls this turn makes, kept as they are announced: a rebuilt chat marks
                // their history rows with how the turn ended, even after a restart mid-turn.
                if let SendStep::Event(ChatStreamEvent::ToolCallStart {
                    tool_call_id: Some(call_id),
                    ..
                }) = &step
                {
                    run.append_mark(
                        request_id.clone(),
                        super::marks::TOOL_CALLS,
                        call_id.clone(),
                    );
                }
                run.observe(ChatObservation::Send {
                    request_id: request_id.clone(),
                    step,
                });
            };
            let outcome = stream(
                &run.client,
                &run.authority,
                &run.intent,
                observe,
                Some(&run),
            )
            .await;
            // C-35: the server's reason of a refusal is kept for its error row, which every
            // reopen rebuilds from the outbox (C-8).
            // C-50: the turn of its reply, so a reopen binds the operator's row as live did;
            // C-44: how the turn ended, so a confirmed stop stays confirmed after a reopen.
            let marks = match &outcome {
                SendOutcome::NotApplied {
                    detail: Some(reason),
                    ..
                } => vec![super::ChatMark::RefusedBecause(reason.clone())],
                SendOutcome::Completed { reply } => vec![
                    super::ChatMark::TurnRef(reply.turn_ref.clone()),
                    super::ChatMark::Ended(super::marks::TURN_COMPLETED),
                ],
                SendOutcome::Failed { code, .. } => {
                    let cancelled = code
                        .as_deref()
                        .is_some_and(|c| c.eq_ignore_ascii_case("turn_cancelled"));
                    vec![super::ChatMark::Ended(if cancelled {
                        super::marks::TURN_CANCELLED
                    } else {
                        super::marks::TURN_FAILED
                    })]
                }
                SendOutcome::Replayed {
                    state: crate::protocol::chat::OperationState::Cancelled,
                } => vec![super::ChatMark::Ended(super::marks::TURN_CANCELLED)],
                _ => Vec::new(),
            };
            for mark in marks {
                run.mark(request_id.clone(), mark.name(), mark.value())
                    .await;
            }
            outcome
        })
    }

    fn payload(event: SaveEvent<Self>) -> ChatObservation {
        let step = match event.step {
            SaveStep::Written => SendStep::Written,
            SaveStep::Sending => SendStep::Sending,
            SaveStep::Ended(outcome) | SaveStep::Restored(outcome) => SendStep::Ended(outcome),
        };
        ChatObservation::Send {
            request_id: event.intent.request_id,
            step,
        }
    }
}

/// The POST and its stream, validated event by event; every step after the acceptance goes to
/// `observe`, the acceptance also to the outbox (through `run`). A stream cut after the
/// acceptance is resumed with `since_seq` where the stream offered it (`super::resume`), each
/// event admitted once; otherwise, or when the resume fails, the outcome is unknown and
/// reconciled (§4.4).
async fn stream(
    client: &WorkspaceClient,
    auth: &ReadAuthority,
    intent: &ChatSendIntent,
    observe: impl Fn(SendStep),
    run: Option<&SaveRun<ChatSend>>,
) -> SendOutcome {
    let mut body = serde_json::json!({
        "request_id": intent.request_id,
        "name": intent.keeper,
        "message": intent.text,
    });
    if let Some(token) = &intent.control_token {
        // §14.15: Enter only admits; stopping is §14.13 (never a target here).
        body["admission_intent"] =
            serde_json::json!({"kind": "interactive", "control_token": token});
    }
    let mut stream = match client.post_sse(auth, CHAT_STREAM_PATH, &body).await {
        Ok(stream) => stream,
        Err(failure) => return classify_open_failure(failure),
    };
    let mut validator = ChatStreamValidator::new(Some(&intent.request_id), Some(&intent.keeper));
    let mut journal = StreamJournal::default();
    let mut resumes = 0u32;
    loop {
        if let Some(refusal) =
            read_stream(&mut stream, &mut validator, &mut journal, &observe, run).await
        {
            return refusal;
        }
        let interrupted = match validator.finish() {
            Ok(ChatStreamOutcome::Interrupted {
                accepted,
                partial_text_len,
            }) => (accepted, partial_text_len),
            Ok(outcome) => return classify_stream_outcome(outcome),
            Err(err) => return protocol_error(&validator, &err),
        };
        let (accepted, partial_text_len) = interrupted;
        let unknown = |resume: ResumeStanding| SendOutcome::OutcomeUnknown {
            cause: UnknownCause::StreamInterrupted {
                partial_text_len,
                resume,
            },
            accepted,
        };
        let Some(since_seq) = journal.since_seq() else {
            return unknown(ResumeStanding::NotOffered);
        };
        if resumes >= MAX_RESUMES {
            return unknown(ResumeStanding::Exhausted { attempts: resumes });
        }
        if validator.resume().is_err() {
            return unknown(ResumeStanding::NotAccepted);
        }
        resumes += 1;
        tracing::info!(target: "masc_tui::chat", since_seq, attempt = resumes, "chat stream cut; resuming with since_seq");
        tokio::time::sleep(std::time::Duration::from_millis(50 * u64::from(resumes))).await;
        let body = resume_body(&intent.request_id, &intent.keeper, &intent.text, since_seq);
        stream = match client.post_sse(auth, CHAT_STREAM_PATH, &body).await {
            Ok(stream) => stream,
            // Whatever the answer (a server without `since_seq` refuses it with 400), the
            // send itself was accepted: its outcome is reconciled, never "not applied".
            Err(failure) => {
                return unknown(ResumeStanding::Refused {
                    class: open_failure_class(&failure),
                });
            }
        };
    }
}

/// Reads one stream (the first, or a resumed one) to its end. `Some` when the send ended
/// here without a judgement of the whole turn (a refused stream).
async fn read_stream(
    stream: &mut SseStream,
    validator: &mut ChatStreamValidator,
    journal: &mut StreamJournal,
    observe: &impl Fn(SendStep),
    run: Option<&SaveRun<ChatSend>>,
) -> Option<SendOutcome> {
    while let Some(item) = stream.next().await {
        let frame = match item {
            Ok(frame) => frame,
            Err(end) => {
                if !matches!(end, SseEnd::Completed) {
                    tracing::debug!(target: "masc_tui::chat", end = end.class(), "chat stream ended early");
                }
                return None;
            }
        };
        let resuming = validator.awaiting_resume_acceptance();
        if !resuming && let FrameAdmission::Duplicate { seq } = journal.admit(&frame) {
            tracing::debug!(target: "masc_tui::chat", seq, "chat stream event already admitted; dropped");
            if let Some(run) = run {
                run.reject_step("duplicate_event");
            }
            continue;
        }
        match validator.push_frame(&frame) {
            Ok(None) => {}
            Ok(Some(ChatStreamEvent::Accepted { state, .. })) if resuming => {
                if let Some(run) = run {
                    run.trace_step("resumed");
                }
                observe(SendStep::Resumed {
                    since_seq: journal.since_seq().unwrap_or_default(),
                    state,
                });
            }
            Ok(Some(ChatStreamEvent::Accepted {
                state, interactive, ..
            })) => {
                if let Some(run) = run {
                    run.record(SaveRowState::Accepted, None).await;
                }
                observe(SendStep::Accepted { state, interactive });
            }
            Ok(Some(event)) => observe(SendStep::Event(event)),
            Err(err) if resuming => {
                // The resumed stream did not open with its acceptance: it is not this turn's
                // continuation; the outcome is reconciled.
                return Some(SendOutcome::OutcomeUnknown {
                    cause: UnknownCause::StreamInterrupted {
                        partial_text_len: 0,
                        resume: ResumeStanding::Refused {
                            class: err.reason().to_string(),
                        },
                    },
                    accepted: true,
                });
            }
            Err(err) => {
                // The stream is no longer trustworthy; what the server did is unknown.
                return Some(protocol_error(validator, &err));
            }
        }
    }
    None
}

fn protocol_error(
    validator: &ChatStreamValidator,
    err: &crate::protocol::decode::DecodeError,
) -> SendOutcome {
    SendOutcome::OutcomeUnknown {
        cause: UnknownCause::ProtocolError {
            reason: err.reason().to_string(),
        },
        accepted: validator.acceptance().is_some(),
    }
}

/// The class of a resume re-POST answered without a stream (traces, the typed standing).
fn open_failure_class(failure: &SseOpenFailure) -> String {
    match failure {
        SseOpenFailure::NotSent { .. } => "not_sent".into(),
        SseOpenFailure::OutcomeUnknown { .. } => "transport".into(),
        SseOpenFailure::Responded { status, .. } => format!("status_{status}"),
        SseOpenFailure::NotEventStream { status, .. } => format!("not_event_stream_{status}"),
    }
}

/// §11 keeper chat send: a refusal before the stream.
pub fn classify_open_failure(failure: SseOpenFailure) -> SendOutcome {
    match failure {
        SseOpenFailure::NotSent { .. } => SendOutcome::NotSent {
            cause: "transport".into(),
        },
        SseOpenFailure::OutcomeUnknown { .. } => SendOutcome::OutcomeUnknown {
            cause: UnknownCause::Transport,
            accepted: false,
        },
        // 400/401/403/404 (§4.3 list), 409 workspace_mismatch and 429 (§11 common cases).
        SseOpenFailure::Responded { status, body }
            if matches!(status, 400 | 401 | 403 | 404 | 409 | 429) =>
        {
            SendOutcome::NotApplied {
                cause: format!("status_{status}"),
                detail: server_reason(&body),
            }
        }
        SseOpenFailure::Responded { status, .. }
        | SseOpenFailure::NotEventStream { status, .. } => SendOutcome::OutcomeUnknown {
            cause: UnknownCause::Unclassified { status },
            accepted: false,
        },
    }
}

/// The server's reason in a refusal body (C-35; `crate::protocol::outcome::server_text`).
pub fn server_reason(body: &[u8]) -> Option<String> {
    crate::protocol::outcome::server_text(body)
}

/// §11 keeper chat send: the judged end of a stream.
pub fn classify_stream_outcome(outcome: ChatStreamOutcome) -> SendOutcome {
    match outcome {
        ChatStreamOutcome::Completed { reply, .. } => SendOutcome::Completed { reply },
        ChatStreamOutcome::ReplayedTerminal { state, .. } => SendOutcome::Replayed { state },
        ref o @ ChatStreamOutcome::Failed {
            ref code,
            ref message,
            ..
        } if o.verified_not_applied() => SendOutcome::NotApplied {
            cause: format!(
                "run_error_{}",
                code.as_ref().map_or("unknown", |c| c.as_str())
            ),
            detail: Some(message.clone()).filter(|m| !m.trim().is_empty()),
        },
        ChatStreamOutcome::Failed {
            pre_acceptance: true,
            ..
        } => SendOutcome::OutcomeUnknown {
            cause: UnknownCause::ProtocolError {
                reason: "run_error_unlisted_code".into(),
            },
            accepted: false,
        },
        ChatStreamOutcome::Failed { code, message, .. } => SendOutcome::Failed {
            code: code.map(|c| c.as_str().to_string()),
            message,
        },
        ChatStreamOutcome::Interrupted {
            accepted,
            partial_text_len,
        } => SendOutcome::OutcomeUnknown {
            cause: UnknownCause::StreamInterrupted {
                partial_text_len,
                resume: ResumeStanding::NotOffered,
            },
            accepted,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::chat::RunErrorCode;

    #[test]
    fn s11_statuses_before_the_stream() {
        for status in [400, 401, 403, 404, 409, 429] {
            let o = classify_open_failure(SseOpenFailure::Responded {
                status,
                body: bytes::Bytes::new(),
            });
            assert!(o.keeps_draft(), "{status}");
            assert_eq!(Receipt::class(&o), SaveClass::NotApplied);
        }
        let o = classify_open_failure(SseOpenFailure::Responded {
            status: 502,
            body: bytes::Bytes::new(),
        });
        assert!(matches!(o, SendOutcome::OutcomeUnknown { .. }));
        let o = classify_open_failure(SseOpenFailure::OutcomeUnknown {
            reason: "reset".into(),
        });
        assert_eq!(Receipt::class(&o), SaveClass::OutcomeUnknown);
    }

    #[test]
    fn s11_run_error_before_acceptance_proves_only_with_listed_codes() {
        let listed = classify_stream_outcome(ChatStreamOutcome::Failed {
            pre_acceptance: true,
            code: Some(RunErrorCode::OwnerStopping),
            message: "stopping".into(),
        });
        assert_eq!(
            listed,
            SendOutcome::NotApplied {
                cause: "run_error_owner_stopping".into(),
                detail: Some("stopping".into()),
            }
        );
        let unlisted = classify_stream_outcome(ChatStreamOutcome::Failed {
            pre_acceptance: true,
            code: None,
            message: "?".into(),
        });
        assert!(matches!(unlisted, SendOutcome::OutcomeUnknown { .. }));
        let after = classify_stream_outcome(ChatStreamOutcome::Failed {
            pre_acceptance: false,
            code: Some(RunErrorCode::InvalidInput),
            message: "boom".into(),
        });
        assert_eq!(Receipt::class(&after), SaveClass::Applied);
        assert_eq!(Receipt::reason(&after).as_deref(), Some("turn_failed"));
        assert!(!after.keeps_draft());
    }

    /// C-35: the server's reason is kept for the error row, in each of MASC's error shapes.
    #[test]
    fn c35_the_server_reason_of_a_refusal_is_kept() {
        let refused = |body: &str| {
            classify_open_failure(SseOpenFailure::Responded {
                status: 409,
                body: bytes::Bytes::from(body.to_string()),
            })
        };
        for (body, reason) in [
            (
                r#"{"error":"keeper busy: a turn is running"}"#,
                Some("keeper busy: a turn is running"),
            ),
            (
                r#"{"error":{"message":"name is required"}}"#,
                Some("name is required"),
            ),
            (r#"{"message":"rate limited"}"#, Some("rate limited")),
            ("plain words", Some("plain words")),
            ("", None),
        ] {
            assert_eq!(
                refused(body),
                SendOutcome::NotApplied {
                    cause: "status_409".into(),
                    detail: reason.map(str::to_string),
                },
                "{body}"
            );
        }
    }

    #[test]
    fn interrupted_is_unknown_and_keeps_no_reply() {
        let o = classify_stream_outcome(ChatStreamOutcome::Interrupted {
            accepted: true,
            partial_text_len: 12,
        });
        assert_eq!(
            o,
            SendOutcome::OutcomeUnknown {
                cause: UnknownCause::StreamInterrupted {
                    partial_text_len: 12,
                    resume: ResumeStanding::NotOffered,
                },
                accepted: true
            }
        );
    }
}
