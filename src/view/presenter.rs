//! Presenting a painted buffer to the terminal (T.2, T.3, T.4).
//!
//! We keep T.3's promise with ratatui's own cell diff rather than its OCaml row mechanics:
//! one flush per frame, nothing written when nothing changed, the synchronized-output envelope
//! `CSI ?2026h … CSI ?2026l` around each frame, and a full frame (`CSI 2J` + every non-blank
//! cell) on the first frame, after a resize, after a suspend, and after a write error.

use ratatui::backend::{Backend, CrosstermBackend, TestBackend};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use std::io::{self, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

const SYNC_BEGIN: &[u8] = b"\x1b[?2026h";
const SYNC_END: &[u8] = b"\x1b[?2026l";
const CLEAR_ALL: &[u8] = b"\x1b[2J";
const HIDE_CURSOR: &[u8] = b"\x1b[?25l";

/// A ratatui backend the presenter can also send raw escape sequences to. Byte-stream backends
/// write them; the in-memory test backend ignores them (and clears its buffer for `clear_all`).
pub trait FrameSink: Backend + Send + 'static {
    fn write_raw(&mut self, bytes: &[u8]) -> io::Result<()>;
    fn clear_all(&mut self) -> io::Result<()>;
    /// The backend's own error (ratatui's `Backend::Error`) as the presenter's `io::Error`.
    fn io_error(err: Self::Error) -> io::Error;
}

impl FrameSink for TestBackend {
    fn write_raw(&mut self, _bytes: &[u8]) -> io::Result<()> {
        Ok(())
    }
    fn clear_all(&mut self) -> io::Result<()> {
        Backend::clear(self).map_err(Self::io_error)
    }
    fn io_error(err: std::convert::Infallible) -> io::Error {
        match err {}
    }
}

impl<W: Write + Send + 'static> FrameSink for CrosstermBackend<W> {
    fn write_raw(&mut self, bytes: &[u8]) -> io::Result<()> {
        Write::write_all(self, bytes)
    }
    fn clear_all(&mut self) -> io::Result<()> {
        Write::write_all(self, CLEAR_ALL)
    }
    fn io_error(err: io::Error) -> io::Error {
        err
    }
}

/// Whether to wrap frames in synchronized output (T.4): on by default; `MASC_TUI_SYNC=off`
/// omits it; `TERM_PROGRAM=Apple_Terminal` defaults it off; `MASC_TUI_SYNC=on` opts back in.
pub fn sync_output_wanted(masc_tui_sync: Option<&str>, term_program: Option<&str>) -> bool {
    match masc_tui_sync {
        Some("off") => false,
        Some("on") => true,
        _ => term_program != Some("Apple_Terminal"),
    }
}

/// [`sync_output_wanted`] read from the process environment.
pub fn sync_output_from_env() -> bool {
    let sync = std::env::var("MASC_TUI_SYNC").ok();
    let term = std::env::var("TERM_PROGRAM").ok();
    sync_output_wanted(sync.as_deref(), term.as_deref())
}

/// What one `present` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FrameStats {
    /// Cells sent to the backend (0: nothing was written at all).
    pub cells: usize,
    pub full: bool,
}

pub struct Presenter<B: FrameSink> {
    backend: B,
    previous: Buffer,
    sync: bool,
    /// The next frame must be full (first frame, resize, resume, write error).
    invalid: bool,
    /// Where the terminal cursor was left shown (`None`: hidden).
    cursor: Option<(u16, u16)>,
}

impl<B: FrameSink> Presenter<B> {
    pub fn new(backend: B, sync: bool) -> Self {
        Self {
            backend,
            previous: Buffer::empty(Rect::default()),
            sync,
            invalid: true,
            cursor: None,
        }
    }

    pub fn backend(&self) -> &B {
        &self.backend
    }

    pub fn backend_mut(&mut self) -> &mut B {
        &mut self.backend
    }

    /// The size the backend reports (probed by the caller once, and on resize only: T.5).
    pub fn probe_size(&self) -> Rect {
        match self.backend.size() {
            Ok(s) => Rect::new(0, 0, s.width, s.height),
            Err(_) => Rect::new(0, 0, 80, 24),
        }
    }

    /// Forces the next frame to be full.
    pub fn invalidate(&mut self) {
        self.invalid = true;
    }

    /// Writes the difference between the last presented buffer and `next`; a full frame when
    /// invalidated or when the geometry changed. Writes nothing when nothing changed.
    pub fn present(&mut self, next: &Buffer) -> io::Result<FrameStats> {
        self.present_with_cursor(next, None)
    }

    /// [`Presenter::present`], then the terminal cursor shown at `cursor` (the chat composer's
    /// cursor cell) or hidden. A frame whose cells and cursor did not change writes nothing.
    pub fn present_with_cursor(
        &mut self,
        next: &Buffer,
        cursor: Option<(u16, u16)>,
    ) -> io::Result<FrameStats> {
        let (stats, written) = self.write_difference(next, cursor)?;
        if written {
            self.previous = next.clone();
        }
        Ok(stats)
    }

    /// [`Presenter::present_with_cursor`] taking the frame: a written frame becomes the last
    /// presented one without a copy (issue 15). [`Presenter::last_frame`] reads it back.
    pub fn present_owned(
        &mut self,
        next: Buffer,
        cursor: Option<(u16, u16)>,
    ) -> io::Result<FrameStats> {
        let (stats, written) = self.write_difference(&next, cursor)?;
        if written {
            self.previous = next;
        }
        Ok(stats)
    }

