//! Create Keeper `a` on the Keepers roster (sources.md H-14…H-17; protocol.md §9.9):
//! the editor opens on the template or the unresolved draft, the returned declaration becomes a
//! create save, its line goes confirming → sending → terminal (each outcome in its own words),
//! and success clears only the draft that created it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code
use crate::keeper_ops_keys::{key, roster};
use crossterm::event::KeyCode;
use masc_tui::actors::contract::{SlotEvent, Ticket};
use masc_tui::actors::keepers::ops::create::{CreateIntent, CreateRoute, CreateSave};
use masc_tui::actors::keepers::ops::{KeeperOpEvent, KeeperOpSlot};
use masc_tui::actors::keepers::{KeepersObservation, KeepersSlot};
use masc_tui::actors::saves::{SaveEvent, SaveId, SaveStep};
use masc_tui::protocol::keeper_config::{KeeperCreated, KeeperCreatedDetail, LaneStart};
use masc_tui::protocol::outcome::{KeeperCreateOutcome, KeeperExists, SaveOutcome};
use masc_tui::view::editor::{EditOutcome, EditPurpose, EditResult};
use masc_tui::view::keys::{UiCommand, handle_key};
use masc_tui::view::model::Model;
use masc_tui::view::sample;
use masc_tui::view::screens::Ui;
use masc_tui::view::screens::keepers::operations::create_doc::template;
use masc_tui::view::screens::keepers::operations::op_line;
use masc_tui::view::screens::{EditOwner, Tab};

fn press_a(ui: &mut Ui, model: &Model) -> String {
    match handle_key(ui, model, key(KeyCode::Char('a'))) {
        UiCommand::Edit(request) => {
            assert_eq!(request.purpose, EditPurpose::KeeperCreate);
            request.text
        }
        other => panic!("not an edit: {other:?}"),
    }
}

fn returned(ui: &mut Ui, model: &Model, original: &str, text: &str) -> UiCommand {
    masc_tui::view::screens::edited(
        EditOwner::Surface(Tab::Keepers),
        ui,
        model,
        EditResult {
            purpose: EditPurpose::KeeperCreate,
            original: original.into(),
            outcome: EditOutcome::Edited(text.into()),
        },
    )
}

fn filled(name: &str) -> String {
    template().replace("name = \"\"", &format!("name = \"{name}\""))
}

/// Submits `intent` into the model's book and lands `step` for it; returns the save id.
fn land(
    model: &mut Model,
    intent: &CreateIntent,
    steps: Vec<SaveStep<KeeperCreateOutcome>>,
) -> SaveId {
    let ws = sample::scope(1).workspace.0;
    let id = SaveId::fresh();
    model
        .keepers
        .ops
        .create
        .submit(id.clone(), intent.clone(), ws.clone());
    let ticket = Ticket {
        slot: KeepersSlot::Op(KeeperOpSlot::Create(id.clone())),
        generation: 1,
        scope: sample::scope(1),
    };
    crate::rig::dispatch(model, ticket.clone());
    for step in steps {
        crate::rig::observe(
            model,
            SlotEvent::Observed(
                ticket.clone(),
                KeepersObservation::Op(Box::new(KeeperOpEvent::Create(SaveEvent::<CreateSave> {
                    save_id: id.clone(),
                    intent: intent.clone(),
                    workspace: ws.clone(),
                    step,
                }))),
            ),
        )
        .unwrap();
    }
    id
}

fn line_for(model: &Model, name: &str) -> String {
    let ws = sample::scope(1).workspace.0;
    op_line(model.keepers.ops.latest(name, &ws).expect("a line")).0
}

fn created(name: &str) -> KeeperCreateOutcome {
    SaveOutcome::Applied {
        detail: KeeperCreated {
            name: name.into(),
            detail: KeeperCreatedDetail {
                name: name.into(),
                sandbox_profile: "docker".into(),
                network_mode: "none".into(),
                lane: LaneStart::Running,
            },
        },
        warning: None,
    }
}

/// H-14, surfaces.md Keepers roster `a`: the editor opens on the template; the returned
/// declaration becomes one create (name and body as written).
#[test]
fn h14_a_opens_the_template_and_the_declaration_becomes_a_create() {
    let (model, mut ui) = roster();
    let opened = press_a(&mut ui, &model);
    assert_eq!(opened, template());
    match crate::rig::keeper_op::<CreateSave>(&returned(&mut ui, &model, &opened, &filled("lark")))
    {
        Some(intent) => {
            assert_eq!(intent.name, "lark");
            assert_eq!(intent.declaration["sandbox_profile"], "docker");
        }
        other => panic!("not a create: {other:?}"),
    }
}

