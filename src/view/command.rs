//! What key handling asks the view actor to do, and why the TUI ends: the global key
//! dispatcher, the layers and every screen's keys produce these, the actor consumes them.

use crate::actors::contract::SourceKey;
use crate::view::outgoing::{Outgoing, SourceCommand};
use crate::view::save_path::{SaveCompanion, SaveRequest};
use crate::view::screens::local::{Local, LocalEvent};
use std::fmt;

/// Why the TUI ended (T.6 wording).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExitCause {
    QuitKey,
    Interrupt,
    Signal(&'static str),
    /// `ViewMsg::Shutdown` without a recorded cause.
    Shutdown,
    /// The terminal stopped delivering input: end of input or a read error: the console ends rather than wait on a dead terminal.
    TerminalLost(String),
    Abnormal(String),
}

impl fmt::Display for ExitCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::QuitKey => f.write_str("normal (quit key)"),
            Self::Interrupt => f.write_str("normal (interrupt)"),
            Self::Signal(name) => write!(f, "normal (signal {name})"),
            Self::Shutdown => f.write_str("normal (shutdown)"),
            Self::TerminalLost(why) => write!(f, "normal (terminal lost: {why})"),
            Self::Abnormal(why) => write!(f, "abnormal ({why})"),
        }
    }
}

/// What the actor must do after a key: only what many screens ask for. Anything else a screen
/// asks is its own typed event ([`UiCommand::Local`]), which that screen consumes again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UiCommand {
    /// Nothing changed.
    None,
    /// UI state changed: paint.
    Repaint,
    /// Explicit refresh of a source (G-3), then paint.
    Refresh(SourceKey),
    /// A save, on the one save path (`view::save_path::submit`).
    Save(SaveRequest),
    /// A source's own command, through its typed handle (its surface model sees it first).
    Send(Outgoing),
    /// A screen's own event, run with the model and the actor's handles
    /// (`screens::local::LocalEvent`).
    Local(Local),
    /// Open the operator's editor (`VISUAL`/`EDITOR`/`vi`) on this text; the result goes to
    /// the surface or layer in front now (`Screen::edited`, `Layer::edited`).
    Edit(crate::view::editor::EditRequest),
    /// `/find` or `n`/`N` in the chat: run this search on the blocking pool (it wraps the whole
    /// transcript); the result comes back as `ViewMsg::ChatFound`.
    Find(Box<crate::view::transcript::search::FindJob>),
    /// `/copy`: bytes of an OSC 52 clipboard write built by masc-tui
    /// (`view::terminal::clipboard::osc52_sequence`), written to the terminal between frames.
    Clipboard(Vec<u8>),
    Quit(ExitCause),
    /// Ctrl-Z.
    Suspend,
    /// Several commands from one key, run in order (the unbinds a pause or shutdown offered,
    /// surfaces.md Keepers row).
    Many(Vec<UiCommand>),
}

impl UiCommand {
    /// A save of kind `K`.
    pub fn save<K: SaveCompanion>(intent: K::Intent) -> Self {
        Self::Save(SaveRequest::new::<K>(intent))
    }

    /// A source's own command.
    pub fn send<C: SourceCommand>(cmd: C) -> Self {
        Self::Send(Outgoing::new(cmd))
    }

    /// A screen's own event.
    pub fn local<E: LocalEvent>(event: E) -> Self {
        Self::Local(Local::new(event))
    }

    /// The local event, when this is one of type `E`.
    pub fn as_local<E: LocalEvent>(&self) -> Option<&E> {
        match self {
            Self::Local(local) => local.event::<E>(),
            _ => None,
        }
    }

    /// The save's intent, when this is a save of kind `K`.
    pub fn as_save<K: SaveCompanion>(&self) -> Option<&K::Intent> {
        match self {
            Self::Save(request) => request.intent::<K>(),
            _ => None,
        }
    }

    /// The source command, when this sends a `C`.
    pub fn as_send<C: SourceCommand>(&self) -> Option<&C> {
        match self {
            Self::Send(out) => out.command::<C>(),
            _ => None,
        }
    }
}
