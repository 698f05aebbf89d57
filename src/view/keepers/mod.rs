//! The Keepers surface's model: the roster slot (protocol.md §4.1; docs/audits/keepers-roster.md).

use super::admission::{EpochGate, ReadSlot, RejectReason, Slot};
use super::keepers::ops::KeeperOpsModel;
use super::keepers::settings::SettingsReadModel;
use super::surface::SurfaceModel;
use crate::actors::contract::{Inbox, Inboxes, SourceKey, Ticket};
use crate::actors::keepers::{
    KeepersObservation, KeepersSlot, ROSTER, WAITING_INVENTORY, WaitingObservation, WaitingSlot,
};
use crate::protocol::admission::ReadScope;
use crate::protocol::keepers::KeeperRoster;
use crate::protocol::routes::RouteFamily;
use crate::protocol::waiting::WaitingInventoryRead;
use std::sync::Arc;

pub mod detail;
pub mod ops;
pub mod settings;
use std::time::Instant;

#[derive(Debug)]
pub struct KeepersModel {
    inbox: Inbox<KeepersSlot, KeepersObservation>,
    pub roster: Slot<Arc<KeeperRoster>>,
    /// Keeper operations this session made (or read back after a crash), each its own slot.
    pub ops: KeeperOpsModel,
    /// The settings preparation's read (`e`, H-1).
    pub settings: SettingsReadModel,
}

impl Default for KeepersModel {
    /// A model with an inbox of its own (tests, screens rendered without a runtime).
    fn default() -> Self {
        Self::new(&Inboxes::new())
    }
}

impl KeepersModel {
    pub fn new(inboxes: &Inboxes) -> Self {
        Self {
            inbox: inboxes.get(),
            roster: Slot::default(),
            ops: KeeperOpsModel::default(),
            settings: SettingsReadModel::default(),
        }
    }
}

impl SurfaceModel for KeepersModel {
    type Slot = KeepersSlot;
    type Payload = KeepersObservation;

    fn inbox(&self) -> &Inbox<KeepersSlot, KeepersObservation> {
        &self.inbox
    }

    fn dispatched(&mut self, ticket: &Ticket<KeepersSlot>, gate: &EpochGate) -> bool {
        match &ticket.slot {
            KeepersSlot::Roster => self.roster.dispatched(ticket, gate),
            KeepersSlot::Op(op) => self.ops.dispatched(op, ticket),
            KeepersSlot::Settings => self.settings.dispatched(ticket, gate),
        }
    }

    fn judge(
        &mut self,
        ticket: &Ticket<KeepersSlot>,
        payload: &KeepersObservation,
        gate: &EpochGate,
    ) -> Result<(), RejectReason> {
        match (&ticket.slot, payload) {
            (KeepersSlot::Roster, KeepersObservation::Roster(_)) => self.roster.judge(ticket, gate),
            (KeepersSlot::Op(op), KeepersObservation::Op(event)) => {
                self.ops.judge(op, ticket, event)
            }
            (KeepersSlot::Settings, KeepersObservation::Settings(_)) => {
                self.settings.judge(ticket, gate)
            }
            _ => Err(RejectReason::UnknownSlot),
        }
    }

    fn apply(&mut self, ticket: &Ticket<KeepersSlot>, payload: KeepersObservation, now: Instant) {
        match payload {
            KeepersObservation::Roster(result) => {
                self.roster.apply_with(ticket, result, now, |v| v);
            }
            KeepersObservation::Op(event) => self.ops.apply(*event),
            KeepersObservation::Settings(prepared) => self.settings.apply(ticket, *prepared),
        }
    }

    fn retired(&mut self, ticket: &Ticket<KeepersSlot>) -> bool {
        match &ticket.slot {
            KeepersSlot::Roster => self.roster.retired(ticket),
            KeepersSlot::Op(op) => self.ops.retired(op, ticket),
            KeepersSlot::Settings => self.settings.retired(ticket),
        }
    }

