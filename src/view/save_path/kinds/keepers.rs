//! The Keepers surface's kinds: Sandbox, runtime assignment and settings (one operation per
//! Keeper at a time, H-11), lifecycle actions and creates (independent). Everything but a
//! create changes a Keeper's life or its shared configuration: each is previewed (old → new
//! from the roster, the detail's reads or the snapshot the edit opened on) before it is sent.

use super::book_at;
use super::keepers_after as after;
use crate::actors::keepers::ops::assignment::{AssignmentIntent, AssignmentSave};
use crate::actors::keepers::ops::create::CreateSave;
use crate::actors::keepers::ops::lifecycle::{LifecycleAction, LifecycleIntent, LifecycleSave};
use crate::actors::keepers::ops::sandbox::{SandboxIntent, SandboxSave, profile_word};
use crate::actors::keepers::ops::settings::{SettingsIntent, SettingsSave};
use crate::protocol::keeper_config::NetworkMode;
use crate::protocol::keeper_ops::ToolApprovalMode;
use crate::protocol::keepers::KeeperRow;
use crate::view::model::Model;
use crate::view::save_path::settle::Confirm;
use crate::view::save_path::undo::Undo;
use crate::view::save_path::{Change, Preview, Refused, SaveCompanion, shown};
use crate::view::saves::SaveEntry;
use serde_json::Value;
use std::time::Duration;

/// What `x` removes (protocol.md §14.3), named in its preview.
pub const DELETE_REMOVES: &[&str] = &[
    "metrics, decision and feedback logs",
    "runtime directory",
    "memory snapshots and journal",
    "configuration",
    "chat history",
    "agent files and tokens",
];

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

/// The roster's row of `keeper`, when the last read decoded it.
fn row<'m>(model: &'m Model, keeper: &str) -> Option<&'m KeeperRow> {
    model.keepers.roster.fetched.last()?.value.keeper(keeper)
}

fn yes_no(v: Option<bool>) -> Option<String> {
    v.map(|b| if b { "yes" } else { "no" }.to_string())
}

fn fiber(row: Option<&KeeperRow>) -> Option<String> {
    row.and_then(|r| r.keepalive_running)
        .map(|running| if running { "running" } else { "stopped" }.to_string())
}

impl SaveCompanion for SandboxSave {
    book_at!(keepers.ops.sandbox);

    fn confirm(model: &Model, entry: &SaveEntry<Self>) -> Option<Confirm> {
        after::sandbox_confirm(model, entry)
    }

    fn undo(model: &Model, entry: &SaveEntry<Self>) -> Undo {
        after::sandbox_undo(model, entry)
    }

    fn admit(model: &Model, intent: &SandboxIntent, workspace: &str) -> Result<(), Refused> {
        one_operation_per_keeper(model, &intent.keeper, workspace)
    }

    fn preview(model: &Model, intent: &SandboxIntent) -> Option<Preview> {
        let row = row(model, &intent.keeper);
        let network = match intent.network() {
            NetworkMode::None => "none",
            NetworkMode::Inherit => "inherit",
        };
        Some(
            Preview::titled(format!(
                "set {}'s sandbox to {}",
                intent.keeper,
                profile_word(intent.profile)
            ))
            .change(Change::new(
                "sandbox_profile",
                row.and_then(|r| r.sandbox_profile()).map(str::to_string),
                profile_word(intent.profile),
            ))
            .change(Change::new(
                "network_mode",
                None,
                format!("{network} (the profile's default)"),
            ))
            .note(
                "the save reads the settings afresh and sends nothing when the profile already holds",
            ),
        )
    }
}

impl SaveCompanion for AssignmentSave {
    book_at!(keepers.ops.assignment);

    fn confirm(model: &Model, entry: &SaveEntry<Self>) -> Option<Confirm> {
        after::assignment_confirm(model, entry)
    }

    fn undo(model: &Model, entry: &SaveEntry<Self>) -> Undo {
        after::assignment_undo(model, entry)
    }

    fn admit(model: &Model, intent: &AssignmentIntent, workspace: &str) -> Result<(), Refused> {
        one_operation_per_keeper(model, &intent.keeper, workspace)
    }

    fn preview(model: &Model, intent: &AssignmentIntent) -> Option<Preview> {
        let now = row(model, &intent.keeper).map(|r| shown(r.runtime_id.as_deref()));
        Some(
            Preview::titled(format!("assign {} to {}", intent.keeper, intent.choice()))
                .change(Change::new("runtime", now, intent.choice())),
        )
    }
}

/// A settings value as the preview shows it (a string as it is, anything else as JSON).
fn value_words(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "(none)".into(),
        other => other.to_string(),
    }
}

impl SaveCompanion for SettingsSave {
    book_at!(keepers.ops.settings);

    fn confirm(model: &Model, entry: &SaveEntry<Self>) -> Option<Confirm> {
        after::settings_confirm(model, entry)
    }

