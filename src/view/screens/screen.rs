//! One trait every surface's screen implements, so the frame, the footer, the help overlay
//! and key handling route by [`super::screen_of`] instead of a match per tab.

use super::{ProjectionCtx, Ui};
use crate::view::command::UiCommand;
use crate::view::editor::EditResult;
use crate::view::model::Model;
use crate::view::theme::Theme;
use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Span;

pub trait Screen: Sync {
    /// Paints the surface into the body area.
    fn render(&self, model: &Model, ui: &Ui, ctx: &ProjectionCtx, area: Rect, buf: &mut Buffer);

    /// The surface's footer hints, after the global ones.
    fn footer(&self, ui: &Ui, theme: Theme) -> Vec<Span<'static>>;

    /// Every key of the surface, for `?`.
    fn help_keys(&self) -> &'static [(&'static str, &'static str)];

    /// A key no overlay or field took.
    fn handle_key(&self, ui: &mut Ui, model: &Model, key: KeyEvent) -> UiCommand;

    /// `r`: what this surface re-reads.
    fn refresh(&self, ui: &mut Ui) -> UiCommand;

    /// An active text field of this surface takes every key first (a search being typed).
    fn typing(&self, _ui: &Ui) -> bool {
        false
    }

    /// A key while [`Screen::typing`].
    fn typing_key(&self, _ui: &mut Ui, _model: &Model, _key: KeyEvent) -> UiCommand {
        UiCommand::None
    }

    /// The footer while [`Screen::typing`] (the field replaces the hints).
    fn typing_footer(&self, _ui: &Ui, _theme: Theme) -> Vec<Span<'static>> {
        Vec::new()
    }

    /// The result of an `$EDITOR` handoff this surface asked for (`UiCommand::Edit` or
    /// `Ui::request_edit`). The default shows what happened; a surface that edits something
    /// matches `result.purpose` and answers with the command that saves it.
    fn edited(&self, ui: &mut Ui, _model: &Model, result: EditResult) -> UiCommand {
        ui.notice = Some(result.notice());
        UiCommand::Repaint
    }

    /// Bracketed paste outside a chat; `true` when the UI changed.
    fn paste(&self, _ui: &mut Ui, _model: &Model, _text: &str) -> bool {
        false
    }
}
