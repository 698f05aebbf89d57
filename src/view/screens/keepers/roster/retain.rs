//! Keepers frames repainted in part (a frame copies only what changed).
//!
//! A whole frame of the roster copies the kept rows' written cells (about half of 11,000) into
//! a reset 200×60 buffer and diffs all 12,000 against the last frame; a `j` changes two rows. After a whole Keepers frame the
//! view keeps a [`KeepersMemo`] of what it was painted from; the next frame may repaint only
//! the cells whose inputs changed ([`plan`], then [`paint`] into the kept frame, whose damaged
//! cells the presenter has reset) when:
//!
//! - the model is the same (the frame painter checks the model's change count), and so are the
//!   frame's size and theme;
//! - the frame shows the roster on the Keepers surface with nothing over it but the detail pane:
//!   no chat, approvals view, help, runtime picker, operation line or resize gate;
//! - the UI state the Keepers frame reads (the roster state, the notice, the armed quit) is the
//!   same but for the selection, the scroll offset and the detail pane's scroll.
//!
//! Anything else paints a whole frame. What a damaged frame repaints: the title row (the only
//! one besides the rows that reads the clock: the slow-read badge), the rows whose selection
//! changed or whose TURN age text is not the one on screen any more, and the open detail pane.
//! A change of the scroll offset repaints every row. The order is `render`'s: title, rows,
//! pane, so the pane covers rows as in a whole frame.
//!
//! After a change of the model (a roster re-read, a clock-driven badge, any other source's
//! data), [`plan_data`] keeps the roster lines whose row is the same as the one on screen —
//! compared by what the row is painted from: the slot's content, whether it is the selected
//! row, its TURN age text (the width and theme are the memo's) — and repaints everything else
//! with the whole frame's own painter (`screens::render_with_cursor`), which leaves the kept
//! lines alone (`ProjectionCtx::kept_roster_lines`). When rows were added or removed above the
//! window, every row on screen stands on another line: the lines that still show their row
//! move with the terminal's lines first (a scroll region, as a `j` past the page does), found
//! from a few probe rows and checked line by line as above, when no pane covers them. It needs the frame to still show the
//! roster on the Keepers surface as above, with the same rows area and the same detail pane
//! rectangle (the pane's cells are repainted; the kept lines are kept beside it).

use super::paint::KeptLines;
use super::{paint, waiting};
use crate::protocol::keepers::{KeeperRoster, KeeperRowSlot};
use crate::view::model::Model;
use crate::view::screens::keepers::operations as ops;
use crate::view::screens::keepers::{
    Columns, KeepersScreen, detail_pane, render_detail, slot_name, stale_since, title_line,
};
use crate::view::screens::widgets::effective_offset;
use crate::view::screens::{ProjectionCtx, RosterUi, Tab, Ui, body_area};
use crate::view::terminal::presenter::Scroll;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::Widget;
use std::sync::Arc;

/// What a Keepers frame was painted from, besides the model, the size and the theme.
#[derive(Debug, Clone)]
pub struct KeepersMemo {
    roster: RosterUi,
    notice: Option<String>,
    quit_armed: bool,
    selected: usize,
    offset: usize,
    rows_area: Rect,
    /// The TURN text of each row on screen, from `offset`.
    turns: Vec<String>,
    /// The roster value the rows on screen were painted from.
    value: Arc<KeeperRoster>,
    /// The open detail pane's rectangle.
    pane: Option<Rect>,
}

/// The frame's roster geometry, when the frame is one a damaged frame may follow.
struct Geometry<'a> {
    keepers: &'a KeepersScreen,
    roster: &'a Arc<KeeperRoster>,
    body: Rect,
    rows_area: Rect,
    /// The selected Keeper's "waits on" line (`render`), with that Keeper's name.
    wait_line: Option<(Rect, String)>,
    selected: usize,
    offset: usize,
}

