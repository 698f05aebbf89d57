//! [`InputGate`]: parks the terminal reader while another program owns the terminal.
//!
//! The view asks for a pause before it hands the terminal over (the operator's `$EDITOR`) and
//! waits until the reader has parked: every byte read before that has been parsed and handed
//! on as an event (so keys typed before the editor opened are handled first, sources.md H-3),
//! and nothing typed into the editor is read here. A resume wakes the reader.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Open,
    PauseRequested,
    Parked,
    /// The reader thread ended (or never started): nothing to wait for.
    Gone,
}

#[derive(Debug)]
struct Inner {
    state: Mutex<State>,
    changed: Condvar,
}

/// Shared by the reader thread and whoever hands the terminal over.
#[derive(Debug, Clone)]
pub struct InputGate(Arc<Inner>);

impl Default for InputGate {
    fn default() -> Self {
        Self(Arc::new(Inner {
            state: Mutex::new(State::Open),
            changed: Condvar::new(),
        }))
    }
}

impl InputGate {
    fn state(&self) -> MutexGuard<'_, State> {
        // The state is one enum: a poisoned lock still holds a whole value.
        self.0.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Asks the reader to park and waits (at most `timeout`) until it has. `true` when the
    /// reader is parked or gone: from then on it reads nothing until [`InputGate::resume`].
    /// Blocking: call it off the runtime's threads.
    pub fn pause(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut state = self.state();
        if *state == State::Open {
            *state = State::PauseRequested;
        }
        while *state == State::PauseRequested {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            state = self
                .0
                .changed
                .wait_timeout(state, left)
                .map(|(s, _)| s)
                .unwrap_or_else(|e| e.into_inner().0);
        }
        matches!(*state, State::Parked | State::Gone)
    }

    /// Lets the reader read again.
    pub fn resume(&self) {
        let mut state = self.state();
        if matches!(*state, State::PauseRequested | State::Parked) {
            *state = State::Open;
            self.0.changed.notify_all();
        }
    }

    /// The reader is parked or parking: another program owns (or is about to own) the
    /// terminal.
    pub fn handed_over(&self) -> bool {
        matches!(*self.state(), State::PauseRequested | State::Parked)
    }

    /// Reader side: parks while a pause is requested; `true` when it parked (the caller then
    /// drops what it held of a sequence cut by the handover).
    pub(super) fn park_if_paused(&self) -> bool {
        let mut state = self.state();
        if *state != State::PauseRequested {
            return false;
        }
        *state = State::Parked;
        self.0.changed.notify_all();
        while *state == State::Parked {
            state = self
                .0
                .changed
                .wait(state)
                .unwrap_or_else(|e| e.into_inner());
        }
        true
    }

    /// Reader side: a pause was asked for since the last check.
    pub(super) fn pause_requested(&self) -> bool {
        *self.state() == State::PauseRequested
    }

    /// Reader side: the reader ended; a pause never waits for it.
    pub(super) fn reader_gone(&self) {
        *self.state() = State::Gone;
        self.0.changed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::super::{InputSource, read_events};
    use super::*;
    use crossterm::event::{Event, KeyCode};
    use std::io::Write;
    use std::sync::mpsc;

    fn chars(events: &mpsc::Receiver<Event>, n: usize) -> String {
        (0..n)
            .map(|_| match events.recv_timeout(Duration::from_secs(10)) {
                Ok(Event::Key(k)) => match k.code {
                    KeyCode::Char(c) => c,
                    other => panic!("{other:?}"),
                },
                other => panic!("{other:?}"),
            })
            .collect()
    }

    /// H-3: what was read before the pause is handed on; bytes written while the reader is
    /// parked are not read until the resume (they belong to the program that owns the
    /// terminal meanwhile — here they are read after the resume because nobody else did).
    #[test]
    fn h3_a_parked_reader_reads_nothing_until_resumed() {
        let (reader, mut writer) = std::io::pipe().unwrap();
        let reader: std::fs::File = std::os::fd::OwnedFd::from(reader).into();
        let gate = InputGate::default();
        let (tx, events) = mpsc::channel();
        let thread_gate = gate.clone();
        let thread = std::thread::spawn(move || {
            let mut source = reader;
            let source: &mut dyn InputSource = &mut source;
            let end = read_events(source, &thread_gate, &mut |e| tx.send(e).is_ok());
            // As `spawn_input_reader` does.
            thread_gate.reader_gone();
            end
        });
        writer.write_all(b"ab").unwrap();
        assert_eq!(chars(&events, 2), "ab");
        assert!(gate.pause(Duration::from_secs(10)), "the reader parks");
        writer.write_all(b"cd").unwrap();
        std::thread::sleep(POLL_TWICE);
        assert!(events.try_recv().is_err(), "nothing read while parked");
        gate.resume();
        assert_eq!(chars(&events, 2), "cd");
        drop(writer);
        let end = thread.join().unwrap();
        assert_eq!(end, Some(super::super::InputEnd::EndOfInput));
        assert!(
            gate.pause(Duration::from_millis(1)),
            "a gone reader never blocks a pause"
        );
    }

    /// Two poll intervals: long enough for a reader that was not parked to have read.
    const POLL_TWICE: Duration = Duration::from_millis(60);
}
