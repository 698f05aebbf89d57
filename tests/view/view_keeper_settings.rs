//! The settings editor `e` on the Keepers screen (sources.md H-1…H-7; protocol.md
//! §9.5, §9.6): the key asks for a preparation, a move / `Esc` / withdrawal cancels it, only a
//! read dispatched after `e` for the same Keeper opens the editor (text and patch base from that
//! one snapshot), the returned file becomes the patch of the changed keys, and after a failed
//! save `e` restores only the fields the operator changed over the fresh values.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code
use crate::rig::ScreensOf;
use crossterm::event::KeyCode;
use masc_tui::actors::contract::{IdentityState, SlotEvent, Ticket};
use masc_tui::actors::keepers::ops::settings::{SettingsIntent, SettingsSave};
use masc_tui::actors::keepers::ops::{KeeperOpEvent, KeeperOpSlot};
use masc_tui::actors::keepers::settings::{
    EditableSettings, SettingsPrepared, SettingsSnapshotFailure,
};
use masc_tui::actors::keepers::{KeepersObservation, KeepersSlot};
use masc_tui::actors::saves::{SaveEvent, SaveId, SaveStep};
use masc_tui::protocol::client::ClientError;
use masc_tui::protocol::decode::WireDecode;
use masc_tui::protocol::keeper_config::{ConfigRevision, KeeperConfigSnapshot, RevisionConflict};
use masc_tui::protocol::outcome::SaveOutcome;
use masc_tui::view::editor::EditRequest;
use masc_tui::view::editor::{EditOutcome, EditPurpose, EditResult};
use masc_tui::view::keepers::ops::LatestOp;
use masc_tui::view::keys::escape_pending;
use masc_tui::view::keys::{UiCommand, handle_key};
use masc_tui::view::model::Model;
use masc_tui::view::sample;
use masc_tui::view::screens::Ui;
use masc_tui::view::screens::conflict::{ConflictLayer, Resolution};
use masc_tui::view::screens::keepers::operations::op_line;
use masc_tui::view::screens::keepers::operations::settings::Prepare;
use masc_tui::view::screens::keepers::operations::settings_prep::{Prep, in_front};
use masc_tui::view::screens::react::{Seen, react_detached};
use serde_json::json;
use std::sync::Arc;

use crate::keeper_ops_keys::{key, roster};

const K: &str = "keeper-0001";

fn snapshot(manifest: &str, autoboot: bool, proactive: bool) -> EditableSettings {
    let body = format!(
        r#"{{"name":"{K}","config_revision":{{"manifest":{manifest},"runtime_assignment":{{"state":"runtime_config_missing"}}}},"execution":{{"selected_runtime_id":null}},"sandbox_profile":"docker","network_mode":"none","autoboot_enabled":{autoboot},"max_context_override":null,"prompt":{{"instructions":"Watch."}},"proactive":{{"enabled":{proactive}}},"skills":{{"names":null}},"workspace":{{"mention_targets":["@k"]}}}}"#
    );
    let snapshot = KeeperConfigSnapshot::decode(body.as_bytes()).unwrap();
    let revision = snapshot.config_revision.composite().unwrap().clone();
    EditableSettings {
        snapshot: Arc::new(snapshot),
        revision,
    }
}

const REV_A: &str = r#"{"state":"missing"}"#;
const REV_B: &str = r#"{"state":"sha256","value":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}"#;

fn settings_ticket(generation: u64) -> Ticket<KeepersSlot> {
    Ticket {
        slot: KeepersSlot::Settings,
        generation,
        scope: sample::scope(1),
    }
}

/// What the view actor does on `e`: records the preparation at the model's floor.
fn begin(model: &Model, ui: &mut Ui, keeper: &str) {
    let in_front = in_front(ui, ui.roster());
    ui.keepers_mut().settings.prep = Some(Prep {
        keeper: keeper.into(),
        scope: sample::scope(1),
        floor: model.keepers.settings.floor(),
        in_front,
        conflict: None,
    });
}

