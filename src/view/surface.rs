//! One trait every surface model implements, so the view's model routes every source event with
//! one loop (`crate::view::model`).
//!
//! A surface model owns one typed inbox (its slot type and payload type, defined beside its
//! source in `crate::actors`). It answers the per-event questions — is this dispatch mine, may
//! this result be applied, apply it, this read ended without a result — and lists its slots
//! with the source that owns each; the shared rules (drain order, stage tracing of every
//! verdict, epochs, withdrawal, restarts, stops, badges) are provided here once.

use super::admission::{EpochGate, ReadSlot, RejectReason};
use crate::actors::contract::{Inbox, InboxId, SlotEvent, SlotKey, SourceKey, Ticket};
use crate::protocol::admission::ReadScope;
use crate::protocol::routes::RouteFamily;
use std::time::Instant;

/// What draining an inbox did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Drained {
    /// The model changed and a frame is due.
    pub changed: bool,
    /// A background re-read was dispatched with its last value shown: its badge is due only
    /// once it is slow (T.2), so the caller checks again later instead of painting now.
    pub background_reread: bool,
    /// A result someone waits for was applied: a slot's first value (nothing was shown
    /// before it) or a re-read the user asked for. Its frame does not wait for the frame
    /// deadline (T.1: it preempts like input), so the operator sees it as soon as it lands.
    pub awaited: bool,
    /// Verdicts of results that were not applied, in order.
    pub rejected: Vec<RejectReason>,
    /// Sources to re-read because of what was applied (e.g. the list after a save's receipt).
    pub demands: Vec<SourceKey>,
}

/// A surface's model, typed by its slot and payload types.
pub trait SurfaceModel {
    type Slot: SlotKey;
    type Payload: Send + 'static;

    /// The inbox this surface drains.
    fn inbox(&self) -> &Inbox<Self::Slot, Self::Payload>;

    /// A read was dispatched; returns `true` when the model changed (a slot took the ticket).
    fn dispatched(&mut self, ticket: &Ticket<Self::Slot>, gate: &EpochGate) -> bool;

    /// Whether the result of `ticket` may be applied.
    fn judge(
        &mut self,
        ticket: &Ticket<Self::Slot>,
        payload: &Self::Payload,
        gate: &EpochGate,
    ) -> Result<(), RejectReason>;

    /// Applies a judged result.
    fn apply(&mut self, ticket: &Ticket<Self::Slot>, payload: Self::Payload, now: Instant);

    /// The read of `ticket` ended without a result; `true` when it owned a slot.
    fn retired(&mut self, ticket: &Ticket<Self::Slot>) -> bool;

    /// The slot of `key`, if the model has one.
    fn slot(&mut self, key: &Self::Slot) -> Option<&mut dyn ReadSlot>;

    /// Every slot, with the source that owns it.
    fn slots(&mut self) -> Vec<(SourceKey, &mut dyn ReadSlot)>;

    /// A new epoch opened: reads in flight lose their ownership; a value of another workspace
    /// is dropped (G-6).
    fn on_new_epoch(&mut self, scope: &ReadScope) -> bool {
        let mut changed = false;
        for (_, slot) in self.slots() {
            changed |= slot.withdraw_read();
            changed |= slot.forget_other(scope);
        }
        changed
    }

    /// Authority withdrawn: reads in flight lose their ownership; last values stay (G-6).
    fn on_withdrawn(&mut self) -> bool {
        let mut changed = false;
        for (_, slot) in self.slots() {
            changed |= slot.withdraw_read();
        }
        changed
    }

    fn on_source_restarted(&mut self, source: SourceKey) -> bool {
        let mut changed = false;
        for (owner, slot) in self.slots() {
            if owner == source {
                changed |= slot.restarted();
            }
        }
        changed
    }

    fn on_source_stopped(&mut self, source: SourceKey) -> bool {
        let mut changed = false;
        for (owner, slot) in self.slots() {
            if owner == source {
                changed |= slot.stopped();
            }
        }
        changed
    }

    /// Some slot whose failure degrades the connection failed (the header's state). A route
    /// this MASC does not serve is not a failure ([`crate::view::fetched::Fetched::NotServed`]).
    fn any_failed(&self) -> bool;

    /// The route families this surface's reads found not served by this MASC (the header
    /// lists them). Only admitted observations count: what the slots show.
    fn not_served(&self) -> Vec<RouteFamily>;

    fn any_refreshing(&mut self) -> bool {
        self.slots().iter().any(|(_, s)| s.is_refreshing())
    }

