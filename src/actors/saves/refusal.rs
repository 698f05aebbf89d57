//! Why the machinery itself ended a save without sending it, or left its outcome unknown: a
//! closed set ([`Refusal`]), each with its token (traces, outbox reasons and chat causes carry
//! the token, never prose, G-10), its §11 class and the words a screen shows for it.
//!
//! The tokens are a stored format: outbox rows written by earlier sessions carry them, so a
//! token is never renamed ([`Refusal::parse`] reads every one back; a test pins them).

use crate::protocol::outcome::SaveClass;
use std::fmt;

/// One refusal of the save machinery.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Refusal {
    /// No epoch, or not the one the operator saw when submitting (K-5).
    NoEpoch,
    /// The outbox could not be opened: nothing is sent that is not on disk first.
    OutboxUnavailable,
    /// The outbox did not take the row (or a later step of it).
    OutboxUnwritable,
    /// The inputs could not be serialised for the outbox.
    InputsUnrecordable,
    /// The fresh `/health` pre-check served another workspace, or a booting one (§2.4).
    PrecheckIdentity,
    /// The fresh `/health` pre-check failed; `class` is the client's error class token
    /// (`timeout`, `status_503`, …), `None` when the row does not name it.
    PrecheckFailed { class: Option<String> },
    /// The save's actor ended without a receipt.
    NoReceipt,
    /// Left by an earlier run before it was sent (read back from the outbox).
    RestoredUnsent,
    /// Left by an earlier run while it may have been sent.
    RestoredUnknown,
}

const PRECHECK_FAILED: &str = "precheck_failed";

impl Refusal {
    /// Every refusal without a detail (tests and docs enumerate them).
    pub const PLAIN: [Refusal; 8] = [
        Self::NoEpoch,
        Self::OutboxUnavailable,
        Self::OutboxUnwritable,
        Self::InputsUnrecordable,
        Self::PrecheckIdentity,
        Self::NoReceipt,
        Self::RestoredUnsent,
        Self::RestoredUnknown,
    ];

    /// The pre-check failed with the client's error `class`.
    pub fn precheck_failed(class: impl fmt::Display) -> Self {
        Self::PrecheckFailed {
            class: Some(class.to_string()),
        }
    }

    /// The stored token (`precheck_failed_<class>` with a class).
    pub fn token(&self) -> String {
        match self {
            Self::PrecheckFailed { class: Some(class) } => format!("{PRECHECK_FAILED}_{class}"),
            other => other.plain_token().to_string(),
        }
    }

    fn plain_token(&self) -> &'static str {
        match self {
            Self::NoEpoch => "no_epoch",
            Self::OutboxUnavailable => "outbox_unavailable",
            Self::OutboxUnwritable => "outbox_unwritable",
            Self::InputsUnrecordable => "inputs_unrecordable",
            Self::PrecheckIdentity => "precheck_identity",
            Self::PrecheckFailed { .. } => PRECHECK_FAILED,
            Self::NoReceipt => "no_receipt",
            Self::RestoredUnsent => "restored_unsent",
            Self::RestoredUnknown => "restored_unknown",
        }
    }

    /// The refusal a stored token names; `None` for anything else (a server's reason).
    pub fn parse(token: &str) -> Option<Self> {
        if let Some(plain) = Self::PLAIN.into_iter().find(|r| r.plain_token() == token) {
            return Some(plain);
        }
        let class = token.strip_prefix(PRECHECK_FAILED)?;
        match class.strip_prefix('_') {
            None if class.is_empty() => Some(Self::PrecheckFailed { class: None }),
            Some(class) if !class.is_empty() => Some(Self::PrecheckFailed {
                class: Some(class.to_string()),
            }),
            _ => None,
        }
    }

    /// What a screen says for it.
    pub fn words(&self) -> &'static str {
        match self {
            Self::NoEpoch => "workspace not confirmed, or changed since",
            Self::OutboxUnavailable => "local outbox unavailable",
            Self::OutboxUnwritable => "local outbox did not record it",
            Self::InputsUnrecordable => "inputs could not be recorded",
            Self::PrecheckIdentity => "workspace changed before sending",
            Self::PrecheckFailed { .. } => "workspace check before sending failed",
            Self::NoReceipt => "the save ended without a receipt",
            Self::RestoredUnsent => "left by an earlier run before it was sent",
            Self::RestoredUnknown => "left by an earlier run while it may have been sent",
        }
    }

    /// An earlier run's row read back unsettled: not sent when it never reached the network
    /// (`written`), else outcome unknown.
    pub fn restored(class: SaveClass) -> Self {
        match class {
            SaveClass::NotSent => Self::RestoredUnsent,
            _ => Self::RestoredUnknown,
        }
    }

    /// Its §11 class: not sent, except where the request may have left (no receipt, an
    /// earlier run's `sending` row): outcome unknown.
    pub fn class(&self) -> SaveClass {
        match self {
            Self::NoReceipt | Self::RestoredUnknown => SaveClass::OutcomeUnknown,
            _ => SaveClass::NotSent,
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.token())
    }
}

