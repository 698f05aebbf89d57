//! Painted roster rows kept between frames, so a frame copies a row's cells instead of
//! painting it again.
//!
//! A roster row is a pure function of its slot, the pane width, the theme, whether it is the
//! selected row, and the clock only through its TURN age text. Painting it through ratatui
//! segments every grapheme of the 200-cell padded row; a frame of 55 rows did that 11,000
//! times. The cells of each painted row are kept with what they were painted for, and a frame
//! copies them into its buffer when nothing they depend on changed; anything else paints the
//! row straight into the frame (`row::paint_row`: no `Line`, no one-row buffer) and keeps a
//! copy of the cells it wrote ([`Written`]: an unstyled blank is left empty, and an empty cell
//! is what it shows). Copying only those is what a later frame needs: the rows area of a frame
//! is empty when the rows are painted (a whole frame's reset buffer, or a damaged frame's reset
//! damage), and a row touches only its own line. A `Cell` copy costs ≈ 6–10 ns here
//! (measured; its symbol's clone is most of it), so the cells not copied are most of the
//! saving.
//!
//! A new roster value does not throw the kept rows away: a kept row is used again when its
//! slot in the new value is the one it was painted from (compared by content, once per value,
//! against the value it was painted from, which the kept row holds instead of a clone of the
//! slot). A frame painted in part after a data change ([`KeptLines`], `retain::plan_data`) does
//! not paint the lines the kept frame already shows as they are, and does not keep the rows it
//! repaints: the kept frame holds them from then on (a later whole frame paints them again).

use super::row::Written;
use crate::protocol::keepers::{KeeperRoster, KeeperRowSlot};
use crate::view::screens::ProjectionCtx;
use crate::view::screens::keepers::{Columns, heading_line, paint_row, turn_age};
use crate::view::terminal::cell_copy::copy_cells;
use crate::view::theme::Theme;
use ratatui::buffer::{Buffer, Cell};
use ratatui::layout::Rect;
use ratatui::widgets::Widget;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};

/// The cache, held by the UI state (`Ui::roster_paint`). A clone starts empty.
#[derive(Default)]
pub struct RowPaintCache(Mutex<Rows>);

impl fmt::Debug for RowPaintCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rows = self.0.lock().map(|r| r.rows.len()).unwrap_or(0);
        f.debug_struct("RowPaintCache")
            .field("rows", &rows)
            .finish()
    }
}

impl Clone for RowPaintCache {
    fn clone(&self) -> Self {
        Self::default()
    }
}

#[derive(Default)]
struct Rows {
    /// The roster value the rows are looked up in (held, so its address is its own).
    roster: Option<Arc<KeeperRoster>>,
    /// Counts the roster values seen: a kept row checked against this one carries its number.
    generation: u64,
    width: u16,
    theme: Option<Theme>,
    /// By (row index, selected).
    rows: HashMap<(usize, bool), Kept>,
    /// The column heading: (width, theme, cells).
    heading: Option<(u16, Theme, Vec<Cell>)>,
}

struct Kept {
    /// The roster value the row was painted from (the slot at the row's index in it): a new
    /// value may use the cells again when its slot at the same index is equal. Held, not
    /// cloned (a slot's clone costs more than painting the row); moved to the new
    /// value once found equal in it, so an old value is let go.
    value: Arc<KeeperRoster>,
    /// The roster value (`Rows::generation`) the slot was last found equal in.
    checked: u64,
    /// The TURN age text the row was painted with (the only part that reads the clock).
    turn: String,
    /// The cells the row painter wrote ([`Written`]: the others are empty), run after run.
    written: Written,
    cells: Vec<Cell>,
}

impl Kept {
    fn empty(value: Arc<KeeperRoster>) -> Self {
        Self {
            value,
            checked: 0,
            turn: String::new(),
            written: Written::default(),
            cells: Vec::new(),
        }
    }

    /// Copies the kept cells into the row of `line` (a slice of the frame's empty cells).
    fn copy_into(&self, line: &mut [Cell]) {
        let mut from = 0;
        for &(first, end) in self.written.runs() {
            let n = usize::from(end - first);
            copy_cells(
                &mut line[usize::from(first)..usize::from(end)],
                &self.cells[from..from + n],
            );
            from += n;
        }
    }

    /// Keeps the cells `written` of the row just painted into `line`.
    fn keep(&mut self, line: &[Cell]) {
        self.cells.clear();
        for &(first, end) in self.written.runs() {
            self.cells
                .extend_from_slice(&line[usize::from(first)..usize::from(end)]);
        }
    }
}

