//! What a newer MASC's acceptance says about its interactive admission (protocol.md §14.15):
//! the receipt is a status notice before the reply, never the operator's speech (C-34); the
//! `stale_control` and `paused` notices name their reason; an `interrupt_error` is an error row,
//! always visible (C-44). An acceptance without the block (an older MASC, or a send that
//! carried no admission intent) draws nothing.

use crate::protocol::chat::{InteractiveAdmission, InteractiveKind};
use crate::view::text::sanitize;
use crate::view::transcript::model::{Entry, EntryKind, FailureOrigin, Speaker};

/// The rows of one send's interactive admission (none when it says nothing new).
pub fn rows(request_id: &str, block: &InteractiveAdmission) -> Vec<Entry> {
    let mut rows = Vec::new();
    let status = |text: String| {
        Entry::new(
            format!("{request_id}:admission"),
            Speaker::System,
            EntryKind::Status,
            text,
        )
        .with_request(request_id)
    };
    let notice = match block.outcome.kind() {
        InteractiveKind::Applied => match (block.signalled, block.resumed) {
            (true, true) => Some(
                "admitted · the running turn was asked to stop, the paused queue resumed".into(),
            ),
            (true, false) => Some("admitted · the running turn was asked to stop".into()),
            (false, true) => Some("admitted · the Keeper's paused queue resumed".into()),
            (false, false) => None,
        },
        InteractiveKind::StaleControl => Some(
            "queued · the turn controls changed after they were read; the newer stop or resume stays"
                .into(),
        ),
        InteractiveKind::Paused => Some("queued · the Keeper stays paused".into()),
        InteractiveKind::Replayed => None,
        InteractiveKind::Unknown => Some(format!(
            "accepted · what the admission did to the turn is unknown ({})",
            sanitize(block.outcome.as_str())
        )),
    };
    rows.extend(notice.map(status));
    if let Some(error) = block
        .interrupt_error
        .as_deref()
        .filter(|e| !e.trim().is_empty())
    {
        rows.push(
            Entry::new(
                format!("{request_id}:admission-error"),
                Speaker::System,
                EntryKind::Failure(FailureOrigin::Other("interrupt".into())),
                format!("interrupt · {error}"),
            )
            .with_request(request_id),
        );
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::chat::InteractiveOutcome;

    fn block(
        outcome: &str,
        signalled: bool,
        resumed: bool,
        error: Option<&str>,
    ) -> InteractiveAdmission {
        InteractiveAdmission {
            outcome: InteractiveOutcome(outcome.into()),
            chat_control_token: "t".into(),
            signalled,
            resumed,
            interrupt_error: error.map(str::to_string),
        }
    }

    /// §14.15, C-34, C-44, C-54: a status notice (never speech) only when the admission did
    /// something or could not; the reason is named; an interrupt error is an error row.
    #[test]
    fn s14_15_c44_the_admission_notice_names_what_it_did() {
        assert!(rows("r", &block("applied", false, false, None)).is_empty());
        assert!(rows("r", &block("replayed", false, false, None)).is_empty());
        let resumed = rows("r", &block("applied", false, true, None));
        assert_eq!(resumed.len(), 1);
        assert_eq!(resumed[0].kind, EntryKind::Status);
        assert_eq!(resumed[0].speaker, Speaker::System);
        assert!(resumed[0].text.contains("paused queue resumed"));
        let both = rows("r", &block("applied", true, true, None));
        assert!(
            both[0]
                .text
                .contains("asked to stop, the paused queue resumed")
        );
        assert!(
            rows("r", &block("stale_control", false, false, None))[0]
                .text
                .contains("controls changed")
        );
        assert!(
            rows("r", &block("paused", false, false, None))[0]
                .text
                .contains("stays paused")
        );
        assert!(
            rows("r", &block("later", false, false, None))[0]
                .text
                .contains("unknown (later)")
        );
        let failed = rows("r", &block("applied", false, false, Some("cancel failed")));
        assert_eq!(failed.len(), 1);
        assert!(matches!(failed[0].kind, EntryKind::Failure(_)));
        assert_eq!(failed[0].text, "interrupt · cancel failed");
    }
}
