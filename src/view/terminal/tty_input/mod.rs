//! The terminal input reader, which sees a terminal that went away.
//!
//! crossterm's own reader (`EventStream`, `event::read`) cannot see a terminal that went away:
//! on end of input its loop reads 0 bytes and reads again, and on `EIO` it ignores the error
//! and reads again, forever, at 100 % of a core (crossterm 0.28 and 0.29,
//! `event/source/unix/mio.rs`). This reader owns the terminal's input instead: one blocking
//! thread reads the terminal (stdin when it is a terminal, else `/dev/tty`, like crossterm),
//! feeds the bytes to crossterm's grammar ([`parse`], vendored) and hands each event to the
//! caller. End of input (a read of 0 bytes) and any read error other than `EINTR` end the
//! reader once, with an [`InputEnd`] saying which; the caller turns that into the same
//! shutdown as `q q`. Nothing here loops without blocking in `poll(2)` or `read(2)`.
//!
//! The reader can be parked ([`InputGate`]) while another program owns the terminal (the
//! operator's `$EDITOR`): it waits for readable input with a bounded `poll(2)` and checks the
//! gate before every read, so nothing typed into the editor is ever read here.

mod gate;
mod parse;

pub use gate::InputGate;

use crossterm::event::Event;
use std::collections::VecDeque;
use std::fmt;
use std::io::{self, IsTerminal, Read};
use std::time::Duration;

/// How long one wait for input lasts before the gate is checked again: a paused reader parks
/// within this bound.
const POLL_INTERVAL: Duration = Duration::from_millis(25);

/// One read; crossterm's size (a read that fills it means more bytes are waiting).
const READ_BUFFER: usize = 1024;

/// How long a reader waits before reading again when the terminal was left non-blocking by
/// another program (`EAGAIN`): a bounded wait, never a busy loop.
const WOULD_BLOCK_BACKOFF: Duration = Duration::from_millis(20);

/// Why the terminal stopped delivering input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputEnd {
    /// A read returned 0 bytes: the terminal hung up or input was closed.
    EndOfInput,
    /// A read failed (`EIO` on a terminal whose other side is gone, `EBADF`, …).
    ReadError(String),
}

impl fmt::Display for InputEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::EndOfInput => f.write_str("end of input"),
            Self::ReadError(why) => write!(f, "read error: {why}"),
        }
    }
}

/// crossterm's byte-at-a-time parser driver (`event/source/unix/mio.rs`, `Parser`).
#[derive(Debug, Default)]
pub struct InputParser {
    buffer: Vec<u8>,
    events: VecDeque<Event>,
}

impl InputParser {
    /// Feeds bytes; `more` says more bytes are already waiting (a lone ESC then waits for
    /// them instead of being read as the Esc key).
    pub fn advance(&mut self, bytes: &[u8], more: bool) {
        for (idx, byte) in bytes.iter().enumerate() {
            let more = idx + 1 < bytes.len() || more;
            self.buffer.push(*byte);
            match parse::parse_event(&self.buffer, more) {
                Ok(Some(parse::InternalEvent::Event(event))) => {
                    self.events.push_back(event);
                    self.buffer.clear();
                }
                // Replies to queries this program never sends: dropped.
                Ok(Some(_)) => self.buffer.clear(),
                // Not enough bytes for the current sequence yet.
                Ok(None) => {}
                // Not a sequence crossterm knows: dropped, parsing goes on.
                Err(_) => self.buffer.clear(),
            }
        }
    }

    /// The next parsed event.
    pub fn next_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// Bytes held for an unfinished sequence.
    pub fn pending(&self) -> usize {
        self.buffer.len()
    }
}

/// Every event of `bytes` read in one go (fuzz corpus, benches, tests).
pub fn parse_all(bytes: &[u8]) -> Vec<Event> {
    let mut parser = InputParser::default();
    parser.advance(bytes, false);
    std::iter::from_fn(|| parser.next_event()).collect()
}

