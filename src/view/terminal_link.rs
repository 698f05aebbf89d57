//! What joins the terminal room to the view actor: the Ctrl-Z and `$EDITOR` hand-over the
//! actor drives (its `Suspender`), the input pump and the signal listener that turn terminal
//! events, the terminal's end and SIGTERM/SIGHUP/SIGINT/SIGQUIT into view messages, and where
//! they record why the session ended.

use super::actor::Suspender;
use super::command::ExitCause;
use super::terminal::modes::{TerminalGuard, TerminalModes};
use super::terminal::signals::{ignored_at_start, signal_name};
use super::terminal::tty_input::InputGate;
use crate::view::msg::ViewMsg;
use futures::StreamExt;
use ractor::ActorRef;
use std::io;
use std::sync::{Arc, Mutex};
use tokio::task::JoinHandle;

/// The Ctrl-Z and `$EDITOR` handover of the view actor over `guard`'s modes; `input` is the
/// gate of the terminal reader ([`spawn_input_pump`]).
pub fn suspender(guard: &TerminalGuard, input: InputGate) -> Arc<dyn Suspender> {
    Arc::new(TerminalSuspender {
        modes: guard.modes(),
        input,
    })
}

struct TerminalSuspender {
    modes: TerminalModes,
    input: InputGate,
}

/// How long a handover waits for the reader to park (it checks every poll interval).
const PARK_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(2);

impl Suspender for TerminalSuspender {
    fn suspend(&self) {
        self.modes.stop_process();
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
        self.modes.release();
    }

    fn reclaim(&self) {
        self.modes.reclaim();
    }
}

/// Reads terminal input on its own thread ([`super::terminal::tty_input`]) and casts each
/// event to the view as `ViewMsg::Input`. When the terminal ends (end of input, `EIO`, hangup without a
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
    super::terminal::tty_input::spawn_input_reader(
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
    fn the_first_recorded_cause_wins() {
        let slot: ExitCauseSlot = Arc::new(Mutex::new(None));
        record_first(&slot, ExitCause::Signal("SIGHUP"));
        record_first(&slot, ExitCause::TerminalLost("end of input".into()));
        assert_eq!(
            slot.lock().unwrap().clone(),
            Some(ExitCause::Signal("SIGHUP"))
        );
    }
}
