//! Visual rows of the draft at a given width in display cells (C-70, C-71).
//!
//! Each logical line (split on `\n`) is wrapped grapheme by grapheme; a wide grapheme that does
//! not fit the rest of a row moves whole to the next row (never split). Widths are the ones
//! the ratatui buffer paints with ([`crate::view::text::grapheme_width`]), so the cursor cell
//! computed here is where the terminal shows it.

use crate::view::text::grapheme_width;
use unicode_segmentation::UnicodeSegmentation;

/// One painted row: a byte range of the text (never holding the `\n`) and its width in cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VisualRow {
    pub start: usize,
    pub end: usize,
    pub cells: usize,
}

/// The cursor in rows and cells of a [`VisualLayout`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CursorCell {
    pub row: usize,
    pub x: usize,
}

/// The rows of a text at one width.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VisualLayout {
    pub width: usize,
    pub rows: Vec<VisualRow>,
}

impl VisualLayout {
    /// Wraps `text` at `width` cells (a width of 0 is treated as 1 so nothing loops).
    pub fn new(text: &str, width: usize) -> Self {
        let width = width.max(1);
        let mut rows = Vec::new();
        let mut line_start = 0;
        for line in text.split('\n') {
            let mut row_start = line_start;
            let mut cells = 0;
            for (i, g) in line.grapheme_indices(true) {
                let w = grapheme_width(g);
                if cells + w > width && cells > 0 {
                    rows.push(VisualRow {
                        start: row_start,
                        end: line_start + i,
                        cells,
                    });
                    row_start = line_start + i;
                    cells = 0;
                }
                cells += w;
            }
            rows.push(VisualRow {
                start: row_start,
                end: line_start + line.len(),
                cells,
            });
            line_start += line.len() + 1;
        }
        Self { width, rows }
    }

    /// The row and cell of byte offset `at` (a grapheme boundary). An offset at the end of a
    /// row that is followed by a wrapped continuation belongs to the continuation; a cursor
    /// after a completely full last row of a line sits on a row of its own (`x = 0`, the row
    /// after), so it is always inside the width.
    pub fn cursor_cell(&self, text: &str, at: usize) -> CursorCell {
        let mut found = CursorCell { row: 0, x: 0 };
        for (row_index, row) in self.rows.iter().enumerate() {
            if at < row.start {
                break;
            }
            if at <= row.end {
                let continued = self
                    .rows
                    .get(row_index + 1)
                    .is_some_and(|next| next.start == row.end);
                if at == row.end && continued {
                    continue;
                }
                let x = text
                    .get(row.start..at)
                    .map_or(0, |s| s.graphemes(true).map(grapheme_width).sum());
                found = if x >= self.width {
                    CursorCell {
                        row: row_index + 1,
                        x: 0,
                    }
                } else {
                    CursorCell { row: row_index, x }
                };
                break;
            }
        }
        found
    }

    /// Rows to paint including a cursor that sits past a full last row.
    pub fn rows_with_cursor(&self, cursor: CursorCell) -> usize {
        self.rows.len().max(cursor.row + 1)
    }

    /// The byte offset in `row` whose cell offset is the largest one ≤ `x` (Up/Down keep the
    /// goal column; a wide grapheme is never entered half-way).
    pub fn offset_at(&self, text: &str, row: usize, x: usize) -> Option<usize> {
        let r = self.rows.get(row)?;
        let mut cells = 0;
        let mut at = r.start;
        for (i, g) in text.get(r.start..r.end)?.grapheme_indices(true) {
            let w = grapheme_width(g);
            if cells + w > x {
                return Some(r.start + i);
            }
            cells += w;
            at = r.start + i + g.len();
        }
        // The end of a wrapped row is the start of the next: stay before its last grapheme so
        // the cursor stays on this row.
        let continued = self.rows.get(row + 1).is_some_and(|n| n.start == r.end);
        if continued && at == r.end && at > r.start {
            let last = text
                .get(r.start..r.end)?
                .grapheme_indices(true)
                .next_back()
                .map_or(r.start, |(i, _)| r.start + i);
            return Some(last);
        }
        Some(at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c71_wide_graphemes_move_whole_to_the_next_row() {
        // 5 cells wide: "ab" (2) + "한" (2) = 4, next "글" (2) does not fit the 1 left.
        let text = "ab한글";
        let l = VisualLayout::new(text, 5);
        assert_eq!(l.rows.len(), 2);
        assert_eq!(&text[l.rows[0].start..l.rows[0].end], "ab한");
        assert_eq!(l.rows[0].cells, 4);
        assert_eq!(&text[l.rows[1].start..l.rows[1].end], "글");
    }

    #[test]
    fn c70_cursor_cells_count_display_width() {
        let text = "A한🙂e\u{301}";
        let l = VisualLayout::new(text, 40);
        assert_eq!(l.cursor_cell(text, text.len()), CursorCell { row: 0, x: 6 });
        assert_eq!(
            l.cursor_cell(text, "A한".len()),
            CursorCell { row: 0, x: 3 }
        );
    }

    #[test]
    fn newline_rows_and_full_row_cursor() {
        let text = "abcd\nxy";
        let l = VisualLayout::new(text, 4);
        assert_eq!(l.rows.len(), 2);
        // After "abcd" (full row of 4): the cursor gets its own cell on the next row.
        let c = l.cursor_cell(text, 4);
        assert_eq!(c, CursorCell { row: 1, x: 0 });
        assert_eq!(l.cursor_cell(text, text.len()), CursorCell { row: 1, x: 2 });
        // Wrapped: "abcdef" at 4 → "abcd" | "ef"; offset 4 belongs to the continuation.
        let w = VisualLayout::new("abcdef", 4);
        assert_eq!(w.cursor_cell("abcdef", 4), CursorCell { row: 1, x: 0 });
    }

    #[test]
    fn offset_at_never_enters_a_wide_grapheme() {
        let text = "한글날\nabcdef";
        let l = VisualLayout::new(text, 20);
        assert_eq!(l.offset_at(text, 0, 3), Some("한".len()));
        assert_eq!(l.offset_at(text, 0, 4), Some("한글".len()));
        assert_eq!(l.offset_at(text, 0, 99), Some("한글날".len()));
        assert_eq!(l.offset_at(text, 1, 2), Some("한글날\nab".len()));
    }
}
