//! The Tools source actor (protocol.md §6; sources.md T-1…T-15): one owner with the three
//! standing list slots, and one owner per object the view opens — the open async request's
//! single GET and the selected Keeper's surface.
//!
//! - The three lists start from one dispatch with their own workers and tickets (T-1); each
//!   result consumes only its own slot (T-2). The cadence shares a read in flight, `r`
//!   supersedes (G-3).
//! - Opening a request builds a new owner, so a re-opened id gets a later generation and an
//!   old response never fits (T-11, A-17). While it is open the cadence reads only that
//!   request and never waits for the Tool or Skill lists (T-15); closing it retires only its
//!   read (T-12) and the cadence reads the lists again.
//! - Withdrawal retires every read (G-6); the next confirmation reads the standing slots and
//!   the open objects again.

use super::async_detail::request_slot;
use super::reads::{keeper_surface_slot, tools_slots};
use super::{HeldRequest, TOOLS, ToolsCommand, ToolsObservation, ToolsSlot};
use crate::actors::contract::{
    DemandKind, GenerationBook, IdentityState, Outlet, SourceContext, SourceKey,
};
use crate::actors::read::shell::{Ctl, Every, Myself, OwnKey, SourceState};
use crate::actors::read::{ReadOwner, SlotSpec, WorkerReturn};
use crate::protocol::client::WorkspaceClient;
use std::time::Duration;

type Owner = ReadOwner<ToolsSlot, ToolsObservation, Myself<ToolsState>>;

crate::source_commands!(ToolsSlot, ToolsObservation, ToolsCommand);

/// One object the view opened, with the owner of its one read.
struct Opened {
    key: ToolsSlot,
    owner: Owner,
}

impl Opened {
    fn demand(&mut self, kind: DemandKind) {
        let key = self.key.clone();
        self.owner.demand(&key, kind);
    }
}

pub struct ToolsState {
    client: WorkspaceClient,
    outlet: Outlet<ToolsSlot, ToolsObservation>,
    generations: GenerationBook,
    identity: Option<IdentityState>,
    lists: Owner,
    request: Option<Opened>,
    surface: Option<Opened>,
}

const LISTS: [ToolsSlot; 3] = [
    ToolsSlot::ToolsInventory,
    ToolsSlot::SkillsCatalog,
    ToolsSlot::AsyncRequests,
];

impl ToolsState {
    fn open(&self, myself: &Myself<Self>, spec: SlotSpec<ToolsSlot, ToolsObservation>) -> Opened {
        let key = spec.key.clone();
        let mut owner = ReadOwner::new(self.outlet.clone(), myself.clone(), self.client.clone());
        owner.add_slot(spec);
        if let Some(identity) = &self.identity {
            owner.identity(identity);
        }
        let mut opened = Opened { key, owner };
        opened.demand(DemandKind::Explicit);
        opened
    }

    fn open_request(
        &mut self,
        myself: &Myself<Self>,
        request_id: String,
        held: Option<HeldRequest>,
    ) {
        self.close_request("closed");
        let key = ToolsSlot::AsyncRequest(request_id.clone());
        let spec = request_slot(&request_id, held, self.generations.counter(&key));
        self.request = Some(self.open(myself, spec));
    }

    fn close_request(&mut self, reason: &str) {
        if let Some(mut opened) = self.request.take() {
            opened.owner.retire_all(reason);
        }
    }

    fn select_keeper(&mut self, myself: &Myself<Self>, keeper: Option<String>) {
        let same = match (&self.surface, &keeper) {
            (Some(open), Some(k)) => open.key == ToolsSlot::KeeperSurface(k.clone()),
            (None, None) => true,
            _ => false,
        };
        if same {
            return;
        }
        if let Some(mut opened) = self.surface.take() {
            opened.owner.retire_all("keeper_changed");
        }
        if let Some(keeper) = keeper {
            // One counter for every Keeper's surface: the trace names them alike (no Keeper
            // names in traces, G-10), so a generation must name one read across Keepers.
            let shared = ToolsSlot::KeeperSurface(String::new());
            let spec = keeper_surface_slot(&keeper, self.generations.counter(&shared));
            self.surface = Some(self.open(myself, spec));
        }
    }
}