/// Lines of a rows area (counted from its top) that the frame being painted already holds as
/// the rows paint them, so [`paint_rows`] leaves them alone: a frame repainted in part after a
/// data change (`retain::plan_data`) keeps the lines whose row did not change. Up to
/// [`KeptLines::CAPACITY`] lines; a line past it is never kept (it is painted).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KeptLines([u64; 4]);

impl KeptLines {
    pub const CAPACITY: usize = 256;

    /// Marks `line` kept; `false` (nothing marked) past [`KeptLines::CAPACITY`].
    pub fn insert(&mut self, line: usize) -> bool {
        if line >= Self::CAPACITY {
            return false;
        }
        self.0[line / 64] |= 1 << (line % 64);
        true
    }

    pub fn contains(&self, line: usize) -> bool {
        line < Self::CAPACITY && self.0[line / 64] & (1 << (line % 64)) != 0
    }

    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|w| *w == 0)
    }

    pub fn len(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }
}

/// What the row shows of the clock.
pub(in crate::view::screens::keepers) fn turn_text(
    slot: &KeeperRowSlot,
    ctx: &ProjectionCtx,
) -> String {
    match slot {
        KeeperRowSlot::Row(row) => turn_age(row.turn_started_at, ctx.now_unix),
        KeeperRowSlot::Undecodable { .. } => String::new(),
    }
}

/// Paints the rows `offset..offset + page` of `roster` into `rows_area` of `buf`, one per
/// line, the `selected` one patched with the theme's selection style; only the rows whose
/// index is in `only` when given (a frame repainted in part: `retain`).
#[allow(clippy::too_many_arguments)] // the row's inputs, each a key of the kept cells
pub fn paint_rows(
    cache: &RowPaintCache,
    roster: &Arc<KeeperRoster>,
    offset: usize,
    page: usize,
    selected: usize,
    cols: Columns,
    ctx: &ProjectionCtx,
    rows_area: Rect,
    only: Option<&[usize]>,
    buf: &mut Buffer,
) {
    // Kept cells are copied whole: a rows area the buffer does not hold whole is painted
    // as before (ratatui clips it).
    let whole = buf.area.intersection(rows_area) == rows_area;
    let kept = cache
        .0
        .lock()
        .ok()
        .filter(|_| whole && !rows_area.is_empty());
    let Some(mut kept) = kept else {
        paint_uncached(
            roster, offset, page, selected, cols, ctx, rows_area, only, buf,
        );
        return;
    };
    let width = rows_area.width;
    if kept.width != width || kept.theme != Some(ctx.theme) {
        kept.width = width;
        kept.theme = Some(ctx.theme);
        kept.rows.clear();
    }
    if !kept.roster.as_ref().is_some_and(|r| Arc::ptr_eq(r, roster)) {
        // Another value: each kept row is checked against it when it is next looked up.
        kept.roster = Some(roster.clone());
        kept.generation = kept.generation.wrapping_add(1);
    }
    let generation = kept.generation;
    // A frame that keeps lines is a damaged frame after a data change (`retain::plan_data`).
    let keep = ctx.kept_roster_lines.is_empty();
    let mut scratch = Written::default();
    for (i, slot) in roster.rows.iter().enumerate().skip(offset).take(page) {
        if only.is_some_and(|only| !only.contains(&i)) || ctx.kept_roster_lines.contains(i - offset)
        {
            continue;
        }
        let y = rows_area.y + (i - offset) as u16;
        let line_area = Rect::new(rows_area.x, y, width, 1);
        let key = (i, i == selected);
        let turn = turn_text(slot, ctx);
        let start = buf.index_of(line_area.x, y);
        let end = start + width as usize;
        match kept.rows.get_mut(&key) {
            Some(row)
                if row.turn == turn
                    && (row.checked == generation || row.value.rows.get(i) == Some(slot)) =>
            {
                if row.checked != generation {
                    row.checked = generation;
                    row.value = roster.clone();
                }
                row.copy_into(&mut buf.content[start..end]);
            }
            _ if !keep => {
                // A damaged frame after a data change: the kept frame holds the row from now
                // on, so it is not copied here; a stale copy is let go (with its value).
                kept.rows.remove(&key);
                paint_row(slot, key.1, cols, ctx, line_area, buf, &mut scratch);
            }
            _ => {
                // Painted straight into the frame (its rows area is empty: see the module),
                // then kept (a stale entry's buffers are reused).
                let row = kept
                    .rows
                    .entry(key)
                    .or_insert_with(|| Kept::empty(roster.clone()));
                paint_row(slot, key.1, cols, ctx, line_area, buf, &mut row.written);
                row.keep(&buf.content[start..end]);
                row.value = roster.clone();
                row.checked = generation;
                row.turn = turn;
            }
        }
    }
    // Keep the rows a page either side of the window (scrolling back is cheap too).
    let low = offset.saturating_sub(page);
    let high = offset + 2 * page;
    kept.rows.retain(|(i, _), _| (low..high).contains(i));
}

