//! The one owner of the terminal (architecture.md §4.2, T.6): raw mode, alternate screen,
//! bracketed paste and a hidden cursor on enter; restored idempotently on quit, error, panic
//! (by `Drop` once the actor system has ended) and signals. Also the input pump and the signal
//! listener that turn terminal events, the terminal's end and SIGTERM/SIGHUP/SIGINT/SIGQUIT
//! into view messages.

use super::actor::Suspender;
use super::command::ExitCause;
use super::tty_input::InputGate;
use crate::view::msg::ViewMsg;
use crossterm::cursor::{Hide, Show};
use crossterm::event::{DisableBracketedPaste, EnableBracketedPaste};
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

    /// The Ctrl-Z and `$EDITOR` handover of the view actor; `input` is the gate of the
    /// terminal reader ([`spawn_input_pump`]).
    pub fn suspender(&self, input: InputGate) -> Arc<dyn Suspender> {
        Arc::new(TerminalSuspender {
            inner: Arc::clone(&self.inner),
            input,
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
    input: InputGate,
}

/// How long a handover waits for the reader to park (it checks every poll interval).
const PARK_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(2);

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

    fn park_input(&self) -> bool {
        let parked = self.input.pause(PARK_TIMEOUT);
        if !parked {
            tracing::warn!(target: "masc_tui::terminal", "input reader did not park");
            self.input.resume();
        }
        parked
    }

    fn resume_input(&self) {
        self.input.resume();
    }

    fn release(&self) {
        self.inner.restore();
    }

    fn reclaim(&self) {
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

/// Reads terminal input on its own thread ([`super::tty_input`]) and casts each event to the
/// view as `ViewMsg::Input`. When the terminal ends (end of input, `EIO`, hangup without a
/// SIGHUP reaching us) the cause is recorded as [`ExitCause::TerminalLost`] — unless a signal
/// or key already ended the session — and the view gets `ViewMsg::Shutdown`: the same path as
/// `q q` (the view stops, the runtime and its outbox writes finish, the guard restores what is
/// left of the terminal). Stops by itself once the view is gone.
pub fn spawn_input_pump(
    view: ActorRef<ViewMsg>,
    cause: ExitCauseSlot,
    gate: InputGate,
) -> io::Result<()> {
    let events_view = view.clone();
    super::tty_input::spawn_input_reader(
        gate,
        move |event| events_view.cast(ViewMsg::Input(event)).is_ok(),
        move |end| {
            record_first(&cause, ExitCause::TerminalLost(end.to_string()));
            let _ = view.cast(ViewMsg::Shutdown);
        },
    )
}

/// Where the signal listener and the input pump record why the session ended.
pub type ExitCauseSlot = Arc<Mutex<Option<ExitCause>>>;

/// The first recorded cause wins: a SIGHUP followed by the end of input stays a SIGHUP.
fn record_first(slot: &ExitCauseSlot, cause: ExitCause) {
    let mut guard = match slot.lock() {
        Ok(g) => g,
        Err(poisoned) => poisoned.into_inner(),
    };
    if guard.is_none() {
        *guard = Some(cause);
    }
}

/// The name of an ending signal (`ExitCause::Signal`).
fn signal_name(signal: i32) -> &'static str {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGQUIT, SIGTERM};
    match signal {
        SIGTERM => "SIGTERM",
        SIGHUP => "SIGHUP",
        SIGINT => "SIGINT",
        SIGQUIT => "SIGQUIT",
        _ => "signal",
    }
}

/// The number of a signal named by [`ExitCause::Signal`] (for the 128+n exit status).
pub fn signal_number(name: &str) -> Option<i32> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGQUIT, SIGTERM};
    match name {
        "SIGTERM" => Some(SIGTERM),
        "SIGHUP" => Some(SIGHUP),
        "SIGINT" => Some(SIGINT),
        "SIGQUIT" => Some(SIGQUIT),
        _ => None,
    }
}

