//! The view actor's side of the turn-inspector source (sources.md K-15, K-17): after a key, a
//! delivery or an identity change, the reads the open inspectors show and that were not asked
//! for in this epoch are sent as casts (never awaited) — the `O` inspector's records page and
//! serialized input of its pinned turn, `/context`'s records page of the chat target and,
//! once that page is read, the serialized input of its newest turn. Tab entry and scrolling
//! change none of these wants, so they read nothing; `r` re-reads explicitly
//! (`UiCommand::Inspector`); `H` re-reads a Keeper's records with a wider `limit`
//! (`UiCommand::InspectorWiden`).

use super::ViewState;
use crate::actors::inspector::{InspectorCommand, InspectorSlot, TURN_INSPECTOR};
use crate::view::inspector::NotWidened;
use crate::view::presenter::FrameSink;
use crate::view::screens::approvals::ApprovalsUi;
use crate::view::screens::chat::context_tabs::newest_turn;
use crate::view::screens::chat::{ChatOverlay, ChatOverlayLayer};

impl<B: FrameSink> ViewState<B> {
    /// The slots the open inspectors show.
    fn inspector_wants(&self) -> Vec<InspectorSlot> {
        let mut wanted = Vec::new();
        let pinned = self
            .ui
            .layer::<ApprovalsUi>()
            .and_then(|a| a.reader.as_ref())
            .and_then(|r| r.inspector.as_ref());
        if let Some(ins) = pinned {
            wanted.push(InspectorSlot::Records(ins.target.keeper.clone()));
            wanted.push(InspectorSlot::Input(ins.target.clone()));
        }
        if let Some(context) = self.ui.layer::<ChatOverlayLayer>()
            && matches!(context.overlay, ChatOverlay::Context(_))
        {
            wanted.push(InspectorSlot::Records(context.keeper.clone()));
            if let Some(target) = newest_turn(&self.model, &context.keeper) {
                wanted.push(InspectorSlot::Input(target));
            }
        }
        wanted
    }

    pub(super) fn settle_inspector(&mut self) {
        for slot in self.inspector_wants() {
            // Checked first without `&mut`: a `&mut` access of the model counts as a change
            // (a whole next frame, `crate::view::frame`).
            if self.model.inspector.asked(&slot) {
                continue;
            }
            if let Some(cmd) = self.model.inspector.want(slot.clone())
                && self.command(TURN_INSPECTOR, cmd).is_err()
            {
                // The source is not up: asked again on the next key or delivery.
                self.model.inspector.unwant(&slot);
            }
        }
    }

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
