//! The save path's preview stage: every save that changes shared
//! configuration or a Keeper's life is previewed — old → new per field, a unified diff for a
//! file, what it removes — in the confirmation layer, and nothing is registered or sent before
//! the confirming key; the confirming key runs the command that asked again, committed. Run
//! here through `screens::confirm::submit`, the function the view actor calls, with no save
//! hub: a commit then ends as `NoHub` (registered in its book, the cast refused), a preview
//! never gets that far.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code
use crate::keeper_ops_keys::{key, roster};
use crossterm::event::KeyCode;
use masc_tui::actors::board::vote::{BoardVote, VoteIntent};
use masc_tui::actors::connectors::binding::{BindingIntent, ConnectorBind, ConnectorUnbind};
use masc_tui::actors::keepers::ops::assignment::{AssignmentIntent, AssignmentSave};
use masc_tui::actors::keepers::ops::lifecycle::{LifecycleAction, LifecycleIntent, LifecycleSave};
use masc_tui::actors::keepers::ops::sandbox::{SandboxIntent, SandboxSave};
use masc_tui::actors::keepers::ops::settings::{SettingsIntent, SettingsSave};
use masc_tui::actors::runtime::form::{FormIntent, RuntimeForm};
use masc_tui::actors::runtime::raw::{RawIntent, RuntimeRaw};
use masc_tui::actors::work::goal_transition::{GoalTransition, TransitionIntent};
use masc_tui::protocol::board_vote::VoteDirection;
use masc_tui::protocol::goal_transition::GoalAction;
use masc_tui::protocol::keeper_config::{
    CompositeRevision, ManifestRevision, RuntimeAssignmentRevision, SandboxProfile,
};
use masc_tui::protocol::runtime::form::FormEdit;
use masc_tui::view::command::{ExitCause, UiCommand};
use masc_tui::view::keys::handle_key;
use masc_tui::view::model::Model;
use masc_tui::view::save_path::{Refused, SaveCompanion, SaveRequest};
use masc_tui::view::screens::Ui;
use masc_tui::view::screens::confirm::{self, Asking, ConfirmLayer};

const RUNTIME_TOML: &str = "[runtime]\ndefault = \"a.x\"\n\n[[models]]\nruntime_id = \"a.x\"\nmax_context_override = 160000\nmax_context = 200000\n";

/// The command the confirming key runs again (any command: these tests look at the submit).
fn asked() -> UiCommand {
    UiCommand::Quit(ExitCause::QuitKey)
}

/// Submits `request` as the key `key` asked it: `Some(layer)` when it was staged for its
/// confirmation (nothing registered, nothing sent), `None` when it was committed.
fn submit_once(
    ui: &mut Ui,
    model: &mut Model,
    request: SaveRequest,
    key: KeyCode,
) -> Option<ConfirmLayer> {
    let result = confirm::submit(ui, model, None, request, Asking::new(Some(key), asked()));
    match result {
        Ok(s) if s.staged.is_some() => {
            let layer = ui
                .layer::<ConfirmLayer>()
                .cloned()
                .expect("the layer opened");
            Some(layer)
        }
        Err(r) if matches!(r.why, Refused::NoHub { .. }) => None,
        other => panic!("neither staged nor committed: {other:?}"),
    }
}

/// The first submit previews (the text holds every `expect`), the wrong key cancels, the
/// confirming key commits.
fn previewed_then_committed<K: SaveCompanion>(
    intent: K::Intent,
    key_code: KeyCode,
    expect: &[&str],
) {
    let (mut model, mut ui) = roster();
    let request = SaveRequest::new::<K>(intent);
    let layer = submit_once(&mut ui, &mut model, request.clone(), key_code)
        .unwrap_or_else(|| panic!("{} was committed without a preview", K::KIND));
    let text = layer.preview.text();
    for part in expect {
        assert!(
            text.contains(part),
            "{} preview lacks {part:?}:\n{text}",
            K::KIND
        );
    }
    assert!(layer.prompt().contains("again to"), "{}", layer.prompt());
    // Any other key disarms: closed, nothing run.
    assert_eq!(
        handle_key(&mut ui, &model, key(KeyCode::Char('z'))),
        UiCommand::Repaint
    );
    assert!(ui.layers.is_empty());
    // The asking key again confirms: the command runs again and the save commits.
    submit_once(&mut ui, &mut model, request.clone(), key_code).expect("previewed again");
    assert_eq!(handle_key(&mut ui, &model, key(key_code)), asked());
    assert!(
        submit_once(&mut ui, &mut model, request, key_code).is_none(),
        "{}: committed after the confirming key",
        K::KIND
    );
}

