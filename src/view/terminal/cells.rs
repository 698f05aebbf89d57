//! Painting text into the ratatui buffer by the terminal's cell rule (C-70, C-71).
//!
//! ratatui places a grapheme cluster by `unicode-width` of the whole cluster (`👍🏽` = 2 cells)
//! while a terminal advances scalar by scalar (`👍🏽` = 4 cells). Painted as ratatui places it,
//! the next cell is written where the terminal still draws the modifier, and the modifier
//! vanishes from the screen (C-70, T.7: reproduced in a PTY). These setters place
//! every cluster at [`grapheme_width`] cells and, where that differs from ratatui's width, give
//! the cell a forced width so the buffer diff skips exactly the cells the terminal covers.

use crate::view::text::grapheme_width;
use ratatui::buffer::{Buffer, CellDiffOption};
use ratatui::style::Style;
use ratatui::text::Line;
use std::num::NonZeroU16;
use unicode_segmentation::UnicodeSegmentation;
use unicode_width::UnicodeWidthStr;

/// Writes `text` at (`x`, `y`) within `max` cells (and the buffer's area); returns the cell
/// after the last one written. Control characters and zero-width clusters are skipped, as
/// ratatui's `set_stringn` does; a cluster that does not fit whole is not written (C-71).
pub fn put_str(buf: &mut Buffer, x: u16, y: u16, text: &str, max: usize, style: Style) -> u16 {
    let area = buf.area;
    if y < area.top() || y >= area.bottom() || x < area.left() {
        return x;
    }
    let limit = usize::from(area.right().saturating_sub(x)).min(max);
    if crate::view::text::is_printable_ascii(text) {
        // Printable ASCII is one cluster of one cell per byte (as segmented below:
        // tested), so it needs no segmentation — most of a roster row's cells are padding.
        let n = text.len().min(limit);
        if n == 0 {
            return x;
        }
        let start = buf.index_of(x, y);
        for (cell, byte) in buf.content[start..start + n].iter_mut().zip(text.bytes()) {
            crate::view::terminal::cell_copy::set_symbol_byte(cell, byte);
            cell.set_style(style);
            cell.set_diff_option(CellDiffOption::None);
        }
        return x.saturating_add(u16::try_from(n).unwrap_or(u16::MAX));
    }
    put_clusters(buf, x, y, text, limit, style)
}

/// [`put_str`] cluster by cluster, within `limit` cells (the area's already counted).
fn put_clusters(buf: &mut Buffer, x: u16, y: u16, text: &str, limit: usize, style: Style) -> u16 {
    let area = buf.area;
    let mut used = 0usize;
    let mut cx = x;
    for g in text.graphemes(true) {
        if g.contains(char::is_control) {
            continue;
        }
        let w = grapheme_width(g);
        if w == 0 {
            continue;
        }
        if used + w > limit {
            break;
        }
        let cell = &mut buf[(cx, y)];
        cell.set_symbol(g).set_style(style);
        let native = g.width();
        let forced = (native != w)
            .then(|| u16::try_from(w).ok().and_then(NonZeroU16::new))
            .flatten();
        cell.set_diff_option(forced.map_or(CellDiffOption::None, CellDiffOption::ForcedWidth));
        for k in 1..w {
            let hidden = cx.saturating_add(u16::try_from(k).unwrap_or(u16::MAX));
            if hidden < area.right() {
                // Covered by the cluster, never written while it stands; marked so that the
                // frame after it differs here and rewrites the cell (a terminal that drew the
                // cluster's scalars apart keeps each until its own cell is written).
                let covered = &mut buf[(hidden, y)];
                covered.reset();
                covered.set_diff_option(CellDiffOption::Skip);
            }
        }
        used += w;
        cx = cx.saturating_add(u16::try_from(w).unwrap_or(u16::MAX));
    }
    cx
}

/// [`put_str`] for each span of `line` (the line's style under each span's), within `max`
/// cells; returns the cell after the last one written.
pub fn put_line(buf: &mut Buffer, x: u16, y: u16, line: &Line<'_>, max: u16) -> u16 {
    let mut cx = x;
    let end = x.saturating_add(max);
    for span in &line.spans {
        if cx >= end {
            break;
        }
        let style = line.style.patch(span.style);
        cx = put_str(buf, cx, y, &span.content, usize::from(end - cx), style);
    }
    cx
}

