//! The command palette (`:`): a layer over what is in front with one line to
//! type in and the entries it matches, fuzzy-ranked ([`matcher`]): go to any surface or pane,
//! `keeper <name>` (its chat or detail; a name beyond the loaded roster page is asked of the
//! server as `/` asks), and every key of what is in front with what it does ([`entries`], made
//! from the binding tables). What was chosen this session ranks first (a [`Kept`] list).
//! `Esc` closes; nothing is done until `Enter`, and `Enter` presses the entry's key as the
//! operator would, so an armed key still goes through the preview and its confirmation.

pub mod entries;
pub mod matcher;

use super::layer::{Handled, Kept, Layer, LayerCx, LayerFooter, LayerHelp};
use super::{ProjectionCtx, Ui};
use crate::view::bindings::{DOWN, ENTER, ESC, Press, Table, UP, bind};
use crate::view::command::UiCommand;
use crate::view::model::Model;
use crate::view::text::{display_width, fit_width, sanitize_line};
use crate::view::theme::{Theme, Tone};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use entries::{Act, Entry};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Widget};

pub use entries::PALETTE_KEY;

/// The palette's own keys.
pub const PALETTE: Table = Table {
    title: "Command palette keys",
    bindings: &[
        bind(
            "any character, Backspace",
            &[],
            "type the filter (fuzzy: the letters in order)",
        ),
        bind(
            "Up / Down, Ctrl-P / Ctrl-N",
            &[UP, DOWN, Press::ctrl('p'), Press::ctrl('n')],
            "choose an entry",
        ),
        bind(
            "Enter",
            &[ENTER],
            "do it (a key is pressed as you would press it: an armed key previews first)",
        ),
        bind("Esc", &[ESC], "close: nothing is done"),
    ],
};

/// The widest the box grows (cells).
const MAX_WIDTH: u16 = 96;
/// How many entries recent use remembers.
const RECENT: usize = 20;

/// The entries chosen this session, most recent first.
#[derive(Debug, Default)]
pub struct Recent(Vec<Entry>);

impl Kept for Recent {}

impl Recent {
    pub fn entries(&self) -> &[Entry] {
        &self.0
    }

    fn note(&mut self, entry: &Entry) {
        self.0.retain(|e| e != entry);
        self.0.insert(0, entry.clone());
        self.0.truncate(RECENT);
    }

    /// The rank of `entry` among the recent ones (0 the newest), `usize::MAX` when not recent.
    fn rank(&self, entry: &Entry) -> usize {
        self.0.iter().position(|e| e == entry).unwrap_or(usize::MAX)
    }
}

/// One shown line: the entry and where the query matched in its label.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    pub entry: Entry,
    pub positions: Vec<usize>,
}

/// The open palette.
#[derive(Debug, Clone)]
pub struct PaletteLayer {
    query: String,
    /// The chosen line of [`PaletteLayer::shown`].
    pub selected: usize,
    /// What was offered when it opened (over what was in front then).
    offered: Vec<Entry>,
    /// The recent entries when it opened (kept values are not reachable while rendering).
    recent: Vec<Entry>,
    /// Whether the server has Keepers beyond the loaded page (`keeper <name>` asks it).
    beyond_page: bool,
    /// What the query matches now, best first ([`PaletteLayer::shown`]): ranked when the
    /// query changes, not per frame.
    matches: Vec<Shown>,
    /// How an entry's key is pressed on the UI without the palette: the key dispatch, handed
    /// over by the dispatch that opens the palette (the palette does not call back into it).
    press_key: PressKey,
}

/// The key dispatch an entry's key is pressed through.
pub type PressKey = fn(&mut Ui, &Model, KeyEvent) -> UiCommand;

impl PaletteLayer {
    /// The palette over what is in front of `ui`.
    pub fn new(ui: &Ui, model: &Model, press_key: PressKey) -> Self {
        let mut offered = entries::offered(ui, model);
        let recent: Vec<Entry> = ui
            .layers
            .kept::<Recent>()
            .map(|r| r.entries().to_vec())
            .unwrap_or_default();
        // A Keeper asked of the server earlier in the session stays offered (only with no
        // layer open: that is where Keepers are offered at all).
        if ui.layers.is_empty() {
            for entry in &recent {
                if matches!(entry.act, Act::Keeper { .. }) && !offered.contains(entry) {
                    offered.push(entry.clone());
                }
            }
        }
        let mut palette = Self {
            query: String::new(),
            selected: 0,
            offered,
            recent,
            beyond_page: crate::view::screens::keepers::keys::beyond_page(model),
            matches: Vec::new(),
            press_key,
        };
        palette.rank();
        palette
    }

