//! The System surface's model: the Tools inventory, the Skills catalogue, the async-request
//! observation (three independent slots, T-1…T-3) and the Runtime catalogue (F-5), each
//! admitted by its own ticket. A result or failure consumes only its own slot (T-2); a failed
//! re-read keeps the last good value beside the failure (T-14, F-5). Connector status and
//! its name chains fill this surface too (D-1, D-5).
//!
//! The Runtime catalogue is one joined load (F-7): one ticket owns two view slots, the
//! catalogue (`runtime`, read by System › Runtime, Overview and the forms alike, F-1) and the
//! reachability probe (`probe`). A load's parts are applied each to its own slot, so a probe
//! failure alone keeps the lanes with the last good probe, and a catalogue failure keeps the
//! last joined rows under the error (F-7); what each part came to is kept for the header
//! (`runtime_end`, P-1, P-2).

use super::admission::{EpochGate, ReadSlot, RejectReason, Slot};
use super::async_request::OpenRequest;
use super::surface::{SurfaceModel, not_served_of};
use super::tools_panes::SelectedSurface;
use crate::actors::connectors::NamesChain;
use crate::actors::connectors::chain::chain_key;
use crate::actors::contract::{Inbox, Inboxes, SlotKey, SourceKey, Ticket};
use crate::actors::saves::{Receipt, SaveEvent, SaveId, SaveKind, SaveStep};
use crate::actors::system::binding::{ConnectorBind, ConnectorUnbind};
use crate::actors::system::runtime_form::RuntimeForm;
use crate::actors::system::runtime_raw::RuntimeRaw;
use crate::actors::system::{
    LoadPart, PartOutcome, RUNTIME, RUNTIME_CONFIG, SystemObservation, SystemSlot, TOOLS,
    ToolsCommand,
};
use crate::protocol::admission::ReadScope;
use crate::protocol::async_requests::AsyncRequestList;
use crate::protocol::connectors::{ConnectorStatusList, NameScope};
use crate::protocol::outcome::SaveClass;
use crate::protocol::routes::RouteFamily;
use crate::protocol::runtime::{RuntimeConfigRaw, RuntimeProbe, RuntimeResolved};
use crate::protocol::skills::SkillsSnapshotRead;
use crate::protocol::tools::ToolsInventoryRead;
use crate::view::saves::{Rereads, SaveBook};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

mod surface;