impl SourceState for ToolsState {
    type Slot = ToolsSlot;
    type Payload = ToolsObservation;
    type Command = ToolsCommand;
    type Args = Duration;

    fn start(ctx: SourceContext, myself: &Myself<Self>, _cadence: Duration) -> Self {
        let outlet = ctx.outlet::<ToolsSlot, ToolsObservation>();
        let mut lists = ReadOwner::new(outlet.clone(), myself.clone(), ctx.client.clone());
        for spec in tools_slots(&ctx.generations) {
            lists.add_slot(spec);
        }
        ToolsState {
            client: ctx.client,
            outlet,
            generations: ctx.generations,
            identity: None,
            lists,
            request: None,
            surface: None,
        }
    }

    fn command(&mut self, ctl: &mut Ctl<Self>, command: ToolsCommand) {
        match command {
            ToolsCommand::OpenRequest { request_id, held } => {
                self.open_request(&ctl.myself, request_id, held)
            }
            ToolsCommand::RefreshRequest => {
                if let Some(request) = self.request.as_mut() {
                    request.demand(DemandKind::Explicit);
                }
            }
            ToolsCommand::CloseRequest => self.close_request("closed"),
            ToolsCommand::SelectKeeper { keeper } => self.select_keeper(&ctl.myself, keeper),
        }
    }

    /// T-15: while a request detail is open the cadence reads only that request. Any other
    /// demand (the cadence without a detail, `r` on the lists) reads the lists and the
    /// selected Keeper's surface; an explicit demand re-reads the open request too.
    fn demand(&mut self, _ctl: &mut Ctl<Self>, kind: DemandKind) {
        if kind == DemandKind::Cadence
            && let Some(request) = self.request.as_mut()
        {
            request.demand(kind);
            return;
        }
        for key in &LISTS {
            self.lists.demand(key, kind);
        }
        if let Some(surface) = self.surface.as_mut() {
            surface.demand(kind);
        }
        if let Some(request) = self.request.as_mut() {
            request.demand(kind);
        }
    }

    fn identity(&mut self, ctl: &mut Ctl<Self>, identity: IdentityState) {
        self.lists.identity(&identity);
        for opened in [self.request.as_mut(), self.surface.as_mut()]
            .into_iter()
            .flatten()
        {
            let was_withdrawn = opened.owner.authority().is_none();
            opened.owner.identity(&identity);
            if was_withdrawn && opened.owner.authority().is_some() {
                opened.demand(DemandKind::Cadence);
            }
        }
        if self.lists.authority().is_none() {
            ctl.cancel_cadence();
        }
        self.identity = Some(identity);
    }

    /// Routes a worker's return to the owner of its key; a closed object's return is stale.
    /// Returns `true` when a read completed (the cadence re-arms after it).
    fn returned(
        &mut self,
        _ctl: &mut Ctl<Self>,
        ret: WorkerReturn<ToolsSlot, ToolsObservation>,
    ) -> bool {
        let key = ret.ticket.slot.clone();
        if LISTS.contains(&key) {
            return self.lists.worker_returned(ret).completed();
        }
        for opened in [self.request.as_mut(), self.surface.as_mut()]
            .into_iter()
            .flatten()
        {
            if opened.key == key {
                return opened.owner.worker_returned(ret).completed();
            }
        }
        ret.reject_late();
        false
    }

    fn stop(&mut self, reason: &str) {
        self.lists.retire_all(reason);
        self.close_request(reason);
        if let Some(mut surface) = self.surface.take() {
            surface.owner.retire_all(reason);
        }
    }
}

impl OwnKey for ToolsState {
    const KEY: SourceKey = TOOLS;
}

/// Spawns the Tools source under the supervisor.
pub type ToolsSpawner = Every<ToolsState>;
