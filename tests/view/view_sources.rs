#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! The live Sources view (System › `sources`): a source whose reads fail (an injected 500
//! twice), whose supervisor restarts it and whose late result is rejected shows exactly that —
//! its restart state and count, its failures by class, its rejections by reason — and `Enter`
//! shows its tickets as a timeline. The numbers come from the same stage records the trace file
//! gets, folded by `timeline::live`, admitted into the model by ticket like any read.

use crate::rig::{ScreensOf, ticket};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use masc_tui::actors::source_stats::{SourceStatsObservation, SourceStatsSlot};
use masc_tui::protocol::admission::AdmissionMode;
use masc_tui::timeline::live::{LiveSnapshot, LiveTimeline};
use masc_tui::timeline::record::StageRecord;
use masc_tui::timeline::stage::Stage;
use masc_tui::view::keys::handle_key;
use masc_tui::view::model::Model;
use masc_tui::view::sample::{self, buffer_text};
use masc_tui::view::screens::system::{SystemPane, SystemUi};
use masc_tui::view::screens::{ProjectionCtx, Tab, Ui, render};
use masc_tui::view::theme::Theme;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use std::sync::Arc;

fn rec(ts_ms: u64, stage: Stage, source: &str, generation: Option<u64>) -> StageRecord {
    StageRecord {
        ts_us: ts_ms * 1000,
        pid: None,
        stage: stage.as_str().into(),
        source: source.into(),
        generation,
        epoch: Some(1),
        workspace: None,
        reason: None,
        outcome: None,
    }
}

/// A read of `source` as its actor and the view trace it: dispatch, worker return with
/// `outcome`, and the view's verdict (`None`: admitted, else rejected for that reason).
fn read(
    t: &mut LiveTimeline,
    source: &str,
    generation: u64,
    at_ms: u64,
    outcome: &str,
    rejected: Option<&str>,
) {
    t.push(&rec(at_ms, Stage::Dispatch, source, Some(generation)));
    let mut back = rec(at_ms + 40, Stage::WorkerReturn, source, Some(generation));
    back.outcome = Some(outcome.into());
    t.push(&back);
    let mut end = rec(at_ms + 45, Stage::Admit, source, Some(generation));
    if let Some(reason) = rejected {
        end.stage = Stage::Reject.as_str().into();
        end.reason = Some(reason.into());
    }
    t.push(&end);
}

/// The Board source under an injected fault plan: two reads answered 500, a panic drill the
/// supervisor restarts it from (attempt 1), a read of the dead incarnation rejected as stale,
/// then a good read. The Planning source reads quietly beside it.
fn faulted_board() -> LiveSnapshot {
    let mut t = LiveTimeline::new();
    read(&mut t, "planning", 1, 0, "ok", None);
    read(&mut t, "board_posts", 1, 100, "http_500", None);
    read(&mut t, "board_posts", 2, 1_100, "http_500", None);
    let mut restart = rec(2_000, Stage::Restart, "board", None);
    restart.reason = Some("restarted".into());
    t.push(&restart);
    read(&mut t, "board_posts", 3, 2_500, "ok", Some("stale_epoch"));
    let owners = vec![
        ("planning".to_string(), vec!["planning".to_string()]),
        (
            "board".to_string(),
            vec!["board_posts".to_string(), "hearth_census".to_string()],
        ),
    ];
    LiveSnapshot::Recording {
        taken_us: 3_000_000,
        rows: t.rows(3_000_000, &owners),
    }
}

fn model_with(snapshot: LiveSnapshot) -> Model {
    let mut m = Model::default();
    m.on_identity(sample::confirmed(1, AdmissionMode::Receipt));
    crate::rig::deliver(
        &mut m,
        ticket(SourceStatsSlot::Snapshot, 1),
        SourceStatsObservation(Arc::new(snapshot)),
    );
    m
}

fn sources_ui() -> Ui {
    Ui {
        area: Rect::new(0, 0, 140, 30),
        tab: Tab::System,
        ..Ui::default()
    }
    .with_screen(SystemUi {
        pane: SystemPane::Sources,
        ..Default::default()
    })
}

fn draw(m: &Model, ui: &Ui) -> String {
    let mut t = Terminal::new(TestBackend::new(140, 30)).unwrap();
    let ctx = ProjectionCtx::now(Theme::plain());
    t.draw(|f| render(m, ui, &ctx, f.area(), f.buffer_mut()))
        .unwrap();
    buffer_text(t.backend().buffer())
}

fn line_of<'a>(screen: &'a str, needle: &str) -> &'a str {
    screen
        .lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle:?} in\n{screen}"))
}

