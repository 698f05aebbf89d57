//! Surfaces: pure projections of (model, UI state) into a ratatui [`Buffer`].
//!
//! Layout of every surface: two header rows (tab ring; connection · workspace · admission
//! mode), the surface body, one footer row. Below [`MIN_WIDTH`]×[`MIN_HEIGHT`] a compact resize
//! gate replaces the frame (T.5).

pub mod activity;
pub mod approvals;
pub mod board;
pub mod chat;
pub mod confirm;
pub mod conflict;
pub mod gate_queue;
pub mod header;
pub mod help;
pub mod inspector;
pub mod journal;
pub mod keepers;
pub mod layer;
pub mod local;
pub mod overview;
pub mod palette;
pub mod react;
pub mod reaction;
pub mod screen;
pub mod system;
pub mod widgets;
pub mod work;
pub mod workspaces;

use super::model::Model;
use super::text::fit_width;
use super::theme::{Theme, Tone};
use crate::actors::contract::SourceKey;
use crate::view::command::UiCommand;
use layer::LayerFooter;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;
use std::time::Instant;

/// The roster needs its fixed columns (41 cells) plus readable LIFECYCLE / TASK columns.
pub const MIN_WIDTH: u16 = 60;
/// Header (2) + footer (1) + roster title and column heading (2) + at least 7 rows.
pub const MIN_HEIGHT: u16 = 12;

/// The tab ring (surfaces.md, Oct ring, reduced to what this version has).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tab {
    Overview,
    Work,
    Keepers,
    Board,
    System,
}

impl widgets::Ring for Tab {
    const RING: &'static [Self] = &[
        Tab::Overview,
        Tab::Work,
        Tab::Keepers,
        Tab::Board,
        Tab::System,
    ];
}

impl Tab {
    pub fn title(self) -> &'static str {
        match self {
            Self::Overview => "Overview",
            Self::Work => "Work",
            Self::Keepers => "Keepers",
            Self::Board => "Board",
            Self::System => "System",
        }
    }
}

pub use keepers::{RosterUi, Search};

/// What the UI remembers between frames that is not server data and not one screen's own: the
/// surface in front, the terminal's size, the footer's notice, quit arming, the layers open
/// over the surface, and the mounted screens (each with its own state).
#[derive(Debug)]
pub struct Ui {
    pub tab: Tab,
    /// Terminal size (probed once, and on resize only: T.5).
    pub area: Rect,
    /// The footer's one-line notice and who raised it ([`Notice`]).
    pub notice: Notice,
    /// The first `q` was pressed; a second quits, anything else cancels.
    pub quit_armed: bool,
    /// The overlays open over the surface, bottom first, and what they keep (`layer`).
    pub layers: layer::Layers,
    /// The surfaces of the ring, each owning its state (`screen`).
    pub screens: screen::Screens,
}

impl Default for Ui {
    fn default() -> Self {
        Self {
            tab: Tab::Keepers,
            area: Rect::new(0, 0, 80, 24),
            notice: Notice::default(),
            quit_armed: false,
            layers: layer::Layers::default(),
            screens: screen::Screens::default(),
        }
    }
}

/// The screens mounted for a session, one per tab of the ring.
fn mounted() -> Vec<Box<dyn screen::Screen>> {
    vec![
        Box::new(overview::OverviewScreen),
        Box::new(work::WorkUi::default()),
        Box::new(keepers::KeepersScreen::default()),
        Box::new(board::BoardUi::default()),
        Box::new(system::SystemUi::default()),
    ]
}

/// A one-line notice for the footer (e.g. "refresh requested"). It belongs to what was in
/// front when it was first painted and ends with it ([`Ui::settle_notice`]), or after
/// [`NOTICE_LIFETIME`], or at the next key.
#[derive(Debug, Default)]
pub struct Notice {
    pub text: Option<String>,
    /// Who raised the text shown: [`Ui::settle_notice`] keeps it.
    owner: Option<NoticeOwner>,
}

/// How long a footer notice stays when nothing ends it sooner.
pub const NOTICE_LIFETIME: std::time::Duration = std::time::Duration::from_secs(15);

