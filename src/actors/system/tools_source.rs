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
use super::tools::{keeper_surface_slot, tools_slots};
use super::{HeldRequest, SystemObservation, SystemSlot, TOOLS, ToolsCommand};
use crate::actors::contract::{
    DemandKind, GenerationBook, IdentityState, Outlet, SourceContext, SourceControl, SourceHandle,
    SourceKey, SourceSpawner,
};
use crate::actors::read::drill::inject_panic;
use crate::actors::read::{
    CadenceTimer, CadencedArgs, ReadOwner, SlotSpec, SourceMsg, WorkerReturn, spawn_source_with,
};
use crate::protocol::client::WorkspaceClient;
use futures::future::BoxFuture;
use ractor::{Actor, ActorCell, ActorProcessingErr, ActorRef, SpawnErr};
use std::time::Duration;

type Msg = SourceMsg<SystemSlot, SystemObservation, ToolsCommand>;
type Owner = ReadOwner<SystemSlot, SystemObservation, ActorRef<Msg>>;

crate::source_commands!(SystemSlot, SystemObservation, ToolsCommand);

/// One object the view opened, with the owner of its one read.
struct Opened {
    key: SystemSlot,
    owner: Owner,
}

impl Opened {
    fn demand(&mut self, kind: DemandKind) {
        let key = self.key.clone();
        self.owner.demand(&key, kind);
    }
}

pub struct ToolsSource;

pub type ToolsArgs = CadencedArgs;

pub struct ToolsState {
    client: WorkspaceClient,
    outlet: Outlet<SystemSlot, SystemObservation>,
    generations: GenerationBook,
    identity: Option<IdentityState>,
    lists: Owner,
    request: Option<Opened>,
    surface: Option<Opened>,
    cadence: CadenceTimer<Msg>,
    fault_drills: bool,
}

const LISTS: [SystemSlot; 3] = [
    SystemSlot::ToolsInventory,
    SystemSlot::SkillsCatalog,
    SystemSlot::AsyncRequests,
];

impl ToolsState {
    fn open(
        &self,
        myself: &ActorRef<Msg>,
        spec: SlotSpec<SystemSlot, SystemObservation>,
    ) -> Opened {
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
        myself: &ActorRef<Msg>,
        request_id: String,
        held: Option<HeldRequest>,
    ) {
        self.close_request("closed");
        let key = SystemSlot::AsyncRequest(request_id.clone());
        let spec = request_slot(&request_id, held, self.generations.counter(&key));
        self.request = Some(self.open(myself, spec));
    }

    fn close_request(&mut self, reason: &str) {
        if let Some(mut opened) = self.request.take() {
            opened.owner.retire_all(reason);
        }
    }

    fn select_keeper(&mut self, myself: &ActorRef<Msg>, keeper: Option<String>) {
        let same = match (&self.surface, &keeper) {
            (Some(open), Some(k)) => open.key == SystemSlot::KeeperSurface(k.clone()),
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
            let shared = SystemSlot::KeeperSurface(String::new());
            let spec = keeper_surface_slot(&keeper, self.generations.counter(&shared));
            self.surface = Some(self.open(myself, spec));
        }
    }

    /// T-15: while a request detail is open the cadence reads only that request. Any other
    /// demand (the cadence without a detail, `r` on the lists) reads the lists and the
    /// selected Keeper's surface; an explicit demand re-reads the open request too.
    fn demand(&mut self, kind: DemandKind) {
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

    fn identity(&mut self, identity: IdentityState) {
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
            self.cadence.cancel();
        }
        self.identity = Some(identity);
    }

    /// Routes a worker's return to the owner of its key; a closed object's return is stale.
    /// Returns `true` when a read completed (the cadence re-arms after it).
    fn worker_returned(&mut self, ret: WorkerReturn<SystemSlot, SystemObservation>) -> bool {
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
}

impl Actor for ToolsSource {
    type Msg = Msg;
    type State = ToolsState;
    type Arguments = ToolsArgs;

    async fn pre_start(
        &self,
        myself: ActorRef<Msg>,
        args: ToolsArgs,
    ) -> Result<ToolsState, ActorProcessingErr> {
        let ctx = args.ctx;
        let outlet = ctx.outlet::<SystemSlot, SystemObservation>();
        let mut lists = ReadOwner::new(outlet.clone(), myself, ctx.client.clone());
        for spec in tools_slots(&ctx.generations) {
            lists.add_slot(spec);
        }
        Ok(ToolsState {
            client: ctx.client,
            outlet,
            generations: ctx.generations,
            identity: None,
            lists,
            request: None,
            surface: None,
            cadence: CadenceTimer::new(args.cadence),
            fault_drills: ctx.fault_drills,
        })
    }

    async fn handle(
        &self,
        myself: ActorRef<Msg>,
        msg: Msg,
        state: &mut ToolsState,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            SourceMsg::Command(cmd) => match cmd {
                ToolsCommand::OpenRequest { request_id, held } => {
                    state.open_request(&myself, request_id, held)
                }
                ToolsCommand::RefreshRequest => {
                    if let Some(request) = state.request.as_mut() {
                        request.demand(DemandKind::Explicit);
                    }
                }
                ToolsCommand::CloseRequest => state.close_request("closed"),
                ToolsCommand::SelectKeeper { keeper } => state.select_keeper(&myself, keeper),
            },
            SourceMsg::Control(SourceControl::Demand(kind)) => state.demand(kind),
            SourceMsg::Control(SourceControl::Identity(identity)) => state.identity(identity),
            SourceMsg::Returned(ret) => {
                if state.worker_returned(ret) {
                    state.cadence.reschedule(&myself);
                }
            }
            SourceMsg::Control(SourceControl::Visible(visible)) => {
                state.cadence.set_visible(visible, &myself)
            }
            SourceMsg::Control(SourceControl::InjectPanic) => {
                inject_panic(state.fault_drills, TOOLS)
            }
        }
        Ok(())
    }

    async fn post_stop(
        &self,
        _myself: ActorRef<Msg>,
        state: &mut ToolsState,
    ) -> Result<(), ActorProcessingErr> {
        state.lists.retire_all("source_stopped");
        state.close_request("source_stopped");
        if let Some(mut surface) = state.surface.take() {
            surface.owner.retire_all("source_stopped");
        }
        Ok(())
    }
}

/// Spawns the Tools source under the supervisor.
pub struct ToolsSpawner {
    pub cadence: Duration,
}

impl SourceSpawner for ToolsSpawner {
    fn key(&self) -> SourceKey {
        TOOLS
    }

    fn spawn(
        &self,
        ctx: SourceContext,
        supervisor: ActorCell,
    ) -> BoxFuture<'static, Result<SourceHandle, SpawnErr>> {
        let args = ToolsArgs {
            ctx,
            cadence: self.cadence,
        };
        spawn_source_with::<_, ToolsCommand>(ToolsSource, args, supervisor)
    }
}
