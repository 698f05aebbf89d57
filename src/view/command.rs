//! What key handling asks the view actor to do, and why the TUI ends. A leaf of the view:
//! the global key dispatcher and every screen's keys produce these, the actor consumes them.

use crate::actors::contract::SourceKey;
use crate::view::composer::Draft;
use std::fmt;

/// Why the TUI ended (T.6 wording).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExitCause {
    QuitKey,
    Interrupt,
    Signal(&'static str),
    /// `ViewMsg::Shutdown` without a recorded cause.
    Shutdown,
    /// The terminal stopped delivering input: end of input or a read error (issue 16).
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

/// What the actor must do after a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UiCommand {
    /// Nothing changed.
    None,
    /// UI state changed: paint.
    Repaint,
    /// Explicit refresh of a source (G-3), then paint.
    Refresh(SourceKey),
    /// A model/account form on System › Runtime (I-1…I-4).
    RuntimeForm(RuntimeFormCommand),
    /// The raw `runtime.toml` editor on System › Runtime (J-1…J-5).
    RuntimeRaw(RuntimeRawCommand),
    Quit(ExitCause),
    /// Ctrl-Z.
    Suspend,
    /// A chat screen command (open, close, send, older page).
    Chat(ChatUiCommand),
    /// A Work detail command for the Work detail source (open/close, `H`, `r`), then paint.
    Work(crate::actors::work::WorkCommand),
    /// A Board command for the Board source (query, open/close a post), then paint.
    Board(crate::actors::board::BoardCommand),
    /// A Keeper detail command (watch, unwatch, refresh) for the Keeper detail source.
    KeeperDetail(crate::actors::keeper_detail::KeeperDetailCommand),
    /// A Tools command for the Tools source (open/close an async request), then paint.
    Tools(crate::actors::system::ToolsCommand),
    /// Send a composed Board post: a save (§8.4).
    Post(crate::actors::board::compose::PostIntent),
    /// Bind (or, with `unbind`, unbind) a connector channel: a save (§7.3, §7.4).
    Binding {
        unbind: bool,
        intent: crate::actors::system::binding::BindingIntent,
    },
    /// Decide an approval (the second `y` or `n`, or `R`): a save of the decision.
    Decide(crate::actors::decisions::approval::DecisionIntent),
    /// Answer a held tool call (the second `/approve` or `/deny` in a chat, §14.5).
    DecideHeldCall(crate::actors::decisions::held_call::HeldCallIntent),
    /// Open the operator's editor (`VISUAL`/`EDITOR`/`vi`) on this text; the result goes to
    /// the surface in front now (`Screen::edited`).
    Edit(crate::view::editor::EditRequest),
    /// `/find` or `n`/`N` in the chat (issue 14): run this search on the blocking pool (it
    /// wraps the whole transcript); the result comes back as `ViewMsg::ChatFound`.
    Find(Box<crate::view::chat::search::FindJob>),
    /// `/copy` (issue 14): bytes of an OSC 52 clipboard write built by masc-tui
    /// (`view::clipboard::osc52_sequence`), written to the terminal between frames.
    Clipboard(Vec<u8>),
    /// Answer an Ask (the second `Enter` in the answer reader): a save of the answer.
    Answer(crate::actors::decisions::ask_answer::AnswerIntent),
    /// An Asks command: re-read a follow-up (`f`), read a pinned turn's transcript (`O`).
    Asks(crate::actors::asks::AsksCommand),
    /// `r` in an inspector (`O`, `/context`): re-read one §14.11 reading now (K-15, K-17).
    Inspector(crate::actors::inspector::InspectorSlot),
    /// `H` in the `O` inspector when its pinned turn is not on the records page: read the
    /// Keeper's records again with the next wider `limit` (50 → 200 → 500, MASC's maximum;
    /// K-14, §14.11).
    InspectorWiden {
        keeper: String,
    },
    /// A Keeper operation (Sandbox `d`/`m`/`s`, the `U` picker's choice): a save of its kind.
    KeeperOp(crate::actors::keepers::ops::KeeperOpRequest),
    /// `e`: prepare the settings of this Keeper for `$EDITOR` (H-1: an owned read; the editor
    /// opens when the snapshot arrives, unless something cancelled it first, H-2).
    KeeperSettings {
        keeper: String,
    },
    /// Several commands from one key, run in order (the unbinds a pause or shutdown offered,
    /// surfaces.md Keepers row).
    Many(Vec<UiCommand>),
}

/// What a chat key asks the view actor to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChatUiCommand {
    Open {
        keeper: String,
    },
    Close {
        keeper: String,
    },
    /// `text` is what is posted (`OutgoingMessage::inline_text`); `draft` is what goes back
    /// into the composer when the send cannot leave.
    Send {
        keeper: String,
        text: String,
        draft: Draft,
    },
    LoadOlder {
        keeper: String,
    },
    /// `/interrupt [name]`: stop this chat's turn, or the named Keeper's current turn (its
    /// outcome shows in that Keeper's chat, never near this input: C-43).
    Interrupt {
        keeper: String,
        name: Option<String>,
    },
    /// `/steer <text>`: send the text, then ask that it run next, stopping the running turn.
    Steer {
        keeper: String,
        text: String,
    },
    /// `/run-next`: this chat's oldest input still queued runs next (§14.14, nothing stopped).
    RunNext {
        keeper: String,
    },
}

/// What a raw config key (or the editor's return) asks the view actor to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuntimeRawCommand {
    /// Read `runtime.toml` afresh (§9.2): `e` without a draft opens the editor on that read;
    /// `u` / `U` pick their base from a read after the last receipt (J-4).
    Read,
    /// Save the draft of owner `owner` (a save job; nothing waits here): after an edit, or `S`.
    Submit {
        intent: crate::actors::system::runtime_raw::RawIntent,
        owner: u64,
    },
}

/// What a form key asks the view actor to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuntimeFormCommand {
    /// Open a form: read the source it opens on (§9.2).
    Open,
    /// `Enter`: save the form's intent (a save job; nothing waits here).
    Submit(crate::actors::system::runtime_form::FormIntent),
    /// `Ctrl-X` after a terminal result: recovery closed; re-read the catalogue and the source.
    CloseRecovery,
}
