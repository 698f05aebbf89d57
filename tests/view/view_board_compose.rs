#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! Board compose without a terminal or actors (protocol.md §8.4; sources.md E-7, H-5): `w`
//! composes, `Esc` asks `s` send / `d` discard, the draft survives a refusal, a failed list
//! re-read and navigation, an outcome unknown is never sent again by the same keys.

use crate::rig::ScreensOf;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use masc_tui::actors::board::compose::{BoardPost, PostIntent};
use masc_tui::actors::board::{BoardObservation, BoardSlot};
use masc_tui::actors::contract::Ticket;
use masc_tui::actors::saves::{SaveEvent, SaveId, SaveKind, SaveStep};
use masc_tui::protocol::admission::AdmissionMode;
use masc_tui::protocol::client::ClientError;
use masc_tui::protocol::outcome::{BoardPostCreated, SaveOutcome};
use masc_tui::view::keys::{UiCommand, handle_key};
use masc_tui::view::model::Model;
use masc_tui::view::sample::{self, buffer_text};
use masc_tui::view::screens::{ProjectionCtx, Tab, Ui, render};
use masc_tui::view::theme::Theme;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;

fn model() -> Model {
    let mut m = Model::default();
    m.on_identity(sample::confirmed(1, AdmissionMode::Receipt));
    m
}

fn ui() -> Ui {
    Ui {
        area: Rect::new(0, 0, 100, 24),
        tab: Tab::Board,
        ..Ui::default()
    }
}

fn screen(m: &Model, ui: &Ui) -> String {
    let mut t = Terminal::new(TestBackend::new(100, 24)).unwrap();
    let ctx = ProjectionCtx::now(Theme::plain());
    t.draw(|f| render(m, ui, &ctx, f.area(), f.buffer_mut()))
        .unwrap();
    buffer_text(t.backend().buffer())
}

fn key(ui: &mut Ui, m: &Model, code: KeyCode) -> UiCommand {
    handle_key(ui, m, KeyEvent::new(code, KeyModifiers::NONE))
}

fn typed(ui: &mut Ui, m: &Model, text: &str) {
    for c in text.chars() {
        key(ui, m, KeyCode::Char(c));
    }
}

/// What the view actor does for `UiCommand::Post`, then the save's receipt.
fn settle(m: &mut Model, intent: PostIntent, receipt: <BoardPost as SaveKind>::Receipt) {
    let id = SaveId::fresh();
    let workspace = sample::scope(1).workspace.0.clone();
    m.board
        .saves
        .composed
        .submit(id.clone(), intent.clone(), workspace.clone());
    crate::rig::deliver(
        m,
        Ticket {
            slot: BoardSlot::Compose(id.clone()),
            generation: 1,
            scope: sample::scope(1),
        },
        BoardObservation::Compose(Box::new(SaveEvent::<BoardPost> {
            save_id: id,
            intent,
            workspace,
            step: SaveStep::Ended(receipt),
        })),
    );
}

fn compose_a_post(ui: &mut Ui, m: &Model) -> PostIntent {
    assert_eq!(key(ui, m, KeyCode::Char('w')), UiCommand::Repaint);
    typed(ui, m, "Nightly");
    key(ui, m, KeyCode::Tab);
    typed(ui, m, "verification");
    key(ui, m, KeyCode::Tab);
    typed(ui, m, "All green.");
    key(ui, m, KeyCode::Enter);
    typed(ui, m, "둘째 줄");
    key(ui, m, KeyCode::Esc);
    match key(ui, m, KeyCode::Char('s'))
        .as_save::<BoardPost>()
        .cloned()
    {
        Some(intent) => intent,
        other => panic!("not a post: {other:?}"),
    }
}

/// §8.4: `w`, the three fields, `Esc` then `s` send exactly the typed post (hearth trimmed,
/// the body's line break kept).
#[test]
fn s8_4_compose_sends_the_typed_post() {
    let m = model();
    let mut ui = ui();
    let intent = compose_a_post(&mut ui, &m);
    assert_eq!(intent.title, "Nightly");
    assert_eq!(intent.hearth, "verification");
    assert_eq!(intent.body, "All green.\n둘째 줄");
    assert!(screen(&m, &ui).contains("NEW POST"));
}