/// The reaction hook as the view actor runs it after a delivery: whether the UI changed; the
/// edit it asks for is kept in `asked` until taken, as the actor would start it.
fn settle(ui: &mut Ui, model: &mut Model, asked: &mut Option<EditRequest>) -> bool {
    let reaction = react_detached(ui, model, Seen::Delivered);
    if let Some(edit) = reaction.edit() {
        *asked = Some(edit.clone());
    }
    reaction.repaint
}

fn arrive(
    model: &mut Model,
    generation: u64,
    keeper: &str,
    outcome: Result<EditableSettings, SettingsSnapshotFailure>,
) {
    let t = settings_ticket(generation);
    crate::rig::dispatch(model, t.clone());
    crate::rig::observe(
        model,
        SlotEvent::Observed(
            t,
            KeepersObservation::Settings(Box::new(SettingsPrepared {
                keeper: keeper.into(),
                outcome,
            })),
        ),
    )
    .unwrap();
}

/// The editor's result handed to the Keepers screen, as the view actor hands it.
fn returned(ui: &mut Ui, model: &Model, result: EditResult) -> UiCommand {
    masc_tui::view::screens::edited(
        masc_tui::view::screens::EditOwner::Surface(masc_tui::view::screens::Tab::Keepers),
        ui,
        model,
        result,
    )
}

fn edited(text: &str, original: &str) -> EditResult {
    EditResult {
        purpose: EditPurpose::KeeperSettings,
        original: original.into(),
        outcome: EditOutcome::Edited(text.into()),
    }
}

/// H-1, surfaces.md Keepers row / Keeper detail: `e` asks for the selected Keeper's settings on
/// the roster and in the detail; key handling only names the Keeper (no read, no wait).
#[test]
fn h1_e_asks_for_the_selected_keepers_settings_on_the_roster_and_in_the_detail() {
    let (model, mut ui) = roster();
    ui.roster_mut().selected = 1;
    assert_eq!(
        handle_key(&mut ui, &model, key(KeyCode::Char('e'))),
        UiCommand::local(Prepare { keeper: K.into() })
    );
    handle_key(&mut ui, &model, key(KeyCode::Enter));
    assert!(ui.roster().detail_open);
    assert_eq!(
        handle_key(&mut ui, &model, key(KeyCode::Char('e'))),
        UiCommand::local(Prepare { keeper: K.into() })
    );
}

/// H-1, H-3: the snapshot answering the preparation opens the editor once, on a file made from
/// that snapshot; its revision and fields are the patch base.
#[test]
fn h1_h3_the_answering_snapshot_opens_the_editor_on_that_snapshot() {
    let mut asked = None;
    let (mut model, mut ui) = roster();
    ui.roster_mut().selected = 1;
    begin(&model, &mut ui, K);
    assert!(!settle(&mut ui, &mut model, &mut asked), "nothing yet");
    assert!(asked.is_none());
    arrive(&mut model, 1, K, Ok(snapshot(REV_A, true, false)));
    assert!(settle(&mut ui, &mut model, &mut asked));
    let request = asked.take().expect("the editor is asked for");
    assert_eq!(request.purpose, EditPurpose::KeeperSettings);
    assert!(
        request.text.contains("autoboot_enabled = true"),
        "{}",
        request.text
    );
    assert!(request.text.contains("confirm_context_shrink = false"));
    let open = ui
        .keepers()
        .settings
        .open
        .as_ref()
        .expect("the edit is open");
    assert_eq!(open.revision, snapshot(REV_A, true, false).revision);
    assert!(ui.keepers().settings.prep.is_none());
    // The result opens at most one editor.
    begin(&model, &mut ui, K);
    assert!(!settle(&mut ui, &mut model, &mut asked));
    assert!(asked.is_none());
}

/// H-1: a read dispatched before this `e` (an older snapshot) never opens the editor; a
/// snapshot for another Keeper neither.
#[test]
fn h1_an_older_read_or_another_keepers_snapshot_never_opens_the_editor() {
    let mut asked = None;
    let (mut model, mut ui) = roster();
    ui.roster_mut().selected = 1;
    arrive(&mut model, 1, K, Ok(snapshot(REV_A, true, false)));
    begin(&model, &mut ui, K);
    assert!(!settle(&mut ui, &mut model, &mut asked));
    arrive(
        &mut model,
        2,
        "keeper-0002",
        Ok(snapshot(REV_A, true, false)),
    );
    assert!(!settle(&mut ui, &mut model, &mut asked));
    assert!(asked.is_none());
    assert!(ui.keepers().settings.prep.is_some(), "still waiting");
}

