//! The saves journal's read of the outbox as the view keeps it: one slot, admitted by ticket in
//! the open epoch like any read, so a journal never shows another workspace's saves (G-6).
//! What the journal lists is built from it and the books (`view::save_path::journal`).

use crate::actors::contract::{Inbox, Inboxes, SourceKey, Ticket};
use crate::actors::saves::SAVES;
use crate::actors::saves::journal::{SaveJournalRead, SaveJournalSlot};
use crate::protocol::admission::AdmissionMode;
use crate::protocol::client::Admitted;
use crate::protocol::routes::RouteFamily;
use crate::view::admission::{EpochGate, ReadSlot, RejectReason, Slot};
use crate::view::surface::SurfaceModel;
use std::sync::Arc;
use std::time::Instant;

#[derive(Debug)]
pub struct SaveJournalModel {
    inbox: Inbox<SaveJournalSlot, SaveJournalRead>,
    /// The newest read of the outbox's rows of this workspace.
    pub rows: Slot<Arc<SaveJournalRead>>,
}

impl Default for SaveJournalModel {
    /// A model with an inbox of its own (tests, screens rendered without a runtime).
    fn default() -> Self {
        Self::new(&Inboxes::new())
    }
}

impl SaveJournalModel {
    pub fn new(inboxes: &Inboxes) -> Self {
        Self {
            inbox: inboxes.get(),
            rows: Slot::default(),
        }
    }

    /// The rows of the newest read (none before one, or when the outbox was unreadable).
    pub fn outbox_rows(&self) -> &[crate::outbox::SaveRow] {
        match self.rows.fetched.last().map(|o| &o.value.rows) {
            Some(Ok(rows)) => rows,
            _ => &[],
        }
    }

    /// This process's outbox session, once a read said which.
    pub fn session(&self) -> Option<&str> {
        self.rows
            .fetched
            .last()
            .map(|o| o.value.session.as_str())
            .filter(|s| !s.is_empty())
    }
}

impl SurfaceModel for SaveJournalModel {
    type Slot = SaveJournalSlot;
    type Payload = SaveJournalRead;

    fn inbox(&self) -> &Inbox<SaveJournalSlot, SaveJournalRead> {
        &self.inbox
    }

    fn dispatched(&mut self, ticket: &Ticket<SaveJournalSlot>, gate: &EpochGate) -> bool {
        self.rows.dispatched(ticket, gate)
    }

    fn judge(
        &mut self,
        ticket: &Ticket<SaveJournalSlot>,
        _: &SaveJournalRead,
        gate: &EpochGate,
    ) -> Result<(), RejectReason> {
        self.rows.judge(ticket, gate)
    }

    fn apply(&mut self, ticket: &Ticket<SaveJournalSlot>, read: SaveJournalRead, now: Instant) {
        // The outbox is this machine's own file: no server receipt to admit it by.
        let admitted = Admitted {
            value: Arc::new(read),
            mode: AdmissionMode::Receipt,
            from_cache: false,
        };
        self.rows.apply_with(ticket, Ok(admitted), now, |v| v);
    }

    fn retired(&mut self, ticket: &Ticket<SaveJournalSlot>) -> bool {
        self.rows.retired(ticket)
    }

    fn slot(&mut self, _: &SaveJournalSlot) -> Option<&mut dyn ReadSlot> {
        Some(&mut self.rows)
    }

    fn slots(&mut self) -> Vec<(SourceKey, &mut dyn ReadSlot)> {
        vec![(SAVES, &mut self.rows as &mut dyn ReadSlot)]
    }

    /// An unreadable outbox is the journal's own trouble, not the workspace connection's.
    fn any_failed(&self) -> bool {
        false
    }

    fn not_served(&self) -> Vec<RouteFamily> {
        Vec::new()
    }
}