    /// The last frame written (empty before the first).
    pub fn last_frame(&self) -> &Buffer {
        &self.previous
    }

    /// Writes the difference; `true` when a frame was written (the caller keeps `next` as
    /// the previous frame then).
    fn write_difference(
        &mut self,
        next: &Buffer,
        cursor: Option<(u16, u16)>,
    ) -> io::Result<(FrameStats, bool)> {
        let full = self.invalid || self.previous.area != next.area;
        if full {
            self.previous = Buffer::empty(next.area);
        }
        let diff = self.previous.diff(next);
        if diff.is_empty() && !full && cursor == self.cursor {
            return Ok((FrameStats::default(), false));
        }
        let cells = diff.len();
        let result = self.write_frame(diff, full, cursor);
        match result {
            Ok(()) => {
                self.invalid = false;
                self.cursor = cursor;
                Ok((FrameStats { cells, full }, true))
            }
            Err(e) => {
                // T.3: a write error invalidates the cache so the next frame is full.
                self.invalid = true;
                Err(e)
            }
        }
    }

    fn write_frame(
        &mut self,
        diff: Vec<(u16, u16, &ratatui::buffer::Cell)>,
        full: bool,
        cursor: Option<(u16, u16)>,
    ) -> io::Result<()> {
        if self.sync {
            self.backend.write_raw(SYNC_BEGIN)?;
        }
        if full {
            self.backend.clear_all()?;
            self.backend.write_raw(HIDE_CURSOR)?;
        }
        self.backend.draw(diff.into_iter()).map_err(B::io_error)?;
        match cursor {
            Some(at) => {
                self.backend.set_cursor_position(at).map_err(B::io_error)?;
                self.backend.show_cursor().map_err(B::io_error)?;
            }
            // Drawing moved the hidden cursor; it only needs hiding when it was shown.
            None if self.cursor.is_some() && !full => {
                self.backend.hide_cursor().map_err(B::io_error)?
            }
            None => {}
        }
        if self.sync {
            self.backend.write_raw(SYNC_END)?;
        }
        Backend::flush(&mut self.backend).map_err(B::io_error)
    }
}

/// A writer that counts bytes and write calls and discards them (tests, benches).
#[derive(Debug, Clone, Default)]
pub struct ByteCounter {
    bytes: Arc<AtomicU64>,
    writes: Arc<AtomicU64>,
}

impl ByteCounter {
    pub fn bytes(&self) -> u64 {
        self.bytes.load(Ordering::Relaxed)
    }
    pub fn writes(&self) -> u64 {
        self.writes.load(Ordering::Relaxed)
    }
}

impl Write for ByteCounter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.bytes.fetch_add(buf.len() as u64, Ordering::Relaxed);
        self.writes.fetch_add(1, Ordering::Relaxed);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A writer that records everything (tests that look at the escape sequences).
#[derive(Debug, Clone, Default)]
pub struct ByteRecorder {
    bytes: Arc<std::sync::Mutex<Vec<u8>>>,
}

impl ByteRecorder {
    pub fn take(&self) -> Vec<u8> {
        match self.bytes.lock() {
            Ok(mut b) => std::mem::take(&mut *b),
            Err(_) => Vec::new(),
        }
    }
}

impl Write for ByteRecorder {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if let Ok(mut b) = self.bytes.lock() {
            b.extend_from_slice(buf);
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t4_sync_envelope_defaults() {
        assert!(sync_output_wanted(None, None));
        assert!(!sync_output_wanted(Some("off"), None));
        assert!(!sync_output_wanted(None, Some("Apple_Terminal")));
        assert!(sync_output_wanted(Some("on"), Some("Apple_Terminal")));
    }

    #[test]
    fn t3_frame_is_wrapped_and_unchanged_frame_writes_nothing() {
        let rec = ByteRecorder::default();
        let mut p = Presenter::new(CrosstermBackend::new(rec.clone()), true);
        let mut buf = Buffer::empty(Rect::new(0, 0, 10, 2));
        buf.set_string(0, 0, "hello", ratatui::style::Style::default());
        assert!(p.present(&buf).is_ok());
        let first = rec.take();
        assert!(first.starts_with(SYNC_BEGIN));
        assert!(first.ends_with(SYNC_END));
        assert!(first.windows(CLEAR_ALL.len()).any(|w| w == CLEAR_ALL));
        let stats = p.present(&buf).ok();
        assert_eq!(stats, Some(FrameStats::default()));
        assert!(rec.take().is_empty());
        buf.set_string(0, 1, "x", ratatui::style::Style::default());
        assert!(p.present(&buf).is_ok());
        let second = rec.take();
        assert!(!second.windows(CLEAR_ALL.len()).any(|w| w == CLEAR_ALL));
        assert!(second.starts_with(SYNC_BEGIN));
    }

    #[test]
    fn t3_one_write_per_frame_through_the_frame_buffer() {
        let counter = ByteCounter::default();
        let writer = io::BufWriter::with_capacity(1 << 20, counter.clone());
        let mut p = Presenter::new(CrosstermBackend::new(writer), true);
        let mut buf = Buffer::empty(Rect::new(0, 0, 40, 10));
        buf.set_string(0, 0, "first frame", ratatui::style::Style::default());
        assert!(p.present(&buf).is_ok());
        assert_eq!(counter.writes(), 1);
        buf.set_string(0, 5, "second", ratatui::style::Style::default());
        assert!(p.present(&buf).is_ok());
        assert_eq!(counter.writes(), 2);
        assert!(p.present(&buf).is_ok());
        assert_eq!(counter.writes(), 2);
    }
}
