//! The Board's model (sources.md E-1…E-15): the posts slot, the hearth census slot and the open
//! post's detail slot, each admitted by its own ticket.
//!
//! - Posts and census are separate slots (E-1): a result or failure consumes only its own.
//! - Posts are stored with the query they were read with (E-11); the screen compares it with
//!   the current controls and says "last observation" when they differ (E-12).
//! - The census keeps the five states of `Fetched` (E-3); totals are drawn only when it is
//!   received with nothing pending (E-4, decided by the screen from `census_settled`).
//! - A detail result updates only the open post's slot, never the list (E-8).
//! - E-2: the Board is pending while either dataset slot has a read in flight
//!   ([`BoardModel::pending`]); the screen says which.
//! - E-5: a census read that owned the slot and ended without a result (retired) leaves the
//!   census `unavailable` (failed `ended_without_result`, the last value kept beside it); a
//!   read that no longer owns the slot changes nothing. Withdrawal clears the census (the
//!   posts keep their last value, G-6).
//! - E-10: a failure is a slot state, drawn once beside the slot: the same error again leaves
//!   the same state (no second notice, no new line).
//! - E-15: a read with only its dispatch stays in flight ("reading"/"pending") however long it
//!   takes; no timer turns it into a failure.

use super::admission::{EpochGate, ReadSlot, RejectReason, Slot};
use super::fetched::{FailureClass, Fetched, SlotFailure};
use super::surface::{SurfaceModel, not_served_of};
use crate::actors::board::compose::BoardPost;
use crate::actors::board::vote::BoardVote;
use crate::actors::board::{BOARD, BoardCommand, BoardObservation, BoardQuery, BoardSlot};
use crate::actors::contract::{Inbox, Inboxes, SourceKey, Ticket};
use crate::protocol::board::{BoardPostDetail, BoardPostsPage, HearthCensus};
use crate::protocol::outcome::SaveClass;
use crate::protocol::routes::RouteFamily;
use crate::view::saves::books::save_books;
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
/// be reused by another allocation), the width and the theme.
#[derive(Debug)]
pub struct RenderedPost {
    pub detail: Arc<BoardPostDetail>,
    pub width: usize,
    pub theme: crate::view::theme::Theme,
    pub lines: Arc<Vec<ratatui::text::Line<'static>>>,
}

#[derive(Debug)]
pub struct BoardModel {
    inbox: Inbox<BoardSlot, BoardObservation>,
    pub posts: Slot<Arc<PostsObservation>>,
    pub census: Slot<Arc<HearthCensus>>,
    pub post: Option<OpenPost>,
    pub saves: BoardSaves,
    /// A save ended that may have changed the Board: the list, census and open post are read
    /// again (a vote's score comes from the re-read, §15.6).
    reread: bool,
}

save_books! {
    /// The Board's saves this session sent (or read back), each its own save.
    pub struct BoardSaves for BoardSlot, BoardObservation {
        /// Composed posts (§8.4).
        composed: BoardPost => Compose,
        /// Votes on posts (§15.6).
        votes: BoardVote => Vote,
    }
}

impl Default for BoardModel {
    /// A model with an inbox of its own (tests, screens rendered without a runtime).
    fn default() -> Self {
        Self::new(&Inboxes::new())
    }
}

impl BoardModel {
    pub fn new(inboxes: &Inboxes) -> Self {
        Self {
            inbox: inboxes.get(),
            posts: Slot::default(),
            census: Slot::default(),
            post: None,
            saves: BoardSaves::default(),
            reread: false,
        }
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

    /// E-2: the Board is pending while any of its dataset slots (posts, census) has a read in
    /// flight — the posts arriving first do not end it.
    pub fn pending(&self) -> bool {
        self.posts.in_flight() || self.census.in_flight()
    }

    /// E-4: the census may be drawn as totals only when received with nothing pending.
    pub fn census_settled(&self) -> bool {
        matches!(self.census.fetched, Fetched::Ready(_)) && !self.census.in_flight()
    }
}

impl SurfaceModel for BoardModel {
    type Slot = BoardSlot;
    type Payload = BoardObservation;

    fn inbox(&self) -> &Inbox<BoardSlot, BoardObservation> {
        &self.inbox
    }

    fn dispatched(&mut self, ticket: &Ticket<BoardSlot>, gate: &EpochGate) -> bool {
        if let Some(owned) = self.saves.dispatched(ticket) {
            return owned;
        }
        match &ticket.slot {
            BoardSlot::Posts => self.posts.dispatched(ticket, gate),
            BoardSlot::Census => self.census.dispatched(ticket, gate),
            BoardSlot::Post(id) => match self.detail_for(id) {
                Some(slot) => slot.dispatched(ticket, gate),
                None => false,
            },
            _ => false,
        }
    }

