//! Every `Fetched` state of the Keepers roster renders distinctly (G-4, G-5), and the surfaces
//! around it say what they are (header states, unbuilt surfaces, help, resize gate).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers

use crate::rig::ScreensOf;
use crate::rig::{dispatch, observe};
use masc_tui::actors::contract::IdentityState;
use masc_tui::actors::keepers::ROSTER;
use masc_tui::protocol::admission::AdmissionMode;
use masc_tui::protocol::client::ClientError;
use masc_tui::protocol::decode::{DecodeError, DecodeErrorKind};
use masc_tui::protocol::keepers::{KeeperRowSlot, KeeperStatus};
use masc_tui::view::bindings::{ALWAYS, RING};
use masc_tui::view::fetched::SLOW_READ_BADGE_AFTER;
use masc_tui::view::model::Model;
use masc_tui::view::sample::{
    bare_row, buffer_text, confirmed, roster, roster_failure, roster_observation, roster_of,
    roster_ticket,
};
use masc_tui::view::screens::help::is_open as help_open;
use masc_tui::view::screens::keepers::keys::ROSTER as ROSTER_KEYS;
use masc_tui::view::screens::{ProjectionCtx, Tab, Ui, render};
use masc_tui::view::theme::Theme;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use std::time::Instant;

fn ctx() -> ProjectionCtx {
    ProjectionCtx {
        now: Instant::now(),
        now_unix: 1_700_000_100.0,
        theme: Theme::plain(),
        kept_roster_lines: Default::default(),
    }
}

/// Paints through a real ratatui `Terminal<TestBackend>` and returns the screen text.
fn paint(model: &Model, ui: &Ui) -> String {
    let mut terminal = Terminal::new(TestBackend::new(ui.area.width, ui.area.height)).unwrap();
    terminal
        .draw(|frame| render(model, ui, &ctx(), frame.area(), frame.buffer_mut()))
        .unwrap();
    buffer_text(terminal.backend().buffer())
}

fn ui(width: u16, height: u16) -> Ui {
    Ui {
        area: Rect::new(0, 0, width, height),
        ..Ui::default()
    }
}

fn connected() -> Model {
    let mut m = Model::default();
    m.on_identity(confirmed(1, AdmissionMode::Receipt));
    m
}

fn ready(n: usize) -> Model {
    let mut m = connected();
    dispatch(&mut m, roster_ticket(1, 1));
    observe(
        &mut m,
        roster_observation(roster_ticket(1, 1), roster(n), AdmissionMode::Receipt),
    )
    .unwrap();
    m
}

fn states() -> Vec<(&'static str, Model)> {
    let not_requested = connected();
    let mut loading = connected();
    dispatch(&mut loading, roster_ticket(1, 1));
    let empty = ready(0);
    let filled = ready(3);
    // A re-read the user asked for (`r`): its badge shows at once.
    let mut refreshing = ready(3);
    dispatch(&mut refreshing, roster_ticket(2, 1));
    refreshing.mark_asked(ROSTER);
    let mut failed_with_last = ready(3);
    dispatch(&mut failed_with_last, roster_ticket(2, 1));
    observe(
        &mut failed_with_last,
        roster_failure(roster_ticket(2, 1), ClientError::Timeout),
    )
    .unwrap();
    let mut failed_none = connected();
    dispatch(&mut failed_none, roster_ticket(1, 1));
    observe(
        &mut failed_none,
        roster_failure(
            roster_ticket(1, 1),
            ClientError::Status {
                status: 500,
                body: String::new(),
            },
        ),
    )
    .unwrap();
    let mut warming = connected();
    dispatch(&mut warming, roster_ticket(1, 1));
    observe(
        &mut warming,
        roster_failure(roster_ticket(1, 1), ClientError::Warming),
    )
    .unwrap();
    let mut warming_with_last = ready(3);
    dispatch(&mut warming_with_last, roster_ticket(2, 1));
    observe(
        &mut warming_with_last,
        roster_failure(roster_ticket(2, 1), ClientError::Warming),
    )
    .unwrap();
    vec![
        ("not_requested", not_requested),
        ("loading", loading),
        ("ready_empty", empty),
        ("ready", filled),
        ("refreshing", refreshing),
        ("failed_with_last", failed_with_last),
        ("failed_none", failed_none),
        ("warming", warming),
        ("warming_with_last", warming_with_last),
    ]
}

