//! A send's steps (receipts, stream events, its end) into the open chat's transcript rows.

use super::{Activity, ChatEffect, ChatPane, SendPhase, UnknownStanding, now_unix, request_time};
use crate::actors::chat::{SendOutcome, SendStep, UnknownCause};
use crate::protocol::chat::{ChatStreamEvent, OperationState};
use crate::view::chat::{admission, held_calls};
use crate::view::transcript::{Entry, EntryKind, FailureOrigin, LiveTurn, Speaker};

impl ChatPane {
    pub(super) fn step(&mut self, request_id: &str, step: SendStep) {
        let keeper = self.keeper.clone();
        let workspace = self
            .workspace
            .as_ref()
            .map(|w| w.0.clone())
            .unwrap_or_default();
        let Some(send) = self.sends.get_mut(request_id) else {
            return;
        };
        let mut promote = false;
        let mut give_back = None;
        let ended = matches!(step, SendStep::Ended(_));
        match step {
            SendStep::Written => send.phase = SendPhase::Written,
            SendStep::Sending => send.phase = SendPhase::Sending,
            SendStep::Accepted { state, interactive } => {
                send.phase = SendPhase::Accepted(state);
                if let Some(block) = &interactive {
                    self.effects.push(ChatEffect::ControlToken {
                        workspace: workspace.clone(),
                        keeper: keeper.clone(),
                        token: block.chat_control_token.clone(),
                    });
                }
                send.admission = interactive;
                promote = state != OperationState::Queued;
                // A steered input that runs at once has nothing to steer past.
                if self.steer_wanted.remove(request_id) && state == OperationState::Queued {
                    self.effects.push(ChatEffect::Steer {
                        keeper: keeper.clone(),
                        request_id: request_id.to_string(),
                    });
                }
            }
            // The cut stream continues (§4.3): the turn's rows stay as they are; the events
            // after `since_seq` follow, each admitted once.
            SendStep::Resumed { .. } => send.resumes += 1,
            SendStep::Event(event) => {
                match &event {
                    ChatStreamEvent::RunStarted => {
                        send.phase = SendPhase::Running;
                        send.activity = Some(Activity::Working);
                        promote = true;
                    }
                    ChatStreamEvent::ThinkingDelta { delta: Some(_) } => {
                        send.activity = Some(Activity::Thinking);
                    }
                    ChatStreamEvent::TextDelta { delta, .. } => {
                        send.activity = Some(Activity::Streaming);
                        send.partial_text_len += delta.len();
                    }
                    ChatStreamEvent::TextEnd { .. } | ChatStreamEvent::ToolCallEnd { .. } => {
                        // C-41: all chunks closed does not mean the response ended.
                        send.activity = Some(Activity::Working);
                    }
                    ChatStreamEvent::TextStart { message_id } => {
                        send.partial_ids.push(message_id.clone());
                    }
                    ChatStreamEvent::ToolCallStart {
                        tool_call_name,
                        tool_call_id,
                    } => {
                        send.activity = Some(Activity::Tool(tool_call_name.clone()));
                        send.tool_calls.extend(tool_call_id.iter().cloned());
                    }
                    ChatStreamEvent::ToolApprovalRequested(request) => {
                        held_calls::hint_requested(self, request);
                        return;
                    }
                    ChatStreamEvent::ToolApprovalSettled(settled) => {
                        held_calls::hint_settled(self, settled);
                        return;
                    }
                    _ => {}
                }
                let turn = self
                    .live
                    .entry(request_id.to_string())
                    .or_insert_with(|| LiveTurn::new(request_id, keeper.clone()));
                let mut view = self.view.lock().unwrap_or_else(|e| e.into_inner());
                turn.apply(view.transcript_mut(), &event, now_unix());
            }
            SendStep::Ended(outcome) => {
                send.activity = None;
                match &outcome {
                    SendOutcome::Completed { .. } | SendOutcome::Failed { .. } => promote = true,
                    SendOutcome::Replayed { state } => promote = *state != OperationState::Queued,
                    SendOutcome::NotSent { .. } | SendOutcome::NotApplied { .. } => {
                        give_back = Some(send.text.to_string());
                    }
                    SendOutcome::OutcomeUnknown { cause, .. } => {
                        self.effects.push(ChatEffect::Reconcile {
                            keeper: keeper.clone(),
                            request_id: request_id.to_string(),
                        });
                        let mut view = self.view.lock().unwrap_or_else(|e| e.into_inner());
                        let t = view.transcript_mut();
                        // Partial text of a turn without a terminal event is never a reply:
                        // its rows go; a status row says what happened.
                        for id in &send.partial_ids {
                            t.remove(id);
                        }
                        let note = match cause {
                            UnknownCause::ProtocolError { reason } => Entry::new(
                                format!("{request_id}:protocol"),
                                Speaker::System,
                                EntryKind::Failure(FailureOrigin::Other("protocol".into())),
                                format!("chat stream refused ({reason}) · outcome unknown"),
                            ),
                            _ => Entry::new(
                                format!("{request_id}:interrupted"),
                                Speaker::System,
                                EntryKind::Status,
                                format!(
                                    "interrupted ({}) · {} bytes of partial text not kept · outcome unknown",
                                    cause.class(),
                                    send.partial_text_len
                                ),
                            ),
                        };
                        let note = note.with_request(request_id);
                        t.upsert_by_time(match request_time(request_id) {
                            Some(ts) => note.with_ts(ts),
                            None => note,
                        });
                    }
                }
                if let SendOutcome::Completed { reply } = &outcome
                    && let Some(last) = send.partial_ids.last()
                {
                    // Only the reply details count as the Keeper's reply (§4.3).
                    let mut view = self.view.lock().unwrap_or_else(|e| e.into_inner());
                    let text = reply.reply.clone();
                    view.transcript_mut().update(last, |e| {
                        e.text = text;
                        e.refresh_reports();
                    });
                }
                send.phase = SendPhase::Ended(outcome);
            }
        }
        if promote {
            send.promoted = true;
        }
        if let Some(text) = give_back {
            self.give_back(request_id, text);
        }
        self.sync_entry(request_id);
        if ended {
            self.settle_turn_ends();
        }
    }

