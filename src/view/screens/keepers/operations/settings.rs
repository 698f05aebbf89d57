//! The settings editor `e` on the Keepers screen (sources.md H-1…H-7; protocol.md
//! §9.5, §9.6). The steps, none of which waits on I/O in key handling:
//!
//! 1. `e` asks to prepare ([`Prepare`], run by the view actor): it records a [`Prep`]
//!    (Keeper, scope, what was in front) and sends the preparation source one read.
//!    A repeated `e` for the same Keeper shares it (H-1).
//! 2. [`follow`] runs after every delivery, identity change and key (the Keepers screen's
//!    reaction); `Esc` ([`escape`]), a Keeper, screen or tab move,
//!    another modal, or withdrawal cancels the preparation (H-2); a snapshot for it opens the
//!    editor on a file made from that snapshot, whose fields are also the patch base (H-3).
//!    After a failed save, only the fields the operator changed are put back over the fresh
//!    values (H-7).
//! 3. [`edited`] turns the returned file into the §9.6 patch of the changed keys and submits it
//!    as a `keeper_settings` save with that snapshot's revision (H-4).

use super::settings_conflict::{self, SettingsConflict};
use super::settings_doc;
use super::settings_prep::{InFront, Prep, SentEdit, in_front};
use crate::actors::keepers::ops::settings::{SettingsIntent, SettingsSave};
use crate::actors::keepers::settings::{
    EditableSettings, KEEPER_SETTINGS, KeeperSettingsCommand, SettingsPrepared,
};
use crate::protocol::keeper_config::CompositeRevision;
use crate::view::command::UiCommand;
use crate::view::editor::{EditOutcome, EditPurpose, EditRequest, EditResult};
use crate::view::effects::Effects;
use crate::view::model::Model;
use crate::view::saves::SavePhase;
use crate::view::screens::Ui;
use crate::view::screens::keepers::KeepersScreen;
use crate::view::screens::local::LocalEvent;
use crate::view::screens::react::ReactCx;
use crate::view::text::sanitize;
use serde_json::{Map, Value};
use std::collections::HashMap;

/// The editor open (or opening) on one snapshot: its revision and fields are the patch base.
#[derive(Debug, Clone)]
pub struct OpenEdit {
    pub keeper: String,
    pub workspace: String,
    pub revision: CompositeRevision,
    pub base: Map<String, Value>,
    pub in_front: InFront,
}

/// The settings editor's UI state (kept across navigation).
#[derive(Debug, Default)]
pub struct SettingsUi {
    pub prep: Option<Prep>,
    pub open: Option<OpenEdit>,
    /// A returned file that did not parse, by (workspace, Keeper): the next `e` reopens it
    /// (drafts survive errors).
    pub unparsed: HashMap<(String, String), String>,
    /// The edit sent last, until its receipt (a revision conflict opens the three views).
    pub sent: Option<SentEdit>,
    /// The conflict whose three views are shown, until a choice is made.
    pub conflict: Option<SettingsConflict>,
    /// An edit given up in the three views: the next `e` does not restore it (H-7).
    pub dropped: Option<SettingsIntent>,
}

/// `e` on `keeper`: prepare its settings for `$EDITOR` (H-1: an owned read; the editor opens
/// when the snapshot arrives, unless something cancelled it first, H-2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prepare {
    pub keeper: String,
}

impl LocalEvent for Prepare {
    fn run(&self, ui: &mut Ui, fx: &mut Effects<'_>) {
        ui.notice.text = Some(prepare(ui, fx, self.keeper.clone()));
    }
}

