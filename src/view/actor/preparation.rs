//! The view actor's side of the preparation detail (sources.md M-9, C-30): after a key or a
//! delivery the open chat's details aim is computed again; a target not read yet is sent to
//! the preparation source as one cast (never awaited), and the chat's detail row follows the
//! model.

use super::ViewState;
use crate::actors::preparation::{PREPARATION, PreparationCommand};
use crate::view::chat::preparation::{aim_of, sync};
use crate::view::preparation::Aim;
use crate::view::presenter::FrameSink;

impl<B: FrameSink> ViewState<B> {
    pub(super) fn settle_preparation(&mut self) {
        let details = self
            .ui
            .layer::<crate::view::screens::chat::ChatUi>()
            .map(|c| (c.keeper.clone(), c.modes.details));
        let aim = match (self.model.chat.pane.as_ref(), details) {
            (Some(pane), Some((keeper, true))) if pane.keeper == keeper => aim_of(pane, true),
            _ => Aim::Nothing,
        };
        // Unchanged, the aim is not touched: a `&mut` access of the model counts as a change
        // (a whole next frame, `crate::view::frame`).
        if self.model.preparation.aim != aim {
            match self.model.preparation.aim(aim) {
                Some(target) => {
                    if self
                        .command(PREPARATION, PreparationCommand::Read(target))
                        .is_err()
                    {
                        // The source is not up: aim again on the next key or delivery.
                        self.model.preparation.aim(Aim::Nothing);
                    }
                }
                // Another aim with nothing to read (folded, a conflict, a report already
                // read): the source's M-2 re-check of the old target ends.
                None => {
                    let _ = self.command(PREPARATION, PreparationCommand::Stop);
                }
            }
        }
        if let Some(pane) = self.model.chat.pane.as_ref() {
            sync(&self.model.preparation, pane);
        }
    }
}