fn geometry<'a>(model: &'a Model, ui: &'a Ui) -> Option<Geometry<'a>> {
    let keepers = ui.screen::<KeepersScreen>()?;
    if ui.tab != Tab::Keepers
        || !ui.layers.is_empty()
        || ui.too_small()
        || keepers.roster.picker.is_some()
        // A Keeper found by name paints one more row; stale rows carry marks that read the
        // clock and the connection: whole frames for both.
        || keepers.roster.found.is_some()
        || stale_since(model).is_some()
    {
        return None;
    }
    let roster = &model.keepers.roster.fetched.last()?.value;
    let body = body_area(ui.area);
    let len = roster.rows.len();
    if len == 0 || body.height < 3 {
        return None;
    }
    let selected = keepers.roster.selected.min(len - 1);
    // The operation line follows the selection and takes the last row (`render`).
    if ops::row_name(model, selected).is_some_and(|name| ops::has_line(model, &name)) {
        return None;
    }
    // The "waits on" line takes the last row when the surface has room (`render`).
    let wait_line = ops::row_name(model, selected)
        .filter(|_| waiting::has_room(body.height))
        .map(|name| (Rect::new(body.x, body.bottom() - 1, body.width, 1), name));
    let rows_area = Rect::new(
        body.x,
        body.y + 2,
        body.width,
        body.height - 2 - u16::from(wait_line.is_some()),
    );
    let offset = effective_offset(
        selected,
        keepers.roster.offset,
        rows_area.height as usize,
        len,
    );
    Some(Geometry {
        keepers,
        roster,
        body,
        rows_area,
        wait_line,
        selected,
        offset,
    })
}

fn turns(g: &Geometry<'_>, ctx: &ProjectionCtx) -> Vec<String> {
    g.roster
        .rows
        .iter()
        .skip(g.offset)
        .take(g.rows_area.height as usize)
        .map(|slot| paint::turn_text(slot, ctx))
        .collect()
}

fn pane_of(g: &Geometry<'_>) -> Option<Rect> {
    g.keepers
        .roster
        .detail_open
        .then(|| detail_pane(g.body, &g.keepers.roster.detail))
}

fn memo_of(g: &Geometry<'_>, ui: &Ui, turns: Vec<String>) -> KeepersMemo {
    KeepersMemo {
        roster: g.keepers.roster.clone(),
        notice: ui.notice.text.clone(),
        quit_armed: ui.quit_armed,
        selected: g.selected,
        offset: g.offset,
        rows_area: g.rows_area,
        turns,
        value: g.roster.clone(),
        pane: pane_of(g),
    }
}

/// The memo of a whole frame just painted from `model` and `ui` (`None`: the next frame is a
/// whole one too).
pub fn memo(model: &Model, ui: &Ui, ctx: &ProjectionCtx) -> Option<KeepersMemo> {
    let g = geometry(model, ui)?;
    let turns = turns(&g, ctx);
    Some(memo_of(&g, ui, turns))
}

/// A frame repainted in part after a change of the model: every cell but the kept lines'.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataPlan {
    /// Damaged rectangles of the frame: every line, but of a kept line only the detail pane's
    /// columns.
    pub rects: Vec<Rect>,
    /// The rows area's lines that keep their cells: the whole frame's painter leaves them
    /// alone (`ProjectionCtx::kept_roster_lines`).
    pub kept: KeptLines,
    /// The rows' lines moved first (rows added or removed above the ones kept: the kept lines
    /// are counted after the move), when the terminal moves lines and no pane covers them.
    pub scroll: Option<Scroll>,
}

/// The lines of the rows area that show, after the rows' lines moved by `by` (new line `L`
/// shows what old line `L + by` showed), the row they showed: the same slot, selected or not
/// as it was, with the same TURN text.
fn kept_lines(
    g: &Geometry<'_>,
    memo: &KeepersMemo,
    now: &[String],
    by: isize,
    same_value: bool,
    same_row: fn(&KeeperRowSlot, &KeeperRowSlot) -> bool,
) -> KeptLines {
    let mut kept = KeptLines::default();
    let height = g.rows_area.height as isize;
    for line in 0..height {
        let old_line = line + by;
        if !(0..height).contains(&old_line) {
            continue;
        }
        let (line, old_line) = (line as usize, old_line as usize);
        let (i, was) = (g.offset + line, memo.offset + old_line);
        let same = match (g.roster.rows.get(i), memo.value.rows.get(was)) {
            // Past the end of both rosters: an empty line both times.
            (None, None) => true,
            (Some(slot), Some(old)) => {
                (i == g.selected) == (was == memo.selected)
                    && now.get(line) == memo.turns.get(old_line)
                    && ((same_value && i == was) || same_row(slot, old))
            }
            _ => false,
        };
        if same {
            kept.insert(line);
        }
    }
    kept
}

