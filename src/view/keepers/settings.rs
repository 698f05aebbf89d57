//! The settings preparation's read as the Keepers surface keeps it (sources.md H-1,
//! H-2): which read owns the slot (a result is admitted only from its ticket, in the open
//! epoch), and the newest result with its generation. Whether a result opens the editor is the
//! screen's decision ([`crate::view::screens::keepers::operations::settings`]): only a result dispatched
//! after the `e` that waits for it, for the same Keeper, in the same scope.

use crate::actors::contract::Ticket;
use crate::actors::keepers::KeepersSlot;
use crate::actors::keepers::settings::SettingsPrepared;
use crate::view::admission::{EpochGate, OwnerId, RejectReason};

#[derive(Debug, Default)]
pub struct SettingsReadModel {
    owner: Option<OwnerId>,
    /// The newest generation dispatched (a preparation begun now waits for a later one).
    last_dispatched: u64,
    /// The newest admitted result and its generation.
    arrived: Option<(u64, SettingsPrepared)>,
    /// The generation of the newest read that ended without a result.
    ended_without: Option<u64>,
    /// The Keeper and the fields of the snapshot its editor was last opened on: what a
    /// settings save's preview shows as the old values.
    pub opened: Option<(String, serde_json::Map<String, serde_json::Value>)>,
}

impl SettingsReadModel {
    /// The first generation a preparation begun now accepts.
    pub fn floor(&self) -> u64 {
        self.last_dispatched + 1
    }

    pub fn in_flight(&self) -> bool {
        self.owner.is_some()
    }

    pub fn dispatched(&mut self, ticket: &Ticket<KeepersSlot>, gate: &EpochGate) -> bool {
        if gate.check(ticket).is_err() {
            return false;
        }
        self.owner = Some(OwnerId::of(ticket));
        self.last_dispatched = self.last_dispatched.max(ticket.generation);
        true
    }

    pub fn judge(
        &self,
        ticket: &Ticket<KeepersSlot>,
        gate: &EpochGate,
    ) -> Result<(), RejectReason> {
        gate.check(ticket)?;
        match &self.owner {
            Some(o) if *o == OwnerId::of(ticket) => Ok(()),
            Some(_) => Err(RejectReason::Superseded),
            None => Err(RejectReason::Withdrawn),
        }
    }

    pub fn apply(&mut self, ticket: &Ticket<KeepersSlot>, prepared: SettingsPrepared) {
        self.owner = None;
        self.arrived = Some((ticket.generation, prepared));
    }

    pub fn retired(&mut self, ticket: &Ticket<KeepersSlot>) -> bool {
        if self.owner.as_ref() != Some(&OwnerId::of(ticket)) {
            return false;
        }
        self.owner = None;
        self.ended_without = Some(ticket.generation);
        true
    }

    /// The result for `keeper` of a read dispatched at or after `floor`, taken (a result opens
    /// at most one editor).
    pub fn take_for(&mut self, keeper: &str, floor: u64) -> Option<SettingsPrepared> {
        self.arrived
            .take_if(|(generation, p)| *generation >= floor && p.keeper == keeper)
            .map(|(_, p)| p)
    }

    /// Whether a read dispatched at or after `floor` ended without a result.
    pub fn ended_since(&self, floor: u64) -> bool {
        self.ended_without.is_some_and(|g| g >= floor)
    }
}