/// H-2: a Keeper move, `Esc` and withdrawal each cancel the preparation; its snapshot then
/// opens nothing.
#[test]
fn h2_a_move_esc_or_withdrawal_cancels_the_preparation() {
    let mut asked = None;
    let (mut model, mut ui) = roster();
    ui.roster_mut().selected = 1;
    begin(&model, &mut ui, K);
    handle_key(&mut ui, &model, key(KeyCode::Char('j')));
    assert!(settle(&mut ui, &mut model, &mut asked));
    assert!(ui.keepers().settings.prep.is_none());
    assert!(
        ui.notice
            .text
            .as_deref()
            .unwrap()
            .contains("cancelled (moved)")
    );
    arrive(&mut model, 1, K, Ok(snapshot(REV_A, true, false)));
    assert!(!settle(&mut ui, &mut model, &mut asked));
    assert!(asked.is_none());

    ui.roster_mut().selected = 1;
    begin(&model, &mut ui, K);
    assert!(escape_pending(&mut ui));
    assert!(ui.keepers().settings.prep.is_none());
    assert!(!escape_pending(&mut ui), "Esc then does what it does");

    begin(&model, &mut ui, K);
    model.on_identity(IdentityState::Unconfirmed {
        reason: "lost".into(),
    });
    assert!(settle(&mut ui, &mut model, &mut asked));
    assert!(
        ui.notice
            .text
            .as_deref()
            .unwrap()
            .contains("workspace withdrawn")
    );
}

/// H-1: a failed preparation says why and opens nothing.
#[test]
fn h1_a_failed_preparation_says_why_and_opens_nothing() {
    let mut asked = None;
    let (mut model, mut ui) = roster();
    ui.roster_mut().selected = 1;
    begin(&model, &mut ui, K);
    arrive(
        &mut model,
        1,
        K,
        Err(SettingsSnapshotFailure::Read(ClientError::Timeout)),
    );
    assert!(settle(&mut ui, &mut model, &mut asked));
    assert!(asked.is_none());
    assert!(ui.notice.text.as_deref().unwrap().contains("not opened"));
}

/// The settings save of `intent` is registered and ends in a verified revision conflict (the
/// server's answer carries only revisions, §9.6).
fn conflict_receipt(model: &mut Model, intent: SettingsIntent, ws: &str) {
    let id = SaveId::fresh();
    model
        .keepers
        .ops
        .settings
        .submit(id.clone(), intent.clone(), ws.to_string());
    assert_eq!(model.keepers.ops.busy(K, ws), Some("settings"), "H-11");
    let ticket = Ticket {
        slot: KeepersSlot::Op(KeeperOpSlot::Settings(id.clone())),
        generation: 1,
        scope: sample::scope(1),
    };
    crate::rig::dispatch(model, ticket.clone());
    let rev = ConfigRevision::Composite(intent.expected.clone());
    crate::rig::observe(
        model,
        SlotEvent::Observed(
            ticket,
            KeepersObservation::Op(Box::new(KeeperOpEvent::Settings(
                SaveEvent::<SettingsSave> {
                    save_id: id,
                    intent,
                    workspace: ws.to_string(),
                    step: SaveStep::Ended(SaveOutcome::Conflict {
                        current: RevisionConflict {
                            expected: rev.clone(),
                            observed: rev,
                        },
                    }),
                },
            ))),
        ),
    )
    .unwrap();
}

/// The returned edit of `text` (autoboot turned off), as a settings save's intent.
fn autoboot_off(ui: &mut Ui, model: &Model, text: &str) -> SettingsIntent {
    let changed = text.replace("autoboot_enabled = true", "autoboot_enabled = false");
    match crate::rig::keeper_op::<SettingsSave>(&returned(ui, model, edited(&changed, text))) {
        Some(intent) => intent,
        other => panic!("not a settings save: {other:?}"),
    }
}