/// [`Line`]'s own `render`, by the terminal's cell rule: the line's style over `area`'s first
/// row, the line aligned as it asks (measured by [`crate::view::text::display_width`]), each
/// cluster placed by [`put_str`]. Screens whose columns are padded by the terminal's rule
/// (`pad_to`, `fit_width`) paint their rows with it, so a cell after a wide cluster stands
/// where the padding put it (T.7, C-70).
pub fn render_line(line: &Line<'_>, area: ratatui::layout::Rect, buf: &mut Buffer) {
    let area = area.intersection(buf.area);
    if area.is_empty() {
        return;
    }
    let row = ratatui::layout::Rect { height: 1, ..area };
    buf.set_style(row, line.style);
    let width: usize = line
        .spans
        .iter()
        .map(|s| crate::view::text::display_width(&s.content))
        .sum();
    let slack = usize::from(area.width).saturating_sub(width);
    let offset = match line.alignment {
        Some(ratatui::layout::Alignment::Center) => slack / 2,
        Some(ratatui::layout::Alignment::Right) => slack,
        _ => 0,
    };
    let offset = u16::try_from(offset).unwrap_or(0);
    put_line(buf, area.x + offset, area.y, line, area.width - offset);
}

/// [`render_line`] for each of `lines`, one per row of `area` (no wrapping: a
/// `Paragraph` without `Wrap`).
pub fn render_lines<'a>(
    lines: impl IntoIterator<Item = &'a Line<'a>>,
    area: ratatui::layout::Rect,
    buf: &mut Buffer,
) {
    for (line, y) in lines.into_iter().zip(area.top()..area.bottom()) {
        render_line(
            line,
            ratatui::layout::Rect {
                y,
                height: 1,
                ..area
            },
            buf,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::backend::TestBackend;
    use ratatui::buffer::Cell;
    use ratatui::layout::Rect;

    const THUMBS_MEDIUM: &str = "\u{1F44D}\u{1F3FD}";

    /// C-70, T.7: `👍🏽` takes 4 cells and the text after it starts at the 5th, so a terminal
    /// that advances scalar by scalar never has the modifier overwritten; the buffer diff
    /// writes the cluster once and skips the 3 cells it covers.
    #[test]
    fn c70_t7_a_skin_tone_cluster_takes_four_cells_and_keeps_its_modifier() {
        let mut buf = Buffer::empty(Rect::new(0, 0, 12, 1));
        let end = put_str(
            &mut buf,
            0,
            0,
            &format!("a{THUMBS_MEDIUM}b"),
            12,
            Style::default(),
        );
        assert_eq!(end, 6);
        assert_eq!(buf[(1, 0)].symbol(), THUMBS_MEDIUM);
        assert_eq!(buf[(5, 0)].symbol(), "b");
        let before = Buffer::empty(buf.area);
        let updates: Vec<(u16, String)> = before
            .diff(&buf)
            .into_iter()
            .map(|(x, _, c)| (x, c.symbol().to_string()))
            .collect();
        assert_eq!(
            updates,
            vec![(0, "a".into()), (1, THUMBS_MEDIUM.into()), (5, "b".into())]
        );
        // Through a backend as well: the same cells.
        let mut term = ratatui::Terminal::new(TestBackend::new(12, 1)).unwrap_or_else(|e| {
            panic!("{e}");
        });
        term.draw(|f| {
            put_str(
                f.buffer_mut(),
                0,
                0,
                &format!("a{THUMBS_MEDIUM}b"),
                12,
                Style::default(),
            );
        })
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(term.backend().buffer()[(1, 0)].symbol(), THUMBS_MEDIUM);
    }

    /// C-71: a cluster that does not fit whole is not written; a text-default heart with VS16
    /// takes one cell, as the terminal gives it.
    #[test]
    fn c71_a_cluster_never_overflows_and_vs16_hearts_take_one_cell() {
        let mut buf = Buffer::empty(Rect::new(0, 0, 6, 1));
        let end = put_str(
            &mut buf,
            0,
            0,
            &format!("ab{THUMBS_MEDIUM}"),
            5,
            Style::default(),
        );
        assert_eq!(end, 2);
        assert_eq!(buf[(2, 0)], Cell::default());
        let end = put_str(&mut buf, 0, 0, "\u{2764}\u{FE0F}x", 6, Style::default());
        assert_eq!(end, 2);
        assert_eq!(buf[(1, 0)].symbol(), "x");
    }

    /// T.7, C-70: a rendered line pads and aligns by the terminal's rule — the cell after
    /// `👍🏽` stands 4 cells on, a right-aligned line ends at the area's edge, the line's style
    /// covers the row.
    #[test]
    fn c70_render_line_places_and_aligns_by_the_terminal_rule() {
        use ratatui::layout::Alignment;
        use ratatui::style::Color;
        let area = Rect::new(0, 0, 10, 1);
        let mut buf = Buffer::empty(area);
        let line = Line::from(format!("{THUMBS_MEDIUM}x")).style(Style::default().bg(Color::Blue));
        render_line(&line, area, &mut buf);
        assert_eq!(buf[(0, 0)].symbol(), THUMBS_MEDIUM);
        assert_eq!(buf[(4, 0)].symbol(), "x");
        assert_eq!(buf[(9, 0)].bg, Color::Blue);
        let mut buf = Buffer::empty(area);
        render_line(&line.clone().alignment(Alignment::Right), area, &mut buf);
        assert_eq!(buf[(5, 0)].symbol(), THUMBS_MEDIUM);
        assert_eq!(buf[(9, 0)].symbol(), "x");
        let mut buf = Buffer::empty(Rect::new(0, 0, 10, 3));
        let lines = [
            Line::from("a"),
            Line::from(THUMBS_MEDIUM),
            Line::from("c"),
            Line::from("d"),
        ];
        render_lines(lines.iter(), Rect::new(0, 0, 10, 3), &mut buf);
        assert_eq!(buf[(0, 2)].symbol(), "c");
    }

    /// Printable ASCII written byte by byte is what writing it cluster by cluster
    /// writes — every printable ASCII character, alone and in runs, at several positions and
    /// limits, over cells that held wide clusters, forced widths and skips.
    #[test]
    fn printable_ascii_is_written_as_its_clusters_are() {
        let all: String = (0x20u8..0x7f).map(char::from).collect();
        let mut texts: Vec<String> = all.chars().map(String::from).collect();
        texts.extend([
            all.clone(),
            "keeper-0001   ".into(),
            " ".repeat(40),
            "a b  c".into(),
            String::new(),
        ]);
        let area = Rect::new(1, 1, 30, 2);
        let style = Style::default()
            .fg(ratatui::style::Color::Red)
            .add_modifier(ratatui::style::Modifier::BOLD);
        let dirty = || {
            let mut b = Buffer::empty(area);
            put_str(
                &mut b,
                1,
                1,
                &format!("한{THUMBS_MEDIUM}x❤️가나다라마바사아자차카"),
                30,
                Style::default().bg(ratatui::style::Color::Blue),
            );
            b
        };
        for text in &texts {
            for (x, max) in [
                (1u16, 30usize),
                (3, 5),
                (29, 30),
                (30, 30),
                (31, 30),
                (5, 0),
                (1, 200),
            ] {
                let mut fast = dirty();
                let mut slow = dirty();
                let limit = usize::from(area.right().saturating_sub(x)).min(max);
                let a = put_str(&mut fast, x, 1, text, max, style);
                let b = put_clusters(&mut slow, x, 1, text, limit, style);
                assert_eq!((a, &fast), (b, &slow), "{text:?} at {x} within {max}");
            }
        }
    }

    /// The frame after a 4-cell cluster rewrites every cell it covered: a terminal that drew
    /// `👍` and `🏽` apart would otherwise keep the modifier when the row changes.
    #[test]
    fn c70_the_frame_after_a_cluster_rewrites_the_cells_it_covered() {
        let area = Rect::new(0, 0, 8, 1);
        let mut shown = Buffer::empty(area);
        put_str(&mut shown, 0, 0, THUMBS_MEDIUM, 8, Style::default());
        let mut next = Buffer::empty(area);
        put_str(&mut next, 0, 0, "abc", 8, Style::default());
        let xs: Vec<u16> = shown.diff(&next).into_iter().map(|(x, _, _)| x).collect();
        assert_eq!(xs, vec![0, 1, 2, 3]);
    }
}
