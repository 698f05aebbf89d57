//! The turn-inspector model (protocol.md §14.11; sources.md K-14…K-17): per Keeper its turn
//! records page, per turn its serialized provider input — each its own slot, admitted by
//! ticket, shown as it arrives (K-15: reading ≠ unavailable; a late pending read never clears
//! a completed one, G-4, G-7).
//!
//! Which reads the open inspectors need is asked once per epoch ([`InspectorModel::want`]):
//! opening an inspector reads what it shows; tab entry and scrolling read nothing (K-17);
//! `r` re-reads explicitly. A Keeper's records are read with its own `limit` (50 until the
//! operator widens it, [`InspectorModel::widen`]: 200, then MASC's maximum 500); every later
//! read of that Keeper's records (`r`, a new epoch, `/context`) keeps the wider limit.

use super::admission::{EpochGate, ReadSlot, RejectReason, Slot};
use super::fetched::Fetched;
use super::surface::{SurfaceModel, not_served_of};
use crate::actors::asks::TurnTarget;
use crate::actors::contract::{Inbox, Inboxes, SourceKey, Ticket};
use crate::actors::inspector::{
    InspectorCommand, InspectorObservation, InspectorSlot, TURN_INSPECTOR,
};
use crate::protocol::admission::ReadScope;
use crate::protocol::inspector::turn_records::{DEFAULT_LIMIT, wider_limit};
use crate::protocol::inspector::{ProviderInput, TurnRecordsPage};
use crate::protocol::routes::RouteFamily;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Instant;

/// The turn-inspector surface model.
#[derive(Debug)]
pub struct InspectorModel {
    inbox: Inbox<InspectorSlot, InspectorObservation>,
    /// Turn records pages, per Keeper.
    pub records: HashMap<String, Slot<Arc<TurnRecordsPage>>>,
    /// Serialized provider inputs, per turn.
    pub inputs: HashMap<TurnTarget, Slot<Arc<ProviderInput>>>,
    /// Slots asked for in this epoch (an open inspector asks once; K-17).
    asked: HashSet<InspectorSlot>,
    /// The records `limit` asked for per Keeper, once widened (absent: the default 50).
    limits: HashMap<String, u32>,
}

/// Why a wider records page was not asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotWidened {
    /// The page asked for is already MASC's maximum (500).
    AtMaximum,
}

impl Default for InspectorModel {
    fn default() -> Self {
        Self::new(&Inboxes::new())
    }
}

impl InspectorModel {
    pub fn new(inboxes: &Inboxes) -> Self {
        Self {
            inbox: inboxes.get(),
            records: HashMap::new(),
            inputs: HashMap::new(),
            asked: HashSet::new(),
            limits: HashMap::new(),
        }
    }

    /// `keeper`'s records read (`None`: never asked for).
    pub fn records_read(&self, keeper: &str) -> Option<&Fetched<Arc<TurnRecordsPage>>> {
        self.records.get(keeper).map(|s| &s.fetched)
    }

    /// `keeper`'s records page as last observed.
    pub fn page(&self, keeper: &str) -> Option<&Arc<TurnRecordsPage>> {
        self.records_read(keeper)
            .and_then(Fetched::last)
            .map(|o| &o.value)
    }

    /// `target`'s serialized input read (`None`: never asked for).
    pub fn input_read(&self, target: &TurnTarget) -> Option<&Fetched<Arc<ProviderInput>>> {
        self.inputs.get(target).map(|s| &s.fetched)
    }

    /// The records `limit` `keeper`'s records are read with.
    pub fn records_limit(&self, keeper: &str) -> u32 {
        self.limits.get(keeper).copied().unwrap_or(DEFAULT_LIMIT)
    }

    /// The operator asked for an older turn (the pinned one is not on the page): read
    /// `keeper`'s records again with the next wider `limit` (50 → 200 → 500). A new dispatch
    /// with its own ticket: the narrower read, in flight or late, never replaces it.
    pub fn widen(&mut self, keeper: &str) -> Result<InspectorCommand, NotWidened> {
        let limit = wider_limit(self.records_limit(keeper)).ok_or(NotWidened::AtMaximum)?;
        self.limits.insert(keeper.to_string(), limit);
        Ok(self.reread(InspectorSlot::Records(keeper.to_string())))
    }