/// The text of the open conflict view's rows.
fn conflict_text(ui: &Ui) -> String {
    ui.layer::<ConflictLayer>()
        .expect("the three views are open")
        .lines(78)
        .into_iter()
        .map(|(t, _)| t)
        .collect::<Vec<_>>()
        .join("\n")
}

/// The conflict's fresh read, as `follow_receipt` asks it when the preparation source runs:
/// the preparation of `intent`'s conflict, answered (generation 2) by a snapshot where someone
/// else turned proactive on; the reaction opens the three views (no editor).
fn conflict_read(model: &mut Model, ui: &mut Ui, intent: SettingsIntent) {
    use masc_tui::view::screens::keepers::operations::settings_doc;
    use masc_tui::view::screens::keepers::operations::settings_prep::SentEdit;
    let sent = SentEdit {
        workspace: sample::scope(1).workspace.0,
        intent,
        base: settings_doc::fields_of(&snapshot(REV_A, true, false).snapshot),
    };
    let in_front = in_front(ui, ui.roster());
    ui.keepers_mut().settings.sent = None;
    ui.keepers_mut().settings.prep = Some(Prep {
        keeper: K.into(),
        scope: sample::scope(1),
        floor: model.keepers.settings.floor(),
        in_front,
        conflict: Some(Box::new(sent)),
    });
    arrive(model, 2, K, Ok(snapshot(REV_B, true, true)));
    let mut asked = None;
    assert!(settle(ui, model, &mut asked));
    assert!(asked.is_none(), "no editor: the three views");
}

/// H-6, issue 25 item 3: a settings conflict carries only revisions, so the three views open on
/// a fresh read of the settings — base (what the edit started from), yours, theirs — and never
/// overwrite silently: an overwrite first shows what of theirs it loses and then sends every key
/// of the draft on the fresh revision; a rebase sends only your changed key on it; take theirs
/// drops the edit, so the next `e` restores nothing.
#[test]
fn h6_a_settings_conflict_shows_three_views_from_a_fresh_read() {
    use masc_tui::view::effects::Effects;
    use masc_tui::view::screens::confirm::ConfirmLayer;
    use masc_tui::view::screens::keepers::operations::settings_conflict::SettingsResolve;
    use masc_tui::view::screens::local::LocalEvent;
    use masc_tui::view::theme::Theme;
    let (mut model, mut ui) = roster();
    ui.roster_mut().selected = 1;
    let ws = sample::scope(1).workspace.0;
    let text = open_on(&mut model, &mut ui, 1, snapshot(REV_A, true, false));
    let intent = autoboot_off(&mut ui, &model, &text);
    assert!(
        ui.keepers().settings.sent.is_some(),
        "the sent edit is followed"
    );
    conflict_receipt(&mut model, intent.clone(), &ws);
    // The reaction asks the preparation source for a fresh read; with no source running it says
    // so (the notice keeps `e`'s restore).
    react_detached(&mut ui, &mut model, Seen::Delivered);
    let notice = ui.notice.text.clone().unwrap_or_default();
    assert!(notice.contains("could not be read again"), "{notice}");
    assert!(ui.keepers().settings.sent.is_none(), "followed once");
    // As the read is asked when the source runs: meanwhile someone else turned proactive on.
    conflict_read(&mut model, &mut ui, intent);
    let theirs = conflict_text(&ui);
    assert!(theirs.contains("2 their changes"), "{theirs}");
    assert!(theirs.contains("+proactive_enabled = true"), "{theirs}");
    assert!(
        !theirs.contains("+autoboot") && !theirs.contains("-autoboot"),
        "{theirs}"
    );
    handle_key(&mut ui, &model, key(KeyCode::Char('1')));
    let yours = conflict_text(&ui);
    assert!(yours.contains("+autoboot_enabled = false"), "{yours}");

    // Rebase: only your changed key, on the fresh revision, replacing the server's value.
    let conflict = ui.keepers().settings.conflict.clone().expect("standing");
    let rebased = conflict.rebase().unwrap().expect("a change to send");
    assert_eq!(
        serde_json::Value::Object(rebased.patch.clone()),
        json!({"autoboot_enabled": false})
    );
    assert_eq!(rebased.expected, snapshot(REV_B, true, true).revision);
    assert_eq!(
        serde_json::Value::Object(rebased.before.clone()),
        json!({"autoboot_enabled": true})
    );

    // Overwrite: its own confirmation names their line it loses; then the draft goes whole.
    assert_eq!(
        handle_key(&mut ui, &model, key(KeyCode::Char('o'))),
        UiCommand::Repaint
    );
    let lost = ui
        .layer::<ConfirmLayer>()
        .expect("the overwrite's confirmation")
        .preview
        .text();
    assert!(lost.contains("-proactive_enabled = true"), "{lost}");
    let cmd = handle_key(&mut ui, &model, key(KeyCode::Char('o')));
    let Some(event) = cmd.as_local::<SettingsResolve>().cloned() else {
        panic!("{cmd:?}")
    };
    assert_eq!(event, SettingsResolve(Resolution::Overwrite));
    let mut fx = Effects::detached(&mut model, Theme::plain());
    event.run(&mut ui, &mut fx);
    let entry = model
        .keepers
        .ops
        .settings
        .latest(K, &ws)
        .expect("the overwrite is registered");
    assert_eq!(
        serde_json::Value::Object(entry.intent.patch.clone()),
        json!({"autoboot_enabled": false, "proactive_enabled": false})
    );
    assert_eq!(entry.intent.expected, snapshot(REV_B, true, true).revision);
    assert!(ui.keepers().settings.conflict.is_none());
    assert!(ui.layer::<ConflictLayer>().is_none());
}

