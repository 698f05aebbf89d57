//! Windowed rendering: only the rows of the visible window are built per frame.
//!
//! - Wrapped body rows are cached per (block content key, chunk) in a small LRU; the cache
//!   belongs to one layout generation (reading width, modes, colour) and is dropped when that
//!   changes (a resize re-wraps; nothing else does: T.5).
//! - Body heights are cached per content key and survive re-plans, so a streamed delta does
//!   not re-measure the whole transcript; a huge body keeps its per-chunk heights, so showing
//!   its end wraps only its last chunks.
//! - Gutters (rail, clock, mark, label, quote bar) are added per painted row from the plan.
//!
//! The caches and a block's rows and heights through them are in `chunk_rows.rs`.

use super::gutter::{CHAT_MIN_HISTORY_ROWS, CHAT_MIN_TERMINAL_COLS, GutterLayout};
use super::measure::{MeasureJob, Measured};
use super::model::Transcript;
use super::modes::{ViewModes, ViewToggle};
use super::paint::{Painter, date_row, gutter, header};
use super::plan::{PlannedBlock, build_plan};
use super::project::ProjectCtx;
use super::style::ChatStyle;
use crate::view::text::fit_width;
use crate::view::theme::Theme;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use std::sync::Arc;

/// Where the window sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScrollPosition {
    /// Pinned to the newest row.
    Newest,
    /// This many rows above the newest row.
    Back(usize),
    /// This many rows below the first row.
    FromTop(usize),
}

/// T.5 / C-19: the chat needs ≥41 columns and ≥3 history rows, else a compact gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChatGate {
    Open,
    ResizeNeeded { cols: usize, rows: usize },
}

pub fn chat_gate(cols: usize, history_rows: usize) -> ChatGate {
    if cols < CHAT_MIN_TERMINAL_COLS || history_rows < CHAT_MIN_HISTORY_ROWS {
        ChatGate::ResizeNeeded {
            cols,
            rows: history_rows,
        }
    } else {
        ChatGate::Open
    }
}

/// What the last frame showed (for the scroll hint, C-67).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FrameInfo {
    /// The first row of the transcript is visible.
    pub at_top: bool,
    /// Rows of the newest message hidden by the cut of C-28 (`⋯ N chat rows hidden`).
    pub hidden_middle: usize,
    /// The hidden middle is not measured yet (its count is on the way from the blocking pool).
    pub hidden_unmeasured: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct LayoutKey {
    reading: usize,
    modes: ViewModes,
    color: bool,
}

/// Layout generations are unique across views, so a measurement made for a view that was
/// since replaced (a reload, another Keeper) never fills the new one's cache.
fn next_generation() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// The Keeper chat transcript projected into rows.
pub struct TranscriptView {
    transcript: Transcript,
    modes: ViewModes,
    style: ChatStyle,
    utc_offset_secs: i32,
    /// Shared with an off-actor `/find`: rebuilt whole, never changed in place.
    plan: Arc<Vec<PlannedBlock>>,
    plan_for: Option<(u64, ViewModes, i32)>,
    /// Total rows of each planned block (`UNKNOWN` until measured).
    block_heights: Vec<u32>,
    layout: Option<LayoutKey>,
    /// Bumped whenever the caches are dropped: an off-actor measurement of an older generation
    /// is ignored.
    generation: u64,
    caches: Caches,
    last: FrameInfo,
    /// The measurement the last frame could not afford, waiting for the view actor to run it
    /// off the actor ([`TranscriptView::take_measure_job`]).
    measure_wanted: Option<MeasureJob>,
    /// (generation, block key) of a measurement handed out and not back yet.
    measuring: Option<(u64, u64)>,
    /// The text `/find` highlights in painted body rows (C-74).
    find: Option<String>,
}

impl TranscriptView {
    pub fn new(transcript: Transcript, theme: Theme) -> Self {
        Self {
            transcript,
            modes: ViewModes::default(),
            style: ChatStyle::new(theme),
            utc_offset_secs: 0,
            plan: Arc::new(Vec::new()),
            plan_for: None,
            block_heights: Vec::new(),
            layout: None,
            generation: 0,
            caches: Caches::default(),
            last: FrameInfo::default(),
            measure_wanted: None,
            measuring: None,
            find: None,
        }
    }

    /// The measurement the last frame left to do off the view actor, once: run it with
    /// [`MeasureJob::run`] on a blocking worker and give the result to
    /// [`TranscriptView::apply_measured`].
    pub fn take_measure_job(&mut self) -> Option<MeasureJob> {
        let job = self.measure_wanted.take()?;
        self.measuring = Some((job.generation, job.block));
        Some(job)
    }