    /// Keeps the transcript rows of one send in step with its state: a pending row while
    /// pending (C-32/C-33), the operator's row once processed (C-34), an error row for a
    /// refusal (C-35).
    pub(super) fn sync_entry(&mut self, request_id: &str) {
        let Some(send) = self.sends.get(request_id) else {
            return;
        };
        let mut view = self.view.lock().unwrap_or_else(|e| e.into_inner());
        let t = view.transcript_mut();
        // C-31: the rows this client makes for a send are placed by the send's own time.
        let local = |row: Entry| match request_time(request_id) {
            Some(ts) => row.with_ts(ts),
            None => row,
        };
        let input_id = format!("{request_id}:input");
        let refused_id = format!("{request_id}:refused");
        // §14.15: the admission's notice (a status, never speech) and an interrupt error
        // (always visible, C-44), written only when they change.
        for row in send
            .admission
            .as_ref()
            .map(|b| admission::rows(request_id, b))
            .unwrap_or_default()
        {
            if t.get(&row.id).is_none_or(|e| e.text != row.text) {
                t.upsert_by_time(local(row));
            }
        }
        if let Some(state) = send.pending_state() {
            let kind = EntryKind::PendingInput {
                state,
                rejection: None,
            };
            if t.get(request_id).is_some() {
                t.update(request_id, |e| e.kind = kind);
            } else {
                t.upsert(
                    Entry::new(request_id, Speaker::Operator, kind, send.text.to_string())
                        .with_request(request_id),
                );
            }
            return;
        }
        t.remove(request_id);
        if let Some(words) = send.unknown_standing().and_then(UnknownStanding::words) {
            // C-44: a status (`○`), never the error mark: the outcome is unknown, not failed.
            let row = Entry::new(
                format!("{request_id}:unconfirmed"),
                Speaker::System,
                EntryKind::Status,
                words,
            )
            .with_request(request_id);
            if t.get(&row.id).is_none_or(|e| e.text != row.text) {
                t.upsert_by_time(local(row));
            }
            // C-54: one row says where the send stands once nothing more confirms it; the
            // interruption note that started the reconciliation is folded into it (a reopen,
            // which reads only the outcome, shows the same row).
            t.remove(&format!("{request_id}:interrupted"));
        }
        if send.promoted {
            if t.get(&input_id).is_none() {
                t.upsert(
                    Entry::new(
                        input_id,
                        Speaker::Operator,
                        EntryKind::Utterance,
                        send.text.to_string(),
                    )
                    .with_ts(now_unix())
                    .with_request(request_id)
                    .with_turn(request_id),
                );
            }
        } else if let Some(words) = send.refusal()
            && t.get(&refused_id).is_none()
        {
            // C-35: the refusal and the server's reason in an error row of its own.
            t.upsert_by_time(local(
                Entry::new(
                    refused_id,
                    Speaker::System,
                    EntryKind::Failure(FailureOrigin::Rejected),
                    words,
                )
                .with_request(request_id),
            ));
        }
    }
}
