//! The Keepers kinds after their receipt: what re-read confirms each (the roster for the
//! lifecycle, N-3; the settings snapshot for settings, sandbox and assignment — the one record
//! every screen reads, §9.5) and how each is undone where the server makes it exact (a CAS on
//! the revision the save produced; pause ↔ resume).

use crate::actors::keeper_detail::WORKSPACE_GATE;
use crate::actors::keepers::ROSTER;
use crate::actors::keepers::ops::assignment::{AssignmentIntent, AssignmentSave};
use crate::actors::keepers::ops::create::CreateSave;
use crate::actors::keepers::ops::lifecycle::{LifecycleAction, LifecycleIntent, LifecycleSave};
use crate::actors::keepers::ops::sandbox::{SandboxSave, profile_word};
use crate::actors::keepers::ops::settings::{SettingsIntent, SettingsSave};
use crate::protocol::keeper_config::{
    AssignmentState, ConfigRevision, Hex64, KeeperConfigSnapshot, RuntimeAssignmentRevision,
    SandboxProfile,
};
use crate::protocol::keepers::KeeperRow;
use crate::protocol::outcome::{KeeperConfigApplied, SaveOutcome};
use crate::view::admission::ViewMark;
use crate::view::model::Model;
use crate::view::save_path::SaveRequest;
use crate::view::save_path::settle::{Check, Confirm, Reread};
use crate::view::save_path::undo::Undo;
use crate::view::saves::SaveEntry;
use crate::view::text::sanitize;
use serde_json::{Map, json};

/// The roster's row of `keeper` from a read dispatched after `mark`: `None` when no such read
/// came back yet, `Some(None)` when it does not list the Keeper.
fn roster_since<'m>(
    model: &'m Model,
    keeper: &str,
    mark: ViewMark,
) -> Option<Option<&'m KeeperRow>> {
    Some(model.keepers.roster.value_since(mark)?.keeper(keeper))
}

/// The settings snapshot of `keeper` from a read dispatched after `mark`.
fn settings_since<'m>(
    model: &'m Model,
    keeper: &str,
    mark: ViewMark,
) -> Option<&'m KeeperConfigSnapshot> {
    model
        .keeper_detail
        .of(keeper)?
        .settings
        .value_since(mark)
        .map(|s| s.as_ref())
}

/// `check`, or — when no read since `mark` showed anything — the failure of the newest
/// settings re-read of `keeper`.
fn or_settings_failed(check: Check, model: &Model, keeper: &str, mark: ViewMark) -> Check {
    match model.keeper_detail.of(keeper) {
        Some(detail) => check.or_failed(&detail.settings, mark),
        None => check,
    }
}

/// The newest settings snapshot of `keeper` the model holds (any time).
fn settings_now<'m>(model: &'m Model, keeper: &str) -> Option<&'m KeeperConfigSnapshot> {
    model
        .keeper_detail
        .of(keeper)?
        .settings
        .fetched
        .last()
        .map(|o| o.value.as_ref())
}

fn flag(keeper: &str, value: Option<bool>, want: bool, yes: &str, no: &str) -> Check {
    match value {
        Some(v) if v == want => Check::Shown,
        Some(v) => Check::Differs(format!("{} {}", sanitize(keeper), if v { yes } else { no })),
        None => Check::Differs(format!(
            "no such state of {} in the roster",
            sanitize(keeper)
        )),
    }
}

