//! The Asks source (protocol.md §10.3, §10.4; sources.md K-9…K-17): what became of an answer
//! (the follow-up SSE: wake/turn, Tool result and Task as independent sources) and a pinned
//! turn's retained response (the v2 turn transcript). Ownership contract and tested faults:
//! docs/audits/asks.md.
//!
//! - [`follow_up`]: the stream worker (validates the start identity, each source once and the
//!   completion order; EOF alone never completes the read).
//! - [`source`]: the actor owning the workers (one follow-up read at a time — a new answer
//!   cancels the worker, K-13 — and one transcript read per pinned turn).

pub mod follow_up;
pub mod source;

use crate::actors::contract::{Payload, ReadResult, SlotKey, SourceKey, read_outcome};
use crate::protocol::asks::SourceObservation;
use crate::protocol::client::{ClientError, SseEnd};
use crate::protocol::decode::DecodeError;
use crate::protocol::transcript::TurnTranscript;

pub use source::{AsksSpawner, AsksState};

/// The Asks source (supervision key).
pub const ASKS: SourceKey = SourceKey("asks");

/// One Ask: its Keeper and id (question ids repeat across Asks; an Ask id names one Ask).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AskRef {
    pub keeper: String,
    pub ask_id: String,
}

/// One pinned turn: its Keeper and `Turn_ref` (K-14: never replaced by the current turn).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TurnTarget {
    pub keeper: String,
    pub turn_ref: String,
}

/// The slots of the Asks source.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum AsksSlot {
    /// `GET /api/v1/keepers/asks/follow-up?name=&ask_id=` (§10.3) of one answered Ask.
    FollowUp(AskRef),
    /// `GET /api/v1/keepers/{name}/turn-transcript?turn_ref=&version=2` (§10.4).
    Transcript(TurnTarget),
}

impl SlotKey for AsksSlot {
    fn trace_name(&self) -> String {
        // Ids stay out of the trace name (G-10): the ticket identifies the object.
        match self {
            Self::FollowUp(_) => "ask_follow_up",
            Self::Transcript(_) => "turn_transcript",
        }
        .to_string()
    }

    fn source(&self) -> SourceKey {
        ASKS
    }
}

/// How a follow-up stream stopped before `ASK_FOLLOW_UP_COMPLETED` (K-11, K-13: the received
/// sources stay confirmed, the missing ones are unconfirmed; EOF alone never completes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FollowUpCut {
    /// The server closed the stream at an event boundary without `COMPLETED`.
    Eof,
    /// The stream stopped with part of an event buffered.
    CutMidEvent,
    /// No byte arrived within the idle limit.
    IdleTimeout,
    /// The transport failed.
    Transport(String),
    /// A line was not UTF-8.
    InvalidUtf8,
}

impl FollowUpCut {
    pub fn of(end: &SseEnd) -> Self {
        match end {
            SseEnd::Completed => Self::Eof,
            SseEnd::CutMidEvent => Self::CutMidEvent,
            SseEnd::IdleTimeout => Self::IdleTimeout,
            SseEnd::Transport(why) => Self::Transport(why.clone()),
            SseEnd::InvalidUtf8 { .. } => Self::InvalidUtf8,
        }
    }

    /// Stable snake_case class (traces).
    pub fn class(&self) -> &'static str {
        match self {
            Self::Eof => "eof_before_completed",
            Self::CutMidEvent => "cut_mid_event",
            Self::IdleTimeout => "idle_timeout",
            Self::Transport(_) => "transport",
            Self::InvalidUtf8 => "invalid_utf8",
        }
    }
}

/// Why a follow-up read failed as a whole (typed; never "empty").
#[derive(Debug, Clone, PartialEq)]
pub enum FollowUpFailure {
    /// No stream: the read failed before its first event (HTTP status, receipt, transport…).
    Open(ClientError),
    /// An event broke a §10.3 rule (undecodable, wrong identity, a source twice, order).
    Rule(DecodeError),
    /// The worker panicked (caught; the actor is not affected).
    Panicked,
}

impl FollowUpFailure {
    pub fn class(&self) -> String {
        match self {
            Self::Open(e) => e.class().to_string(),
            Self::Rule(e) => format!("rule_{}", e.kind.reason()),
            Self::Panicked => "worker_panicked".to_string(),
        }
    }
}

/// One step of a follow-up read, as it arrives (each applied at once, K-11).
#[derive(Debug, Clone, PartialEq)]
pub enum FollowUpStep {
    /// `ASK_FOLLOW_UP_STARTED`: the Task stored on the original question (K-9), if any.
    Started { task_id: Option<String> },
    /// `ASK_FOLLOW_UP_SOURCE`: one source's observation (at most once per source).
    Source(SourceObservation),
    /// `ASK_FOLLOW_UP_COMPLETED` after all three sources: the read is complete.
    Completed,
    /// The stream stopped first.
    Cut(FollowUpCut),
    /// The read failed.
    Failed(FollowUpFailure),
}

impl FollowUpStep {
    /// The read ends with this step.
    pub fn is_last(&self) -> bool {
        matches!(self, Self::Completed | Self::Cut(_) | Self::Failed(_))
    }
}

/// What the Asks source observes.
#[derive(Debug, Clone)]
pub enum AsksObservation {
    FollowUp(FollowUpStep),
    Transcript(ReadResult<TurnTranscript>),
}

impl Payload for AsksObservation {
    fn outcome(&self) -> String {
        match self {
            Self::FollowUp(FollowUpStep::Cut(cut)) => cut.class().to_string(),
            Self::FollowUp(FollowUpStep::Failed(f)) => f.class(),
            Self::FollowUp(_) => "ok".to_string(),
            Self::Transcript(r) => read_outcome(r),
        }
    }
}

/// What the view asks of the Asks source (through its typed handle).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AsksCommand {
    /// Read the follow-up of an answer made in `workspace` (the submit-time workspace: a read
    /// of another workspace is refused, K-5). Supersedes the follow-up read in flight: a new
    /// answer cancels the worker (K-13).
    Follow { ask: AskRef, workspace: String },
    /// Read a pinned turn's retained response (shares a read in flight for the same turn).
    Transcript(TurnTarget),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eof_before_completed_is_a_cut_never_a_completion_k13() {
        assert_eq!(FollowUpCut::of(&SseEnd::Completed), FollowUpCut::Eof);
        assert!(FollowUpStep::Cut(FollowUpCut::Eof).is_last());
        assert_ne!(FollowUpStep::Cut(FollowUpCut::Eof), FollowUpStep::Completed);
        assert_eq!(
            AsksObservation::FollowUp(FollowUpStep::Cut(FollowUpCut::Eof)).outcome(),
            "eof_before_completed"
        );
    }
}
