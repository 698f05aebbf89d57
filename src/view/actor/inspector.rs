//! The view actor's side of the turn-inspector source (sources.md K-15, K-17): `r` re-reads
//! one reading explicitly (`UiCommand::Inspector`); `H` re-reads a Keeper's records with a
//! wider `limit` (`UiCommand::InspectorWiden`). What an open inspector reads by itself is its
//! layer's reaction (`screens::turn_reads::read_wanted`).

use super::ViewState;
use crate::actors::inspector::{InspectorCommand, InspectorSlot, TURN_INSPECTOR};
use crate::view::inspector::NotWidened;
use crate::view::presenter::FrameSink;

impl<B: FrameSink> ViewState<B> {
    /// `r` in an inspector: re-read `slot` now. `Some(notice)` when it could not be sent.
    pub(super) fn inspector_reread(&mut self, slot: InspectorSlot) -> Option<&'static str> {
        let cmd = self.model.inspector.reread(slot.clone());
        self.send_inspector(slot, cmd)
    }

    /// `H` in the `O` inspector: re-read `keeper`'s records with the next wider `limit`.
    /// `Some(notice)` when nothing was sent.
    pub(super) fn inspector_widen(&mut self, keeper: &str) -> Option<&'static str> {
        match self.model.inspector.widen(keeper) {
            Ok(cmd) => self.send_inspector(InspectorSlot::Records(keeper.to_string()), cmd),
            Err(NotWidened::AtMaximum) => {
                Some("already reading MASC's maximum: its 500 newest turn records")
            }
        }
    }

    fn send_inspector(
        &mut self,
        slot: InspectorSlot,
        cmd: InspectorCommand,
    ) -> Option<&'static str> {
        match self.command(TURN_INSPECTOR, cmd) {
            Ok(()) => None,
            Err(stopped) => {
                self.model.inspector.unwant(&slot);
                Some(if stopped {
                    "not sent: turn inspector source stopped"
                } else {
                    "not sent: turn inspector source not running"
                })
            }
        }
    }
}
