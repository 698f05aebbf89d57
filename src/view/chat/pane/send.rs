//! One send of the open chat and where it stands (phase, pending label, refusal, unknown outcome).

use crate::actors::chat::{Reconciliation, SendOutcome};
use crate::actors::saves::refusal;
use crate::protocol::chat::{InteractiveAdmission, OperationProgress, OperationState};
use crate::view::transcript::PendingState;
use std::sync::Arc;

/// Where a send stands, as the screen shows it (C-33: exactly one label while pending).
#[derive(Debug, Clone, PartialEq)]
pub enum SendPhase {
    /// Registered by Enter; not yet on disk.
    Typed,
    /// In the outbox (`전송 대기`).
    Written,
    /// The POST may be on the wire (`전송 중`).
    Sending,
    /// Receipt only: queued, not processed (`처리 대기`).
    Accepted(OperationState),
    /// The run started: the input is part of the conversation now (C-34).
    Running,
    /// The send ended with this outcome.
    Ended(SendOutcome),
    /// Read back from the outbox: sent by an earlier run or an ended send; outcome unknown
    /// until reconciled (`전송 확인 중`).
    Restored,
}

/// What the current turn is doing, for the one progress row (C-39…C-42).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Activity {
    /// Run started; no delta yet (`working`, never `THINKING` before a delta: C-39).
    Working,
    Thinking,
    Streaming,
    Tool(String),
}

/// One send of this chat.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingSend {
    /// The operator's text as typed; shared (`Arc`) so the batch index holds the same body,
    /// never a copy (C-37).
    pub text: Arc<str>,
    pub phase: SendPhase,
    /// The last reconciliation of this exact request id.
    pub reconciliation: Option<Reconciliation>,
    /// The input row joined the conversation (run started or confirmed).
    pub promoted: bool,
    pub activity: Option<Activity>,
    /// Length of streamed text not (yet) confirmed as a reply; never shown as a reply.
    pub partial_text_len: usize,
    /// Transcript ids of the streamed text messages of this send.
    pub(super) partial_ids: Vec<String>,
    /// The tool call ids its stream announced (the send keeps them in the outbox too).
    pub(super) tool_calls: Vec<String>,
    /// How many times its cut stream was resumed with `since_seq` (§4.3).
    pub resumes: u32,
    /// A newer MASC's interactive admission of this send (§14.15), as its acceptance said.
    pub admission: Option<InteractiveAdmission>,
    /// The history holds this send's failure, recorded under its request id (§15.9): its
    /// outcome is known, whatever the stream said.
    pub failed_in_history: bool,
    /// The history holds this send's input, delivered under its request id (§15.9
    /// `delivery_key` `operation` + `accepted_user`): it reached the server.
    pub recorded_in_history: bool,
    /// The operator took its text back into the draft (`Ctrl-O`) after nothing could confirm
    /// it; it may still arrive.
    pub taken_back: bool,
    /// How many times this request id was sent before this send (a text taken back and sent
    /// unchanged keeps its request id, §4.3).
    pub attempt: u32,
}

impl PendingSend {
    pub(super) fn new(text: Arc<str>, phase: SendPhase) -> Self {
        Self {
            text,
            phase,
            reconciliation: None,
            promoted: false,
            activity: None,
            partial_text_len: 0,
            partial_ids: Vec::new(),
            tool_calls: Vec::new(),
            resumes: 0,
            admission: None,
            failed_in_history: false,
            recorded_in_history: false,
            taken_back: false,
            attempt: 0,
        }
    }

    /// The outcome is still unknown (interrupted, dropped, restored) and not yet settled by
    /// a reconciliation.
    pub fn outcome_unknown(&self) -> bool {
        let unknown = matches!(
            self.phase,
            SendPhase::Restored | SendPhase::Ended(SendOutcome::OutcomeUnknown { .. })
        );
        let settled = matches!(&self.reconciliation, Some(Reconciliation::Found(r))
            if r.progress.state().is_terminal());
        unknown && !settled && !self.failed_in_history && !self.recorded_in_history
    }

    /// Where an unknown outcome stands: still being reconciled (a 404 inside the unknown
    /// window included: the POST may still land), or reconciled as far as the server allows
    /// (no operation recorded after the whole window; a MASC without the §4.4 route).
    /// `None` when the outcome is not unknown.
    pub fn unknown_standing(&self) -> Option<UnknownStanding> {
        if !self.outcome_unknown() {
            return None;
        }
        let taken_back = self.taken_back;
        Some(match &self.reconciliation {
            Some(Reconciliation::Absent { after_secs }) => UnknownStanding::NotRecorded {
                after_secs: *after_secs,
                taken_back,
            },
            Some(Reconciliation::NotServed) => UnknownStanding::Unreconcilable { taken_back },
            None
            | Some(Reconciliation::Found(_))
            | Some(Reconciliation::Unreadable { .. })
            | Some(Reconciliation::NotYetRecorded { .. }) => UnknownStanding::Reconciling,
        })
    }

