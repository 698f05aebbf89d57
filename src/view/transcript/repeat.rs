//! C-67: a body row repeated three times or more in a row is drawn once, followed by
//! `↻ previous row repeated N×` (N: the copies folded away). Blank rows never fold, and a
//! failure's rows never fold (C-8). Both the frame and the off-actor measurement fold with
//! this one function, so the heights they count agree (C-74).

use super::marks::Role;
use super::style::ChatStyle;
use super::wrap::{LogicalLine, wrap_lines};
use ratatui::style::Style;
use ratatui::text::{Line, Span};

fn text_of(line: &Line<'_>) -> String {
    line.spans.iter().map(|s| s.content.as_ref()).collect()
}

/// Folds runs of identical non-blank rows (at least 2 copies after the first).
pub fn fold_repeats(rows: Vec<Line<'static>>, style: Style) -> Vec<Line<'static>> {
    if rows.len() < 3 {
        return rows;
    }
    let texts: Vec<String> = rows.iter().map(text_of).collect();
    let mut out = Vec::with_capacity(rows.len());
    let mut i = 0;
    let mut rows = rows.into_iter().map(Some).collect::<Vec<_>>();
    while i < texts.len() {
        let run = texts[i..].iter().take_while(|t| **t == texts[i]).count();
        if let Some(row) = rows[i].take() {
            out.push(row);
        }
        if run >= 3 && !texts[i].trim().is_empty() {
            out.push(Line::from(Span::styled(
                format!("↻ previous row repeated {}×", run - 1),
                style,
            )));
            i += run;
        } else {
            i += 1;
        }
    }
    out
}

/// Wrapped body rows with C-67's repeat fold (failures never fold, C-8): the one function
/// the frame and the off-actor measurement both use, so their heights agree.
pub(crate) fn body_rows(
    lines: &[LogicalLine],
    width: usize,
    role: Role,
    style: ChatStyle,
) -> Vec<Line<'static>> {
    let rows = wrap_lines(lines, width);
    if role == Role::Error {
        return rows;
    }
    fold_repeats(rows, style.recede())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(texts: &[&str]) -> Vec<Line<'static>> {
        texts.iter().map(|t| Line::raw((*t).to_string())).collect()
    }

    fn plain(lines: &[Line<'_>]) -> Vec<String> {
        lines.iter().map(text_of).collect()
    }

    #[test]
    fn c67_a_row_repeated_is_folded_with_its_count() {
        let out = fold_repeats(rows(&["a", "ok", "ok", "ok", "ok", "b"]), Style::default());
        assert_eq!(plain(&out), ["a", "ok", "↻ previous row repeated 3×", "b"]);
    }

    #[test]
    fn c67_pairs_and_blank_rows_are_not_folded() {
        let input = ["x", "x", "", "", "", "y"];
        assert_eq!(plain(&fold_repeats(rows(&input), Style::default())), input);
    }
}
