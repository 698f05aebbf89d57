//! A Keeper settings save that met the server's revision conflict (§9.6 409; sources.md H-6,
//! H-7) gets the same three-way view as `runtime.toml` and the runtime forms
//! (`screens::conflict`). The server's conflict answer carries only revisions, so "theirs" is
//! a fresh read of the settings through the preparation source (one owned read, cancelled by a
//! move like the `e` preparation, H-2); the three texts are the settings file rendered from the
//! base the edit started from, from the operator's edit, and from that fresh snapshot.
//!
//! The choices work on the settings' keys, not on lines: `r` sends the operator's changed keys
//! again on the fresh revision (refused, naming the keys, when the server changed one of them
//! to something else), `t` drops the edit (the next `e` opens on the server's values), `o`
//! sends every key of the edit that differs from the server — after the conflict view's own
//! confirmation of what of theirs is lost. `Esc` keeps the edit: the next `e` restores the
//! changed keys (H-7).

use super::settings_doc;
use super::settings_prep::{Prep, SentEdit, in_front};
use crate::actors::keepers::ops::settings::{SettingsIntent, SettingsSave};
use crate::actors::keepers::settings::{KEEPER_SETTINGS, KeeperSettingsCommand};
use crate::protocol::admission::ReadScope;
use crate::protocol::keeper_config::{CompositeRevision, KeeperConfigSnapshot, ManifestRevision};
use crate::protocol::outcome::SaveOutcome;
use crate::view::command::UiCommand;
use crate::view::effects::Effects;
use crate::view::model::Model;
use crate::view::save_path::SaveRequest;
use crate::view::saves::SavePhase;
use crate::view::screens::Ui;
use crate::view::screens::conflict::{self, ConflictLayer, Resolution, ThreeWay};
use crate::view::screens::keepers::KeepersScreen;
use crate::view::screens::local::LocalEvent;
use crate::view::screens::react::ReactCx;
use crate::view::text::sanitize;
use serde_json::{Map, Value};

/// A conflict whose three views are shown (or were, until a choice is made).
#[derive(Debug, Clone, PartialEq)]
pub struct SettingsConflict {
    pub sent: SentEdit,
    /// The server's settings in the fresh read, and that read's revision.
    pub current: Map<String, Value>,
    pub revision: CompositeRevision,
}

impl SettingsConflict {
    fn name(&self) -> String {
        format!("{}'s settings", self.sent.keeper())
    }

    /// The three texts, as the settings file renders each.
    pub fn three(&self) -> ThreeWay {
        let keeper = self.sent.keeper();
        ThreeWay {
            name: self.name(),
            base: settings_doc::render(keeper, &self.sent.base, &[]),
            draft: settings_doc::render(keeper, &self.sent.draft(), &[]),
            current: settings_doc::render(keeper, &self.current, &[]),
            current_revision: revision_words(&self.revision),
        }
    }

    /// The changed keys the server also changed, to another value than the operator's.
    fn both_changed(&self) -> Vec<String> {
        let draft = self.sent.draft();
        self.sent
            .intent
            .patch
            .keys()
            .filter(|k| {
                let theirs = self.current.get(*k);
                theirs != self.sent.base.get(*k) && theirs != draft.get(*k)
            })
            .cloned()
            .collect()
    }

    /// The save that sends `keys` of the draft on the fresh revision (only those that differ
    /// from the server's), recording the server's values as what it replaces.
    fn send_keys<'k>(&self, keys: impl Iterator<Item = &'k String>) -> Option<SettingsIntent> {
        let draft = self.sent.draft();
        let patch: Map<String, Value> = keys
            .filter_map(|k| Some((k.clone(), draft.get(k)?.clone())))
            .filter(|(k, v)| self.current.get(k) != Some(v))
            .collect();
        if patch.is_empty() {
            return None;
        }
        let before = patch
            .keys()
            .filter_map(|k| Some((k.clone(), self.current.get(k)?.clone())))
            .collect();
        Some(SettingsIntent {
            keeper: self.sent.keeper().to_string(),
            expected: self.revision.clone(),
            patch,
            confirm_context_shrink: self.sent.intent.confirm_context_shrink,
            before,
        })
    }

    /// Rebase: the operator's changed keys on the server's values; `Err(keys)` when the server
    /// changed one of them to something else. `Ok(None)`: the server has them all already.
    pub fn rebase(&self) -> Result<Option<SettingsIntent>, Vec<String>> {
        let both = self.both_changed();
        if !both.is_empty() {
            return Err(both);
        }
        Ok(self.send_keys(self.sent.intent.patch.keys()))
    }

    /// Overwrite: every key of the draft that differs from the server (theirs reverted too).
    pub fn overwrite(&self) -> Option<SettingsIntent> {
        let draft = self.sent.draft();
        self.send_keys(draft.keys())
    }

    /// The layer of its three views; each choice is a [`SettingsResolve`].
    pub fn layer(&self) -> ConflictLayer {
        let choice = |r| UiCommand::local(SettingsResolve(r));
        ConflictLayer::new(
            self.three(),
            choice(Resolution::Rebase),
            choice(Resolution::TakeTheirs),
            choice(Resolution::Overwrite),
        )
    }
}