/// How far the rows' lines moved when rows were added or removed above the window: the first
/// line (from the top, the middle and the bottom of the window) whose row stands on another
/// line of the old window gives the move, taken when it keeps more lines than no move does.
fn moved_lines(
    g: &Geometry<'_>,
    memo: &KeepersMemo,
    now: &[String],
    unmoved: usize,
    same_row: fn(&KeeperRowSlot, &KeeperRowSlot) -> bool,
) -> Option<(isize, KeptLines)> {
    let height = g.rows_area.height as usize;
    let old_rows = || memo.value.rows.iter().skip(memo.offset).take(height);
    for probe in [0, height / 2, height.saturating_sub(1)] {
        let Some(slot) = g.roster.rows.get(g.offset + probe) else {
            continue;
        };
        let Some(old_line) = old_rows().position(|old| same_row(slot, old)) else {
            continue;
        };
        let by = old_line as isize - probe as isize;
        if by == 0 {
            continue;
        }
        let kept = kept_lines(g, memo, now, by, false, same_row);
        if kept.len() > unmoved {
            return Some((by, kept));
        }
    }
    None
}

/// The frame `model` and `ui` paint now over the frame `memo` describes, painted from a
/// model that changed since (the frame `area`, its size and theme are the memo's), keeping the
/// roster lines whose row is painted from the same inputs — on the same line, or moved with
/// the terminal's lines when rows were added or removed above them and the terminal moves
/// lines (`scrolls`); `memo` is updated to the new frame. `None` when no line can be kept: a
/// whole frame. `same_row` says whether two slots paint the same row (`PartialEq`: by
/// content; the tests put a guess in its place to show a stale line is caught).
pub fn plan_data(
    memo: &mut KeepersMemo,
    model: &Model,
    ui: &Ui,
    ctx: &ProjectionCtx,
    area: Rect,
    scrolls: bool,
    same_row: fn(&KeeperRowSlot, &KeeperRowSlot) -> bool,
) -> Option<DataPlan> {
    let g = geometry(model, ui)?;
    let pane = pane_of(&g);
    if g.rows_area != memo.rows_area || pane != memo.pane || pane == Some(g.body) {
        return None;
    }
    let now = turns(&g, ctx);
    let same_value = Arc::ptr_eq(g.roster, &memo.value);
    let mut kept = kept_lines(&g, memo, &now, 0, same_value, same_row);
    let mut scroll = None;
    // Rows added or removed above the window move every row below them: the lines move with
    // the terminal's (a pane over the rows would move with them: then nothing moves).
    let height = g.rows_area.height as usize;
    if scrolls
        && pane.is_none()
        && !same_value
        && kept.len() < height
        && let Some((by, moved)) = moved_lines(&g, memo, &now, kept.len(), same_row)
    {
        let lines = Scroll {
            top: g.rows_area.y,
            bottom: g.rows_area.bottom(),
            by: by as i16,
        };
        if lines.fits(area) {
            scroll = Some(lines);
            kept = moved;
        }
    }
    if kept.is_empty() {
        return None;
    }
    let mut rects = Vec::with_capacity(area.height as usize);
    for y in area.top()..area.bottom() {
        let kept_line = (g.rows_area.top()..g.rows_area.bottom()).contains(&y)
            && kept.contains(usize::from(y - g.rows_area.y));
        if !kept_line {
            rects.push(Rect::new(area.x, y, area.width, 1));
            continue;
        }
        // The kept line's cells beside the rows area and under the pane are repainted.
        if g.rows_area.x > area.x {
            rects.push(Rect::new(area.x, y, g.rows_area.x - area.x, 1));
        }
        if g.rows_area.right() < area.right() {
            rects.push(Rect::new(
                g.rows_area.right(),
                y,
                area.right() - g.rows_area.right(),
                1,
            ));
        }
        if let Some(p) = pane.filter(|p| (p.top()..p.bottom()).contains(&y)) {
            rects.push(Rect::new(p.x, y, p.width, 1));
        }
    }
    *memo = memo_of(&g, ui, now);
    Some(DataPlan {
        rects,
        kept,
        scroll,
    })
}

/// A damaged frame: the cells to repaint and what to paint into them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// Damaged rectangles of the frame (title row, rows, pane).
    pub rects: Vec<Rect>,
    /// The rows' lines moved first, when the scroll offset moved by less than a page and the
    /// terminal moves lines (then only the rows brought in and the changed ones are damaged).
    pub scroll: Option<Scroll>,
    /// Roster rows (by index) to repaint.
    rows: Vec<usize>,
}

