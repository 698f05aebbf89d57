//! The Keeper chat transcript projection (spec/chat-screen.md §2): pure functions from the
//! transcript model to styled rows. No actors, no network.
//!
//! - [`model`]: entries independent of the wire; [`live`]: stream events into entries.
//! - [`modes`]: Ctrl-F / Ctrl-D / Ctrl-R / Ctrl-N / Ctrl-S.
//! - [`marks`], [`rail`], [`gutter`], [`style`]: the symbol system and brightness levels.
//! - [`markdown`], [`wrap`]: bodies into rows; [`project`]: block bodies per mode.
//! - [`plan`], [`window`]: the visible blocks and windowed, cached rendering.
//! - [`pane`]: the open chat in the model (its sends, progress and admission), and
//!   [`surface`]: the chat surface model that owns it and the chat inbox; [`control`]: the
//!   turn control saves (`/interrupt`, `/steer`) and their rows.

pub mod admission;
pub mod approvals;
pub mod batch;
pub mod control;
pub mod gutter;
pub mod held;
pub mod held_calls;
pub mod live;
pub mod markdown;
pub mod marks;
pub mod measure;
pub mod model;
pub mod modes;
mod paint;
pub mod pane;
pub mod partial;
pub mod plan;
pub mod preparation_report;
pub mod project;
pub mod rail;
pub mod repeat;
pub mod run;
pub mod search;
pub mod style;
pub mod surface;
pub mod table;
pub mod turn_bind;
pub mod window;
pub mod wrap;

pub use live::{LiveTurn, settle_unknown_note};
pub use model::{
    CallState, Entry, EntryKind, FailureOrigin, InboundSender, Origin, PendingState, SkillRun,
    SkillState, Speaker, ToolCall, Transcript,
};
pub use modes::{JournalMode, OriginMode, ReasoningMode, ToolVisibility, ViewModes, ViewToggle};
pub use pane::{
    Activity, AutonomousTurns, ChatEffect, ChatPane, HistoryState, PendingSend, Progress,
    SendPhase, Unconfirmed, UnknownStanding,
};
pub use surface::ChatModel;
pub use window::{ChatGate, FrameInfo, ScrollAnchor, ScrollPosition, TranscriptView, chat_gate};