/// Take theirs in a settings conflict drops the edit: the next `e` opens on the server's values
/// with nothing restored (H-7 restores only an edit kept).
#[test]
fn h6_h7_take_theirs_drops_the_edit_and_e_restores_nothing() {
    use masc_tui::view::effects::Effects;
    use masc_tui::view::screens::keepers::operations::settings_conflict::SettingsResolve;
    use masc_tui::view::screens::local::LocalEvent;
    use masc_tui::view::theme::Theme;
    let (mut model, mut ui) = roster();
    ui.roster_mut().selected = 1;
    let ws = sample::scope(1).workspace.0;
    let text = open_on(&mut model, &mut ui, 1, snapshot(REV_A, true, false));
    let intent = autoboot_off(&mut ui, &model, &text);
    conflict_receipt(&mut model, intent.clone(), &ws);
    conflict_read(&mut model, &mut ui, intent);
    let cmd = handle_key(&mut ui, &model, key(KeyCode::Char('t')));
    let event = cmd
        .as_local::<SettingsResolve>()
        .cloned()
        .expect("a choice");
    let mut fx = Effects::detached(&mut model, Theme::plain());
    event.run(&mut ui, &mut fx);
    assert!(
        ui.notice
            .text
            .as_deref()
            .unwrap_or_default()
            .contains("your edit dropped"),
        "{:?}",
        ui.notice.text
    );
    let text = open_on(&mut model, &mut ui, 3, snapshot(REV_B, true, true));
    assert!(text.contains("autoboot_enabled = true"), "{text}");
    assert!(!text.contains("Restored from"), "{text}");
}

fn open_on(model: &mut Model, ui: &mut Ui, generation: u64, prepared: EditableSettings) -> String {
    let mut asked = None;
    begin(model, ui, K);
    arrive(model, generation, K, Ok(prepared));
    assert!(settle(ui, model, &mut asked));
    asked.take().expect("editor asked for").text
}