    fn slot(&mut self, key: &KeepersSlot) -> Option<&mut dyn ReadSlot> {
        match key {
            KeepersSlot::Roster => Some(&mut self.roster),
            // A save is not a read: no reading badge, no epoch rule.
            KeepersSlot::Op(_) => None,
            // A preparation is the operator's own wait (the footer says so), not a surface read.
            KeepersSlot::Settings => None,
        }
    }

    fn slots(&mut self) -> Vec<(SourceKey, &mut dyn ReadSlot)> {
        vec![(ROSTER, &mut self.roster as &mut dyn ReadSlot)]
    }

    /// A Keeper operation's receipt re-reads the roster (N-3), which never replaces it.
    /// A `g` tool gate receipt re-reads the tool approval modes too (§14.4, C-57).
    fn take_demands(&mut self) -> Vec<SourceKey> {
        let mut demands = Vec::new();
        if self.ops.take_reread() {
            demands.push(ROSTER);
        }
        if self.ops.take_reread_modes() {
            demands.push(crate::actors::keeper_detail::WORKSPACE_GATE);
        }
        demands
    }

    fn any_failed(&self) -> bool {
        self.roster.failed()
    }

    fn not_served(&self) -> Vec<RouteFamily> {
        self.roster.not_served().into_iter().collect()
    }
}

impl KeepersModel {
    /// A different workspace was confirmed: the roster of another workspace is never shown
    /// (G-6); the same workspace's new epoch keeps it.
    pub fn forget_other_workspace(&mut self, scope: &ReadScope) -> bool {
        self.roster.forget_other_workspace(scope)
    }
}

/// The waiting inventory (protocol-15-operator.md §15.8): its own surface model, so its reads
/// never mix with the roster's; the Keepers screen draws it beside the roster.
#[derive(Debug)]
pub struct WaitingModel {
    inbox: Inbox<WaitingSlot, WaitingObservation>,
    pub inventory: Slot<Arc<WaitingInventoryRead>>,
}

impl Default for WaitingModel {
    fn default() -> Self {
        Self::new(&Inboxes::new())
    }
}

impl WaitingModel {
    pub fn new(inboxes: &Inboxes) -> Self {
        Self {
            inbox: inboxes.get(),
            inventory: Slot::default(),
        }
    }
}

impl SurfaceModel for WaitingModel {
    type Slot = WaitingSlot;
    type Payload = WaitingObservation;

    fn inbox(&self) -> &Inbox<WaitingSlot, WaitingObservation> {
        &self.inbox
    }

    fn dispatched(&mut self, ticket: &Ticket<WaitingSlot>, gate: &EpochGate) -> bool {
        self.inventory.dispatched(ticket, gate)
    }

    fn judge(
        &mut self,
        ticket: &Ticket<WaitingSlot>,
        _: &WaitingObservation,
        gate: &EpochGate,
    ) -> Result<(), RejectReason> {
        self.inventory.judge(ticket, gate)
    }

    fn apply(&mut self, ticket: &Ticket<WaitingSlot>, payload: WaitingObservation, now: Instant) {
        self.inventory.apply_with(ticket, payload.0, now, |v| v);
    }

    fn retired(&mut self, ticket: &Ticket<WaitingSlot>) -> bool {
        self.inventory.retired(ticket)
    }

    fn slot(&mut self, _: &WaitingSlot) -> Option<&mut dyn ReadSlot> {
        Some(&mut self.inventory)
    }

    fn slots(&mut self) -> Vec<(SourceKey, &mut dyn ReadSlot)> {
        vec![(WAITING_INVENTORY, &mut self.inventory as &mut dyn ReadSlot)]
    }

    fn any_failed(&self) -> bool {
        self.inventory.failed()
    }

    fn not_served(&self) -> Vec<RouteFamily> {
        self.inventory.not_served().into_iter().collect()
    }
}