    fn undo(model: &Model, entry: &SaveEntry<Self>) -> Undo {
        after::settings_undo(model, entry)
    }

    fn admit(model: &Model, intent: &SettingsIntent, workspace: &str) -> Result<(), Refused> {
        one_operation_per_keeper(model, &intent.keeper, workspace)
    }

    /// Each changed key, old (the snapshot the editor opened on) → new; the instructions as a
    /// unified diff.
    fn preview(model: &Model, intent: &SettingsIntent) -> Option<Preview> {
        let base = model
            .keepers
            .settings
            .opened
            .as_ref()
            .filter(|(keeper, _)| *keeper == intent.keeper)
            .map(|(_, fields)| fields);
        let mut preview = Preview::titled(format!("save {}'s settings", intent.keeper));
        for (key, new) in &intent.patch {
            let old = base.and_then(|b| b.get(key));
            if key == "instructions" {
                let old_text = old.map(value_words).unwrap_or_default();
                preview = preview
                    .change(Change::new(
                        key.clone(),
                        old.map(|_| "(below)".to_string()),
                        "(below)",
                    ))
                    .file("instructions", &old_text, &value_words(new));
                continue;
            }
            preview = preview.change(Change::new(
                key.clone(),
                old.map(value_words),
                value_words(new),
            ));
        }
        if intent.confirm_context_shrink && intent.patch.contains_key("max_context_override") {
            preview = preview.note("lowers the context window (confirm_context_shrink)");
        }
        Some(preview.note("sent with the revision the editor opened on: a change made since is a conflict, never overwritten"))
    }
}

/// What a lifecycle action changes, old → new from the roster and the detail's reads.
fn lifecycle_preview(model: &Model, intent: &LifecycleIntent) -> Preview {
    let keeper = &intent.keeper;
    let row = row(model, keeper);
    let title = format!("{} {keeper}", intent.action.words());
    let preview = Preview::titled(title);
    match intent.action {
        LifecycleAction::Pause => preview
            .change(Change::new(
                "paused",
                yes_no(row.and_then(|r| r.paused)),
                "yes",
            ))
            .note("its turns stop until resumed (p again on a paused Keeper resumes it)"),
        LifecycleAction::Resume => preview.change(Change::new(
            "paused",
            yes_no(row.and_then(|r| r.paused)),
            "no",
        )),
        LifecycleAction::Wake => preview.change(Change::new(
            "fiber",
            fiber(row),
            "running (a turn starts now)",
        )),
        LifecycleAction::Boot => preview.change(Change::new("fiber", fiber(row), "running")),
        LifecycleAction::Shutdown => preview
            .change(Change::new("fiber", fiber(row), "stopped"))
            .note("its current turn ends; p boots it again"),
        LifecycleAction::Delete => DELETE_REMOVES
            .iter()
            .fold(preview, |p, what| p.removes(format!("{keeper}'s {what}")))
            .change(Change::new("keeper", Some(keeper.clone()), "(deleted)"))
            .note("no undo: the server removes these for good"),
        LifecycleAction::ToolGate(mode) => {
            let now = model
                .keeper_detail
                .tool_modes
                .fetched
                .last()
                .map(|o| gate_word(o.value.mode_of(keeper)).to_string());
            preview.change(Change::new("tool gate", now, gate_word(mode)))
        }
    }
}

fn gate_word(mode: ToolApprovalMode) -> &'static str {
    match mode {
        ToolApprovalMode::Auto => "auto",
        ToolApprovalMode::Yolo => "yolo (tool calls run without approval)",
    }
}

impl SaveCompanion for LifecycleSave {
    book_at!(keepers.ops.lifecycle);

    fn preview(model: &Model, intent: &LifecycleIntent) -> Option<Preview> {
        Some(lifecycle_preview(model, intent))
    }

    /// A deletion completes once the purge operation has run: it may take longer.
    fn settle_within(intent: &LifecycleIntent) -> Duration {
        match intent.action {
            LifecycleAction::Delete => Duration::from_secs(30),
            _ => crate::view::save_path::settle::DEFAULT_SETTLE_WITHIN,
        }
    }

    fn confirm(model: &Model, entry: &SaveEntry<Self>) -> Option<Confirm> {
        after::lifecycle_confirm(model, entry)
    }

    fn undo(model: &Model, entry: &SaveEntry<Self>) -> Undo {
        after::lifecycle_undo(model, entry)
    }
}

impl SaveCompanion for CreateSave {
    book_at!(keepers.ops.create);

    fn confirm(model: &Model, entry: &SaveEntry<Self>) -> Option<Confirm> {
        after::create_confirm(model, entry)
    }

    fn undo(_model: &Model, _entry: &SaveEntry<Self>) -> Undo {
        Undo::Never("a created Keeper is removed with x x (delete), its own armed action")
    }
}
