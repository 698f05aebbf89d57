//! Presenting a painted buffer to the terminal (T.2, T.3, T.4).
//!
//! We keep T.3's promise with ratatui's own cell diff rather than its OCaml row mechanics:
//! one flush per frame, nothing written when nothing changed, the synchronized-output envelope
//! `CSI ?2026h … CSI ?2026l` around each frame, and a full frame (`CSI 2J` + every non-blank
//! cell) on the first frame, after a resize, after a suspend, and after a write error.

use ratatui::backend::{Backend, CrosstermBackend, TestBackend};
use ratatui::buffer::{Buffer, Cell};
use ratatui::layout::Rect;
use std::io::{self, Write};

pub use super::damage::{Damage, Span as DamageSpan};

use super::damage::diff_span;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

const SYNC_BEGIN: &[u8] = b"\x1b[?2026h";
const SYNC_END: &[u8] = b"\x1b[?2026l";
const CLEAR_ALL: &[u8] = b"\x1b[2J";
const HIDE_CURSOR: &[u8] = b"\x1b[?25l";
const SHOW_CURSOR: &[u8] = b"\x1b[?25h";

/// A ratatui backend the presenter can also send raw escape sequences to. Byte-stream backends
/// write them; the in-memory test backend ignores them (and clears its buffer for `clear_all`).
pub trait FrameSink: Backend + Send + 'static {
    fn write_raw(&mut self, bytes: &[u8]) -> io::Result<()>;
    fn clear_all(&mut self) -> io::Result<()>;
    /// The backend's own error (ratatui's `Backend::Error`) as the presenter's `io::Error`.
    fn io_error(err: Self::Error) -> io::Error;
    /// Whether [`FrameSink::write_raw`] reaches a terminal that moves lines in a scroll region
    /// ([`Scroll`]); the in-memory test backend does not.
    fn scrolls(&self) -> bool {
        true
    }
    /// Moves the terminal cursor to `at` and shows it, or hides it (`None`), as part of the
    /// frame being written. The default goes through the backend's own calls.
    fn place_cursor(&mut self, at: Option<(u16, u16)>) -> io::Result<()> {
        match at {
            Some(at) => {
                self.set_cursor_position(at).map_err(Self::io_error)?;
                self.show_cursor().map_err(Self::io_error)
            }
            None => self.hide_cursor().map_err(Self::io_error),
        }
    }
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
    fn scrolls(&self) -> bool {
        false
    }
}

impl<W: Write + Send + 'static> FrameSink for CrosstermBackend<W> {
    fn write_raw(&mut self, bytes: &[u8]) -> io::Result<()> {
        Write::write_all(self, bytes)
    }
    /// Queued, not executed: crossterm's `set_cursor_position`, `show_cursor` and
    /// `hide_cursor` each flush the writer, which split one frame into three writes to the
    /// terminal (one frame = one write, presented by the single flush at its end).
    fn place_cursor(&mut self, at: Option<(u16, u16)>) -> io::Result<()> {
        match at {
            Some(at) => {
                crossterm::queue!(self, crossterm::cursor::MoveTo(at.0, at.1))?;
                Write::write_all(self, SHOW_CURSOR)
            }
            None => Write::write_all(self, HIDE_CURSOR),
        }
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

/// Lines `top..bottom` (frame rows) of a kept frame moved up by `by` lines (down when
/// negative), as a terminal scroll region moves them ([`Presenter::present_damaged`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scroll {
    pub top: u16,
    pub bottom: u16,
    pub by: i16,
}

impl Scroll {
    /// Whether the lines are whole lines of a frame of `area`, and move by fewer than they are.
    pub fn fits(self, area: Rect) -> bool {
        let n = self.by.unsigned_abs();
        self.top >= area.top()
            && self.bottom <= area.bottom()
            && n > 0
            && n < self.bottom.saturating_sub(self.top)
    }

