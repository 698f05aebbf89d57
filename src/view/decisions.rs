//! The Decisions model: this actor's pending operator approvals (§10.5) and the open asks
//! (§10.1), two independent slots (docs/audits/decisions.md).

use super::admission::{EpochGate, ReadSlot, RejectReason, Slot};
use super::surface::SurfaceModel;
use crate::actors::contract::{Inbox, Inboxes, SourceKey, Ticket};
use crate::actors::decisions::approval::ApprovalDecision;
use crate::actors::decisions::{DECISIONS, DecisionsObservation, DecisionsSlot};
use crate::protocol::asks::AskList;
use crate::protocol::operator::OperatorApprovals;
use crate::view::saves::SaveBook;
use std::sync::Arc;
use std::time::Instant;

#[derive(Debug)]
pub struct DecisionsModel {
    inbox: Inbox<DecisionsSlot, DecisionsObservation>,
    /// This actor's pending operator approvals (§10.5), shown on the Overview.
    pub approvals: Slot<Arc<OperatorApprovals>>,
    /// Open asks of the fleet (§10.1), shown on the Overview.
    pub asks: Slot<Arc<AskList>>,
    /// Approval decisions this session made (or read back after a crash), each its own slot.
    pub decisions: SaveBook<ApprovalDecision>,
    /// A receipt landed: the list is re-read (§10.5; the re-read never replaces the receipt).
    reread: bool,
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
            decisions: SaveBook::default(),
            reread: false,
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
        match &ticket.slot {
            DecisionsSlot::Approvals => self.approvals.dispatched(ticket, gate),
            DecisionsSlot::Asks => self.asks.dispatched(ticket, gate),
            DecisionsSlot::Decision(save_id) => self.decisions.dispatched(save_id, ticket),
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
            (DecisionsSlot::Decision(id), DecisionsObservation::Decision(event))
                if *id == event.save_id =>
            {
                self.decisions.judge(ticket, event)
            }
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
            DecisionsObservation::Decision(event) => {
                let receipt = matches!(
                    event.step,
                    crate::actors::saves::SaveStep::Ended(_)
                        | crate::actors::saves::SaveStep::Restored(_)
                );
                self.decisions.apply(*event);
                self.reread |= receipt;
            }
        }
    }

    fn retired(&mut self, ticket: &Ticket<DecisionsSlot>) -> bool {
        match &ticket.slot {
            DecisionsSlot::Approvals => self.approvals.retired(ticket),
            DecisionsSlot::Asks => self.asks.retired(ticket),
            DecisionsSlot::Decision(save_id) => self.decisions.retired(save_id, ticket),
        }
    }

    fn slot(&mut self, key: &DecisionsSlot) -> Option<&mut dyn ReadSlot> {
        match key {
            DecisionsSlot::Approvals => Some(&mut self.approvals),
            DecisionsSlot::Asks => Some(&mut self.asks),
            // A save is not a read: no reading badge, no epoch rule.
            DecisionsSlot::Decision(_) => None,
        }
    }

    fn slots(&mut self) -> Vec<(SourceKey, &mut dyn ReadSlot)> {
        vec![
            (DECISIONS, &mut self.approvals as &mut dyn ReadSlot),
            (DECISIONS, &mut self.asks),
        ]
    }

    fn take_demands(&mut self) -> Vec<SourceKey> {
        if std::mem::take(&mut self.reread) {
            vec![DECISIONS]
        } else {
            Vec::new()
        }
    }

    /// A failed approvals or asks read is shown where it is read (`data unreliable`), not as
    /// a degraded connection.
    fn any_failed(&self) -> bool {
        false
    }
}