/// §14.1–§14.4: every lifecycle action is armed — a single press previews
/// what changes (and what a delete removes), the second press sends.
#[test]
fn i25_lifecycle_actions_are_previewed_and_sent_on_the_second_press() {
    let k = "keeper-0001";
    for (action, key_code, expect) in [
        (
            LifecycleAction::Pause,
            'p',
            vec!["pause keeper-0001", "paused:"],
        ),
        (LifecycleAction::Resume, 'p', vec!["paused:", "→ no"]),
        (
            LifecycleAction::Wake,
            'w',
            vec!["wake keeper-0001", "fiber:"],
        ),
        (LifecycleAction::Boot, 'p', vec!["fiber:", "→ running"]),
        (LifecycleAction::Shutdown, 's', vec!["→ stopped"]),
        (
            LifecycleAction::Delete,
            'x',
            vec![
                "removes, for good",
                "chat history",
                "agent files and tokens",
                "no undo",
            ],
        ),
        (
            LifecycleAction::ToolGate(masc_tui::protocol::keeper_ops::ToolApprovalMode::Yolo),
            'y',
            vec!["tool gate:", "yolo"],
        ),
    ] {
        previewed_then_committed::<LifecycleSave>(
            LifecycleIntent::new(k, action),
            KeyCode::Char(key_code),
            &expect,
        );
    }
}

/// Sandbox (H-8), runtime assignment (H-10), bind and unbind (§7.3, §7.4)
/// are previewed old → new.
#[test]
fn i25_sandbox_assignment_and_bindings_are_previewed() {
    previewed_then_committed::<SandboxSave>(
        SandboxIntent {
            keeper: "keeper-0001".into(),
            profile: SandboxProfile::Microvm,
        },
        KeyCode::Char('m'),
        &["sandbox_profile:", "→ microvm", "network_mode:", "none"],
    );
    previewed_then_committed::<AssignmentSave>(
        AssignmentIntent {
            keeper: "keeper-0001".into(),
            runtime_id: Some("a.x".into()),
            only_at: None,
        },
        KeyCode::Enter,
        &["runtime:", "→ a.x"],
    );
    let binding = BindingIntent {
        connector_id: "discord".into(),
        channel_id: "111".into(),
        keeper_name: "rondo".into(),
    };
    previewed_then_committed::<ConnectorBind>(binding.clone(), KeyCode::Enter, &["→ rondo"]);
    previewed_then_committed::<ConnectorUnbind>(
        binding,
        KeyCode::Char('x'),
        &[
            "removes, for good",
            "the binding of discord channel 111 to rondo",
        ],
    );
}

/// §9.3, §9.4, I-1, J-1: a runtime form and a raw `runtime.toml` save show
/// the field old → new and the file's unified diff before anything is sent.
#[test]
fn i25_runtime_saves_show_the_change_and_the_files_diff() {
    previewed_then_committed::<RuntimeForm>(
        FormIntent {
            path: "/ws/runtime.toml".into(),
            opening_revision: "r1".into(),
            source_text: RUNTIME_TOML.into(),
            edit: FormEdit::SetContextOverride {
                runtime_id: "a.x".into(),
                value: 150_000,
            },
        },
        KeyCode::Enter,
        &[
            "max_context_override: 160000 → 150000",
            "-max_context_override = 160000",
            "+max_context_override = 150000",
        ],
    );
    previewed_then_committed::<RuntimeRaw>(
        RawIntent {
            path: "/ws/runtime.toml".into(),
            revision: "r1".into(),
            text: RUNTIME_TOML.replace("200000", "100000"),
            base_text: None,
        },
        KeyCode::Char('S'),
        &["save /ws/runtime.toml", "+max_context = 100000"],
    );
}

/// §9.6, H-4: a settings save shows each changed key old → new, against the
/// snapshot the editor opened on.
#[test]
fn i25_settings_saves_show_each_changed_key() {
    let (mut model, mut ui) = roster();
    let mut base = serde_json::Map::new();
    base.insert("autoboot_enabled".into(), serde_json::json!(true));
    model.keepers.settings.opened = Some(("keeper-0001".into(), base));
    let mut patch = serde_json::Map::new();
    patch.insert("autoboot_enabled".into(), serde_json::json!(false));
    let request = SaveRequest::new::<SettingsSave>(SettingsIntent {
        keeper: "keeper-0001".into(),
        expected: CompositeRevision {
            manifest: ManifestRevision::Missing {},
            runtime_assignment: RuntimeAssignmentRevision::RuntimeConfigMissing {},
        },
        patch,
        confirm_context_shrink: false,
        before: serde_json::Map::new(),
    });
    let layer = submit_once(&mut ui, &mut model, request, KeyCode::Enter).expect("previewed");
    assert!(
        layer
            .preview
            .text()
            .contains("autoboot_enabled: true → false"),
        "{}",
        layer.preview.text()
    );
    assert!(
        model
            .keepers
            .ops
            .settings
            .latest("keeper-0001", "ws")
            .is_none()
    );
}

/// §15.6, §15.4: a Board vote and a Goal transition are previewed too.
#[test]
fn i25_vote_and_goal_transition_are_previewed() {
    previewed_then_committed::<BoardVote>(
        VoteIntent {
            post_id: "p-1".into(),
            direction: VoteDirection::Up,
        },
        KeyCode::Char('v'),
        &["vote up on post p-1", "masc-tui's vote:"],
    );
    previewed_then_committed::<GoalTransition>(
        TransitionIntent {
            goal_id: "goal-1".into(),
            action: GoalAction::Drop,
            note: None,
        },
        KeyCode::Char('x'),
        &["drop goal goal-1", "phase:", "→ dropped"],
    );
}