/// What was in front when a notice was first seen: the tab and how many layers were open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoticeOwner {
    pub text: String,
    pub tab: Tab,
    pub layers: usize,
    pub since: Instant,
}

impl Ui {
    /// A transient line has an owner and a lifetime: a notice not seen before is owned by what
    /// is in front now (the tab, the layer on top); one whose owner is gone (its layer closed,
    /// another tab in front) or older than [`NOTICE_LIFETIME`] ends. Run before each frame.
    pub fn settle_notice(&mut self, now: Instant) {
        let Some(text) = self.notice.text.as_ref() else {
            self.notice.owner = None;
            return;
        };
        match &self.notice.owner {
            Some(owner) if &owner.text == text => {
                let gone = self.layers.len() < owner.layers || self.tab != owner.tab;
                if gone || now.saturating_duration_since(owner.since) >= NOTICE_LIFETIME {
                    self.notice.text = None;
                    self.notice.owner = None;
                }
            }
            _ => {
                self.notice.owner = Some(NoticeOwner {
                    text: text.clone(),
                    tab: self.tab,
                    layers: self.layers.len(),
                    since: now,
                });
            }
        }
    }

    /// Rows of roster entries visible at the current size.
    pub fn roster_page_rows(&self) -> usize {
        body_area(self.area).height.saturating_sub(2) as usize
    }

    /// Below this state's minimum (T.5; the chat's own when a chat is open, C-19).
    pub fn too_small(&self) -> bool {
        let (w, h) = minimum(self);
        self.area.width < w || self.area.height < h
    }

    /// The mounted screen of type `S` (the Work screen's `WorkUi` …); `None` only while that
    /// screen itself handles something.
    pub fn screen<S: screen::Screen>(&self) -> Option<&S> {
        self.screens.get::<S>()
    }

    pub fn screen_mut<S: screen::Screen>(&mut self) -> Option<&mut S> {
        self.screens.get_mut::<S>()
    }

    /// `self` with `screen` mounted in place of the one of its tab (tests, benches).
    pub fn with_screen<S: screen::Screen>(mut self, screen: S) -> Self {
        self.screens.mount(screen);
        self
    }

    /// The topmost open layer of type `L` (the chat, the approvals view …).
    pub fn layer<L: layer::Layer>(&self) -> Option<&L> {
        self.layers.find::<L>()
    }

    pub fn layer_mut<L: layer::Layer>(&mut self) -> Option<&mut L> {
        self.layers.find_mut::<L>()
    }

    /// `self` with `layer` open on top (tests, benches).
    pub fn with_layer<L: layer::Layer>(mut self, layer: L) -> Self {
        self.layers.push(layer);
        self
    }
}

/// Where an edit was asked from, and where its result goes: the layer in front that asks for
/// edits (the open chat, the approvals view), or the surface. An edit whose owner is no longer
/// in front when the editor would open is cancelled (H-2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EditOwner {
    Layer(LayerOwner),
    Surface(Tab),
}

/// A layer that asked for an edit: its kind and what it is open on.
#[derive(Clone)]
pub struct LayerOwner {
    pub kind: &'static str,
    /// The workspace it was opened in (the chat's draft key), or empty.
    pub workspace: String,
    /// What in that workspace (the chat's Keeper), or empty.
    pub key: String,
    /// Takes a result that comes back after the layer closed (e.g. a move while the editor
    /// was opening): the layer kind's state that outlives it.
    pub closed: fn(&mut Ui, &LayerOwner, crate::view::editor::EditResult) -> UiCommand,
}

impl PartialEq for LayerOwner {
    fn eq(&self, other: &Self) -> bool {
        self.kind == other.kind && self.workspace == other.workspace && self.key == other.key
    }
}

impl Eq for LayerOwner {}

impl std::fmt::Debug for LayerOwner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LayerOwner")
            .field("kind", &self.kind)
            .field("workspace", &self.workspace)
            .field("key", &self.key)
            .finish()
    }
}

/// What is in front now.
pub fn edit_owner(ui: &Ui) -> EditOwner {
    layer::top_down(ui, |l| l.edit_owner()).unwrap_or(EditOwner::Surface(ui.tab))
}

