//! Markdown tables laid out as tables at the row width (C-69, C-70, C-71).
//!
//! The Markdown renderer keeps a table as cells of styled runs (width-independent, so the
//! rendered body stays memoisable); [`layout_table`] lays it out when the body is wrapped at a
//! known width. Columns share the width by water-filling: a column narrower than its fair share
//! keeps its natural width, the rest split what is left. Cells wrap inside their column with the
//! body's own wrapper (`wrap_cell`, given by [`super::wrap`]: a wide grapheme never split), and every cell is padded to its column by
//! terminal cells, so Korean and emoji columns align.

use super::run::Run;
use crate::view::text::display_width;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// Column alignment (from the delimiter row).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Align {
    #[default]
    Left,
    Center,
    Right,
}

/// A table as the Markdown renderer saw it: the header row, then body rows of cells.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Table {
    pub aligns: Vec<Align>,
    /// Rows of cells; the first `header_rows` rows are the header.
    pub rows: Vec<Vec<Vec<Run>>>,
    pub header_rows: usize,
    /// Style of the column separators and the header rule.
    pub chrome: Style,
}

/// Wraps one cell's runs to a column width, appending rows (the body wrapper).
pub type WrapCell<'a> = dyn Fn(&[Run], usize, &mut Vec<Line<'static>>) + 'a;

/// Between two columns: ` │ ` (3 cells).
const SEPARATOR: &str = " │ ";
const SEPARATOR_CELLS: usize = 3;

fn cell_width(runs: &[Run]) -> usize {
    runs.iter().map(|r| display_width(&r.text)).sum()
}

/// Column widths within `avail` cells (separators included in `avail`).
fn column_widths(natural: &[usize], avail: usize) -> Vec<usize> {
    let n = natural.len();
    if n == 0 {
        return Vec::new();
    }
    let budget = avail.saturating_sub(SEPARATOR_CELLS * (n - 1));
    if natural.iter().sum::<usize>() <= budget {
        return natural.iter().map(|w| (*w).max(1)).collect();
    }
    // Water-filling: settle the columns that fit under the fair share, repeat with the rest.
    let mut widths = vec![0usize; n];
    let mut open: Vec<usize> = (0..n).collect();
    let mut left = budget;
    loop {
        let share = (left / open.len().max(1)).max(1);
        let (fits, rest): (Vec<usize>, Vec<usize>) =
            open.iter().partition(|&&c| natural[c].max(1) <= share);
        if fits.is_empty() {
            let mut extra = left.saturating_sub(share * rest.len());
            for c in rest {
                widths[c] = share + usize::from(extra > 0);
                extra = extra.saturating_sub(1);
            }
            break;
        }
        for c in fits {
            widths[c] = natural[c].max(1);
            left = left.saturating_sub(widths[c]);
        }
        open = rest;
        if open.is_empty() {
            break;
        }
    }
    widths
}

fn pad(row: &mut Vec<Span<'static>>, cells: usize, style: Style) {
    if cells > 0 {
        row.push(Span::styled(" ".repeat(cells), style));
    }
}