    fn judge(
        &mut self,
        ticket: &Ticket<BoardSlot>,
        payload: &BoardObservation,
        gate: &EpochGate,
    ) -> Result<(), RejectReason> {
        // A receipt is not gated by the epoch (a write already made): its own book.
        if let Some(judged) = self.saves.judge(ticket, payload) {
            return judged;
        }
        match (&ticket.slot, payload) {
            (BoardSlot::Posts, BoardObservation::Posts(_)) => self.posts.judge(ticket, gate),
            (BoardSlot::Census, BoardObservation::Census(_)) => self.census.judge(ticket, gate),
            (BoardSlot::Post(id), BoardObservation::Post(_)) => {
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
    fn apply(&mut self, ticket: &Ticket<BoardSlot>, payload: BoardObservation, now: Instant) {
        let payload = match self.saves.apply(payload) {
            // Anything but "not sent" may have changed the Board: a composed post may be
            // there, a vote may have moved the score (§15.12); read it again.
            Ok(ended) => {
                self.reread |= ended.is_some_and(|class| class != SaveClass::NotSent);
                return;
            }
            Err(read) => read,
        };
        match payload {
            BoardObservation::Posts(read) => {
                let query = read.query;
                self.posts
                    .apply_with(ticket, read.result, now, move |page| {
                        Arc::new(PostsObservation { query, page })
                    });
            }
            BoardObservation::Census(result) => {
                self.census.apply_with(ticket, result, now, |v| v);
            }
            BoardObservation::Post(result) => {
                if let BoardSlot::Post(id) = &ticket.slot
                    && let Some(slot) = self.detail_for(id)
                {
                    slot.apply_with(ticket, result, now, |v| v);
                }
            }
            _ => {}
        }
    }

    fn retired(&mut self, ticket: &Ticket<BoardSlot>) -> bool {
        if let Some(owned) = self.saves.retired(ticket) {
            return owned;
        }
        match &ticket.slot {
            BoardSlot::Posts => self.posts.retired(ticket),
            // E-5: only the read that owns the slot can leave it unavailable.
            BoardSlot::Census => {
                let owned = self.census.retired(ticket);
                if owned {
                    self.census.apply_failure(SlotFailure {
                        class: FailureClass::EndedWithoutResult,
                        detail: "the census read ended without a result".into(),
                    });
                }
                owned
            }
            BoardSlot::Post(id) => self.detail_for(id).is_some_and(|s| s.retired(ticket)),
            _ => false,
        }
    }

    fn slot(&mut self, key: &BoardSlot) -> Option<&mut dyn ReadSlot> {
        match key {
            BoardSlot::Posts => Some(&mut self.posts),
            BoardSlot::Census => Some(&mut self.census),
            BoardSlot::Post(id) => self.detail_for(id).map(|s| s as &mut dyn ReadSlot),
            _ => None,
        }
    }

    /// A post was applied or a vote answered: the list, census and open post are read again.
    fn take_demands(&mut self) -> Vec<SourceKey> {
        if std::mem::take(&mut self.reread) {
            vec![BOARD]
        } else {
            Vec::new()
        }
    }

    /// E-5: a new epoch of another workspace clears the census with the posts (the default
    /// rule drops every value of another workspace).
    fn slots(&mut self) -> Vec<(SourceKey, &mut dyn ReadSlot)> {
        let mut all: Vec<(SourceKey, &mut dyn ReadSlot)> = vec![
            (BOARD, &mut self.posts as &mut dyn ReadSlot),
            (BOARD, &mut self.census),
        ];
        if let Some(p) = self.post.as_mut() {
            all.push((BOARD, &mut p.detail));
        }
        all
    }

    /// Authority withdrawn: reads in flight lose their ownership (G-6); the posts keep their
    /// last value, the census is cleared (E-5).
    fn on_withdrawn(&mut self) -> bool {
        let mut changed = false;
        for (_, slot) in self.slots() {
            changed |= slot.withdraw_read();
        }
        if !matches!(self.census.fetched, Fetched::NotRequested) {
            self.census = Slot::default();
            changed = true;
        }
        changed
    }

    /// Some Board read's last result failed (the header's "degraded").
    fn any_failed(&self) -> bool {
        self.posts.failed() || self.census.failed()
    }

    fn not_served(&self) -> Vec<RouteFamily> {
        let mut slots: Vec<&dyn ReadSlot> = vec![&self.posts, &self.census];
        if let Some(open) = &self.post {
            slots.push(&open.detail);
        }
        not_served_of(&slots)
    }
}
