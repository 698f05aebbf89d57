//! Pending inputs near the composer (C-32…C-35).
//!
//! An input not yet confirmed as started sits under `대기 입력 N건` with the `›` mark, each
//! with exactly one label (C-33). Server receipt is not processing (C-34): acceptance moves an
//! input to `처리 대기`, and only the persisted input or that run's `Run_started` takes it out
//! of the pending block into the conversation — with no acknowledgement text. A rejection
//! reason is an error row of its own, never part of the body (C-35).

pub use crate::view::transcript::PendingState;

/// One input waiting near the composer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingInput {
    /// The full request id (C-17, C-31); shown only in an expanded diagnostic row.
    pub request_id: String,
    /// The original text (C-29).
    pub text: String,
    pub state: PendingState,
}

/// What happened to a pending input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PendingEvent {
    /// The POST is leaving (the outbox wrote it first).
    SendStarted,
    /// The server accepted the request (receipt). Not processing (C-34).
    Accepted,
    /// The connection dropped after the send left; the outcome is unknown until the exact id
    /// is reconciled.
    OutcomeUnknown,
    /// The persisted user input or that run's `Run_started` was observed (C-34).
    ProcessingConfirmed,
    /// The server refused it (C-35).
    Rejected { reason: String },
}

/// The result of applying a [`PendingEvent`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PendingStep {
    /// Still pending, with this label.
    Pending(PendingState),
    /// Leaves the pending block; the input appears once in the conversation (C-34).
    InConversation,
    /// Leaves the pending block; the reason goes to a separate error row (C-35).
    Rejected { reason: String },
}

/// The label transition of C-33/C-34.
pub fn advance(state: PendingState, event: PendingEvent) -> PendingStep {
    match event {
        PendingEvent::SendStarted => PendingStep::Pending(match state {
            PendingState::WaitingToSend => PendingState::Sending,
            other => other,
        }),
        // Receipt never reads as reflection: it is "waiting to be processed".
        PendingEvent::Accepted => PendingStep::Pending(PendingState::WaitingToProcess),
        PendingEvent::OutcomeUnknown => PendingStep::Pending(match state {
            // An accepted input stays accepted; only an unconfirmed send is being confirmed.
            PendingState::WaitingToProcess => PendingState::WaitingToProcess,
            _ => PendingState::ConfirmingDelivery,
        }),
        PendingEvent::ProcessingConfirmed => PendingStep::InConversation,
        PendingEvent::Rejected { reason } => PendingStep::Rejected { reason },
    }
}

/// `대기 입력 N건` (C-32).
pub fn pending_header(count: usize) -> String {
    format!("대기 입력 {count}건")
}
