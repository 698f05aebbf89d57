//! The System surface's model: the Tools inventory, the Skills catalogue, the async-request
//! observation (three independent slots, T-1…T-3) and the Runtime catalogue (F-5), each
//! admitted by its own ticket. A result or failure consumes only its own slot (T-2); a failed
//! re-read keeps the last good value beside the failure (T-14, F-5).

use super::admission::{EpochGate, RejectReason, Slot, SlotControl};
use super::fetched::{Fetched, ReadBadge};
use crate::actors::connectors::NamesChain;
use crate::actors::connectors::chain::chain_key;
use crate::actors::messages::ObservationPayload;
use crate::actors::ticket::{SourceKey, Ticket};
use crate::protocol::admission::ReadScope;
use crate::protocol::asks::AskList;
use crate::protocol::async_requests::AsyncRequestList;
use crate::protocol::connectors::{ConnectorStatusList, NameScope};
use crate::protocol::operator::OperatorApprovals;
use crate::protocol::runtime::RuntimeResolved;
use crate::protocol::skills::SkillsSnapshotRead;
use crate::protocol::tools::ToolsInventoryRead;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

#[derive(Debug, Default)]
pub struct SystemModel {
    pub tools: Slot<Arc<ToolsInventoryRead>>,
    pub skills: Slot<Arc<SkillsSnapshotRead>>,
    pub asyncs: Slot<Arc<AsyncRequestList>>,
    pub runtime: Slot<Arc<RuntimeResolved>>,
    /// Connector status with bindings (§7.1), delivered before any name (D-5).
    pub connectors: Slot<Arc<ConnectorStatusList>>,
    /// One slot per name cursor chain, keyed by `SourceKey::ConnectorNames` (D-1).
    pub names: BTreeMap<SourceKey, Slot<Arc<NamesChain>>>,
    /// This actor's pending operator approvals (§10.5), shown on the Overview.
    pub approvals: Slot<Arc<OperatorApprovals>>,
    /// Open asks of the fleet (§10.1), shown on the Overview.
    pub asks: Slot<Arc<AskList>>,
}

impl SystemModel {
    /// Whether this model takes messages of `source` (actor keys included, for restarts).
    pub fn owns(source: &SourceKey) -> bool {
        matches!(
            source,
            SourceKey::Tools
                | SourceKey::ToolsInventory
                | SourceKey::SkillsCatalog
                | SourceKey::AsyncRequests
                | SourceKey::RuntimeCatalogue
                | SourceKey::Connectors
                | SourceKey::ConnectorsStatus
                | SourceKey::ConnectorNames { .. }
                | SourceKey::Decisions
                | SourceKey::OperatorApprovals
                | SourceKey::OpenAsks
        )
    }

    fn slot(&mut self, source: &SourceKey) -> Option<&mut dyn SystemSlot> {
        match source {
            SourceKey::ToolsInventory => Some(&mut self.tools),
            SourceKey::SkillsCatalog => Some(&mut self.skills),
            SourceKey::AsyncRequests => Some(&mut self.asyncs),
            SourceKey::RuntimeCatalogue => Some(&mut self.runtime),
            SourceKey::ConnectorsStatus => Some(&mut self.connectors),
            SourceKey::OperatorApprovals => Some(&mut self.approvals),
            SourceKey::OpenAsks => Some(&mut self.asks),
            SourceKey::ConnectorNames { .. } => {
                self.names.get_mut(source).map(|s| s as &mut dyn SystemSlot)
            }
            _ => None,
        }
    }

    /// The slots a supervised actor fills (its restart or stop touches only these).
    fn slots_of(&mut self, actor: &SourceKey) -> Vec<&mut dyn SlotControl> {
        match actor {
            SourceKey::Tools => vec![
                &mut self.tools as &mut dyn SlotControl,
                &mut self.skills,
                &mut self.asyncs,
            ],
            SourceKey::RuntimeCatalogue => vec![&mut self.runtime as &mut dyn SlotControl],
            SourceKey::Connectors => std::iter::once(&mut self.connectors as &mut dyn SlotControl)
                .chain(self.names.values_mut().map(|s| s as &mut dyn SlotControl))
                .collect(),
            SourceKey::Decisions => {
                vec![&mut self.approvals as &mut dyn SlotControl, &mut self.asks]
            }
            _ => Vec::new(),
        }
    }

    fn all(&mut self) -> Vec<&mut dyn SlotControl> {
        let mut all: Vec<&mut dyn SlotControl> = vec![
            &mut self.tools,
            &mut self.skills,
            &mut self.asyncs,
            &mut self.runtime,
            &mut self.connectors,
            &mut self.approvals,
            &mut self.asks,
        ];
        all.extend(self.names.values_mut().map(|s| s as &mut dyn SlotControl));
        all
    }

    pub fn read_badge(&mut self, source: &SourceKey) -> Option<&mut dyn ReadBadge> {
        self.slot(source).map(|s| s.badge())
    }

    pub fn on_dispatched(&mut self, ticket: Ticket, gate: &EpochGate) -> bool {
        let source = ticket.source.clone();
        if matches!(source, SourceKey::ConnectorNames { .. }) && gate.check(&ticket).is_ok() {
            // A chain's slot exists from its first dispatch on.
            self.names.entry(source.clone()).or_default();
        }
        self.slot(&source)
            .is_some_and(|s| s.dispatched_by(ticket, gate))
    }

