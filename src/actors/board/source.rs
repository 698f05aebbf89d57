//! The Board source actor: one owner with the posts and census slots (two datasets of one
//! source, E-1), and one owner per open post for its detail (E-8).
//!
//! - Posts and census are standing slots: read on every confirmed epoch and on the cadence
//!   (which shares a read in flight, G-3); `r` supersedes both. Each result consumes only its
//!   own slot and whichever returns first is delivered first (E-1): they are independent
//!   workers with their own tickets.
//! - A query change re-plans the posts reader with the new query and supersedes the read in
//!   flight; the payload carries the query fixed at dispatch (E-11, E-14). The census does
//!   not depend on the query and is not re-read by it.
//! - Opening a post builds a new owner: a re-opened id gets a later generation, so an old
//!   response never fits (G-7). Closing retires it.
//! - Withdrawal retires every read (G-6); the next confirmation reads the standing slots
//!   again (the owner's standing rule) and the open post again if it is still open.

use super::reads::{BoardQuery, census_slot, post_slot, posts_reader, posts_slot};
use super::{BOARD, BoardCommand, BoardObservation, BoardSlot};
use crate::actors::contract::{
    DemandKind, GenerationBook, IdentityState, Outlet, SourceContext, SourceControl, SourceHandle,
    SourceKey, SourceSpawner,
};
use crate::actors::read::drill::inject_panic;
use crate::actors::read::{
    CadenceTimer, CadencedArgs, ReadOwner, SourceMsg, WorkerReturn, spawn_source_with,
};
use crate::protocol::client::WorkspaceClient;
use futures::future::BoxFuture;
use ractor::{Actor, ActorCell, ActorProcessingErr, ActorRef, SpawnErr};
use std::time::Duration;

type Msg = SourceMsg<BoardSlot, BoardObservation, BoardCommand>;
type Owner = ReadOwner<BoardSlot, BoardObservation, ActorRef<Msg>>;

crate::source_commands!(BoardSlot, BoardObservation, BoardCommand);

struct PostReads {
    post_id: String,
    owner: Owner,
}

impl PostReads {
    fn key(&self) -> BoardSlot {
        BoardSlot::Post(self.post_id.clone())
    }
}

pub struct BoardSource;

pub type BoardArgs = CadencedArgs;

pub struct BoardState {
    client: WorkspaceClient,
    outlet: Outlet<BoardSlot, BoardObservation>,
    generations: GenerationBook,
    identity: Option<IdentityState>,
    lists: Owner,
    query: BoardQuery,
    post: Option<PostReads>,
    cadence: CadenceTimer<Msg>,
    fault_drills: bool,
}

impl BoardState {
    fn set_query(&mut self, query: BoardQuery) {
        if query == self.query {
            return;
        }
        self.lists
            .set_reader(&BoardSlot::Posts, posts_reader(query.clone()));
        self.query = query;
        self.lists.demand(&BoardSlot::Posts, DemandKind::Explicit);
    }

    fn open_post(&mut self, myself: &ActorRef<Msg>, post_id: String) {
        self.close_post("closed");
        let key = BoardSlot::Post(post_id.clone());
        let mut owner = ReadOwner::new(self.outlet.clone(), myself.clone(), self.client.clone());
        owner.add_slot(post_slot(&post_id, self.generations.counter(&key)));
        if let Some(identity) = &self.identity {
            owner.identity(identity);
        }
        owner.demand(&key, DemandKind::Explicit);
        self.post = Some(PostReads { post_id, owner });
    }

    fn close_post(&mut self, reason: &str) {
        if let Some(mut post) = self.post.take() {
            post.owner.retire_all(reason);
        }
    }

    fn demand(&mut self, kind: DemandKind) {
        self.lists.demand(&BoardSlot::Posts, kind);
        self.lists.demand(&BoardSlot::Census, kind);
        if let Some(post) = self.post.as_mut() {
            let key = post.key();
            post.owner.demand(&key, kind);
        }
    }