    /// Whether `Ctrl-O` may put this send's text back into the draft: only once nothing more
    /// will confirm it, and once.
    pub fn may_take_back(&self) -> bool {
        !self.taken_back
            && matches!(
                self.unknown_standing(),
                Some(UnknownStanding::NotRecorded { .. } | UnknownStanding::Unreconcilable { .. })
            )
    }

    /// The words of a refused send's error row (C-35: the server's reason included); `None`
    /// unless it ended not sent or not applied.
    pub fn refusal(&self) -> Option<String> {
        match &self.phase {
            SendPhase::Ended(SendOutcome::NotApplied { cause, detail }) => {
                let cause = cause
                    .strip_prefix("status_")
                    .map(|s| format!("HTTP {s}"))
                    .or_else(|| cause.strip_prefix("run_error_").map(str::to_string))
                    .unwrap_or_else(|| cause.clone());
                Some(match detail {
                    Some(reason) => format!(
                        "refused by the server ({cause}): {reason} · not applied, the text is back in the draft"
                    ),
                    None => format!(
                        "refused by the server ({cause}) · not applied, the text is back in the draft"
                    ),
                })
            }
            SendPhase::Ended(SendOutcome::NotSent { cause }) => Some(format!(
                "not sent ({}) · the text is back in the draft",
                refusal::describe(cause)
            )),
            _ => None,
        }
    }

    /// The turn this send's reply was recorded under: the stream's reply details, else the
    /// §4.4 record's `outcome_ref`; `None` when neither said.
    pub fn turn_ref(&self) -> Option<&str> {
        if let SendPhase::Ended(SendOutcome::Completed { reply }) = &self.phase {
            return Some(reply.turn_ref.as_str());
        }
        match &self.reconciliation {
            Some(Reconciliation::Found(r)) => match &r.progress {
                OperationProgress::Succeeded { outcome_ref, .. } => Some(outcome_ref.as_str()),
                OperationProgress::Failed { outcome_ref, .. } => outcome_ref.as_deref(),
                _ => None,
            },
            _ => None,
        }
    }

    /// The pending label of C-33, or `None` once the input left the pending list.
    pub fn pending_state(&self) -> Option<PendingState> {
        if self.promoted {
            return None;
        }
        // Reconciled as far as the server allows: nothing is being confirmed any more, so no
        // pending label (C-33); the send's own status row says where it stands.
        if matches!(
            self.unknown_standing(),
            Some(UnknownStanding::NotRecorded { .. } | UnknownStanding::Unreconcilable { .. })
        ) {
            return None;
        }
        if self.outcome_unknown() {
            return match &self.reconciliation {
                Some(Reconciliation::Found(r)) if r.progress.state() == OperationState::Queued => {
                    Some(PendingState::WaitingToProcess)
                }
                _ => Some(PendingState::ConfirmingDelivery),
            };
        }
        match &self.phase {
            SendPhase::Typed | SendPhase::Written => Some(PendingState::WaitingToSend),
            SendPhase::Sending => Some(PendingState::Sending),
            SendPhase::Accepted(_) => Some(PendingState::WaitingToProcess),
            SendPhase::Running | SendPhase::Ended(_) | SendPhase::Restored => None,
        }
    }
}

/// Where one send with an unknown outcome stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnknownStanding {
    /// Its exact request id is being read (or will be read again): no answer yet, a record
    /// still queued or running, or a 404 while the POST may still land.
    Reconciling,
    /// The server held no operation with its id (§4.4 404) after the whole unknown window
    /// (`after_secs`); never resent. `taken_back`: its text is in the draft again.
    NotRecorded { after_secs: u64, taken_back: bool },
    /// This MASC does not serve the §4.4 route: it cannot be reconciled here.
    Unreconcilable { taken_back: bool },
}

impl UnknownStanding {
    /// The words of the send's status row once nothing more will confirm it (`None` while
    /// it is still being reconciled: the pending label `전송 확인 중` says that). The text
    /// comes back only on `Ctrl-O`, with the warning that the message may still arrive.
    pub fn words(self) -> Option<String> {
        let (head, taken_back) = match self {
            Self::Reconciling => return None,
            Self::NotRecorded {
                after_secs,
                taken_back,
            } => (
                format!("not recorded by the server after {after_secs} s, not resent"),
                taken_back,
            ),
            Self::Unreconcilable { taken_back } => (
                "outcome unknown, not resent · this MASC cannot confirm it".to_string(),
                taken_back,
            ),
        };
        Some(if taken_back {
            format!(
                "{head} · the text is back in the draft — it may still arrive; Enter sends it under the same request id"
            )
        } else {
            format!("{head} · it may still arrive · Ctrl-O puts the text back in the draft")
        })
    }
}

/// The sends of the chat target whose outcome is unknown, by where they stand (C-44).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Unconfirmed {
    pub reconciling: usize,
    pub not_recorded: usize,
    pub unreconcilable: usize,
}

impl Unconfirmed {
    pub fn total(&self) -> usize {
        self.reconciling + self.not_recorded + self.unreconcilable
    }
}
