#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! The model and account forms on System › Runtime (sources.md I-1, I-3, I-4, I-5, F-2): keys
//! and projection without a runtime — the form opens on the raw config read, `Esc` leaves it
//! with its input, an unfinished or unknown save blocks a resend, `Ctrl-X` closes recovery, and
//! a catalogue read that predates a committed save is never "after the save".

use crate::rig::ScreensOf;
use crate::rig::{deliver, dispatch, observe};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use masc_tui::actors::contract::{SlotEvent, Ticket};
use masc_tui::actors::runtime::RuntimeLoad;
use masc_tui::actors::runtime::form::{FormIntent, RuntimeForm};
use masc_tui::actors::runtime::{RuntimeObservation, RuntimeSlot};
use masc_tui::actors::saves::{SaveEvent, SaveId, SaveStep};
use masc_tui::protocol::admission::AdmissionMode;
use masc_tui::protocol::client::{Admitted, ClientError};
use masc_tui::protocol::decode::WireDecode;
use masc_tui::protocol::outcome::SaveOutcome;
use masc_tui::protocol::runtime::form::FormEdit;
use masc_tui::protocol::runtime::{
    CommitReceipt, RuntimeConfigCurrent, RuntimeConfigRaw, RuntimeResolved,
};
use masc_tui::view::command::UiCommand;
use masc_tui::view::keys::handle_key;
use masc_tui::view::model::Model;
use masc_tui::view::sample::{self, buffer_text};
use masc_tui::view::screens::system::SystemPane;
use masc_tui::view::screens::system::form::FormEvent;
use masc_tui::view::screens::{ProjectionCtx, Tab, Ui, render};
use masc_tui::view::theme::Theme;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use std::sync::Arc;

const RESOLVED: &str = r#"{"generated_at_iso":"2026-11-20T09:00:00Z","source":"/api/v1/runtime/resolved","config_path":"/srv/config/runtime.toml",
 "default_runtime":null,
 "runtimes":[{"id":"acme.big","provider":"Acme","provider_id":"acme","model":"big","effective_max_context":200000,"max_output_tokens":null,"is_local":false,"is_default":false,"quota_exhausted":false,"rate_limited":false,"quota_scope":null,"quota_resets_at":null,"rate_limit_resets_at":null}],
 "lanes":[],"assignments":[],"media_failover":[],"provider_usage_windows_since":1790179140.2,"provider_usage_windows":[]}"#;

const REV: &str = "9f2c0a5e8d1b4c7a6e3f0b2d5c8a1e4f7b0d3c6a9e2f5b8d1c4a7e0f3b6d9c2a";

fn raw_body() -> String {
    format!(
        r#"{{"ok":true,"source_revision":"{REV}","path":"/srv/config/runtime.toml","file_name":"runtime.toml",
        "source_text":"[[models]]\nruntime_id = \"acme.big\"\nmax_context_override = 150000\n","validation":{{"valid":true,"issues":[]}},
        "account_groups":[],"account_emails":[],
        "model_bindings":{{"state":"ready","path":"/srv/config/runtime.toml","source_revision":"{REV}",
          "bindings":[{{"runtime_id":"acme.big","provider_id":"acme","model_id":"big","max_context_override":150000}}]}}}}"#
    )
}

pub(crate) fn ok<T>(value: T) -> Result<Admitted<T>, ClientError> {
    Ok(Admitted {
        value: Arc::new(value),
        mode: AdmissionMode::Receipt,
        from_cache: false,
    })
}

pub(crate) fn ticket(slot: RuntimeSlot, generation: u64) -> Ticket<RuntimeSlot> {
    Ticket {
        slot,
        generation,
        scope: sample::scope(1),
    }
}

fn load() -> RuntimeObservation {
    RuntimeObservation::Catalogue(Box::new(RuntimeLoad {
        resolved: ok(RuntimeResolved::decode(RESOLVED.as_bytes()).unwrap()),
        probe: Err(ClientError::Timeout),
        forced: false,
    }))
}

fn model() -> Model {
    let mut m = Model::default();
    m.on_identity(sample::confirmed(1, AdmissionMode::Receipt));
    deliver(&mut m, ticket(RuntimeSlot::Catalogue, 1), load());
    m
}