pub fn lifecycle_confirm(model: &Model, entry: &SaveEntry<LifecycleSave>) -> Option<Confirm> {
    let mark = entry.receipt_mark?;
    let keeper = entry.intent.keeper.as_str();
    let action = entry.intent.action;
    if let LifecycleAction::ToolGate(mode) = action {
        let check = match model.keeper_detail.tool_modes.value_since(mark) {
            None => Check::NotYet,
            Some(modes) if modes.mode_of(keeper) == mode => Check::Shown,
            Some(modes) => Check::Differs(format!(
                "{}'s tool gate {}",
                sanitize(keeper),
                modes.mode_of(keeper).as_str()
            )),
        };
        let check = check.or_failed(&model.keeper_detail.tool_modes, mark);
        return Some(Confirm::by_sources(check, &[WORKSPACE_GATE]));
    }
    let check = match (roster_since(model, keeper, mark), action) {
        (None, _) => Check::NotYet,
        (Some(None), LifecycleAction::Delete) => Check::Shown,
        (Some(Some(_)), LifecycleAction::Delete) => {
            Check::Differs(format!("{} still listed", sanitize(keeper)))
        }
        (Some(None), _) => Check::Differs(format!("no {} in the roster", sanitize(keeper))),
        (Some(Some(row)), LifecycleAction::Pause) => {
            flag(keeper, row.paused, true, "paused", "not paused")
        }
        (Some(Some(row)), LifecycleAction::Resume) => {
            flag(keeper, row.paused, false, "paused", "not paused")
        }
        (Some(Some(row)), LifecycleAction::Wake | LifecycleAction::Boot) => {
            flag(keeper, row.keepalive_running, true, "running", "stopped")
        }
        (Some(Some(row)), LifecycleAction::Shutdown) => {
            flag(keeper, row.keepalive_running, false, "running", "stopped")
        }
        (Some(Some(_)), LifecycleAction::ToolGate(_)) => Check::NotYet,
    };
    let check = check.or_failed(&model.keepers.roster, mark);
    Some(Confirm::by_sources(check, &[ROSTER]))
}

/// Pause and resume undo each other; every other action says why it has none.
pub fn lifecycle_undo(model: &Model, entry: &SaveEntry<LifecycleSave>) -> Undo {
    let keeper = &entry.intent.keeper;
    let (back, state) = match entry.intent.action {
        LifecycleAction::Pause => (LifecycleAction::Resume, Some(true)),
        LifecycleAction::Resume => (LifecycleAction::Pause, Some(false)),
        LifecycleAction::Wake => return Undo::Never("a wake signal cannot be taken back"),
        LifecycleAction::Boot | LifecycleAction::Shutdown => {
            return Undo::Never("boot and shutdown are each their own armed action (p, s s)");
        }
        LifecycleAction::Delete => {
            return Undo::Never(
                "a deletion removes the Keeper's files: nothing is kept to restore",
            );
        }
        LifecycleAction::ToolGate(_) => {
            return Undo::Never("the gate mode before it is not recorded: g sets it again");
        }
    };
    // Only from what the roster shows since the receipt: the undo acts on a confirmed state.
    let Some(mark) = entry.receipt_mark else {
        return Undo::NotNow("no receipt yet".into());
    };
    match roster_since(model, keeper, mark) {
        None => {
            return Undo::NotNow("not confirmed yet: no roster re-read since its receipt".into());
        }
        Some(None) => {
            return Undo::NotNow(format!("the roster no longer lists {}", sanitize(keeper)));
        }
        Some(Some(row)) => {
            if let Some(paused) = row.paused
                && Some(paused) != state
            {
                return Undo::NotNow(format!(
                    "the roster shows {} {} already",
                    sanitize(keeper),
                    if paused { "paused" } else { "not paused" }
                ));
            }
        }
    }
    Undo::Exact {
        request: SaveRequest::new::<LifecycleSave>(LifecycleIntent::new(keeper.clone(), back)),
        writes: format!("{} {}", back.words(), sanitize(keeper)),
    }
}

pub fn sandbox_confirm(model: &Model, entry: &SaveEntry<SandboxSave>) -> Option<Confirm> {
    let mark = entry.receipt_mark?;
    let keeper = entry.intent.keeper.as_str();
    let want = entry.intent.profile;
    let check = match settings_since(model, keeper, mark) {
        Some(s) if s.sandbox_profile == want => Check::Shown,
        Some(s) => Check::Differs(format!(
            "{} on {}",
            sanitize(keeper),
            profile_word(s.sandbox_profile)
        )),
        None => match roster_since(model, keeper, mark).flatten() {
            Some(row) if row.sandbox_profile() == Some(profile_word(want)) => Check::Shown,
            Some(row) => Check::Differs(format!(
                "{} on {}",
                sanitize(keeper),
                sanitize(row.sandbox_profile().unwrap_or("an unreported sandbox"))
            )),
            None => Check::NotYet,
        },
    };
    let check =
        or_settings_failed(check, model, keeper, mark).or_failed(&model.keepers.roster, mark);
    Some(Confirm::new(
        check,
        vec![Reread::Keeper(keeper.to_string()), Reread::Source(ROSTER)],
    ))
}

