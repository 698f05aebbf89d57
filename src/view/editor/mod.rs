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
//!    modes and starts the editor ([`run_editor`]) on a task;
//! 3. when the editor exits, takes the terminal back (raw mode, alternate screen), wakes the
//!    reader, re-probes the size and repaints everything, and hands the [`EditResult`] to the
//!    owning screen's `edited` continuation.
//!
//! The text goes through a private temp file (mode 0600, removed afterwards). What comes back
//! is typed: edited, unchanged, aborted by the editor (non-zero exit; whatever it wrote is
//! kept), not UTF-8 text, failed to start, no terminal to hand over, cancelled before it
//! opened. Nothing is submitted here: the continuation decides.

mod run;

pub use run::{EditorCommand, run_editor};

use std::fmt;

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

/// Why an edit never opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CancelReason {
    /// `Esc` before the editor opened (H-2).
    Escaped,
    /// The operator moved to another surface before the editor opened (H-2).
    Moved,
    /// Another edit is open or opening: one terminal, one editor.
    Busy,
}

/// What came back from the editor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EditOutcome {
    /// Saved with a change.
    Edited(String),
    /// Saved (or quit) with the text exactly as it was opened.
    Unchanged,
    /// The editor exited non-zero (`:cq`): nothing is applied. `text` is what the file held
    /// then, when it differs from what was opened (kept as a draft, never submitted).
    Aborted {
        status: Option<i32>,
        text: Option<String>,
    },
    /// The file is not UTF-8 text.
    NotText,
    /// The editor could not be started or the temp file not written or read.
    Failed(String),
    /// No terminal to hand over (the reader could not be parked, or no terminal at all).
    NoTerminal,
    Cancelled(CancelReason),
}

impl EditOutcome {
    /// The text to apply, only for a saved change.
    pub fn edited_text(&self) -> Option<&str> {
        match self {
            Self::Edited(text) => Some(text),
            _ => None,
        }
    }
}

impl fmt::Display for EditOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Edited(_) => f.write_str("edited"),
            Self::Unchanged => f.write_str("unchanged: nothing to save"),
            Self::Aborted { status, .. } => match status {
                Some(code) => write!(f, "editor exited with status {code}: nothing applied"),
                None => f.write_str("editor ended by a signal: nothing applied"),
            },
            Self::NotText => f.write_str("not saved: the file is not UTF-8 text"),
            Self::Failed(why) => write!(f, "editor failed: {why}"),
            Self::NoTerminal => f.write_str("no terminal to hand to the editor"),
            Self::Cancelled(CancelReason::Escaped) => f.write_str("edit cancelled (Esc)"),
            Self::Cancelled(CancelReason::Moved) => {
                f.write_str("edit cancelled: left the surface before the editor opened")
            }
            Self::Cancelled(CancelReason::Busy) => f.write_str("another edit is open"),
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