    /// Fills the height cache from an off-actor measurement; `true` when it changed what the
    /// next frame shows (a measurement of an older layout generation is ignored).
    pub fn apply_measured(&mut self, measured: Measured) -> bool {
        if self.measuring == Some((measured.generation, measured.block)) {
            self.measuring = None;
        }
        if measured.generation != self.generation {
            return false;
        }
        let Some(bi) = self.plan.iter().position(|b| b.key == measured.block) else {
            return false;
        };
        let count = self.plan.get(bi).map_or(1, PlannedBlock::chunk_count);
        let heights = self.caches.heights.entry(measured.block, count);
        let mut changed = false;
        for (chunk, rows) in measured.heights {
            if let Some(slot) = heights.get_mut(chunk)
                && *slot == UNKNOWN
            {
                *slot = rows;
                changed = true;
            }
        }
        if changed && let Some(h) = self.block_heights.get_mut(bi) {
            *h = UNKNOWN;
        }
        changed
    }

    pub fn transcript(&self) -> &Transcript {
        &self.transcript
    }

    /// Changes are noticed through [`Transcript::generation`]; only changed blocks re-wrap.
    pub fn transcript_mut(&mut self) -> &mut Transcript {
        &mut self.transcript
    }

    pub fn modes(&self) -> ViewModes {
        self.modes
    }

    pub fn set_modes(&mut self, modes: ViewModes) {
        self.modes = modes;
    }

    pub fn toggle(&mut self, key: ViewToggle) {
        self.modes.toggle(key);
    }

    /// Local time offset for the clock (seconds east of UTC).
    pub fn set_utc_offset(&mut self, secs: i32) {
        self.utc_offset_secs = secs;
    }

    pub fn last_frame(&self) -> FrameInfo {
        self.last
    }