pub(crate) fn ui() -> Ui {
    Ui {
        area: Rect::new(0, 0, 120, 40),
        tab: Tab::System,
        ..Ui::default()
    }
    .with_screen(masc_tui::view::screens::system::SystemUi {
        pane: SystemPane::Runtime,
        ..Default::default()
    })
}

fn key(c: KeyCode) -> KeyEvent {
    KeyEvent::new(c, KeyModifiers::NONE)
}

pub(crate) fn ch(c: char) -> KeyEvent {
    key(KeyCode::Char(c))
}

pub(crate) fn screen(m: &Model, ui: &Ui) -> String {
    let mut t = Terminal::new(TestBackend::new(120, 40)).unwrap();
    let ctx = ProjectionCtx::now(Theme::plain());
    t.draw(|f| render(m, ui, &ctx, f.area(), f.buffer_mut()))
        .unwrap();
    buffer_text(t.backend().buffer())
}

/// The raw config read lands (after the form opened) and the reaction hook adopts it.
fn config_lands(m: &mut Model, ui: &mut Ui, generation: u64) {
    deliver(
        m,
        ticket(RuntimeSlot::Config, generation),
        RuntimeObservation::Config(ok(RuntimeConfigRaw::decode(raw_body().as_bytes()).unwrap())),
    );
    masc_tui::view::screens::react::react_detached(
        ui,
        m,
        masc_tui::view::screens::react::Seen::Delivered,
    );
}

fn submitted(cmd: UiCommand) -> FormIntent {
    match cmd.as_local::<FormEvent>().cloned() {
        Some(FormEvent::Submit(intent)) => intent,
        other => panic!("not a submit: {other:?}"),
    }
}

/// I-1: `Enter` opens the form and asks for the source read; before that read lands `Enter`
/// submits nothing; once it lands the form is prefilled from the server's model table of the
/// same read (J-5) and submits the input with the read's path, revision and text.
#[test]
fn i1_a_form_opens_on_the_source_read_and_submits_its_revision() {
    let mut m = model();
    let mut ui = ui();
    assert_eq!(
        handle_key(&mut ui, &m, key(KeyCode::Enter)),
        UiCommand::local(FormEvent::Open)
    );
    assert_eq!(
        handle_key(&mut ui, &m, key(KeyCode::Enter)),
        UiCommand::Repaint
    );
    assert!(screen(&m, &ui).contains("runtime.toml not read yet"));
    config_lands(&mut m, &mut ui, 1);
    let text = screen(&m, &ui);
    // Opened on the current value, selected: typing replaces it.
    assert!(text.contains("max_context_override   [150000]"), "{text}");
    for c in "180000".chars() {
        handle_key(&mut ui, &m, ch(c));
    }
    let intent = submitted(handle_key(&mut ui, &m, key(KeyCode::Enter)));
    assert_eq!(intent.opening_revision, REV);
    assert_eq!(intent.path, "/srv/config/runtime.toml");
    assert_eq!(
        intent.edit,
        FormEdit::SetContextOverride {
            runtime_id: "acme.big".into(),
            value: 180_000
        }
    );
}

/// The reported bug: the override opens on `150000` selected, so typing
/// `160000150000` replaces it — and that number is refused before anything is sent, the
/// refusal naming the bound (no `max_context` in this file: MASC's largest window).
#[test]
fn i25_typing_replaces_the_opened_value_and_a_number_over_its_bound_is_refused() {
    let mut m = model();
    let mut ui = ui();
    handle_key(&mut ui, &m, key(KeyCode::Enter));
    config_lands(&mut m, &mut ui, 1);
    for c in "160000150000".chars() {
        handle_key(&mut ui, &m, ch(c));
    }
    let cmd = handle_key(&mut ui, &m, key(KeyCode::Enter));
    assert!(cmd.as_local::<FormEvent>().is_none(), "{cmd:?}");
    let text = screen(&m, &ui);
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("max_context_override 160000150000 is above 1000000")
            && flat.contains("the largest window MASC accepts"),
        "{text}"
    );
    // Ctrl-A edits in place: `9` before what is typed.
    handle_key(
        &mut ui,
        &m,
        KeyEvent::new(KeyCode::Char('a'), crossterm::event::KeyModifiers::CONTROL),
    );
    for _ in 0..12 {
        handle_key(&mut ui, &m, key(KeyCode::Delete));
    }
    for c in "99000".chars() {
        handle_key(&mut ui, &m, ch(c));
    }
    let intent = submitted(handle_key(&mut ui, &m, key(KeyCode::Enter)));
    assert_eq!(
        intent.edit,
        FormEdit::SetContextOverride {
            runtime_id: "acme.big".into(),
            value: 99_000
        }
    );
}