/// H-4, H-6, H-7: the returned file becomes the patch of the changed keys against the
/// snapshot's revision; after a verified conflict, the next `e` re-reads and the editor opens
/// with only the operator's change put back over the fresh values (someone else's change kept,
/// the shrink confirmation not reused), and the new save carries the fresh revision.
#[test]
fn h4_h6_h7_a_conflict_then_e_restores_only_the_changed_field_over_fresh_values() {
    let (mut model, mut ui) = roster();
    ui.roster_mut().selected = 1;
    let ws = sample::scope(1).workspace.0;
    let text = open_on(&mut model, &mut ui, 1, snapshot(REV_A, true, false));
    let changed = text.replace("autoboot_enabled = true", "autoboot_enabled = false");
    let intent = match crate::rig::keeper_op::<SettingsSave>(&returned(
        &mut ui,
        &model,
        edited(&changed, &text),
    )) {
        Some(intent) => intent,
        other => panic!("not a settings save: {other:?}"),
    };
    assert_eq!(
        serde_json::Value::Object(intent.patch.clone()),
        json!({"autoboot_enabled": false})
    );
    assert_eq!(intent.expected, snapshot(REV_A, true, false).revision);

    // The save ends in a verified conflict.
    conflict_receipt(&mut model, intent, &ws);
    let (line, _) = op_line(model.keepers.ops.latest(K, &ws).unwrap());
    assert!(line.contains("conflict"), "{line}");
    assert!(line.contains("e restores your edit"), "{line}");
    assert!(matches!(
        model.keepers.ops.latest(K, &ws),
        Some(LatestOp::Settings(_))
    ));

    // Meanwhile someone else turned proactive on: the fresh snapshot says so.
    let text = open_on(&mut model, &mut ui, 2, snapshot(REV_B, true, true));
    assert!(
        text.contains("autoboot_enabled = false"),
        "restored:\n{text}"
    );
    assert!(
        text.contains("proactive_enabled = true"),
        "current:\n{text}"
    );
    assert!(text.contains("Restored from your unsaved edit: autoboot_enabled"));
    assert!(text.contains("confirm_context_shrink = false"));
    // Saved as opened: the restored change goes, with the fresh revision.
    let again = EditResult {
        purpose: EditPurpose::KeeperSettings,
        original: text.clone(),
        outcome: EditOutcome::Unchanged,
    };
    match crate::rig::keeper_op::<SettingsSave>(&returned(&mut ui, &model, again)) {
        Some(SettingsIntent {
            patch, expected, ..
        }) => {
            assert_eq!(
                serde_json::Value::Object(patch),
                json!({"autoboot_enabled": false})
            );
            assert_eq!(
                expected,
                snapshot(REV_B, true, true).revision,
                "never the old one"
            );
        }
        other => panic!("not a settings save: {other:?}"),
    }
}

/// H-3, §9.6: a file saved as opened sends nothing; an aborted editor sends nothing; a file
/// that does not parse sends nothing, says why, and the next `e` reopens the operator's text.
#[test]
fn h3_unchanged_aborted_or_unparsable_files_send_nothing_and_drafts_survive() {
    let (mut model, mut ui) = roster();
    ui.roster_mut().selected = 1;
    let text = open_on(&mut model, &mut ui, 1, snapshot(REV_A, true, false));
    let unchanged = EditResult {
        purpose: EditPurpose::KeeperSettings,
        original: text.clone(),
        outcome: EditOutcome::Unchanged,
    };
    assert_eq!(returned(&mut ui, &model, unchanged), UiCommand::Repaint);
    assert!(ui.notice.text.as_deref().unwrap().contains("nothing sent"));

    let text = open_on(&mut model, &mut ui, 2, snapshot(REV_A, true, false));
    let aborted = EditResult {
        purpose: EditPurpose::KeeperSettings,
        original: text.clone(),
        outcome: EditOutcome::Aborted {
            status: Some(1),
            text: None,
        },
    };
    assert_eq!(returned(&mut ui, &model, aborted), UiCommand::Repaint);

    let text = open_on(&mut model, &mut ui, 3, snapshot(REV_A, true, false));
    let broken = text.replace("autoboot_enabled = true", "autoboot_enabled = maybe");
    assert_eq!(
        returned(&mut ui, &model, edited(&broken, &text)),
        UiCommand::Repaint
    );
    assert!(
        ui.notice.text.as_deref().unwrap().contains("not sent"),
        "{:?}",
        ui.notice.text
    );
    let reopened = open_on(&mut model, &mut ui, 4, snapshot(REV_A, true, false));
    assert_eq!(reopened, broken, "the operator's own text comes back");
}

