//! The live Sources view's model (the System `sources` pane): the newest snapshot of every
//! source's live numbers (`crate::timeline::live`), one slot admitted by ticket like any read.
//! The snapshot is computed on the `source_stats` source's worker; the view only keeps it.

use super::admission::{EpochGate, ReadSlot, RejectReason, Slot};
use super::surface::SurfaceModel;
use crate::actors::contract::{Inbox, Inboxes, SourceKey, Ticket};
use crate::actors::source_stats::{SOURCE_STATS, SourceStatsObservation, SourceStatsSlot};
use crate::protocol::admission::AdmissionMode;
use crate::protocol::client::Admitted;
use crate::protocol::routes::RouteFamily;
use crate::timeline::live::LiveSnapshot;
use std::sync::Arc;
use std::time::Instant;

#[derive(Debug)]
pub struct SourcesModel {
    inbox: Inbox<SourceStatsSlot, SourceStatsObservation>,
    pub snapshot: Slot<Arc<LiveSnapshot>>,
}

impl Default for SourcesModel {
    fn default() -> Self {
        Self::new(&Inboxes::new())
    }
}

impl SourcesModel {
    pub fn new(inboxes: &Inboxes) -> Self {
        Self {
            inbox: inboxes.get(),
            snapshot: Slot::default(),
        }
    }

    /// The newest snapshot, if one was admitted.
    pub fn latest(&self) -> Option<&LiveSnapshot> {
        self.snapshot.fetched.last().map(|o| o.value.as_ref())
    }
}

impl SurfaceModel for SourcesModel {
    type Slot = SourceStatsSlot;
    type Payload = SourceStatsObservation;

    fn inbox(&self) -> &Inbox<SourceStatsSlot, SourceStatsObservation> {
        &self.inbox
    }

    fn dispatched(&mut self, ticket: &Ticket<SourceStatsSlot>, gate: &EpochGate) -> bool {
        self.snapshot.dispatched(ticket, gate)
    }

    fn judge(
        &mut self,
        ticket: &Ticket<SourceStatsSlot>,
        _: &SourceStatsObservation,
        gate: &EpochGate,
    ) -> Result<(), RejectReason> {
        self.snapshot.judge(ticket, gate)
    }

    fn apply(
        &mut self,
        ticket: &Ticket<SourceStatsSlot>,
        payload: SourceStatsObservation,
        now: Instant,
    ) {
        // Made in this process, not read from a server: no receipt to check, so it is never
        // flagged as admitted in health mode.
        let admitted = Admitted {
            value: payload.0,
            mode: AdmissionMode::Receipt,
            from_cache: false,
        };
        self.snapshot.apply_with(ticket, Ok(admitted), now, |v| v);
    }

    fn retired(&mut self, ticket: &Ticket<SourceStatsSlot>) -> bool {
        self.snapshot.retired(ticket)
    }

    fn slot(&mut self, _: &SourceStatsSlot) -> Option<&mut dyn ReadSlot> {
        Some(&mut self.snapshot)
    }

    fn slots(&mut self) -> Vec<(SourceKey, &mut dyn ReadSlot)> {
        vec![(SOURCE_STATS, &mut self.snapshot as &mut dyn ReadSlot)]
    }

    fn any_failed(&self) -> bool {
        self.snapshot.failed()
    }

    fn not_served(&self) -> Vec<RouteFamily> {
        Vec::new()
    }
}