/// I-3: `Esc` leaves the form (no "cancelled" anywhere) and the same key brings it back with
/// its input; the form takes every key while open (`q` is text, not quit).
#[test]
fn i3_esc_leaves_the_form_and_the_same_key_restores_its_input() {
    let mut m = model();
    let mut ui = ui();
    handle_key(&mut ui, &m, ch('a'));
    config_lands(&mut m, &mut ui, 1);
    for c in "team-q".chars() {
        handle_key(&mut ui, &m, ch(c));
    }
    assert!(!ui.quit_armed);
    assert_eq!(
        handle_key(&mut ui, &m, key(KeyCode::Esc)),
        UiCommand::Repaint
    );
    assert!(ui.system().forms.open.is_none());
    let text = screen(&m, &ui);
    assert!(!text.to_lowercase().contains("cancel"), "{text}");
    handle_key(&mut ui, &m, ch('a'));
    let text = screen(&m, &ui);
    assert!(text.contains("integration_id         team-q"), "{text}");
}

type RawOutcome = SaveOutcome<CommitReceipt, RuntimeConfigCurrent>;

fn receipt_lands(m: &mut Model, id: &SaveId, intent: FormIntent, outcome: RawOutcome) {
    let workspace = sample::scope(1).workspace.0.clone();
    m.runtime
        .forms
        .submit(id.clone(), intent.clone(), workspace.clone());
    let t = ticket(RuntimeSlot::Form(id.clone()), 1);
    dispatch(m, t.clone());
    let event = SaveEvent::<RuntimeForm> {
        save_id: id.clone(),
        intent,
        workspace,
        step: SaveStep::Ended(outcome),
    };
    observe(
        m,
        SlotEvent::Observed(t, RuntimeObservation::Form(Box::new(event))),
    )
    .unwrap();
}

/// I-3, I-4: a save whose outcome is unknown blocks a resend (Enter submits nothing); `Ctrl-X`
/// closes recovery (the catalogue and the source are re-read) and a new form may open.
#[test]
fn i3_i4_an_unknown_outcome_blocks_resend_until_ctrl_x() {
    let mut m = model();
    let mut ui = ui();
    handle_key(&mut ui, &m, key(KeyCode::Enter));
    config_lands(&mut m, &mut ui, 1);
    let intent = submitted(handle_key(&mut ui, &m, key(KeyCode::Enter)));
    let id = SaveId::fresh();
    ui.system_mut().forms.open.as_mut().unwrap().submitted = Some(id.clone());
    receipt_lands(
        &mut m,
        &id,
        intent,
        SaveOutcome::OutcomeUnknown {
            reason: "connection dropped".into(),
        },
    );
    let text = screen(&m, &ui);
    assert!(text.contains("outcome unknown"), "{text}");
    assert_eq!(
        handle_key(&mut ui, &m, key(KeyCode::Enter)),
        UiCommand::Repaint
    );
    assert!(screen(&m, &ui).contains("not resent"));
    assert_eq!(
        handle_key(
            &mut ui,
            &m,
            KeyEvent::new(KeyCode::Char('x'), KeyModifiers::CONTROL)
        ),
        UiCommand::local(FormEvent::CloseRecovery)
    );
    assert!(ui.system().forms.open.is_none());
    // A new form opens without the old save.
    handle_key(&mut ui, &m, key(KeyCode::Enter));
    assert!(ui.system().forms.open.as_ref().unwrap().submitted.is_none());
}

