//! What a CommonMark renderer displays, from pulldown-cmark's events with source offsets: the
//! ranges of displayed content and the blocks that hold them. A report line is hidden exactly
//! when no displayed range touches it — the parser decides, in the whole document's context.

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag};
use std::ops::Range;

/// Block kinds that decide how a leaked line is explained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BlockKind {
    FencedCode,
    IndentedCode,
    HtmlBlock,
    Paragraph,
    Other,
}

#[derive(Debug, Clone)]
pub(crate) struct Rendered {
    /// Source ranges of displayed content (text, code, raw HTML, rules...), in event order.
    visible: Vec<Range<usize>>,
    blocks: Vec<(BlockKind, Range<usize>)>,
}

impl Rendered {
    /// Parses `text` as plain CommonMark (no extensions: link reference definitions behave the
    /// same under GFM, and extensions only add displayed constructs).
    pub fn parse(text: &str) -> Self {
        let mut visible = Vec::new();
        let mut blocks = Vec::new();
        for (event, range) in Parser::new_ext(text, Options::empty()).into_offset_iter() {
            match event {
                Event::Text(_)
                | Event::Code(_)
                | Event::InlineMath(_)
                | Event::DisplayMath(_)
                | Event::Html(_)
                | Event::InlineHtml(_)
                | Event::FootnoteReference(_)
                | Event::Rule
                | Event::TaskListMarker(_) => {
                    if text
                        .get(range.clone())
                        .is_some_and(|s| !s.trim().is_empty())
                    {
                        visible.push(range);
                    }
                }
                Event::Start(tag) => {
                    if let Some(kind) = block_kind(&tag) {
                        blocks.push((kind, range));
                    }
                }
                Event::End(_) | Event::SoftBreak | Event::HardBreak => {}
            }
        }
        Self { visible, blocks }
    }

    /// The displayed source pieces inside `region` (clipped to it), in text order.
    pub fn displayed_in(&self, region: &Range<usize>) -> Vec<Range<usize>> {
        let mut pieces: Vec<Range<usize>> = self
            .visible
            .iter()
            .filter(|r| r.start < region.end && region.start < r.end)
            .map(|r| r.start.max(region.start)..r.end.min(region.end))
            .filter(|r| r.start < r.end)
            .collect();
        pieces.sort_by_key(|r| r.start);
        pieces
    }

    /// Whether anything displayed starts inside `block` before `offset` (inline content that
    /// began above the line: the line continues it).
    pub fn displayed_before(&self, block: &Range<usize>, offset: usize) -> bool {
        self.visible
            .iter()
            .any(|r| r.start >= block.start && r.start < offset)
    }

    /// The innermost block holding `offset`.
    pub fn innermost_block(&self, offset: usize) -> Option<(BlockKind, Range<usize>)> {
        self.blocks
            .iter()
            .filter(|(_, r)| r.contains(&offset))
            .max_by_key(|(_, r)| (r.start, std::cmp::Reverse(r.end)))
            .cloned()
    }
}

fn block_kind(tag: &Tag<'_>) -> Option<BlockKind> {
    Some(match tag {
        Tag::CodeBlock(CodeBlockKind::Fenced(_)) => BlockKind::FencedCode,
        Tag::CodeBlock(CodeBlockKind::Indented) => BlockKind::IndentedCode,
        Tag::HtmlBlock => BlockKind::HtmlBlock,
        Tag::Paragraph => BlockKind::Paragraph,
        Tag::Heading { .. }
        | Tag::BlockQuote(_)
        | Tag::List(_)
        | Tag::Item
        | Tag::FootnoteDefinition(_)
        | Tag::DefinitionList
        | Tag::DefinitionListTitle
        | Tag::DefinitionListDefinition
        | Tag::Table(_)
        | Tag::TableHead
        | Tag::TableRow
        | Tag::TableCell
        | Tag::MetadataBlock(_) => BlockKind::Other,
        Tag::Emphasis
        | Tag::Strong
        | Tag::Strikethrough
        | Tag::Superscript
        | Tag::Subscript
        | Tag::Link { .. }
        | Tag::Image { .. } => {
            return None;
        }
    })
}