/// The terminal to read: stdin when it is a terminal, else `/dev/tty` (crossterm's choice).
fn open_terminal() -> io::Result<std::fs::File> {
    let stdin = io::stdin();
    if stdin.is_terminal() {
        use std::os::fd::AsFd;
        return Ok(std::fs::File::from(stdin.as_fd().try_clone_to_owned()?));
    }
    std::fs::File::open("/dev/tty")
}

/// Where the reader reads: bytes, and a bounded wait for them.
pub trait InputSource: Read {
    /// Waits at most `timeout` for input; `true` when a read would not block (input, end of
    /// input or an error waiting to be read).
    fn wait_readable(&mut self, timeout: Duration) -> io::Result<bool>;
}

impl InputSource for std::fs::File {
    fn wait_readable(&mut self, timeout: Duration) -> io::Result<bool> {
        use rustix::event::{PollFd, PollFlags, Timespec, poll};
        let mut fds = [PollFd::new(self, PollFlags::IN)];
        let timeout = Timespec {
            tv_sec: 0,
            tv_nsec: i64::from(timeout.subsec_nanos()),
        };
        match poll(&mut fds, Some(&timeout)) {
            Ok(n) => Ok(n > 0),
            Err(rustix::io::Errno::INTR) => Ok(false),
            Err(e) => Err(io::Error::from(e)),
        }
    }
}

/// Reads `source` until it ends: each parsed event goes to `on_event` (which returns `false`
/// when nobody listens any more: the reader then stops quietly), and the end of input or the
/// read error goes to the returned value. Before every read the `gate` is checked: a paused
/// gate parks the reader (nothing is read) until it is resumed. Blocks;
/// [`spawn_input_reader`] runs it on a thread.
pub fn read_events(
    source: &mut dyn InputSource,
    gate: &InputGate,
    on_event: &mut dyn FnMut(Event) -> bool,
) -> Option<InputEnd> {
    let mut parser = InputParser::default();
    let mut buf = [0u8; READ_BUFFER];
    loop {
        if gate.park_if_paused() && parser.pending() > 0 {
            // A sequence cut by another program's use of the terminal is not a key.
            tracing::debug!(target: "masc_tui::terminal", bytes = parser.pending(), "partial sequence dropped at handover");
            parser = InputParser::default();
        }
        match source.wait_readable(POLL_INTERVAL) {
            Ok(true) => {}
            Ok(false) => continue,
            Err(err) => return Some(InputEnd::ReadError(err.to_string())),
        }
        if gate.pause_requested() {
            // Handed over between the wait and the read: the bytes are the other program's.
            continue;
        }
        match source.read(&mut buf) {
            Ok(0) => return Some(InputEnd::EndOfInput),
            Ok(n) => {
                parser.advance(&buf[..n], n == buf.len());
                while let Some(event) = parser.next_event() {
                    if !on_event(event) {
                        return None;
                    }
                }
            }
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) if err.kind() == io::ErrorKind::WouldBlock => {
                std::thread::sleep(WOULD_BLOCK_BACKOFF);
            }
            Err(err) => return Some(InputEnd::ReadError(err.to_string())),
        }
    }
}

