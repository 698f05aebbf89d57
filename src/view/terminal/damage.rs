//! The part of a kept frame a damaged frame repaints, as row spans, and the
//! difference of two versions of one span for the presenter.
//!
//! [`diff_span`] is ratatui's `BufferDiff` (ratatui-core 0.1) over one row span: the same
//! cells are written for the same change, so a span whose painter does not cut a wide
//! character at its edges writes what the whole-frame difference writes there.

use ratatui::buffer::{Cell, CellDiffOption, CellWidth};
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier};
use std::ops::Range;

/// Columns `x0..x1` of row `y`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub y: u16,
    pub x0: u16,
    pub x1: u16,
}

impl Span {
    /// The span's cells in the content of a buffer of `area` (which holds it).
    pub fn range(&self, area: Rect) -> Range<usize> {
        let row = (self.y - area.y) as usize * area.width as usize;
        row + (self.x0 - area.x) as usize..row + (self.x1 - area.x) as usize
    }
}

/// A set of cells of one frame: rows of disjoint spans, in row and column order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Damage {
    spans: Vec<Span>,
}

impl Damage {
    /// The cells of `rects`, each clipped to `area`.
    pub fn of(area: Rect, rects: &[Rect]) -> Self {
        let mut spans: Vec<Span> = Vec::new();
        for rect in rects {
            let r = rect.intersection(area);
            if r.is_empty() {
                continue;
            }
            for y in r.top()..r.bottom() {
                spans.push(Span {
                    y,
                    x0: r.left(),
                    x1: r.right(),
                });
            }
        }
        spans.sort_by_key(|s| (s.y, s.x0));
        let mut merged: Vec<Span> = Vec::with_capacity(spans.len());
        for s in spans {
            match merged.last_mut() {
                Some(last) if last.y == s.y && s.x0 <= last.x1 => last.x1 = last.x1.max(s.x1),
                _ => merged.push(s),
            }
        }
        Self { spans: merged }
    }

