//! The view actor's side of the settings editor `e` (issue 10; sources.md H-1, H-2, H-11): the
//! preparation is recorded and one read is sent to the preparation source — a cast, never
//! awaited. What the snapshot does when it arrives is `screens::keepers::settings::settle`.

use super::ViewState;
use crate::actors::keepers::settings::{KEEPER_SETTINGS, KeeperSettingsCommand};
use crate::view::presenter::FrameSink;
use crate::view::screens::keepers::settings::{Prep, in_front};
use crate::view::text::sanitize;

impl<B: FrameSink> ViewState<B> {
    /// After a delivery, an identity change or a key: a preparation that lost its place is
    /// cancelled, an answered one opens the editor (`Ui::request_edit`), and an editor still
    /// opening for a Keeper no longer in front is cancelled (H-2, H-3).
    pub(super) fn settle_settings(&mut self, myself: &ractor::ActorRef<super::ViewMsg>) {
        use crate::view::screens::keepers::settings;
        // Nothing prepared, nothing to settle (and no `&mut` access of the model, which
        // counts as a change: `crate::view::frame`).
        if self.ui.keeper_settings.prep.is_some() && settings::settle(&mut self.ui, &mut self.model)
        {
            self.want(myself, crate::view::schedule::FrameRequest::Input);
        }
        if settings::open_edit_moved(&self.ui) && self.cancel_pending_edit_moved() {
            self.want(myself, crate::view::schedule::FrameRequest::Input);
        }
    }

    /// `e` on `keeper`: the notice to show.
    pub(super) fn prepare_settings(&mut self, keeper: String) -> String {
        let shown = sanitize(&keeper).into_owned();
        let Some(scope) = self.model.gate().current().cloned() else {
            return format!("settings of {shown} not read: workspace not confirmed");
        };
        // H-11: never beside a Sandbox, assignment or settings save of the same Keeper.
        if let Some(busy) = self.model.keepers.ops.busy(&keeper, &scope.workspace.0) {
            return format!("settings of {shown} not opened: a {busy} save is in flight");
        }
        if self.edit.is_some() || self.ui.keeper_settings.open.is_some() {
            return "settings not opened: another edit is open".into();
        }
        let shared = self
            .ui
            .keeper_settings
            .prep
            .as_ref()
            .is_some_and(|p| p.keeper == keeper && p.scope == scope);
        if shared {
            // H-1: a repeated `e` shares the preparation in flight.
            return format!("reading settings of {shown}… (already asked; Esc cancels)");
        }
        let floor = self.model.keepers.settings.floor();
        let cmd = KeeperSettingsCommand::Prepare {
            keeper: keeper.clone(),
        };
        match self.command(KEEPER_SETTINGS, cmd) {
            Ok(()) => {}
            Err(true) => return "settings not read: settings source stopped".into(),
            Err(false) => return "settings not read: settings source not running".into(),
        }
        self.ui.keeper_settings.prep = Some(Prep {
            keeper,
            scope,
            floor,
            in_front: in_front(&self.ui),
        });
        format!("reading settings of {shown}… (Esc cancels)")
    }
}
