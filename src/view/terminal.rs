//! The one owner of the terminal (architecture.md §4.2, T.6): raw mode, alternate screen,
//! bracketed paste and a hidden cursor on enter; restored idempotently on quit, error, panic
//! (by `Drop` once the actor system has ended) and signals. Also the input pump and the signal
//! listener that turn terminal events and SIGTERM/SIGHUP/SIGINT into view messages.

use super::actor::Suspender;
use super::keys::ExitCause;
use crate::actors::messages::ViewMsg;
use crossterm::cursor::{Hide, Show};
use crossterm::event::{DisableBracketedPaste, EnableBracketedPaste, EventStream};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use futures::StreamExt;
use ractor::ActorRef;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use tokio::task::JoinHandle;

/// End sync, reset attributes, autowrap on (T.6), before leaving the alternate screen.
const RESET_SEQUENCE: &[u8] = b"\x1b[?2026l\x1b[0m\x1b[?7h";

struct GuardInner {
    entered: AtomicBool,
}

impl GuardInner {
    fn enter(&self) -> io::Result<()> {
        enable_raw_mode()?;
        self.entered.store(true, Ordering::SeqCst);
        let mut out = io::stdout().lock();
        execute!(out, EnterAlternateScreen, EnableBracketedPaste, Hide)
    }

    /// Every step is attempted even when one fails; a second call does nothing.
    fn restore(&self) {
        if !self.entered.swap(false, Ordering::SeqCst) {
            return;
        }
        let mut out = io::stdout().lock();
        let _ = out.write_all(RESET_SEQUENCE);
        let _ = execute!(out, DisableBracketedPaste, LeaveAlternateScreen, Show);
        let _ = out.flush();
        let _ = disable_raw_mode();
    }
}

/// Owns the terminal modes; restores them on `restore` or drop, whichever comes first.
pub struct TerminalGuard {
    inner: Arc<GuardInner>,
}

impl TerminalGuard {
    /// Raw mode, alternate screen, bracketed paste, hidden cursor.
    pub fn enter() -> io::Result<Self> {
        let inner = Arc::new(GuardInner {
            entered: AtomicBool::new(false),
        });
        if let Err(err) = inner.enter() {
            inner.restore();
            return Err(err);
        }
        Ok(Self { inner })
    }

    /// Idempotent restoration.
    pub fn restore(&self) {
        self.inner.restore();
    }

    /// The Ctrl-Z handler for the view actor.
    pub fn suspender(&self) -> Arc<dyn Suspender> {
        Arc::new(TerminalSuspender {
            inner: Arc::clone(&self.inner),
        })
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        self.inner.restore();
    }
}

struct TerminalSuspender {
    inner: Arc<GuardInner>,
}

impl Suspender for TerminalSuspender {
    fn suspend(&self) {
        self.inner.restore();
        // The default SIGTSTP action stops the whole process here; `fg` continues it.
        if let Err(err) = signal_hook::low_level::raise(signal_hook::consts::SIGTSTP) {
            tracing::warn!(target: "masc_tui::terminal", error = %err, "could not suspend");
        }
        if let Err(err) = self.inner.enter() {
            tracing::warn!(target: "masc_tui::terminal", error = %err, "could not re-enter raw mode");
        }
    }
}

/// A panic hook that only logs (architecture.md §4.2): an actor panic must not tear down the
/// live screen, and nothing may be printed over it. Restoration is the guard's job.
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let location = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let payload = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        tracing::error!(target: "masc_tui::panic", %location, %payload, "panic");
    }));
}

/// Reads terminal events and casts them to the view as `ViewMsg::Input`; ends when the view
/// is gone or the terminal stops delivering events.
pub fn spawn_input_pump(view: ActorRef<ViewMsg>) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut events = EventStream::new();
        while let Some(event) = events.next().await {
            match event {
                Ok(event) => {
                    if view.cast(ViewMsg::Input(event)).is_err() {
                        break;
                    }
                }
                Err(err) => {
                    tracing::warn!(target: "masc_tui::terminal", error = %err, "input read failed");
                    break;
                }
            }
        }
    })
}

/// Where the signal listener records which signal ended the session.
pub type ExitCauseSlot = Arc<Mutex<Option<ExitCause>>>;

/// SIGTERM, SIGHUP and SIGINT → record the cause and cast `ViewMsg::Shutdown` (clean shutdown:
/// the view stops, the actor system ends, the guard restores the terminal).
pub fn spawn_signal_listener(
    view: ActorRef<ViewMsg>,
    cause: ExitCauseSlot,
) -> io::Result<(signal_hook_tokio::Handle, JoinHandle<()>)> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = signal_hook_tokio::Signals::new([SIGTERM, SIGHUP, SIGINT])?;
    let handle = signals.handle();
    let task = tokio::spawn(async move {
        if let Some(signal) = signals.next().await {
            let name = match signal {
                SIGTERM => "SIGTERM",
                SIGHUP => "SIGHUP",
                _ => "SIGINT",
            };
            if let Ok(mut slot) = cause.lock() {
                *slot = Some(ExitCause::Signal(name));
            }
            let _ = view.cast(ViewMsg::Shutdown);
        }
    });
    Ok((handle, task))
}
