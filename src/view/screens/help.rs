//! `?` help overlay: the bindings of what is in front (the surface's tables, or the top layer's
//! own), then the keys that reach past it ([`crate::view::bindings`]). It wraps to the terminal
//! (cells, whole words), scrolls, and is searchable with `/`. A layer: `Esc` or `?` closes it,
//! every other key is swallowed.

use super::layer::{Handled, Layer, LayerCx, LayerHelp};
use super::{ProjectionCtx, Ui};
use crate::view::bindings::{
    self, ALWAYS, DOWN, END, ESC, HOME, PAGE_DOWN, PAGE_UP, Press, RING, Section, Table, UP,
    wrap_words,
};
use crate::view::command::UiCommand;
use crate::view::model::Model;
use crate::view::text::{display_width, sanitize};
use crate::view::theme::Tone;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Widget};

/// The help overlay's own keys.
pub const HELP: Table = Table {
    title: "Help",
    bindings: &[
        bindings::bind(
            "j / k, Down / Up",
            &[Press::ch('j'), Press::ch('k'), DOWN, UP],
            "scroll",
        ),
        bindings::bind("PgUp / PgDn", &[PAGE_UP, PAGE_DOWN], "page"),
        bindings::bind("Home / End", &[HOME, END], "top / bottom"),
        bindings::bind(
            "/",
            &[Press::ch('/')],
            "search the help (Enter keeps, Esc clears)",
        ),
        bindings::bind(
            "n / N",
            &[Press::ch('n'), Press::ch('N')],
            "next / previous match",
        ),
        bindings::bind("Esc / ?", &[ESC, Press::ch('?')], "close"),
    ],
};

/// The widest the help box grows (cells): descriptions read better as a column.
const MAX_WIDTH: u16 = 110;

/// The help's search: its text, being typed or kept.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HelpSearch {
    pub query: String,
    pub typing: bool,
}

/// The help overlay, open over what it lists the keys of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HelpLayer {
    pub sections: Vec<Section>,
    /// The first shown line.
    pub scroll: usize,
    pub search: Option<HelpSearch>,
}

impl HelpLayer {
    pub fn new(sections: Vec<Section>) -> Self {
        Self {
            sections,
            scroll: 0,
            search: None,
        }
    }

    /// The help of a surface: its `tables`, then the ring's keys and the keys of everywhere.
    pub fn surface(tables: &[&Table]) -> Self {
        let mut sections: Vec<Section> = tables.iter().map(|t| Section::from(*t)).collect();
        sections.push(Section::from(&RING));
        sections.push(Section::from(&ALWAYS));
        Self::new(sections)
    }

    /// The help of a layer: its table, its commands, and what reaches past it.
    pub fn layer(help: LayerHelp) -> Self {
        let mut sections = vec![Section::from(help.table)];
        sections.extend(help.more.iter().map(|more| more()));
        if help.ring {
            sections.push(Section::from(&RING));
        }
        sections.push(Section::from(&ALWAYS));
        Self::new(sections)
    }

    /// The title of the first section (what the help is of).
    pub fn title(&self) -> &str {
        self.sections.first().map_or("", |s| s.title.as_str())
    }

    /// The box the help is drawn in within `area`, and its inner width and height.
    fn pane(&self, area: Rect) -> (Rect, usize, usize) {
        let width = area.width.saturating_sub(2).clamp(1, MAX_WIDTH);
        let inner_w = usize::from(width.saturating_sub(2)).max(1);
        let lines = help_lines(&self.sections, inner_w).len();
        let height = (lines as u16).saturating_add(2).min(area.height);
        let pane = Rect::new(
            area.x + (area.width - width) / 2,
            area.y + (area.height - height) / 2,
            width,
            height,
        );
        (pane, inner_w, usize::from(height.saturating_sub(2)).max(1))
    }

    fn matching_lines(&self, inner_w: usize) -> Vec<usize> {
        let Some(query) = self
            .search
            .as_ref()
            .map(|s| s.query.to_lowercase())
            .filter(|q| !q.is_empty())
        else {
            return Vec::new();
        };
        help_lines(&self.sections, inner_w)
            .iter()
            .enumerate()
            .filter(|(_, l)| l.text().to_lowercase().contains(&query))
            .map(|(i, _)| i)
            .collect()
    }

