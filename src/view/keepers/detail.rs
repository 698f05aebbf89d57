//! The Keeper detail reads' model (protocol.md §14.7–§14.9; docs/audits/keeper-detail.md):
//! per Keeper, its metadata, Live Context and metrics slots, each admitted by its own ticket.
//!
//! - Values are kept per Keeper name, so a new chat target or detail row never borrows
//!   another Keeper's value (L-3); leaving a Keeper keeps its last observations (N-6). Another
//!   workspace's values are dropped on its confirmation (G-6, the surface default).
//! - A Live Context answer for another trace or generation than the owner its read was
//!   launched for is rejected unshown (`other_target`, L-2); the source re-reads metadata.
//! - The five states stay apart: not requested (`NotRequested`), pending (`Loading` /
//!   `Refreshing`), not served by this MASC (`Failed` with `not_served`: only that part),
//!   failed with the last good value (`Failed { last }`), and normal-empty (`Ready` of an
//!   empty tail or a not-observed context, which carry their own reasons).

use crate::actors::contract::{Inbox, Inboxes, SourceKey, Ticket};
use crate::actors::keeper_detail::{
    KEEPER_DETAIL, KeeperDetailCommand, KeeperDetailObservation, KeeperDetailSlot, Viewer,
    WORKSPACE_GATE,
};
use crate::protocol::client::ErrorClass;
use crate::protocol::keeper_config::KeeperConfigSnapshot;
use crate::protocol::keeper_detail::{DashboardGate, KeeperLogs, KeeperStatus, LiveContext};
use crate::protocol::keeper_ops::ToolApprovalModes;
use crate::protocol::routes::RouteFamily;
use crate::view::admission::{EpochGate, ReadSlot, RejectReason, Slot};
use crate::view::fetched::{FailureClass, Fetched};
use crate::view::surface::{SurfaceModel, not_served_of};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

/// The detail reads of one Keeper.
#[derive(Debug, Default)]
pub struct KeeperDetail {
    pub meta: Slot<Arc<KeeperStatus>>,
    pub context: Slot<Arc<LiveContext>>,
    /// The metrics tail, or the turn records where it is not served.
    pub metrics: Slot<Arc<KeeperLogs>>,
    /// The settings snapshot (§9.5): instructions, sandbox, network and runtime as the
    /// settings editor reads them (one record on every screen).
    pub settings: Slot<Arc<KeeperConfigSnapshot>>,
}

#[derive(Debug)]
pub struct KeeperDetailModel {
    inbox: Inbox<KeeperDetailSlot, KeeperDetailObservation>,
    /// The workspace Gate mode (§14.4), a standing read of the `workspace_gate` source.
    pub gate: Slot<Arc<DashboardGate>>,
    /// Every Keeper's tool approval mode (§14.4), the same source's second standing read: the
    /// chat status line's `AUTO`/`YOLO` (C-57).
    pub tool_modes: Slot<Arc<ToolApprovalModes>>,
    keepers: BTreeMap<String, KeeperDetail>,
    /// Which Keeper each viewer watches (mirrors the commands sent to the source).
    watching: BTreeMap<Viewer, String>,
}

impl Default for KeeperDetailModel {
    /// A model with an inbox of its own (tests, screens rendered without a runtime).
    fn default() -> Self {
        Self::new(&Inboxes::new())
    }
}

impl KeeperDetailModel {
    pub fn new(inboxes: &Inboxes) -> Self {
        Self {
            inbox: inboxes.get(),
            gate: Slot::default(),
            tool_modes: Slot::default(),
            keepers: BTreeMap::new(),
            watching: BTreeMap::new(),
        }
    }

    /// The view asked the source for this: record who watches whom at once.
    pub fn on_command(&mut self, cmd: &KeeperDetailCommand) {
        match cmd {
            KeeperDetailCommand::Watch { viewer, keeper } => {
                self.keepers.entry(keeper.clone()).or_default();
                self.watching.insert(*viewer, keeper.clone());
            }
            KeeperDetailCommand::Unwatch { viewer } => {
                self.watching.remove(viewer);
            }
            // A save's re-read of a Keeper no viewer showed yet: its answer needs a place.
            KeeperDetailCommand::Confirm { keeper } => {
                self.keepers.entry(keeper.clone()).or_default();
            }
            KeeperDetailCommand::Refresh { .. } => {}
        }
    }

