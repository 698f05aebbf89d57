//! What a decision's state says, in words and tone: each receipt of an approval decision distinct.

use crate::actors::decisions::approval::ApprovalDecision;
use crate::actors::saves::refusal;
use crate::protocol::operator::{Decision, DecisionResult};
use crate::protocol::outcome::{ApprovalDecisionOutcome, SaveClass, SaveOutcome};
use crate::view::saves::{SaveEntry, SavePhase};
use crate::view::text::sanitize;
use crate::view::theme::Tone;

pub(super) fn verb(d: Decision) -> &'static str {
    match d {
        Decision::Confirm => "confirm",
        Decision::Deny => "deny",
    }
}

/// What a decision's state says, in words and tone (each outcome distinct).
pub fn decision_words(entry: &SaveEntry<ApprovalDecision>) -> (String, Tone) {
    let what = verb(entry.intent.decision);
    let receipt: &ApprovalDecisionOutcome = match &entry.phase {
        SavePhase::Submitted | SavePhase::Written => {
            return (format!("{what}: waiting to send"), Tone::Busy);
        }
        SavePhase::Sending => return (format!("{what}: sending…"), Tone::Busy),
        SavePhase::Ended(r) => r,
        SavePhase::Restored(r) => {
            let (text, tone) = restored_words(r);
            return (format!("{what}: {text}"), tone);
        }
    };
    let (text, tone) = match receipt {
        SaveOutcome::Applied { detail, .. } => match &detail.result {
            DecisionResult::Ran { .. } => ("confirmed · the action ran".to_string(), Tone::Good),
            DecisionResult::Deferred { .. } => (
                "confirmed · accepted, delivery pending".to_string(),
                Tone::Good,
            ),
            DecisionResult::Failed { detail } => (
                format!(
                    "confirmed · approval consumed, the action failed: {}",
                    sanitize(detail)
                ),
                Tone::Bad,
            ),
            DecisionResult::Denied => ("denied · nothing ran".to_string(), Tone::Good),
        },
        SaveOutcome::Conflict { .. } => (
            format!(
                "{what}: no longer pending (decided elsewhere, expired or gone) · nothing ran for this request"
            ),
            Tone::Warn,
        ),
        SaveOutcome::NotApplied { reason } if reason.contains("pending confirmation expired") => (
            format!("{what}: expired · the server dropped it; its action never runs"),
            Tone::Warn,
        ),
        SaveOutcome::NotApplied { reason } if reason.contains("not allowed") => (
            format!("{what}: not permitted · {}", sanitize(reason)),
            Tone::Bad,
        ),
        SaveOutcome::NotApplied { reason } => (
            format!("{what}: not applied · {}", sanitize(reason)),
            Tone::Bad,
        ),
        SaveOutcome::NotSent { reason } => (
            format!("{what}: not sent · {}", sanitize(refusal::describe(reason))),
            Tone::Bad,
        ),
        SaveOutcome::OutcomeUnknown { reason } => (
            format!(
                "{what}: outcome unknown · {} · re-read before deciding again (never resent)",
                sanitize(refusal::describe(reason))
            ),
            Tone::Bad,
        ),
        SaveOutcome::Unchanged => (format!("{what}: unchanged"), Tone::Dim),
    };
    (text, tone)
}

fn restored_words(r: &ApprovalDecisionOutcome) -> (String, Tone) {
    match r.save_class() {
        SaveClass::NotSent => (
            "not sent (an earlier run stopped before sending it)".to_string(),
            Tone::Warn,
        ),
        _ => (
            "outcome unknown (an earlier run stopped while it may have been sent; never resent)"
                .to_string(),
            Tone::Bad,
        ),
    }
}