    /// Moves to the next (or previous) line matching the search, from `from` (included when
    /// `from_current`).
    fn jump(&mut self, area: Rect, forward: bool, skip_current: bool) {
        let (_, inner_w, rows) = self.pane(area);
        let hits = self.matching_lines(inner_w);
        let total = help_lines(&self.sections, inner_w).len();
        let from = self.scroll + usize::from(skip_current && forward);
        let hit = if forward {
            hits.iter().find(|&&i| i >= from).or(hits.first())
        } else {
            hits.iter()
                .rev()
                .find(|&&i| i < self.scroll)
                .or(hits.last())
        };
        if let Some(&line) = hit {
            self.scroll = line.min(total.saturating_sub(rows));
        }
    }

    fn scroll_by(&mut self, area: Rect, delta: isize) {
        let (_, inner_w, rows) = self.pane(area);
        let max = help_lines(&self.sections, inner_w)
            .len()
            .saturating_sub(rows);
        self.scroll = self.scroll.saturating_add_signed(delta).min(max);
    }

    fn typing_key(&mut self, area: Rect, key: KeyEvent) -> UiCommand {
        let Some(search) = self.search.as_mut() else {
            return UiCommand::None;
        };
        match key.code {
            KeyCode::Esc => self.search = None,
            KeyCode::Enter => search.typing = false,
            KeyCode::Backspace => {
                search.query.pop();
            }
            KeyCode::Char(c) if !c.is_control() => {
                search.query.push(c);
                self.jump(area, true, false);
            }
            _ => return UiCommand::None,
        }
        UiCommand::Repaint
    }
}

impl Layer for HelpLayer {
    fn key(&mut self, cx: &mut LayerCx<'_>, key: KeyEvent) -> Handled {
        let area = super::body_area(cx.ui.area);
        if key
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
        {
            return Handled::Consumed(UiCommand::None);
        }
        if self.search.as_ref().is_some_and(|s| s.typing) {
            return Handled::Consumed(self.typing_key(area, key));
        }
        let page = isize::try_from(area.height.saturating_sub(4))
            .unwrap_or(1)
            .max(1);
        match key.code {
            KeyCode::Esc if self.search.is_some() => self.search = None,
            KeyCode::Esc | KeyCode::Char('?') => cx.close(),
            KeyCode::Char('j') | KeyCode::Down => self.scroll_by(area, 1),
            KeyCode::Char('k') | KeyCode::Up => self.scroll_by(area, -1),
            KeyCode::PageDown => self.scroll_by(area, page),
            KeyCode::PageUp => self.scroll_by(area, -page),
            KeyCode::Home => self.scroll = 0,
            KeyCode::End => self.scroll_by(area, isize::MAX / 2),
            KeyCode::Char('/') => {
                self.search = Some(HelpSearch {
                    query: String::new(),
                    typing: true,
                })
            }
            KeyCode::Char('n') => self.jump(area, true, true),
            KeyCode::Char('N') => self.jump(area, false, true),
            _ => return Handled::Consumed(UiCommand::None),
        }
        Handled::Consumed(UiCommand::Repaint)
    }

    fn render(
        &self,
        _model: &Model,
        _ui: &Ui,
        ctx: &ProjectionCtx,
        _frame: Rect,
        body: Rect,
        buf: &mut Buffer,
    ) -> Option<(u16, u16)> {
        render_help(self, ctx, body, buf);
        None
    }
}

/// Whether the help overlay is open.
pub fn is_open(ui: &Ui) -> bool {
    ui.layer::<HelpLayer>().is_some()
}

/// Opens the help of what is in front: the top layer's, else the surface's tables.
pub fn open(ui: &mut Ui) {
    let help = match super::layer::top_down(ui, |l| l.help()) {
        Some(help) => HelpLayer::layer(help),
        None => HelpLayer::surface(&ui.screens.of(ui.tab).bindings()),
    };
    ui.layers.push(help);
}