/// Whether `signal` was ignored (`SIG_IGN`) when this process started, from the `SigIgn` mask
/// of `/proc/self/status` (Linux; elsewhere `false`). Read before any handler is installed.
pub fn ignored_at_start(signal: i32) -> bool {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return false;
    };
    sig_ignored_in_status(&status, signal)
}

fn sig_ignored_in_status(status: &str, signal: i32) -> bool {
    let Some(mask) = status
        .lines()
        .find_map(|line| line.strip_prefix("SigIgn:"))
        .and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())
    else {
        return false;
    };
    (1..=64).contains(&signal) && mask & (1u64 << (signal - 1)) != 0
}

/// SIGTERM, SIGHUP, SIGINT and SIGQUIT → record the cause and cast `ViewMsg::Shutdown` (clean
/// shutdown: the view stops, the actor system ends, the guard restores the terminal; the
/// process then exits 128 + the signal's number), so SIGQUIT never dumps core with the
/// terminal left raw. SIGWINCH → `Event::Resize` with the new size (the input reader
/// only reads bytes). Later ending signals are ignored: the shutdown is already under way.
pub fn spawn_signal_listener(
    view: ActorRef<ViewMsg>,
    cause: ExitCauseSlot,
    input: InputGate,
) -> io::Result<(signal_hook_tokio::Handle, JoinHandle<()>)> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGWINCH};
    let mut wanted = vec![SIGTERM, SIGINT, SIGQUIT, SIGWINCH];
    // `nohup` or a wrapper asked for SIGHUP to be ignored: keep it ignored (installing a
    // handler would undo that); the terminal's end still arrives as end of input.
    if !ignored_at_start(SIGHUP) {
        wanted.push(SIGHUP);
    }
    let mut signals = signal_hook_tokio::Signals::new(wanted)?;
    let handle = signals.handle();
    let task = tokio::spawn(async move {
        let mut ending = false;
        while let Some(signal) = signals.next().await {
            if signal == SIGWINCH {
                match crossterm::terminal::size() {
                    Ok((w, h)) => {
                        let _ = view.cast(ViewMsg::Input(crossterm::event::Event::Resize(w, h)));
                    }
                    Err(err) => {
                        tracing::warn!(target: "masc_tui::terminal", error = %err, "size after SIGWINCH")
                    }
                }
                continue;
            }
            if ending {
                continue;
            }
            if matches!(signal, SIGINT | SIGQUIT) && input.handed_over() {
                // The operator's editor owns the terminal: Ctrl-C / Ctrl-\ typed there are
                // its own (as git does while an editor runs), not a request to end the TUI.
                tracing::info!(target: "masc_tui::terminal", signal = signal_name(signal), "ignored while the editor owns the terminal");
                continue;
            }
            ending = true;
            record_first(&cause, ExitCause::Signal(signal_name(signal)));
            let _ = view.cast(ViewMsg::Shutdown);
        }
    });
    Ok((handle, task))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issue16_sighup_ignored_at_start_is_read_from_the_sigign_mask() {
        let status = "Name:\tmasc-tui\nSigBlk:\t0000000000000000\nSigIgn:\t0000000000000001\n";
        assert!(sig_ignored_in_status(status, signal_hook::consts::SIGHUP));
        assert!(!sig_ignored_in_status(status, signal_hook::consts::SIGTERM));
        assert!(!sig_ignored_in_status("SigIgn:\t0000000000000000\n", 1));
        assert!(!sig_ignored_in_status("garbage", 1));
    }

    #[test]
    fn the_first_recorded_cause_wins() {
        let slot: ExitCauseSlot = Arc::new(Mutex::new(None));
        record_first(&slot, ExitCause::Signal("SIGHUP"));
        record_first(&slot, ExitCause::TerminalLost("end of input".into()));
        assert_eq!(
            slot.lock().unwrap().clone(),
            Some(ExitCause::Signal("SIGHUP"))
        );
        assert_eq!(signal_number("SIGQUIT"), Some(3));
        assert_eq!(signal_name(signal_hook::consts::SIGQUIT), "SIGQUIT");
    }
}