#[test]
fn g4_g5_every_fetched_state_renders_distinctly() {
    let screens: Vec<(&str, String)> = states()
        .into_iter()
        .map(|(name, model)| (name, paint(&model, &ui(100, 24))))
        .collect();
    for (i, (a, text_a)) in screens.iter().enumerate() {
        for (b, text_b) in screens.iter().skip(i + 1) {
            assert_ne!(text_a, text_b, "{a} and {b} render the same");
        }
    }
    let get = |name: &str| &screens.iter().find(|(n, _)| *n == name).unwrap().1;
    assert!(get("not_requested").contains("(not loaded yet)"));
    assert!(get("loading").contains("loading keepers"));
    assert!(get("ready_empty").contains("no keepers registered"));
    assert!(!get("not_requested").contains("no keepers registered"));
    assert!(get("ready").contains("keeper-0002"));
    // G-4: a re-read shows the last value plus "reading"; a failed re-read the value plus why.
    assert!(get("refreshing").contains("keeper-0002") && get("refreshing").contains("reading"));
    let failed = get("failed_with_last");
    assert!(failed.contains("keeper-0002") && failed.contains("read failed: timeout"));
    // G-5: a failure with no value is a failure, never an empty list.
    let none = get("failed_none");
    assert!(none.contains("keepers read failed: status_500"));
    assert!(!none.contains("no keepers registered"));
    assert!(get("warming").contains("warming up"));
    assert!(!get("warming").contains("no keepers registered"));
    assert!(get("warming_with_last").contains("keeper-0002"));
}

/// A roster refused for the want of a token says where a token comes from (flag, env, file)
/// and how `masc-tui serve` gives one, each line whole at 80 columns; other
/// failures do not carry the hint.
#[test]
fn issue27_no_token_roster_says_where_a_token_comes_from() {
    let mut model = connected();
    dispatch(&mut model, roster_ticket(1, 1));
    observe(
        &mut model,
        roster_failure(roster_ticket(1, 1), ClientError::NoToken),
    )
    .unwrap();
    let text = paint(&model, &ui(80, 24));
    assert!(text.contains("keepers read failed: no_token"), "{text}");
    for words in [
        "--token, else MASC_TOKEN, else the token file",
        "<base>/.masc/auth/masc-tui.token (<base>: --base-path, else this directory);",
        "`masc-tui serve` prints MASC_TOKEN=… at start and writes that file",
    ] {
        assert!(
            text.contains(words),
            "{words:?} not whole on screen:\n{text}"
        );
    }
    let mut other = connected();
    dispatch(&mut other, roster_ticket(1, 1));
    observe(
        &mut other,
        roster_failure(roster_ticket(1, 1), ClientError::Timeout),
    )
    .unwrap();
    assert!(!paint(&other, &ui(80, 24)).contains("MASC_TOKEN"));
}

#[test]
fn header_shows_connection_workspace_and_mode() {
    let text = paint(&ready(1), &ui(100, 24));
    assert!(text.contains("connected"));
    assert!(text.contains("/home/op/demo"));
    assert!(text.contains("receipts"));

    let mut failed = ready(1);
    dispatch(&mut failed, roster_ticket(2, 1));
    observe(
        &mut failed,
        roster_failure(roster_ticket(2, 1), ClientError::Timeout),
    )
    .unwrap();
    assert!(paint(&failed, &ui(100, 24)).contains("degraded"));

    assert!(paint(&Model::default(), &ui(100, 24)).contains("connecting..."));
    let mut booting = Model::default();
    booting.on_identity(IdentityState::Booting);
    assert!(paint(&booting, &ui(100, 24)).contains("server booting..."));
    let mut lost = ready(1);
    lost.on_identity(IdentityState::Unconfirmed {
        reason: "connection refused".into(),
    });
    let text = paint(&lost, &ui(100, 24));
    assert!(text.contains("disconnected") && text.contains("connection refused"));
    // G-6: the last value stays on screen after withdrawal.
    assert!(text.contains("keeper-0000"));
}

#[test]
fn health_admitted_data_is_marked() {
    let mut m = Model::default();
    m.on_identity(confirmed(1, AdmissionMode::Health));
    dispatch(&mut m, roster_ticket(1, 1));
    observe(
        &mut m,
        roster_observation(roster_ticket(1, 1), roster(2), AdmissionMode::Health),
    )
    .unwrap();
    let text = paint(&m, &ui(120, 24));
    assert!(text.contains("health-admitted (no receipts)"));
    assert!(text.contains("health-admitted (no receipt)"));
    assert!(!paint(&ready(2), &ui(120, 24)).contains("health-admitted"));
}

#[test]
fn undecodable_rows_are_shown_as_such() {
    let mut m = connected();
    dispatch(&mut m, roster_ticket(1, 1));
    let rows = vec![
        KeeperRowSlot::Row(Box::new(bare_row("alpha", KeeperStatus::Idle))),
        KeeperRowSlot::Undecodable {
            name: Some("beta".into()),
            error: DecodeError::new(
                DecodeErrorKind::UnknownVariant,
                ".keepers[1].status",
                "running",
            ),
        },
    ];
    observe(
        &mut m,
        roster_observation(roster_ticket(1, 1), roster_of(rows), AdmissionMode::Receipt),
    )
    .unwrap();
    let text = paint(&m, &ui(100, 24));
    assert!(text.contains("1 undecodable"));
    assert!(text.contains("undecodable: unknown_variant at .keepers[1].status"));
    assert!(text.contains("beta"));
    // Absent fields read as absent: flags `○` (the screen's note, never `?`: S0, C-1),
    // sandbox and turn `-`.
    let alpha = text.lines().find(|l| l.contains("alpha")).unwrap();
    assert!(alpha.contains("○ ○ -"), "{alpha}");
    assert!(!alpha.contains('?'), "{alpha}");
}

