//! [`SaveRun`]: one save while its request runs, as its kind sees it — the request's inputs,
//! and the save's own ticket for what the kind reports before its receipt (progress
//! observations, an acceptance recorded in the outbox).

use super::{SaveId, SaveKind};
use crate::actors::contract::{Outlet, Ticket};
use crate::outbox::{Outbox, SaveRowState};
use crate::protocol::admission::ReadAuthority;
use crate::protocol::client::WorkspaceClient;

/// One save of kind `K` while its request runs.
pub struct SaveRun<K: SaveKind> {
    pub save_id: SaveId,
    pub intent: K::Intent,
    /// The submit-time authority (K-5).
    pub authority: ReadAuthority,
    pub client: WorkspaceClient,
    pub(super) ticket: Ticket<K::Slot>,
    pub(super) outlet: Outlet<K::Slot, K::Payload>,
    pub(super) outbox: Option<Outbox>,
}

impl<K: SaveKind> SaveRun<K> {
    /// Posts a progress observation with the save's own ticket (the receipt comes later,
    /// from the operation).
    pub fn observe(&self, payload: K::Payload) {
        self.outlet.observed(self.ticket.clone(), payload);
    }

    /// Traces a step of this save's request the save itself dropped (e.g. a replayed stream
    /// event, `duplicate_event`), as a `reject` of its ticket.
    pub fn reject_step(&self, reason: &str) {
        crate::timeline::stage::reject(&self.ticket, reason);
    }

    /// Traces a progress step of this save's request that changes its course (e.g. a cut
    /// stream resumed, `resumed`), as an `observe` of its ticket with that outcome.
    pub fn trace_step(&self, outcome: &str) {
        crate::timeline::stage::observe(&self.ticket, outcome);
    }

    /// Records a step of the save durably (off the runtime's threads); `false` when the
    /// outbox did not take it.
    pub async fn record(&self, state: SaveRowState, reason: Option<String>) -> bool {
        let Some(outbox) = self.outbox.clone() else {
            return false;
        };
        let id = self.save_id.0.clone();
        let done =
            tokio::task::spawn_blocking(move || outbox.save_state(&id, state, reason.as_deref()))
                .await;
        match done {
            Ok(Ok(_)) => true,
            _ => {
                tracing::warn!(target: "masc_tui::saves", kind = K::KIND, state = %state.as_str(), "outbox state not written");
                false
            }
        }
    }

    /// Records a fact about this save beside its row (the outbox's `chat_marks`, by `key`,
    /// written once); `false` when the outbox did not take it.
    pub async fn mark(&self, key: String, mark: &'static str, value: Option<String>) -> bool {
        let Some(outbox) = self.outbox.clone() else {
            return false;
        };
        let done =
            tokio::task::spawn_blocking(move || outbox.chat_mark(&key, mark, value.as_deref()))
                .await;
        let kept = matches!(done, Ok(Ok(_)));
        if !kept {
            tracing::warn!(target: "masc_tui::saves", kind = K::KIND, mark, "outbox mark not written");
        }
        kept
    }

    /// Adds `item` to the list `mark` keeps beside this save (the outbox's `chat_marks`, by
    /// `key`), without waiting: called from a stream's progress as each item is learned, off
    /// the view and without holding the stream back; a failed write is traced.
    pub fn append_mark(&self, key: String, mark: &'static str, item: String) {
        let Some(outbox) = self.outbox.clone() else {
            return;
        };
        tokio::task::spawn_blocking(move || {
            if outbox.chat_mark_append(&key, mark, &item).is_err() {
                tracing::warn!(target: "masc_tui::saves", kind = K::KIND, mark, "outbox mark not appended");
            }
        });
    }
}
