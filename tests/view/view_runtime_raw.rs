#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! The raw `runtime.toml` editor on System › Runtime (sources.md J-1…J-5): keys, the editor's
//! continuation and the receipts' effect on the draft, without a runtime. `e` opens the editor
//! only on a fresh read; an edit is saved with its base's path, revision and text and `S`
//! resends exactly those after a refusal; an unknown outcome keeps the body and releases the
//! base, and only `u` / `U` with a read dispatched after that receipt give a new one; a late
//! success ends only its own draft owner; a model-table error shows the raw text.

use crate::rig::ScreensOf;
use crate::rig::{deliver, dispatch, observe};
use crate::view_runtime_form::{ch, ok, screen, ticket, ui};
use masc_tui::actors::contract::SlotEvent;
use masc_tui::actors::runtime::raw::{RawIntent, RuntimeRaw};
use masc_tui::actors::runtime::{RuntimeObservation, RuntimeSlot};
use masc_tui::actors::saves::{SaveEvent, SaveId, SaveStep};
use masc_tui::protocol::admission::AdmissionMode;
use masc_tui::protocol::decode::WireDecode;
use masc_tui::protocol::outcome::SaveOutcome;
use masc_tui::protocol::runtime::{CommitReceipt, RuntimeConfigCurrent, RuntimeConfigRaw};
use masc_tui::view::command::UiCommand;
use masc_tui::view::editor::EditRequest;
use masc_tui::view::editor::{EditOutcome, EditPurpose, EditResult};
use masc_tui::view::keys::handle_key;
use masc_tui::view::model::Model;
use masc_tui::view::sample;
use masc_tui::view::screens::Ui;
use masc_tui::view::screens::react::{Seen, react_detached};
use masc_tui::view::screens::system::raw;
use masc_tui::view::screens::system::raw::RawEvent;

const PATH: &str = "/srv/config/runtime.toml";
const REV1: &str = "9f2c0a5e8d1b4c7a6e3f0b2d5c8a1e4f7b0d3c6a9e2f5b8d1c4a7e0f3b6d9c2a";
const REV2: &str = "1111111111111111111111111111111111111111111111111111111111111111";
const TEXT1: &str = "[runtime]\ndefault = \"acme.big\"\n";
const TEXT2: &str = "[runtime]\ndefault = \"acme.small\"\n# written by another client\n";

type RawOutcome = SaveOutcome<CommitReceipt, RuntimeConfigCurrent>;

/// A §9.2 body; `bindings_rev` is the model table's own revision (J-5: equal or refused).
fn raw_body(rev: &str, text: &str, bindings_rev: &str) -> RuntimeConfigRaw {
    let body = serde_json::json!({
        "ok": true, "source_revision": rev, "path": PATH, "file_name": "runtime.toml",
        "source_text": text, "validation": {"valid": true, "issues": []},
        "account_groups": [],
        "account_emails": [{"integration_id": "acme-main", "state": "not_read", "cause": "keychain locked"}],
        "model_bindings": {"state": "ready", "path": PATH, "source_revision": bindings_rev,
            "bindings": [{"runtime_id": "acme.big", "provider_id": "acme", "model_id": "big", "max_context_override": null}]},
    });
    RuntimeConfigRaw::decode(body.to_string().as_bytes()).unwrap()
}

fn model() -> Model {
    let mut m = Model::default();
    m.on_identity(sample::confirmed(1, AdmissionMode::Receipt));
    m
}

/// Raw config read `generation` lands (dispatched and observed).
fn read_lands(m: &mut Model, generation: u64, value: RuntimeConfigRaw) {
    deliver(
        m,
        ticket(RuntimeSlot::Config, generation),
        RuntimeObservation::Config(ok(value)),
    );
}

/// The edit the reaction hook asks for after a delivery (the System screen's raw draft opens
/// on a fresh read), as the view actor runs it.
fn reacted_edit(ui: &mut Ui, m: &mut Model) -> Option<EditRequest> {
    react_detached(ui, m, Seen::Delivered).edit().cloned()
}

/// `e` on a model with no draft, then a fresh read: the draft opens on it (returns the text
/// the editor was asked to open).
fn open_draft(m: &mut Model, ui: &mut Ui, generation: u64) -> String {
    assert_eq!(handle_key(ui, m, ch('e')), UiCommand::local(RawEvent::Read));
    read_lands(m, generation, raw_body(REV1, TEXT1, REV1));
    let edit = reacted_edit(ui, m).expect("the editor opens on the fresh read");
    assert_eq!(edit.purpose, EditPurpose::RuntimeConfig);
    edit.text
}