/// What a screen says for a receipt's reason: the machinery's words for its own token, any
/// other reason (a server's) as it is.
pub fn describe(reason: &str) -> &str {
    match Refusal::parse(reason) {
        Some(refusal) => refusal.words(),
        None => reason,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stored tokens, as earlier sessions wrote them into outbox rows: each reads back as
    /// the same refusal and is written the same way again.
    #[test]
    fn stored_tokens_read_back_and_are_written_unchanged() {
        let stored = [
            ("no_epoch", Refusal::NoEpoch),
            ("outbox_unavailable", Refusal::OutboxUnavailable),
            ("outbox_unwritable", Refusal::OutboxUnwritable),
            ("inputs_unrecordable", Refusal::InputsUnrecordable),
            ("precheck_identity", Refusal::PrecheckIdentity),
            ("precheck_failed", Refusal::PrecheckFailed { class: None }),
            (
                "precheck_failed_timeout",
                Refusal::precheck_failed("timeout"),
            ),
            (
                "precheck_failed_status_503",
                Refusal::precheck_failed("status_503"),
            ),
            ("no_receipt", Refusal::NoReceipt),
            ("restored_unsent", Refusal::RestoredUnsent),
            ("restored_unknown", Refusal::RestoredUnknown),
        ];
        for (token, refusal) in &stored {
            let token = *token;
            assert_eq!(Refusal::parse(token), Some(refusal.clone()), "{token}");
            assert_eq!(refusal.token(), token);
            assert!(token.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
            assert_ne!(describe(token), token);
        }
        assert_eq!(stored.len(), Refusal::PLAIN.len() + 3);
    }

    /// An earlier session's outbox rows, settled with the machinery's tokens, read back by a
    /// later session as the same typed refusals, with the class the row stored.
    #[test]
    fn an_earlier_sessions_rows_read_back_typed() {
        use crate::outbox::{NewSave, Outbox, SaveRowState};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("outbox.sqlite3");
        let rows = [
            ("save-1", "no_epoch", SaveClass::NotSent),
            ("save-2", "precheck_failed_timeout", SaveClass::NotSent),
            ("save-3", "no_receipt", SaveClass::OutcomeUnknown),
            ("save-4", "restored_unknown", SaveClass::OutcomeUnknown),
        ];
        {
            let earlier = Outbox::open_path(&path).unwrap();
            for (id, token, class) in rows {
                earlier
                    .save_written(&NewSave {
                        save_id: id.into(),
                        kind: "board_vote".into(),
                        workspace: "/srv/ws/.masc".into(),
                        target: "post-1".into(),
                        intent_key: id.into(),
                        intent: "{}".into(),
                        epoch: 1,
                        generation: 1,
                    })
                    .unwrap();
                earlier
                    .save_state(id, SaveRowState::Settled(class), Some(token))
                    .unwrap();
            }
        }
        let later = Outbox::open_path(&path).unwrap();
        for (id, _, class) in rows {
            let row = later.save_row(id).unwrap().unwrap();
            let refusal = row.reason.as_deref().and_then(Refusal::parse).unwrap();
            assert_eq!(row.state, SaveRowState::Settled(refusal.class()), "{id}");
            assert_eq!(refusal.class(), class);
        }
    }

    /// A receipt made from a refusal gives the same refusal back, typed, whatever the kind's
    /// receipt type; a server's refusal is none.
    #[test]
    fn receipts_carry_the_refusal_typed() {
        use crate::actors::chat::observation::SendOutcome;
        use crate::actors::saves::Receipt;
        use crate::protocol::goal_transition::GoalTransitionOutcome;
        use crate::protocol::outcome::SaveOutcome;
        type Plain = SaveOutcome<(), std::convert::Infallible>;
        let all = Refusal::PLAIN
            .into_iter()
            .chain([Refusal::precheck_failed("timeout")]);
        for refusal in all {
            let plain = Plain::refused(refusal.clone());
            assert_eq!(Receipt::class(&plain), refusal.class());
            assert_eq!(plain.refusal(), Some(refusal.clone()));
            assert_eq!(
                SendOutcome::refused(refusal.clone()).refusal(),
                Some(refusal.clone())
            );
            let goal = GoalTransitionOutcome::refused(refusal.clone());
            assert_eq!(
                (goal.class(), goal.refusal()),
                (refusal.class(), Some(refusal))
            );
        }
        let server = Plain::NotApplied {
            reason: "HTTP 400: no".into(),
        };
        assert_eq!(server.refusal(), None);
        let transport = Plain::NotSent {
            reason: "connection refused".into(),
        };
        assert_eq!(transport.refusal(), None);
    }

    #[test]
    fn server_reasons_are_not_refusals_and_pass_through() {
        for reason in [
            "pending confirmation expired",
            "HTTP 400: Post not found: p",
            "precheck_failedx",
            "precheck_failed_",
            "",
        ] {
            assert_eq!(Refusal::parse(reason), None, "{reason}");
            assert_eq!(describe(reason), reason);
        }
    }

    #[test]
    fn only_a_refusal_after_the_request_may_have_left_is_unknown() {
        let unknown: Vec<String> = Refusal::PLAIN
            .iter()
            .filter(|r| r.class() == SaveClass::OutcomeUnknown)
            .map(Refusal::token)
            .collect();
        assert_eq!(unknown, ["no_receipt", "restored_unknown"]);
        assert_eq!(
            Refusal::precheck_failed("timeout").class(),
            SaveClass::NotSent
        );
    }
}
