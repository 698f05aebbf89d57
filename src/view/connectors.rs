//! The Connectors surface's model (protocol.md §7.1–§7.4; sources.md D-1…D-7, D-10…D-14): the
//! connector status with its bindings, delivered before any name (D-5), one slot per name
//! cursor chain (D-1), and the bind and unbind saves, each in its own book. A settled binding
//! write owes a status re-read (D-10…D-14): the model records it, the view tells the
//! Connectors source, and the first status read dispatched after it settles it when admitted.

use super::admission::{EpochGate, ReadSlot, RejectReason, Slot};
use super::surface::{SurfaceModel, not_served_of};
use crate::actors::connectors::binding::{ConnectorBind, ConnectorUnbind};
use crate::actors::connectors::chain::chain_key;
use crate::actors::connectors::{CONNECTORS, ConnectorsObservation, ConnectorsSlot, NamesChain};
use crate::actors::contract::{Inbox, Inboxes, SlotKey, SourceKey, Ticket};
use crate::actors::saves::{Receipt, SaveStep};
use crate::protocol::admission::ReadScope;
use crate::protocol::connectors::{ConnectorStatusList, NameScope};
use crate::protocol::outcome::SaveClass;
use crate::protocol::routes::RouteFamily;
use crate::view::saves::SaveBook;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

#[derive(Debug)]
pub struct ConnectorsModel {
    inbox: Inbox<ConnectorsSlot, ConnectorsObservation>,
    /// Connector status with bindings (§7.1), delivered before any name (D-5).
    pub status: Slot<Arc<ConnectorStatusList>>,
    /// One slot per name cursor chain, keyed by `ConnectorsSlot::Names` (D-1).
    pub names: BTreeMap<ConnectorsSlot, Slot<Arc<NamesChain>>>,
    /// Connector bind saves this session made or read back (§7.3), each its own slot.
    pub binds: SaveBook<ConnectorBind>,
    /// Connector unbind saves (§7.4).
    pub unbinds: SaveBook<ConnectorUnbind>,
    /// A binding write settled and the status has not been read since (D-14 on screen).
    pub reread: Option<Reread>,
    /// A settled binding write the Connectors source has not been told of yet (D-10).
    write_demand: bool,
    /// The workspace the binding write that owes the re-read was made in (D-13).
    reread_workspace: Option<String>,
}

/// The status re-read a binding write is owed (D-10…D-14): `covering` is the first status
/// read dispatched after the write; its admitted answer settles it. A failed one leaves it
/// pending (re-read pending, not looping).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Reread {
    pub covering: Option<u64>,
}

impl Default for ConnectorsModel {
    /// A model with an inbox of its own (tests, screens rendered without a runtime).
    fn default() -> Self {
        Self::new(&Inboxes::new())
    }
}

impl ConnectorsModel {
    pub fn new(inboxes: &Inboxes) -> Self {
        Self {
            inbox: inboxes.get(),
            status: Slot::default(),
            names: BTreeMap::new(),
            binds: SaveBook::default(),
            unbinds: SaveBook::default(),
            reread: None,
            write_demand: false,
            reread_workspace: None,
        }
    }

    /// Whether a settled binding write must be told to the Connectors source; clears it.
    pub fn take_write_demand(&mut self) -> bool {
        std::mem::take(&mut self.write_demand)
    }

    /// A binding write's receipt landed: the status must be read again after it, unless the
    /// write is known not to have changed anything on the server.
    fn binding_settled(&mut self, class: SaveClass, workspace: &str) {
        if matches!(class, SaveClass::NotSent | SaveClass::NotApplied) {
            return;
        }
        self.write_demand = true;
        self.reread = Some(Reread::default());
        self.reread_workspace = Some(workspace.to_string());
    }

    /// The chain of `connector`'s `scope` names, if it was ever dispatched.
    pub fn chain(&self, connector: &str, scope: NameScope) -> Option<&Slot<Arc<NamesChain>>> {
        self.names.get(&chain_key(connector, scope))
    }

    /// This MASC does not serve the connector names route: some chain's last read
    /// said so. The route is per server, so it holds for every connector — also for those
    /// the source started no chain for because the route was already known absent.
    pub fn names_not_served(&self) -> Option<RouteFamily> {
        self.names.values().find_map(|s| s.fetched.not_served())
    }

    fn read_slot(&mut self, key: &ConnectorsSlot) -> Option<&mut Slot<Arc<ConnectorStatusList>>> {
        matches!(key, ConnectorsSlot::Status).then_some(&mut self.status)
    }
}

impl SurfaceModel for ConnectorsModel {
    type Slot = ConnectorsSlot;
    type Payload = ConnectorsObservation;

    fn inbox(&self) -> &Inbox<ConnectorsSlot, ConnectorsObservation> {
        &self.inbox
    }

    fn dispatched(&mut self, ticket: &Ticket<ConnectorsSlot>, gate: &EpochGate) -> bool {
        match &ticket.slot {
            // A save is admitted by its own book, not the epoch (H-16, K-5).
            ConnectorsSlot::BindWrite(id) => self.binds.dispatched(id, ticket),
            ConnectorsSlot::UnbindWrite(id) => self.unbinds.dispatched(id, ticket),
            ConnectorsSlot::Status => {
                if gate.check(ticket).is_ok()
                    && let Some(r) = self.reread.as_mut()
                    && r.covering.is_none()
                {
                    r.covering = Some(ticket.generation);
                }
                self.status.dispatched(ticket, gate)
            }
            key @ ConnectorsSlot::Names { .. } => {
                if gate.check(ticket).is_ok() {
                    // A chain's slot exists from its first dispatch on.
                    self.names.entry(key.clone()).or_default();
                }
                self.names
                    .get_mut(key)
                    .is_some_and(|slot| slot.dispatched(ticket, gate))
            }
        }
    }