/// Hands an edit's result to its owner's continuation.
pub fn edited(
    owner: EditOwner,
    ui: &mut Ui,
    model: &Model,
    result: crate::view::editor::EditResult,
) -> UiCommand {
    match owner {
        EditOwner::Layer(layer) => {
            match layer::deliver_edit(ui, model, &EditOwner::Layer(layer.clone()), result) {
                Ok(cmd) => cmd,
                Err(result) => (layer.closed)(ui, &layer, result),
            }
        }
        EditOwner::Surface(tab) => {
            screen::with_screen(ui, tab, |screen, ui| screen.edited(ui, model, result))
        }
    }
}

/// The sources whose slots the screen shown by `ui` reads. The view tells every
/// source whether it is in this list (`SourceControl::Visible`); a source with a cadence that
/// is not polls slower until it is shown again (`crate::actors::read::hidden_period`), and is
/// read at once when it is shown and its visible period has passed. Sources without a cadence
/// (chat hub, asks, saves, settings, runtime config) are listed where read for completeness;
/// the workspace actor (`/health`, the header) is never slowed. The Workspace Gate mode is
/// shown only in a chat; the Runtime catalogue on the Keepers screen only while the `U` picker
/// reads it.
pub fn shown_sources(ui: &Ui) -> &'static [SourceKey] {
    layer::top_down(ui, |l| l.shown_sources())
        .unwrap_or_else(|| ui.screens.of(ui.tab).shown_sources())
}

/// Clocks a projection reads (passed in so projections stay pure and testable).
#[derive(Debug, Clone, Copy)]
pub struct ProjectionCtx {
    pub now: Instant,
    /// Wall clock in unix seconds, for `turn_started_at` ages.
    pub now_unix: f64,
    pub theme: Theme,
    /// Roster lines the buffer already holds as this frame paints them (a frame
    /// repainted in part after a data change, `frame::FramePainter`); none for every other
    /// frame.
    pub kept_roster_lines: keepers::roster::paint::KeptLines,
}

impl ProjectionCtx {
    pub fn now(theme: Theme) -> Self {
        let now_unix = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs_f64())
            .unwrap_or(0.0);
        Self {
            now: Instant::now(),
            now_unix,
            theme,
            kept_roster_lines: keepers::roster::paint::KeptLines::default(),
        }
    }
}

pub fn too_small(area: Rect) -> bool {
    area.width < MIN_WIDTH || area.height < MIN_HEIGHT
}

/// The smallest frame this UI state draws (T.5): the whole app's 60×12, or a layer's own (with
/// a chat open the chat's 41 columns and 3 transcript rows, C-19).
pub fn minimum(ui: &Ui) -> (u16, u16) {
    layer::top_down(ui, |l| l.minimum()).unwrap_or((MIN_WIDTH, MIN_HEIGHT))
}

/// The rows between the header and the footer.
pub fn body_area(area: Rect) -> Rect {
    Rect::new(
        area.x,
        area.y.saturating_add(2),
        area.width,
        area.height.saturating_sub(3),
    )
}

/// Paints one whole frame.
pub fn render(model: &Model, ui: &Ui, ctx: &ProjectionCtx, area: Rect, buf: &mut Buffer) {
    render_with_cursor(model, ui, ctx, area, buf);
}

/// Paints one whole frame and returns where the terminal cursor goes (the chat composer's
/// cursor cell; `None`: hidden).
pub fn render_with_cursor(
    model: &Model,
    ui: &Ui,
    ctx: &ProjectionCtx,
    area: Rect,
    buf: &mut Buffer,
) -> Option<(u16, u16)> {
    let (min_w, min_h) = minimum(ui);
    if area.width < min_w || area.height < min_h {
        render_resize_gate(area, (min_w, min_h), buf, ctx.theme);
        return None;
    }
    header::render(
        model,
        ui,
        ctx,
        Rect::new(area.x, area.y, area.width, 2),
        buf,
    );
    let body = body_area(area);
    let footer = Rect::new(
        area.x,
        area.y + area.height.saturating_sub(1),
        area.width,
        1,
    );
    let cursor = layer::render(
        model,
        ui,
        ctx,
        area,
        buf,
        |buf| ui.screens.of(ui.tab).render(model, ui, ctx, body, buf),
        |buf| render_footer(model, ui, ctx, footer, buf),
    );
    cursor.filter(|_| !ui.quit_armed)
}

