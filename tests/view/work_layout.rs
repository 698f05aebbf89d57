#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! Display preparation of the Task detail (sources.md ): prepared off the view actor
//! for an exact (task, observation/prefix, width) key, reused by draw/scroll/count, dropped when
//! stale; a provisional rendering never resets the saved scroll.

use crate::rig::ScreensOf;
use crate::work_build::*;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use masc_tui::actors::work::{HistoryChain, OlderPages, WorkCommand};
use masc_tui::view::keys::{UiCommand, handle_key};
use masc_tui::view::screens::work::WorkPane;
use masc_tui::view::screens::work::detail::drawn_scroll;
use masc_tui::view::screens::work::state::layout_width_for;
use masc_tui::view::screens::{Tab, Ui};
use masc_tui::view::work::{LayoutJob, LayoutPart};
use ratatui::layout::Rect;
use std::sync::Arc;

const T: &str = "task-7";

fn run_all(jobs: Vec<LayoutJob>) -> Vec<masc_tui::view::work::LaidOut> {
    jobs.into_iter().map(LayoutJob::run).collect()
}

fn model_with_history(rows: usize) -> (masc_tui::view::model::Model, Arc<HistoryChain>) {
    let mut m = confirmed_model();
    m.work.open_task(T);
    deliver(&mut m, body_obs(T, 1));
    let fresh = Arc::new(HistoryChain::fresh(T));
    let (obs, chain) = history_obs(&fresh, 1, rows, false);
    deliver(&mut m, obs);
    (m, chain)
}

#[test]
fn a13_rows_are_prepared_once_per_key_and_reused() {
    let (mut m, _) = model_with_history(30);
    let jobs = m.work.layouts.jobs(m.work.task.as_ref(), 60);
    assert_eq!(jobs.len(), 2, "document and history");
    // Asked again before the results are back: nothing new is started.
    assert!(m.work.layouts.jobs(m.work.task.as_ref(), 60).is_empty());
    for p in run_all(jobs) {
        assert!(m.work.layouts.admit(p, m.work.task.as_ref(), 60));
    }
    let task = m.work.task.as_ref().unwrap();
    let history = m.work.layouts.history(task, 60).unwrap();
    assert!(!history.provisional);
    assert!(history.lines.len() > 30, "notes wrap onto extra rows");
    assert!(
        history.lines.iter().all(|l| l
            .segments
            .iter()
            .map(|(_, s)| masc_tui::view::text::display_width(s))
            .sum::<usize>()
            <= 60),
        "every row fits the pane width"
    );
    // LaidOut and current: no further work.
    assert!(m.work.layouts.jobs(m.work.task.as_ref(), 60).is_empty());
}

#[test]
fn a13_a_result_for_an_old_width_is_dropped() {
    let (mut m, _) = model_with_history(10);
    let old = run_all(m.work.layouts.jobs(m.work.task.as_ref(), 60));
    // The pane was resized before the results came back.
    let new_jobs = m.work.layouts.jobs(m.work.task.as_ref(), 90);
    assert_eq!(new_jobs.len(), 2);
    for p in old {
        assert!(
            !m.work.layouts.admit(p, m.work.task.as_ref(), 90),
            "old width dropped"
        );
    }
    let task = m.work.task.as_ref().unwrap();
    assert!(m.work.layouts.history(task, 90).is_none());
    for p in run_all(new_jobs) {
        assert!(m.work.layouts.admit(p, m.work.task.as_ref(), 90));
    }
    let task = m.work.task.as_ref().unwrap();
    assert!(
        m.work
            .layouts
            .history(task, 90)
            .is_some_and(|s| !s.provisional)
    );
}

#[test]
fn a13_a_result_for_another_task_or_after_withdrawal_is_dropped() {
    let (mut m, _) = model_with_history(10);
    let old = run_all(m.work.layouts.jobs(m.work.task.as_ref(), 60));
    // Another task opened (the source changed).
    m.work.open_task("task-8");
    for p in old.clone() {
        assert!(!m.work.layouts.admit(p, m.work.task.as_ref(), 60));
    }
    // The same task again, then the workspace withdrawn before the result returns.
    let (mut m, _) = model_with_history(10);
    let jobs = m.work.layouts.jobs(m.work.task.as_ref(), 60);
    m.on_identity(masc_tui::actors::contract::IdentityState::Unconfirmed {
        reason: "health probe failed".into(),
    });
    for p in run_all(jobs) {
        assert!(!m.work.layouts.admit(p, m.work.task.as_ref(), 60));
    }
    assert_eq!(m.work.layouts.running(), 0);
}