    pub fn judge(
        &self,
        ticket: &Ticket,
        payload: &ObservationPayload,
        gate: &EpochGate,
    ) -> Result<(), RejectReason> {
        match (&ticket.source, payload) {
            (SourceKey::ToolsInventory, ObservationPayload::ToolsInventory(_)) => {
                self.tools.judge(ticket, gate)
            }
            (SourceKey::SkillsCatalog, ObservationPayload::SkillsCatalog(_)) => {
                self.skills.judge(ticket, gate)
            }
            (SourceKey::AsyncRequests, ObservationPayload::AsyncRequests(_)) => {
                self.asyncs.judge(ticket, gate)
            }
            (SourceKey::RuntimeCatalogue, ObservationPayload::RuntimeCatalogue(_)) => {
                self.runtime.judge(ticket, gate)
            }
            (SourceKey::ConnectorsStatus, ObservationPayload::ConnectorsStatus(_)) => {
                self.connectors.judge(ticket, gate)
            }
            (SourceKey::OperatorApprovals, ObservationPayload::OperatorApprovals(_)) => {
                self.approvals.judge(ticket, gate)
            }
            (SourceKey::OpenAsks, ObservationPayload::OpenAsks(_)) => self.asks.judge(ticket, gate),
            (key @ SourceKey::ConnectorNames { .. }, ObservationPayload::ConnectorNames(_)) => {
                Slot::judge_if_open(self.names.get(key), ticket, gate)
            }
            _ => Err(RejectReason::UnknownSlot),
        }
    }

    /// Applies a judged observation to its own slot only (T-2).
    pub fn apply(&mut self, ticket: &Ticket, payload: ObservationPayload, now: Instant) {
        match payload {
            ObservationPayload::ToolsInventory(r) => self.tools.apply_with(ticket, r, now, |v| v),
            ObservationPayload::SkillsCatalog(r) => self.skills.apply_with(ticket, r, now, |v| v),
            ObservationPayload::AsyncRequests(r) => self.asyncs.apply_with(ticket, r, now, |v| v),
            ObservationPayload::RuntimeCatalogue(r) => {
                self.runtime.apply_with(ticket, r, now, |v| v)
            }
            ObservationPayload::ConnectorsStatus(r) => {
                if let Ok(a) = &r {
                    // Chains of connectors the new list no longer has are gone with them.
                    let listed: Vec<&str> = a
                        .value
                        .connectors()
                        .map(|c| c.connector_id.as_str())
                        .collect();
                    self.names.retain(|key, _| match key {
                        SourceKey::ConnectorNames { connector, .. } => {
                            listed.contains(&connector.as_str())
                        }
                        _ => false,
                    });
                }
                self.connectors.apply_with(ticket, r, now, |v| v)
            }
            ObservationPayload::OperatorApprovals(r) => {
                self.approvals.apply_with(ticket, r, now, |v| v)
            }
            ObservationPayload::OpenAsks(r) => self.asks.apply_with(ticket, r, now, |v| v),
            ObservationPayload::ConnectorNames(read) => {
                if let Some(slot) = self.names.get_mut(&ticket.source) {
                    slot.apply_with(ticket, read.result, now, |v| v);
                }
            }
            _ => {}
        }
    }

    pub fn on_retired(&mut self, ticket: &Ticket) -> bool {
        let source = ticket.source.clone();
        self.slot(&source).is_some_and(|s| s.retired_by(ticket))
    }

    pub fn on_new_epoch(&mut self, scope: &ReadScope) -> bool {
        let mut changed = false;
        for slot in self.all() {
            changed |= slot.withdraw_read();
            changed |= slot.forget_other(scope);
        }
        changed
    }

    pub fn on_withdrawn(&mut self) -> bool {
        let mut changed = false;
        for slot in self.all() {
            changed |= slot.withdraw_read();
        }
        changed
    }

    pub fn on_source_restarted(&mut self, actor: &SourceKey) -> bool {
        let mut changed = false;
        for slot in self.slots_of(actor) {
            changed |= slot.restarted();
        }
        changed
    }

    pub fn on_source_stopped(&mut self, actor: &SourceKey) -> bool {
        let slots = self.slots_of(actor);
        let changed = !slots.is_empty();
        for slot in slots {
            slot.stopped();
        }
        changed
    }

    pub fn any_failed(&self) -> bool {
        matches!(self.tools.fetched, Fetched::Failed { .. })
            || matches!(self.skills.fetched, Fetched::Failed { .. })
            || matches!(self.asyncs.fetched, Fetched::Failed { .. })
            || matches!(self.runtime.fetched, Fetched::Failed { .. })
            || matches!(self.connectors.fetched, Fetched::Failed { .. })
    }

    /// The chain of `connector`'s `scope` names, if it was ever dispatched.
    pub fn chain(&self, connector: &str, scope: NameScope) -> Option<&Slot<Arc<NamesChain>>> {
        self.names.get(&chain_key(connector, scope))
    }
}

/// What the model needs of one System slot whatever its value type.
trait SystemSlot {
    fn badge(&mut self) -> &mut dyn ReadBadge;
    fn dispatched_by(&mut self, ticket: Ticket, gate: &EpochGate) -> bool;
    fn retired_by(&mut self, ticket: &Ticket) -> bool;
}

impl<T: Clone> SystemSlot for Slot<T> {
    fn badge(&mut self) -> &mut dyn ReadBadge {
        &mut self.fetched
    }
    fn dispatched_by(&mut self, ticket: Ticket, gate: &EpochGate) -> bool {
        self.dispatched(ticket, gate)
    }
    fn retired_by(&mut self, ticket: &Ticket) -> bool {
        self.retired(ticket)
    }
}
