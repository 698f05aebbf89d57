//! The Gate queue's model (§15.3): the queue read as one slot admitted by ticket, and the books
//! of its two saves (resolve, retry). A receipt that may have changed the queue asks for it to
//! be read again, and that re-read, landing in the queue's own slot, is what settles the save.

use super::admission::{EpochGate, ReadSlot, RejectReason, Slot};
use super::surface::{SurfaceModel, not_served_of};
use crate::actors::contract::{Inbox, Inboxes, SourceKey, Ticket};
use crate::actors::gate_queue::resolve::GateResolve;
use crate::actors::gate_queue::retry::GateRetry;
use crate::actors::gate_queue::{GATE_QUEUE, GateQueueObservation, GateQueueSlot};
use crate::protocol::gate_queue::GateQueue;
use crate::protocol::outcome::SaveClass;
use crate::protocol::routes::RouteFamily;
use crate::view::saves::books::save_books;
use std::sync::Arc;
use std::time::Instant;

save_books! {
    /// The Gate decisions this session sent (or read back).
    pub struct GateSaves for GateQueueSlot, GateQueueObservation {
        /// Approvals and rejections (§15.3 `/resolve`).
        resolves: GateResolve => Resolve,
        /// Auto Judge re-arms (§15.3 `/retry`).
        retries: GateRetry => Retry,
    }
}

#[derive(Debug)]
pub struct GateQueueModel {
    inbox: Inbox<GateQueueSlot, GateQueueObservation>,
    pub queue: Slot<Arc<GateQueue>>,
    pub saves: GateSaves,
    /// A decision ended that may have changed the queue: it is read again.
    reread: bool,
}

impl Default for GateQueueModel {
    fn default() -> Self {
        Self::new(&Inboxes::new())
    }
}

impl GateQueueModel {
    pub fn new(inboxes: &Inboxes) -> Self {
        Self {
            inbox: inboxes.get(),
            queue: Slot::default(),
            saves: GateSaves::default(),
            reread: false,
        }
    }

    /// The queue as last read, and when.
    pub fn latest(&self) -> Option<(&GateQueue, Instant)> {
        self.queue
            .fetched
            .last()
            .map(|o| (o.value.as_ref(), o.observed_at))
    }
}

impl SurfaceModel for GateQueueModel {
    type Slot = GateQueueSlot;
    type Payload = GateQueueObservation;

    fn inbox(&self) -> &Inbox<GateQueueSlot, GateQueueObservation> {
        &self.inbox
    }

    fn dispatched(&mut self, ticket: &Ticket<GateQueueSlot>, gate: &EpochGate) -> bool {
        if let Some(owned) = self.saves.dispatched(ticket) {
            return owned;
        }
        match ticket.slot {
            GateQueueSlot::Queue => self.queue.dispatched(ticket, gate),
            _ => false,
        }
    }

    fn judge(
        &mut self,
        ticket: &Ticket<GateQueueSlot>,
        payload: &GateQueueObservation,
        gate: &EpochGate,
    ) -> Result<(), RejectReason> {
        // A receipt is not gated by the epoch (a write already made): its own book.
        if let Some(judged) = self.saves.judge(ticket, payload) {
            return judged;
        }
        match (&ticket.slot, payload) {
            (GateQueueSlot::Queue, GateQueueObservation::Queue(_)) => {
                self.queue.judge(ticket, gate)
            }
            _ => Err(RejectReason::UnknownSlot),
        }
    }

    fn apply(
        &mut self,
        ticket: &Ticket<GateQueueSlot>,
        payload: GateQueueObservation,
        now: Instant,
    ) {
        let payload = match self.saves.apply(payload) {
            Ok(ended) => {
                self.reread |= ended.is_some_and(|class| class != SaveClass::NotSent);
                return;
            }
            Err(read) => read,
        };
        if let GateQueueObservation::Queue(result) = payload {
            self.queue.apply_with(ticket, result, now, |v| v);
        }
    }

    fn retired(&mut self, ticket: &Ticket<GateQueueSlot>) -> bool {
        if let Some(owned) = self.saves.retired(ticket) {
            return owned;
        }
        match ticket.slot {
            GateQueueSlot::Queue => self.queue.retired(ticket),
            _ => false,
        }
    }

    fn slot(&mut self, key: &GateQueueSlot) -> Option<&mut dyn ReadSlot> {
        match key {
            GateQueueSlot::Queue => Some(&mut self.queue),
            _ => None,
        }
    }

    fn take_demands(&mut self) -> Vec<SourceKey> {
        if std::mem::take(&mut self.reread) {
            vec![GATE_QUEUE]
        } else {
            Vec::new()
        }
    }

    fn slots(&mut self) -> Vec<(SourceKey, &mut dyn ReadSlot)> {
        vec![(GATE_QUEUE, &mut self.queue as &mut dyn ReadSlot)]
    }

    fn any_failed(&self) -> bool {
        self.queue.failed()
    }

    fn not_served(&self) -> Vec<RouteFamily> {
        not_served_of(&[&self.queue])
    }
}
