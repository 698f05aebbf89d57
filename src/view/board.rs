//! The Board's model (sources.md E-1…E-15): the posts slot, the hearth census slot and the open
//! post's detail slot, each admitted by its own ticket.
//!
//! - Posts and census are separate slots (E-1): a result or failure consumes only its own.
//! - Posts are stored with the query they were read with (E-11); the screen compares it with
//!   the current controls and says "last observation" when they differ (E-12).
//! - The census keeps the five states of `Fetched` (E-3); totals are drawn only when it is
//!   received with nothing pending (E-4, decided by the screen from `census_settled`).
//! - A detail result updates only the open post's slot, never the list (E-8).

use super::admission::{EpochGate, RejectReason, Slot, SlotControl};
use super::fetched::{Fetched, ReadBadge};
use crate::actors::board::{BoardCommand, BoardQuery};
use crate::actors::messages::ObservationPayload;
use crate::actors::ticket::{SourceKey, Ticket};
use crate::protocol::admission::ReadScope;
use crate::protocol::board::{BoardPostDetail, BoardPostsPage, HearthCensus};
use std::sync::Arc;
use std::time::Instant;

/// One admitted posts page with the query it was dispatched with (E-11).
#[derive(Debug, Clone, PartialEq)]
pub struct PostsObservation {
    pub query: BoardQuery,
    pub page: Arc<BoardPostsPage>,
}

/// The open post and its detail read.
#[derive(Debug, Default)]
pub struct OpenPost {
    pub post_id: String,
    pub detail: Slot<Arc<BoardPostDetail>>,
    /// The read view's rows for one admitted detail at one width and theme: built once
    /// (Markdown, wrapping) and reused by every frame and scroll until either changes.
    pub rendered: std::sync::Mutex<Option<RenderedPost>>,
}

/// Rows of the read view, keyed by the exact admitted value (held, so its identity cannot
/// be reused by another allocation), the width and whether colour is on.
#[derive(Debug)]
pub struct RenderedPost {
    pub detail: Arc<BoardPostDetail>,
    pub width: usize,
    pub color: bool,
    pub lines: Arc<Vec<ratatui::text::Line<'static>>>,
}

#[derive(Debug, Default)]
pub struct BoardModel {
    pub posts: Slot<Arc<PostsObservation>>,
    pub census: Slot<Arc<HearthCensus>>,
    pub post: Option<OpenPost>,
}

impl BoardModel {
    /// Whether this model takes messages of `source` (the actor key included, for restarts).
    pub fn owns(source: &SourceKey) -> bool {
        matches!(
            source,
            SourceKey::Board
                | SourceKey::BoardPosts
                | SourceKey::HearthCensus
                | SourceKey::BoardPost(_)
        )
    }

    /// The view asked the source for this: open/close posts locally at once, so the detail
    /// slot exists before its dispatch arrives.
    pub fn on_command(&mut self, cmd: &BoardCommand) {
        match cmd {
            BoardCommand::OpenPost { post_id } => {
                self.post = Some(OpenPost {
                    post_id: post_id.clone(),
                    ..OpenPost::default()
                });
            }
            BoardCommand::ClosePost => self.post = None,
            BoardCommand::SetQuery(_) | BoardCommand::RefreshPost => {}
        }
    }

    fn detail_for(&mut self, id: &str) -> Option<&mut Slot<Arc<BoardPostDetail>>> {
        self.post
            .as_mut()
            .filter(|p| p.post_id == id)
            .map(|p| &mut p.detail)
    }

    pub fn read_badge(&mut self, source: &SourceKey) -> Option<&mut dyn ReadBadge> {
        match source {
            SourceKey::BoardPosts => Some(&mut self.posts.fetched),
            SourceKey::HearthCensus => Some(&mut self.census.fetched),
            SourceKey::BoardPost(id) => self
                .detail_for(id)
                .map(|s| &mut s.fetched as &mut dyn ReadBadge),
            _ => None,
        }
    }

    pub fn on_dispatched(&mut self, ticket: Ticket, gate: &EpochGate) -> bool {
        match ticket.source.clone() {
            SourceKey::BoardPosts => self.posts.dispatched(ticket, gate),
            SourceKey::HearthCensus => self.census.dispatched(ticket, gate),
            SourceKey::BoardPost(id) => match self.detail_for(&id) {
                Some(slot) => slot.dispatched(ticket, gate),
                None => false,
            },
            _ => false,
        }
    }

