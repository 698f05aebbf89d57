//! The transcript engine (spec/chat-screen.md §2): pure functions from the transcript model to
//! styled rows. No actors, no network.
//!
//! - [`model`]: entries independent of the wire; [`live`]: stream events into entries;
//!   [`turn_bind`]: the operator's row of a turn after a reload.
//! - [`modes`]: Ctrl-F / Ctrl-D / Ctrl-R / Ctrl-N / Ctrl-S.
//! - [`marks`], [`rail`], [`gutter`], [`style`]: the symbol system and brightness levels.
//! - [`markdown`], [`wrap`]: bodies into rows; [`project`]: block bodies per mode.
//! - [`plan`], [`window`]: the visible blocks and windowed, cached rendering; [`measure`] and
//!   [`search`]: the heavy parts (huge bodies, `/find`) run off the view actor.

pub mod gutter;
pub mod live;
pub mod markdown;
pub mod marks;
pub mod measure;
pub mod model;
pub mod modes;
mod paint;
pub mod partial;
pub mod plan;
pub mod project;
pub mod rail;
pub mod repeat;
pub mod run;
pub mod search;
pub mod style;
pub mod table;
pub mod turn_bind;
pub mod window;
pub mod wrap;

pub use live::{LiveTurn, STOPPED_BEFORE_REPLY, settle_unknown_note};
pub use model::{
    CallState, Entry, EntryKind, FailureOrigin, InboundSender, Origin, PendingState, SkillRun,
    SkillState, Speaker, StoppedTurn, ToolCall, Transcript,
};
pub use modes::{JournalMode, OriginMode, ReasoningMode, ToolVisibility, ViewModes, ViewToggle};
pub use window::{ChatGate, FrameInfo, ScrollAnchor, ScrollPosition, TranscriptView, chat_gate};
