//! Keepers frames repainted in part (issue 15).
//!
//! A whole frame of the roster copies 11,000 kept cells into a reset 200×60 buffer and diffs
//! all 12,000 against the last frame; a `j` changes two rows. After a whole Keepers frame the
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

use super::super::widgets::effective_offset;
use super::super::{ProjectionCtx, RosterUi, Tab, Ui, body_area};
use super::{Columns, detail_pane, ops, paint, render_detail, title_line};
use crate::protocol::keepers::KeeperRoster;
use crate::view::model::Model;
use crate::view::presenter::Scroll;
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
}

/// The frame's roster geometry, when the frame is one a damaged frame may follow.
struct Geometry<'a> {
    roster: &'a Arc<KeeperRoster>,
    body: Rect,
    rows_area: Rect,
    selected: usize,
    offset: usize,
}

fn geometry<'a>(model: &'a Model, ui: &Ui) -> Option<Geometry<'a>> {
    if ui.tab != Tab::Keepers
        || ui.chat.is_some()
        || ui.approvals.is_some()
        || ui.help_open
        || ui.too_small()
        || ui.roster.picker.is_some()
    {
        return None;
    }
    let roster = &model.keepers.roster.fetched.last()?.value;
    let body = body_area(ui.area);
    let len = roster.rows.len();
    if len == 0 || body.height < 3 {
        return None;
    }
    let selected = ui.roster.selected.min(len - 1);
    // The operation line follows the selection and takes the last row (`render`).
    if ops::row_name(model, selected).is_some_and(|name| ops::has_line(model, &name)) {
        return None;
    }
    let rows_area = Rect::new(body.x, body.y + 2, body.width, body.height - 2);
    let offset = effective_offset(selected, ui.roster.offset, rows_area.height as usize, len);
    Some(Geometry {
        roster,
        body,
        rows_area,
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

/// The memo of a whole frame just painted from `model` and `ui` (`None`: the next frame is a
/// whole one too).
pub fn memo(model: &Model, ui: &Ui, ctx: &ProjectionCtx) -> Option<KeepersMemo> {
    let g = geometry(model, ui)?;
    Some(KeepersMemo {
        roster: ui.roster.clone(),
        notice: ui.notice.clone(),
        quit_armed: ui.quit_armed,
        selected: g.selected,
        offset: g.offset,
        rows_area: g.rows_area,
        turns: turns(&g, ctx),
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
    if ui.notice != memo.notice || ui.quit_armed != memo.quit_armed {
        return None;
    }
    // The same roster state but for the moves a damaged frame repaints.
    let mut moved = memo.roster.clone();
    moved.selected = ui.roster.selected;
    moved.offset = ui.roster.offset;
    moved.detail.scroll = ui.roster.detail.scroll;
    if moved.detail.logs.is_some() && ui.roster.detail.logs.is_some() {
        // The logs' scroll (opening or closing them is not a move).
        moved.detail.logs = ui.roster.detail.logs;
    }
    if moved != ui.roster || g.rows_area != memo.rows_area {
        return None;
    }
    let title = Rect::new(g.body.x, g.body.y, g.body.width, 1);
    let pane = ui
        .roster
        .detail_open
        .then(|| detail_pane(g.body, &ui.roster.detail));
    let mut rects = vec![title];
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
    memo.roster = ui.roster.clone();
    memo.selected = g.selected;
    memo.offset = g.offset;
    memo.turns = now;
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
        title_line(value, fetched, ctx).render(Rect::new(g.body.x, g.body.y, g.body.width, 1), buf);
    }
    if !plan.rows.is_empty() {
        paint::paint_rows(
            &ui.roster_paint,
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
    if ui.roster.detail_open
        && let Some(slot) = g.roster.rows.get(g.selected)
    {
        render_detail(model, slot, &ui.roster.detail, ctx, g.body, buf);
    }
}