#[test]
fn a14_previous_rendering_stands_in_only_for_the_same_prefix_at_the_same_width() {
    let (mut m, chain) = model_with_history(10);
    for p in run_all(m.work.layouts.jobs(m.work.task.as_ref(), 60)) {
        m.work.layouts.admit(p, m.work.task.as_ref(), 60);
    }
    let ten_rows = m
        .work
        .layouts
        .history(m.work.task.as_ref().unwrap(), 60)
        .unwrap()
        .lines
        .len();
    // Page 2 admitted: until its preparation returns, the 10-row rendering stands in.
    let (obs, _) = history_obs(&chain, 2, 10, true);
    deliver(&mut m, obs);
    let task = m.work.task.as_ref().unwrap();
    let shown = m.work.layouts.history(task, 60).unwrap();
    assert!(shown.provisional);
    assert_eq!(shown.lines.len(), ten_rows);
    // Not at another width.
    assert!(m.work.layouts.history(task, 61).is_none());
    // The incremental preparation equals a full one.
    let jobs = m.work.layouts.jobs(m.work.task.as_ref(), 60);
    let history_job = jobs
        .iter()
        .find(|j| j.key().part == LayoutPart::History)
        .unwrap();
    let LayoutJob::History {
        previous,
        chain,
        key,
    } = history_job.clone()
    else {
        unreachable!()
    };
    assert!(previous.is_some(), "extends the same prefix");
    let full = LayoutJob::History {
        key: key.clone(),
        chain,
        previous: None,
    }
    .run();
    for p in run_all(jobs) {
        m.work.layouts.admit(p, m.work.task.as_ref(), 60);
    }
    let task = m.work.task.as_ref().unwrap();
    let now = m.work.layouts.history(task, 60).unwrap();
    assert!(!now.provisional);
    assert_eq!(now.lines, &full.lines[..]);
    // A fresh prefix (r) is another source: the old rendering does not stand in.
    let fresh = Arc::new(HistoryChain::fresh(T));
    let (obs, _) = history_obs(&fresh, 3, 5, false);
    deliver(&mut m, obs);
    assert!(
        m.work
            .layouts
            .history(m.work.task.as_ref().unwrap(), 60)
            .is_none()
    );
}

fn key(c: KeyCode) -> KeyEvent {
    KeyEvent::new(c, KeyModifiers::NONE)
}

#[test]
fn a14_a_provisional_row_count_never_resets_the_saved_scroll() {
    let area = Rect::new(0, 0, 100, 30);
    let width = layout_width_for(area);
    let (mut m, chain) = model_with_history(60);
    for p in run_all(m.work.layouts.jobs(m.work.task.as_ref(), width)) {
        m.work.layouts.admit(p, m.work.task.as_ref(), width);
    }
    let mut ui = Ui {
        area,
        tab: Tab::Work,
        ..Ui::default()
    };
    ui.work_mut().pane = WorkPane::Tasks;
    ui.work_mut().tasks.open = Some(T.into());
    // Scroll to the end of what is prepared (older pages are asked for on the way to the
    // oldest), then one more page is admitted.
    assert!(matches!(
        handle_key(&mut ui, &m, key(KeyCode::End)).as_send::<WorkCommand>(),
        Some(WorkCommand::ReadOlder {
            pages: OlderPages::ToOldest,
            ..
        })
    ));
    let saved = ui.work().tasks.history_scroll;
    assert!(saved > 0);
    let (obs, _) = history_obs(&chain, 2, 60, true);
    deliver(&mut m, obs);
    // The previous rendering stands in; scrolling further is not clamped by its count.
    let shown = m
        .work
        .layouts
        .history(m.work.task.as_ref().unwrap(), width)
        .unwrap();
    assert!(shown.provisional);
    for _ in 0..5 {
        handle_key(&mut ui, &m, key(KeyCode::Char('j')));
    }
    assert_eq!(
        ui.work().tasks.history_scroll,
        saved + 5,
        "saved scroll kept and advanced"
    );
    // Drawing clamps without writing back.
    let drawn = drawn_scroll(ui.work().tasks.history_scroll, shown.lines.len(), 10);
    assert!(drawn <= shown.lines.len());
    assert_eq!(ui.work().tasks.history_scroll, saved + 5);
    // End is refused while the count is provisional.
    assert_eq!(handle_key(&mut ui, &m, key(KeyCode::End)), UiCommand::None);
}