    pub fn judge(
        &self,
        ticket: &Ticket,
        payload: &ObservationPayload,
        gate: &EpochGate,
    ) -> Result<(), RejectReason> {
        match (&ticket.source, payload) {
            (SourceKey::BoardPosts, ObservationPayload::BoardPosts(_)) => {
                self.posts.judge(ticket, gate)
            }
            (SourceKey::HearthCensus, ObservationPayload::HearthCensus(_)) => {
                self.census.judge(ticket, gate)
            }
            (SourceKey::BoardPost(id), ObservationPayload::BoardPost(_)) => {
                // Not the open post (closed, or another one opened): never applied.
                Slot::judge_if_open(
                    self.post
                        .as_ref()
                        .filter(|p| &p.post_id == id)
                        .map(|p| &p.detail),
                    ticket,
                    gate,
                )
            }
            _ => Err(RejectReason::UnknownSlot),
        }
    }

    /// Applies a judged observation to its own slot only (E-1, E-8).
    pub fn apply(&mut self, ticket: &Ticket, payload: ObservationPayload, now: Instant) {
        match payload {
            ObservationPayload::BoardPosts(read) => {
                let query = read.query;
                self.posts
                    .apply_with(ticket, read.result, now, move |page| {
                        Arc::new(PostsObservation { query, page })
                    });
            }
            ObservationPayload::HearthCensus(result) => {
                self.census.apply_with(ticket, result, now, |v| v);
            }
            ObservationPayload::BoardPost(result) => {
                if let SourceKey::BoardPost(id) = &ticket.source
                    && let Some(slot) = self.detail_for(id)
                {
                    slot.apply_with(ticket, result, now, |v| v);
                }
            }
            _ => {}
        }
    }

    pub fn on_retired(&mut self, ticket: &Ticket) -> bool {
        match ticket.source.clone() {
            SourceKey::BoardPosts => self.posts.retired(ticket),
            SourceKey::HearthCensus => self.census.retired(ticket),
            SourceKey::BoardPost(id) => self.detail_for(&id).is_some_and(|s| s.retired(ticket)),
            _ => false,
        }
    }

    fn slots(&mut self) -> [Option<&mut dyn SlotControl>; 3] {
        [
            Some(&mut self.posts as &mut dyn SlotControl),
            Some(&mut self.census as &mut dyn SlotControl),
            self.post
                .as_mut()
                .map(|p| &mut p.detail as &mut dyn SlotControl),
        ]
    }

    /// A new epoch: reads in flight lose their slots; another workspace's values go (G-6,
    /// E-5: withdrawal clears the census and its candidates in another workspace).
    pub fn on_new_epoch(&mut self, scope: &ReadScope) -> bool {
        let mut changed = false;
        for slot in self.slots().into_iter().flatten() {
            changed |= slot.withdraw_read();
            changed |= slot.forget_other(scope);
        }
        changed
    }

    pub fn on_withdrawn(&mut self) -> bool {
        let mut changed = false;
        for slot in self.slots().into_iter().flatten() {
            changed |= slot.withdraw_read();
        }
        changed
    }

    pub fn on_source_restarted(&mut self, source: &SourceKey) -> bool {
        if *source != SourceKey::Board {
            return false;
        }
        let mut changed = false;
        for slot in self.slots().into_iter().flatten() {
            changed |= slot.restarted();
        }
        changed
    }

    pub fn on_source_stopped(&mut self, source: &SourceKey) -> bool {
        if *source != SourceKey::Board {
            return false;
        }
        for slot in self.slots().into_iter().flatten() {
            slot.stopped();
        }
        true
    }

    /// Some Board read's last result failed (the header's "degraded").
    pub fn any_failed(&self) -> bool {
        matches!(self.posts.fetched, Fetched::Failed { .. })
            || matches!(self.census.fetched, Fetched::Failed { .. })
    }

    /// E-4: the census may be drawn as totals only when received with nothing pending.
    pub fn census_settled(&self) -> bool {
        matches!(self.census.fetched, Fetched::Ready(_)) && !self.census.in_flight()
    }
}
