//! The view actor's side of the settings editor `e` (sources.md H-1, H-2, H-11): the
//! preparation is recorded and one read is sent to the preparation source — a cast, never
//! awaited. What the snapshot does when it arrives is the Keepers screen's reaction
//! (`screens::keepers::settings::follow`).

use super::ViewState;
use crate::actors::keepers::settings::{KEEPER_SETTINGS, KeeperSettingsCommand};
use crate::view::presenter::FrameSink;
use crate::view::screens::keepers::KeepersScreen;
use crate::view::screens::keepers::settings::{Prep, in_front};
use crate::view::text::sanitize;

impl<B: FrameSink> ViewState<B> {
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
        let Some(keepers) = self.ui.screen::<KeepersScreen>() else {
            return "settings not opened: the Keepers screen is busy".into();
        };
        if self.edit.is_some() || keepers.settings.open.is_some() {
            return "settings not opened: another edit is open".into();
        }
        let shared = keepers
            .settings
            .prep
            .as_ref()
            .is_some_and(|p| p.keeper == keeper && p.scope == scope);
        if shared {
            // H-1: a repeated `e` shares the preparation in flight.
            return format!("reading settings of {shown}… (already asked; Esc cancels)");
        }
        let in_front = in_front(&self.ui, &keepers.roster);
        let floor = self.model.keepers.settings.floor();
        let cmd = KeeperSettingsCommand::Prepare {
            keeper: keeper.clone(),
        };
        match self.command(KEEPER_SETTINGS, cmd) {
            Ok(()) => {}
            Err(true) => return "settings not read: settings source stopped".into(),
            Err(false) => return "settings not read: settings source not running".into(),
        }
        if let Some(keepers) = self.ui.screen_mut::<KeepersScreen>() {
            keepers.settings.prep = Some(Prep {
                keeper,
                scope,
                floor,
                in_front,
            });
        }
        format!("reading settings of {shown}… (Esc cancels)")
    }
}