    fn judge(
        &mut self,
        ticket: &Ticket<ConnectorsSlot>,
        payload: &ConnectorsObservation,
        gate: &EpochGate,
    ) -> Result<(), RejectReason> {
        // Receipts are not gated by the epoch (a write already made, H-16): its own book.
        match (&ticket.slot, payload) {
            (ConnectorsSlot::BindWrite(_), ConnectorsObservation::Bind(e)) => {
                self.binds.judge(ticket, e)
            }
            (ConnectorsSlot::UnbindWrite(_), ConnectorsObservation::Unbind(e)) => {
                self.unbinds.judge(ticket, e)
            }
            (ConnectorsSlot::Status, ConnectorsObservation::Status(_)) => {
                self.status.judge(ticket, gate)
            }
            (key @ ConnectorsSlot::Names { .. }, ConnectorsObservation::Names(_)) => {
                Slot::judge_if_open(self.names.get(key), ticket, gate)
            }
            _ => Err(RejectReason::UnknownSlot),
        }
    }

    /// Applies a judged observation to its own slot only (T-2).
    fn apply(
        &mut self,
        ticket: &Ticket<ConnectorsSlot>,
        payload: ConnectorsObservation,
        now: Instant,
    ) {
        match payload {
            ConnectorsObservation::Status(r) => {
                // D-14: the read after a binding write settles the re-read only when admitted.
                if let Some(reread) = self.reread
                    && reread.covering == Some(ticket.generation)
                {
                    self.reread = if r.is_ok() {
                        None
                    } else {
                        Some(Reread::default())
                    };
                }
                if let Ok(a) = &r {
                    // Chains of connectors the new list no longer has are gone with them.
                    let listed: Vec<&str> = a
                        .value
                        .connectors()
                        .map(|c| c.connector_id.as_str())
                        .collect();
                    self.names.retain(|key, _| match key {
                        ConnectorsSlot::Names { connector, .. } => {
                            listed.contains(&connector.as_str())
                        }
                        _ => false,
                    });
                }
                self.status.apply_with(ticket, r, now, |v| v)
            }
            ConnectorsObservation::Names(read) => {
                if let Some(slot) = self.names.get_mut(&ticket.slot) {
                    slot.apply_with(ticket, read.result, now, |v| v);
                }
            }
            ConnectorsObservation::Bind(event) => {
                if let SaveStep::Ended(r) = &event.step {
                    self.binding_settled(Receipt::class(r), &event.workspace);
                }
                self.binds.apply(*event);
            }
            ConnectorsObservation::Unbind(event) => {
                if let SaveStep::Ended(r) = &event.step {
                    self.binding_settled(Receipt::class(r), &event.workspace);
                }
                self.unbinds.apply(*event);
            }
        }
    }

    /// D-13: a new epoch of the same workspace restarts the re-read a binding write is owed
    /// (the read that covered it was withdrawn: the next status read covers it); a confirmed
    /// different workspace clears it. Then the usual rule (G-6).
    fn on_new_epoch(&mut self, scope: &ReadScope) -> bool {
        let mut changed = false;
        match &self.reread_workspace {
            Some(w) if *w == scope.workspace.0 => {
                if let Some(r) = self.reread.as_mut() {
                    changed |= r.covering.take().is_some();
                }
            }
            Some(_) => {
                self.reread = None;
                self.reread_workspace = None;
                self.write_demand = false;
                changed = true;
            }
            None => {}
        }
        for (_, slot) in self.slots() {
            changed |= slot.withdraw_read();
            changed |= slot.forget_other(scope);
        }
        changed
    }

    fn retired(&mut self, ticket: &Ticket<ConnectorsSlot>) -> bool {
        match &ticket.slot {
            ConnectorsSlot::BindWrite(id) => self.binds.retired(id, ticket),
            ConnectorsSlot::UnbindWrite(id) => self.unbinds.retired(id, ticket),
            ConnectorsSlot::Status => self.status.retired(ticket),
            key @ ConnectorsSlot::Names { .. } => self
                .names
                .get_mut(key)
                .is_some_and(|slot| slot.retired(ticket)),
        }
    }

    fn slot(&mut self, key: &ConnectorsSlot) -> Option<&mut dyn ReadSlot> {
        if let ConnectorsSlot::Names { .. } = key {
            return self.names.get_mut(key).map(|s| s as &mut dyn ReadSlot);
        }
        self.read_slot(key).map(|s| s as &mut dyn ReadSlot)
    }

    fn slots(&mut self) -> Vec<(SourceKey, &mut dyn ReadSlot)> {
        let mut all: Vec<(SourceKey, &mut dyn ReadSlot)> =
            vec![(CONNECTORS, &mut self.status as &mut dyn ReadSlot)];
        for (key, slot) in self.names.iter_mut() {
            all.push((key.source(), slot));
        }
        all
    }

    fn any_failed(&self) -> bool {
        self.status.failed()
    }

    /// The status and every name chain (connector names are newer MASC, §7.2).
    fn not_served(&self) -> Vec<RouteFamily> {
        let mut slots: Vec<&dyn ReadSlot> = vec![&self.status];
        slots.extend(self.names.values().map(|s| s as &dyn ReadSlot));
        not_served_of(&slots)
    }
}