/// `snapshot` with a stored `max_context_override`.
fn snapshot_with_context(manifest: &str, max: u64) -> EditableSettings {
    let plain = snapshot(manifest, true, false);
    let mut value = (*plain.snapshot).clone();
    value.max_context_override = Some(max);
    EditableSettings {
        snapshot: Arc::new(value),
        revision: plain.revision,
    }
}

/// H-5, H-7, §9.6: lowering the context with `confirm_context_shrink = true` in the file sends
/// the confirmation with the change; the server's refusal of a shrink sent without it is "not
/// applied" with the server's reason on the line; the next `e` puts the lowered value back over
/// the fresh snapshot, and the confirmation starts `false` again (never carried over).
#[test]
fn h5_h7_a_context_shrink_carries_its_own_confirmation_and_a_refusal_restores_the_value() {
    let (mut model, mut ui) = roster();
    ui.roster_mut().selected = 1;
    let ws = sample::scope(1).workspace.0;
    let text = open_on(
        &mut model,
        &mut ui,
        1,
        snapshot_with_context(REV_A, 180_000),
    );
    assert!(text.contains("max_context_override = 180000"), "{text}");
    let lowered = text.replace(
        "max_context_override = 180000",
        "max_context_override = 100000",
    );
    let confirmed = lowered.replace(
        "confirm_context_shrink = false",
        "confirm_context_shrink = true",
    );
    match crate::rig::keeper_op::<SettingsSave>(&returned(
        &mut ui,
        &model,
        edited(&confirmed, &text),
    )) {
        Some(intent) => {
            assert!(intent.confirm_context_shrink);
            assert_eq!(
                intent.body()["confirm_context_shrink"],
                json!(true),
                "sent with the change"
            );
            assert_eq!(
                serde_json::Value::Object(intent.patch),
                json!({"max_context_override": 100_000})
            );
        }
        other => panic!("not a settings save: {other:?}"),
    }

    // The same change without the confirmation: sent without it, refused by the server.
    let text = open_on(
        &mut model,
        &mut ui,
        2,
        snapshot_with_context(REV_A, 180_000),
    );
    let lowered = text.replace(
        "max_context_override = 180000",
        "max_context_override = 100000",
    );
    let intent = match crate::rig::keeper_op::<SettingsSave>(&returned(
        &mut ui,
        &model,
        edited(&lowered, &text),
    )) {
        Some(intent) => intent,
        other => panic!("not a settings save: {other:?}"),
    };
    assert!(!intent.confirm_context_shrink);
    assert!(intent.body().get("confirm_context_shrink").is_none());
    let id = SaveId::fresh();
    model
        .keepers
        .ops
        .settings
        .submit(id.clone(), intent.clone(), ws.clone());
    let ticket = Ticket {
        slot: KeepersSlot::Op(KeeperOpSlot::Settings(id.clone())),
        generation: 1,
        scope: sample::scope(1),
    };
    crate::rig::dispatch(&mut model, ticket.clone());
    let reason =
        "lowering max_context_override from 180000 to 100000 requires confirm_context_shrink: true";
    crate::rig::observe(
        &mut model,
        SlotEvent::Observed(
            ticket,
            KeepersObservation::Op(Box::new(KeeperOpEvent::Settings(
                SaveEvent::<SettingsSave> {
                    save_id: id,
                    intent,
                    workspace: ws.clone(),
                    step: SaveStep::Ended(SaveOutcome::NotApplied {
                        reason: reason.into(),
                    }),
                },
            ))),
        ),
    )
    .unwrap();
    let (line, _) = op_line(model.keepers.ops.latest(K, &ws).unwrap());
    assert!(line.contains("not applied"), "{line}");
    assert!(line.contains("confirm_context_shrink"), "{line}");

    let text = open_on(
        &mut model,
        &mut ui,
        3,
        snapshot_with_context(REV_B, 180_000),
    );
    assert!(
        text.contains("max_context_override = 100000"),
        "restored:\n{text}"
    );
    assert!(text.contains("Restored from your unsaved edit: max_context_override"));
    assert!(
        text.contains("confirm_context_shrink = false"),
        "the confirmation is this edit's own:\n{text}"
    );
}
