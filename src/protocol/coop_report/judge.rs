//! Report lines judged against the renderer: each report span and each `[coop-…]:` line is one
//! unit; a unit leaks when pulldown-cmark displays any of it, and is hidden otherwise.

use super::lines::LineTable;
use super::rendered::{BlockKind, Rendered, Unseen};
use super::syntax::{DefinitionHead, LeakCause, definition_head, shape_causes};
use serde::Serialize;
use std::ops::Range;

/// Report text that a CommonMark renderer displays.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Leak {
    /// 1-based number of the first line with displayed report text.
    pub line: usize,
    /// 0-based index of that line.
    pub line_index: usize,
    /// The main cause (the first of `causes`).
    pub cause: LeakCause,
    /// Every cause found in the context, most specific first.
    pub causes: Vec<LeakCause>,
    /// The definition label (`coop-report`, `coop-read`...), if the line has one.
    pub label: Option<String>,
    /// Index of the report span shown, if the unit carries one.
    pub span: Option<usize>,
    /// The start of what the reader sees of it (source text, at most 80 characters).
    pub visible: String,
}

/// A line a CommonMark renderer shows nothing of, holding a report or acknowledgement: the
/// transcript may fold it into a status row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HiddenLine {
    /// 0-based line index.
    pub line_index: usize,
    /// 1-based line number.
    pub line: usize,
    pub label: Option<String>,
    pub span: Option<usize>,
    /// What hides it.
    pub hidden_by: HiddenBy,
}

/// What hides a report line from a reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HiddenBy {
    /// A link reference definition: the renderer emits nothing for it.
    Definition,
    /// HTML markup (a comment, a tag's attributes): emitted, never shown by a browser. A
    /// terminal that prints raw HTML as text would show it.
    HtmlMarkup,
    /// An image's alt text: emitted as an attribute, never shown beside the image. A terminal
    /// that prints alt text would show it.
    ImageAlt,
}

/// CommonMark: "at most 999 characters" between a link label's brackets.
const LABEL_MAX_CHARS: usize = 999;

/// One report line (or lines): a span and its definition, or a `[coop-…]:` line without JSON.
#[derive(Debug, Clone)]
pub(crate) struct Unit {
    pub region: Range<usize>,
    pub first_line: usize,
    pub last_line: usize,
    pub head: Option<DefinitionHead>,
    pub span: Option<(usize, (usize, usize))>,
}

/// Builds the units: one per span (with its definition head when it has one), then one per
/// `[coop-…]:` line not already part of a span's unit.
pub(crate) fn units(text: &str, lines: &LineTable, spans: &[(usize, usize)]) -> Vec<Unit> {
    let mut units = Vec::new();
    let mut covered = vec![false; lines.len()];
    for (index, &(start, end)) in spans.iter().enumerate() {
        let mut first_line = lines.index_of(start);
        let last_line = lines.index_of(end.saturating_sub(1));
        let mut head = lines
            .get(first_line)
            .and_then(|line| definition_head(text, line))
            .filter(|h| h.label_start < start);
        // `[coop-report]:` alone on a line, the `<json>` on the next one.
        if head.is_none() && first_line > 0 {
            let above = lines
                .get(first_line - 1)
                .and_then(|line| definition_head(text, line).map(|h| (h, line)));
            let here = lines.get(first_line);
            if let (Some((h, above_line)), Some(here)) = (above, here) {
                let rest_above = text.get(h.after_colon..above_line.end).unwrap_or("x");
                // Block-quote markers lead a continued line inside a quote (`> <{…}>`).
                let lead_here = text
                    .get(here.start..start)
                    .unwrap_or("x")
                    .trim_start_matches(['>', ' ', '\t'])
                    .trim();
                if rest_above.trim().is_empty() && (lead_here.is_empty() || lead_here == "<") {
                    head = Some(h);
                    first_line -= 1;
                }
            }
        }
        let region_end = match &head {
            Some(_) => lines.get(last_line).map_or(end, |l| l.end.max(end)),
            None => end,
        };
        let region_start = head.as_ref().map_or(start, |h| h.label_start);
        for slot in covered.iter_mut().take(last_line + 1).skip(first_line) {
            *slot = true;
        }
        units.push(Unit {
            region: region_start..region_end,
            first_line,
            last_line,
            head,
            span: Some((index, (start, end))),
        });
    }
    for (index, seen) in covered.iter().enumerate() {
        if *seen {
            continue;
        }
        let Some(line) = lines.get(index) else {
            continue;
        };
        let Some(head) = definition_head(text, line).filter(DefinitionHead::is_coop) else {
            continue;
        };
        units.push(Unit {
            region: head.label_start..line.end,
            first_line: index,
            last_line: index,
            head: Some(head),
            span: None,
        });
    }
    units.sort_by_key(|u| u.region.start);
    units
}