/// One line of the laid-out help.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HelpLine {
    Title(String),
    /// A binding's row (or its continuation: `keys` empty): the key column, the description.
    Row {
        keys: String,
        does: String,
    },
    Blank,
}

impl HelpLine {
    pub fn text(&self) -> String {
        match self {
            Self::Title(t) => t.clone(),
            Self::Row { keys, does } => format!("{keys} {does}"),
            Self::Blank => String::new(),
        }
    }
}

/// The help's `sections` laid out in `width` cells: the key column as wide as the widest key
/// (at most a third of the width; a wider key takes its own line), each description wrapped at
/// spaces beside it.
pub fn help_lines(sections: &[Section], width: usize) -> Vec<HelpLine> {
    let key_w = sections
        .iter()
        .flat_map(|s| s.rows.iter())
        .map(|(k, _)| display_width(k))
        .filter(|&w| w <= width / 3)
        .max()
        .unwrap_or(0);
    let indent = 2usize;
    let does_w = width.saturating_sub(indent + key_w + 2).max(1);
    let mut out = Vec::new();
    for (i, section) in sections.iter().enumerate() {
        if i > 0 {
            out.push(HelpLine::Blank);
        }
        out.extend(
            wrap_words(&sanitize(&section.title), width)
                .into_iter()
                .map(HelpLine::Title),
        );
        for (keys, does) in &section.rows {
            let keys = sanitize(keys);
            let does = sanitize(does);
            if display_width(&keys) > key_w {
                // The key alone on its line(s), the description below in the column.
                for part in wrap_words(&keys, width.saturating_sub(indent)) {
                    out.push(HelpLine::Row {
                        keys: part,
                        does: String::new(),
                    });
                }
                for part in wrap_words(&does, does_w) {
                    out.push(HelpLine::Row {
                        keys: String::new(),
                        does: part,
                    });
                }
                continue;
            }
            for (n, part) in wrap_words(&does, does_w).into_iter().enumerate() {
                out.push(HelpLine::Row {
                    keys: if n == 0 {
                        keys.to_string()
                    } else {
                        String::new()
                    },
                    does: part,
                });
            }
        }
    }
    out
}

/// A wide character (Korean, emoji) in the column left of `pane` spans into the pane's first
/// column: the terminal would draw its right half over the overlay's left border. Such a cell
/// becomes a blank (the overlay covers that half anyway).
pub fn clear_wide_overhang(pane: Rect, buf: &mut Buffer) {
    // A cluster painted at the terminal's width (C-70, `view::terminal::cells`) spans up to 4 cells, so
    // the three columns left of the pane are looked at.
    for k in 1..=3u16 {
        let Some(x) = pane.x.checked_sub(k) else {
            return;
        };
        for y in pane.top()..pane.bottom() {
            if let Some(cell) = buf.cell_mut((x, y))
                && (crate::view::text::grapheme_width(cell.symbol()) > usize::from(k)
                    || unicode_width::UnicodeWidthStr::width(cell.symbol()) > usize::from(k))
            {
                cell.reset();
            }
        }
    }
}

