//! The approvals view as a layer over the surface it was opened from: it covers the body; the
//! global quit arming and `q`, `?` stay global over it (they disarm it), a surface change
//! (`Tab`) closes it — except while the answer reader takes text, which takes every key.

use super::asks::AsksUi;
use super::{ApprovalsUi, footer_view, help_keys, render_view};
use crate::actors::contract::SourceKey;
use crate::actors::inspector::InspectorSlot;
use crate::view::command::UiCommand;
use crate::view::editor::EditResult;
use crate::view::model::Model;
use crate::view::screens::inspector::reads::read_wanted;
use crate::view::screens::layer::{Handled, Layer, LayerCx, LayerFooter, LayerHelp};
use crate::view::screens::react::{ReactCx, Seen};
use crate::view::screens::{EditOwner, LayerOwner, ProjectionCtx, Ui};
use crate::view::theme::{Theme, Tone};
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Span;

impl Layer for ApprovalsUi {
    fn captures(&self) -> bool {
        // The reader's answer input takes every key (K-14: `o`/`O` are text too).
        super::keys::typing(self)
    }

    fn key(&mut self, cx: &mut LayerCx<'_>, key: KeyEvent) -> Handled {
        if !self.captures() {
            match key.code {
                // A surface change closes the view (and disarms).
                KeyCode::Tab | KeyCode::BackTab => {
                    cx.close();
                    return Handled::Passed;
                }
                // Quitting and help stay global; they disarm too.
                KeyCode::Char('q') | KeyCode::Char('?') => {
                    self.armed = None;
                    return Handled::Passed;
                }
                _ => {}
            }
        }
        Handled::Consumed(super::keys::handle(self, cx, key))
    }

    fn paste(&mut self, cx: &mut LayerCx<'_>, text: &str) -> Option<bool> {
        super::keys::paste(self, cx.ui, text).then_some(true)
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
        with_asks(ui, |asks| render_view(model, self, asks, ctx, body, buf));
        None
    }

    fn covers_body(&self) -> bool {
        true
    }

    fn footer(&self, model: &Model, ui: &Ui, theme: Theme) -> Option<LayerFooter> {
        let mut spans = Vec::new();
        if self.armed.is_none() && self.reader.is_none() {
            spans.push(Span::styled("? help · q q quit", theme.style(Tone::Dim)));
        }
        spans.extend(with_asks(ui, |asks| footer_view(model, self, asks, theme)));
        Some(LayerFooter::Spans(spans))
    }

    fn help(&self) -> Option<LayerHelp> {
        Some(LayerHelp::passing(help_keys(self)))
    }

    fn shown_sources(&self) -> Option<&'static [SourceKey]> {
        use crate::actors::{asks::ASKS, decisions::DECISIONS};
        Some(&[DECISIONS, ASKS])
    }

    fn edit_owner(&self) -> Option<EditOwner> {
        Some(EditOwner::Layer(LayerOwner {
            kind: "approvals",
            workspace: String::new(),
            key: String::new(),
            closed: |ui, _, result| answer_edited(ui, result),
        }))
    }

    fn edited(&mut self, cx: &mut LayerCx<'_>, result: EditResult) -> UiCommand {
        answer_edited(cx.ui, result)
    }

    fn react(&mut self, _ui: &mut Ui, cx: &mut ReactCx<'_>, seen: Seen) {
        if seen == Seen::Delivered {
            super::keys::follow_list(self, cx.model());
        }
        if let Seen::Delivered | Seen::Identity | Seen::Key = seen {
            // The `O` inspector reads its pinned turn's records page and serialized input.
            let pinned = self.reader.as_ref().and_then(|r| r.inspector.as_ref());
            if let Some(ins) = pinned {
                let wanted = vec![
                    InspectorSlot::Records(ins.target.keeper.clone()),
                    InspectorSlot::Input(ins.target.clone()),
                ];
                read_wanted(cx, wanted);
            }
        }
    }
}

/// `f` on the Ask drafts kept beside the layers (none yet: empty).
pub fn with_asks<R>(ui: &Ui, f: impl FnOnce(&AsksUi) -> R) -> R {
    match ui.layers.kept::<AsksUi>() {
        Some(asks) => f(asks),
        None => f(&AsksUi::default()),
    }
}

/// The Ask answer's free text (Ctrl-E in the reader), back to its own draft — bound to the
/// Ask and question it was asked for (K-8), whether the view is still open or not.
fn answer_edited(ui: &mut Ui, result: EditResult) -> UiCommand {
    if let Some(notice) = ui
        .layers
        .with_kept(|asks: &mut AsksUi| super::reader::edited(asks, &result))
    {
        ui.notice.text = Some(notice);
    }
    UiCommand::Repaint
}
