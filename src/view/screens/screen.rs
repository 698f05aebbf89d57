//! The surfaces of the tab ring as values: each [`Screen`] owns its state (drafts, forms,
//! cursors, pickers) and is mounted once in [`Screens`] for the whole session, so the frame, the
//! footer, the help and key handling route by [`Screens::of`] instead of a match per tab, and
//! the central `Ui` holds no per-feature field.
//!
//! While a screen handles a key, a paste or an edit's result it is taken out of the ring: it
//! gets itself (`&mut self`) and the rest of the UI (the other screens, the layers, the tab,
//! the notice).

use super::reaction::{ReactCx, Seen};
use super::{ProjectionCtx, Tab, Ui};
use crate::actors::contract::SourceKey;
use crate::view::command::UiCommand;
use crate::view::editor::EditResult;
use crate::view::model::Model;
use crate::view::theme::Theme;
use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Span;
use std::any::Any;
use std::fmt;

pub trait Screen: Any + Send + fmt::Debug {
    /// Its place in the ring.
    fn tab(&self) -> Tab;

    /// Paints the surface into the body area.
    fn render(&self, model: &Model, ui: &Ui, ctx: &ProjectionCtx, area: Rect, buf: &mut Buffer);

    /// What the footer says of the surface's state before the key hints (the hints are made
    /// from [`Screen::bindings`]).
    fn footer(&self, _ui: &Ui, _theme: Theme) -> Vec<Span<'static>> {
        Vec::new()
    }

    /// What the footer recalls while this surface is shown and keeps it (the roster's search
    /// with its `n`/`N`), after the notice.
    fn recall(&self, _theme: Theme) -> Option<Span<'static>> {
        None
    }

    /// The binding tables of the surface in its current state: `?` lists them, the footer
    /// shows their short hints.
    fn bindings(&self) -> Vec<&'static crate::view::bindings::Table>;

    /// A key no layer or field took.
    fn handle_key(&mut self, ui: &mut Ui, model: &Model, key: KeyEvent) -> UiCommand;

    /// A left click at (`column`, `row`) of the body (its top-left is 0, 0): a row of the
    /// surface's list is selected.
    fn click(&mut self, _ui: &mut Ui, _model: &Model, _column: u16, _row: u16) -> UiCommand {
        UiCommand::None
    }

    /// `r`: what this surface re-reads.
    fn refresh(&mut self, ui: &mut Ui) -> UiCommand;

    /// An active text field of this surface takes every key first (a search being typed).
    fn typing(&self) -> bool {
        false
    }

    /// A key while [`Screen::typing`].
    fn typing_key(&mut self, _ui: &mut Ui, _model: &Model, _key: KeyEvent) -> UiCommand {
        UiCommand::None
    }

    /// The footer while [`Screen::typing`] (the field replaces the hints).
    fn typing_footer(&self, _ui: &Ui, _theme: Theme) -> Vec<Span<'static>> {
        Vec::new()
    }

    /// `Esc` before anything else sees it: `true` when it cancelled something this screen was
    /// waiting for (a preparation, H-2) and must do nothing else.
    fn escape(&mut self, _ui: &mut Ui) -> bool {
        false
    }

    /// The result of an `$EDITOR` handoff this surface asked for (`UiCommand::Edit`). The
    /// default shows what happened; a surface that edits something matches `result.purpose`
    /// and answers with the command that saves it.
    fn edited(&mut self, ui: &mut Ui, _model: &Model, result: EditResult) -> UiCommand {
        ui.notice.text = Some(result.notice());
        UiCommand::Repaint
    }

    /// Bracketed paste outside a layer; `true` when the UI changed.
    fn paste(&mut self, _ui: &mut Ui, _model: &Model, _text: &str) -> bool {
        false
    }

    /// The sources whose slots the surface reads while it is shown
    /// ([`super::shown_sources`]).
    fn shown_sources(&self) -> &'static [SourceKey];

    /// The reaction hook: what this screen does about `seen` (an admitted delivery, an identity
    /// change, a key, a restarted source) — whether it is shown or not.
    fn react(&mut self, _ui: &mut Ui, _cx: &mut ReactCx<'_>, _seen: Seen) {}
}

/// The mounted screens, one per tab.
#[derive(Debug)]
pub struct Screens {
    mounted: Vec<Box<dyn Screen>>,
}

impl Default for Screens {
    fn default() -> Self {
        Self {
            mounted: super::mounted(),
        }
    }
}

impl Screens {
    /// The screen of `tab`.
    pub fn of(&self, tab: Tab) -> &dyn Screen {
        match self.mounted.iter().find(|s| s.tab() == tab) {
            Some(screen) => screen.as_ref(),
            None => &VACANT,
        }
    }

    /// The mounted screen of type `S` (`None` only while it handles something itself).
    pub fn get<S: Screen>(&self) -> Option<&S> {
        self.mounted
            .iter()
            .find_map(|s| (s.as_ref() as &dyn Any).downcast_ref::<S>())
    }

    pub fn get_mut<S: Screen>(&mut self) -> Option<&mut S> {
        self.mounted
            .iter_mut()
            .find_map(|s| (s.as_mut() as &mut dyn Any).downcast_mut::<S>())
    }

    /// Mounts `screen` in place of the one of its tab.
    pub fn mount<S: Screen>(&mut self, screen: S) {
        let tab = screen.tab();
        match self.mounted.iter().position(|s| s.tab() == tab) {
            Some(at) => self.mounted[at] = Box::new(screen),
            None => self.mounted.push(Box::new(screen)),
        }
    }

    /// Every mounted screen, in ring order.
    pub fn iter(&self) -> impl Iterator<Item = &dyn Screen> {
        self.mounted.iter().map(|s| s.as_ref())
    }

    fn tabs(&self) -> Vec<Tab> {
        self.mounted.iter().map(|s| s.tab()).collect()
    }
}

/// Runs `f` on the screen of `tab` taken out of the ring (the rest of the UI beside it).
pub fn with_screen<R>(ui: &mut Ui, tab: Tab, f: impl FnOnce(&mut dyn Screen, &mut Ui) -> R) -> R {
    let at = ui.screens.mounted.iter().position(|s| s.tab() == tab);
    let Some(at) = at else {
        return f(&mut Vacant(tab), ui);
    };
    let mut screen = std::mem::replace(&mut ui.screens.mounted[at], Box::new(Vacant(tab)));
    let out = f(screen.as_mut(), ui);
    ui.screens.mounted[at] = screen;
    out
}

/// Runs the reaction hook on every mounted screen, in ring order.
pub fn react_all(ui: &mut Ui, cx: &mut ReactCx<'_>, seen: Seen) {
    for tab in ui.screens.tabs() {
        with_screen(ui, tab, |screen, ui| screen.react(ui, cx, seen));
    }
}

static VACANT: Vacant = Vacant(Tab::Keepers);

/// Stands in for a screen taken out of the ring (and for a tab without a screen).
#[derive(Debug)]
struct Vacant(Tab);

impl Screen for Vacant {
    fn tab(&self) -> Tab {
        self.0
    }

    fn render(&self, _: &Model, _: &Ui, _: &ProjectionCtx, _: Rect, _: &mut Buffer) {}

    fn bindings(&self) -> Vec<&'static crate::view::bindings::Table> {
        Vec::new()
    }

    fn handle_key(&mut self, _: &mut Ui, _: &Model, _: KeyEvent) -> UiCommand {
        UiCommand::None
    }

    fn refresh(&mut self, _: &mut Ui) -> UiCommand {
        UiCommand::None
    }

    fn shown_sources(&self) -> &'static [SourceKey] {
        &[]
    }
}
