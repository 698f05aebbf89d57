#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! The Work screens through ratatui's `TestBackend`: every read state reads differently
//! (G-4, G-5), the history end is "end of stored history" and never "complete" (A-4), a failed
//! page keeps its rows with the retry cursor (A-3), a withdrawal says the values were dropped
//! (A-12), `timeline: null` is "unavailable" (B-1), and the Goals/Tasks keys (`t`, `f`, `s`,
//! `/`, Enter) do what surfaces.md says.

use crate::rig::ScreensOf;
use crate::rig::{dispatch, observe};
use crate::work_build::*;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use masc_tui::actors::contract::{IdentityState, SlotEvent};
use masc_tui::actors::work::{HistoryChain, TASK_LIST, WorkCommand, WorkObservation, WorkSlot};
use masc_tui::protocol::admission::AdmissionMode;
use masc_tui::protocol::client::{Admitted, ClientError};
use masc_tui::protocol::decode::WireDecode;
use masc_tui::protocol::goals::GoalDetailRead;
use masc_tui::protocol::planning::PlanningRead;
use masc_tui::protocol::tasks::TaskList;
use masc_tui::view::keys::{UiCommand, handle_key};
use masc_tui::view::model::Model;
use masc_tui::view::screens::work::state::layout_width_for;
use masc_tui::view::screens::work::{GoalFilter, GoalSort, WorkPane};
use masc_tui::view::screens::{ProjectionCtx, Tab, Ui, render};
use masc_tui::view::theme::Theme;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use std::sync::Arc;

const T: &str = "task-1013";

fn screen(model: &mut Model, ui: &Ui) -> String {
    // Preparation as the view actor runs it (here inline, the test is the worker).
    let width = layout_width_for(ui.area);
    let jobs = model.work.layouts.jobs(model.work.task.as_ref(), width);
    for job in jobs {
        let p = job.run();
        model.work.layouts.admit(p, model.work.task.as_ref(), width);
    }
    let mut terminal = Terminal::new(TestBackend::new(ui.area.width, ui.area.height)).unwrap();
    let ctx = ProjectionCtx::now(Theme::plain());
    terminal
        .draw(|f| render(model, ui, &ctx, f.area(), f.buffer_mut()))
        .unwrap();
    let buf = terminal.backend().buffer().clone();
    let mut out = String::new();
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            out.push_str(buf[(x, y)].symbol());
        }
        out.push('\n');
    }
    out
}

fn task_ui() -> Ui {
    let mut ui = Ui {
        area: Rect::new(0, 0, 110, 32),
        tab: Tab::Work,
        ..Ui::default()
    };
    ui.work_mut().pane = WorkPane::Tasks;
    ui.work_mut().tasks.open = Some(T.into());
    ui
}

fn history_status(text: &str) -> String {
    text.lines()
        .find(|l| l.contains("HISTORY"))
        .unwrap_or_default()
        .trim()
        .to_string()
}

#[test]
fn g5_never_read_reading_failed_and_normal_empty_history_look_different() {
    let ui = task_ui();
    // Never read: the task is open but nothing was dispatched.
    let mut never = confirmed_model();
    never.work.open_task(T);
    // Reading.
    let mut reading = confirmed_model();
    reading.work.open_task(T);
    dispatch(&mut reading, ticket(WorkSlot::TaskHistory(T.into()), 1));
    // Failed with no value.
    let mut failed = confirmed_model();
    failed.work.open_task(T);
    let fresh = Arc::new(HistoryChain::fresh(T));
    deliver(
        &mut failed,
        failed_history_obs(
            &fresh,
            1,
            ClientError::Status {
                status: 500,
                body: String::new(),
            },
        ),
    );
    // Normal empty: the server said there is no stored event (task-1040 in the demo).
    let mut empty = confirmed_model();
    empty.work.open_task(T);
    deliver(&mut empty, history_obs(&fresh, 1, 0, true).0);
    let lines: Vec<String> = [&mut never, &mut reading, &mut failed, &mut empty]
        .into_iter()
        .map(|m| history_status(&screen(m, &ui)))
        .collect();
    assert!(lines[0].contains("not read yet"), "{}", lines[0]);
    assert!(lines[1].contains("reading"), "{}", lines[1]);
    assert!(
        lines[2].contains("read failed (status_500)"),
        "{}",
        lines[2]
    );
    assert!(
        lines[3].contains("no stored events") && lines[3].contains("end of stored history"),
        "{}",
        lines[3]
    );
    for (i, a) in lines.iter().enumerate() {
        assert!(!a.contains("complete"), "A-4: never 'complete': {a}");
        for b in &lines[i + 1..] {
            assert_ne!(a, b);
        }
    }
}