    /// Moves the lines of `frame` (they [`Scroll::fits`] it) as the terminal will, the lines
    /// brought in empty, and returns what tells the terminal to. The attributes are reset
    /// first: a terminal fills the lines it brings in with the current background.
    fn apply(self, frame: &mut Buffer) -> Vec<u8> {
        let area = frame.area;
        let n = self.by.unsigned_abs() as usize;
        let lines = (self.bottom - self.top) as usize;
        let width = area.width as usize;
        let start = (self.top - area.y) as usize * width;
        let region = &mut frame.content[start..start + lines * width];
        // Line by line (one sequential pass; `rotate_left` over 11,000 cells was a quarter of
        // a `j`): each kept line swaps with the one it replaces, the lines brought in end up
        // holding old cells and are reset.
        let (mark, brought_in) = if self.by > 0 {
            for line in 0..lines - n {
                let (to, from) = region.split_at_mut((line + n) * width);
                to[line * width..(line + 1) * width].swap_with_slice(&mut from[..width]);
            }
            ('S', (lines - n) * width..lines * width)
        } else {
            for line in (n..lines).rev() {
                let (from, to) = region.split_at_mut(line * width);
                to[..width].swap_with_slice(&mut from[(line - n) * width..(line - n + 1) * width]);
            }
            ('T', 0..n * width)
        };
        region[brought_in].iter_mut().for_each(Cell::reset);
        // Terminal lines count from 1; cells are drawn at the frame's own positions.
        format!(
            "\x1b[0m\x1b[{};{}r\x1b[{n}{mark}\x1b[r",
            self.top + 1,
            self.bottom
        )
        .into_bytes()
    }
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
    /// The buffer the next full frame is painted into: the frame before the last,
    /// reset instead of allocated. A damaged frame keeps the old cells of its damage here.
    spare: Buffer,
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
            spare: Buffer::empty(Rect::default()),
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
    /// presented one without a copy. [`Presenter::last_frame`] reads it back.
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

    /// The buffer to paint the next whole frame into, `area` large and reset (the frame before
    /// the last, reused instead of allocated). [`Presenter::present_frame`]
    /// presents it.
    pub fn frame_buffer(&mut self, area: Rect) -> &mut Buffer {
        if self.spare.area != area {
            self.spare.resize(area);
        }
        self.spare.reset();
        &mut self.spare
    }

    /// Presents the frame painted into [`Presenter::frame_buffer`]: the difference from the
    /// last frame is written, and the painted buffer becomes the last frame, cell for cell
    /// (also when nothing had to be written).
    pub fn present_frame(&mut self, cursor: Option<(u16, u16)>) -> io::Result<FrameStats> {
        let next = std::mem::take(&mut self.spare);
        let result = self.write_difference(&next, cursor);
        self.spare = std::mem::replace(&mut self.previous, next);
        result.map(|(stats, _)| stats)
    }

    /// Whether a damaged frame may move lines ([`Scroll`]): the backend's terminal does.
    pub fn scrolls(&self) -> bool {
        self.backend.scrolls()
    }

    /// Whether the last frame is on the terminal as it is kept, at `area`: a damaged frame
    /// ([`Presenter::present_damaged`]) may then repaint only part of it.
    pub fn retains(&self, area: Rect) -> bool {
        !self.invalid && self.previous.area == area && !area.is_empty()
    }