    pub fn spans(&self) -> &[Span] {
        &self.spans
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// Whether the cell at (`x`, `y`) is damaged.
    pub fn contains(&self, x: u16, y: u16) -> bool {
        self.spans
            .iter()
            .any(|s| s.y == y && (s.x0..s.x1).contains(&x))
    }
}

/// Modifiers that are visible on a blank cell (as ratatui's diff).
const VISIBLE_ON_BLANK: Modifier = Modifier::REVERSED
    .union(Modifier::UNDERLINED)
    .union(Modifier::SLOW_BLINK)
    .union(Modifier::RAPID_BLINK)
    .union(Modifier::CROSSED_OUT);

#[allow(deprecated)] // `Cell::skip`, still read by ratatui's own diff
fn is_skip(cell: &Cell) -> bool {
    matches!(cell.diff_option, CellDiffOption::Skip)
        || (cell.skip && matches!(cell.diff_option, CellDiffOption::None))
}

/// Appends the cells of `next` that differ from `prev` (the same span of two frames) with
/// their positions, as ratatui's buffer diff does for a whole frame.
pub fn diff_span<'a>(
    prev: &[Cell],
    next: &'a [Cell],
    span: Span,
    out: &mut Vec<(u16, u16, &'a Cell)>,
) {
    let len = prev.len().min(next.len());
    let at = |i: usize| (span.x0 + i as u16, span.y);
    let mut pos = 0;
    while pos < len {
        let i = pos;
        pos += 1;
        let current = &next[i];
        let previous = &prev[i];
        match current.diff_option {
            CellDiffOption::Skip => {}
            _ if is_skip(current) => {}
            CellDiffOption::ForcedWidth(width) => {
                pos = pos.saturating_add(width.get().saturating_sub(1) as usize);
                if current != previous {
                    let (x, y) = at(i);
                    out.push((x, y, current));
                }
            }
            CellDiffOption::None | CellDiffOption::AlwaysUpdate => {
                let width = current.cell_width() as usize;
                if matches!(current.diff_option, CellDiffOption::None) && current == previous {
                    pos += width.saturating_sub(1);
                    continue;
                }
                let previous_width = previous.cell_width() as usize;
                let (x, y) = at(i);
                out.push((x, y, current));
                let vs16 = width > 1 && current.symbol().chars().any(|c| c == '\u{FE0F}');
                // Trailing columns to write: an emoji with VS16 (only where the symbol changed,
                // for terminals that leave its trailing column), or the columns an old wide
                // character whose style shows on blanks covered (all of them).
                let trailing = if vs16 {
                    Some(((i + width).min(len), false))
                } else if width > 1 {
                    pos += width - 1;
                    None
                } else if previous_width > width
                    && (previous.bg != Color::Reset
                        || previous.modifier.intersects(VISIBLE_ON_BLANK))
                {
                    Some(((i + previous_width).min(len), true))
                } else {
                    None
                };
                if let Some((mut end, force)) = trailing {
                    let mut j = i + 1;
                    while j < end {
                        let k = j;
                        j += next[k].cell_width().max(1) as usize;
                        end = end.max(j).min(len);
                        if !is_skip(&next[k]) && (force || prev[k].symbol() != next[k].symbol()) {
                            let (x, y) = at(k);
                            out.push((x, y, &next[k]));
                        }
                    }
                    pos = end;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::buffer::Buffer;
    use ratatui::style::Style;

    /// The span diff of every row of two buffers is ratatui's whole-buffer diff.
    #[test]
    fn span_diff_is_ratatuis_diff_row_by_row() {
        let area = Rect::new(0, 0, 12, 6);
        let rows_a = [
            "abc 한글 def",
            "🙂 x y z",
            "plain row",
            "❤️ wide",
            "가나다라마바",
            "",
        ];
        let rows_b = [
            "abc 한x def",
            "x 🙂 y z",
            "plain row",
            "a❤️ wide",
            "가a나다라마",
            "새 줄",
        ];
        let paint = |rows: &[&str], bg: bool| {
            let mut b = Buffer::empty(area);
            for (y, r) in rows.iter().enumerate() {
                let style = if bg && y == 4 {
                    Style::default().bg(Color::Blue)
                } else {
                    Style::default()
                };
                b.set_string(0, y as u16, r, style);
            }
            b
        };
        for (a, b) in [
            (paint(&rows_a, false), paint(&rows_b, false)),
            (paint(&rows_a, true), paint(&rows_b, false)),
            (paint(&rows_b, true), paint(&rows_a, true)),
            (paint(&rows_a, false), paint(&rows_a, false)),
        ] {
            let want: Vec<(u16, u16, Cell)> = a
                .diff(&b)
                .into_iter()
                .map(|(x, y, c)| (x, y, c.clone()))
                .collect();
            let mut got = Vec::new();
            let whole = Damage::of(area, &[area]);
            for span in whole.spans() {
                let r = span.range(area);
                diff_span(&a.content[r.clone()], &b.content[r], *span, &mut got);
            }
            let got: Vec<(u16, u16, Cell)> =
                got.into_iter().map(|(x, y, c)| (x, y, c.clone())).collect();
            assert_eq!(got, want);
        }
    }

    #[test]
    fn damage_merges_overlapping_rects_per_row() {
        let area = Rect::new(0, 0, 10, 5);
        let d = Damage::of(
            area,
            &[
                Rect::new(0, 1, 10, 1),
                Rect::new(5, 0, 5, 5),
                Rect::new(8, 4, 9, 3),
            ],
        );
        assert_eq!(
            d.spans(),
            &[
                Span {
                    y: 0,
                    x0: 5,
                    x1: 10
                },
                Span {
                    y: 1,
                    x0: 0,
                    x1: 10
                },
                Span {
                    y: 2,
                    x0: 5,
                    x1: 10
                },
                Span {
                    y: 3,
                    x0: 5,
                    x1: 10
                },
                Span {
                    y: 4,
                    x0: 5,
                    x1: 10
                },
            ]
        );
        assert!(d.contains(0, 1) && !d.contains(0, 2));
    }
}
