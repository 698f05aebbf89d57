//! What the chat keeps while it is closed, and what it does then: the drafts by (workspace,
//! Keeper), kept across navigation and errors (C-65); after every admitted delivery the open
//! pane's effects and the inputs held behind an interrupt (§14.13), which may be released after
//! the chat closed; after a delivery or a key the preparation detail's aim (M-9, C-30).

use super::{ChatUi, after_observed};
use crate::actors::preparation_report::{PREPARATION_REPORT, PreparationReportCommand};
use crate::view::chat::preparation_report::{aim_of, sync};
use crate::view::composer::DraftStore;
use crate::view::preparation_report::Aim;
use crate::view::screens::Ui;
use crate::view::screens::layer::Kept;
use crate::view::screens::react::{ReactCx, Seen};

/// The chat's drafts, kept after it closes.
#[derive(Debug, Default)]
pub struct ChatKept {
    pub drafts: DraftStore,
}

impl Kept for ChatKept {
    fn react(ui: &mut Ui, cx: &mut ReactCx<'_>, seen: Seen) {
        match seen {
            Seen::Delivered => {
                // Nothing is painted from here: the default theme is never used.
                after_observed(ui, &mut cx.effects(crate::view::theme::Theme::default()));
                aim_preparation(ui, cx);
            }
            // Ctrl-S (or a move) re-aims the chat's preparation detail.
            Seen::Key => aim_preparation(ui, cx),
            Seen::Identity | Seen::Restarted(_) => {}
        }
    }
}

/// The open chat's details aim, computed again; a target not read yet is sent to the
/// preparation source as one cast (never awaited), and the chat's detail row follows the model.
fn aim_preparation(ui: &Ui, cx: &mut ReactCx<'_>) {
    let details = ui
        .layer::<ChatUi>()
        .map(|c| (c.keeper.clone(), c.modes.details));
    let aim = match (cx.model().chat.pane.as_ref(), details) {
        (Some(pane), Some((keeper, true))) if pane.keeper == keeper => aim_of(pane, true),
        _ => Aim::Nothing,
    };
    // Unchanged, the aim is not touched: a `&mut` access of the model counts as a change
    // (a whole next frame, `crate::view::frame`).
    if cx.model().preparation.aim != aim {
        match cx.model_mut().preparation.aim(aim) {
            Some(target) => {
                if cx
                    .send(PREPARATION_REPORT, PreparationReportCommand::Read(target))
                    .is_err()
                {
                    // The source is not up: aim again on the next key or delivery.
                    cx.model_mut().preparation.aim(Aim::Nothing);
                }
            }
            // Another aim with nothing to read (folded, a conflict, a report already read):
            // the source's M-2 re-check of the old target ends.
            None => {
                let _ = cx.send(PREPARATION_REPORT, PreparationReportCommand::Stop);
            }
        }
    }
    let model = cx.model();
    if let Some(pane) = model.chat.pane.as_ref() {
        sync(&model.preparation, pane);
    }
}