#[test]
fn surfaces_before_any_read_say_so_and_overview_counts() {
    let model = ready(3);
    // Every surface is built: before any read each pane says so, never empty (G-5).
    let mut u = ui(100, 24);
    u.tab = Tab::System;
    let text = paint(&model, &u);
    assert!(
        text.contains("runtime catalogue: (not loaded yet)"),
        "{text}"
    );
    assert!(text.contains("connected"), "header on every surface");
    // The Board is built: before any read it says so, never an empty board (G-5).
    let mut u = ui(100, 24);
    u.tab = Tab::Board;
    let text = paint(&model, &u);
    assert!(text.contains("posts: (not loaded yet)") && text.contains("hearths: not read yet"));
    assert!(!text.contains("no posts"));
    let mut u = ui(100, 24);
    u.tab = Tab::Overview;
    let text = paint(&model, &u);
    let keepers = text.lines().find(|l| l.starts_with("Keepers")).unwrap();
    assert!(keepers.contains(" 3 · "), "{keepers}");
    // Panels whose slots were never read say so, never 0 (G-5).
    for panel in ["Goals", "Task flow", "Quota"] {
        let line = text.lines().find(|l| l.starts_with(panel)).unwrap();
        assert!(line.contains("(not loaded yet)"), "{line}");
    }
    for panel in ["Approvals", "Asks"] {
        let line = text.lines().find(|l| l.starts_with(panel)).unwrap();
        assert!(line.contains("(not loaded yet)"), "{line}");
    }
}

#[test]
fn help_lists_every_key_of_the_surface() {
    let mut u = ui(100, 40);
    let model = ready(3);
    masc_tui::view::keys::handle_key(
        &mut u,
        &model,
        crossterm::event::KeyEvent::new(
            crossterm::event::KeyCode::Char('?'),
            crossterm::event::KeyModifiers::NONE,
        ),
    );
    assert!(help_open(&u));
    let text = paint(&model, &u);
    for binding in [ROSTER_KEYS, RING, ALWAYS].iter().flat_map(|t| t.bindings) {
        let key = binding.keys;
        assert!(text.contains(key), "help misses {key}");
    }
}

#[test]
fn t5_small_terminal_shows_the_resize_gate() {
    let text = paint(&ready(3), &ui(50, 10));
    assert!(text.contains("terminal too small"));
    assert!(text.contains("50x10 < 60x12"));
    assert!(!text.contains("keeper-0000"));
    let text = paint(&ready(3), &ui(60, 12));
    assert!(text.contains("keeper-0000"));
}

#[test]
fn detail_pane_shows_the_full_row() {
    let mut u = ui(100, 40);
    u.roster_mut().selected = 1;
    u.roster_mut().detail_open = true;
    let text = paint(&ready(3), &u);
    assert!(text.contains("KEEPER keeper-0001"));
    assert!(text.contains("claude-sonnet-4-5-20250929-000001"));
    assert!(text.contains("sandbox_profile"));
    assert!(text.contains("(absent)"));
}

#[test]
fn no_color_keeps_meaning_in_marks_and_words() {
    let mut failed = ready(2);
    dispatch(&mut failed, roster_ticket(2, 1));
    observe(
        &mut failed,
        roster_failure(roster_ticket(2, 1), ClientError::Timeout),
    )
    .unwrap();
    let u = ui(100, 24);
    let mut buf = Buffer::empty(u.area);
    render(&failed, &u, &ctx(), u.area, &mut buf);
    assert!(
        buf.content()
            .iter()
            .all(|c| c.fg == ratatui::style::Color::Reset)
    );
    let text = buffer_text(&buf);
    assert!(text.contains("◐ degraded"));
    assert!(text.contains("✗ read failed"));
}

/// T.2 with G-4: a background re-read keeping the last value paints exactly like the settled
/// value until it is slow; then the "reading" badge shows beside the value.
#[test]
fn t2_background_reread_shows_badge_only_when_slow() {
    let settled = paint(&ready(3), &ui(100, 24));
    let mut background = ready(3);
    let dispatched_at = Instant::now();
    dispatch(&mut background, roster_ticket(2, 1));
    let at = |now: Instant| {
        let mut terminal = Terminal::new(TestBackend::new(100, 24)).unwrap();
        let ctx = ProjectionCtx { now, ..ctx() };
        terminal
            .draw(|frame| {
                render(
                    &background,
                    &ui(100, 24),
                    &ctx,
                    frame.area(),
                    frame.buffer_mut(),
                )
            })
            .unwrap();
        buffer_text(terminal.backend().buffer())
    };
    assert_eq!(at(dispatched_at), settled, "a routine re-read is invisible");
    let slow = at(dispatched_at + SLOW_READ_BADGE_AFTER * 2);
    assert!(
        slow.contains("reading") && slow.contains("keeper-0002"),
        "{slow}"
    );
}
