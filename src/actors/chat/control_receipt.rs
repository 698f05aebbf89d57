//! The receipt of a turn control save (`/interrupt`, `/steer`, `/run-next`) kept beside its
//! outbox row (`chat_marks` `control_receipt`, by save id; chat-screen.md C-31, C-44): the
//! chat surface's books live in memory only, so a restarted process rebuilds each control row
//! from what this keeps — the facts its row draws, nothing more. A chat control token is never
//! kept (it is stale after a restart: the next census gives a fresh one).

use crate::actors::saves::{SaveKind, SaveRun};
use crate::protocol::outcome::SaveOutcome;
use crate::protocol::turn_control::{
    InterruptOutcome, InterruptSignalled, Prioritized, RunNextConflict, RunNextOutcome,
    TurnNotCurrent,
};
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};

/// The mark's name.
pub const CONTROL_RECEIPT: &str = "control_receipt";

/// What a control row draws of a receipt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "class", rename_all = "snake_case")]
pub enum ControlReceipt {
    Applied {
        /// Interrupt: the Keeper's queue is held after the stop.
        #[serde(default)]
        paused: bool,
        /// Steer: the running turn was asked to stop.
        #[serde(default)]
        signalled: bool,
    },
    Unchanged,
    Conflict {
        /// The server's own words of a 409 (steer).
        #[serde(default)]
        detail: Option<String>,
    },
    NotApplied {
        reason: String,
    },
    NotSent {
        reason: String,
    },
    OutcomeUnknown {
        reason: String,
    },
}

impl ControlReceipt {
    fn of<A, C>(
        outcome: &SaveOutcome<A, C>,
        applied: impl Fn(&A) -> Self,
        conflict: impl Fn(&C) -> Self,
    ) -> Self {
        match outcome {
            SaveOutcome::Applied { detail, .. } => applied(detail),
            SaveOutcome::Unchanged => Self::Unchanged,
            SaveOutcome::Conflict { current } => conflict(current),
            SaveOutcome::NotApplied { reason } => Self::NotApplied {
                reason: reason.clone(),
            },
            SaveOutcome::NotSent { reason } => Self::NotSent {
                reason: reason.clone(),
            },
            SaveOutcome::OutcomeUnknown { reason } => Self::OutcomeUnknown {
                reason: reason.clone(),
            },
        }
    }

    fn into_outcome<A, C>(
        self,
        applied: impl Fn(bool, bool) -> A,
        conflict: impl Fn(Option<String>) -> C,
    ) -> SaveOutcome<A, C> {
        match self {
            Self::Applied { paused, signalled } => SaveOutcome::Applied {
                detail: applied(paused, signalled),
                warning: None,
            },
            Self::Unchanged => SaveOutcome::Unchanged,
            Self::Conflict { detail } => SaveOutcome::Conflict {
                current: conflict(detail),
            },
            Self::NotApplied { reason } => SaveOutcome::NotApplied { reason },
            Self::NotSent { reason } => SaveOutcome::NotSent { reason },
            Self::OutcomeUnknown { reason } => SaveOutcome::OutcomeUnknown { reason },
        }
    }

    pub fn of_interrupt(outcome: &InterruptOutcome) -> Self {
        Self::of(
            outcome,
            |s| Self::Applied {
                paused: s.paused,
                signalled: true,
            },
            |_| Self::Conflict { detail: None },
        )
    }

    pub fn of_steer(outcome: &RunNextOutcome) -> Self {
        Self::of(
            outcome,
            |p| Self::Applied {
                paused: false,
                signalled: p.signalled,
            },
            |c| Self::Conflict {
                detail: c.detail.clone(),
            },
        )
    }

    pub fn into_interrupt(self) -> InterruptOutcome {
        self.into_outcome(
            |paused, _| InterruptSignalled {
                turn_id: None,
                paused,
                chat_control_token: None,
            },
            |_| TurnNotCurrent {
                current_request_id: None,
            },
        )
    }

    pub fn into_steer(self) -> RunNextOutcome {
        self.into_outcome(
            |_, signalled| Prioritized { signalled },
            |detail| RunNextConflict { detail },
        )
    }
}

/// A control kind's `run`: its request, then the receipt kept beside its row (written once; a
/// failed write is traced by `mark`), so a restart rebuilds its row (C-31, C-44).
pub fn run_keeping<K: SaveKind>(
    run: SaveRun<K>,
    receipt_of: fn(&K::Receipt) -> ControlReceipt,
) -> BoxFuture<'static, K::Receipt> {
    Box::pin(async move {
        let outcome = K::perform(
            run.client.clone(),
            run.authority.clone(),
            run.intent.clone(),
        )
        .await;
        if let Ok(json) = serde_json::to_string(&receipt_of(&outcome)) {
            run.mark(run.save_id.0.clone(), CONTROL_RECEIPT, Some(json))
                .await;
        }
        outcome
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// C-44: what a control row draws reads back the same from the kept mark.
    #[test]
    fn c44_a_kept_control_receipt_reads_back_as_the_row_drew_it() {
        let interrupt: InterruptOutcome = SaveOutcome::Applied {
            detail: InterruptSignalled {
                turn_id: Some(4),
                paused: true,
                chat_control_token: Some("secret".into()),
            },
            warning: None,
        };
        let kept = serde_json::to_string(&ControlReceipt::of_interrupt(&interrupt)).unwrap();
        assert!(!kept.contains("secret"), "no token kept: {kept}");
        let back: ControlReceipt = serde_json::from_str(&kept).unwrap();
        assert!(matches!(
            back.into_interrupt(),
            SaveOutcome::Applied { detail, .. } if detail.paused && detail.chat_control_token.is_none()
        ));
        let steer: RunNextOutcome = SaveOutcome::Conflict {
            current: RunNextConflict {
                detail: Some("already running".into()),
            },
        };
        let kept = serde_json::to_string(&ControlReceipt::of_steer(&steer)).unwrap();
        let back: ControlReceipt = serde_json::from_str(&kept).unwrap();
        assert_eq!(back.into_steer(), steer);
        let refused: RunNextOutcome = SaveOutcome::NotApplied {
            reason: "status_403".into(),
        };
        let back: ControlReceipt = serde_json::from_str(
            &serde_json::to_string(&ControlReceipt::of_steer(&refused)).unwrap(),
        )
        .unwrap();
        assert_eq!(back.into_steer(), refused);
        assert!(
            serde_json::from_str::<ControlReceipt>(r#"{"class":"from_a_newer_version"}"#).is_err()
        );
    }
}