#[test]
fn a8_page_demand_follows_the_terminal_height() {
    let m = confirmed_model();
    let demand = |h: u16| {
        let mut ui = Ui {
            area: Rect::new(0, 0, 100, h),
            tab: Tab::Work,
            ..Ui::default()
        };
        ui.work_mut().pane = WorkPane::Tasks;
        ui.work_mut().tasks.open = Some(T.into());
        match handle_key(&mut ui, &m, key(KeyCode::Char('H')))
            .as_send::<WorkCommand>()
            .cloned()
        {
            Some(WorkCommand::OlderHistory { page_rows }) => page_rows,
            other => panic!("{other:?}"),
        }
    };
    let (small, large) = (demand(24), demand(60));
    assert!(small >= 1 && large > small, "{small} {large}");
}

/// rejecting a stale preparation clears only the marker that request still owns — the
/// same input (task, prefix, width) can be prepared again — while the replacement's marker and
/// the prior display stay as they were.
#[test]
fn a15_rejecting_a_stale_result_clears_only_its_own_marker() {
    let (mut m, _) = model_with_history(10);
    for p in run_all(m.work.layouts.jobs(m.work.task.as_ref(), 60)) {
        assert!(m.work.layouts.admit(p, m.work.task.as_ref(), 60));
    }
    let prior = m
        .work
        .layouts
        .history(m.work.task.as_ref().unwrap(), 60)
        .map(|s| s.lines.to_vec())
        .unwrap();
    let at_90 = m.work.layouts.jobs(m.work.task.as_ref(), 90);
    let at_75 = m.work.layouts.jobs(m.work.task.as_ref(), 75);
    assert_eq!((at_90.len(), at_75.len()), (2, 2));
    assert_eq!(m.work.layouts.running(), 4);
    // The pane settled at 75: the 90-cell results are rejected.
    for p in run_all(at_90) {
        assert!(!m.work.layouts.admit(p, m.work.task.as_ref(), 75));
    }
    assert_eq!(
        m.work.layouts.running(),
        2,
        "the replacement's markers stay"
    );
    assert!(
        m.work.layouts.jobs(m.work.task.as_ref(), 75).is_empty(),
        "the replacement is still the one running"
    );
    let task = m.work.task.as_ref().unwrap();
    assert_eq!(
        m.work.layouts.history(task, 60).map(|s| s.lines.to_vec()),
        Some(prior),
        "the prior display is untouched"
    );
    // The rejected input can be entered again.
    assert_eq!(m.work.layouts.jobs(m.work.task.as_ref(), 90).len(), 2);
    for p in run_all(at_75) {
        assert!(m.work.layouts.admit(p, m.work.task.as_ref(), 75));
    }
}

/// a count before `H` reads that many older pages (`12H`); any other key forgets the
/// count. The history line says how far the run got.
#[test]
fn a2_a_count_before_h_reads_that_many_pages_with_progress() {
    let (mut m, chain) = model_with_history(60);
    let mut ui = Ui {
        area: Rect::new(0, 0, 120, 40),
        tab: Tab::Work,
        ..Ui::default()
    };
    ui.work_mut().pane = WorkPane::Tasks;
    ui.work_mut().tasks.open = Some(T.into());
    handle_key(&mut ui, &m, key(KeyCode::Char('1')));
    handle_key(&mut ui, &m, key(KeyCode::Char('2')));
    let cmd = handle_key(&mut ui, &m, key(KeyCode::Char('H')));
    let Some(asked @ WorkCommand::ReadOlder { pages, .. }) = cmd.as_send::<WorkCommand>() else {
        panic!("{cmd:?}");
    };
    assert_eq!(*pages, OlderPages::Count(12));
    // A digit, then another key: the count is forgotten.
    handle_key(&mut ui, &m, key(KeyCode::Char('5')));
    handle_key(&mut ui, &m, key(KeyCode::Char('j')));
    assert!(matches!(
        handle_key(&mut ui, &m, key(KeyCode::Char('H'))).as_send::<WorkCommand>(),
        Some(WorkCommand::OlderHistory { .. })
    ));
    // The run's progress, page by page.
    m.work.on_command(asked);
    let (obs, _) = history_obs(&chain, 2, 60, false);
    deliver(&mut m, obs);
    let text = crate::rig::screen_text(&m, &ui);
    assert!(
        text.contains("reading older pages: 1 of 12 read…"),
        "{text}"
    );
}
