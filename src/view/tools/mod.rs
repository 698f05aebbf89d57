//! The Tools surface's model: the Tools inventory, the Skills catalogue, the async-request
//! observation (three independent slots, T-1…T-3), the open async request (§6.4) and the
//! selected Keeper's effective surface (§6.1), each admitted by its own ticket. A result or
//! failure consumes only its own slot (T-2); a failed re-read keeps the last good value beside
//! the failure (T-14).

use super::admission::{EpochGate, ReadSlot, RejectReason, Slot};
use super::surface::{SurfaceModel, not_served_of};
use super::tools::async_request::OpenRequest;
use super::tools::panes::SelectedSurface;
use crate::actors::contract::{Inbox, Inboxes, SourceKey, Ticket};
use crate::actors::tools::{TOOLS, ToolsCommand, ToolsObservation, ToolsSlot};
use crate::protocol::async_requests::AsyncRequestList;
use crate::protocol::routes::RouteFamily;
use crate::protocol::skills::SkillsSnapshotRead;
use crate::protocol::tools::ToolsInventoryRead;
use std::sync::Arc;
use std::time::Instant;

pub mod async_request;
pub mod panes;
mod surface;

#[derive(Debug)]
pub struct ToolsModel {
    inbox: Inbox<ToolsSlot, ToolsObservation>,
    /// The Tools inventory (§6.1).
    pub inventory: Slot<Arc<ToolsInventoryRead>>,
    pub skills: Slot<Arc<SkillsSnapshotRead>>,
    pub asyncs: Slot<Arc<AsyncRequestList>>,
    /// The async request the view opened and its single GET (§6.4, T-9…T-13).
    pub request: Option<OpenRequest>,
    /// The Keeper the `available` and `receipts` panes show, and its `?keeper=` read (§6.1).
    pub surface: Option<SelectedSurface>,
}

impl Default for ToolsModel {
    /// A model with an inbox of its own (tests, screens rendered without a runtime).
    fn default() -> Self {
        Self::new(&Inboxes::new())
    }
}

impl ToolsModel {
    pub fn new(inboxes: &Inboxes) -> Self {
        Self {
            inbox: inboxes.get(),
            inventory: Slot::default(),
            skills: Slot::default(),
            asyncs: Slot::default(),
            request: None,
            surface: None,
        }
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
}

/// The Tools slots have different value types; this is what dispatch, judge and retire need
/// of them through one key lookup.
trait ToolsSlotOps {
    fn dispatched(&mut self, ticket: &Ticket<ToolsSlot>, gate: &EpochGate) -> bool;
    fn judge(&self, ticket: &Ticket<ToolsSlot>, gate: &EpochGate) -> Result<(), RejectReason>;
    fn retired(&mut self, ticket: &Ticket<ToolsSlot>) -> bool;
    fn as_read_slot(&mut self) -> &mut dyn ReadSlot;
}

impl<T: Clone> ToolsSlotOps for Slot<T> {
    fn dispatched(&mut self, ticket: &Ticket<ToolsSlot>, gate: &EpochGate) -> bool {
        Slot::dispatched(self, ticket, gate)
    }
    fn judge(&self, ticket: &Ticket<ToolsSlot>, gate: &EpochGate) -> Result<(), RejectReason> {
        Slot::judge(self, ticket, gate)
    }
    fn retired(&mut self, ticket: &Ticket<ToolsSlot>) -> bool {
        Slot::retired(self, ticket)
    }
    fn as_read_slot(&mut self) -> &mut dyn ReadSlot {
        self
    }
}

impl ToolsModel {
    fn slot_mut(&mut self, key: &ToolsSlot) -> Option<&mut dyn ToolsSlotOps> {
        match key {
            ToolsSlot::ToolsInventory => Some(&mut self.inventory),
            ToolsSlot::SkillsCatalog => Some(&mut self.skills),
            ToolsSlot::AsyncRequests => Some(&mut self.asyncs),
            ToolsSlot::AsyncRequest(id) => self
                .request_mut(id)
                .map(|r| &mut r.detail as &mut dyn ToolsSlotOps),
            ToolsSlot::KeeperSurface(keeper) => self
                .surface
                .as_mut()
                .filter(|s| s.keeper == *keeper)
                .map(|s| &mut s.read as &mut dyn ToolsSlotOps),
        }
    }
}
