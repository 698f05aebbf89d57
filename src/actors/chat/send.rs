//! One send = one actor (protocol.md §4.3, §11; issue 4 item 5).
//!
//! Order: outbox `written` (on disk before anything leaves) → `/health` pre-check of the epoch
//! (§2.4) → outbox `sending` → `POST /api/v1/keepers/chat/stream` → acceptance (outbox
//! `accepted`: queued, not processed) → events → one [`SendOutcome`], written to the outbox
//! before the view and the hub hear of it. The POST is never repeated by this actor: a lost
//! connection or a stream without a terminal event is "outcome unknown" and goes to
//! reconciliation by the exact request id.
//!
//! Every step is an observation with this send's ticket (`ChatSlot::Send { keeper, request_id }`).

use super::observation::{
    ChatCommand, ChatHubMsg, ChatObservation, ChatSlot, SendOutcome, SendStep, UnknownCause,
};
use crate::actors::contract::{Outlet, Ticket};
use crate::outbox::{NewSend, Outbox, SendState};
use crate::protocol::admission::ReadAuthority;
use crate::protocol::chat::{ChatStreamEvent, ChatStreamOutcome, ChatStreamValidator};
use crate::protocol::client::{SseEnd, SseOpenFailure, WorkspaceClient};
use crate::timeline::stage;
use ractor::{Actor, ActorProcessingErr, ActorRef};

pub const CHAT_STREAM_PATH: &str = "/api/v1/keepers/chat/stream";

pub struct SendArgs {
    pub keeper: String,
    pub request_id: String,
    pub text: String,
    pub authority: ReadAuthority,
    pub ticket: Ticket<ChatSlot>,
    pub client: WorkspaceClient,
    pub outlet: Outlet<ChatSlot, ChatObservation>,
    /// `None` when the outbox could not be opened: the send is then refused before it leaves.
    pub outbox: Option<Outbox>,
    pub hub: ActorRef<ChatHubMsg>,
}

pub struct SendOperation;

impl Actor for SendOperation {
    type Msg = ();
    type State = Option<SendArgs>;
    type Arguments = SendArgs;

    async fn pre_start(
        &self,
        _myself: ActorRef<()>,
        args: SendArgs,
    ) -> Result<Option<SendArgs>, ActorProcessingErr> {
        stage::dispatch(&args.ticket);
        args.outlet.dispatched(args.ticket.clone());
        Ok(Some(args))
    }

    async fn post_start(
        &self,
        myself: ActorRef<()>,
        state: &mut Option<SendArgs>,
    ) -> Result<(), ActorProcessingErr> {
        if let Some(args) = state.take() {
            run(&args).await;
        }
        myself.stop(Some("send ended".into()));
        Ok(())
    }
}

fn step(args: &SendArgs, step: SendStep) {
    args.outlet.observed(
        args.ticket.clone(),
        ChatObservation::Send {
            request_id: args.request_id.clone(),
            step,
        },
    );
}

async fn write_state(args: &SendArgs, state: SendState, cause: Option<String>) -> bool {
    let Some(outbox) = args.outbox.clone() else {
        return false;
    };
    let id = args.request_id.clone();
    let done =
        tokio::task::spawn_blocking(move || outbox.set_state(&id, state, cause.as_deref())).await;
    match done {
        Ok(Ok(_)) => true,
        _ => {
            tracing::warn!(target: "masc_tui::chat", state = state.as_str(), "outbox state not written");
            false
        }
    }
}

async fn run(args: &SendArgs) {
    stage::worker_enter(&args.ticket);
    let outcome = drive(args).await;
    let state = outcome.send_state();
    write_state(args, state, Some(outcome.class())).await;
    stage::worker_return(&args.ticket, &outcome.trace_outcome());
    step(args, SendStep::Ended(outcome));
    let _ = args.hub.cast(ChatHubMsg::Command(ChatCommand::Settled {
        keeper: args.keeper.clone(),
        request_id: args.request_id.clone(),
        state,
    }));
}

