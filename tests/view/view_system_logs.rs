#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! The System `logs` pane (protocol-15-operator.md §15.1, issue 28 item 3) without a server:
//! rows by `seq` newest first whatever order the page came in; `l`/`c` ask new filters and a
//! read asked under the old ones is rejected; a delta merges; `End` at the oldest asks the page
//! before it; `Enter` shows a row whole (its details only there); `v` verbose; a failed refresh
//! keeps the rows beside the failure; an empty page of an evicted window says so.

use crate::rig::{ScreensOf, SurfaceSlot, admitted, dispatch, observe, screen_text, ticket};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use masc_tui::actors::contract::SlotEvent;
use masc_tui::actors::system_logs::{
    LogsRead, SystemLogsCommand, SystemLogsObservation, SystemLogsSlot,
};
use masc_tui::protocol::admission::AdmissionMode;
use masc_tui::protocol::client::ClientError;
use masc_tui::protocol::decode::WireDecode;
use masc_tui::protocol::system_logs::{LogQuery, LogsPage, MinLevel};
use masc_tui::server::routes::system_logs::entry;
use masc_tui::view::admission::RejectReason;
use masc_tui::view::keys::{UiCommand, handle_key};
use masc_tui::view::model::Model;
use masc_tui::view::sample::confirmed;
use masc_tui::view::screens::system::{SystemPane, SystemUi};
use masc_tui::view::screens::{Tab, Ui};
use ratatui::layout::Rect;

impl SurfaceSlot for SystemLogsSlot {
    type Payload = SystemLogsObservation;
}

fn model() -> Model {
    let mut m = Model::default();
    m.on_identity(confirmed(1, AdmissionMode::Receipt));
    m
}

fn ui() -> Ui {
    Ui {
        area: Rect::new(0, 0, 140, 40),
        tab: Tab::System,
        ..Ui::default()
    }
    .with_screen(SystemUi {
        pane: SystemPane::Logs,
        ..SystemUi::default()
    })
}

/// A page of seeded entries `seqs` (in the order given), the ring as the embedded server's.
fn page(seqs: &[u64], dropped: bool) -> LogsPage {
    let entries: Vec<serde_json::Value> = seqs.iter().map(|s| entry(*s)).collect();
    let body = serde_json::json!({
        "returned": entries.len(), "latest_seq": seqs.iter().max(), "oldest_seq": seqs.iter().min(),
        "total": 260, "ring": {"start_seq": 61, "total": 260, "dropped_before": dropped},
        "entries": entries,
    });
    LogsPage::decode(&serde_json::to_vec(&body).unwrap()).unwrap()
}

fn window(query: LogQuery, result: Result<LogsPage, ClientError>) -> SystemLogsObservation {
    SystemLogsObservation::Window(Box::new(LogsRead {
        query,
        result: result.and_then(admitted),
    }))
}

fn read(
    m: &mut Model,
    slot: SystemLogsSlot,
    generation: u64,
    obs: SystemLogsObservation,
) -> Result<(), RejectReason> {
    let t = ticket(slot, generation);
    dispatch(m, t.clone());
    observe(m, SlotEvent::Observed(t, obs))
}

/// A whole window read of the seeded `seqs` at the default filters, admitted.
fn whole(m: &mut Model, generation: u64, seqs: &[u64], dropped: bool) {
    let obs = window(LogQuery::default(), Ok(page(seqs, dropped)));
    read(m, SystemLogsSlot::Window, generation, obs).unwrap();
}

fn press(ui: &mut Ui, m: &mut Model, code: KeyCode) -> UiCommand {
    let cmd = handle_key(ui, m, KeyEvent::new(code, KeyModifiers::NONE));
    if let Some(c) = cmd.as_send::<SystemLogsCommand>() {
        m.system_logs.on_command(c);
    }
    cmd
}

#[test]
fn s15_1_rows_newest_first_by_seq_with_the_header_masc_shows() {
    let mut m = model();
    let ui = ui();
    // Oldest first, as a newer server may answer: ordered by seq all the same.
    let seqs: Vec<u64> = (241..=260).collect();
    whole(&mut m, 1, &seqs, true);
    let text = screen_text(&m, &ui);
    assert!(
        text.contains("LOGS  level ≥ debug · category all  (20 of 260, seq 260)"),
        "{text}"
    );
    let at = |seq: &str| {
        text.find(&format!(" {seq} "))
            .unwrap_or_else(|| panic!("{seq}: {text}"))
    };
    assert!(at("260") < at("259") && at("259") < at("241"));
}