    /// The Keeper `viewer` watches, if any.
    pub fn watched_by(&self, viewer: Viewer) -> Option<&str> {
        self.watching.get(&viewer).map(String::as_str)
    }

    /// The commands that re-establish every watch (after the source restarted).
    pub fn rewatch_commands(&self) -> Vec<KeeperDetailCommand> {
        self.watching
            .iter()
            .map(|(viewer, keeper)| KeeperDetailCommand::Watch {
                viewer: *viewer,
                keeper: keeper.clone(),
            })
            .collect()
    }

    /// What is known of `keeper` (`None`: never watched in this session).
    pub fn of(&self, keeper: &str) -> Option<&KeeperDetail> {
        self.keepers.get(keeper)
    }

    fn slot_mut(&mut self, key: &KeeperDetailSlot) -> Option<&mut dyn ReadSlot> {
        let Some(keeper) = key.keeper() else {
            return Some(match key {
                KeeperDetailSlot::ToolModes => &mut self.tool_modes,
                _ => &mut self.gate,
            });
        };
        let detail = self.keepers.get_mut(keeper)?;
        Some(match key {
            KeeperDetailSlot::Meta(_) => &mut detail.meta,
            KeeperDetailSlot::Context(_) => &mut detail.context,
            KeeperDetailSlot::Metrics(_) => &mut detail.metrics,
            KeeperDetailSlot::Settings(_) => &mut detail.settings,
            KeeperDetailSlot::WorkspaceGate => &mut self.gate,
            KeeperDetailSlot::ToolModes => &mut self.tool_modes,
        })
    }
}

/// Whether a failure is "this MASC does not serve the route" (only that part unavailable).
pub fn not_served(class: FailureClass) -> bool {
    class == FailureClass::Read(ErrorClass::NotServed)
}

/// The class of a slot's current failure, if it failed.
pub fn failure_class<T: Clone>(slot: &Slot<T>) -> Option<FailureClass> {
    match &slot.fetched {
        Fetched::Failed { error, .. } => Some(error.class),
        _ => None,
    }
}

impl SurfaceModel for KeeperDetailModel {
    type Slot = KeeperDetailSlot;
    type Payload = KeeperDetailObservation;

    fn inbox(&self) -> &Inbox<KeeperDetailSlot, KeeperDetailObservation> {
        &self.inbox
    }

    fn dispatched(&mut self, ticket: &Ticket<KeeperDetailSlot>, gate: &EpochGate) -> bool {
        let Some(keeper) = ticket.slot.keeper() else {
            return match ticket.slot {
                KeeperDetailSlot::ToolModes => self.tool_modes.dispatched(ticket, gate),
                _ => self.gate.dispatched(ticket, gate),
            };
        };
        let detail = self.keepers.entry(keeper.to_string()).or_default();
        match &ticket.slot {
            KeeperDetailSlot::Meta(_) => detail.meta.dispatched(ticket, gate),
            KeeperDetailSlot::Context(_) => detail.context.dispatched(ticket, gate),
            KeeperDetailSlot::Metrics(_) => detail.metrics.dispatched(ticket, gate),
            KeeperDetailSlot::Settings(_) => detail.settings.dispatched(ticket, gate),
            KeeperDetailSlot::WorkspaceGate | KeeperDetailSlot::ToolModes => false,
        }
    }

    fn judge(
        &mut self,
        ticket: &Ticket<KeeperDetailSlot>,
        payload: &KeeperDetailObservation,
        gate: &EpochGate,
    ) -> Result<(), RejectReason> {
        let detail = ticket.slot.keeper().and_then(|k| self.keepers.get(k));
        match (&ticket.slot, payload) {
            (KeeperDetailSlot::WorkspaceGate, KeeperDetailObservation::Gate(_)) => {
                self.gate.judge(ticket, gate)
            }
            (KeeperDetailSlot::ToolModes, KeeperDetailObservation::ToolModes(_)) => {
                self.tool_modes.judge(ticket, gate)
            }
            (KeeperDetailSlot::Meta(_), KeeperDetailObservation::Meta(_)) => {
                Slot::judge_if_open(detail.map(|d| &d.meta), ticket, gate)
            }
            (KeeperDetailSlot::Context(_), KeeperDetailObservation::Context(read)) => {
                Slot::judge_if_open(detail.map(|d| &d.context), ticket, gate)?;
                // L-2: launched for another owner than the one that answered.
                if read.owner_changed() {
                    return Err(RejectReason::OtherTarget);
                }
                Ok(())
            }
            (KeeperDetailSlot::Metrics(_), KeeperDetailObservation::Metrics(_)) => {
                Slot::judge_if_open(detail.map(|d| &d.metrics), ticket, gate)
            }
            (KeeperDetailSlot::Settings(_), KeeperDetailObservation::Settings(_)) => {
                Slot::judge_if_open(detail.map(|d| &d.settings), ticket, gate)
            }
            _ => Err(RejectReason::UnknownSlot),
        }
    }

