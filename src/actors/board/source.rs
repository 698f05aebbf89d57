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
    DemandKind, GenerationBook, IdentityState, Outlet, SourceContext, SourceKey,
};
use crate::actors::read::shell::{Ctl, Every, Myself, OwnKey, SourceState};
use crate::actors::read::{ReadOwner, WorkerReturn};
use crate::protocol::client::WorkspaceClient;
use std::time::Duration;

type Owner = ReadOwner<BoardSlot, BoardObservation, Myself<BoardState>>;

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

pub struct BoardState {
    client: WorkspaceClient,
    outlet: Outlet<BoardSlot, BoardObservation>,
    generations: GenerationBook,
    identity: Option<IdentityState>,
    lists: Owner,
    query: BoardQuery,
    post: Option<PostReads>,
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

    fn open_post(&mut self, myself: &Myself<Self>, post_id: String) {
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
}

impl SourceState for BoardState {
    type Slot = BoardSlot;
    type Payload = BoardObservation;
    type Command = BoardCommand;
    type Args = Duration;

    fn start(ctx: SourceContext, myself: &Myself<Self>, _cadence: Duration) -> Self {
        let outlet = ctx.outlet::<BoardSlot, BoardObservation>();
        let query = BoardQuery::default();
        let mut lists = ReadOwner::new(outlet.clone(), myself.clone(), ctx.client.clone());
        lists.add_slot(posts_slot(
            query.clone(),
            ctx.generations.counter(&BoardSlot::Posts),
        ));
        lists.add_slot(census_slot(ctx.generations.counter(&BoardSlot::Census)));
        BoardState {
            client: ctx.client,
            outlet,
            generations: ctx.generations,
            identity: None,
            lists,
            query,
            post: None,
        }
    }

    fn command(&mut self, ctl: &mut Ctl<Self>, command: BoardCommand) {
        match command {
            BoardCommand::SetQuery(query) => self.set_query(query),
            BoardCommand::OpenPost { post_id } => self.open_post(&ctl.myself, post_id),
            BoardCommand::RefreshPost => {
                if let Some(post) = self.post.as_mut() {
                    let key = post.key();
                    post.owner.demand(&key, DemandKind::Explicit);
                }
            }
            BoardCommand::ClosePost => self.close_post("closed"),
        }
    }

    fn demand(&mut self, _ctl: &mut Ctl<Self>, kind: DemandKind) {
        self.lists.demand(&BoardSlot::Posts, kind);
        self.lists.demand(&BoardSlot::Census, kind);
        if let Some(post) = self.post.as_mut() {
            let key = post.key();
            post.owner.demand(&key, kind);
        }
    }

    fn identity(&mut self, ctl: &mut Ctl<Self>, identity: IdentityState) {
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
            ctl.cancel_cadence();
        }
        self.identity = Some(identity);
    }

    /// Routes a worker's return to the owner of its key; a closed post's return is stale.
    /// A list read that completed re-arms the cadence.
    fn returned(
        &mut self,
        _ctl: &mut Ctl<Self>,
        ret: WorkerReturn<BoardSlot, BoardObservation>,
    ) -> bool {
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

    fn stop(&mut self, reason: &str) {
        self.lists.retire_all(reason);
        self.close_post(reason);
    }
}

impl OwnKey for BoardState {
    const KEY: SourceKey = BOARD;
}

/// Spawns the Board source under the supervisor.
pub type BoardSpawner = Every<BoardState>;