/// T.5: a compact message instead of a clipped frame.
fn render_resize_gate(area: Rect, (min_w, min_h): (u16, u16), buf: &mut Buffer, theme: Theme) {
    let lines = [
        "terminal too small".to_string(),
        format!("{}x{} < {}x{}", area.width, area.height, min_w, min_h),
        "enlarge it · q q quits".to_string(),
    ];
    let top = area.y + area.height.saturating_sub(lines.len() as u16) / 2;
    for (i, text) in lines.iter().enumerate() {
        let y = top + i as u16;
        if y >= area.bottom() {
            break;
        }
        let shown = fit_width(text, area.width as usize);
        let x = area.x
            + (area
                .width
                .saturating_sub(super::text::display_width(&shown) as u16))
                / 2;
        buf.set_string(x, y, &shown, theme.style(Tone::Strong));
    }
}

fn render_footer(model: &Model, ui: &Ui, ctx: &ProjectionCtx, area: Rect, buf: &mut Buffer) {
    let theme = ctx.theme;
    // The top layer with a footer of its own decides it.
    let in_front = layer::top_down(ui, |l| l.footer(model, ui, theme));
    let line = if ui.quit_armed {
        Line::from(vec![Span::styled(
            "press q again to quit · any other key cancels",
            theme.style(Tone::Warn),
        )])
    } else if let Some(LayerFooter::Painted) = in_front {
        return;
    } else if ui.screens.of(ui.tab).typing() {
        Line::from(ui.screens.of(ui.tab).typing_footer(ui, theme))
    } else {
        // The notice and the search go first: hints are what a narrow footer may lose.
        let mut spans = Vec::new();
        if let Some(notice) = &ui.notice.text {
            spans.push(Span::styled(
                format!("{notice} · "),
                theme.style(Tone::Accent),
            ));
        }
        let screen = ui.screens.of(ui.tab);
        spans.extend(screen.recall(theme));
        match in_front {
            Some(LayerFooter::Spans(layer)) => spans.extend(layer),
            _ => {
                spans.extend(screen.footer(ui, theme));
                let used: usize = spans.iter().map(|s| s.width()).sum();
                let mut tables = screen.bindings();
                tables.push(&crate::view::bindings::RING);
                let room = usize::from(area.width).saturating_sub(used);
                spans.push(Span::styled(
                    crate::view::bindings::footer_hints(&tables, room),
                    theme.style(Tone::Dim),
                ));
            }
        }
        Line::from(spans)
    };
    line.render(area, buf);
}

#[cfg(test)]
mod notice_tests {
    use super::*;
    use crate::view::screens::help::HelpLayer;

    /// A notice belongs to what was in front when it was first painted.
    #[test]
    fn a_notice_ends_with_its_layer_its_tab_or_its_lifetime() {
        let now = Instant::now();
        let mut ui = Ui::default().with_layer(HelpLayer::new(Vec::new()));
        ui.notice.text = Some("raised by the layer".into());
        ui.settle_notice(now);
        assert!(ui.notice.text.is_some(), "first seen: owned, kept");
        ui.settle_notice(now);
        assert!(ui.notice.text.is_some(), "its owner is still in front");
        ui.layers.remove::<HelpLayer>();
        ui.settle_notice(now);
        assert_eq!(ui.notice.text, None, "its layer closed");

        ui.notice.text = Some("raised on Keepers".into());
        ui.settle_notice(now);
        ui.tab = Tab::Work;
        ui.settle_notice(now);
        assert_eq!(ui.notice.text, None, "another surface in front");

        ui.notice.text = Some("raised on Work".into());
        ui.settle_notice(now);
        ui.settle_notice(now + NOTICE_LIFETIME / 2);
        assert!(ui.notice.text.is_some());
        ui.settle_notice(now + NOTICE_LIFETIME);
        assert_eq!(ui.notice.text, None, "its time is up");

        ui.notice.text = Some("a new one".into());
        ui.settle_notice(now + NOTICE_LIFETIME);
        assert!(
            ui.notice.text.is_some(),
            "a new text has a new owner and time"
        );
    }
}