/// The settings revision a §9.6 write produced.
fn written_revision(
    outcome: &SaveOutcome<KeeperConfigApplied, impl Sized>,
) -> Option<&crate::protocol::keeper_config::CompositeRevision> {
    match outcome {
        SaveOutcome::Applied {
            detail: KeeperConfigApplied::Written(write),
            ..
        } => write.revision.composite(),
        _ => None,
    }
}

/// Refused when the newest snapshot the model holds names another revision than `after`.
fn moved_since(
    model: &Model,
    keeper: &str,
    after: &crate::protocol::keeper_config::CompositeRevision,
) -> Option<Undo> {
    let now = settings_now(model, keeper)?;
    match &now.config_revision {
        ConfigRevision::Composite(rev) if rev == after => None,
        _ => Some(Undo::NotNow(
            "the settings changed again since this save (another revision): nothing to put back exactly"
                .into(),
        )),
    }
}

pub fn sandbox_undo(model: &Model, entry: &SaveEntry<SandboxSave>) -> Undo {
    let keeper = &entry.intent.keeper;
    let Some(receipt) = entry.phase.receipt() else {
        return Undo::NotNow("no receipt yet".into());
    };
    let (
        Some(after),
        SaveOutcome::Applied {
            detail: KeeperConfigApplied::Written(write),
            ..
        },
    ) = (written_revision(receipt), receipt)
    else {
        return Undo::NotNow("its receipt names no revision to undo against".into());
    };
    let Some(replaced) = &write.replaced else {
        return Undo::NotNow("the sandbox before it is not recorded".into());
    };
    if replaced.profile == SandboxProfile::RemoteSsh {
        return Undo::NotNow(
            "it cleared the remote endpoint, which is not recorded: e sets it back".into(),
        );
    }
    if let Some(moved) = moved_since(model, keeper, after) {
        return moved;
    }
    let mut patch = Map::new();
    patch.insert("sandbox_profile".into(), json!(replaced.profile));
    patch.insert("network_mode".into(), json!(replaced.network));
    let mut before = Map::new();
    before.insert("sandbox_profile".into(), json!(entry.intent.profile));
    before.insert("network_mode".into(), json!(entry.intent.network()));
    Undo::Exact {
        request: SaveRequest::new::<SettingsSave>(SettingsIntent {
            keeper: keeper.clone(),
            expected: after.clone(),
            patch,
            confirm_context_shrink: false,
            before,
        }),
        writes: format!(
            "{}'s sandbox back to {} (network {})",
            sanitize(keeper),
            profile_word(replaced.profile),
            replaced.network.as_str()
        ),
    }
}

pub fn settings_confirm(model: &Model, entry: &SaveEntry<SettingsSave>) -> Option<Confirm> {
    let mark = entry.receipt_mark?;
    let keeper = entry.intent.keeper.as_str();
    let check = match settings_since(model, keeper, mark) {
        None => Check::NotYet,
        Some(snapshot) => {
            let fields = snapshot.patch_fields();
            let differing: Vec<&str> = entry
                .intent
                .patch
                .iter()
                .filter(|(k, _)| *k != "remote_endpoint")
                .filter(|(k, v)| fields.get(*k) != Some(*v))
                .map(|(k, _)| k.as_str())
                .collect();
            if differing.is_empty() {
                Check::Shown
            } else {
                Check::Differs(format!("other values of {}", differing.join(", ")))
            }
        }
    };
    let check = or_settings_failed(check, model, keeper, mark);
    Some(Confirm::new(
        check,
        vec![Reread::Keeper(keeper.to_string()), Reread::Source(ROSTER)],
    ))
}