/// Lays the table out at `width` cells; the first row gets `first_prefix`, the others
/// `rest_prefix` (a table inside a quote or a list item).
pub fn layout_table(
    table: &Table,
    first_prefix: &[Run],
    rest_prefix: &[Run],
    width: usize,
    wrap_cell: &WrapCell<'_>,
    out: &mut Vec<Line<'static>>,
) {
    let n = table.rows.iter().map(Vec::len).max().unwrap_or(0);
    if n == 0 {
        return;
    }
    let mut natural = vec![0usize; n];
    for row in &table.rows {
        for (c, cell) in row.iter().enumerate() {
            natural[c] = natural[c].max(cell_width(cell));
        }
    }
    let prefix_w = cell_width(first_prefix).max(cell_width(rest_prefix));
    let widths = column_widths(&natural, width.saturating_sub(prefix_w).max(1));
    let mut first = true;
    let mut prefix = |out_row: &mut Vec<Span<'static>>| {
        let p = if std::mem::take(&mut first) {
            first_prefix
        } else {
            rest_prefix
        };
        out_row.extend(p.iter().map(|r| Span::styled(r.text.clone(), r.style)));
    };
    for (ri, row) in table.rows.iter().enumerate() {
        let wrapped: Vec<Vec<Line<'static>>> = (0..n)
            .map(|c| {
                let mut lines = Vec::new();
                if let Some(cell) = row.get(c).filter(|cell| !cell.is_empty()) {
                    wrap_cell(cell, widths[c], &mut lines);
                }
                lines
            })
            .collect();
        let height = wrapped.iter().map(Vec::len).max().unwrap_or(0).max(1);
        for k in 0..height {
            let mut spans = Vec::new();
            prefix(&mut spans);
            for (c, lines) in wrapped.iter().enumerate() {
                if c > 0 {
                    spans.push(Span::styled(SEPARATOR, table.chrome));
                }
                let (content, used) = match lines.get(k) {
                    Some(line) => {
                        let used = line.spans.iter().map(|s| display_width(&s.content)).sum();
                        (line.spans.clone(), used)
                    }
                    None => (Vec::new(), 0),
                };
                let gap = widths[c].saturating_sub(used);
                let (before, after) = match table.aligns.get(c).copied().unwrap_or_default() {
                    Align::Left => (0, gap),
                    Align::Right => (gap, 0),
                    Align::Center => (gap / 2, gap - gap / 2),
                };
                pad(&mut spans, before, Style::default());
                spans.extend(content);
                // The last column's trailing gap is not drawn (nothing after it to align).
                if c + 1 < n {
                    pad(&mut spans, after, Style::default());
                }
            }
            out.push(Line::from(spans));
        }
        if ri + 1 == table.header_rows && table.rows.len() > table.header_rows {
            let mut spans = Vec::new();
            prefix(&mut spans);
            let rule: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
            spans.push(Span::styled(rule.join("─┼─"), table.chrome));
            out.push(Line::from(spans));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::transcript::markdown::render_markdown;
    use crate::view::transcript::wrap::wrap_lines;

    fn rows(body: &str, width: usize) -> Vec<String> {
        let lines = render_markdown(body, Style::default(), Style::default());
        wrap_lines(&lines, width)
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    /// Cell columns (terminal cells) of every `│` / `┼` on a row.
    fn bars(row: &str) -> Vec<usize> {
        use unicode_segmentation::UnicodeSegmentation;
        let mut at = 0;
        let mut out = Vec::new();
        for g in row.graphemes(true) {
            if g == "│" || g == "┼" {
                out.push(at);
            }
            at += display_width(g);
        }
        out
    }

    const SEED_TABLE: &str = "배포 결과야.\n\n| 작업 | 상태 | 메모 |\n|---|:---:|---:|\n| 빌드 | ✅ 완료 | 3분 걸림 👍🏽 |\n| 검증 🙂 | 진행 중 | `cargo test` |\n\n끝.";

    #[test]
    fn c69_markdown_table_is_drawn_as_a_table_not_raw_pipes() {
        let out = rows(SEED_TABLE, 100);
        assert_eq!(out[0], "배포 결과야.");
        assert!(out.iter().all(|r| !r.contains('|')), "raw pipes: {out:#?}");
        assert!(out[2].starts_with("작업"), "{out:#?}");
        assert!(out[3].contains("─┼─"), "header rule: {out:#?}");
        assert_eq!(out.last().map(String::as_str), Some("끝."));
        assert!(out.iter().all(|r| display_width(r) <= 100));
    }

    #[test]
    fn c70_table_columns_align_in_cells_with_korean_and_emoji() {
        let out = rows(SEED_TABLE, 100);
        let table: Vec<&String> = out[2..6].iter().collect();
        let first = bars(table[0]);
        assert_eq!(first.len(), 2, "{table:#?}");
        for row in &table {
            assert_eq!(bars(row), first, "misaligned: {table:#?}");
        }
    }

    #[test]
    fn c69_wide_table_cells_wrap_within_the_reading_width() {
        let long = "가나다라 마바사아 ".repeat(12);
        let body = format!("| 키 | 값 |\n|---|---|\n| 설명 | {long} |\n| emoji | 👍🏽👍🏽👍🏽 🇰🇷 끝 |");
        for width in [100, 41, 24] {
            let out = rows(&body, width);
            assert!(out.len() > 4, "cell did not wrap at {width}: {out:#?}");
            let first = bars(&out[0]);
            for row in &out {
                assert!(display_width(row) <= width, "{width}: {row:?}");
                assert_eq!(bars(row), first, "{width}: {out:#?}");
            }
            let joined: String = out.concat();
            assert!(joined.contains("👍🏽"), "{out:#?}");
        }
    }

    #[test]
    fn table_inside_a_quote_keeps_the_quote_bar_on_every_row() {
        let out = rows("> | a | b |\n> |---|---|\n> | 1 | 2 |", 40);
        assert!(out.iter().all(|r| r.starts_with("│ ")), "{out:#?}");
        assert_eq!(out.len(), 3, "{out:#?}");
    }

    #[test]
    fn widths_fit_the_budget_and_keep_narrow_columns_whole() {
        let w = column_widths(&[4, 60, 80], 50);
        assert_eq!(w[0], 4);
        assert!(w.iter().sum::<usize>() + 6 <= 50, "{w:?}");
        assert_eq!(column_widths(&[3, 5], 20), vec![3, 5]);
    }
}
