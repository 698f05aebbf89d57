//! Painting frames into a kept frame, so no buffer is allocated per frame and a surface may
//! repaint only the cells whose inputs changed.
//!
//! The view paints each frame into a reused buffer (the presenter's spare, reset instead of
//! allocated) and presents its difference from the last frame. After a whole frame of a
//! surface that can repaint part of itself (the Keepers roster: `screens::keepers::roster::retain`),
//! the painter keeps a memo of what the frame was painted from; while the model is unchanged
//! ([`Tracked`]: every mutable access counts) and the frame's size and theme are the same, the
//! surface may repaint only the cells whose inputs changed, in the kept frame itself. After a
//! change of the model (a roster re-read, any other source's data, a clock-driven badge) with
//! the same size and theme, the surface may keep the lines whose inputs it can compare (the
//! roster rows: `retain::plan_data`; moved with the terminal's lines first when rows were
//! added or removed above them) and repaint every other cell with the whole frame's painter.
//! A forced frame, a resize, a write error, an overlay, a screen switch, an editor
//! hand-back or a workspace switch paints a whole frame.

use super::model::Model;
use super::screens::{self, ProjectionCtx, Ui, keepers::roster::retain};
use super::terminal::presenter::{Damage, FrameSink, FrameStats, Presenter};
use super::theme::Theme;
pub use super::tracked::Tracked;
use crate::protocol::keepers::KeeperRowSlot;
use ratatui::layout::Rect;
use std::io;

/// What the last whole frame was painted from.
#[derive(Debug)]
struct Memo {
    changes: u64,
    area: Rect,
    theme: Theme,
    keepers: retain::KeepersMemo,
}

/// Paints frames for one presenter, whole or in part (see the module).
#[derive(Debug)]
pub struct FramePainter {
    memo: Option<Memo>,
    /// Whether two roster slots paint the same row: by content (the tests put a guess here to
    /// show the comparison catches a stale line).
    same_row: fn(&KeeperRowSlot, &KeeperRowSlot) -> bool,
}

impl Default for FramePainter {
    fn default() -> Self {
        Self {
            memo: None,
            same_row: PartialEq::eq,
        }
    }
}

/// How a frame was painted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Painted {
    pub stats: FrameStats,
    /// Only part of the frame was repainted.
    pub damaged: bool,
}

impl FramePainter {
    /// Forgets the kept frame's memo: the next frame is a whole one.
    pub fn forget(&mut self) {
        self.memo = None;
    }

    /// Paints and presents the frame `model` (whose change count is `changes`) and `ui` show.
    pub fn paint<B: FrameSink>(
        &mut self,
        presenter: &mut Presenter<B>,
        model: &Model,
        changes: u64,
        ui: &Ui,
        ctx: &ProjectionCtx,
    ) -> io::Result<Painted> {
        let area = ui.area;
        let scrolls = presenter.scrolls();
        if let Some(memo) = self.memo.as_mut()
            && memo.area == area
            && memo.theme == ctx.theme
            && presenter.retains(area)
        {
            let presented = if memo.changes == changes {
                // Only the UI (or the clock) moved.
                retain::plan(&mut memo.keepers, model, ui, ctx, scrolls).map(|plan| {
                    let damage = Damage::of(area, &plan.rects);
                    presenter.present_damaged(&damage, plan.scroll, None, |buf| {
                        retain::paint(&plan, model, ui, ctx, buf)
                    })
                })
            } else {
                // The model changed: every cell but the roster lines that show the same row.
                retain::plan_data(
                    &mut memo.keepers,
                    model,
                    ui,
                    ctx,
                    area,
                    scrolls,
                    self.same_row,
                )
                .map(|plan| {
                    let damage = Damage::of(area, &plan.rects);
                    let ctx = ProjectionCtx {
                        kept_roster_lines: plan.kept,
                        ..*ctx
                    };
                    // The frames a memo is kept for show no cursor (no chat).
                    presenter.present_damaged(&damage, plan.scroll, None, |buf| {
                        screens::render_with_cursor(model, ui, &ctx, area, buf);
                    })
                })
            };
            match presented {
                Some(Ok(stats)) => {
                    memo.changes = changes;
                    return Ok(Painted {
                        stats,
                        damaged: true,
                    });
                }
                // The presenter's next frame is a whole one (after a write error, or a
                // damaged frame it could not keep): paint it now.
                Some(Err(err)) => {
                    tracing::debug!(target: "masc_tui::view", error = %err, "damaged frame not presented; painting a whole one")
                }
                None => {}
            }
        }
        self.memo = None;
        let buf = presenter.frame_buffer(area);
        let cursor = screens::render_with_cursor(model, ui, ctx, area, buf);
        let stats = presenter.present_frame(cursor)?;
        self.memo = retain::memo(model, ui, ctx).map(|keepers| Memo {
            changes,
            area,
            theme: ctx.theme,
            keepers,
        });
        Ok(Painted {
            stats,
            damaged: false,
        })
    }
}

#[cfg(test)]
mod tests;
