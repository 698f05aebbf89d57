//! The durable facts of one chat send beyond its save row (the outbox's `chat_marks`), typed:
//! a reopened chat or a restarted process reads them back instead of learning them again
//! (chat-screen.md C-65, C-44; protocol.md §4.4, §11).
//!
//! - `not_recorded`: §4.4 answered 404 after the whole unknown window. The send is reconciled
//!   as far as the server allows; a reopen shows "not recorded" at once and never asks again
//!   (asking again would restart the window and the "confirming" label).
//! - `unreconcilable`: this MASC does not serve §4.4; likewise never asked again.
//! - `draft_returned`: the text went back into the composer once (a refusal's restore, or
//!   `Ctrl-O` on a send nothing more confirms). The composer never gets it back a second time:
//!   after that it holds only what the operator left there (C-65).
//! - `refused_because`: the server's reason of a refusal (C-35), written by the send itself, so
//!   the refusal's error row reads the same after a reopen (C-8).
//! - `turn_ref`: the turn the send's reply was recorded under, so a reopened chat binds the
//!   operator's persisted row to its turn as the live chat did (C-50, C-12).
//! - `ended`: how the send's turn ended (cancelled, failed, completed), so a stop confirmed
//!   before a reopen reads "interrupted · the turn stopped at your request" after it (C-44).
//! - `tool_calls`: the tool call ids the send's stream announced, one a line, appended as they
//!   arrive: a rebuilt chat joins the history's tool rows to the send (an older store's tool
//!   rows carry no request id) and marks them with how its turn ended.

use super::observation::Reconciliation;
use crate::outbox::StoredMark;

/// One fact to record for a request id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChatMark {
    NotRecorded {
        after_secs: u64,
    },
    Unreconcilable,
    DraftReturned,
    /// The server's reason of a refusal (C-35; sanitised where it is drawn).
    RefusedBecause(String),
    /// The turn the send's reply was recorded under (its reply details, or the §4.4 record's
    /// `outcome_ref`): a reload, reopen or restart binds the operator's persisted row to it
    /// as the live view did (C-50, C-12, C-13).
    TurnRef(String),
    /// How the send's turn ended ([`TURN_CANCELLED`], [`TURN_FAILED`], [`TURN_COMPLETED`]):
    /// a stop confirmed before a reopen still reads as confirmed after it (C-44).
    Ended(&'static str),
}

pub const TURN_CANCELLED: &str = "cancelled";
/// The list mark of the tool call ids a send's stream announced ([`tool_call_ids`]).
pub const TOOL_CALLS: &str = "tool_calls";

/// The tool call ids a `tool_calls` mark holds (one a line; blank lines are not ids).
pub fn tool_call_ids(value: &str) -> Vec<String> {
    value
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect()
}
pub const TURN_FAILED: &str = "failed";
pub const TURN_COMPLETED: &str = "completed";

impl ChatMark {
    pub fn name(&self) -> &'static str {
        match self {
            Self::NotRecorded { .. } => "not_recorded",
            Self::Unreconcilable => "unreconcilable",
            Self::DraftReturned => "draft_returned",
            Self::RefusedBecause(_) => "refused_because",
            Self::TurnRef(_) => "turn_ref",
            Self::Ended(_) => "ended",
        }
    }

    pub fn value(&self) -> Option<String> {
        match self {
            Self::NotRecorded { after_secs } => Some(after_secs.to_string()),
            Self::RefusedBecause(reason) | Self::TurnRef(reason) => Some(reason.clone()),
            Self::Ended(how) => Some((*how).to_string()),
            Self::Unreconcilable | Self::DraftReturned => None,
        }
    }
}

/// The marks read back for one send. An unknown mark name (a newer version's) is ignored; a
/// `not_recorded` whose value does not read as seconds is not taken as one.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SendMarks {
    pub not_recorded: Option<u64>,
    pub unreconcilable: bool,
    pub draft_returned: bool,
    pub refused_because: Option<String>,
}

impl SendMarks {
    pub fn read(stored: &[StoredMark]) -> Self {
        let mut marks = Self::default();
        for m in stored {
            match m.mark.as_str() {
                "not_recorded" => {
                    marks.not_recorded = m.value.as_deref().and_then(|v| v.parse().ok());
                }
                "unreconcilable" => marks.unreconcilable = true,
                "draft_returned" => marks.draft_returned = true,
                "refused_because" => marks.refused_because = m.value.clone(),
                _ => {}
            }
        }
        marks
    }

    /// The reconciliation already settled for good, if any: the send is not reconciled again.
    pub fn settled_reconciliation(&self) -> Option<Reconciliation> {
        match (self.not_recorded, self.unreconcilable) {
            (Some(after_secs), _) => Some(Reconciliation::Absent { after_secs }),
            (None, true) => Some(Reconciliation::NotServed),
            (None, false) => None,
        }
    }
}

impl Reconciliation {
    /// The mark a reconciliation leaves for good: nothing more will confirm the send.
    pub fn mark(&self) -> Option<ChatMark> {
        match self {
            Self::Absent { after_secs } => Some(ChatMark::NotRecorded {
                after_secs: *after_secs,
            }),
            Self::NotServed => Some(ChatMark::Unreconcilable),
            Self::Found(_) | Self::NotYetRecorded { .. } | Self::Unreadable { .. } => None,
        }
    }

    /// What a terminal record says to keep beside the send: the turn a succeeded one names
    /// (`outcome_ref`), and how the turn ended.
    pub fn record_marks(&self) -> Vec<ChatMark> {
        let Self::Found(r) = self else {
            return Vec::new();
        };
        let mut marks = Vec::new();
        if let crate::protocol::chat::OperationProgress::Succeeded { outcome_ref, .. } = &r.progress
        {
            marks.push(ChatMark::TurnRef(outcome_ref.clone()));
        }
        if r.progress.state().is_terminal() {
            marks.push(ChatMark::Ended(if r.progress.is_cancellation() {
                TURN_CANCELLED
            } else if r.progress.state() == crate::protocol::chat::OperationState::Succeeded {
                TURN_COMPLETED
            } else {
                TURN_FAILED
            }));
        }
        marks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored(mark: &str, value: Option<&str>) -> StoredMark {
        StoredMark {
            mark: mark.into(),
            value: value.map(str::to_string),
            at_ms: 0,
        }
    }

    #[test]
    fn c65_marks_read_back_as_the_reconciliation_that_ended_it() {
        for r in [
            Reconciliation::Absent { after_secs: 41 },
            Reconciliation::NotServed,
        ] {
            let m = r.mark().unwrap();
            let back = SendMarks::read(&[stored(m.name(), m.value().as_deref())]);
            assert_eq!(back.settled_reconciliation(), Some(r));
        }
        assert_eq!(
            Reconciliation::NotYetRecorded { waited_secs: 3 }.mark(),
            None
        );
        let odd = SendMarks::read(&[
            stored("not_recorded", Some("soon")),
            stored("from_a_newer_version", None),
            stored("draft_returned", None),
        ]);
        assert_eq!(odd.settled_reconciliation(), None);
        assert!(odd.draft_returned);
    }
}