/// The editor returned `text`: the continuation's command.
fn edited(ui: &mut Ui, m: &Model, text: &str) -> UiCommand {
    let result = EditResult {
        purpose: EditPurpose::RuntimeConfig,
        original: String::new(),
        outcome: EditOutcome::Edited(text.into()),
    };
    raw::edited(&mut ui.system_mut().raw, m, result).0
}

fn submit_of(cmd: UiCommand) -> (RawIntent, u64) {
    match cmd.as_local::<RawEvent>().cloned() {
        Some(RawEvent::Submit { intent, owner }) => (intent, owner),
        other => panic!("not a submit: {other:?}"),
    }
}

/// The actor's part of a submit: the save is registered, dispatched, and its draft owner told.
fn submitted(m: &mut Model, ui: &mut Ui, intent: &RawIntent, owner: u64) -> SaveId {
    let id = SaveId::fresh();
    let workspace = sample::scope(1).workspace.0.clone();
    m.runtime.raws.submit(id.clone(), intent.clone(), workspace);
    dispatch(m, ticket(RuntimeSlot::Raw(id.clone()), 1));
    raw::submitted(&mut ui.system_mut().raw, owner, id.clone());
    id
}

fn receipt_lands(m: &mut Model, ui: &mut Ui, id: &SaveId, intent: &RawIntent, outcome: RawOutcome) {
    let event = SaveEvent::<RuntimeRaw> {
        save_id: id.clone(),
        intent: intent.clone(),
        workspace: sample::scope(1).workspace.0.clone(),
        step: SaveStep::Ended(outcome),
    };
    observe(
        m,
        SlotEvent::Observed(
            ticket(RuntimeSlot::Raw(id.clone()), 1),
            RuntimeObservation::Raw(Box::new(event)),
        ),
    )
    .unwrap();
    assert!(reacted_edit(ui, m).is_none());
}

