//! Admitted chat observations applied to the open chat: history pages, restores, reconciliations.

use super::{AutonomousTurns, ChatPane, HistoryState, PendingSend, SendPhase};
use crate::actors::chat::{
    ChatObservation, ChatSlot, Reconciliation, RestoredSend, SendOutcome, SendStep,
};
use crate::actors::contract::Ticket;
use crate::actors::saves::refusal::Refusal;
use crate::outbox::SaveRowState;
use crate::protocol::chat::rows::TranscriptSlot;
use crate::protocol::chat::{BatchBinding, ChatHistoryPage, ChatStreamEvent, OperationState};
use crate::protocol::client::ClientError;
use crate::protocol::outcome::SaveClass;
use crate::view::chat::{admission, batch};
use crate::view::transcript::turn_bind::{KnownTurn, bind_operator_rows};
use crate::view::transcript::{Entry, EntryKind, Transcript, TranscriptView, settle_unknown_note};
use std::sync::Arc;

impl ChatPane {
    /// Applies an admitted observation.
    pub fn apply(&mut self, ticket: &Ticket<ChatSlot>, obs: ChatObservation) {
        match obs {
            ChatObservation::HistoryPage { before, result } => {
                self.owned.remove(ticket);
                match (before, result) {
                    (None, Ok(page)) => self.newest_page(&page.value),
                    (None, Err(err)) => {
                        if self.history != HistoryState::Ready {
                            self.history = HistoryState::Failed { class: err.class() };
                        }
                    }
                    (Some(_), Ok(page)) => {
                        self.loading_older = false;
                        self.older_failure = None;
                        self.has_more = page.value.has_more;
                        self.row_counts = self.row_counts.plus(page.value.counts());
                        let keeper = self.keeper.clone();
                        self.view()
                            .transcript_mut()
                            .prepend_history(&page.value.messages, &keeper);
                        self.place_autonomous();
                        self.settle_turn_ends();
                    }
                    (Some(_), Err(err)) => {
                        self.loading_older = false;
                        self.older_failure = Some(err.class());
                    }
                }
            }
            ChatObservation::Autonomous { result } => {
                self.owned.remove(ticket);
                self.autonomous = match result {
                    Ok(array) => AutonomousTurns::Read(array.value.autonomous().cloned().collect()),
                    Err(ClientError::NotServed { .. }) => AutonomousTurns::NotServed,
                    Err(err) => AutonomousTurns::Failed {
                        class: err.class(),
                        last: match std::mem::take(&mut self.autonomous) {
                            AutonomousTurns::Read(rows)
                            | AutonomousTurns::Failed { last: rows, .. } => rows,
                            AutonomousTurns::NotRead | AutonomousTurns::NotServed => Vec::new(),
                        },
                    },
                };
                self.place_autonomous();
            }
            ChatObservation::Restored {
                sends,
                turns,
                ended,
                kept,
            } => {
                self.owned.remove(ticket);
                self.known_turns = turns;
                self.ended = ended;
                // Its turn control saves went to the chat surface's books (`ChatModel::apply`).
                self.kept_calls = kept.tool_calls;
                for restored in sends {
                    self.restore(restored);
                }
                // The history may have come first: its operator rows are bound now, its
                // stopped turns' rows marked.
                let known = self.known();
                {
                    let mut view = self.view.lock().unwrap_or_else(|e| e.into_inner());
                    bind_operator_rows(view.transcript_mut(), &known);
                }
                self.settle_turn_ends();
            }
            ChatObservation::Send { request_id, step } => {
                if matches!(step, SendStep::Ended(_)) {
                    self.owned.remove(ticket);
                }
                if let SendStep::Event(ChatStreamEvent::BatchBound(binding)) = &step {
                    self.bind_batch(ticket.slot.keeper(), binding);
                }
                self.step(&request_id, step);
            }
            ChatObservation::Reconciled { request_id, result } => {
                self.owned.remove(ticket);
                if let Some(send) = self.sends.get_mut(&request_id) {
                    // An unknown outcome settled by its record (§4.4) reads as
                    // what the record says (cancelled, failed, confirmed).
                    if send.outcome_unknown()
                        && let Reconciliation::Found(r) = &result
                    {
                        let mut view = self.view.lock().unwrap_or_else(|e| e.into_inner());
                        settle_unknown_note(view.transcript_mut(), &request_id, &r.progress);
                    }
                    // Reconciled as far as the server allows (no record after the window; no
                    // route): the text stays out of the draft — it may still arrive — until the
                    // operator takes it back (`Ctrl-O`, `ChatPane::take_back`).
                    if let Reconciliation::Found(r) = &result
                        && matches!(
                            r.progress.state(),
                            OperationState::Running
                                | OperationState::Succeeded
                                | OperationState::Failed
                                | OperationState::Cancelled
                        )
                    {
                        // The run started (or ended): the input was processed (C-34).
                        send.promoted = true;
                    }
                    send.reconciliation = Some(result);
                }
                self.sync_entry(&request_id);
                self.settle_turn_ends();
            }
            // Turn control receipts land in the chat surface's books (`control::sync`).
            ChatObservation::Control(_) => {}
        }
    }