#[test]
fn a3_a4_a_failed_page_keeps_rows_and_the_end_is_end_of_stored_history() {
    let ui = task_ui();
    let mut m = confirmed_model();
    m.work.open_task(T);
    deliver(&mut m, body_obs(T, 1));
    let fresh = Arc::new(HistoryChain::fresh(T));
    let (obs, one) = history_obs(&fresh, 1, 12, false);
    deliver(&mut m, obs);
    deliver(
        &mut m,
        failed_history_obs(
            &one,
            2,
            ClientError::Status {
                status: 409,
                body: String::new(),
            },
        ),
    );
    let text = screen(&mut m, &ui);
    let status = history_status(&text);
    assert!(status.contains("12 rows kept"), "{status}");
    assert!(
        status.contains("older page read failed (status_409)"),
        "{status}"
    );
    assert!(status.contains("H retries the same cursor"), "{status}");
    assert!(text.contains("#0 "), "the kept rows are drawn:\n{text}");
    assert!(
        text.contains("Write decoder"),
        "the document is drawn:\n{text}"
    );
    assert!(
        text.contains("linked: goal-7"),
        "canonical goal observation:\n{text}"
    );
    // The last page: end of stored history, not complete.
    let (obs, _) = history_obs(&one, 3, 3, true);
    deliver(&mut m, obs);
    let status = history_status(&screen(&mut m, &ui));
    assert!(
        status.contains("15 events · 2 pages · end of stored history"),
        "{status}"
    );
    assert!(!status.contains("complete"));
}

#[test]
fn a12_a_withdrawal_says_the_values_were_dropped() {
    let ui = task_ui();
    let mut m = confirmed_model();
    m.work.open_task(T);
    deliver(&mut m, body_obs(T, 1));
    deliver(
        &mut m,
        history_obs(&Arc::new(HistoryChain::fresh(T)), 1, 5, false).0,
    );
    m.on_identity(IdentityState::Unconfirmed {
        reason: "health probe failed".into(),
    });
    let text = screen(&mut m, &ui);
    assert!(
        text.contains("workspace authority withdrawn: task body dropped"),
        "{text}"
    );
    assert!(history_status(&text).contains("values dropped"));
    assert!(
        !text.contains("#0 "),
        "no row of the withdrawn prefix is shown"
    );
}

pub fn planning_model() -> Model {
    let mut m = confirmed_model();
    let body = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/fixtures/masc/planning__every_goal_phase.json"),
    )
    .or_else(|_| std::fs::read("/work/shared/fixtures/masc/planning__every_goal_phase.json"));
    let read = match body {
        Ok(b) => PlanningRead::decode(&b).unwrap(),
        Err(_) => {
            let inline = br#"{"generated_at":"2026-08-21T05:06:07Z","goals":[
              {"id":"goal-1","title":"Ship TUI","phase":"executing","priority":2},
              {"id":"goal-2","title":"Old","phase":"completed","priority":1},
              {"id":"goal-3","title":"Gone","phase":"dropped","priority":3}],
              "rollup":{"active_count":1,"paused_count":0,"verifying_count":0,"done_count":1,"dropped_count":1},
              "task_backlog":{"todo":3,"claimed":0,"in_progress":1,"done":5,"cancelled":0}}"#;
            PlanningRead::decode(inline).unwrap()
        }
    };
    let t = ticket(WorkSlot::Planning, 1);
    dispatch(&mut m, t.clone());
    observe(
        &mut m,
        SlotEvent::Observed(
            t,
            WorkObservation::Planning(Ok(Admitted {
                value: Arc::new(read),
                mode: AdmissionMode::Receipt,
                from_cache: false,
            })),
        ),
    )
    .unwrap();
    m
}

fn key(c: KeyCode) -> KeyEvent {
    KeyEvent::new(c, KeyModifiers::NONE)
}

#[test]
fn goals_rollup_phase_groups_filter_sort_and_t_toggle() {
    let mut m = planning_model();
    let mut ui = Ui {
        area: Rect::new(0, 0, 120, 30),
        tab: Tab::Work,
        ..Ui::default()
    };
    let text = screen(&mut m, &ui);
    assert!(text.contains("Executing"), "{text}");
    assert!(text.contains("Tasks: todo"), "{text}");
    assert!(
        text.contains("filter: all (f) · sort: phase/P1-P5 (s)"),
        "{text}"
    );
    assert!(text.contains("EXECUTING"), "phase group heading:\n{text}");
    assert_eq!(
        handle_key(&mut ui, &m, key(KeyCode::Char('f'))),
        UiCommand::Repaint
    );
    assert_eq!(ui.work().goals.filter, GoalFilter::Active);
    handle_key(&mut ui, &m, key(KeyCode::Char('f')));
    assert_eq!(ui.work().goals.filter, GoalFilter::Completed);
    let completed = screen(&mut m, &ui);
    assert!(
        completed.contains("DONE") && !completed.contains("EXECUTING"),
        "{completed}"
    );
    handle_key(&mut ui, &m, key(KeyCode::Char('s')));
    assert_eq!(ui.work().goals.sort, GoalSort::Updated);
    assert!(screen(&mut m, &ui).contains("sort: updated (s)"));
    // Enter opens the goal detail with its own read.
    ui.work_mut().goals.filter = GoalFilter::All;
    match handle_key(&mut ui, &m, key(KeyCode::Enter))
        .as_send::<WorkCommand>()
        .cloned()
    {
        Some(WorkCommand::OpenGoal { goal_id }) => {
            assert_eq!(ui.work().goals.open.as_deref(), Some(goal_id.as_str()))
        }
        other => panic!("{other:?}"),
    }
    handle_key(&mut ui, &m, key(KeyCode::Esc));
    assert_eq!(
        handle_key(&mut ui, &m, key(KeyCode::Char('t'))),
        UiCommand::Repaint
    );
    assert_eq!(ui.work().pane, WorkPane::Tasks);
    assert!(screen(&mut m, &ui).contains("task list: (not loaded yet)"));
    // r on each pane refreshes its own source.
    assert_eq!(
        handle_key(&mut ui, &m, key(KeyCode::Char('r'))),
        UiCommand::Refresh(TASK_LIST)
    );
}

