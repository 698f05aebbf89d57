//! Markdown bodies into styled logical lines (pulldown-cmark: CommonMark plus GFM tables,
//! which [`super::table`] lays out at the wrap width).
//!
//! C-72: the body is sanitised per line first (split on `\n`), then normalised to NFC, then
//! parsed, so authored line breaks survive and no control byte reaches a cell. Soft breaks
//! are kept as line breaks (chat bodies are line-oriented). Link reference definitions are
//! consumed by the parser and render nothing, exactly as CommonMark says — which is what
//! hides `[coop-report]: <…>` lines ([S2]).
//!
//! Every run carries its complete style derived from the body's base style, so a bold or
//! link span in a dim body stays dim and the text after it is dim again (C-5).

use super::table::{Align, Table};
use super::wrap::{LogicalLine, Run};
use crate::view::text::{display_width, sanitize_lines};
use pulldown_cmark::{Alignment, CodeBlockKind, Event, Options, Parser, Tag, TagEnd};
use ratatui::style::{Modifier, Style};
use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfc_quick};

/// Sanitise per line (T.7), join with `\n`, normalise to NFC (C-70).
pub fn prepare_body(text: &str) -> String {
    let joined = sanitize_lines(text).join("\n");
    match is_nfc_quick(joined.chars()) {
        IsNormalized::Yes => joined,
        _ => joined.nfc().collect(),
    }
}

/// Plain lines (no Markdown): tool results, reasoning, journal. Result text is never read
/// as style grammar (C-49).
pub fn plain_lines(text: &str, style: Style) -> Vec<LogicalLine> {
    prepare_body(text)
        .split('\n')
        .map(|l| LogicalLine::plain(vec![Run::new(l, style)]))
        .collect()
}

struct Prefix {
    first: String,
    rest: String,
    used: bool,
}

struct Renderer {
    base: Style,
    recede: Style,
    out: Vec<LogicalLine>,
    runs: Vec<Run>,
    modifiers: Vec<Modifier>,
    prefixes: Vec<Prefix>,
    lists: Vec<Option<u64>>,
    in_code: bool,
    pending_blank: bool,
    link_dest: Vec<(String, usize)>,
    /// The table being read (cells collect their runs; laid out at wrap time).
    table: Option<Table>,
    table_row: Vec<Vec<Run>>,
    /// Inside an HTML comment that spans lines of an HTML block.
    in_comment: bool,
}

impl Renderer {
    fn style(&self) -> Style {
        self.modifiers
            .iter()
            .fold(self.base, |s, m| s.add_modifier(*m))
    }

    fn prefix_runs(&mut self, consume: bool) -> (Vec<Run>, Vec<Run>) {
        let mut first = String::new();
        let mut rest = String::new();
        for p in &mut self.prefixes {
            if p.used {
                first.push_str(&p.rest);
            } else {
                first.push_str(&p.first);
                if consume {
                    p.used = true;
                }
            }
            rest.push_str(&p.rest);
        }
        let to_runs = |s: String| {
            if s.is_empty() {
                Vec::new()
            } else {
                vec![Run::new(s, self.recede)]
            }
        };
        (to_runs(first), to_runs(rest))
    }

    fn open_block(&mut self) {
        if self.pending_blank && !self.out.is_empty() {
            let (_, rest) = self.prefix_runs(false);
            self.out.push(LogicalLine {
                first_prefix: rest.clone(),
                rest_prefix: rest,
                ..LogicalLine::default()
            });
        }
        self.pending_blank = false;
    }

    fn flush(&mut self) {
        let (first_prefix, rest_prefix) = self.prefix_runs(true);
        let runs = std::mem::take(&mut self.runs);
        self.out.push(LogicalLine {
            first_prefix,
            rest_prefix,
            runs,
            rule: None,
            table: None,
        });
    }

    fn flush_if_any(&mut self) {
        if !self.runs.is_empty() {
            self.flush();
        }
    }

