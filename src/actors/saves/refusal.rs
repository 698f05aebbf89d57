//! Why the machinery itself ended a save without sending it, or left its outcome unknown: a
//! closed vocabulary of tokens (traces, outbox reasons and chat causes carry the token, never
//! prose, G-10), each with the words a screen shows for it.

/// No epoch, or not the one the operator saw when submitting (K-5).
pub const NO_EPOCH: &str = "no_epoch";
/// The outbox could not be opened: nothing is sent that is not on disk first.
pub const OUTBOX_UNAVAILABLE: &str = "outbox_unavailable";
/// The outbox did not take the row (or a later step of it).
pub const OUTBOX_UNWRITABLE: &str = "outbox_unwritable";
/// The inputs could not be serialised for the outbox.
pub const INPUTS_UNRECORDABLE: &str = "inputs_unrecordable";
/// The fresh `/health` pre-check served another workspace, or a booting one (§2.4).
pub const PRECHECK_IDENTITY: &str = "precheck_identity";
/// The fresh `/health` pre-check failed (`precheck_failed` alone, or with the error class:
/// `precheck_failed_timeout`).
pub const PRECHECK_FAILED: &str = "precheck_failed";
/// The save's actor ended without a receipt.
pub const NO_RECEIPT: &str = "no_receipt";
/// Left by an earlier run before it was sent (read back from the outbox).
pub const RESTORED_UNSENT: &str = "restored_unsent";
/// Left by an earlier run while it may have been sent.
pub const RESTORED_UNKNOWN: &str = "restored_unknown";

/// What a screen says for a machinery token; anything else (a server's reason) as it is.
pub fn describe(reason: &str) -> &str {
    match reason {
        NO_EPOCH => "workspace not confirmed, or changed since",
        OUTBOX_UNAVAILABLE => "local outbox unavailable",
        OUTBOX_UNWRITABLE => "local outbox did not record it",
        INPUTS_UNRECORDABLE => "inputs could not be recorded",
        PRECHECK_IDENTITY => "workspace changed before sending",
        NO_RECEIPT => "the save ended without a receipt",
        RESTORED_UNSENT => "left by an earlier run before it was sent",
        RESTORED_UNKNOWN => "left by an earlier run while it may have been sent",
        other if other.starts_with(PRECHECK_FAILED) => "workspace check before sending failed",
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_snake_case_and_described_while_server_reasons_pass_through() {
        for token in [
            NO_EPOCH,
            OUTBOX_UNAVAILABLE,
            OUTBOX_UNWRITABLE,
            INPUTS_UNRECORDABLE,
            PRECHECK_IDENTITY,
            PRECHECK_FAILED,
            NO_RECEIPT,
            RESTORED_UNSENT,
            RESTORED_UNKNOWN,
        ] {
            assert!(token.chars().all(|c| c.is_ascii_lowercase() || c == '_'));
            assert_ne!(describe(token), token);
        }
        assert_eq!(
            describe("precheck_failed_timeout"),
            describe(PRECHECK_FAILED)
        );
        assert_eq!(
            describe("pending confirmation expired"),
            "pending confirmation expired"
        );
    }
}
