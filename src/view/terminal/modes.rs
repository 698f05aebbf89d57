//! The terminal's modes (architecture.md §4.2, T.6): raw mode, alternate screen, bracketed
//! paste, mouse capture (unless `--no-mouse`) and a hidden cursor on enter; restored idempotently on quit, error, panic (by `Drop`
//! once the actor system has ended) and signals. One guard owns them; hand-overs (Ctrl-Z, the
//! operator's editor) borrow a [`TerminalModes`] handle.

use crossterm::cursor::{Hide, Show};
use crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use std::io::{self, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// End sync, reset attributes, autowrap on (T.6), before leaving the alternate screen.
const RESET_SEQUENCE: &[u8] = b"\x1b[?2026l\x1b[0m\x1b[?7h";

struct GuardInner {
    entered: AtomicBool,
    /// Mouse capture is on while entered (the wheel and clicks come to masc-tui).
    mouse: bool,
}

impl GuardInner {
    fn enter(&self) -> io::Result<()> {
        enable_raw_mode()?;
        self.entered.store(true, Ordering::SeqCst);
        let mut out = io::stdout().lock();
        execute!(out, EnterAlternateScreen, EnableBracketedPaste, Hide)?;
        if self.mouse {
            execute!(out, EnableMouseCapture)?;
        }
        Ok(())
    }

    /// Every step is attempted even when one fails; a second call does nothing.
    fn restore(&self) {
        if !self.entered.swap(false, Ordering::SeqCst) {
            return;
        }
        let mut out = io::stdout().lock();
        let _ = out.write_all(RESET_SEQUENCE);
        if self.mouse {
            let _ = execute!(out, DisableMouseCapture);
        }
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
    /// Raw mode, alternate screen, bracketed paste, hidden cursor, and mouse capture when
    /// `mouse` (every exit path that restores the terminal turns it off again).
    pub fn enter(mouse: bool) -> io::Result<Self> {
        let inner = Arc::new(GuardInner {
            entered: AtomicBool::new(false),
            mouse,
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

    /// A handle on the same modes for the hand-overs (Ctrl-Z, the operator's editor): it
    /// gives the terminal away and takes it back while the guard still owns its restoration.
    pub fn modes(&self) -> TerminalModes {
        TerminalModes {
            inner: Arc::clone(&self.inner),
        }
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        self.inner.restore();
    }
}

/// The guard's modes, shared with a hand-over: give the terminal away, take it back.
#[derive(Clone)]
pub struct TerminalModes {
    inner: Arc<GuardInner>,
}

impl TerminalModes {
    /// Leaves the alternate screen and raw mode (idempotent).
    pub fn release(&self) {
        self.inner.restore();
    }

    /// Raw mode and the alternate screen again; a failure is traced (the session goes on).
    pub fn reclaim(&self) {
        if let Err(err) = self.inner.enter() {
            tracing::warn!(target: "masc_tui::terminal", error = %err, "could not re-enter raw mode");
        }
    }

    /// Ctrl-Z: restores the terminal, stops the whole process (the default SIGTSTP action;
    /// `fg` continues it), then takes the terminal back.
    pub fn stop_process(&self) {
        self.inner.restore();
        if let Err(err) = signal_hook::low_level::raise(signal_hook::consts::SIGTSTP) {
            tracing::warn!(target: "masc_tui::terminal", error = %err, "could not suspend");
        }
        self.reclaim();
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
