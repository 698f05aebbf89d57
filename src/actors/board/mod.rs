//! The Board source (protocol.md §8; sources.md E-1…E-15, P-1…P-2): posts and the hearth
//! census as two dataset slots of one source, and the open post's detail as its own read.
//!
//! - [`reads`]: the typed query, the readers and slots (one per dataset).
//! - [`source`]: the actor owning them.

pub mod reads;
pub mod source;

pub use reads::{BoardPostsRead, BoardQuery, BoardSort, POSTS_PAGE_LIMIT};
pub use source::{BoardSource, BoardSpawner};

/// What the view asks of the Board source (`SourceCommand::Board`).
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