/// E-7, §11: a refusal keeps the draft (and says why); a failed list re-read and leaving the
/// compose view keep it too; `w` comes back to it; `d` discards it.
#[test]
fn e7_the_draft_survives_refusal_failed_reread_and_navigation() {
    let mut m = model();
    let mut ui = ui();
    let intent = compose_a_post(&mut ui, &m);
    settle(
        &mut m,
        intent,
        SaveOutcome::NotApplied {
            reason: "HTTP 400: title is required".into(),
        },
    );
    let refused = screen(&m, &ui);
    assert!(
        refused.contains("refused: HTTP 400: title is required — draft kept"),
        "{refused}"
    );
    assert!(refused.contains("Nightly"));
    // The posts re-read fails meanwhile: the draft is untouched.
    crate::rig::deliver(
        &mut m,
        Ticket {
            slot: BoardSlot::Posts,
            generation: 1,
            scope: sample::scope(1),
        },
        BoardObservation::Posts(Box::new(masc_tui::actors::board::BoardPostsRead {
            query: Default::default(),
            result: Err(ClientError::Status {
                status: 500,
                body: String::new(),
            }),
        })),
    );
    key(&mut ui, &m, KeyCode::Esc);
    key(&mut ui, &m, KeyCode::Esc);
    let list = screen(&m, &ui);
    assert!(!list.contains("NEW POST"), "{list}");
    assert!(
        list.contains("draft kept: Nightly (w to continue)"),
        "{list}"
    );
    key(&mut ui, &m, KeyCode::Char('w'));
    let back = screen(&m, &ui);
    assert!(
        back.contains("Nightly") && back.contains("둘째 줄"),
        "{back}"
    );
    key(&mut ui, &m, KeyCode::Esc);
    key(&mut ui, &m, KeyCode::Char('d'));
    assert!(ui.board().compose.is_none());
}

/// H-5: after an outcome unknown the same keys do not send the draft again; an applied post
/// ends the draft (any key closes, the next `w` starts empty).
#[test]
fn h5_an_unknown_outcome_is_not_resent_and_an_applied_post_ends_the_draft() {
    let mut m = model();
    let mut ui = ui();
    let intent = compose_a_post(&mut ui, &m);
    settle(
        &mut m,
        intent.clone(),
        SaveOutcome::OutcomeUnknown {
            reason: "connection dropped".into(),
        },
    );
    assert!(screen(&m, &ui).contains("outcome unknown: connection dropped — not resent"));
    key(&mut ui, &m, KeyCode::Esc);
    let again = key(&mut ui, &m, KeyCode::Char('s'));
    assert!(again.as_save::<BoardPost>().is_none(), "{again:?}");
    assert!(
        ui.notice
            .text
            .as_deref()
            .is_some_and(|n| n.contains("outcome is unknown"))
    );
    settle(
        &mut m,
        intent,
        SaveOutcome::Applied {
            detail: BoardPostCreated {
                post_id: "post-77".into(),
            },
            warning: None,
        },
    );
    assert!(screen(&m, &ui).contains("posted as post-77"));
    key(&mut ui, &m, KeyCode::Char('x'));
    assert!(ui.board().compose.is_none());
    key(&mut ui, &m, KeyCode::Char('w'));
    assert_eq!(
        ui.board().compose.as_ref().map(|c| c.title.text()),
        Some("")
    );
}

/// The body in `$EDITOR`: `Ctrl-E` in the compose view hands the body over (purpose "board
/// post", `.md`); an edited text replaces the body; an aborted edit leaves the draft as it was.
#[test]
fn ctrl_e_edits_the_body_in_the_editor_and_an_abort_keeps_the_draft() {
    use masc_tui::view::editor::{EditOutcome, EditPurpose, EditResult};
    use masc_tui::view::screens::{EditOwner, edited};
    let m = model();
    let mut ui = ui();
    key(&mut ui, &m, KeyCode::Char('w'));
    typed(&mut ui, &m, "Nightly");
    let cmd = handle_key(
        &mut ui,
        &m,
        KeyEvent::new(KeyCode::Char('e'), KeyModifiers::CONTROL),
    );
    match cmd {
        UiCommand::Edit(request) => {
            assert_eq!(request.purpose, EditPurpose::BoardPost);
            assert_eq!((request.text.as_str(), request.suffix), ("", ".md"));
        }
        other => panic!("not an edit: {other:?}"),
    }
    assert_eq!(
        ui.board().compose.as_ref().map(|c| c.title.text()),
        Some("Nightly")
    );
    let board = || EditOwner::Surface(Tab::Board);
    edited(
        board(),
        &mut ui,
        &m,
        EditResult {
            purpose: EditPurpose::BoardPost,
            original: String::new(),
            outcome: EditOutcome::Edited("# Report\n\nAll green.".into()),
        },
    );
    assert_eq!(
        ui.board().compose.as_ref().map(|c| c.body.as_str()),
        Some("# Report\n\nAll green.")
    );
    edited(
        board(),
        &mut ui,
        &m,
        EditResult {
            purpose: EditPurpose::BoardPost,
            original: "# Report\n\nAll green.".into(),
            outcome: EditOutcome::Aborted {
                status: Some(1),
                text: None,
            },
        },
    );
    assert_eq!(
        ui.board().compose.as_ref().map(|c| c.body.as_str()),
        Some("# Report\n\nAll green.")
    );
    assert!(ui.notice.text.is_some());
    assert!(screen(&m, &ui).contains("# Report"));
}
