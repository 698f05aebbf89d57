//! What a CommonMark renderer displays, from pulldown-cmark's events with source offsets: the
//! ranges of displayed content and the blocks that hold them. A report line is hidden exactly
//! when no displayed range touches it — the parser decides, in the whole document's context.
//!
//! Displayed means what a reader of the rendered HTML sees: raw HTML passes through
//! a renderer, but its markup — comments, tags with their attributes, declarations,
//! processing instructions — is never shown; only the text between tags is. An image's alt
//! text is an attribute, not shown either. A comment that raw HTML opens and never closes
//! hides everything the renderer emits after it, as a browser reads it, until raw HTML closes
//! it (`-->` in rendered text or code is escaped to `--&gt;` and closes nothing). Where
//! pulldown-cmark departs from the CommonMark
//! reference renderers (a link label longer than 999 characters is a label for it, for none of
//! them), the judge corrects it (see `judge`).

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};
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

/// Source a renderer emits but a reader never sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unseen {
    /// HTML markup: a comment, a tag (its attributes included), a declaration or a processing
    /// instruction.
    HtmlMarkup,
    /// An image's alt text (an attribute of `<img>`).
    ImageAlt,
}

#[derive(Debug, Clone)]
pub(crate) struct Rendered {
    /// Source ranges of displayed content (text, code, raw HTML text, rules...), in event order.
    visible: Vec<Range<usize>>,
    blocks: Vec<(BlockKind, Range<usize>)>,
    unseen: Vec<(Unseen, Range<usize>)>,
}

/// Where an HTML scan stands between two pieces of one HTML block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HtmlState {
    Text,
    Comment,
    /// Inside a tag; `Some(q)` inside a quoted attribute value.
    Tag(Option<u8>),
    /// `<!DECL …>` or `<![CDATA[ … ]]>` (never shown by a browser in HTML content).
    Declaration,
    Cdata,
    Instruction,
}

/// Splits `piece` (at `offset` in the source) into displayed text and unseen markup, carrying
/// `state` across the pieces of one HTML block.
fn scan_html(
    piece: &str,
    offset: usize,
    state: &mut HtmlState,
    shown: &mut Vec<Range<usize>>,
    hidden: &mut Vec<Range<usize>>,
) {
    let b = piece.as_bytes();
    let mut i = 0;
    let mut run_start = 0;
    let mut run_is_text = *state == HtmlState::Text;
    let mut close_run = |from: usize, to: usize, text: bool| {
        if from < to {
            let r = offset + from..offset + to;
            if text {
                if piece.get(from..to).is_some_and(|s| !s.trim().is_empty()) {
                    shown.push(r);
                }
            } else {
                hidden.push(r);
            }
        }
    };
    while i < b.len() {
        let rest = &b[i..];
        let (next, advance) = match *state {
            HtmlState::Text => {
                if rest.starts_with(b"<!--") {
                    (HtmlState::Comment, 4)
                } else if rest.starts_with(b"<![CDATA[") {
                    (HtmlState::Cdata, 9)
                } else if rest.starts_with(b"<?") {
                    (HtmlState::Instruction, 2)
                } else if rest.len() > 2 && rest[0] == b'<' && rest[1] == b'!' {
                    (HtmlState::Declaration, 2)
                } else if rest.len() > 1
                    && rest[0] == b'<'
                    && (rest[1].is_ascii_alphabetic() || rest[1] == b'/')
                {
                    (HtmlState::Tag(None), 1)
                } else {
                    (HtmlState::Text, 1)
                }
            }
            HtmlState::Comment if rest.starts_with(b"-->") => (HtmlState::Text, 3),
            HtmlState::Cdata if rest.starts_with(b"]]>") => (HtmlState::Text, 3),
            HtmlState::Instruction if rest.starts_with(b"?>") => (HtmlState::Text, 2),
            HtmlState::Declaration if rest[0] == b'>' => (HtmlState::Text, 1),
            HtmlState::Tag(None) if rest[0] == b'>' => (HtmlState::Text, 1),
            HtmlState::Tag(None) if rest[0] == b'"' || rest[0] == b'\'' => {
                (HtmlState::Tag(Some(rest[0])), 1)
            }
            HtmlState::Tag(Some(q)) if rest[0] == q => (HtmlState::Tag(None), 1),
            other => (other, 1),
        };
        let was_text = *state == HtmlState::Text;
        let now_text = next == HtmlState::Text;
        if was_text && !now_text {
            // Markup opens at `i`.
            close_run(run_start, i, true);
            run_start = i;
            run_is_text = false;
        }
        *state = next;
        i += advance;
        if !was_text && now_text {
            // Markup closed just before `i`.
            close_run(run_start, i, false);
            run_start = i;
            run_is_text = true;
        }
    }
    close_run(run_start, b.len(), run_is_text);
}