#[test]
fn s5_1_coverage_line_names_an_unavailable_part_and_search_filters() {
    let body = br#"{"schema":"masc.task_list.v1","sources":{"backlog":{"state":"read"},"archive":{"state":"read"},"goal_links":{"state":"unavailable","reason":"goal link registry unreadable"}},
      "tasks":[{"id":"task-1013","title":"Write decoder","status":"in_progress","priority":2,"assignee":"alpha","created_at":"2026-10-01T09:00:00Z","completed_at":null,"archived":false,"goal_ids":null},
               {"id":"task-1040","title":"Empty-history placeholder task","status":"todo","priority":3,"assignee":null,"created_at":"2026-10-01T09:00:00Z","completed_at":null,"archived":false,"goal_ids":null}]}"#;
    let list = TaskList::decode(body).unwrap();
    let mut m = confirmed_model();
    let t = ticket(WorkSlot::TaskList, 1);
    dispatch(&mut m, t.clone());
    observe(
        &mut m,
        SlotEvent::Observed(
            t,
            WorkObservation::TaskList(Ok(Admitted {
                value: Arc::new(list),
                mode: AdmissionMode::Receipt,
                from_cache: false,
            })),
        ),
    )
    .unwrap();
    let mut ui = Ui {
        area: Rect::new(0, 0, 120, 24),
        tab: Tab::Work,
        ..Ui::default()
    };
    ui.work_mut().pane = WorkPane::Tasks;
    let text = screen(&mut m, &ui);
    assert!(
        text.contains("goal links UNAVAILABLE (goal link registry unreadable)"),
        "{text}"
    );
    assert!(
        text.contains("goals ?"),
        "unknown goal links are not 'no goal':\n{text}"
    );
    handle_key(&mut ui, &m, key(KeyCode::Char('/')));
    for c in "placeholder".chars() {
        handle_key(&mut ui, &m, key(KeyCode::Char(c)));
    }
    handle_key(&mut ui, &m, key(KeyCode::Enter));
    let text = screen(&mut m, &ui);
    assert!(text.contains("1 of 2"), "{text}");
    match handle_key(&mut ui, &m, key(KeyCode::Enter))
        .as_send::<WorkCommand>()
        .cloned()
    {
        Some(WorkCommand::OpenTask { task_id, page_rows }) => {
            assert_eq!(task_id, "task-1040");
            assert!(page_rows >= 1);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn b1_timeline_null_reads_unavailable_and_not_found_is_a_failure() {
    let mut m = planning_model();
    let mut ui = Ui {
        area: Rect::new(0, 0, 110, 24),
        tab: Tab::Work,
        ..Ui::default()
    };
    ui.work_mut().goals.open = Some("goal-1".into());
    m.work.open_goal("goal-1");
    let null = br#"{"approval_queue_state":{"state":"ready"},"goal":{"id":"goal-1","title":"G","phase":"executing"},"linked_keepers":[],"timeline":null}"#;
    let read = GoalDetailRead::decode_for(null, "goal-1").unwrap();
    let t = ticket(WorkSlot::GoalTimeline("goal-1".into()), 1);
    dispatch(&mut m, t.clone());
    observe(
        &mut m,
        SlotEvent::Observed(
            t,
            WorkObservation::GoalTimeline(Ok(Admitted {
                value: Arc::new(read),
                mode: AdmissionMode::Receipt,
                from_cache: false,
            })),
        ),
    )
    .unwrap();
    let text = screen(&mut m, &ui);
    assert!(
        text.contains("timeline unavailable (server sent null) — not empty"),
        "{text}"
    );
    assert!(!text.contains("no timeline events"));
    // Not found: the failure of this read, named.
    m.work.open_goal("goal-1");
    let nf = br#"{"ok":false,"error":"Goal goal-1 not found","goal_id":"goal-1"}"#;
    let t = ticket(WorkSlot::GoalTimeline("goal-1".into()), 2);
    dispatch(&mut m, t.clone());
    observe(
        &mut m,
        SlotEvent::Observed(
            t,
            WorkObservation::GoalTimeline(Ok(Admitted {
                value: Arc::new(GoalDetailRead::decode_for(nf, "goal-1").unwrap()),
                mode: AdmissionMode::Receipt,
                from_cache: false,
            })),
        ),
    )
    .unwrap();
    let text = screen(&mut m, &ui);
    assert!(
        text.contains("goal not found by the server (this read only)"),
        "{text}"
    );
}