/// Records the preparation and sends the preparation source one read (a cast, never
/// awaited); the notice to show.
fn prepare(ui: &mut Ui, fx: &mut Effects<'_>, keeper: String) -> String {
    let shown = sanitize(&keeper).into_owned();
    let model = &*fx.model;
    let Some(scope) = model.gate().current().cloned() else {
        return format!("settings of {shown} not read: workspace not confirmed");
    };
    // H-11: never beside a Sandbox, assignment or settings save of the same Keeper.
    if let Some(busy) = model.keepers.ops.busy(&keeper, &scope.workspace.0) {
        return format!("settings of {shown} not opened: a {busy} save is in flight");
    }
    let Some(keepers) = ui.screen::<KeepersScreen>() else {
        return "settings not opened: the Keepers screen is busy".into();
    };
    if fx.editing || keepers.settings.open.is_some() {
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
    let in_front = in_front(ui, &keepers.roster);
    let floor = model.keepers.settings.floor();
    let cmd = KeeperSettingsCommand::Prepare {
        keeper: keeper.clone(),
    };
    match fx.cast_to(KEEPER_SETTINGS, cmd) {
        Ok(()) => {}
        Err(true) => return "settings not read: settings source stopped".into(),
        Err(false) => return "settings not read: settings source not running".into(),
    }
    if let Some(keepers) = ui.screen_mut::<KeepersScreen>() {
        // A new edit: a standing conflict's edit is restored by it (H-7) or given up.
        keepers.settings.conflict = None;
        keepers.settings.prep = Some(Prep {
            keeper,
            scope,
            floor,
            in_front,
            conflict: None,
        });
    }
    format!("reading settings of {shown}… (Esc cancels)")
}

/// H-2: `Esc` while a preparation waits cancels it (and does nothing else). `true` when it did.
pub fn escape(settings: &mut SettingsUi, notice: &mut Option<String>) -> bool {
    match settings.prep.take() {
        Some(prep) => {
            *notice = Some(format!(
                "settings of {}: cancelled (Esc)",
                sanitize(&prep.keeper)
            ));
            true
        }
        None => false,
    }
}

/// Whether the editor asked for is no longer for what is in front (a move after the snapshot
/// arrived and before the editor opened, H-2).
pub fn open_edit_moved(keepers: &KeepersScreen, ui: &Ui) -> bool {
    keepers
        .settings
        .open
        .as_ref()
        .is_some_and(|o| o.in_front != in_front(ui, &keepers.roster))
}

/// The Keepers screen's reaction to a delivery, an identity change or a key: cancel a
/// preparation that lost its place (H-2), or open the editor on the snapshot that answered it
/// (H-3). `true` when the UI changed.
pub fn follow(keepers: &mut KeepersScreen, ui: &mut Ui, cx: &mut ReactCx<'_>) -> bool {
    let Some(prep) = keepers.settings.prep.clone() else {
        return false;
    };
    let shown = sanitize(&prep.keeper).into_owned();
    if cx.model().gate().current() != Some(&prep.scope) {
        keepers.settings.prep = None;
        ui.notice.text = Some(format!(
            "settings of {shown}: cancelled (workspace withdrawn)"
        ));
        return true;
    }
    if in_front(ui, &keepers.roster) != prep.in_front {
        keepers.settings.prep = None;
        ui.notice.text = Some(format!("settings of {shown}: cancelled (moved)"));
        return true;
    }
    if let Some(SettingsPrepared { outcome, .. }) = cx
        .model_mut()
        .keepers
        .settings
        .take_for(&prep.keeper, prep.floor)
    {
        keepers.settings.prep = None;
        match outcome {
            Ok(prepared) if prep.conflict.is_some() => {
                if let Some(sent) = prep.conflict {
                    settings_conflict::opened(
                        keepers,
                        ui,
                        *sent,
                        &prepared.snapshot,
                        prepared.revision,
                    );
                }
            }
            Ok(prepared) => {
                let edit = open(&mut keepers.settings, cx.model(), &prep, prepared);
                cx.model_mut().keepers.settings.opened = keepers
                    .settings
                    .open
                    .as_ref()
                    .map(|o| (o.keeper.clone(), o.base.clone()));
                cx.run(UiCommand::Edit(edit));
            }
            Err(failure) => {
                ui.notice.text = Some(format!(
                    "settings of {shown} not opened: {}",
                    failure.words()
                ));
            }
        }
        return true;
    }
    if cx.model().keepers.settings.ended_since(prep.floor) {
        keepers.settings.prep = None;
        ui.notice.text = Some(format!(
            "settings of {shown} not opened: the read ended without a result"
        ));
        return true;
    }
    false
}

/// The changes of the newest settings save of `keeper` when it failed (H-7).
fn failed_changes(
    model: &Model,
    dropped: Option<&SettingsIntent>,
    keeper: &str,
    workspace: &str,
) -> Option<Map<String, Value>> {
    if settings_conflict::restore_dropped(model, dropped, keeper) {
        return None;
    }
    let entry = model.keepers.ops.settings.latest(keeper, workspace)?;
    let failed = match &entry.phase {
        SavePhase::Ended(r) | SavePhase::Restored(r) => super::settings_failed(r),
        _ => false,
    };
    failed.then(|| entry.intent.patch.clone())
}

/// The edit of the snapshot that answered `prep`.
fn open(
    settings: &mut SettingsUi,
    model: &Model,
    prep: &Prep,
    prepared: EditableSettings,
) -> EditRequest {
    let workspace = prep.scope.workspace.0.clone();
    let base = settings_doc::fields_of(&prepared.snapshot);
    let draft = settings
        .unparsed
        .remove(&(workspace.clone(), prep.keeper.clone()));
    let text = match draft {
        // The operator's own unparsable text, as they left it (compared with this snapshot).
        Some(text) => text,
        None => {
            let changed =
                failed_changes(model, settings.dropped.as_ref(), &prep.keeper, &workspace)
                    .unwrap_or_default();
            let (fields, restored) = settings_doc::restore(&base, &changed);
            settings_doc::render(&prep.keeper, &fields, &restored)
        }
    };
    settings.open = Some(OpenEdit {
        keeper: prep.keeper.clone(),
        workspace,
        revision: prepared.revision,
        base,
        in_front: prep.in_front.clone(),
    });
    EditRequest::new(EditPurpose::KeeperSettings, text, ".toml")
}

/// The editor returned: the patch of the changed keys, submitted as a save (H-4), or why
/// nothing is sent.
pub fn edited(
    settings: &mut SettingsUi,
    ui: &mut Ui,
    model: &Model,
    result: EditResult,
) -> UiCommand {
    let Some(open) = settings.open.take() else {
        ui.notice.text = Some(result.notice());
        return UiCommand::Repaint;
    };
    let shown = sanitize(&open.keeper).into_owned();
    let text = match &result.outcome {
        EditOutcome::Edited(text) => text.clone(),
        // A file put back after a failure holds changes even when saved as opened.
        EditOutcome::Unchanged => result.original.clone(),
        other => {
            ui.notice.text = Some(format!("settings of {shown}: {other}"));
            return UiCommand::Repaint;
        }
    };
    let same_workspace = model
        .gate()
        .current()
        .is_some_and(|s| s.workspace.0 == open.workspace);
    let key = (open.workspace.clone(), open.keeper.clone());
    if !same_workspace {
        settings.unparsed.insert(key, text);
        ui.notice.text = Some(format!(
            "settings of {shown} not sent: the workspace changed while editing · e reopens your text"
        ));
        return UiCommand::Repaint;
    }
    let parsed = match settings_doc::parse(&text) {
        Ok(parsed) => parsed,
        Err(why) => {
            settings.unparsed.insert(key, text);
            ui.notice.text = Some(format!(
                "settings of {shown} not sent: {} · e reopens your text",
                sanitize(&why)
            ));
            return UiCommand::Repaint;
        }
    };
    let patch = settings_doc::patch(&open.base, &parsed);
    if patch.is_empty() {
        ui.notice.text = Some(format!("settings of {shown}: unchanged, nothing sent"));
        return UiCommand::Repaint;
    }
    // What the base snapshot held for each changed key: once the CAS accepts the patch, exactly
    // what it replaced (the undo's patch).
    let before = patch
        .keys()
        .filter_map(|k| open.base.get(k).map(|v| (k.clone(), v.clone())))
        .collect();
    let intent = SettingsIntent {
        keeper: open.keeper,
        expected: open.revision,
        patch,
        confirm_context_shrink: parsed.confirm_context_shrink,
        before,
    };
    settings.sent = Some(SentEdit {
        workspace: open.workspace,
        intent: intent.clone(),
        base: open.base,
    });
    super::super::KeeperOp::command::<SettingsSave>(intent)
}