/// H-14: the line goes confirming → sending → terminal, each outcome in its own words
/// (created, rejected: exists, rejected, result unconfirmed, not sent).
#[test]
fn h14_the_line_says_confirming_sending_and_each_terminal_outcome() {
    let (mut model, _) = roster();
    let intent = |n: &str| CreateIntent {
        name: n.into(),
        declaration: serde_json::Map::new(),
        route: CreateRoute::CreateOnly,
    };
    land(&mut model, &intent("k1"), vec![SaveStep::Written]);
    assert!(
        line_for(&model, "k1").contains("confirming"),
        "{}",
        line_for(&model, "k1")
    );
    land(
        &mut model,
        &intent("k2"),
        vec![SaveStep::Written, SaveStep::Sending],
    );
    assert!(line_for(&model, "k2").contains("sending"));
    land(
        &mut model,
        &intent("k3"),
        vec![SaveStep::Ended(created("k3"))],
    );
    assert!(line_for(&model, "k3").contains("created"));
    land(
        &mut model,
        &intent("k4"),
        vec![SaveStep::Ended(SaveOutcome::Conflict {
            current: KeeperExists {
                name: Some("k4".into()),
            },
        })],
    );
    assert!(
        line_for(&model, "k4").contains("exists"),
        "{}",
        line_for(&model, "k4")
    );
    land(
        &mut model,
        &intent("k5"),
        vec![SaveStep::Ended(SaveOutcome::OutcomeUnknown {
            reason: "connection closed".into(),
        })],
    );
    assert!(
        line_for(&model, "k5").contains("unconfirmed"),
        "{}",
        line_for(&model, "k5")
    );
    land(
        &mut model,
        &intent("k6"),
        vec![SaveStep::Ended(SaveOutcome::NotApplied {
            reason: "HTTP 400: instructions is required".into(),
        })],
    );
    assert!(
        line_for(&model, "k6").contains("rejected"),
        "{}",
        line_for(&model, "k6")
    );
}

/// H-16, H-17: an unresolved declaration (rejected) comes back at the next `a` as written; a
/// created one clears its own draft (the next `a` opens the template) — but not a newer draft
/// written after it was sent.
#[test]
fn h16_h17_unresolved_drafts_come_back_and_success_clears_only_its_own() {
    let (mut model, mut ui) = roster();
    let opened = press_a(&mut ui, &model);
    let Some(first) =
        crate::rig::keeper_op::<CreateSave>(&returned(&mut ui, &model, &opened, &filled("lark")))
    else {
        panic!("not a create")
    };
    land(
        &mut model,
        &first,
        vec![SaveStep::Ended(SaveOutcome::NotApplied {
            reason: "HTTP 400".into(),
        })],
    );
    assert_eq!(press_a(&mut ui, &model), filled("lark"), "restored (H-17)");
    let Some(second) = crate::rig::keeper_op::<CreateSave>(&returned(
        &mut ui,
        &model,
        &filled("lark"),
        &filled("lark"),
    )) else {
        panic!("not a create")
    };
    land(&mut model, &second, vec![SaveStep::Ended(created("lark"))]);
    assert_eq!(
        press_a(&mut ui, &model),
        template(),
        "its own draft cleared"
    );

    // A newer draft (not sent) survives an older save's success.
    let opened = press_a(&mut ui, &model);
    let Some(third) =
        crate::rig::keeper_op::<CreateSave>(&returned(&mut ui, &model, &opened, &filled("wren")))
    else {
        panic!("not a create")
    };
    let opened = press_a(&mut ui, &model);
    let broken = filled("wren").replace("network_mode = \"none\"", "network_mode = 7");
    assert_eq!(
        returned(&mut ui, &model, &opened, &broken),
        UiCommand::Repaint
    );
    assert!(ui.notice.text.as_deref().unwrap().contains("not sent"));
    land(&mut model, &third, vec![SaveStep::Ended(created("wren"))]);
    assert_eq!(press_a(&mut ui, &model), broken, "the newer draft is kept");
}