#[test]
fn s15_1_new_filters_reject_a_read_asked_under_the_old_ones() {
    let mut m = model();
    let mut ui = ui();
    whole(&mut m, 1, &[250, 251], false);
    let cmd = press(&mut ui, &mut m, KeyCode::Char('l'));
    let info = LogQuery {
        level: MinLevel::Info,
        ..LogQuery::default()
    };
    assert_eq!(
        cmd,
        UiCommand::send(SystemLogsCommand::Filters(info.clone()))
    );
    assert!(m.system_logs.is_empty(), "rows of other filters go");
    let late = read(
        &mut m,
        SystemLogsSlot::Window,
        2,
        window(LogQuery::default(), Ok(page(&[252], false))),
    );
    assert_eq!(late, Err(RejectReason::OtherTarget));
    read(
        &mut m,
        SystemLogsSlot::Window,
        3,
        window(info.clone(), Ok(page(&[253], false))),
    )
    .unwrap();
    assert_eq!(m.system_logs.len(), 1);
    // `c` cycles the category from every one to MASC's first.
    let cmd = press(&mut ui, &mut m, KeyCode::Char('c'));
    assert_eq!(
        cmd,
        UiCommand::send(SystemLogsCommand::Filters(LogQuery {
            category: Some("fsm".into()),
            ..info
        }))
    );
}

#[test]
fn s15_1_a_delta_merges_and_end_at_the_oldest_pages_back() {
    let mut m = model();
    let mut ui = ui();
    whole(&mut m, 1, &[250, 251, 252], true);
    let delta = LogQuery {
        since_seq: Some(252),
        ..LogQuery::default()
    };
    read(
        &mut m,
        SystemLogsSlot::Window,
        2,
        window(delta, Ok(page(&[253, 254], true))),
    )
    .unwrap();
    let held: Vec<u64> = m.system_logs.rows.keys().copied().collect();
    assert_eq!(held, vec![250, 251, 252, 253, 254]);
    assert_eq!(press(&mut ui, &mut m, KeyCode::End), UiCommand::Repaint);
    assert_eq!(ui.system().logs.selected, 4);
    assert_eq!(
        press(&mut ui, &mut m, KeyCode::End),
        UiCommand::send(SystemLogsCommand::Older { before_seq: 250 })
    );
    let older = SystemLogsObservation::Older(Box::new(LogsRead {
        query: LogQuery {
            before_seq: Some(250),
            ..LogQuery::default()
        },
        result: admitted(page(&[248, 249], true)),
    }));
    read(&mut m, SystemLogsSlot::Older, 1, older).unwrap();
    assert_eq!(m.system_logs.oldest_seq(), Some(248));
    press(&mut ui, &mut m, KeyCode::Char('G'));
    assert_eq!(ui.system().logs.selected, 6);
    press(&mut ui, &mut m, KeyCode::Home);
    assert_eq!(ui.system().logs.selected, 0);
}

#[test]
fn s15_1_enter_shows_the_row_whole_and_v_is_verbose() {
    let mut m = model();
    let mut ui = ui();
    // 250 is an ERROR row of the seed (with details), 251 a DEBUG one.
    whole(&mut m, 1, &[250, 251], false);
    let text = screen_text(&m, &ui);
    assert!(
        !text.contains("anthropic"),
        "details only in the detail: {text}"
    );
    press(&mut ui, &mut m, KeyCode::Char('v'));
    let text = screen_text(&m, &ui);
    assert!(text.contains("· turn "), "{text}");
    press(&mut ui, &mut m, KeyCode::Down);
    press(&mut ui, &mut m, KeyCode::Enter);
    let text = screen_text(&m, &ui);
    assert!(text.contains("LOG ROW 250"), "{text}");
    assert!(text.contains("\"provider\": \"anthropic\""), "{text}");
    press(&mut ui, &mut m, KeyCode::Esc);
    assert!(!screen_text(&m, &ui).contains("LOG ROW 250"));
}

#[test]
fn s15_1_a_failed_refresh_keeps_the_rows_and_an_evicted_window_says_so() {
    let mut m = model();
    let ui = ui();
    whole(&mut m, 1, &[250], true);
    let failed = window(
        LogQuery::default(),
        Err(ClientError::Status {
            status: 500,
            body: "ring locked".into(),
        }),
    );
    read(&mut m, SystemLogsSlot::Window, 2, failed).unwrap();
    let text = screen_text(&m, &ui);
    assert!(text.contains(" 250 "), "the row stays: {text}");
    assert!(text.contains("500"), "beside the failure: {text}");

    let mut m = model();
    whole(&mut m, 1, &[], true);
    let text = screen_text(&m, &ui);
    assert!(text.contains("older entries were evicted"), "{text}");
}