    /// The user asked `source` for a re-read (`r`).
    fn mark_asked(&mut self, source: SourceKey) {
        for (owner, slot) in self.slots() {
            if owner == source {
                slot.mark_asked();
            }
        }
    }

    /// Sources the applied events call for a re-read of (taken once; default none).
    fn take_demands(&mut self) -> Vec<SourceKey> {
        Vec::new()
    }

    /// Handles, in order, the events of the inbox up to `upto` (the notification being
    /// handled). Every verdict on a result is traced (`admit` / `reject{reason}`).
    fn drain(&mut self, upto: u64, gate: &EpochGate, now: Instant) -> Drained {
        let mut out = Drained::default();
        for event in self.inbox().drain_upto(upto) {
            match event {
                SlotEvent::Dispatched(ticket) => {
                    if self.dispatched(&ticket, gate) {
                        let background = self
                            .slot(&ticket.slot)
                            .is_some_and(|s| s.is_refreshing() && !s.is_asked());
                        if background {
                            out.background_reread = true;
                        } else {
                            out.changed = true;
                        }
                    }
                }
                SlotEvent::Observed(ticket, payload) => {
                    let verdict = self.judge(&ticket, &payload, gate);
                    trace_verdict(&ticket, verdict);
                    match verdict {
                        Ok(()) => {
                            out.awaited |= self
                                .slot(&ticket.slot)
                                .is_some_and(|s| !s.is_refreshing() || s.is_asked());
                            self.apply(&ticket, payload, now);
                            out.changed = true;
                        }
                        Err(reason) => out.rejected.push(reason),
                    }
                }
                SlotEvent::Retired(ticket) => out.changed |= self.retired(&ticket),
            }
        }
        out.demands = self.take_demands();
        out
    }
}

/// The route families `slots` found not served, in slot order (the model sorts and dedups).
pub fn not_served_of(slots: &[&dyn ReadSlot]) -> Vec<RouteFamily> {
    slots.iter().filter_map(|s| s.not_served()).collect()
}

/// The one place stage events of admission are emitted.
pub fn trace_verdict<S: SlotKey>(ticket: &Ticket<S>, verdict: Result<(), RejectReason>) {
    match verdict {
        Ok(()) => crate::timeline::stage::admit(ticket),
        Err(reason) => crate::timeline::stage::reject(ticket, reason.as_str()),
    }
}

/// The object-safe face of a [`SurfaceModel`], for the model's one loop.
pub trait AnySurface {
    fn inbox_id(&self) -> InboxId;
    fn drain(&mut self, upto: u64, gate: &EpochGate, now: Instant) -> Drained;
    fn on_new_epoch(&mut self, scope: &ReadScope) -> bool;
    fn on_withdrawn(&mut self) -> bool;
    fn on_source_restarted(&mut self, source: SourceKey) -> bool;
    fn on_source_stopped(&mut self, source: SourceKey) -> bool;
    fn any_failed(&self) -> bool;
    fn not_served(&self) -> Vec<RouteFamily>;
    fn any_refreshing(&mut self) -> bool;
    fn mark_asked(&mut self, source: SourceKey);
}

impl<M: SurfaceModel> AnySurface for M {
    fn inbox_id(&self) -> InboxId {
        self.inbox().id()
    }
    fn drain(&mut self, upto: u64, gate: &EpochGate, now: Instant) -> Drained {
        SurfaceModel::drain(self, upto, gate, now)
    }
    fn on_new_epoch(&mut self, scope: &ReadScope) -> bool {
        SurfaceModel::on_new_epoch(self, scope)
    }
    fn on_withdrawn(&mut self) -> bool {
        SurfaceModel::on_withdrawn(self)
    }
    fn on_source_restarted(&mut self, source: SourceKey) -> bool {
        SurfaceModel::on_source_restarted(self, source)
    }
    fn on_source_stopped(&mut self, source: SourceKey) -> bool {
        SurfaceModel::on_source_stopped(self, source)
    }
    fn any_failed(&self) -> bool {
        SurfaceModel::any_failed(self)
    }
    fn not_served(&self) -> Vec<RouteFamily> {
        SurfaceModel::not_served(self)
    }
    fn any_refreshing(&mut self) -> bool {
        SurfaceModel::any_refreshing(self)
    }
    fn mark_asked(&mut self, source: SourceKey) {
        SurfaceModel::mark_asked(self, source)
    }
}