fn committed(durability: &str) -> RawOutcome {
    let receipt = CommitReceipt::decode(
        format!(r#"{{"ok":true,"state":"committed","commit":{{"source_revision":"{REV2}","order":"2","durability":"{durability}","warnings":[]}},"application":{{"operation":"raw_save"}}}}"#)
            .as_bytes(),
    )
    .unwrap();
    SaveOutcome::Applied {
        warning: receipt.durability_warning(),
        detail: receipt,
    }
}

/// J-4 (§9.2 fresh read): `e` opens the editor only on a read dispatched after the key — the
/// cached read of the same file never stands in.
#[test]
fn j4_e_opens_the_editor_on_a_fresh_read_never_the_cached_one() {
    let mut m = model();
    let mut ui = ui();
    read_lands(&mut m, 1, raw_body(REV1, TEXT1, REV1));
    assert_eq!(
        handle_key(&mut ui, &m, ch('e')),
        UiCommand::local(RawEvent::Read)
    );
    assert!(
        reacted_edit(&mut ui, &mut m).is_none(),
        "the cached read (1) is not fresh"
    );
    assert!(screen(&m, &ui).contains("reading runtime.toml afresh"));
    read_lands(&mut m, 2, raw_body(REV1, TEXT1, REV1));
    let edit = reacted_edit(&mut ui, &mut m).expect("opens on read 2");
    assert_eq!(edit.text, TEXT1);
    assert_eq!(edit.suffix, ".toml");
    let draft = ui.system().raw.draft.as_ref().unwrap();
    assert_eq!(draft.base.as_ref().unwrap().revision, REV1);
    assert_eq!(draft.base.as_ref().unwrap().generation, 2);
}

/// J-1: an edit is saved at once with its base's path and revision and the edited text; after
/// a refusal by the server's preview the draft stays and `S` sends exactly the same three values
/// again (a new job, same intent).
#[test]
fn j1_an_edit_saves_on_its_base_and_s_resends_the_same_after_a_refusal() {
    let mut m = model();
    let mut ui = ui();
    open_draft(&mut m, &mut ui, 1);
    let broken = "[runtime\n";
    let (intent, owner) = submit_of(edited(&mut ui, &m, broken));
    assert_eq!(
        intent,
        RawIntent {
            path: PATH.into(),
            revision: REV1.into(),
            text: broken.into(),
            // The base read's text: what a commit replaces (the undo writes it back).
            base_text: Some(TEXT1.into()),
        }
    );
    let id = submitted(&mut m, &mut ui, &intent, owner);
    receipt_lands(
        &mut m,
        &mut ui,
        &id,
        &intent,
        SaveOutcome::NotApplied {
            reason: "preview refused (HTTP 400: runtime config parse failed: line 1)".into(),
        },
    );
    let text = screen(&m, &ui);
    assert!(text.contains("runtime config parse failed"), "{text}");
    assert_eq!(
        ui.system().raw.draft.as_ref().unwrap().text,
        broken,
        "draft kept"
    );
    let (again, again_owner) = submit_of(handle_key(&mut ui, &m, ch('S')));
    assert_eq!(again, intent, "same path, revision and text");
    assert_eq!(again_owner, owner);
}

/// J-3, J-4: an unknown outcome keeps the body and releases the base: `S` sends nothing; a
/// read that was in flight when the receipt landed does not reconfirm (u asks for a new read);
/// a read dispatched after it does — `u` keeps the text on that read's revision, a new owner.
#[test]
fn j3_j4_an_unknown_outcome_releases_the_base_until_u_after_a_new_read() {
    let mut m = model();
    let mut ui = ui();
    open_draft(&mut m, &mut ui, 1);
    let mine = "[runtime]\ndefault = \"acme.mine\"\n";
    let (intent, owner) = submit_of(edited(&mut ui, &m, mine));
    let id = submitted(&mut m, &mut ui, &intent, owner);
    // A read is in flight when the receipt lands.
    dispatch(&mut m, ticket(RuntimeSlot::Config, 2));
    receipt_lands(
        &mut m,
        &mut ui,
        &id,
        &intent,
        SaveOutcome::OutcomeUnknown {
            reason: "connection dropped".into(),
        },
    );
    let draft = ui.system().raw.draft.as_ref().unwrap();
    assert_eq!(draft.text, mine, "body kept");
    assert!(draft.base.is_none(), "base released");
    assert_eq!(handle_key(&mut ui, &m, ch('S')), UiCommand::Repaint);
    assert!(screen(&m, &ui).contains("not resent"));
    observe(
        &mut m,
        SlotEvent::Observed(
            ticket(RuntimeSlot::Config, 2),
            RuntimeObservation::Config(ok(raw_body(REV2, TEXT2, REV2))),
        ),
    )
    .unwrap();
    assert_eq!(
        handle_key(&mut ui, &m, ch('u')),
        UiCommand::local(RawEvent::Read),
        "read 2 was in flight at the receipt: not a reconfirmation"
    );
    assert!(ui.system().raw.draft.as_ref().unwrap().base.is_none());
    read_lands(&mut m, 3, raw_body(REV2, TEXT2, REV2));
    assert_eq!(handle_key(&mut ui, &m, ch('u')), UiCommand::Repaint);
    let (retry, retry_owner) = submit_of(handle_key(&mut ui, &m, ch('S')));
    assert_eq!(retry.revision, REV2);
    assert_eq!(retry.text, mine, "u keeps the draft's text");
    assert_ne!(retry_owner, owner, "base adoption is a new owner");
}

/// J-3, J-4: a commit whose durability is unconfirmed keeps the body and releases the base too;
/// `U` after a new read takes that read's file as the draft (the operator's text is replaced).
#[test]
fn j3_durability_unconfirmed_keeps_the_body_and_u_upper_takes_the_new_file() {
    let mut m = model();
    let mut ui = ui();
    open_draft(&mut m, &mut ui, 1);
    let mine = "[runtime]\n# mine\n";
    let (intent, owner) = submit_of(edited(&mut ui, &m, mine));
    let id = submitted(&mut m, &mut ui, &intent, owner);
    receipt_lands(&mut m, &mut ui, &id, &intent, committed("unconfirmed"));
    let draft = ui.system().raw.draft.as_ref().unwrap();
    assert_eq!(draft.text, mine);
    assert!(draft.base.is_none());
    assert!(screen(&m, &ui).contains("durability unconfirmed"));
    read_lands(&mut m, 2, raw_body(REV2, TEXT2, REV2));
    assert_eq!(handle_key(&mut ui, &m, ch('U')), UiCommand::Repaint);
    let draft = ui.system().raw.draft.as_ref().unwrap();
    assert_eq!(draft.text, TEXT2, "U takes the new read's file");
    assert_eq!(draft.base.as_ref().unwrap().revision, REV2);
}

/// J-2: an edit made while an earlier draft's save runs is a new owner; that save's success
/// ends only its own owner and never clears the newer edit. A durable commit of the current
/// owner ends the draft.
#[test]
fn j2_a_late_success_ends_only_its_own_owner() {
    let mut m = model();
    let mut ui = ui();
    open_draft(&mut m, &mut ui, 1);
    let (intent, owner) = submit_of(edited(&mut ui, &m, "[runtime]\n# first\n"));
    let id = submitted(&mut m, &mut ui, &intent, owner);
    let newer = "[runtime]\n# newer edit\n";
    let (_, newer_owner) = submit_of(edited(&mut ui, &m, newer));
    assert_ne!(newer_owner, owner);
    receipt_lands(&mut m, &mut ui, &id, &intent, committed("durable"));
    let draft = ui
        .system()
        .raw
        .draft
        .as_ref()
        .expect("the newer edit stays");
    assert_eq!(draft.text, newer);
    assert_eq!(draft.owner, newer_owner);

    // The current owner's own durable commit ends its draft.
    let mut m = model();
    let mut ui = self::ui();
    open_draft(&mut m, &mut ui, 1);
    let (intent, owner) = submit_of(edited(&mut ui, &m, "[runtime]\n# only\n"));
    let id = submitted(&mut m, &mut ui, &intent, owner);
    receipt_lands(&mut m, &mut ui, &id, &intent, committed("durable"));
    assert!(ui.system().raw.draft.is_none());
    assert!(screen(&m, &ui).contains("committed @"));
}

/// J-4: `X` discards the draft; the next `e` never reopens the cached source — it reads afresh.
#[test]
fn j4_x_then_e_reads_afresh() {
    let mut m = model();
    let mut ui = ui();
    open_draft(&mut m, &mut ui, 1);
    assert_eq!(handle_key(&mut ui, &m, ch('X')), UiCommand::Repaint);
    assert!(ui.system().raw.draft.is_none());
    assert_eq!(
        handle_key(&mut ui, &m, ch('e')),
        UiCommand::local(RawEvent::Read)
    );
    assert!(reacted_edit(&mut ui, &mut m).is_none(), "read 1 is cached");
    read_lands(&mut m, 2, raw_body(REV1, TEXT1, REV1));
    assert!(reacted_edit(&mut ui, &mut m).is_some());
}

/// J-5: a model table of another revision is a model error — the raw text is shown, never an
/// empty catalogue — and account e-mails not read are told apart from it.
#[test]
fn j5_a_model_table_of_another_revision_shows_the_raw_text() {
    let mut m = model();
    let mut ui = ui();
    assert_eq!(
        handle_key(&mut ui, &m, ch('e')),
        UiCommand::local(RawEvent::Read)
    );
    read_lands(&mut m, 1, raw_body(REV1, TEXT1, REV2));
    let text = screen(&m, &ui);
    assert!(text.contains("model table error"), "{text}");
    assert!(
        text.contains("default = \"acme.big\""),
        "raw text shown: {text}"
    );
    assert!(text.contains("1 not read"), "{text}");
    assert!(!text.contains("0 bindings"), "{text}");
}

/// A raw save an earlier run left unsettled is read back (restored, outcome unknown): it shows
/// in the raw block without a draft — never resent — and re-reads the catalogue and the source.
#[test]
fn a_restored_raw_save_is_shown_and_re_reads() {
    let mut m = model();
    let ui = ui();
    let id = SaveId::fresh();
    let t = ticket(RuntimeSlot::Raw(id.clone()), 1);
    dispatch(&mut m, t.clone());
    let event = SaveEvent::<RuntimeRaw> {
        save_id: id.clone(),
        intent: RawIntent {
            path: PATH.into(),
            revision: REV1.into(),
            text: TEXT1.into(),
            base_text: None,
        },
        workspace: sample::scope(1).workspace.0.clone(),
        step: SaveStep::Restored(SaveOutcome::OutcomeUnknown {
            reason: "left by an earlier run".into(),
        }),
    };
    let drained = m.deliver(
        SlotEvent::Observed(t, RuntimeObservation::Raw(Box::new(event))),
        std::time::Instant::now(),
    );
    assert!(drained.rejected.is_empty(), "{drained:?}");
    assert!(
        drained
            .demands
            .contains(&masc_tui::actors::runtime::RUNTIME_CONFIG),
        "{drained:?}"
    );
    let text = screen(&m, &ui);
    assert!(
        text.contains("from an earlier run: outcome unknown"),
        "{text}"
    );
}

/// J-2 (seed: a draft and its receipts belong to the workspace they were made in and grant no
/// authority elsewhere): after a switch to another workspace the draft is kept and shown, but
/// `S` sends nothing and `u` / `U` never re-base it on the other workspace's read.
#[test]
fn j2_a_draft_of_another_workspace_is_never_sent_or_rebased_here() {
    use masc_tui::actors::contract::IdentityState;
    use masc_tui::protocol::admission::{ReadScope, WorkspaceId};
    let mut m = model();
    let mut ui = ui();
    open_draft(&mut m, &mut ui, 1);
    m.on_identity(IdentityState::Confirmed {
        scope: ReadScope {
            workspace: WorkspaceId("/elsewhere/.masc".into()),
            epoch: 2,
        },
        base_path: "/elsewhere".into(),
        mode: AdmissionMode::Receipt,
    });
    assert_eq!(handle_key(&mut ui, &m, ch('S')), UiCommand::Repaint);
    assert_eq!(handle_key(&mut ui, &m, ch('u')), UiCommand::Repaint);
    let draft = ui.system().raw.draft.as_ref().expect("kept");
    assert_eq!(draft.base.as_ref().unwrap().revision, REV1, "not re-based");
    assert!(screen(&m, &ui).contains("belongs to another workspace"));
    // An edit that comes back there is kept, not sent.
    assert_eq!(edited(&mut ui, &m, "[runtime]\n"), UiCommand::Repaint);
}

const BASE3: &str = "[runtime]\ndefault = \"acme.big\"\n\n[limits]\nturns = 8\n";
const MINE3: &str = "[runtime]\ndefault = \"acme.mine\"\n\n[limits]\nturns = 8\n";
const THEIRS3: &str = "[runtime]\ndefault = \"acme.big\"\n\n[limits]\nturns = 12\n";

/// A draft of `MINE3` on `BASE3` (REV1) whose save ends in a revision conflict: the server
/// holds `THEIRS3` at REV2.
fn conflicted(m: &mut Model, ui: &mut Ui) {
    assert_eq!(handle_key(ui, m, ch('e')), UiCommand::local(RawEvent::Read));
    read_lands(m, 1, raw_body(REV1, BASE3, REV1));
    reacted_edit(ui, m).expect("the editor opens on the fresh read");
    let (intent, owner) = submit_of(edited(ui, m, MINE3));
    let id = submitted(m, ui, &intent, owner);
    receipt_lands(
        m,
        ui,
        &id,
        &intent,
        SaveOutcome::Conflict {
            current: RuntimeConfigCurrent {
                source_path: PATH.into(),
                source_text: THEIRS3.into(),
                source_revision: REV2.into(),
            },
        },
    );
}

fn resolved(ui: &mut Ui, m: &Model, cmd: UiCommand) -> Result<Option<RawIntent>, String> {
    match cmd.as_local::<RawEvent>() {
        Some(RawEvent::Resolve(choice)) => raw::resolve(&mut ui.system_mut().raw, m, *choice),
        _ => panic!("not a resolution: {cmd:?}"),
    }
}

/// Three-way conflict (§9.4 409 carries the server's file): the conflict opens the three views
/// (yours, theirs, lost by an overwrite); the reported bug — `u` then `S` after a conflict
/// committed the stale draft over the other operator's commit — cannot happen: `u` reopens the
/// three views, and an overwrite commits only after its own confirmation naming their lines.
#[test]
fn j2_a_conflict_shows_three_views_and_u_never_commits_the_stale_draft() {
    use masc_tui::view::screens::confirm::ConfirmLayer;
    use masc_tui::view::screens::conflict::ConflictLayer;
    let mut m = model();
    let mut ui = ui();
    conflicted(&mut m, &mut ui);
    let layer = ui
        .layer::<ConflictLayer>()
        .expect("the three-way view opens");
    assert_eq!(layer.three.base, BASE3);
    assert_eq!(layer.three.draft, MINE3);
    assert_eq!(layer.three.current, THEIRS3);
    let shown = |ui: &Ui| {
        ui.layer::<ConflictLayer>()
            .unwrap()
            .lines(76)
            .into_iter()
            .map(|(t, _)| t)
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert!(shown(&ui).contains("+turns = 12"), "{}", shown(&ui));
    handle_key(&mut ui, &m, ch('1'));
    assert!(
        shown(&ui).contains("+default = \"acme.mine\""),
        "{}",
        shown(&ui)
    );
    // Esc keeps the draft; `u` (which would keep the stale text on the new base) reopens the
    // three views instead; `S` sends nothing while the conflict stands (the base is released).
    assert_eq!(
        handle_key(
            &mut ui,
            &m,
            crossterm::event::KeyEvent::from(crossterm::event::KeyCode::Esc)
        ),
        UiCommand::Repaint
    );
    assert!(ui.layer::<ConflictLayer>().is_none());
    assert_eq!(ui.system().raw.draft.as_ref().unwrap().text, MINE3);
    assert_eq!(handle_key(&mut ui, &m, ch('S')), UiCommand::Repaint);
    assert_eq!(handle_key(&mut ui, &m, ch('u')), UiCommand::Repaint);
    react_detached(&mut ui, &mut m, Seen::Key);
    assert!(
        ui.layer::<ConflictLayer>().is_some(),
        "u reopens the three views"
    );
    // `o` previews what of theirs is lost; nothing is chosen until `o` again.
    assert_eq!(handle_key(&mut ui, &m, ch('o')), UiCommand::Repaint);
    let confirm = ui
        .layer::<ConfirmLayer>()
        .expect("the overwrite's own confirmation");
    assert!(
        confirm.preview.text().contains("-turns = 12"),
        "{}",
        confirm.preview.text()
    );
    let overwrite = handle_key(&mut ui, &m, ch('o'));
    let intent = resolved(&mut ui, &m, overwrite)
        .unwrap()
        .expect("an overwrite submits");
    assert_eq!(intent.revision, REV2, "on the server's revision");
    assert_eq!(intent.text, MINE3);
}

/// Rebase makes the draft's changes again on the server's file (theirs kept), then `S` sends it
/// on the server's revision; take theirs replaces the draft with the server's file.
#[test]
fn j2_a_conflict_rebases_or_takes_theirs() {
    let mut m = model();
    let mut ui = ui();
    conflicted(&mut m, &mut ui);
    let rebase = handle_key(&mut ui, &m, ch('r'));
    assert_eq!(
        resolved(&mut ui, &m, rebase),
        Ok(None),
        "a rebase waits for S"
    );
    let merged = "[runtime]\ndefault = \"acme.mine\"\n\n[limits]\nturns = 12\n";
    assert_eq!(ui.system().raw.draft.as_ref().unwrap().text, merged);
    let (intent, _) = submit_of(handle_key(&mut ui, &m, ch('S')));
    assert_eq!(
        (intent.revision.as_str(), intent.text.as_str()),
        (REV2, merged)
    );

    let mut m = model();
    let mut ui = crate::view_runtime_form::ui();
    conflicted(&mut m, &mut ui);
    let theirs = handle_key(&mut ui, &m, ch('t'));
    assert_eq!(resolved(&mut ui, &m, theirs), Ok(None));
    let draft = ui.system().raw.draft.as_ref().unwrap();
    assert_eq!(draft.text, THEIRS3);
    assert_eq!(draft.base.as_ref().unwrap().revision, REV2);
}

/// A rebase whose two sides changed the same line is refused, naming the line; the draft stays.
#[test]
fn j2_a_rebase_of_overlapping_changes_is_refused_with_the_lines() {
    let mut m = model();
    let mut ui = ui();
    assert_eq!(
        handle_key(&mut ui, &m, ch('e')),
        UiCommand::local(RawEvent::Read)
    );
    read_lands(&mut m, 1, raw_body(REV1, BASE3, REV1));
    reacted_edit(&mut ui, &mut m).unwrap();
    let (intent, owner) = submit_of(edited(&mut ui, &m, MINE3));
    let id = submitted(&mut m, &mut ui, &intent, owner);
    let other = "[runtime]\ndefault = \"acme.other\"\n\n[limits]\nturns = 8\n";
    receipt_lands(
        &mut m,
        &mut ui,
        &id,
        &intent,
        SaveOutcome::Conflict {
            current: RuntimeConfigCurrent {
                source_path: PATH.into(),
                source_text: other.into(),
                source_revision: REV2.into(),
            },
        },
    );
    let rebase = handle_key(&mut ui, &m, ch('r'));
    let refused = resolved(&mut ui, &m, rebase).unwrap_err();
    assert!(refused.contains("line(s) 2"), "{refused}");
    assert_eq!(ui.system().raw.draft.as_ref().unwrap().text, MINE3);
}
