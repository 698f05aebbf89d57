//! The Keepers surface's kinds: Sandbox, runtime assignment and settings (one operation per
//! Keeper at a time, H-11), lifecycle actions and creates (independent).

use super::book_at;
use crate::actors::keepers::ops::assignment::{AssignmentIntent, AssignmentSave};
use crate::actors::keepers::ops::create::CreateSave;
use crate::actors::keepers::ops::lifecycle::LifecycleSave;
use crate::actors::keepers::ops::sandbox::{SandboxIntent, SandboxSave};
use crate::actors::keepers::ops::settings::{SettingsIntent, SettingsSave};
use crate::view::model::Model;
use crate::view::save_path::{Refused, SaveCompanion};

/// H-11: Settings, Sandbox and assignment of one Keeper never overlap — a second one is
/// refused before anything is registered or sent.
fn one_operation_per_keeper(model: &Model, keeper: &str, workspace: &str) -> Result<(), Refused> {
    match model.keepers.ops.busy(keeper, workspace) {
        Some(_) => Err(Refused::Exclusive(
            "not sent: another operation on this keeper is in flight".into(),
        )),
        None => Ok(()),
    }
}

impl SaveCompanion for SandboxSave {
    book_at!(keepers.ops.sandbox);

    fn admit(model: &Model, intent: &SandboxIntent, workspace: &str) -> Result<(), Refused> {
        one_operation_per_keeper(model, &intent.keeper, workspace)
    }
}

impl SaveCompanion for AssignmentSave {
    book_at!(keepers.ops.assignment);

    fn admit(model: &Model, intent: &AssignmentIntent, workspace: &str) -> Result<(), Refused> {
        one_operation_per_keeper(model, &intent.keeper, workspace)
    }
}

impl SaveCompanion for SettingsSave {
    book_at!(keepers.ops.settings);

    fn admit(model: &Model, intent: &SettingsIntent, workspace: &str) -> Result<(), Refused> {
        one_operation_per_keeper(model, &intent.keeper, workspace)
    }
}

impl SaveCompanion for LifecycleSave {
    book_at!(keepers.ops.lifecycle);
}

impl SaveCompanion for CreateSave {
    book_at!(keepers.ops.create);
}