/// What the conflict view names the server's revision by: the manifest's digest.
fn revision_words(revision: &CompositeRevision) -> String {
    match &revision.manifest {
        ManifestRevision::Sha256 { value } => value.as_str().to_string(),
        ManifestRevision::Missing {} => "no manifest".into(),
    }
}

/// The Keepers screen's reaction: the sent edit's receipt is a revision conflict — read the
/// settings again to show the three views (once per conflict). `true` when the UI changed.
pub fn follow_receipt(keepers: &mut KeepersScreen, ui: &mut Ui, cx: &mut ReactCx<'_>) -> bool {
    let Some(sent) = keepers.settings.sent.clone() else {
        return false;
    };
    if keepers.settings.prep.is_some() || keepers.settings.open.is_some() {
        return false;
    }
    let model = cx.model();
    let Some(entry) = model
        .keepers
        .ops
        .settings
        .latest(sent.keeper(), &sent.workspace)
    else {
        return false;
    };
    if entry.intent != sent.intent {
        return false;
    }
    let conflicted = match &entry.phase {
        SavePhase::Ended(SaveOutcome::Conflict { .. }) => true,
        SavePhase::Ended(_) | SavePhase::Restored(_) => false,
        SavePhase::Submitted | SavePhase::Written | SavePhase::Sending => return false,
    };
    keepers.settings.sent = None;
    if !conflicted {
        return false;
    }
    let shown = sanitize(sent.keeper()).into_owned();
    let Some(scope) = model
        .gate()
        .current()
        .cloned()
        .filter(|s| s.workspace.0 == sent.workspace)
    else {
        return false;
    };
    let floor = model.keepers.settings.floor();
    let cmd = KeeperSettingsCommand::Prepare {
        keeper: sent.keeper().to_string(),
    };
    if cx.send(KEEPER_SETTINGS, cmd).is_err() {
        ui.notice.text = Some(format!(
            "settings of {shown}: conflict — the settings could not be read again · e restores your edit"
        ));
        return true;
    }
    keepers.settings.prep = Some(Prep {
        keeper: sent.keeper().to_string(),
        scope: ReadScope::clone(&scope),
        floor,
        in_front: in_front(ui, &keepers.roster),
        conflict: Some(Box::new(sent)),
    });
    ui.notice.text = Some(format!(
        "settings of {shown}: conflict — reading the server's settings for the three views… (Esc cancels)"
    ));
    true
}

/// The fresh read answered a conflict's preparation: the three views open.
pub fn opened(
    keepers: &mut KeepersScreen,
    ui: &mut Ui,
    sent: SentEdit,
    snapshot: &KeeperConfigSnapshot,
    revision: CompositeRevision,
) {
    let conflict = SettingsConflict {
        sent,
        current: settings_doc::fields_of(snapshot),
        revision,
    };
    conflict::open(ui, conflict.layer());
    keepers.settings.conflict = Some(conflict);
}

/// A choice of a settings conflict's three-way view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingsResolve(pub Resolution);