/// Paints the help within `area` (the body between header and footer).
pub fn render_help(help: &HelpLayer, ctx: &ProjectionCtx, area: Rect, buf: &mut Buffer) {
    let theme = ctx.theme;
    let (pane, inner_w, rows) = help.pane(area);
    let lines = help_lines(&help.sections, inner_w);
    let key_w = lines
        .iter()
        .filter_map(|l| match l {
            HelpLine::Row { keys, does } if !does.is_empty() && !keys.is_empty() => {
                Some(display_width(keys))
            }
            _ => None,
        })
        .max()
        .unwrap_or(0);
    let hits = help.matching_lines(inner_w);
    let scroll = help.scroll.min(lines.len().saturating_sub(rows));
    let shown: Vec<Line> = lines
        .iter()
        .enumerate()
        .skip(scroll)
        .take(rows)
        .map(|(i, line)| {
            let hit = hits.contains(&i);
            let mut l = match line {
                HelpLine::Title(t) => Line::styled(t.clone(), theme.style(Tone::Strong)),
                HelpLine::Blank => Line::raw(""),
                HelpLine::Row { keys, does } if does.is_empty() => Line::from(vec![Span::styled(
                    format!("  {keys}"),
                    theme.style(Tone::Accent),
                )]),
                HelpLine::Row { keys, does } => {
                    let pad = key_w.saturating_sub(display_width(keys));
                    Line::from(vec![
                        Span::styled(
                            format!("  {keys}{}  ", " ".repeat(pad)),
                            theme.style(Tone::Accent),
                        ),
                        Span::raw(does.clone()),
                    ])
                }
            };
            if hit {
                l = l.patch_style(theme.selected());
            }
            l
        })
        .collect();
    let more = lines.len() > rows;
    let title = match &help.search {
        Some(s) => format!(
            " help · /{}{} · {} found ",
            sanitize(&s.query),
            if s.typing { "▏" } else { "" },
            hits.len()
        ),
        None if more => format!(
            " help {}–{} of {} · j/k scroll · / search · Esc closes ",
            scroll + 1,
            (scroll + rows).min(lines.len()),
            lines.len()
        ),
        None => " help · / search · Esc closes ".to_string(),
    };
    let title = crate::view::text::fit_width(&title, inner_w).into_owned();
    Clear.render(pane, buf);
    clear_wide_overhang(pane, buf);
    Paragraph::new(shown)
        .block(Block::bordered().title(title))
        .render(pane, buf);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::theme::Theme;

    const SAMPLE: Table = Table {
        title: "Keeper chat keys",
        bindings: &[bindings::bind("Ctrl-F", &[bindings::ENTER], "origin")],
    };

    fn sample() -> HelpLayer {
        HelpLayer::surface(&[&SAMPLE])
    }

    #[test]
    fn issue14_a_wide_character_left_of_the_overlay_never_covers_its_border() {
        let area = Rect::new(0, 0, 80, 12);
        let mut buf = Buffer::empty(area);
        // Korean and emoji under the whole screen, at every column parity.
        for y in 0..12 {
            buf.set_string(
                y % 2,
                y,
                "한국어 🙂 ".repeat(20),
                ratatui::style::Style::default(),
            );
        }
        let ctx = ProjectionCtx::now(Theme::plain());
        let help = sample();
        render_help(&help, &ctx, area, &mut buf);
        let (pane, _, _) = help.pane(area);
        let left = pane.x;
        let bordered: Vec<u16> = (0..12)
            .filter(|y| {
                let s = buf
                    .cell((left, *y))
                    .map(|c| c.symbol().to_string())
                    .unwrap_or_default();
                s == "│" || s == "┌" || s == "└"
            })
            .collect();
        assert!(!bordered.is_empty());
        for y in bordered {
            let before = buf
                .cell((left - 1, y))
                .map(|c| c.symbol().to_string())
                .unwrap_or_default();
            assert!(
                unicode_width::UnicodeWidthStr::width(before.as_str()) <= 1,
                "row {y}: a wide {before:?} left of the border spans into it"
            );
        }
    }

    #[test]
    fn lines_fit_the_width_and_keep_every_word() {
        let sections = vec![Section {
            title: "Keepers keys".into(),
            rows: vec![
                ("j / k".into(), "move the selection one row".into()),
                (
                    "a very long key description that is wide".into(),
                    "what it does, in several words that wrap".into(),
                ),
            ],
        }];
        for width in [20usize, 40, 76] {
            let lines = help_lines(&sections, width);
            let text: Vec<String> = lines.iter().map(HelpLine::text).collect();
            for line in &text {
                assert!(display_width(line) <= width + 2, "{line:?} at {width}");
            }
            let words: Vec<&str> = text.iter().flat_map(|l| l.split_whitespace()).collect();
            for (k, d) in &sections[0].rows {
                for w in k.split_whitespace().chain(d.split_whitespace()) {
                    assert!(words.contains(&w), "{w} cut at width {width}");
                }
            }
        }
    }
}
