//! Wrapping styled logical lines into rows of display cells (C-70, C-71).
//!
//! Widths are grapheme-cluster cells (after NFC at ingestion); a wide grapheme is never split
//! across rows: when it does not fit, the row ends early. Breaks prefer spaces; a word longer
//! than a row is broken between graphemes.

use super::table::{Table, layout_table};
use crate::view::text::grapheme_width;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_segmentation::UnicodeSegmentation;

pub use super::run::Run;

/// One authored line before wrapping, with the prefix of its first row and of its
/// continuation rows (list bullets, quote bars, hanging indents).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LogicalLine {
    pub first_prefix: Vec<Run>,
    pub rest_prefix: Vec<Run>,
    pub runs: Vec<Run>,
    /// A thematic break: fills the row with `─` in the given style.
    pub rule: Option<Style>,
    /// A Markdown table, laid out at the wrap width ([`super::table`]).
    pub table: Option<Box<Table>>,
}

impl LogicalLine {
    pub fn plain(runs: Vec<Run>) -> Self {
        Self {
            runs,
            ..Self::default()
        }
    }
}

fn runs_width(runs: &[Run]) -> usize {
    runs.iter()
        .map(|r| r.text.graphemes(true).map(grapheme_width).sum::<usize>())
        .sum()
}

struct RowBuilder {
    spans: Vec<Span<'static>>,
    text: String,
    style: Option<Style>,
    used: usize,
}

impl RowBuilder {
    fn new(prefix: &[Run]) -> Self {
        let mut row = Self {
            spans: Vec::new(),
            text: String::new(),
            style: None,
            used: 0,
        };
        for run in prefix {
            row.push(&run.text, run.style, runs_width(std::slice::from_ref(run)));
        }
        row
    }

    fn push(&mut self, text: &str, style: Style, width: usize) {
        if self.style != Some(style) {
            self.flush_span();
            self.style = Some(style);
        }
        self.text.push_str(text);
        self.used += width;
    }

    fn flush_span(&mut self) {
        if let Some(style) = self.style
            && !self.text.is_empty()
        {
            self.spans
                .push(Span::styled(std::mem::take(&mut self.text), style));
        }
    }

    fn finish(mut self) -> Line<'static> {
        self.flush_span();
        Line::from(self.spans)
    }
}

#[derive(Clone, Copy)]
struct Atom<'a> {
    text: &'a str,
    style: Style,
    width: usize,
    space: bool,
}

/// Wraps one logical line to `width` cells, appending rows to `out`.
pub fn wrap_line(line: &LogicalLine, width: usize, out: &mut Vec<Line<'static>>) {
    let width = width.max(1);
    let first_w = runs_width(&line.first_prefix);
    let rest_w = runs_width(&line.rest_prefix);
    if let Some(table) = &line.table {
        let wrap_cell = |runs: &[Run], w: usize, rows: &mut Vec<Line<'static>>| {
            wrap_line(&LogicalLine::plain(runs.to_vec()), w, rows);
        };
        layout_table(
            table,
            &line.first_prefix,
            &line.rest_prefix,
            width,
            &wrap_cell,
            out,
        );
        return;
    }
    if let Some(style) = line.rule {
        let mut row = RowBuilder::new(&line.first_prefix);
        let n = width.saturating_sub(first_w).max(1);
        row.push(&"─".repeat(n), style, n);
        out.push(row.finish());
        return;
    }
    let atoms: Vec<Atom<'_>> = line
        .runs
        .iter()
        .flat_map(|run| {
            run.text.graphemes(true).map(move |g| Atom {
                text: g,
                style: run.style,
                width: grapheme_width(g),
                space: g == " ",
            })
        })
        .collect();

    let mut row = RowBuilder::new(&line.first_prefix);
    let mut limit = width.max(first_w + 1);
    let mut first_row = true;
    // Spaces wait for the next word: they are drawn only when that word stays on the row,
    // so wrapped rows neither end nor (after the first row) start with a space.
    let mut pending: Vec<Atom<'_>> = Vec::new();
    let mut i = 0;
    while i < atoms.len() {
        if atoms[i].space {
            pending.push(atoms[i]);
            i += 1;
            continue;
        }
        let mut j = i;
        let mut word_w = 0;
        while j < atoms.len() && !atoms[j].space {
            word_w += atoms[j].width;
            j += 1;
        }
        let row_start = if first_row { first_w } else { rest_w };
        let space_w: usize = pending.iter().map(|a| a.width).sum();
        let fits = row.used + space_w + word_w <= limit;
        if !fits && row.used > row_start && rest_w + word_w <= limit.max(rest_w + 1) {
            out.push(std::mem::replace(&mut row, RowBuilder::new(&line.rest_prefix)).finish());
            first_row = false;
            limit = width.max(rest_w + 1);
            pending.clear();
        }
        for a in pending.drain(..) {
            if row.used + a.width > limit {
                break;
            }
            row.push(a.text, a.style, a.width);
        }
        for a in &atoms[i..j] {
            let start = if first_row { first_w } else { rest_w };
            if row.used + a.width > limit && row.used > start {
                out.push(std::mem::replace(&mut row, RowBuilder::new(&line.rest_prefix)).finish());
                first_row = false;
                limit = width.max(rest_w + 1);
            }
            row.push(a.text, a.style, a.width);
        }
        i = j;
    }
    out.push(row.finish());
}

/// Wraps every line.
pub fn wrap_lines(lines: &[LogicalLine], width: usize) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    for line in lines {
        wrap_line(line, width, &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::text::display_width;

    fn text_of(line: &Line<'_>) -> String {
        line.spans.iter().map(|s| s.content.as_ref()).collect()
    }

    #[test]
    fn c71_wide_graphemes_never_split_at_the_cut() {
        let line = LogicalLine::plain(vec![Run::new("가나다라마바사아자차", Style::default())]);
        let rows = wrap_lines(&[line], 5);
        for row in &rows {
            assert!(display_width(&text_of(row)) <= 5);
        }
        let joined: String = rows.iter().map(text_of).collect();
        assert_eq!(joined, "가나다라마바사아자차");
        assert_eq!(text_of(&rows[0]), "가나");
    }

    #[test]
    fn words_break_at_spaces_and_wrapped_rows_drop_leading_space() {
        let line = LogicalLine::plain(vec![Run::new("alpha beta gamma", Style::default())]);
        let rows: Vec<String> = wrap_lines(&[line], 11).iter().map(text_of).collect();
        assert_eq!(rows, vec!["alpha beta", "gamma"]);
    }

    #[test]
    fn emoji_with_modifier_is_one_unit() {
        let line = LogicalLine::plain(vec![Run::new("ab👍🏽👍🏽", Style::default())]);
        let rows: Vec<String> = wrap_lines(&[line], 5).iter().map(text_of).collect();
        assert!(rows.iter().all(|r| display_width(r) <= 5), "{rows:?}");
        assert_eq!(rows.concat(), "ab👍🏽👍🏽");
    }
}