    fn apply(
        &mut self,
        ticket: &Ticket<KeeperDetailSlot>,
        payload: KeeperDetailObservation,
        now: Instant,
    ) {
        let payload = match payload {
            KeeperDetailObservation::Gate(result) => {
                self.gate.apply_with(ticket, result, now, |v| v);
                return;
            }
            KeeperDetailObservation::ToolModes(result) => {
                self.tool_modes.apply_with(ticket, result, now, |v| v);
                return;
            }
            other => other,
        };
        let Some(detail) = ticket.slot.keeper().and_then(|k| self.keepers.get_mut(k)) else {
            return;
        };
        match payload {
            KeeperDetailObservation::Meta(result) => {
                detail.meta.apply_with(ticket, result, now, |v| v);
            }
            KeeperDetailObservation::Context(read) => {
                detail.context.apply_with(ticket, read.result, now, |v| v);
            }
            KeeperDetailObservation::Metrics(result) => {
                detail.metrics.apply_with(ticket, result, now, |v| v);
            }
            KeeperDetailObservation::Settings(result) => {
                detail.settings.apply_with(ticket, result, now, |v| v);
            }
            KeeperDetailObservation::Gate(_) | KeeperDetailObservation::ToolModes(_) => {}
        }
    }

    fn retired(&mut self, ticket: &Ticket<KeeperDetailSlot>) -> bool {
        let Some(keeper) = ticket.slot.keeper() else {
            return match ticket.slot {
                KeeperDetailSlot::ToolModes => self.tool_modes.retired(ticket),
                _ => self.gate.retired(ticket),
            };
        };
        let Some(detail) = self.keepers.get_mut(keeper) else {
            return false;
        };
        match &ticket.slot {
            KeeperDetailSlot::Meta(_) => detail.meta.retired(ticket),
            KeeperDetailSlot::Context(_) => detail.context.retired(ticket),
            KeeperDetailSlot::Metrics(_) => detail.metrics.retired(ticket),
            KeeperDetailSlot::Settings(_) => detail.settings.retired(ticket),
            KeeperDetailSlot::WorkspaceGate | KeeperDetailSlot::ToolModes => false,
        }
    }

    fn slot(&mut self, key: &KeeperDetailSlot) -> Option<&mut dyn ReadSlot> {
        self.slot_mut(key)
    }

    fn slots(&mut self) -> Vec<(SourceKey, &mut dyn ReadSlot)> {
        let mut all: Vec<(SourceKey, &mut dyn ReadSlot)> = vec![
            (WORKSPACE_GATE, &mut self.gate),
            (WORKSPACE_GATE, &mut self.tool_modes),
        ];
        for detail in self.keepers.values_mut() {
            all.push((KEEPER_DETAIL, &mut detail.meta));
            all.push((KEEPER_DETAIL, &mut detail.context));
            all.push((KEEPER_DETAIL, &mut detail.metrics));
            all.push((KEEPER_DETAIL, &mut detail.settings));
        }
        all
    }

    /// The parts of the watched Keepers and the workspace Gate this MASC does not serve (the
    /// header lists them; unavailable, not failing, so they never degrade it).
    fn not_served(&self) -> Vec<RouteFamily> {
        let mut slots: Vec<&dyn ReadSlot> = vec![&self.gate, &self.tool_modes];
        for d in self.watching.values().filter_map(|k| self.keepers.get(k)) {
            slots.extend([
                &d.meta as &dyn ReadSlot,
                &d.context,
                &d.metrics,
                &d.settings,
            ]);
        }
        not_served_of(&slots)
    }

    fn any_failed(&self) -> bool {
        self.watching
            .values()
            .filter_map(|k| self.keepers.get(k))
            .any(|d| {
                [
                    failure_class(&d.meta),
                    failure_class(&d.context),
                    failure_class(&d.metrics),
                    failure_class(&d.settings),
                ]
                .into_iter()
                .flatten()
                .any(|class| !not_served(class))
            })
    }
}