#[derive(Debug)]
pub struct SystemModel {
    inbox: Inbox<SystemSlot, SystemObservation>,
    pub tools: Slot<Arc<ToolsInventoryRead>>,
    pub skills: Slot<Arc<SkillsSnapshotRead>>,
    pub asyncs: Slot<Arc<AsyncRequestList>>,
    pub runtime: Slot<Arc<RuntimeResolved>>,
    /// The reachability probe of the same joined load (F-7).
    pub probe: Slot<Arc<RuntimeProbe>>,
    /// What the joined loads came to (P-1, P-2).
    pub runtime_loads: RuntimeLoads,
    /// The raw runtime config the forms open on (§9.2), read on demand.
    pub config: Slot<Arc<RuntimeConfigRaw>>,
    /// Model and account form saves this session made or read back (I-1…I-5).
    pub forms: SaveBook<RuntimeForm>,
    /// Raw config saves (`runtime.toml` from `$EDITOR`) this session made or read back (J-1…J-4).
    pub raws: SaveBook<RuntimeRaw>,
    /// The generations of the raw config reads: which read is shown, and which came after a
    /// raw save's receipt (J-3: only those reconfirm a base for `u` / `U`).
    pub config_reads: Rereads,
    /// A form save's receipt landed: the catalogue and the source are re-read (F-2, I-4).
    runtime_reread: bool,
    /// Connector status with bindings (§7.1), delivered before any name (D-5).
    pub connectors: Slot<Arc<ConnectorStatusList>>,
    /// One slot per name cursor chain, keyed by `SystemSlot::ConnectorNames` (D-1).
    pub names: BTreeMap<SystemSlot, Slot<Arc<NamesChain>>>,
    /// The async request the view opened and its single GET (§6.4, T-9…T-13).
    pub request: Option<OpenRequest>,
    /// The Keeper the `available` and `receipts` panes show, and its `?keeper=` read (§6.1).
    pub surface: Option<SelectedSurface>,
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

impl Default for SystemModel {
    /// A model with an inbox of its own (tests, screens rendered without a runtime).
    fn default() -> Self {
        Self::new(&Inboxes::new())
    }
}

impl SystemModel {
    pub fn new(inboxes: &Inboxes) -> Self {
        Self {
            inbox: inboxes.get(),
            tools: Slot::default(),
            skills: Slot::default(),
            asyncs: Slot::default(),
            runtime: Slot::default(),
            probe: Slot::default(),
            runtime_loads: RuntimeLoads::default(),
            config: Slot::default(),
            forms: SaveBook::default(),
            raws: SaveBook::default(),
            config_reads: Rereads::default(),
            runtime_reread: false,
            connectors: Slot::default(),
            names: BTreeMap::new(),
            request: None,
            surface: None,
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

    /// The view asked the Tools source for this: open/close the request locally at once, so
    /// its slot exists before its dispatch arrives. Re-opening a request (even the same id)
    /// starts from nothing: the old ticket never fits the new slot.
    pub fn on_command(&mut self, cmd: &ToolsCommand) {
        match cmd {
            ToolsCommand::OpenRequest { request_id, held } => {
                self.request = Some(OpenRequest::new(request_id.clone(), held.clone()));
            }
            ToolsCommand::CloseRequest => self.request = None,
            ToolsCommand::SelectKeeper { keeper } => {
                // The same Keeper keeps its read; another one starts from nothing.
                if self.surface.as_ref().map(|s| &s.keeper) != keeper.as_ref() {
                    self.surface = keeper.clone().map(SelectedSurface::new);
                }
            }
            ToolsCommand::RefreshRequest => {}
        }
    }

    /// The Keeper the surface panes show, if any.
    pub fn surface_keeper(&self) -> Option<&str> {
        self.surface.as_ref().map(|s| s.keeper.as_str())
    }

    /// What selects the shown Keeper again in a restarted Tools source.
    pub fn reselect_command(&self) -> Option<ToolsCommand> {
        self.surface.as_ref().map(|s| ToolsCommand::SelectKeeper {
            keeper: Some(s.keeper.clone()),
        })
    }

    fn surface_for(&self, keeper: &str) -> Option<&SelectedSurface> {
        self.surface.as_ref().filter(|s| s.keeper == keeper)
    }

    /// What re-opens the open request in a restarted Tools source (its read died with it).
    pub fn reopen_command(&self) -> Option<ToolsCommand> {
        self.request.as_ref().map(|r| ToolsCommand::OpenRequest {
            request_id: r.request_id.clone(),
            held: r.held.clone(),
        })
    }

    fn request_for(&self, id: &str) -> Option<&OpenRequest> {
        self.request.as_ref().filter(|r| r.request_id == id)
    }

    fn request_mut(&mut self, id: &str) -> Option<&mut OpenRequest> {
        self.request.as_mut().filter(|r| r.request_id == id)
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
}

/// A joined Runtime load whose worker returned: what each part came to (P-1) and whether it
/// asked for a fresh probe (`force=1`, F-7).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettledLoad {
    pub generation: u64,
    pub parts: [(LoadPart, PartOutcome); 3],
    pub forced: bool,
}

/// The Runtime loads as the header tells them (P-2).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RuntimeLoads {
    /// The generation of the newest load dispatched under the open epoch.
    pub last_dispatched: Option<u64>,
    /// The newest load that returned.
    pub settled: Option<SettledLoad>,
    /// A save committed when loads up to this generation were already dispatched: their
    /// responses predate it and are never "latest after save" (F-2).
    pub saved_after: Option<u64>,
}

/// Where the newest Runtime load stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadState {
    /// No load was dispatched yet.
    NotRequested,
    /// The newest load is in flight.
    Reading,
    /// The newest dispatched load returned.
    Settled,
    /// The newest dispatched load ended without a result — cancelled (withdrawn, superseded)
    /// — so the parts shown are the previous load's, never invented (P-2).
    Interrupted,
}

impl RuntimeLoads {
    /// After a committed save: whether the shown catalogue was read after it (`Some(true)`),
    /// or predates it (`Some(false)`); `None` without a committed save.
    pub fn after_save(&self) -> Option<bool> {
        let mark = self.saved_after?;
        Some(self.settled.as_ref().is_some_and(|s| s.generation > mark))
    }