    /// Whether `slot` was asked for in this epoch.
    pub fn asked(&self, slot: &InspectorSlot) -> bool {
        self.asked.contains(slot)
    }

    /// The command reading `slot`, the first time it is wanted in this epoch; `None` after.
    pub fn want(&mut self, slot: InspectorSlot) -> Option<InspectorCommand> {
        if self.asked.contains(&slot) {
            return None;
        }
        self.asked.insert(slot.clone());
        Some(self.command(slot))
    }

    /// The command of an explicit re-read (`r`): always sent.
    pub fn reread(&mut self, slot: InspectorSlot) -> InspectorCommand {
        self.asked.insert(slot.clone());
        match &slot {
            InspectorSlot::Records(k) => {
                if let Some(s) = self.records.get_mut(k) {
                    s.mark_asked();
                }
            }
            InspectorSlot::Input(t) => {
                if let Some(s) = self.inputs.get_mut(t) {
                    s.mark_asked();
                }
            }
        }
        self.command(slot)
    }

    /// A command could not be sent (the source is not up): asked again next time.
    pub fn unwant(&mut self, slot: &InspectorSlot) {
        self.asked.remove(slot);
    }

    fn command(&self, slot: InspectorSlot) -> InspectorCommand {
        match slot {
            InspectorSlot::Records(keeper) => InspectorCommand::Records {
                limit: self.records_limit(&keeper),
                keeper,
            },
            InspectorSlot::Input(target) => InspectorCommand::Input(target),
        }
    }

    fn all_slots(&self) -> Vec<&dyn ReadSlot> {
        self.records
            .values()
            .map(|s| s as &dyn ReadSlot)
            .chain(self.inputs.values().map(|s| s as &dyn ReadSlot))
            .collect()
    }
}

impl SurfaceModel for InspectorModel {
    type Slot = InspectorSlot;
    type Payload = InspectorObservation;

    fn inbox(&self) -> &Inbox<InspectorSlot, InspectorObservation> {
        &self.inbox
    }

    fn dispatched(&mut self, ticket: &Ticket<InspectorSlot>, gate: &EpochGate) -> bool {
        match &ticket.slot {
            InspectorSlot::Records(k) => self
                .records
                .entry(k.clone())
                .or_default()
                .dispatched(ticket, gate),
            InspectorSlot::Input(t) => self
                .inputs
                .entry(t.clone())
                .or_default()
                .dispatched(ticket, gate),
        }
    }

    fn judge(
        &mut self,
        ticket: &Ticket<InspectorSlot>,
        payload: &InspectorObservation,
        gate: &EpochGate,
    ) -> Result<(), RejectReason> {
        match (&ticket.slot, payload) {
            (InspectorSlot::Records(k), InspectorObservation::Records(_)) => {
                Slot::judge_if_open(self.records.get(k), ticket, gate)
            }
            (InspectorSlot::Input(t), InspectorObservation::Input(_)) => {
                Slot::judge_if_open(self.inputs.get(t), ticket, gate)
            }
            _ => Err(RejectReason::UnknownSlot),
        }
    }

    fn apply(
        &mut self,
        ticket: &Ticket<InspectorSlot>,
        payload: InspectorObservation,
        now: Instant,
    ) {
        match (&ticket.slot, payload) {
            (InspectorSlot::Records(k), InspectorObservation::Records(result)) => {
                if let Some(slot) = self.records.get_mut(k) {
                    slot.apply_with(ticket, result, now, |v| v);
                }
            }
            (InspectorSlot::Input(t), InspectorObservation::Input(result)) => {
                if let Some(slot) = self.inputs.get_mut(t) {
                    slot.apply_with(ticket, result, now, |v| v);
                }
            }
            _ => {}
        }
    }

    fn retired(&mut self, ticket: &Ticket<InspectorSlot>) -> bool {
        match &ticket.slot {
            InspectorSlot::Records(k) => self.records.get_mut(k).is_some_and(|s| s.retired(ticket)),
            InspectorSlot::Input(t) => self.inputs.get_mut(t).is_some_and(|s| s.retired(ticket)),
        }
    }

    fn slot(&mut self, key: &InspectorSlot) -> Option<&mut dyn ReadSlot> {
        match key {
            InspectorSlot::Records(k) => self.records.get_mut(k).map(|s| s as &mut dyn ReadSlot),
            InspectorSlot::Input(t) => self.inputs.get_mut(t).map(|s| s as &mut dyn ReadSlot),
        }
    }