/// The damaged frame that brings the frame `memo` describes to what `model` and `ui` paint now,
/// with `memo` updated to it; `None` when only a whole frame can. The caller has checked that
/// the model, the frame size and the theme are those of the memo; `scrolls`: the terminal
/// moves lines ([`Scroll`]).
pub fn plan(
    memo: &mut KeepersMemo,
    model: &Model,
    ui: &Ui,
    ctx: &ProjectionCtx,
    scrolls: bool,
) -> Option<Plan> {
    let g = geometry(model, ui)?;
    if ui.notice.text != memo.notice || ui.quit_armed != memo.quit_armed {
        return None;
    }
    // The same roster state but for the moves a damaged frame repaints.
    let mut moved = memo.roster.clone();
    moved.selected = g.keepers.roster.selected;
    moved.offset = g.keepers.roster.offset;
    moved.detail.scroll = g.keepers.roster.detail.scroll;
    if moved.detail.logs.is_some() && g.keepers.roster.detail.logs.is_some() {
        // The logs' scroll (opening or closing them is not a move).
        moved.detail.logs = g.keepers.roster.detail.logs;
    }
    if moved != g.keepers.roster || g.rows_area != memo.rows_area {
        return None;
    }
    let title = Rect::new(g.body.x, g.body.y, g.body.width, 1);
    let pane = pane_of(&g);
    let mut rects = vec![title];
    // The line follows the selection and reads the clock (a due time): repainted each time.
    rects.extend(g.wait_line.as_ref().map(|(row, _)| *row));
    let mut rows = Vec::new();
    let mut scroll = None;
    let now = turns(&g, ctx);
    let page = now.len();
    if page != memo.turns.len() {
        return None;
    }
    if pane != Some(g.body) {
        let moved_by = g.offset as isize - memo.offset as isize;
        let window = g.offset..g.offset + page;
        if moved_by.unsigned_abs() >= page || (moved_by != 0 && (pane.is_some() || !scrolls)) {
            // Every row is another one.
            rows.extend(window.clone());
        } else {
            if moved_by != 0 {
                // The rows kept on screen move with the terminal's lines; the ones brought in
                // are painted.
                scroll = Some(Scroll {
                    top: g.rows_area.y,
                    bottom: g.rows_area.bottom(),
                    by: moved_by as i16,
                });
                let brought_in = moved_by.unsigned_abs();
                if moved_by > 0 {
                    rows.extend(window.end - brought_in..window.end);
                } else {
                    rows.extend(window.start..window.start + brought_in);
                }
            }
            // Rows whose TURN age text is not the one on screen (the clock moved).
            let then = memo.offset..memo.offset + page;
            rows.extend(
                window.clone().filter(|i| {
                    then.contains(i) && now[i - g.offset] != memo.turns[i - memo.offset]
                }),
            );
            if g.selected != memo.selected {
                rows.extend([memo.selected, g.selected]);
            }
        }
        rows.retain(|i| window.contains(i));
        rows.sort_unstable();
        rows.dedup();
        for &i in &rows {
            let y = g.rows_area.y + (i - g.offset) as u16;
            rects.push(Rect::new(g.rows_area.x, y, g.rows_area.width, 1));
        }
    }
    rects.extend(pane);
    memo.roster = g.keepers.roster.clone();
    memo.selected = g.selected;
    memo.offset = g.offset;
    memo.turns = now;
    memo.pane = pane;
    Some(Plan {
        rects,
        scroll,
        rows,
    })
}

/// Paints `plan` into the kept frame (its damaged cells reset), as `render` paints them.
pub fn paint(plan: &Plan, model: &Model, ui: &Ui, ctx: &ProjectionCtx, buf: &mut Buffer) {
    let Some(g) = geometry(model, ui) else {
        return;
    };
    let fetched = &model.keepers.roster.fetched;
    if let Some(value) = fetched.last() {
        // `geometry` refuses a stale roster: a damaged frame never follows one.
        title_line(value, fetched, waiting::title_note(model), None, ctx)
            .render(Rect::new(g.body.x, g.body.y, g.body.width, 1), buf);
    }
    if !plan.rows.is_empty() {
        paint::paint_rows(
            &g.keepers.paint,
            g.roster,
            g.offset,
            g.rows_area.height as usize,
            g.selected,
            Columns::for_width(g.rows_area.width as usize),
            ctx,
            g.rows_area,
            Some(&plan.rows),
            buf,
        );
    }
    if let Some((row, name)) = &g.wait_line {
        waiting::render_line(model, name, ctx, *row, buf);
    }
    if g.keepers.roster.detail_open
        && let Some(slot) = g.roster.rows.get(g.selected)
    {
        render_detail(
            model,
            Some(slot),
            slot_name(slot),
            &g.keepers.roster.detail,
            ctx,
            g.body,
            buf,
        );
    }
}