    fn text(&mut self, t: &str) {
        if self.in_code {
            let mut parts = t.split('\n').peekable();
            while let Some(part) = parts.next() {
                if parts.peek().is_none() && part.is_empty() {
                    break;
                }
                self.runs.push(Run::new(part, self.style()));
                if parts.peek().is_some() {
                    self.flush();
                }
            }
            return;
        }
        self.runs.push(Run::new(t, self.style()));
    }

    /// `t` without the parts inside `<!-- … -->` (a comment may span the lines of an HTML
    /// block: `in_comment` carries over).
    fn without_comments(&mut self, t: &str) -> String {
        let mut out = String::new();
        let mut rest = t;
        loop {
            if self.in_comment {
                match rest.find("-->") {
                    Some(end) => {
                        // Keep the line structure of a block comment.
                        out.extend(rest[..end].matches('\n'));
                        rest = &rest[end + 3..];
                        self.in_comment = false;
                    }
                    None => {
                        out.extend(rest.matches('\n'));
                        return out;
                    }
                }
            }
            match rest.find("<!--") {
                Some(start) => {
                    out.push_str(&rest[..start]);
                    rest = &rest[start + 4..];
                    self.in_comment = true;
                }
                None => {
                    out.push_str(rest);
                    return out;
                }
            }
        }
    }

    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) => self.text(&t),
            Event::Code(t) => self.runs.push(Run::new(
                t.to_string(),
                self.style().add_modifier(Modifier::REVERSED),
            )),
            Event::Html(t) | Event::InlineHtml(t) => {
                // Raw HTML is shown as text (already sanitised); block HTML keeps its lines.
                // HTML comments are not: no renderer's reader ever sees one, and a report
                // hidden in one must not surface here.
                let t = self.without_comments(&t);
                let mut parts = t.split('\n').peekable();
                while let Some(part) = parts.next() {
                    if !part.is_empty() {
                        self.runs.push(Run::new(part, self.style()));
                    }
                    if parts.peek().is_some() && !self.runs.is_empty() {
                        self.flush();
                    }
                }
            }
            // A table cell is one line: a break inside one (never from GFM) stays a space.
            Event::SoftBreak | Event::HardBreak if self.table.is_some() => {
                self.runs.push(Run::new(" ", self.style()));
            }
            Event::SoftBreak | Event::HardBreak => self.flush(),
            Event::Rule => {
                self.open_block();
                let (first_prefix, rest_prefix) = self.prefix_runs(true);
                self.out.push(LogicalLine {
                    first_prefix,
                    rest_prefix,
                    runs: Vec::new(),
                    rule: Some(self.recede),
                    table: None,
                });
                self.pending_blank = true;
            }
            Event::TaskListMarker(done) => {
                self.runs
                    .push(Run::new(if done { "[x] " } else { "[ ] " }, self.style()));
            }
            Event::FootnoteReference(t) | Event::InlineMath(t) | Event::DisplayMath(t) => {
                self.runs.push(Run::new(t.to_string(), self.style()));
            }
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph | Tag::HtmlBlock => self.open_block(),
            Tag::Heading { .. } => {
                self.open_block();
                self.modifiers.push(Modifier::BOLD);
            }
            Tag::BlockQuote(_) => {
                self.open_block();
                self.prefixes.push(Prefix {
                    first: "│ ".into(),
                    rest: "│ ".into(),
                    used: false,
                });
            }
            Tag::CodeBlock(kind) => {
                self.open_block();
                self.in_code = true;
                let indent = matches!(kind, CodeBlockKind::Indented | CodeBlockKind::Fenced(_));
                if indent {
                    self.prefixes.push(Prefix {
                        first: "  ".into(),
                        rest: "  ".into(),
                        used: false,
                    });
                }
            }
            Tag::List(start) => {
                self.flush_if_any();
                if self.lists.is_empty() {
                    self.open_block();
                }
                self.lists.push(start);
            }
            Tag::Item => {
                self.flush_if_any();
                let depth = self.lists.len().saturating_sub(1);
                let marker = match self.lists.last_mut() {
                    Some(Some(n)) => {
                        let m = format!("{n}. ");
                        *n += 1;
                        m
                    }
                    _ => if depth.is_multiple_of(2) {
                        "• "
                    } else {
                        "◦ "
                    }
                    .to_string(),
                };
                let rest = " ".repeat(display_width(&marker));
                self.prefixes.push(Prefix {
                    first: marker,
                    rest,
                    used: false,
                });
            }
            Tag::Emphasis => self.modifiers.push(Modifier::ITALIC),
            Tag::Strong => self.modifiers.push(Modifier::BOLD),
            Tag::Strikethrough => self.modifiers.push(Modifier::CROSSED_OUT),
            Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. } => {
                self.modifiers.push(Modifier::UNDERLINED);
                self.link_dest.push((dest_url.to_string(), self.runs.len()));
            }
            Tag::Table(aligns) => {
                self.flush_if_any();
                self.open_block();
                self.table = Some(Table {
                    aligns: aligns
                        .iter()
                        .map(|a| match a {
                            Alignment::Center => Align::Center,
                            Alignment::Right => Align::Right,
                            Alignment::Left | Alignment::None => Align::Left,
                        })
                        .collect(),
                    chrome: self.recede,
                    ..Table::default()
                });
            }
            Tag::TableHead => self.modifiers.push(Modifier::BOLD),
            Tag::TableRow => self.table_row.clear(),
            Tag::TableCell => self.runs.clear(),
            // Listed rather than `_` so a new pulldown-cmark tag is a compile error here. None of
            // these is parsed without an extension option (we parse CommonMark plus tables);
            // their text still arrives as `Text` events and renders inline at the surrounding
            // style (superscript and subscript have no terminal form).
            Tag::Superscript
            | Tag::Subscript
            | Tag::FootnoteDefinition(_)
            | Tag::DefinitionList
            | Tag::DefinitionListTitle
            | Tag::DefinitionListDefinition
            | Tag::MetadataBlock(_) => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph | TagEnd::HtmlBlock => {
                self.flush_if_any();
                self.pending_blank = true;
            }
            TagEnd::Heading(_) => {
                self.modifiers.pop();
                self.flush_if_any();
                self.pending_blank = true;
            }
            TagEnd::BlockQuote(_) => {
                self.flush_if_any();
                self.prefixes.pop();
                self.pending_blank = true;
            }
            TagEnd::CodeBlock => {
                self.flush_if_any();
                self.in_code = false;
                self.prefixes.pop();
                self.pending_blank = true;
            }
            TagEnd::List(_) => {
                self.flush_if_any();
                self.lists.pop();
                self.pending_blank = true;
            }
            TagEnd::Item => {
                self.flush_if_any();
                self.prefixes.pop();
                self.pending_blank = false;
            }
            TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough => {
                self.modifiers.pop();
            }
            TagEnd::Link | TagEnd::Image => {
                self.modifiers.pop();
                if let Some((dest, at)) = self.link_dest.pop() {
                    let shown: String = self
                        .runs
                        .get(at..)
                        .unwrap_or(&[])
                        .iter()
                        .map(|r| r.text.as_str())
                        .collect();
                    if !dest.is_empty() && shown != dest {
                        self.runs.push(Run::new(format!(" ({dest})"), self.recede));
                    }
                }
            }
            TagEnd::TableCell => {
                let cell = std::mem::take(&mut self.runs);
                self.table_row.push(cell);
            }
            TagEnd::TableHead => {
                self.modifiers.pop();
                let row = std::mem::take(&mut self.table_row);
                if let Some(t) = self.table.as_mut() {
                    t.rows.push(row);
                    t.header_rows = t.rows.len();
                }
            }
            TagEnd::TableRow => {
                let row = std::mem::take(&mut self.table_row);
                if let Some(t) = self.table.as_mut() {
                    t.rows.push(row);
                }
            }
            TagEnd::Table => {
                if let Some(table) = self.table.take() {
                    let (first_prefix, rest_prefix) = self.prefix_runs(true);
                    self.out.push(LogicalLine {
                        first_prefix,
                        rest_prefix,
                        table: Some(Box::new(table)),
                        ..LogicalLine::default()
                    });
                }
                self.pending_blank = true;
            }
            // See `start`: inline at the surrounding style, text kept.
            TagEnd::Superscript
            | TagEnd::Subscript
            | TagEnd::FootnoteDefinition
            | TagEnd::DefinitionList
            | TagEnd::DefinitionListTitle
            | TagEnd::DefinitionListDefinition
            | TagEnd::MetadataBlock(_) => {}
        }
    }
}