    /// The entries the query matches, best first: by score, then the most recently chosen,
    /// then the order offered (surfaces, Keepers, keys).
    pub fn shown(&self) -> &[Shown] {
        &self.matches
    }

    /// Ranks the entries against the query ([`PaletteLayer::shown`]); after every change of it.
    fn rank(&mut self) {
        let recent = Recent(self.recent.clone());
        let mut all = self.offered.clone();
        if self.beyond_page {
            all.extend(entries::typed(&self.query, &all));
        }
        let mut scored: Vec<(i32, usize, usize, Shown)> = all
            .into_iter()
            .enumerate()
            .filter_map(|(order, entry)| {
                let found = matcher::best(&self.query, &search_text(&entry))?;
                let rank = recent.rank(&entry);
                Some((
                    found.score,
                    rank,
                    order,
                    Shown {
                        entry,
                        positions: found.positions,
                    },
                ))
            })
            .collect();
        scored.sort_by_key(|(score, rank, order, _)| (std::cmp::Reverse(*score), *rank, *order));
        self.matches = scored.into_iter().map(|(_, _, _, shown)| shown).collect();
    }

    fn step(&mut self, down: bool) {
        let len = self.shown().len();
        if len == 0 {
            self.selected = 0;
        } else if down {
            self.selected = (self.selected + 1).min(len - 1);
        } else {
            self.selected = self.selected.saturating_sub(1);
        }
    }

    fn type_char(&mut self, c: char) {
        self.query.push(c);
        self.selected = 0;
        self.rank();
    }
}

/// T.7: typed and pasted text is filtered one scalar at a time; only printable ones enter.
fn typable(c: char) -> bool {
    !c.is_control() && !('\u{80}'..='\u{9f}').contains(&c)
}

/// The text an entry is matched on: its label, then its key (so `p` finds the key `p` too).
fn search_text(entry: &Entry) -> String {
    match &entry.keys {
        Some(keys) => format!("{} {keys}", entry.label),
        None => entry.label.clone(),
    }
}

/// Opens the palette over what is in front.
pub fn open(ui: &mut Ui, model: &Model, press_key: PressKey) -> UiCommand {
    let palette = PaletteLayer::new(ui, model, press_key);
    ui.layers.push(palette);
    UiCommand::Repaint
}

/// Does what `entry` stands for, on the UI without the palette.
pub fn perform(ui: &mut Ui, model: &Model, entry: &Entry, press_key: PressKey) -> UiCommand {
    ui.layers.with_kept::<Recent, _>(|r| r.note(entry));
    match &entry.act {
        Act::Tab(tab) => {
            ui.tab = *tab;
            UiCommand::Repaint
        }
        Act::SystemPane(pane) => {
            ui.tab = super::Tab::System;
            if let Some(system) = ui.screen_mut::<super::system::SystemUi>() {
                system.pane = *pane;
            }
            UiCommand::Repaint
        }
        Act::WorkPane(pane) => {
            ui.tab = super::Tab::Work;
            if let Some(work) = ui.screen_mut::<super::work::WorkUi>() {
                work.pane = *pane;
            }
            UiCommand::Repaint
        }
        Act::Approvals => {
            let tab = ui.tab;
            ui.layers
                .push(super::approvals::ApprovalsUi::opened(tab, model));
            UiCommand::Repaint
        }
        Act::GateQueue => super::gate_queue::open(ui, model),
        Act::Journal => super::journal::open(ui),
        Act::Workspace(name) => super::workspaces::open(ui, model, Some(name)),
        Act::Keeper { name, open, .. } => {
            ui.tab = super::Tab::Keepers;
            let page = ui.roster_page_rows().max(1);
            let opened = ui
                .screen_mut::<super::keepers::KeepersScreen>()
                .and_then(|k| {
                    super::keepers::keys::open_named(&mut k.roster, model, name, *open, page)
                });
            match opened {
                Some(cmd) => cmd,
                None => {
                    ui.notice.text =
                        Some(format!("keeper {}: not on the roster", sanitize_line(name)));
                    UiCommand::Repaint
                }
            }
        }
        Act::Press(press) => press_key(ui, model, press.event()),
    }
}