    fn slots(&mut self) -> Vec<(SourceKey, &mut dyn ReadSlot)> {
        self.records
            .values_mut()
            .map(|s| (TURN_INSPECTOR, s as &mut dyn ReadSlot))
            .chain(
                self.inputs
                    .values_mut()
                    .map(|s| (TURN_INSPECTOR, s as &mut dyn ReadSlot)),
            )
            .collect()
    }

    /// A new epoch: every open inspector asks again (its reads of the old epoch are gone).
    fn on_new_epoch(&mut self, scope: &ReadScope) -> bool {
        self.asked.clear();
        let mut changed = false;
        for (_, slot) in self.slots() {
            changed |= slot.withdraw_read();
            changed |= slot.forget_other(scope);
        }
        changed
    }

    fn on_withdrawn(&mut self) -> bool {
        self.asked.clear();
        let mut changed = false;
        for (_, slot) in self.slots() {
            changed |= slot.withdraw_read();
        }
        changed
    }

    fn on_source_restarted(&mut self, source: SourceKey) -> bool {
        if source != TURN_INSPECTOR {
            return false;
        }
        // Reads in flight died with the source: asked again when next wanted.
        self.asked.clear();
        let mut changed = false;
        for (_, slot) in self.slots() {
            changed |= slot.restarted();
        }
        changed
    }

    /// Shown where they are read (the inspectors), never as a degraded connection.
    fn any_failed(&self) -> bool {
        false
    }

    fn not_served(&self) -> Vec<RouteFamily> {
        not_served_of(&self.all_slots())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target() -> TurnTarget {
        TurnTarget {
            keeper: "rondo".into(),
            turn_ref: "trace-rondo#7".into(),
        }
    }

    /// K-17: an open inspector asks each read once per epoch (tab entry and scrolling ask
    /// nothing more); `r` always asks; a new epoch or a restarted source asks again.
    #[test]
    fn k17_each_read_is_wanted_once_per_epoch_and_r_rereads() {
        let mut m = InspectorModel::default();
        let slot = InspectorSlot::Input(target());
        assert_eq!(
            m.want(slot.clone()),
            Some(InspectorCommand::Input(target()))
        );
        assert!(m.asked(&slot));
        assert_eq!(m.want(slot.clone()), None);
        assert_eq!(m.reread(slot.clone()), InspectorCommand::Input(target()));
        assert_eq!(m.want(slot.clone()), None);
        m.on_withdrawn();
        assert!(m.want(slot.clone()).is_some());
        m.on_source_restarted(TURN_INSPECTOR);
        assert!(m.want(slot.clone()).is_some());
        m.unwant(&slot);
        assert!(!m.asked(&slot));
        let records = InspectorSlot::Records("rondo".into());
        assert_eq!(
            m.want(records),
            Some(InspectorCommand::Records {
                keeper: "rondo".into(),
                limit: 50
            })
        );
    }

    /// K-14: widening reads 200, then MASC's maximum 500, then refuses; every later read of
    /// that Keeper's records keeps the wider limit (a new epoch, `r`), another Keeper's not.
    #[test]
    fn k14_widen_steps_50_200_500_and_later_reads_keep_the_limit() {
        let mut m = InspectorModel::default();
        let records = |k: &str| InspectorSlot::Records(k.into());
        let cmd = |k: &str, limit| InspectorCommand::Records {
            keeper: k.into(),
            limit,
        };
        assert_eq!(m.want(records("rondo")), Some(cmd("rondo", 50)));
        assert_eq!(m.widen("rondo"), Ok(cmd("rondo", 200)));
        assert_eq!(m.reread(records("rondo")), cmd("rondo", 200));
        m.on_withdrawn();
        assert_eq!(m.want(records("rondo")), Some(cmd("rondo", 200)));
        assert_eq!(m.widen("rondo"), Ok(cmd("rondo", 500)));
        assert_eq!(m.widen("rondo"), Err(NotWidened::AtMaximum));
        assert_eq!(m.records_limit("rondo"), 500);
        assert_eq!(m.want(records("sangsu")), Some(cmd("sangsu", 50)));
    }
}
