//! The open chat as a layer over the Keepers surface: it covers the body, takes every key
//! (typed text never reaches the roster or the tab ring) and every paste, paints its own
//! footer (the composer's, C-63), runs from its own minimum (C-19), and asks for the drafts'
//! edits (`Ctrl-X`).

use super::{CHAT_HELP, CHAT_MIN_HEIGHT, CHAT_MIN_TERMINAL_COLS, ChatUi};
use crate::actors::contract::SourceKey;
use crate::view::command::UiCommand;
use crate::view::editor::EditResult;
use crate::view::model::Model;
use crate::view::screens::layer::{Handled, Layer, LayerCx, LayerFooter, LayerHelp};
use crate::view::screens::{EditOwner, LayerOwner, ProjectionCtx, Ui};
use crate::view::theme::Theme;
use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

impl Layer for ChatUi {
    fn key(&mut self, cx: &mut LayerCx<'_>, key: KeyEvent) -> Handled {
        Handled::Consumed(super::keys::handle(self, cx.ui, cx.model, key))
    }

    fn paste(&mut self, cx: &mut LayerCx<'_>, text: &str) -> Option<bool> {
        Some(super::keys::paste(self, cx.ui.area, text))
    }

    fn render(
        &self,
        model: &Model,
        ui: &Ui,
        ctx: &ProjectionCtx,
        _frame: Rect,
        body: Rect,
        buf: &mut Buffer,
    ) -> Option<(u16, u16)> {
        super::render(self, model, ui, ctx, body, buf)
    }

    fn covers_body(&self) -> bool {
        true
    }

    fn footer(&self, _model: &Model, _ui: &Ui, _theme: Theme) -> Option<LayerFooter> {
        Some(LayerFooter::Painted)
    }

    fn help(&self) -> Option<LayerHelp> {
        Some(CHAT_HELP)
    }

    fn minimum(&self) -> Option<(u16, u16)> {
        Some((CHAT_MIN_TERMINAL_COLS as u16, CHAT_MIN_HEIGHT))
    }

    fn shown_sources(&self) -> Option<&'static [SourceKey]> {
        use crate::actors::{
            chat::CHAT_HUB,
            decisions::DECISIONS,
            keeper_detail::{KEEPER_DETAIL, WORKSPACE_GATE},
            keepers::ROSTER,
        };
        Some(&[CHAT_HUB, KEEPER_DETAIL, DECISIONS, ROSTER, WORKSPACE_GATE])
    }

    fn edit_owner(&self) -> Option<EditOwner> {
        Some(EditOwner::Layer(LayerOwner {
            kind: "chat",
            workspace: self.workspace.clone(),
            key: self.keeper.clone(),
            closed: super::edit::edited_closed,
        }))
    }

    fn edited(&mut self, _cx: &mut LayerCx<'_>, result: EditResult) -> UiCommand {
        super::edit::edited(self, result)
    }

    /// Notes when this chat's turn ends (the `Esc` rule, [`super::ESC_AFTER_TURN`]).
    fn react(
        &mut self,
        _ui: &mut Ui,
        cx: &mut crate::view::screens::react::ReactCx<'_>,
        _seen: crate::view::screens::react::Seen,
    ) {
        let running = super::control::running_send(cx.model(), &self.keeper).is_some();
        if self.turn_running && !running {
            self.turn_ended = Some(std::time::Instant::now());
        }
        self.turn_running = running;
    }
}