impl Layer for PaletteLayer {
    fn key(&mut self, cx: &mut LayerCx<'_>, key: KeyEvent) -> Handled {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let cmd = match key.code {
            KeyCode::Esc => {
                cx.close();
                UiCommand::Repaint
            }
            KeyCode::Enter => {
                let chosen = self.shown().get(self.selected).cloned();
                match chosen {
                    Some(shown) => {
                        cx.close();
                        return Handled::Consumed(perform(
                            cx.ui,
                            cx.model,
                            &shown.entry,
                            self.press_key,
                        ));
                    }
                    None => UiCommand::None,
                }
            }
            KeyCode::Up => {
                self.step(false);
                UiCommand::Repaint
            }
            KeyCode::Down => {
                self.step(true);
                UiCommand::Repaint
            }
            KeyCode::Char('p') if ctrl => {
                self.step(false);
                UiCommand::Repaint
            }
            KeyCode::Char('n') if ctrl => {
                self.step(true);
                UiCommand::Repaint
            }
            KeyCode::Backspace if !self.query.is_empty() => {
                self.query.pop();
                self.selected = 0;
                self.rank();
                UiCommand::Repaint
            }
            KeyCode::Char(c)
                if !ctrl && !key.modifiers.contains(KeyModifiers::ALT) && typable(c) =>
            {
                self.type_char(c);
                UiCommand::Repaint
            }
            _ => UiCommand::None,
        };
        Handled::Consumed(cmd)
    }

    fn paste(&mut self, _cx: &mut LayerCx<'_>, text: &str) -> Option<bool> {
        let before = self.query.len();
        for c in text.chars() {
            if typable(c) {
                self.type_char(c);
            }
        }
        Some(self.query.len() != before)
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
        render_box(self, ctx.theme, body, buf)
    }

    fn footer(&self, _model: &Model, _ui: &Ui, theme: Theme) -> Option<LayerFooter> {
        Some(LayerFooter::Spans(vec![Span::styled(
            " : type to filter · ↑/↓ choose · Enter do it · Esc close",
            theme.style(Tone::Dim),
        )]))
    }

    fn help(&self) -> Option<LayerHelp> {
        Some(LayerHelp {
            table: &PALETTE,
            more: &[],
            ring: false,
        })
    }
}

/// The box near the top of the body: the query line, then the matching entries around the
/// chosen one. Returns the cursor cell (after the query).
fn render_box(
    layer: &PaletteLayer,
    theme: Theme,
    body: Rect,
    buf: &mut Buffer,
) -> Option<(u16, u16)> {
    if body.width < 12 || body.height < 4 {
        return None;
    }
    let width = body.width.saturating_sub(4).clamp(8, MAX_WIDTH);
    let inner = usize::from(width - 2);
    let shown = layer.shown();
    let room = usize::from(body.height.saturating_sub(3)).clamp(1, 14);
    let rows = shown.len().min(room).max(1);
    let height = (rows as u16).saturating_add(3).min(body.height);
    let pane = Rect::new(body.x + (body.width - width) / 2, body.y, width, height);
    let query = format!(": {}", sanitize_line(&layer.query));
    let query = fit_width(&query, inner.saturating_sub(1)).into_owned();
    let mut lines = vec![Line::styled(query.clone(), theme.style(Tone::Strong))];
    let selected = layer.selected.min(shown.len().saturating_sub(1));
    let first = selected.saturating_sub(rows.saturating_sub(1));
    if shown.is_empty() {
        lines.push(Line::styled("no match", theme.style(Tone::Dim)));
    }
    for (i, item) in shown.iter().enumerate().skip(first).take(rows) {
        lines.push(entry_line(item, i == selected, inner, theme));
    }
    Clear.render(pane, buf);
    super::help::clear_wide_overhang(pane, buf);
    let title = format!(" command palette · {} ", shown.len());
    Paragraph::new(lines)
        .block(Block::bordered().title(title))
        .render(pane, buf);
    let x = pane.x + 1 + display_width(&query) as u16;
    Some((x.min(pane.right().saturating_sub(2)), pane.y + 1))
}

/// One entry: a marker on the chosen one, the label with its matched letters picked out, and
/// its key at the right.
fn entry_line(item: &Shown, chosen: bool, inner: usize, theme: Theme) -> Line<'static> {
    let keys: String = item
        .entry
        .keys
        .as_deref()
        .map(|k| sanitize_line(k).into_owned())
        .unwrap_or_default();
    let keys_w = display_width(&keys);
    let label_room = inner.saturating_sub(2 + keys_w + usize::from(keys_w > 0));
    let label = fit_width(&item.entry.label, label_room).into_owned();
    let base = if chosen { Tone::Accent } else { Tone::Normal };
    let mut spans = vec![Span::styled(
        if chosen { "› " } else { "  " },
        theme.style(base),
    )];
    for (i, c) in label.chars().enumerate() {
        let tone = if item.positions.contains(&i) {
            Tone::Strong
        } else {
            base
        };
        spans.push(Span::styled(c.to_string(), theme.style(tone)));
    }
    if keys_w > 0 {
        let used = 2 + display_width(&label);
        let pad = inner.saturating_sub(used + keys_w);
        spans.push(Span::raw(" ".repeat(pad)));
        spans.push(Span::styled(keys, theme.style(Tone::Dim)));
    }
    Line::from(spans)
}