/// Paints the column heading into the one-row `area`, from the kept cells when they were
/// painted at the same width and theme.
pub fn paint_heading(
    cache: &RowPaintCache,
    cols: Columns,
    theme: Theme,
    area: Rect,
    buf: &mut Buffer,
) {
    let whole = buf.area.intersection(area) == area && area.height == 1 && !area.is_empty();
    let kept = cache.0.lock().ok().filter(|_| whole);
    let Some(mut kept) = kept else {
        heading_line(cols, theme).render(area, buf);
        return;
    };
    let start = buf.index_of(area.x, area.y);
    let end = start + area.width as usize;
    match &kept.heading {
        Some((width, t, cells)) if *width == area.width && *t == theme => {
            buf.content[start..end].clone_from_slice(cells)
        }
        _ => {
            let one = Rect::new(0, 0, area.width, 1);
            let mut b = Buffer::empty(one);
            heading_line(cols, theme).render(one, &mut b);
            buf.content[start..end].clone_from_slice(&b.content);
            kept.heading = Some((area.width, theme, b.content));
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn paint_uncached(
    roster: &KeeperRoster,
    offset: usize,
    page: usize,
    selected: usize,
    cols: Columns,
    ctx: &ProjectionCtx,
    rows_area: Rect,
    only: Option<&[usize]>,
    buf: &mut Buffer,
) {
    let mut written = Written::default();
    for (i, slot) in roster.rows.iter().enumerate().skip(offset).take(page) {
        if only.is_some_and(|only| !only.contains(&i)) || ctx.kept_roster_lines.contains(i - offset)
        {
            continue;
        }
        let y = rows_area.y + (i - offset) as u16;
        let line_area = Rect::new(rows_area.x, y, rows_area.width, 1);
        paint_row(slot, i == selected, cols, ctx, line_area, buf, &mut written);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::screens::keepers::row_line;

    /// The rows as `render_line` paints each [`row_line`] into the frame (the painter before
    /// the kept cells and `paint_row`): what every painted frame is compared with.
    #[allow(clippy::too_many_arguments)]
    fn paint_reference(
        roster: &KeeperRoster,
        offset: usize,
        page: usize,
        selected: usize,
        cols: Columns,
        ctx: &ProjectionCtx,
        rows_area: Rect,
        buf: &mut Buffer,
    ) {
        for (i, slot) in roster.rows.iter().enumerate().skip(offset).take(page) {
            let y = rows_area.y + (i - offset) as u16;
            let line_area = Rect::new(rows_area.x, y, rows_area.width, 1);
            let mut line = row_line(slot, cols, ctx);
            if i == selected {
                line = line.patch_style(ctx.theme.selected());
            }
            crate::view::terminal::cells::render_line(&line, line_area, buf);
        }
    }
    use crate::view::sample::{keeper_row, roster_of};
    use crate::view::theme::Theme;

    fn roster(n: usize) -> Arc<KeeperRoster> {
        let mut rows: Vec<KeeperRowSlot> = (0..n)
            .map(|i| KeeperRowSlot::Row(Box::new(keeper_row(i))))
            .collect();
        // Wide graphemes and an undecodable row are painted the same from the cache.
        if let Some(KeeperRowSlot::Row(row)) = rows.get_mut(3) {
            row.name = "키퍼-한글-이름-🙂-long".into();
            row.current_task = Some("작업 검토 🙂 board digest".into());
        }
        rows.push(KeeperRowSlot::Undecodable {
            name: Some("broken".into()),
            error: crate::protocol::decode::DecodeError::new(
                crate::protocol::decode::DecodeErrorKind::InvalidValue,
                ".status",
                "bad",
            ),
        });
        Arc::new(roster_of(rows))
    }

    fn ctx(now_unix: f64, color: bool) -> ProjectionCtx {
        let mut ctx = ProjectionCtx::now(Theme::colored(color));
        ctx.now_unix = now_unix;
        ctx
    }

    /// The rows painted into a fresh frame: from `cache` (kept cells), or without one as
    /// before the cache (each line rendered into the frame).
    fn painted(
        cache: Option<&RowPaintCache>,
        roster: &Arc<KeeperRoster>,
        offset: usize,
        selected: usize,
        ctx: &ProjectionCtx,
        area: Rect,
    ) -> Buffer {
        let mut buf = Buffer::empty(area);
        let cols = Columns::for_width(area.width as usize);
        let page = area.height as usize;
        match cache {
            Some(cache) => paint_rows(
                cache, roster, offset, page, selected, cols, ctx, area, None, &mut buf,
            ),
            None => paint_reference(roster, offset, page, selected, cols, ctx, area, &mut buf),
        }
        buf
    }

    /// Every frame painted from kept rows equals the frame painted row by row, as
    /// the selection moves, the window scrolls, the clock turns ages over, the width or the
    /// theme changes, and a new roster value arrives.
    #[test]
    fn kept_rows_paint_what_the_rows_paint() {
        let cache = RowPaintCache::default();
        let first = roster(60);
        let area = Rect::new(3, 2, 120, 20);
        let mut steps: Vec<(Arc<KeeperRoster>, usize, usize, f64, bool, Rect)> = Vec::new();
        for selected in 0..25usize {
            steps.push((
                first.clone(),
                selected.saturating_sub(19),
                selected,
                1_700_000_100.0,
                true,
                area,
            ));
        }
        // Ages turn over (seconds → minutes), then the window goes back up.
        for (i, now) in [
            1_700_000_100.0,
            1_700_000_159.0,
            1_700_000_161.0,
            1_700_003_700.0,
        ]
        .into_iter()
        .enumerate()
        {
            steps.push((first.clone(), 5, 10 + i, now, true, area));
        }
        steps.push((first.clone(), 0, 3, 1_700_003_700.0, false, area));
        steps.push((
            first.clone(),
            0,
            3,
            1_700_003_700.0,
            true,
            Rect::new(0, 0, 90, 12),
        ));
        let second = roster(61);
        steps.push((second.clone(), 40, 55, 1_700_003_700.0, true, area));
        steps.push((second, 41, 60, 1_700_003_700.0, true, area));
        // Another value with the same rows but two: the kept rows of the others are used
        // again (checked by content), the two are painted anew.
        let mut third = (*roster(61)).clone();
        for i in [44, 52] {
            if let KeeperRowSlot::Row(row) = &mut third.rows[i] {
                row.name = format!("바뀐-{i}-👍🏽");
                row.status = crate::protocol::keepers::KeeperStatus::Error;
            }
        }
        let third = Arc::new(third);
        steps.push((third.clone(), 41, 60, 1_700_003_700.0, true, area));
        steps.push((third, 40, 52, 1_700_003_700.0, true, area));
        for (roster, offset, selected, now, color, area) in steps {
            let ctx = ctx(now, color);
            let want = painted(None, &roster, offset, selected, &ctx, area);
            // Twice: the first may paint and keep, the second comes from what was kept.
            for _ in 0..2 {
                let got = painted(Some(&cache), &roster, offset, selected, &ctx, area);
                assert_eq!(got, want, "offset {offset} selected {selected} now {now}");
            }
        }
    }

    /// The kept heading paints what the heading line paints, at each width and theme.
    #[test]
    fn the_kept_heading_paints_the_heading() {
        let cache = RowPaintCache::default();
        for (width, color) in [
            (120, true),
            (120, true),
            (90, true),
            (90, false),
            (200, false),
        ] {
            let area = Rect::new(2, 1, width, 1);
            let frame = Rect::new(0, 0, width + 4, 3);
            let cols = Columns::for_width(width as usize);
            let theme = Theme::colored(color);
            let mut want = Buffer::empty(frame);
            heading_line(cols, theme).render(area, &mut want);
            let mut got = Buffer::empty(frame);
            paint_heading(&cache, cols, theme, area, &mut got);
            assert_eq!(got, want, "width {width}");
        }
    }

    /// A rows area the buffer does not hold whole is painted as before (clipped).
    #[test]
    fn a_clipped_rows_area_paints_as_before() {
        let cache = RowPaintCache::default();
        let roster = roster(10);
        let ctx = ctx(1_700_000_100.0, true);
        let area = Rect::new(0, 0, 80, 5);
        let rows_area = Rect::new(0, 2, 80, 6);
        let cols = Columns::for_width(80);
        let mut want = Buffer::empty(area);
        paint_reference(&roster, 0, 6, 1, cols, &ctx, rows_area, &mut want);
        let mut got = Buffer::empty(area);
        paint_rows(
            &cache, &roster, 0, 6, 1, cols, &ctx, rows_area, None, &mut got,
        );
        assert_eq!(got, want);
    }
}