impl Rendered {
    /// Parses `text` as plain CommonMark (no extensions: link reference definitions behave the
    /// same under GFM, and extensions only add displayed constructs).
    pub fn parse(text: &str) -> Self {
        let mut visible = Vec::new();
        let mut blocks = Vec::new();
        let mut unseen = Vec::new();
        let mut image_depth = 0usize;
        let mut html = HtmlState::Text;
        // Where a comment raw HTML left open began hiding the source.
        let mut open_comment_from: Option<usize> = None;
        for (event, range) in Parser::new_ext(text, Options::empty()).into_offset_iter() {
            match event {
                Event::Html(_) | Event::InlineHtml(_) => {
                    let piece = text.get(range.clone()).unwrap_or("");
                    let mut hidden = Vec::new();
                    let before = html;
                    if let Some(from) = open_comment_from.take() {
                        // Source between the two raw HTML pieces (definitions too, which emit
                        // no event) was inside the open comment.
                        unseen.push((Unseen::HtmlMarkup, from..range.start));
                    }
                    scan_html(piece, range.start, &mut html, &mut visible, &mut hidden);
                    unseen.extend(hidden.into_iter().map(|r| (Unseen::HtmlMarkup, r)));
                    if matches!(event, Event::InlineHtml(_)) && before != HtmlState::Comment {
                        // An inline HTML event is one whole tag or comment.
                        html = HtmlState::Text;
                    }
                    if html == HtmlState::Comment {
                        open_comment_from = Some(range.end);
                    }
                }
                // Inside a comment raw HTML left open: emitted, never shown.
                Event::Text(_)
                | Event::Code(_)
                | Event::InlineMath(_)
                | Event::DisplayMath(_)
                | Event::FootnoteReference(_)
                | Event::Rule
                | Event::TaskListMarker(_)
                    if html == HtmlState::Comment =>
                {
                    unseen.push((Unseen::HtmlMarkup, range));
                }
                Event::Text(_) | Event::Code(_) if image_depth > 0 => {
                    unseen.push((Unseen::ImageAlt, range));
                }
                Event::Text(_)
                | Event::Code(_)
                | Event::InlineMath(_)
                | Event::DisplayMath(_)
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
                    if matches!(tag, Tag::Image { .. }) {
                        image_depth += 1;
                    }
                    if matches!(tag, Tag::HtmlBlock) {
                        html = open_comment_or_text(html);
                    }
                    if let Some(kind) = block_kind(&tag) {
                        blocks.push((kind, range));
                    }
                }
                Event::End(TagEnd::Image) => image_depth = image_depth.saturating_sub(1),
                Event::End(TagEnd::HtmlBlock) => html = open_comment_or_text(html),
                Event::End(_) | Event::SoftBreak | Event::HardBreak => {}
            }
        }
        if let Some(from) = open_comment_from {
            unseen.push((Unseen::HtmlMarkup, from..text.len()));
        }
        Self {
            visible,
            blocks,
            unseen,
        }
    }

    /// What hides `region` from a reader although the renderer emits it, when something does.
    pub fn unseen_in(&self, region: &Range<usize>) -> Option<Unseen> {
        self.unseen
            .iter()
            .find(|(_, r)| r.start < region.end && region.start < r.end)
            .map(|(kind, _)| *kind)
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

/// Between two HTML blocks only an open comment carries on: a browser's comment ends only at
/// `-->`, while an open tag, declaration or instruction ends at the next `>` — the `>` of the
/// renderer's own next tag.
fn open_comment_or_text(state: HtmlState) -> HtmlState {
    if state == HtmlState::Comment {
        HtmlState::Comment
    } else {
        HtmlState::Text
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