    fn identity(&mut self, identity: IdentityState) {
        self.lists.identity(&identity);
        if let Some(post) = self.post.as_mut() {
            let was_withdrawn = post.owner.authority().is_none();
            post.owner.identity(&identity);
            if was_withdrawn && post.owner.authority().is_some() {
                let key = post.key();
                post.owner.demand(&key, DemandKind::Cadence);
            }
        }
        if self.lists.authority().is_none() {
            self.cadence.cancel();
        }
        self.identity = Some(identity);
    }

    /// Routes a worker's return to the owner of its key; a closed post's return is stale.
    /// Returns `true` when a list read completed (the cadence re-arms after it).
    fn worker_returned(&mut self, ret: WorkerReturn<BoardSlot, BoardObservation>) -> bool {
        match ret.ticket.slot.clone() {
            BoardSlot::Posts | BoardSlot::Census => self.lists.worker_returned(ret).completed(),
            BoardSlot::Post(id) if self.post.as_ref().is_some_and(|p| p.post_id == id) => {
                if let Some(post) = self.post.as_mut() {
                    post.owner.worker_returned(ret);
                }
                false
            }
            _ => {
                ret.reject_late();
                false
            }
        }
    }
}

impl Actor for BoardSource {
    type Msg = Msg;
    type State = BoardState;
    type Arguments = BoardArgs;

    async fn pre_start(
        &self,
        myself: ActorRef<Msg>,
        args: BoardArgs,
    ) -> Result<BoardState, ActorProcessingErr> {
        let ctx = args.ctx;
        let outlet = ctx.outlet::<BoardSlot, BoardObservation>();
        let query = BoardQuery::default();
        let mut lists = ReadOwner::new(outlet.clone(), myself, ctx.client.clone());
        lists.add_slot(posts_slot(
            query.clone(),
            ctx.generations.counter(&BoardSlot::Posts),
        ));
        lists.add_slot(census_slot(ctx.generations.counter(&BoardSlot::Census)));
        Ok(BoardState {
            client: ctx.client,
            outlet,
            generations: ctx.generations,
            identity: None,
            lists,
            query,
            post: None,
            cadence: CadenceTimer::new(args.cadence),
            fault_drills: ctx.fault_drills,
        })
    }

    async fn handle(
        &self,
        myself: ActorRef<Msg>,
        msg: Msg,
        state: &mut BoardState,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            SourceMsg::Command(cmd) => match cmd {
                BoardCommand::SetQuery(query) => state.set_query(query),
                BoardCommand::OpenPost { post_id } => state.open_post(&myself, post_id),
                BoardCommand::RefreshPost => {
                    if let Some(post) = state.post.as_mut() {
                        let key = post.key();
                        post.owner.demand(&key, DemandKind::Explicit);
                    }
                }
                BoardCommand::ClosePost => state.close_post("closed"),
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
                inject_panic(state.fault_drills, BOARD)
            }
        }
        Ok(())
    }

    async fn post_stop(
        &self,
        _myself: ActorRef<Msg>,
        state: &mut BoardState,
    ) -> Result<(), ActorProcessingErr> {
        state.lists.retire_all("source_stopped");
        state.close_post("source_stopped");
        Ok(())
    }
}

/// Spawns the Board source under the supervisor.
pub struct BoardSpawner {
    pub cadence: Duration,
}

impl SourceSpawner for BoardSpawner {
    fn key(&self) -> SourceKey {
        BOARD
    }

    fn spawn(
        &self,
        ctx: SourceContext,
        supervisor: ActorCell,
    ) -> BoxFuture<'static, Result<SourceHandle, SpawnErr>> {
        let args = BoardArgs {
            ctx,
            cadence: self.cadence,
        };
        spawn_source_with::<_, BoardCommand>(BoardSource, args, supervisor)
    }
}