impl LocalEvent for SettingsResolve {
    fn run(&self, ui: &mut Ui, fx: &mut Effects<'_>) {
        ui.layers.remove::<ConflictLayer>();
        let Some(conflict) = ui
            .screen::<KeepersScreen>()
            .and_then(|k| k.settings.conflict.clone())
        else {
            ui.notice.text = Some("settings: no conflict to resolve".into());
            return;
        };
        let name = sanitize(&conflict.name()).into_owned();
        let intent = match self.0 {
            Resolution::TakeTheirs => {
                set_conflict(ui, None, true);
                ui.notice.text = Some(format!(
                    "{name}: the server's values kept, your edit dropped · e edits them"
                ));
                return;
            }
            Resolution::Rebase => match conflict.rebase() {
                Err(keys) => {
                    ui.notice.text = Some(format!(
                        "{name}: not rebased — the server changed {} too · t takes theirs, o overwrites",
                        keys.join(", ")
                    ));
                    conflict::open(ui, conflict.layer());
                    return;
                }
                Ok(intent) => intent,
            },
            Resolution::Overwrite => conflict.overwrite(),
        };
        let Some(intent) = intent else {
            set_conflict(ui, None, true);
            ui.notice.text = Some(format!(
                "{name}: the server already has your values, nothing sent"
            ));
            return;
        };
        let request = SaveRequest::new::<SettingsSave>(intent.clone());
        if self.0 == Resolution::Overwrite {
            // Confirmed by the conflict view's own confirmation of what is lost.
            fx.confirmed(request.clone());
        }
        let submitted = fx.submit(request);
        let staged = submitted.as_ref().is_ok_and(|s| !s.is_committed());
        let sent = submitted.is_ok();
        if let Some(roster) = ui.screen_mut::<KeepersScreen>().map(|k| &mut k.roster) {
            super::submitted(roster, submitted.is_err());
        }
        ui.notice.text = crate::view::save_path::notice(submitted);
        // A staged save keeps the conflict: its confirming key runs this choice again.
        if !staged {
            // The new save is followed like the edit was: another conflict opens its views.
            let follow = sent.then(|| SentEdit {
                workspace: conflict.sent.workspace.clone(),
                intent,
                base: conflict.current.clone(),
            });
            set_conflict(ui, follow, false);
        }
    }
}

/// Ends the standing conflict; `dropped`: the edit is given up (the next `e` restores nothing).
fn set_conflict(ui: &mut Ui, follow: Option<SentEdit>, dropped: bool) {
    if let Some(keepers) = ui.screen_mut::<KeepersScreen>() {
        if let Some(conflict) = keepers.settings.conflict.take()
            && dropped
        {
            keepers.settings.dropped = Some(conflict.sent.intent);
        }
        keepers.settings.sent = follow;
    }
}

/// Whether the newest settings save's changes are given up (the three views' `t`, or the
/// server had them): the next `e` does not restore them (H-7 restores only a kept edit).
pub fn restore_dropped(model: &Model, dropped: Option<&SettingsIntent>, keeper: &str) -> bool {
    let Some(dropped) = dropped else {
        return false;
    };
    dropped.keeper == keeper
        && model
            .gate()
            .current()
            .and_then(|s| model.keepers.ops.settings.latest(keeper, &s.workspace.0))
            .is_some_and(|e| &e.intent == dropped)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::keeper_config::RuntimeAssignmentRevision;
    use serde_json::json;

    fn conflict(theirs: Value) -> SettingsConflict {
        let Value::Object(base) = json!({"autoboot_enabled": true, "proactive_enabled": false})
        else {
            panic!("a JSON object literal")
        };
        let mut current = base.clone();
        if let Value::Object(t) = theirs {
            current.extend(t);
        }
        let revision = CompositeRevision {
            manifest: ManifestRevision::Missing {},
            runtime_assignment: RuntimeAssignmentRevision::RuntimeConfigMissing {},
        };
        let mut patch = Map::new();
        patch.insert("autoboot_enabled".into(), Value::Bool(false));
        SettingsConflict {
            sent: SentEdit {
                workspace: "ws".into(),
                intent: SettingsIntent {
                    keeper: "rondo".into(),
                    expected: revision.clone(),
                    patch,
                    confirm_context_shrink: false,
                    before: Map::new(),
                },
                base,
            },
            current,
            revision,
        }
    }

    /// A rebase is refused naming the key the server changed to another value; the server
    /// holding the same value as the edit is no conflict (nothing of that key is sent).
    #[test]
    fn a_rebase_names_the_keys_both_changed_and_skips_what_the_server_has() {
        let both = conflict(json!({"autoboot_enabled": null}));
        assert_eq!(both.rebase(), Err(vec!["autoboot_enabled".to_string()]));
        let same = conflict(json!({"autoboot_enabled": false, "proactive_enabled": true}));
        assert_eq!(same.rebase(), Ok(None));
        let overwrite = same.overwrite().expect("theirs reverted");
        assert_eq!(
            Value::Object(overwrite.patch),
            json!({"proactive_enabled": false})
        );
        assert_eq!(
            Value::Object(overwrite.before),
            json!({"proactive_enabled": true})
        );
    }
}