    fn newest_page(&mut self, page: &ChatHistoryPage) {
        self.history = HistoryState::Ready;
        self.has_more = page.has_more;
        self.older_failure = None;
        self.row_counts = page.counts();
        // §15.9: a failed request the store recorded under this console's request id is that
        // send's failure, settled: the pane keeps no copy of its own (no duplicate row, no
        // "outcome unknown" for a send the server says failed).
        for row in page.messages.iter().filter(|r| r.is_request_failure()) {
            if let Some(send) = row
                .identity
                .operation_id()
                .and_then(|id| self.sends.get_mut(id))
            {
                send.failed_in_history = true;
            }
        }
        // §15.9: the input row the store delivered under this console's request id proves the
        // send reached the server, whatever the §4.4 route answers (or whether it is served).
        for row in page.messages.iter().filter(|r| {
            r.identity
                .pair()
                .is_some_and(|p| p.slot == TranscriptSlot::AcceptedUser)
        }) {
            if let Some(send) = row
                .identity
                .operation_id()
                .and_then(|id| self.sends.get_mut(id))
            {
                send.recorded_in_history = true;
                send.promoted = true;
            }
        }
        // C-31, C-8: the rows this client made for its sends (a refusal, an interrupted or
        // protocol note, an admission's notice) are not server history: they are carried into
        // the new window, each at its own time, never dropped and never moved to the end. (The
        // pending row, the input and the unconfirmed status are rebuilt from the send below;
        // a turn's streamed rows are in the history now.)
        let carried: Vec<Entry> = self
            .view()
            .transcript()
            .entries()
            .iter()
            .filter(|e| {
                e.id.split_once(':').is_some_and(|(request_id, row)| {
                    matches!(
                        row,
                        "refused" | "interrupted" | "protocol" | "admission" | "admission-error"
                    ) && self.sends.contains_key(request_id)
                })
            })
            .map(|e| (**e).clone())
            .collect();
        let mut transcript = Transcript::new();
        transcript.extend_history(&page.messages, &self.keeper);
        // C-50: the operator's row keeps the rail its live twin had, where the evidence is exact.
        bind_operator_rows(&mut transcript, &self.known());
        // A fresh view: the newest window replaces everything shown (older pages included).
        *self.view() = TranscriptView::new(transcript, self.theme);
        self.live.clear();
        // Processed inputs are in the history now; only the pending ones are re-added, and
        // the rows of sends the history never holds: a refusal (C-8: failure rows never
        // fold) and an outcome reconciled as far as the server allows.
        let ids: Vec<String> = self
            .sends
            .iter()
            .filter(|(_, s)| {
                s.pending_state().is_some()
                    || s.refusal().is_some()
                    || s.unknown_standing().is_some()
            })
            .map(|(id, _)| id.clone())
            .collect();
        for id in ids {
            self.sync_entry(&id);
        }
        {
            let mut view = self.view();
            let t = view.transcript_mut();
            for row in carried {
                if t.get(&row.id).is_none() {
                    t.upsert_by_time(row);
                }
            }
        }
        self.place_autonomous();
        self.settle_turn_ends();
        // An admission's interrupt error is never in the history: it stays (C-44). Only its
        // rows: the input itself is in the history now.
        let mut view = self.view.lock().unwrap_or_else(|e| e.into_inner());
        let t = view.transcript_mut();
        for (id, send) in &self.sends {
            if let Some(block) = send
                .admission
                .as_ref()
                .filter(|b| b.interrupt_error.is_some())
            {
                for row in admission::rows(id, block) {
                    if matches!(row.kind, EntryKind::Failure(_)) && t.get(&row.id).is_none() {
                        t.upsert(row);
                    }
                }
            }
        }
    }