    pub fn state(&self, in_flight: bool) -> LoadState {
        match (self.last_dispatched, &self.settled) {
            (None, _) => LoadState::NotRequested,
            _ if in_flight => LoadState::Reading,
            (Some(d), Some(s)) if s.generation >= d => LoadState::Settled,
            _ => LoadState::Interrupted,
        }
    }
}

/// The receipt a step carries (a landed one or one read back from an earlier run).
fn receipt_of<R>(step: &SaveStep<R>) -> Option<&R> {
    match step {
        SaveStep::Ended(r) | SaveStep::Restored(r) => Some(r),
        SaveStep::Written | SaveStep::Sending => None,
    }
}

/// A save event for `id`'s slot is judged by its kind's own book (I-5).
fn judge_save<K: SaveKind, S>(
    book: &SaveBook<K>,
    id: &SaveId,
    ticket: &Ticket<S>,
    event: &SaveEvent<K>,
) -> Result<(), RejectReason> {
    if *id == event.save_id {
        book.judge(ticket, event)
    } else {
        Err(RejectReason::UnknownSlot)
    }
}

impl SystemModel {
    /// A `runtime.toml` save's step was applied: a committed save marks every catalogue load
    /// dispatched so far as predating it (F-2); a receipt re-reads the catalogue and the source
    /// (coalesced, F-2, I-4) — every receipt when `every_receipt`, else only one that may have
    /// written the file (applied, conflict, unknown, or read back from an earlier run).
    fn save_landed<R: Receipt>(&mut self, step: &SaveStep<R>, every_receipt: bool) {
        let Some(receipt) = receipt_of(step) else {
            return;
        };
        let class = receipt.class();
        if matches!(step, SaveStep::Ended(_)) && class == SaveClass::Applied {
            // Any load dispatched so far predates the save (F-2).
            self.runtime_loads.saved_after = Some(self.runtime_loads.last_dispatched.unwrap_or(0));
        }
        let may_have_written = matches!(step, SaveStep::Restored(_))
            || matches!(
                class,
                SaveClass::Applied | SaveClass::Conflict | SaveClass::OutcomeUnknown
            );
        self.runtime_reread |= every_receipt || may_have_written;
    }

    /// The probe part is not served by this MASC (an older release): not a failure to flag.
    pub fn probe_not_served(&self) -> bool {
        self.runtime_loads.settled.as_ref().is_some_and(|s| {
            s.parts
                .iter()
                .any(|(p, o)| *p == LoadPart::Probe && *o == PartOutcome::NotServed)
        })
    }
}

/// The System slots have different value types; this is what dispatch, judge and retire need
/// of them through one key lookup.
trait SystemSlotOps {
    fn dispatched(&mut self, ticket: &Ticket<SystemSlot>, gate: &EpochGate) -> bool;
    fn judge(&self, ticket: &Ticket<SystemSlot>, gate: &EpochGate) -> Result<(), RejectReason>;
    fn retired(&mut self, ticket: &Ticket<SystemSlot>) -> bool;
    fn as_read_slot(&mut self) -> &mut dyn ReadSlot;
}

impl<T: Clone> SystemSlotOps for Slot<T> {
    fn dispatched(&mut self, ticket: &Ticket<SystemSlot>, gate: &EpochGate) -> bool {
        Slot::dispatched(self, ticket, gate)
    }
    fn judge(&self, ticket: &Ticket<SystemSlot>, gate: &EpochGate) -> Result<(), RejectReason> {
        Slot::judge(self, ticket, gate)
    }
    fn retired(&mut self, ticket: &Ticket<SystemSlot>) -> bool {
        Slot::retired(self, ticket)
    }
    fn as_read_slot(&mut self) -> &mut dyn ReadSlot {
        self
    }
}

impl SystemModel {
    fn slot_mut(&mut self, key: &SystemSlot) -> Option<&mut dyn SystemSlotOps> {
        match key {
            SystemSlot::ToolsInventory => Some(&mut self.tools),
            SystemSlot::SkillsCatalog => Some(&mut self.skills),
            SystemSlot::AsyncRequests => Some(&mut self.asyncs),
            SystemSlot::RuntimeCatalogue => Some(&mut self.runtime),
            SystemSlot::RuntimeConfig => Some(&mut self.config),
            SystemSlot::RuntimeForm(_) | SystemSlot::RuntimeRaw(_) => None,
            SystemSlot::ConnectorsStatus => Some(&mut self.connectors),
            SystemSlot::ConnectorNames { .. } => {
                self.names.get_mut(key).map(|s| s as &mut dyn SystemSlotOps)
            }
            SystemSlot::AsyncRequest(id) => self
                .request_mut(id)
                .map(|r| &mut r.detail as &mut dyn SystemSlotOps),
            SystemSlot::KeeperSurface(keeper) => self
                .surface
                .as_mut()
                .filter(|s| s.keeper == *keeper)
                .map(|s| &mut s.read as &mut dyn SystemSlotOps),
            SystemSlot::BindWrite(_) | SystemSlot::UnbindWrite(_) => None,
        }
    }
}