/// F-2: after a committed save, a catalogue load dispatched before the receipt is never "after
/// the save"; the follow-up load is.
#[test]
fn f2_an_earlier_catalogue_response_is_never_latest_after_save() {
    let mut m = model();
    let mut ui = ui();
    handle_key(&mut ui, &m, key(KeyCode::Enter));
    config_lands(&mut m, &mut ui, 1);
    let intent = submitted(handle_key(&mut ui, &m, key(KeyCode::Enter)));
    let id = SaveId::fresh();
    ui.system_mut().forms.open.as_mut().unwrap().submitted = Some(id.clone());
    // A periodic load is in flight when the receipt lands.
    dispatch(&mut m, ticket(RuntimeSlot::Catalogue, 2));
    let receipt = CommitReceipt::decode(
        format!(r#"{{"ok":true,"state":"committed","commit":{{"source_revision":"{REV}","order":"2","durability":"durable","warnings":[]}},"application":{{"operation":"raw_save"}}}}"#)
            .as_bytes(),
    )
    .unwrap();
    receipt_lands(
        &mut m,
        &id,
        intent,
        SaveOutcome::Applied {
            detail: receipt,
            warning: None,
        },
    );
    assert_eq!(m.runtime.loads.after_save(), Some(false));
    observe(
        &mut m,
        SlotEvent::Observed(ticket(RuntimeSlot::Catalogue, 2), load()),
    )
    .unwrap();
    assert_eq!(
        m.runtime.loads.after_save(),
        Some(false),
        "load 2 predates the save"
    );
    assert!(screen(&m, &ui).contains("re-read pending"));
    deliver(&mut m, ticket(RuntimeSlot::Catalogue, 3), load());
    assert_eq!(m.runtime.loads.after_save(), Some(true));
    assert!(screen(&m, &ui).contains("catalogue re-read after the save"));
}

/// I-5: a form receipt for another workspace is never applied.
#[test]
fn i5_a_receipt_of_another_workspace_is_rejected() {
    let mut m = model();
    let id = SaveId::fresh();
    let intent = FormIntent {
        path: "/p".into(),
        opening_revision: REV.into(),
        source_text: String::new(),
        edit: FormEdit::ClearContextOverride {
            runtime_id: "acme.big".into(),
        },
    };
    m.runtime.forms.submit(
        id.clone(),
        intent.clone(),
        sample::scope(1).workspace.0.clone(),
    );
    let t = ticket(RuntimeSlot::Form(id.clone()), 1);
    dispatch(&mut m, t.clone());
    let event = SaveEvent::<RuntimeForm> {
        save_id: id.clone(),
        intent,
        workspace: "/elsewhere/.masc".into(),
        step: SaveStep::Ended(SaveOutcome::Unchanged),
    };
    assert!(
        observe(
            &mut m,
            SlotEvent::Observed(t, RuntimeObservation::Form(Box::new(event)))
        )
        .is_err()
    );
    assert!(m.runtime.forms.get(&id).unwrap().phase.in_flight());
}

const REV2: &str = "2222222222222222222222222222222222222222222222222222222222222222";
const BASE_TEXT: &str = "[[models]]\nruntime_id = \"acme.big\"\nmax_context_override = 150000\n";
/// What another operator committed meanwhile: a second model.
const THEIRS_TEXT: &str = "[[models]]\nruntime_id = \"acme.big\"\nmax_context_override = 150000\n\n[[models]]\nruntime_id = \"acme.small\"\n";

/// A form setting the override to 180000 whose save ended in a revision conflict.
fn conflicted_form(m: &mut Model, ui: &mut Ui) -> FormIntent {
    use masc_tui::view::screens::react::{Seen, react_detached};
    handle_key(ui, m, key(KeyCode::Enter));
    config_lands(m, ui, 1);
    for c in "180000".chars() {
        handle_key(ui, m, ch(c));
    }
    let intent = submitted(handle_key(ui, m, key(KeyCode::Enter)));
    let id = SaveId::fresh();
    ui.system_mut().forms.open.as_mut().unwrap().submitted = Some(id.clone());
    receipt_lands(
        m,
        &id,
        intent.clone(),
        SaveOutcome::Conflict {
            current: RuntimeConfigCurrent {
                source_path: "/srv/config/runtime.toml".into(),
                source_text: THEIRS_TEXT.into(),
                source_revision: REV2.into(),
            },
        },
    );
    react_detached(ui, m, Seen::Delivered);
    intent
}

/// A form's revision conflict (§9.4 409) opens the three views — the form's edit, their
/// change, what an overwrite loses — and rebase makes the form's edit again on the server's
/// file: `Enter` then submits it on the server's revision, their model kept.
#[test]
fn i25_a_form_conflict_shows_three_views_and_rebases_the_edit_on_their_file() {
    use masc_tui::view::screens::conflict::{ConflictLayer, Resolution};
    use masc_tui::view::screens::system::form;
    let mut m = model();
    let mut ui = ui();
    conflicted_form(&mut m, &mut ui);
    let layer = ui.layer::<ConflictLayer>().expect("the three views open");
    assert_eq!(layer.three.base, BASE_TEXT);
    assert!(layer.three.draft.contains("max_context_override = 180000"));
    assert_eq!(layer.three.current, THEIRS_TEXT);
    // Esc closes the view; Enter on the conflicted form opens it again, sending nothing.
    handle_key(&mut ui, &m, key(KeyCode::Esc));
    assert!(ui.layer::<ConflictLayer>().is_none());
    assert_eq!(
        handle_key(&mut ui, &m, key(KeyCode::Enter)),
        UiCommand::Repaint
    );
    masc_tui::view::screens::react::react_detached(
        &mut ui,
        &mut m,
        masc_tui::view::screens::react::Seen::Key,
    );
    assert!(ui.layer::<ConflictLayer>().is_some());
    assert_eq!(
        handle_key(&mut ui, &m, ch('r')),
        UiCommand::local(FormEvent::Resolve(Resolution::Rebase))
    );
    assert_eq!(
        form::resolve(&mut ui.system_mut().forms, &m, Resolution::Rebase),
        Ok(form::Resolved::Rebased)
    );
    let again = submitted(handle_key(&mut ui, &m, key(KeyCode::Enter)));
    assert_eq!(again.opening_revision, REV2);
    assert_eq!(again.source_text, THEIRS_TEXT, "their model kept");
    assert_eq!(
        again.edit,
        FormEdit::SetContextOverride {
            runtime_id: "acme.big".into(),
            value: 180_000
        }
    );
}

/// An overwrite of a form's conflict commits only after its own confirmation, which names the
/// lines of theirs it loses; the overwrite is then registered at once (no second preview) on
/// the server's revision with the text the form opened on.
#[test]
fn i25_a_form_overwrite_needs_its_own_confirmation_naming_what_is_lost() {
    use masc_tui::view::effects::Effects;
    use masc_tui::view::screens::confirm::ConfirmLayer;
    use masc_tui::view::screens::conflict::Resolution;
    use masc_tui::view::screens::local::LocalEvent;
    let mut m = model();
    let mut ui = ui();
    let sent = conflicted_form(&mut m, &mut ui);
    assert_eq!(handle_key(&mut ui, &m, ch('o')), UiCommand::Repaint);
    let lost = ui
        .layer::<ConfirmLayer>()
        .expect("the overwrite's confirmation")
        .preview
        .text();
    assert!(lost.contains("-runtime_id = \"acme.small\""), "{lost}");
    let cmd = handle_key(&mut ui, &m, ch('o'));
    let Some(event) = cmd.as_local::<FormEvent>().cloned() else {
        panic!("{cmd:?}")
    };
    assert_eq!(event, FormEvent::Resolve(Resolution::Overwrite));
    let mut fx = Effects::detached(&mut m, Theme::plain());
    event.run(&mut ui, &mut fx);
    let id = ui
        .system()
        .forms
        .open
        .as_ref()
        .and_then(|f| f.submitted.clone())
        .expect("the form follows the overwrite");
    let entry = m.runtime.forms.get(&id).expect("registered: committed");
    assert_eq!(entry.intent.opening_revision, REV2);
    assert_eq!(entry.intent.source_text, sent.source_text);
    assert!(ui.layer::<ConfirmLayer>().is_none(), "no second preview");
}

/// Take theirs closes the form: the server's file stands.
#[test]
fn i25_a_form_conflict_take_theirs_closes_the_form() {
    use masc_tui::view::screens::conflict::Resolution;
    use masc_tui::view::screens::system::form;
    let mut m = model();
    let mut ui = ui();
    conflicted_form(&mut m, &mut ui);
    assert_eq!(
        form::resolve(&mut ui.system_mut().forms, &m, Resolution::TakeTheirs),
        Ok(form::Resolved::Theirs)
    );
    assert!(ui.system().forms.open.is_none());
}