    /// The sends whose reply turn is known: this pane's, then the outbox's earlier ones.
    fn known(&self) -> Vec<KnownTurn<'_>> {
        let mut known: Vec<KnownTurn<'_>> = self
            .sends
            .iter()
            .filter_map(|(id, s)| {
                s.turn_ref().map(|turn_ref| KnownTurn {
                    request_id: id,
                    text: &s.text,
                    turn_ref,
                })
            })
            .collect();
        for t in &self.known_turns {
            if !known.iter().any(|k| k.request_id == t.request_id) {
                known.push(KnownTurn {
                    request_id: &t.request_id,
                    text: &t.text,
                    turn_ref: &t.turn_ref,
                });
            }
        }
        known
    }

    fn restore(&mut self, restored: RestoredSend) {
        let phase = match (restored.live, restored.now) {
            (Some(ticket), _) => {
                self.owned.insert(ticket);
                match restored.stored {
                    SaveRowState::Written => SendPhase::Written,
                    SaveRowState::Sending => SendPhase::Sending,
                    _ => SendPhase::Accepted(OperationState::Queued),
                }
            }
            // It never left (an earlier run stopped before it did, or it was refused before
            // leaving): nothing reached the Keeper.
            (None, Some(SaveClass::NotSent)) => SendPhase::Ended(SendOutcome::NotSent {
                cause: stored_cause(restored.reason.as_deref(), "not_sent_")
                    .unwrap_or_else(|| Refusal::RestoredUnsent.token()),
            }),
            // The server refused it (C-8, C-35: its error row comes back on every open).
            (None, Some(SaveClass::NotApplied)) => SendPhase::Ended(SendOutcome::NotApplied {
                cause: stored_cause(restored.reason.as_deref(), "not_applied_")
                    .unwrap_or_else(|| "refused".into()),
                detail: restored.marks.refused_because.clone(),
            }),
            (None, _) => SendPhase::Restored,
        };
        // C-65: the composer gets a text back once; a draft given back before (by a refusal,
        // or `Ctrl-O`) is what the operator left or cleared since, never overwritten.
        // Given back here only when it was never given back live: a row just found unsent,
        // or one of this run that ended while its chat was closed.
        if let SendPhase::Ended(outcome) = &phase
            && outcome.keeps_draft()
            && !self.sends.contains_key(&restored.request_id)
            && !restored.marks.draft_returned
            && (restored.stored == SaveRowState::Written || restored.this_session)
        {
            self.give_back(&restored.request_id, restored.text.clone());
        }
        let entry = self
            .sends
            .entry(restored.request_id.clone())
            .or_insert_with(|| PendingSend::new(Arc::from(restored.text.as_str()), phase.clone()));
        if !matches!(entry.phase, SendPhase::Ended(_)) {
            entry.phase = phase;
        }
        // Reconciled as far as the server allows in an earlier open or run: read back, not
        // asked again (the source does not reconcile it).
        if entry.reconciliation.is_none() {
            entry.reconciliation = restored.marks.settled_reconciliation();
        }
        entry.taken_back |= restored.marks.draft_returned;
        self.sync_entry(&restored.request_id);
    }

    /// C-37: the input a binding names joins its execution by the triple (request id, this
    /// chat's Keeper, its body); a binding on another Keeper's stream, or naming no input of
    /// this chat, is counted and traced, never attached.
    fn bind_batch(&mut self, stream_keeper: &str, binding: &BatchBinding) {
        let (execution, operation) = (&binding.execution_id, &binding.operation_id);
        if stream_keeper != self.keeper {
            self.batches
                .refuse(batch::Refused::OtherKeeper, execution, operation);
            return;
        }
        match self.sends.get(operation) {
            Some(send) => {
                self.batches
                    .bind(execution, operation, &self.keeper, &send.text);
            }
            None => self
                .batches
                .refuse(batch::Refused::UnknownRequest, execution, operation),
        }
    }
}

/// The cause a settled send's stored reason names (`not_applied_status_409` → `status_409`); a
/// reason of another form is the cause itself.
fn stored_cause(reason: Option<&str>, prefix: &str) -> Option<String> {
    let reason = reason?;
    Some(reason.strip_prefix(prefix).unwrap_or(reason).to_string())
}