pub(crate) enum Verdict {
    Leak(Leak),
    Hidden(Vec<HiddenLine>),
}

pub(crate) fn judge(text: &str, lines: &LineTable, rendered: &Rendered, unit: &Unit) -> Verdict {
    let label = unit.head.as_ref().map(|h| h.label.clone());
    let span = unit.span.map(|(index, _)| index);
    let mut pieces = rendered.displayed_in(&unit.region);
    // pulldown-cmark takes a label of any length; CommonMark renderers do not: such
    // a "definition" is paragraph text, shown unless HTML markup hides it.
    let too_long = unit
        .head
        .as_ref()
        .is_some_and(|h| h.label.chars().count() > LABEL_MAX_CHARS);
    if too_long && pieces.is_empty() && rendered.unseen_in(&unit.region).is_none() {
        pieces.push(unit.region.clone());
    }
    let Some(first) = pieces.first() else {
        // Hidden report text; a line counts as hidden when nothing at all of it is displayed.
        let hidden = (unit.first_line..=unit.last_line)
            .filter_map(|index| {
                let line = lines.get(index)?;
                let shown = rendered.displayed_in(&(line.start..line.end));
                let blank = text.get(line.start..line.end)?.trim().is_empty();
                let hidden_by = match rendered.unseen_in(&(line.start..line.end)) {
                    Some(Unseen::HtmlMarkup) => HiddenBy::HtmlMarkup,
                    Some(Unseen::ImageAlt) => HiddenBy::ImageAlt,
                    None => HiddenBy::Definition,
                };
                (shown.is_empty() && !blank).then_some(HiddenLine {
                    line_index: index,
                    line: index + 1,
                    label: label.clone(),
                    span,
                    hidden_by,
                })
            })
            .collect();
        return Verdict::Hidden(hidden);
    };
    let line_index = lines.index_of(first.start);
    let causes = if too_long {
        vec![LeakCause::LabelTooLong]
    } else {
        causes(text, lines, rendered, unit, first.start)
    };
    let visible: String = pieces
        .iter()
        .filter_map(|r| text.get(r.clone()))
        .collect::<String>()
        .trim()
        .chars()
        .take(80)
        .collect();
    Verdict::Leak(Leak {
        line: line_index + 1,
        line_index,
        cause: causes.first().copied().unwrap_or(LeakCause::Unexplained),
        causes,
        label,
        span,
        visible,
    })
}

/// The cause comes from the context: the block the displayed text sits in, the definition's
/// own shape, and whether inline content above runs into the line.
fn causes(
    text: &str,
    lines: &LineTable,
    rendered: &Rendered,
    unit: &Unit,
    shown_at: usize,
) -> Vec<LeakCause> {
    let block = rendered.innermost_block(shown_at);
    match block.as_ref().map(|(kind, _)| *kind) {
        Some(BlockKind::FencedCode) => return vec![LeakCause::InsideFence],
        Some(BlockKind::IndentedCode) => return vec![LeakCause::IndentedCode],
        Some(BlockKind::HtmlBlock) => return vec![LeakCause::InsideHtmlBlock],
        Some(BlockKind::Paragraph | BlockKind::Other) | None => {}
    }
    let mut causes = shape_causes(
        text,
        lines,
        unit.head.as_ref(),
        unit.span.map(|(_, range)| range),
    );
    let above_is_blank = unit.first_line == 0
        || lines
            .get(unit.first_line - 1)
            .and_then(|l| text.get(l.start..l.end))
            .is_some_and(|s| s.trim().is_empty());
    let line_start = lines.get(unit.first_line).map_or(0, |l| l.start);
    if let Some((_, range)) = &block
        && !above_is_blank
        && rendered.displayed_before(range, line_start)
    {
        causes.push(LeakCause::NoBlankLineBefore);
    }
    if causes.is_empty() {
        causes.push(LeakCause::Unexplained);
    }
    causes
}
