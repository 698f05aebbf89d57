//! The Board source (protocol.md §8; sources.md E-1…E-15, P-1…P-2): posts and the hearth
//! census as two dataset slots of one source, and the open post's detail as its own read.
//!
//! - [`reads`]: the typed query, the readers and slots (one per dataset).
//! - [`source`]: the actor owning them.
//! - [`compose`], [`vote`]: the Board's save kinds (a post, a vote), each its own slot.

pub mod compose;
pub mod reads;
pub mod source;
pub mod vote;

use crate::actors::contract::{Payload, ReadResult, SlotKey, SourceKey, read_outcome};
use crate::actors::saves::{SAVES, SaveEvent, SaveId, SaveKind};
use crate::protocol::board::{BoardPostDetail, HearthCensus};
use compose::BoardPost;
use vote::BoardVote;

pub use reads::{BoardPostsRead, BoardQuery, BoardSort, POSTS_PAGE_LIMIT};
pub use source::{BoardSpawner, BoardState};

/// The Board source (supervision key).
pub const BOARD: SourceKey = SourceKey("board");

/// The slots of the Board surface.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum BoardSlot {
    /// `GET /api/v1/board` with the query fixed at dispatch (E-1, E-11).
    Posts,
    /// `GET /api/v1/board/hearths`: the hearth census, a separate dataset slot (E-1, E-3).
    Census,
    /// `GET /api/v1/board/{post_id}?format=flat` of this post (E-8).
    Post(String),
    /// One composed post's save (§8.4): its own slot per save.
    Compose(SaveId),
    /// One vote's save (§15.6): its own slot per save.
    Vote(SaveId),
}

impl SlotKey for BoardSlot {
    fn trace_name(&self) -> String {
        match self {
            Self::Posts => "board_posts",
            Self::Census => "hearth_census",
            // The post id stays out of the trace name (G-10): the ticket identifies it.
            Self::Post(_) => "board_post",
            Self::Compose(_) => return format!("save:{}", BoardPost::KIND),
            Self::Vote(_) => return format!("save:{}", BoardVote::KIND),
        }
        .to_string()
    }

    fn source(&self) -> SourceKey {
        match self {
            Self::Compose(_) | Self::Vote(_) => SAVES,
            _ => BOARD,
        }
    }
}

/// What the Board source observes.
#[derive(Debug, Clone)]
pub enum BoardObservation {
    /// A posts page with the query it was dispatched with (E-11).
    Posts(Box<BoardPostsRead>),
    Census(ReadResult<HearthCensus>),
    Post(ReadResult<BoardPostDetail>),
    /// A step or the receipt of a composed post's save.
    Compose(Box<SaveEvent<BoardPost>>),
    /// A step or the receipt of a vote's save.
    Vote(Box<SaveEvent<BoardVote>>),
}

impl Payload for BoardObservation {
    fn outcome(&self) -> String {
        match self {
            Self::Posts(p) => read_outcome(&p.result),
            Self::Census(r) => read_outcome(r),
            Self::Post(r) => read_outcome(r),
            Self::Compose(e) => e.step.trace_outcome(),
            Self::Vote(e) => e.step.trace_outcome(),
        }
    }
}

/// What the view asks of the Board source (through its typed handle).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BoardCommand {
    /// The list's controls changed (`s`, `f`/`F`): the posts read is re-planned with this
    /// query and supersedes a read in flight (E-11, E-14). The census is not re-read: it does
    /// not depend on the sort or the hearth.
    SetQuery(BoardQuery),
    /// Open (or re-open) a post: its detail is a new owned read with a new ticket (E-8).
    OpenPost { post_id: String },
    /// `r` in the post: re-read its detail (supersedes a read in flight).
    RefreshPost,
    /// Leave the post: its read is retired.
    ClosePost,
}
