//! Explaining a leak from its context: which part of the intended
//! `[coop-…]: <json>` shape the line breaks. This never decides *whether* a line leaks (the
//! parser does); it only names why, so the scan is deliberately lenient.

use super::lines::{LineSpan, LineTable};
use serde::Serialize;

/// Why a report line is displayed by a CommonMark renderer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LeakCause {
    /// F1: a `<` or `>` inside the `<…>` destination (e.g. a `<repo>` placeholder).
    AngleBracketInData,
    /// F2: the definition follows a non-blank line; it cannot interrupt a paragraph.
    NoBlankLineBefore,
    /// F3: text after the closing `>` that is not a quoted title.
    TextAfterBracket,
    /// The line sits inside a fenced code block (rendered as code).
    InsideFence,
    /// The line is indented code (4+ spaces where a block starts).
    IndentedCode,
    /// The destination spans lines (pretty-printed JSON): no line break is allowed in `<…>`.
    LineBreakInData,
    /// `<` opens the destination but no `>` closes it on the line.
    UnclosedBracket,
    /// The destination is not wrapped in `<…>` (bare JSON has spaces, so it is no destination).
    UnbracketedDestination,
    /// The report JSON is not inside any `[label]:` definition (plain prose or a JSON paste).
    NotADefinition,
    /// The line falls inside an HTML block, which is passed through raw.
    InsideHtmlBlock,
    /// The label is longer than 999 characters: CommonMark allows at most 999 between the
    /// brackets, so the line is no definition and renders as text (pulldown-cmark alone takes
    /// it as one).
    LabelTooLong,
    /// The parser displays the line but none of the above explains it.
    Unexplained,
}

impl LeakCause {
    pub fn name(self) -> &'static str {
        match self {
            Self::AngleBracketInData => "angle_bracket_in_data",
            Self::NoBlankLineBefore => "no_blank_line_before",
            Self::TextAfterBracket => "text_after_bracket",
            Self::InsideFence => "inside_fence",
            Self::IndentedCode => "indented_code",
            Self::LineBreakInData => "line_break_in_data",
            Self::UnclosedBracket => "unclosed_bracket",
            Self::UnbracketedDestination => "unbracketed_destination",
            Self::NotADefinition => "not_a_definition",
            Self::InsideHtmlBlock => "inside_html_block",
            Self::LabelTooLong => "label_too_long",
            Self::Unexplained => "unexplained",
        }
    }
}

/// `[label]:` at the start of a line, after any container markers (`>`, list markers, spaces).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DefinitionHead {
    pub label: String,
    /// Byte offset of the `[`.
    pub label_start: usize,
    /// Byte offset just after the `:`.
    pub after_colon: usize,
}

impl DefinitionHead {
    pub fn is_coop(&self) -> bool {
        self.label
            .get(..5)
            .is_some_and(|p| p.eq_ignore_ascii_case("coop-"))
    }
}

pub(crate) fn definition_head(text: &str, line: LineSpan) -> Option<DefinitionHead> {
    let content = text.get(line.start..line.end)?;
    let body = content.trim_start_matches(|c: char| {
        c.is_ascii_digit() || matches!(c, ' ' | '\t' | '>' | '-' | '*' | '+' | '.' | ')')
    });
    let label_start = line.start + (content.len() - body.len());
    let inner = body.strip_prefix('[')?;
    let close = inner.find(']')?;
    let label = &inner[..close];
    if label.contains('[') || label.trim().is_empty() {
        return None;
    }
    inner[close + 1..].strip_prefix(':')?;
    Some(DefinitionHead {
        label: label.to_owned(),
        label_start,
        after_colon: label_start + 1 + close + 2,
    })
}

/// Causes in the definition's own shape. `span` is the report JSON's byte range, if any.
pub(crate) fn shape_causes(
    text: &str,
    lines: &LineTable,
    head: Option<&DefinitionHead>,
    span: Option<(usize, usize)>,
) -> Vec<LeakCause> {
    let Some(head) = head else {
        return vec![LeakCause::NotADefinition];
    };
    let bytes = text.as_bytes();
    let skip_blanks = |mut p: usize| {
        while matches!(bytes.get(p), Some(b' ' | b'\t')) {
            p += 1;
        }
        p
    };
    let mut dest = skip_blanks(head.after_colon);
    // CommonMark allows the destination on the line after the label.
    if let Some(line) = lines.get(lines.index_of(head.after_colon))
        && dest == line.end
        && line.next > line.end
    {
        dest = skip_blanks(line.next);
    }
    if bytes.get(dest) != Some(&b'<') {
        return vec![LeakCause::UnbracketedDestination];
    }
    let data_start = dest + 1;
    // The closing `>`: the first after the JSON on its last line, or the last on the line.
    let (close_line, close) = match span {
        Some((_, end)) => {
            let line = lines.get(lines.index_of(end.saturating_sub(1)));
            let close = line.and_then(|l| {
                let from = end.max(data_start);
                text.get(from..l.end)?.find('>').map(|i| from + i)
            });
            (line, close)
        }
        None => {
            let line = lines.get(lines.index_of(data_start));
            let close = line.and_then(|l| {
                text.get(data_start..l.end)?
                    .rfind('>')
                    .map(|i| data_start + i)
            });
            (line, close)
        }
    };
    let data_end = close.or(close_line.map(|l| l.end)).unwrap_or(data_start);
    let data = text.get(data_start..data_end.max(data_start)).unwrap_or("");
    let mut causes = Vec::new();
    if data.contains(['\n', '\r']) {
        causes.push(LeakCause::LineBreakInData);
    }
    if data.contains(['<', '>']) {
        causes.push(LeakCause::AngleBracketInData);
    }
    match (close, close_line) {
        (Some(close), Some(line)) => {
            let after = text.get(close + 1..line.end).unwrap_or("");
            if !after.trim_matches([' ', '\t']).is_empty() {
                causes.push(LeakCause::TextAfterBracket);
            }
        }
        _ => causes.push(LeakCause::UnclosedBracket),
    }
    causes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(text: &str) -> Option<DefinitionHead> {
        let lines = LineTable::new(text);
        definition_head(text, lines.get(0)?)
    }

    #[test]
    fn head_is_found_after_container_markers() {
        let h = head("> - [coop-read]: <x>");
        assert_eq!(h.as_ref().map(|h| h.label.as_str()), Some("coop-read"));
        assert_eq!(h.map(|h| h.label_start), Some(4));
        assert_eq!(head("see [coop-read]: <x>"), None);
        assert!(head("[Coop-Report]: <x>").is_some_and(|h| h.is_coop()));
    }

    #[test]
    fn shape_causes_name_each_failure_of_seed_002() {
        let cases = [
            ("[coop-read]: <COOP_READ 1>", vec![]),
            (
                "[coop-read]: <COOP <READ> 1>",
                vec![LeakCause::AngleBracketInData],
            ),
            (
                "[coop-read]: <COOP_READ 1> trailing",
                vec![LeakCause::TextAfterBracket],
            ),
            (
                "[coop-read]: <COOP_READ 1",
                vec![LeakCause::UnclosedBracket],
            ),
            (
                "[coop-read]: COOP_READ 1",
                vec![LeakCause::UnbracketedDestination],
            ),
        ];
        for (text, want) in cases {
            let lines = LineTable::new(text);
            let h = lines.get(0).and_then(|l| definition_head(text, l));
            assert_eq!(shape_causes(text, &lines, h.as_ref(), None), want, "{text}");
        }
    }
}