fn columns(line: &str) -> Vec<&str> {
    line.split_whitespace().collect()
}

#[test]
fn a_faulted_source_shows_its_failures_restarts_and_rejections_and_enter_its_tickets() {
    let m = model_with(faulted_board());
    let mut ui = sources_ui();
    let screen = draw(&m, &ui);
    assert!(line_of(&screen, "SOURCE").contains("P95"), "{screen}");
    // board_posts: running (its new incarnation dispatched at 2.5 s, after the restart at 2 s),
    // 3 reads in the minute, 2 failures (admitted as failures), 1 rejection, 1 restart.
    let posts = columns(line_of(&screen, "board_posts"));
    assert_eq!(posts[1], "running", "{screen}");
    assert_eq!(posts[2], "3", "per minute: {screen}");
    assert_eq!(posts[5..8], ["2", "1", "1"], "FAIL REJ RST: {screen}");
    // The sibling slot shares its source's restart count and never read.
    let census = columns(line_of(&screen, "hearth_census"));
    assert_eq!(census[1], "running");
    assert_eq!(census[2], "0");
    assert_eq!(census[7], "1", "RST: {screen}");
    let planning = columns(line_of(&screen, "planning"));
    assert_eq!(planning[5..8], ["0", "0", "0"], "{screen}");
    // The selected row (the first, planning) explains itself below the table; select
    // board_posts and its reasons are named.
    let j = KeyEvent::new(KeyCode::Char('j'), KeyModifiers::NONE);
    handle_key(&mut ui, &m, j);
    assert_eq!(ui.system().sources.selected, 1);
    let screen = draw(&m, &ui);
    assert!(screen.contains("failures: http_500 ×2"), "{screen}");
    assert!(screen.contains("rejected: stale_epoch ×1"), "{screen}");
    // Enter: the tickets, oldest first, each with its worker return and its end.
    handle_key(
        &mut ui,
        &m,
        KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE),
    );
    let screen = draw(&m, &ui);
    assert!(screen.contains("recent tickets of board_posts"), "{screen}");
    let lines: Vec<&str> = screen
        .lines()
        .filter(|l| l.contains("dispatched"))
        .collect();
    assert_eq!(lines.len(), 3, "{screen}");
    assert!(
        lines[0].contains("#1") && lines[0].contains("(http_500)"),
        "{screen}"
    );
    assert!(lines[0].contains("admitted +45.0ms"), "{screen}");
    assert!(lines[2].contains("#3") && lines[2].contains("rejected +45.0ms: stale_epoch"));
    assert!(lines[2].contains("worker returned +40.0ms →"), "{screen}");
    // Esc goes back to the table.
    handle_key(&mut ui, &m, KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
    assert!(!ui.system().sources.timeline);
    assert!(draw(&m, &ui).contains("board_posts"));
}

#[test]
fn a_source_restarted_and_not_yet_dispatching_reads_restarting_and_a_stopped_one_stopped() {
    let mut t = LiveTimeline::new();
    read(&mut t, "board_posts", 1, 100, "ok", None);
    let mut restart = rec(2_000, Stage::Restart, "board", None);
    restart.reason = Some("restarted".into());
    t.push(&restart);
    read(&mut t, "planning", 1, 100, "ok", None);
    let mut gave_up = rec(2_500, Stage::Restart, "planning", None);
    gave_up.reason = Some("gave_up".into());
    t.push(&gave_up);
    let owners = vec![
        ("planning".to_string(), vec!["planning".to_string()]),
        ("board".to_string(), vec!["board_posts".to_string()]),
    ];
    let m = model_with(LiveSnapshot::Recording {
        taken_us: 3_000_000,
        rows: t.rows(3_000_000, &owners),
    });
    let screen = draw(&m, &sources_ui());
    assert_eq!(
        columns(line_of(&screen, "board_posts"))[1..3],
        ["restart", "#1"]
    );
    assert_eq!(
        columns(line_of(&screen, "planning"))[1],
        "stopped",
        "{screen}"
    );
}

#[test]
fn unread_and_not_recorded_are_said_apart_from_an_empty_table() {
    let mut m = Model::default();
    m.on_identity(sample::confirmed(1, AdmissionMode::Receipt));
    let unread = draw(&m, &sources_ui());
    assert!(unread.contains("sources: (not loaded yet)"), "{unread}");
    let m = model_with(LiveSnapshot::NotRecording);
    let off = draw(&m, &sources_ui());
    assert!(off.contains("not recorded in this process"), "{off}");
    assert!(!off.contains("SOURCE "), "{off}");
}