/// H-14: an aborted editor or a template returned untouched sends nothing.
#[test]
fn h14_an_aborted_or_untouched_declaration_sends_nothing() {
    let (model, mut ui) = roster();
    let opened = press_a(&mut ui, &model);
    let untouched = masc_tui::view::screens::edited(
        EditOwner::Surface(Tab::Keepers),
        &mut ui,
        &model,
        EditResult {
            purpose: EditPurpose::KeeperCreate,
            original: opened.clone(),
            outcome: EditOutcome::Unchanged,
        },
    );
    assert_eq!(untouched, UiCommand::Repaint);
    press_a(&mut ui, &model);
    let aborted = masc_tui::view::screens::edited(
        EditOwner::Surface(Tab::Keepers),
        &mut ui,
        &model,
        EditResult {
            purpose: EditPurpose::KeeperCreate,
            original: opened,
            outcome: EditOutcome::Aborted {
                status: Some(1),
                text: Some(filled("half")),
            },
        },
    );
    assert_eq!(aborted, UiCommand::Repaint);
    assert_eq!(
        press_a(&mut ui, &model),
        filled("half"),
        "what was typed is kept"
    );
}

/// `a`, a declaration of `name`, and the create-only route answering "not served" (every
/// create starts create-only).
fn refused_create_only(model: &mut Model, ui: &mut Ui, name: &str) {
    use masc_tui::protocol::keeper_up::CREATE_ONLY_NOT_SERVED;
    let opened = press_a(ui, model);
    let Some(first) =
        crate::rig::keeper_op::<CreateSave>(&returned(ui, model, &opened, &filled(name)))
    else {
        panic!("not a create")
    };
    assert_eq!(first.route, CreateRoute::CreateOnly);
    land(
        model,
        &first,
        vec![SaveStep::Ended(SaveOutcome::NotApplied {
            reason: CREATE_ONLY_NOT_SERVED.into(),
        })],
    );
}

/// §15.11 step 6 and "where neither is served": after the create-only route answered "not
/// served", `a` reopens the declaration with the race window said in the file and the next
/// create goes through `/up`; a name the roster lists is not sent; after `/up` answered "not
/// served" too, `a` says so before any editor opens.
#[test]
fn s15_11_up_is_offered_with_its_race_window_and_refused_where_not_served() {
    use masc_tui::protocol::keeper_up::KEEPER_UP_NOT_SERVED;
    let (mut model, mut ui) = roster();
    refused_create_only(&mut model, &mut ui, "lark");
    assert!(line_for(&model, "lark").contains("no create-only route"));
    let reopened = press_a(&mut ui, &model);
    assert!(
        reopened.contains("If a Keeper")
            && reopened.contains("it will be reconfigured with these")
            && reopened.contains("name = \"lark\""),
        "{reopened}"
    );
    let Some(up) =
        crate::rig::keeper_op::<CreateSave>(&returned(&mut ui, &model, &reopened, &reopened))
    else {
        panic!("not a create")
    };
    assert_eq!(up.route, CreateRoute::UpAfterCheck);
    land(
        &mut model,
        &up,
        vec![SaveStep::Ended(SaveOutcome::NotApplied {
            reason: KEEPER_UP_NOT_SERVED.into(),
        })],
    );
    let cmd = handle_key(&mut ui, &model, key(KeyCode::Char('a')));
    assert!(!matches!(cmd, UiCommand::Edit(_)), "{cmd:?}");
    assert!(
        ui.notice
            .text
            .as_deref()
            .unwrap_or_default()
            .contains("serves neither"),
        "{:?}",
        ui.notice.text
    );

    // A listed name is never sent through /up.
    let (mut model, mut ui) = roster();
    let listed = model
        .keepers
        .roster
        .fetched
        .last()
        .unwrap()
        .value
        .keepers()
        .next()
        .unwrap()
        .name
        .clone();
    refused_create_only(&mut model, &mut ui, &listed);
    let reopened = press_a(&mut ui, &model);
    let cmd = returned(&mut ui, &model, &reopened, &reopened);
    assert!(
        crate::rig::keeper_op::<CreateSave>(&cmd).is_none(),
        "{cmd:?}"
    );
    assert!(
        ui.notice
            .text
            .as_deref()
            .unwrap_or_default()
            .contains("already exists"),
        "{:?}",
        ui.notice.text
    );
}