async fn drive(args: &SendArgs) -> SendOutcome {
    // 1. Durable before it leaves.
    let Some(outbox) = args.outbox.clone() else {
        return SendOutcome::NotSent {
            cause: "outbox_unavailable".into(),
        };
    };
    let new = NewSend {
        request_id: args.request_id.clone(),
        keeper: args.keeper.clone(),
        workspace: args.authority.scope.workspace.0.clone(),
        text: args.text.clone(),
    };
    let written = tokio::task::spawn_blocking(move || outbox.record_written(&new)).await;
    if !matches!(written, Ok(Ok(()))) {
        return SendOutcome::NotSent {
            cause: "outbox_unwritable".into(),
        };
    }
    step(args, SendStep::Written);

    // 2. §2.4: confirm the epoch with a fresh /health before the write.
    match args.client.health().await {
        Ok(h) if h.paths.effective_masc_root == args.authority.expected_root && !h.is_booting() => {
        }
        Ok(_) => {
            return SendOutcome::NotSent {
                cause: "precheck_identity".into(),
            };
        }
        Err(_) => {
            return SendOutcome::NotSent {
                cause: "precheck_failed".into(),
            };
        }
    }

    // 3. From here the request may be on the wire.
    write_state(args, SendState::Sending, None).await;
    step(args, SendStep::Sending);
    let body = serde_json::json!({
        "request_id": args.request_id,
        "name": args.keeper,
        "message": args.text,
    });
    let mut stream = match args
        .client
        .post_sse(&args.authority, CHAT_STREAM_PATH, &body)
        .await
    {
        Ok(stream) => stream,
        Err(failure) => return classify_open_failure(failure),
    };

    // 4. The stream, validated event by event.
    let mut validator = ChatStreamValidator::new(Some(&args.request_id), Some(&args.keeper));
    while let Some(item) = stream.next().await {
        let frame = match item {
            Ok(frame) => frame,
            Err(end) => {
                if !matches!(end, SseEnd::Completed) {
                    tracing::debug!(target: "masc_tui::chat", end = end.class(), "chat stream ended early");
                }
                break;
            }
        };
        match validator.push_frame(&frame) {
            Ok(None) => {}
            Ok(Some(ChatStreamEvent::Accepted { state, .. })) => {
                write_state(args, SendState::Accepted, None).await;
                step(args, SendStep::Accepted { state });
            }
            Ok(Some(event)) => step(args, SendStep::Event(event)),
            Err(err) => {
                // The stream is no longer trustworthy; what the server did is unknown.
                return SendOutcome::OutcomeUnknown {
                    cause: UnknownCause::ProtocolError {
                        reason: err.reason().to_string(),
                    },
                    accepted: validator.acceptance().is_some(),
                };
            }
        }
    }
    match validator.finish() {
        Ok(outcome) => classify_stream_outcome(outcome),
        Err(err) => SendOutcome::OutcomeUnknown {
            cause: UnknownCause::ProtocolError {
                reason: err.reason().to_string(),
            },
            accepted: validator.acceptance().is_some(),
        },
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
        SseOpenFailure::Responded { status, .. }
            if matches!(status, 400 | 401 | 403 | 404 | 409 | 429) =>
        {
            SendOutcome::NotApplied {
                cause: format!("status_{status}"),
            }
        }
        SseOpenFailure::Responded { status, .. }
        | SseOpenFailure::NotEventStream { status, .. } => SendOutcome::OutcomeUnknown {
            cause: UnknownCause::Unclassified { status },
            accepted: false,
        },
    }
}

/// §11 keeper chat send: the judged end of a stream.
pub fn classify_stream_outcome(outcome: ChatStreamOutcome) -> SendOutcome {
    match outcome {
        ChatStreamOutcome::Completed { reply, .. } => SendOutcome::Completed { reply },
        ChatStreamOutcome::ReplayedTerminal { state, .. } => SendOutcome::Replayed { state },
        ref o @ ChatStreamOutcome::Failed { ref code, .. } if o.verified_not_applied() => {
            SendOutcome::NotApplied {
                cause: format!(
                    "run_error_{}",
                    code.as_ref().map_or("unknown", |c| c.as_str())
                ),
            }
        }
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
            cause: UnknownCause::StreamInterrupted { partial_text_len },
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
            assert_eq!(o.send_state(), SendState::NotApplied);
        }
        let o = classify_open_failure(SseOpenFailure::Responded {
            status: 502,
            body: bytes::Bytes::new(),
        });
        assert!(matches!(o, SendOutcome::OutcomeUnknown { .. }));
        let o = classify_open_failure(SseOpenFailure::OutcomeUnknown {
            reason: "reset".into(),
        });
        assert_eq!(o.send_state(), SendState::OutcomeUnknown);
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
                cause: "run_error_owner_stopping".into()
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
        assert_eq!(after.send_state(), SendState::Failed);
        assert!(!after.keeps_draft());
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
                    partial_text_len: 12
                },
                accepted: true
            }
        );
    }
}
