//! Long edits go to the operator's editor (`VISUAL`, then `EDITOR`, then `vi`).
//!
//! A screen asks for an edit with a [`EditRequest`] through `UiCommand::Edit` — from a key, or
//! from its reaction to an observation (`screens::react`, e.g. a settings snapshot that
//! arrived). The view actor then, without ever awaiting on its own
//! mailbox:
//!
//! 1. parks the terminal reader off the actor (every key already typed is handed on first, so
//!    keys that arrived earlier are handled before the editor opens: sources.md H-3);
//! 2. when the reader is parked, checks that the edit still belongs to the screen that asked
//!    (a move to another surface or `Esc` meanwhile cancels it: H-2), restores the terminal's
//!    modes and starts the editor ([`run_editor`], the terminal room's side) on a task;
//! 3. when the editor exits, takes the terminal back (raw mode, alternate screen), wakes the
//!    reader, re-probes the size and repaints everything, and hands the [`EditResult`] to the
//!    owning screen's `edited` continuation.
//!
//! The text goes through a private temp file (mode 0600, removed afterwards). What comes back
//! is typed: edited, unchanged, aborted by the editor (non-zero exit; whatever it wrote is
//! kept), not UTF-8 text, failed to start, no terminal to hand over, cancelled before it
//! opened. Nothing is submitted here: the continuation decides.

pub use crate::view::terminal::editor::{CancelReason, EditOutcome, EditorCommand};

/// Runs the operator's editor on `request` (the terminal room's hand-off,
/// [`crate::view::terminal::editor::run_editor`]); the caller has handed the terminal over.
pub async fn run_editor(request: &EditRequest, editor: &EditorCommand) -> EditOutcome {
    crate::view::terminal::editor::run_editor(
        &request.text,
        request.suffix,
        request.purpose.label(),
        editor,
    )
    .await
}

/// What an edit is for: payload-free (the screen that asked keeps its own context — which
/// Keeper, which snapshot — and matches the result by purpose).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EditPurpose {
    /// A Keeper's settings (H-1…H-7).
    KeeperSettings,
    /// A new Keeper's definition (H-14).
    KeeperCreate,
    /// `runtime.toml` (J-1…J-5).
    RuntimeConfig,
    /// A Board post's body.
    BoardPost,
    /// A chat message too long for the composer.
    ChatMessage,
    /// An Ask answer's free text.
    AskAnswer,
}

impl EditPurpose {
    /// Words for notices and the trace.
    pub fn label(self) -> &'static str {
        match self {
            Self::KeeperSettings => "keeper settings",
            Self::KeeperCreate => "new keeper",
            Self::RuntimeConfig => "runtime.toml",
            Self::BoardPost => "board post",
            Self::ChatMessage => "chat message",
            Self::AskAnswer => "ask answer",
        }
    }
}

/// One edit a screen asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditRequest {
    pub purpose: EditPurpose,
    /// The text the editor opens with.
    pub text: String,
    /// The temp file's suffix, so the editor picks its syntax (`.toml`, `.md`, `.json`).
    pub suffix: &'static str,
}

impl EditRequest {
    pub fn new(purpose: EditPurpose, text: impl Into<String>, suffix: &'static str) -> Self {
        Self {
            purpose,
            text: text.into(),
            suffix,
        }
    }
}

/// An edit's result, handed to the screen that asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditResult {
    pub purpose: EditPurpose,
    /// The text the editor opened with (the base a continuation compares against).
    pub original: String,
    pub outcome: EditOutcome,
}

impl EditResult {
    /// The footer notice a screen shows when it has nothing better to say.
    pub fn notice(&self) -> String {
        format!("{}: {}", self.purpose.label(), self.outcome)
    }
}

/// The handoff's steps, as messages to the view actor (`ViewMsg::Edit`).
#[derive(Debug)]
pub enum EditMsg {
    /// The terminal reader parked (`parked`) or could not.
    Parked { id: u64, parked: bool },
    /// The editor exited.
    Exited { id: u64, outcome: EditOutcome },
}