    fn painter(&self) -> Painter<'_> {
        Painter {
            transcript: &self.transcript,
            modes: self.modes,
            style: self.style,
        }
    }

    fn ctx(&self) -> ProjectCtx {
        ProjectCtx {
            modes: self.modes,
            style: self.style,
        }
    }

    fn sync(&mut self, width: usize) -> GutterLayout {
        let layout = GutterLayout::new(self.modes.origin, width);
        let key = LayoutKey {
            reading: layout.reading,
            modes: self.modes,
            color: self.style.color,
        };
        let plan_key = (
            self.transcript.generation(),
            self.modes,
            self.utc_offset_secs,
        );
        if self.layout != Some(key) {
            self.caches.clear();
            self.generation = next_generation();
            self.measure_wanted = None;
            self.layout = Some(key);
            self.block_heights = vec![UNKNOWN; self.plan.len()];
        }
        if self.plan_for != Some(plan_key) {
            self.plan = Arc::new(build_plan(
                &self.transcript,
                self.modes,
                self.utc_offset_secs,
            ));
            self.plan_for = Some(plan_key);
            self.block_heights = vec![UNKNOWN; self.plan.len()];
        }
        layout
    }

    /// Total rows of the transcript at `width` (measures every block once per layout; the
    /// rows it wraps are not kept).
    pub fn total_rows(&mut self, width: u16) -> usize {
        let layout = self.sync(usize::from(width));
        (0..self.plan.len())
            .map(|bi| self.measured_height(&layout, bi))
            .sum()
    }

    /// Rows `range` of block `bi` (ctx rows, then gutter + body rows).
    fn block_rows(
        &mut self,
        layout: &GutterLayout,
        bi: usize,
        range: std::ops::Range<usize>,
        out: &mut Vec<Line<'static>>,
    ) {
        let Some(block) = self.plan.get(bi).cloned() else {
            return;
        };
        let ctx = block.ctx_rows();
        let body_h = self.body_height(layout, bi);
        let mut chunk_starts = Vec::with_capacity(block.chunk_count());
        let mut acc = 0;
        for c in 0..block.chunk_count() {
            chunk_starts.push(acc);
            acc += self.chunk_height(layout, bi, c);
        }
        for r in range {
            if block.spacing && r == 0 {
                out.push(Line::default());
                continue;
            }
            if let Some(day) = block.date()
                && r == usize::from(block.spacing)
            {
                out.push(date_row(day, layout.reading, self.style));
                continue;
            }
            if block.header && r == block.lead_rows() {
                out.push(header(&self.painter(), layout, &block));
                continue;
            }
            let Some(k) = r.checked_sub(ctx) else {
                continue;
            };
            let chunk = chunk_starts.partition_point(|&s| s <= k).saturating_sub(1);
            let rows = self.chunk_rows(layout, bi, chunk);
            let Some(body) = chunk_starts.get(chunk).and_then(|s| rows.get(k - s)) else {
                continue;
            };
            let mut spans = gutter(&self.painter(), layout, &block, k, body_h);
            spans.extend(self.body_spans(body));
            out.push(Line::from(spans));
        }
    }

    /// A body row's spans, `/find`'s matches drawn reversed (C-74: the rows searched are the
    /// rows painted).
    fn body_spans(&self, body: &Line<'static>) -> Vec<Span<'static>> {
        match self.find.as_deref() {
            Some(query) => find::highlight(body.spans.clone(), query),
            None => body.spans.clone(),
        }
    }

    /// Builds the rows of one frame: only the blocks under the window are wrapped.
    pub fn render(
        &mut self,
        area_width: u16,
        area_height: u16,
        scroll: ScrollPosition,
    ) -> Vec<Line<'static>> {
        let (w, h) = (usize::from(area_width), usize::from(area_height));
        if let ChatGate::ResizeNeeded { cols, rows } = chat_gate(w, h) {
            self.last = FrameInfo::default();
            let text = format!(
                "⋯ resize · chat needs {CHAT_MIN_TERMINAL_COLS}×{CHAT_MIN_HISTORY_ROWS} · now {cols}×{rows}"
            );
            let line = Line::from(Span::styled(
                fit_width(&text, w).into_owned(),
                self.style.recede(),
            ));
            return if h == 0 { Vec::new() } else { vec![line] };
        }
        let layout = self.sync(w);
        let n = self.plan.len();
        let mut out = Vec::with_capacity(h);
        let mut info = FrameInfo::default();
        match scroll {
            ScrollPosition::FromTop(skip) => {
                let mut bi = 0;
                let mut skip = skip;
                while bi < n {
                    let bh = self.measured_height(&layout, bi);
                    if skip < bh {
                        break;
                    }
                    skip -= bh;
                    bi += 1;
                }
                info.at_top = bi == 0 && skip == 0;
                let mut first = skip;
                while bi < n && out.len() < h {
                    let bh = self.block_height(&layout, bi);
                    let take = (bh - first).min(h - out.len());
                    self.block_rows(&layout, bi, first..first + take, &mut out);
                    first = 0;
                    bi += 1;
                }
            }
            ScrollPosition::Newest | ScrollPosition::Back(_) => {
                let back = match scroll {
                    ScrollPosition::Back(k) => k,
                    _ => 0,
                };
                if back == 0 && n > 0 && self.cut_newest(&layout, h, &mut out, &mut info) {
                    self.last = info;
                    return out;
                }
                let need = back + h;
                let mut acc = 0;
                let mut bi = n;
                while bi > 0 && acc < need {
                    bi -= 1;
                    acc += self.block_height(&layout, bi);
                }
                // Window rows [start, end) in the coordinates of the suffix from block `bi`.
                let start = acc.saturating_sub(need);
                let end = (start + h).min(acc.saturating_sub(back).max(start.min(acc)));
                let end = if acc < need { h.min(acc) } else { end };
                info.at_top = bi == 0 && start == 0;
                let mut offset = 0;
                let mut b = bi;
                while b < n && offset < end {
                    let bh = self.block_height(&layout, b);
                    let lo = start.max(offset);
                    let hi = end.min(offset + bh);
                    if lo < hi {
                        self.block_rows(&layout, b, lo - offset..hi - offset, &mut out);
                    }
                    offset += bh;
                    b += 1;
                }
            }
        }
        self.last = info;
        out
    }

    /// Paints a frame into `buf` at `area` (cells outside the reading width stay empty).
    pub fn render_into(&mut self, buf: &mut Buffer, area: Rect, scroll: ScrollPosition) {
        let lines = self.render(area.width, area.height, scroll);
        for (i, line) in lines.iter().enumerate() {
            let y = area.y + i as u16;
            if y >= area.bottom() {
                break;
            }
            // By the terminal's cell rule (C-70), as the rows were wrapped.
            crate::view::terminal::cells::put_line(buf, area.x, y, line, area.width);
        }
    }
}

#[path = "anchor.rs"]
mod anchor;
#[path = "heights.rs"]
mod heights;
use heights::UNKNOWN;
#[path = "chunk_rows.rs"]
mod chunk_rows;
use chunk_rows::Caches;
#[path = "cut.rs"]
mod cut;
#[path = "find.rs"]
mod find;
pub use anchor::ScrollAnchor;

#[cfg(test)]
#[path = "window_tests.rs"]
mod tests;
