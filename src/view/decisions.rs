//! The Decisions model: this actor's pending operator approvals (§10.5) and the open asks
//! (§10.1), two independent slots (docs/audits/decisions.md).

use super::admission::{EpochGate, ReadSlot, RejectReason, Slot};
use super::surface::SurfaceModel;
use crate::actors::contract::{Inbox, Inboxes, SourceKey, Ticket};
use crate::actors::decisions::{DECISIONS, DecisionsObservation, DecisionsSlot};
use crate::protocol::asks::AskList;
use crate::protocol::operator::OperatorApprovals;
use std::sync::Arc;
use std::time::Instant;

#[derive(Debug)]
pub struct DecisionsModel {
    inbox: Inbox<DecisionsSlot, DecisionsObservation>,
    /// This actor's pending operator approvals (§10.5), shown on the Overview.
    pub approvals: Slot<Arc<OperatorApprovals>>,
    /// Open asks of the fleet (§10.1), shown on the Overview.
    pub asks: Slot<Arc<AskList>>,
}

impl Default for DecisionsModel {
    /// A model with an inbox of its own (tests, screens rendered without a runtime).
    fn default() -> Self {
        Self::new(&Inboxes::new())
    }
}

impl DecisionsModel {
    pub fn new(inboxes: &Inboxes) -> Self {
        Self {
            inbox: inboxes.get(),
            approvals: Slot::default(),
            asks: Slot::default(),
        }
    }

    fn slot_of(&mut self, key: &DecisionsSlot) -> &mut dyn ReadSlot {
        match key {
            DecisionsSlot::Approvals => &mut self.approvals,
            DecisionsSlot::Asks => &mut self.asks,
        }
    }
}

impl SurfaceModel for DecisionsModel {
    type Slot = DecisionsSlot;
    type Payload = DecisionsObservation;

    fn inbox(&self) -> &Inbox<DecisionsSlot, DecisionsObservation> {
        &self.inbox
    }

    fn dispatched(&mut self, ticket: &Ticket<DecisionsSlot>, gate: &EpochGate) -> bool {
        match ticket.slot {
            DecisionsSlot::Approvals => self.approvals.dispatched(ticket, gate),
            DecisionsSlot::Asks => self.asks.dispatched(ticket, gate),
        }
    }

    fn judge(
        &mut self,
        ticket: &Ticket<DecisionsSlot>,
        payload: &DecisionsObservation,
        gate: &EpochGate,
    ) -> Result<(), RejectReason> {
        match (&ticket.slot, payload) {
            (DecisionsSlot::Approvals, DecisionsObservation::Approvals(_)) => {
                self.approvals.judge(ticket, gate)
            }
            (DecisionsSlot::Asks, DecisionsObservation::Asks(_)) => self.asks.judge(ticket, gate),
            _ => Err(RejectReason::UnknownSlot),
        }
    }

    fn apply(
        &mut self,
        ticket: &Ticket<DecisionsSlot>,
        payload: DecisionsObservation,
        now: Instant,
    ) {
        match payload {
            DecisionsObservation::Approvals(r) => self.approvals.apply_with(ticket, r, now, |v| v),
            DecisionsObservation::Asks(r) => self.asks.apply_with(ticket, r, now, |v| v),
        }
    }

    fn retired(&mut self, ticket: &Ticket<DecisionsSlot>) -> bool {
        match ticket.slot {
            DecisionsSlot::Approvals => self.approvals.retired(ticket),
            DecisionsSlot::Asks => self.asks.retired(ticket),
        }
    }

    fn slot(&mut self, key: &DecisionsSlot) -> Option<&mut dyn ReadSlot> {
        Some(self.slot_of(key))
    }

    fn slots(&mut self) -> Vec<(SourceKey, &mut dyn ReadSlot)> {
        vec![
            (DECISIONS, &mut self.approvals as &mut dyn ReadSlot),
            (DECISIONS, &mut self.asks),
        ]
    }

    /// A failed approvals or asks read is shown where it is read (`data unreliable`), not as
    /// a degraded connection.
    fn any_failed(&self) -> bool {
        false
    }
}
