//! Everything the CLI prints goes through here, so server- or file-controlled text never
//! reaches the operator's terminal raw: text through the one sanitiser
//! ([`crate::sanitize::sanitize_block`]), JSON through its escaping serializer (every C0, DEL,
//! C1 and bidi control in a string is written as `\uXXXX`; the value is unchanged for a JSON
//! reader).

use crate::sanitize::{sanitize_block, to_json_string_pretty};
use std::io::{self, Write};

/// Writes `text` (one or more lines) and a final line feed, each line sanitised.
pub fn text(out: &mut dyn Write, text: &str) -> io::Result<()> {
    writeln!(out, "{}", sanitize_block(text.trim_end_matches('\n')))
}

/// Writes `value` as pretty JSON with controls escaped, and a final line feed.
pub fn json<T: ?Sized + serde::Serialize>(out: &mut dyn Write, value: &T) -> io::Result<()> {
    let rendered = to_json_string_pretty(value).map_err(io::Error::other)?;
    writeln!(out, "{rendered}")
}

/// The error line of the binary edge (`masc-tui: …` on stderr), sanitised: error chains quote
/// file names, server bodies and decoder details.
pub fn error_line(err: &anyhow::Error) -> String {
    sanitize_block(&format!("masc-tui: {err:#}"))
}

/// stderr for the server's log lines (`serve`): every line sanitised, so a request path, a
/// fault plan or a store error quoted in a log line cannot drive the terminal. Use with
/// `with_ansi(false)`: the logger's own colours would be escaped too.
#[derive(Debug, Clone, Copy, Default)]
pub struct SafeStderr;

impl Write for SafeStderr {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let text = crate::sanitize::sanitize_bytes_block(buf);
        io::stderr().lock().write_all(text.as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        io::stderr().lock().flush()
    }
}

/// Set once a write to stdout met a closed reader (`EPIPE`).
static STDOUT_CLOSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether a write to stdout found its reader gone (`masc-tui timeline F | head`): the binary
/// edge then ends quietly with 0 instead of reporting "Broken pipe" — the reader took what it
/// wanted.
pub fn stdout_closed() -> bool {
    STDOUT_CLOSED.load(std::sync::atomic::Ordering::Relaxed)
}

/// The process's stdout for subcommand output: a write that finds the reader gone is still
/// an error (the subcommand stops), and is recorded for [`stdout_closed`].
pub fn stdout() -> Stdout {
    Stdout(io::stdout().lock())
}

/// See [`stdout`].
#[derive(Debug)]
pub struct Stdout(io::StdoutLock<'static>);

impl Stdout {
    fn note<T>(result: io::Result<T>) -> io::Result<T> {
        if let Err(err) = &result
            && err.kind() == io::ErrorKind::BrokenPipe
        {
            STDOUT_CLOSED.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        result
    }
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        Self::note(self.0.write(buf))
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        Self::note(self.0.write_all(buf))
    }

    fn flush(&mut self) -> io::Result<()> {
        Self::note(self.0.flush())
    }
}