/// Renders a Markdown body into logical lines at base style `base`; `recede` styles bullets,
/// quote bars, rules and link targets.
pub fn render_markdown(text: &str, base: Style, recede: Style) -> Vec<LogicalLine> {
    let prepared = prepare_body(text);
    let mut r = Renderer {
        base,
        recede,
        out: Vec::new(),
        runs: Vec::new(),
        modifiers: Vec::new(),
        prefixes: Vec::new(),
        lists: Vec::new(),
        in_code: false,
        pending_blank: false,
        link_dest: Vec::new(),
        table: None,
        table_row: Vec::new(),
        in_comment: false,
    };
    // CommonMark plus GFM tables: a Keeper reply's table is drawn as a table (C-69).
    for event in Parser::new_ext(&prepared, Options::ENABLE_TABLES) {
        r.event(event);
    }
    r.flush_if_any();
    r.out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(lines: &[LogicalLine]) -> Vec<String> {
        lines
            .iter()
            .map(|l| {
                l.first_prefix
                    .iter()
                    .chain(&l.runs)
                    .map(|r| r.text.as_str())
                    .collect()
            })
            .collect()
    }

    #[test]
    fn link_reference_definitions_render_nothing() {
        let body = "아빠, 배포 끝났어.\n\n[coop-report]: <{\"coop_reports\":[]}>\n";
        let lines = render_markdown(body, Style::default(), Style::default());
        let all = texts(&lines).join("\n");
        assert!(!all.contains("coop"), "{all}");
        assert!(all.contains("배포"));
    }

    #[test]
    fn c72_soft_breaks_survive_and_controls_are_escaped() {
        let lines = render_markdown("one\ntwo\x1b[31m", Style::default(), Style::default());
        assert_eq!(texts(&lines), vec!["one", "two\\x1B[31m"]);
    }

    #[test]
    fn c5_bold_inside_dim_stays_dim_and_dim_resumes() {
        let dim = Style::default().add_modifier(Modifier::DIM);
        let lines = render_markdown("a **b** c", dim, dim);
        let runs = &lines[0].runs;
        assert!(
            runs.iter()
                .all(|r| r.style.add_modifier.contains(Modifier::DIM))
        );
        assert!(runs[1].style.add_modifier.contains(Modifier::BOLD));
        assert!(!runs[2].style.add_modifier.contains(Modifier::BOLD));
    }

    #[test]
    fn s2_html_comments_are_not_painted_in_the_chat() {
        let body = "아빠, 끝났어 <!-- {\"coop_reports\":[]} --> 정말.\n\n<!--\n[coop-report]: <{}>\n-->\n<b>굵게</b>";
        let all = texts(&render_markdown(body, Style::default(), Style::default())).join("\n");
        assert!(!all.contains("coop"), "{all}");
        assert!(all.contains("아빠, 끝났어  정말."), "{all}");
        assert!(
            all.contains("<b>굵게</b>"),
            "other raw HTML still shows: {all}"
        );
    }

    #[test]
    fn lists_and_quotes_get_prefixes() {
        let lines = render_markdown("- a\n- b\n\n> q", Style::default(), Style::default());
        assert_eq!(texts(&lines), vec!["• a", "• b", "", "│ q"]);
    }
}