/// Starts the reader thread on the terminal, parked whenever `gate` is paused. `on_end` runs
/// once, on the reader thread, when the terminal ends (not when `on_event` stopped the
/// reader). The gate hears the reader's end too (a pause then never waits for it).
pub fn spawn_input_reader<E, F>(gate: InputGate, mut on_event: E, on_end: F) -> io::Result<()>
where
    E: FnMut(Event) -> bool + Send + 'static,
    F: FnOnce(InputEnd) + Send + 'static,
{
    let mut terminal = open_terminal()?;
    std::thread::Builder::new()
        .name("masc-tui-input".into())
        .spawn(move || {
            let end = read_events(&mut terminal, &gate, &mut on_event);
            gate.reader_gone();
            if let Some(end) = end {
                tracing::warn!(target: "masc_tui::terminal", end = %end, "terminal input ended");
                on_end(end);
            }
        })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

    struct Script(VecDeque<io::Result<Vec<u8>>>);

    impl InputSource for Script {
        fn wait_readable(&mut self, _timeout: Duration) -> io::Result<bool> {
            Ok(true)
        }
    }

    impl Read for Script {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            match self.0.pop_front() {
                None => Ok(0),
                Some(Err(e)) => Err(e),
                Some(Ok(bytes)) => {
                    buf[..bytes.len()].copy_from_slice(&bytes);
                    Ok(bytes.len())
                }
            }
        }
    }

    fn run(steps: Vec<io::Result<Vec<u8>>>) -> (Vec<Event>, Option<InputEnd>) {
        let mut source = Script(steps.into());
        let mut seen = Vec::new();
        let end = read_events(&mut source, &InputGate::default(), &mut |e| {
            seen.push(e);
            true
        });
        (seen, end)
    }

    #[test]
    fn issue16_end_of_input_ends_the_reader_once() {
        let (events, end) = run(vec![Ok(b"qq".to_vec())]);
        assert_eq!(events.len(), 2);
        assert_eq!(end, Some(InputEnd::EndOfInput));
    }

    #[test]
    fn issue16_eio_ends_the_reader_and_eintr_does_not() {
        let (events, end) = run(vec![
            Err(io::Error::from(io::ErrorKind::Interrupted)),
            Ok(b"j".to_vec()),
            Err(io::Error::from_raw_os_error(5)),
            Ok(b"never".to_vec()),
        ]);
        assert_eq!(
            events,
            vec![Event::Key(KeyEvent::new(
                KeyCode::Char('j'),
                KeyModifiers::NONE
            ))]
        );
        assert!(matches!(end, Some(InputEnd::ReadError(_))), "{end:?}");
    }

    #[test]
    fn a_listener_that_is_gone_stops_the_reader_quietly() {
        let mut source = Script(vec![Ok(b"abc".to_vec())].into());
        let mut n = 0;
        let end = read_events(&mut source, &InputGate::default(), &mut |_| {
            n += 1;
            false
        });
        assert_eq!((n, end), (1, None));
    }

    #[test]
    fn sequences_split_across_reads_and_paste_parse_like_crossterm() {
        let mut p = InputParser::default();
        p.advance(b"\x1b[", true);
        assert_eq!(p.next_event(), None);
        assert_eq!(p.pending(), 2);
        p.advance(b"A", false);
        assert_eq!(
            p.next_event(),
            Some(Event::Key(KeyEvent::new(KeyCode::Up, KeyModifiers::NONE)))
        );
        assert_eq!(
            parse_all(b"\x1b[200~a\x1bb\x1b[201~"),
            vec![Event::Paste("a\x1bb".into())]
        );
        assert_eq!(
            parse_all(b"\x1b"),
            vec![Event::Key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE))]
        );
        // Zero coordinates (crossterm subtracts 1 and panics in debug builds; found by the
        // fuzz corpus): parsed or dropped, never a panic.
        for zero in [&b"\x1b[12;0R"[..], b"\x1b[0;0;0M", b"\x1b[<0;0;0M"] {
            let _ = parse_all(zero);
        }
        match parse_all(b"\x1b[<0;0;0M").as_slice() {
            [Event::Mouse(m)] => assert_eq!((m.column, m.row), (0, 0)),
            other => panic!("one mouse event, got {other:?}"),
        }
        // A hostile X10 mouse report with coordinate bytes below 33 (crossterm overflows).
        match parse_all(b"\x1b[M \x00\x00").as_slice() {
            [Event::Mouse(m)] => assert_eq!((m.column, m.row), (0, 0)),
            other => panic!("one mouse event, got {other:?}"),
        }
    }
}