pub fn settings_undo(model: &Model, entry: &SaveEntry<SettingsSave>) -> Undo {
    let intent = &entry.intent;
    let Some(after) = entry.phase.receipt().and_then(written_revision) else {
        return Undo::NotNow("its receipt names no revision to undo against".into());
    };
    if intent.patch.contains_key("remote_endpoint") {
        return Undo::NotNow(
            "it cleared the remote endpoint, which is not recorded: e sets it back".into(),
        );
    }
    let missing: Vec<&str> = intent
        .patch
        .keys()
        .filter(|k| !intent.before.contains_key(*k))
        .map(String::as_str)
        .collect();
    if !missing.is_empty() {
        return Undo::NotNow(format!(
            "the value before of {} is not recorded",
            missing.join(", ")
        ));
    }
    if let Some(moved) = moved_since(model, &intent.keeper, after) {
        return moved;
    }
    let keys: Vec<&str> = intent.before.keys().map(String::as_str).collect();
    Undo::Exact {
        request: SaveRequest::new::<SettingsSave>(SettingsIntent {
            keeper: intent.keeper.clone(),
            expected: after.clone(),
            patch: intent.before.clone(),
            // Putting a larger context back was the operator's own value: a shrink is
            // confirmed by confirming the undo.
            confirm_context_shrink: intent.before.contains_key("max_context_override"),
            before: intent.patch.clone(),
        }),
        writes: format!(
            "{}'s {} back as before",
            sanitize(&intent.keeper),
            keys.join(", ")
        ),
    }
}

pub fn assignment_confirm(model: &Model, entry: &SaveEntry<AssignmentSave>) -> Option<Confirm> {
    let mark = entry.receipt_mark?;
    let keeper = entry.intent.keeper.as_str();
    let check = match settings_since(model, keeper, mark) {
        Some(snapshot) => match snapshot.config_revision.composite() {
            Some(rev) => {
                let assigned = match &rev.runtime_assignment {
                    RuntimeAssignmentRevision::RuntimeConfigPresent {
                        assignment: AssignmentState::Assigned { runtime_id },
                        ..
                    } => Some(runtime_id.as_str()),
                    _ => None,
                };
                if assigned == entry.intent.runtime_id.as_deref() {
                    Check::Shown
                } else {
                    Check::Differs(format!(
                        "{} on {}",
                        sanitize(keeper),
                        sanitize(assigned.unwrap_or("the default runtime"))
                    ))
                }
            }
            None => Check::Differs("no settings revision to read the assignment from".into()),
        },
        None => Check::NotYet,
    };
    let check = or_settings_failed(check, model, keeper, mark);
    Some(Confirm::new(
        check,
        vec![Reread::Keeper(keeper.to_string()), Reread::Source(ROSTER)],
    ))
}

pub fn assignment_undo(_model: &Model, entry: &SaveEntry<AssignmentSave>) -> Undo {
    let intent = &entry.intent;
    let Some(SaveOutcome::Applied { detail, .. }) = entry.phase.receipt() else {
        return Undo::NotNow("it was not applied".into());
    };
    let Some(replaced) = &detail.replaced_assignment else {
        return Undo::NotNow("the assignment before it is not recorded".into());
    };
    let Some(source_revision) = Hex64::parse(&detail.commit.source_revision) else {
        return Undo::NotNow("its receipt names no usable revision".into());
    };
    let assignment = match &intent.runtime_id {
        Some(id) => AssignmentState::Assigned {
            runtime_id: id.clone(),
        },
        None => AssignmentState::Missing {},
    };
    let back = AssignmentIntent {
        keeper: intent.keeper.clone(),
        runtime_id: replaced.clone(),
        only_at: Some(Box::new(RuntimeAssignmentRevision::RuntimeConfigPresent {
            source_revision,
            assignment,
        })),
    };
    let writes = format!(
        "{} back to {}",
        sanitize(&intent.keeper),
        sanitize(&back.choice())
    );
    Undo::Exact {
        request: SaveRequest::new::<AssignmentSave>(back),
        writes,
    }
}

pub fn create_confirm(model: &Model, entry: &SaveEntry<CreateSave>) -> Option<Confirm> {
    let mark = entry.receipt_mark?;
    let name = entry.intent.name.as_str();
    let check = match roster_since(model, name, mark) {
        None => Check::NotYet,
        Some(Some(_)) => Check::Shown,
        Some(None) => Check::Differs(format!("no {} in the roster", sanitize(name))),
    };
    let check = check.or_failed(&model.keepers.roster, mark);
    Some(Confirm::by_sources(check, &[ROSTER]))
}