    /// Repaints only `damage` of the last frame: every damaged cell is reset, then
    /// `paint` paints into the last frame (it must paint exactly what a whole frame would paint
    /// in the damaged cells, and nothing outside them), and the damaged cells that changed are
    /// written. Only while [`Presenter::retains`] the frame's area: otherwise nothing is
    /// painted, the next frame is a whole one, and this is an error.
    ///
    /// With `scroll`, the terminal first moves those lines (a scroll region, `CSI top;bottom r`
    /// then `CSI n S` or `CSI n T`), and the kept frame moves them the same way, the lines
    /// brought in empty: the damage then needs to cover only what the moved lines do not
    /// already show (the lines brought in, and whatever else changed).
    pub fn present_damaged(
        &mut self,
        damage: &Damage,
        scroll: Option<Scroll>,
        cursor: Option<(u16, u16)>,
        paint: impl FnOnce(&mut Buffer),
    ) -> io::Result<FrameStats> {
        let area = self.previous.area;
        let scroll_fits = scroll.is_none_or(|s| self.backend.scrolls() && s.fits(area));
        if !self.retains(area) || !scroll_fits {
            self.invalid = true;
            return Err(io::Error::other("no kept frame to repaint in part"));
        }
        let mut frame = std::mem::take(&mut self.previous);
        let mut old = std::mem::take(&mut self.spare);
        if old.area != area {
            old.resize(area);
        }
        let prelude = scroll.map(|s| s.apply(&mut frame)).unwrap_or_default();
        // The old cells of the damage go to the spare buffer; the frame's become empty.
        for span in damage.spans() {
            let range = span.range(area);
            let cells = &mut frame.content[range.clone()];
            old.content[range].swap_with_slice(cells);
            cells.iter_mut().for_each(Cell::reset);
        }
        paint(&mut frame);
        let mut diff = Vec::new();
        for span in damage.spans() {
            let range = span.range(area);
            diff_span(
                &old.content[range.clone()],
                &frame.content[range],
                *span,
                &mut diff,
            );
        }
        let result = if diff.is_empty() && prelude.is_empty() && cursor == self.cursor {
            Ok(FrameStats::default())
        } else {
            let cells = diff.len();
            match self.write_frame(&prelude, diff, false, cursor) {
                Ok(()) => {
                    self.cursor = cursor;
                    Ok(FrameStats { cells, full: false })
                }
                Err(e) => {
                    self.invalid = true;
                    Err(e)
                }
            }
        };
        self.previous = frame;
        self.spare = old;
        result
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
        let result = self.write_frame(&[], diff, full, cursor);
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
        prelude: &[u8],
        diff: Vec<(u16, u16, &ratatui::buffer::Cell)>,
        full: bool,
        cursor: Option<(u16, u16)>,
    ) -> io::Result<()> {
        if self.sync {
            self.backend.write_raw(SYNC_BEGIN)?;
        }
        if !prelude.is_empty() {
            self.backend.write_raw(prelude)?;
        }
        if full {
            self.backend.clear_all()?;
            self.backend.write_raw(HIDE_CURSOR)?;
        }
        self.backend.draw(diff.into_iter()).map_err(B::io_error)?;
        match cursor {
            Some(at) => self.backend.place_cursor(Some(at))?,
            // Drawing moved the hidden cursor; it only needs hiding when it was shown.
            None if self.cursor.is_some() && !full => self.backend.place_cursor(None)?,
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

    #[test]
    fn t3_a_frame_with_the_composer_cursor_is_still_one_write() {
        let counter = ByteCounter::default();
        let writer = io::BufWriter::with_capacity(1 << 20, counter.clone());
        let mut p = Presenter::new(CrosstermBackend::new(writer), true);
        let mut buf = Buffer::empty(Rect::new(0, 0, 40, 10));
        buf.set_string(0, 0, "> draft", ratatui::style::Style::default());
        assert!(p.present_with_cursor(&buf, Some((7, 0))).is_ok());
        assert_eq!(counter.writes(), 1);
        // Typing: one cell and the cursor moved, one write.
        buf.set_string(7, 0, "x", ratatui::style::Style::default());
        assert!(p.present_with_cursor(&buf, Some((8, 0))).is_ok());
        assert_eq!(counter.writes(), 2);
        // The cursor hidden again (the composer closed): one write.
        buf.set_string(0, 0, "       ", ratatui::style::Style::default());
        assert!(p.present_with_cursor(&buf, None).is_ok());
        assert_eq!(counter.writes(), 3);
    }
}
