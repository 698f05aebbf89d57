//! The chat composer (spec/chat-screen.md §2.7, §2.11, §2.12, T.7): a pure,
//! terminal-free editor the chat screen drives with keys and pastes and paints into a buffer.
//!
//! What the chat screen calls:
//! - [`render::plan`] once per frame (splits the chat pane; its [`ComposerLayout::key_context`]
//!   is what the next keys act on), then [`render::render`] (returns the cursor cell).
//! - [`Composer::handle_key`] → [`ComposerAction`] (Send / Slash / SlashRejected / Recall /
//!   Edited / Unchanged / Unhandled); [`Composer::paste`] for bracketed pastes (C-68).
//! - [`Composer::take_draft`] / [`Composer::restore_draft`] with a [`DraftStore`] keyed by
//!   [`DraftKey`] (workspace, Keeper) on navigation and failed sends.
//! - [`pending::advance`] for the pending-input labels (C-32…C-35).
//!
//! Key decisions (C-65 over generic editor habits): `Ctrl-U` clears the draft, `Ctrl-E` is the
//! transcript's "newest" (returned as `Unhandled`; `End` ends the line), `Ctrl-A`/`Home` start
//! the line, `Ctrl-K` kills to the line end, `Ctrl-W`/`ESC DEL` delete the word before.

pub mod buffer;
pub mod draft;
pub mod layout;
pub mod paste;
pub mod pending;
pub mod recall;
pub mod render;
pub mod slash;
pub mod state;

pub use buffer::ComposerBuffer;
pub use draft::{Draft, DraftKey, DraftPersistError, DraftPersistence, DraftStore};
pub use layout::{CursorCell, VisualLayout};
pub use paste::{PasteSpill, PasteStamp};
pub use pending::{PendingEvent, PendingInput, PendingState, PendingStep};
pub use recall::{RecallCursor, RecallList, RecallStep};
pub use render::{ComposerLayout, ComposerView};
pub use slash::{SlashCommand, SlashError};
pub use state::{
    Composer, ComposerAction, FooterNotice, KeyContext, NoticeKind, OutgoingMessage, PasteReport,
    RecallDirection,
};
