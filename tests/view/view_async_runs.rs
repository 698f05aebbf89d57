#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! The async runs pane without a terminal (`TestBackend`) and without actors: selection by
//! identity (T-6, T-7), the explicit id lookup (T-8), the request detail's distinct states
//! (T-10, T-13) and the way to the source Task and back (A-16, A-17).

use crate::rig::ScreensOf;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use masc_tui::actors::contract::Ticket;
use masc_tui::actors::tools::{
    AsyncDetailRead, HeldRequest, ToolsCommand, ToolsObservation, ToolsSlot,
};
use masc_tui::actors::work::WorkCommand;
use masc_tui::protocol::admission::AdmissionMode;
use masc_tui::protocol::async_requests::{AsyncRequestDetail, AsyncRequestList};
use masc_tui::protocol::client::{Admitted, ClientError};
use masc_tui::protocol::decode::WireDecode;
use masc_tui::view::keys::{UiCommand, handle_key};
use masc_tui::view::model::Model;
use masc_tui::view::sample::{self, buffer_text};
use masc_tui::view::screens::system::SystemPane;
use masc_tui::view::screens::{ProjectionCtx, Tab, Ui, render};
use masc_tui::view::theme::Theme;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use std::sync::Arc;

fn row(id: &str, by: &str, keeper: &str) -> String {
    format!(
        r#"{{"request_id":"{id}","keeper_name":"{keeper}","submitted_by":"{by}","status":"running","submitted_at":1787000000.0,"elapsed_sec":2.5,"worker_ownership":"runtime_owned"}}"#
    )
}

fn list(rows: &[String]) -> AsyncRequestList {
    let body = format!(
        r#"{{"schema":"masc.async-request-observation/v1","status":"ready","startup_recovery":null,"record_errors":[],"summary":{{"active":{n},"runtime_owned":{n},"ownership_unknown":0,"record_errors":0}},"requests":[{}]}}"#,
        rows.join(","),
        n = rows.len()
    );
    AsyncRequestList::decode(body.as_bytes()).unwrap()
}

const OBSERVED: &str = r#"{"state":"observed","owner":"rondo","terminal_decision":null}"#;

fn detail(
    id: &str,
    by: &str,
    keeper: &str,
    physical: &str,
    run: &str,
    logical: &str,
) -> AsyncRequestDetail {
    let body = format!(
        r#"{{"schema":"masc.async_request.v1","request_id":"{id}","submitted_by":"{by}","target_keeper":"{keeper}","physical":{physical},"run":{run},"logical":{logical}}}"#
    );
    AsyncRequestDetail::decode(body.as_bytes()).unwrap()
}

fn ok<T>(value: T) -> Result<Admitted<T>, ClientError> {
    Ok(Admitted {
        value: Arc::new(value),
        mode: AdmissionMode::Receipt,
        from_cache: false,
    })
}

fn model() -> Model {
    let mut m = Model::default();
    m.on_identity(sample::confirmed(1, AdmissionMode::Receipt));
    m
}

fn deliver_list(m: &mut Model, generation: u64, l: AsyncRequestList) {
    crate::rig::deliver(
        m,
        Ticket {
            slot: ToolsSlot::AsyncRequests,
            generation,
            scope: sample::scope(1),
        },
        ToolsObservation::AsyncRequests(ok(l)),
    );
}

fn deliver_detail(
    m: &mut Model,
    generation: u64,
    held: Option<HeldRequest>,
    d: AsyncRequestDetail,
) {
    let request_id = d.request_id.clone();
    crate::rig::deliver(
        m,
        Ticket {
            slot: ToolsSlot::AsyncRequest(request_id.clone()),
            generation,
            scope: sample::scope(1),
        },
        ToolsObservation::AsyncRequest(Box::new(AsyncDetailRead {
            request_id,
            held,
            result: ok(d),
        })),
    );
}

fn ui() -> Ui {
    Ui {
        area: Rect::new(0, 0, 120, 30),
        tab: Tab::System,
        ..Ui::default()
    }
    .with_screen(masc_tui::view::screens::system::SystemUi {
        pane: SystemPane::AsyncRuns,
        ..Default::default()
    })
}

fn screen(m: &Model, ui: &Ui) -> String {
    let mut t = Terminal::new(TestBackend::new(120, 30)).unwrap();
    let ctx = ProjectionCtx::now(Theme::plain());
    t.draw(|f| render(m, ui, &ctx, f.area(), f.buffer_mut()))
        .unwrap();
    buffer_text(t.backend().buffer())
}

fn key(ui: &mut Ui, m: &mut Model, code: KeyCode) -> UiCommand {
    let cmd = handle_key(ui, m, KeyEvent::new(code, KeyModifiers::NONE));
    // What the view actor does first for a Tools or Work command.
    if let Some(c) = cmd.as_send::<ToolsCommand>() {
        m.tools.on_command(c);
    }
    if let Some(c) = cmd.as_send::<WorkCommand>() {
        m.work.on_command(c);
    }
    cmd
}

fn held(by: &str, target: &str) -> Option<HeldRequest> {
    Some(HeldRequest {
        submitted_by: by.into(),
        target_keeper: target.into(),
    })
}

/// T-6, T-7: `J` selects by identity; `Enter` opens that original with its requester and
/// target; when the request leaves the list, neither the open detail nor the selection moves
/// to another row, and the list says the selected request is gone.
#[test]
fn t7_a_request_leaving_the_list_moves_neither_selection_nor_detail() {
    let mut m = model();
    let mut ui = ui();
    deliver_list(
        &mut m,
        1,
        list(&[
            row("kmsg-a", "operator", "rondo"),
            row("kmsg-b", "masc-tui", "sangsu"),
        ]),
    );
    key(&mut ui, &mut m, KeyCode::Char('J'));
    key(&mut ui, &mut m, KeyCode::Char('J'));
    let cmd = key(&mut ui, &mut m, KeyCode::Enter);
    assert_eq!(
        cmd,
        UiCommand::send(ToolsCommand::OpenRequest {
            request_id: "kmsg-b".into(),
            held: held("masc-tui", "sangsu"),
        })
    );
    deliver_detail(
        &mut m,
        1,
        held("masc-tui", "sangsu"),
        detail(
            "kmsg-b",
            "masc-tui",
            "sangsu",
            r#"{"state":"running","result":null}"#,
            "null",
            OBSERVED,
        ),
    );
    // kmsg-b leaves the active list; a new row takes its place.
    deliver_list(
        &mut m,
        2,
        list(&[
            row("kmsg-a", "operator", "rondo"),
            row("kmsg-c", "operator", "juno"),
        ]),
    );
    let shown = screen(&m, &ui);
    assert!(shown.contains("REQUEST kmsg-b"), "{shown}");
    assert!(shown.contains("masc-tui → sangsu"), "{shown}");
    assert!(!shown.contains("kmsg-c"), "{shown}");
    let cmd = key(&mut ui, &mut m, KeyCode::Esc);
    assert_eq!(cmd, UiCommand::send(ToolsCommand::CloseRequest));
    let shown = screen(&m, &ui);
    assert!(
        shown.contains("kmsg-b (masc-tui → sangsu) is no longer in the active list"),
        "{shown}"
    );
    assert_eq!(
        ui.system()
            .asyncs
            .selected
            .as_ref()
            .map(|s| s.request_id.as_str()),
        Some("kmsg-b")
    );
}

/// T-8: `o` takes an explicit id; `Esc` keeps the draft for the next `o`; `Enter` looks it
/// up holding no requester or target; with the workspace withdrawn no lookup starts.
#[test]
fn t8_the_lookup_keeps_its_draft_fills_nothing_and_needs_authority() {
    let mut m = model();
    let mut ui = ui();
    key(&mut ui, &mut m, KeyCode::Char('o'));
    for c in "kmsg-9".chars() {
        key(&mut ui, &mut m, KeyCode::Char(c));
    }
    key(&mut ui, &mut m, KeyCode::Esc);
    assert!(!ui.system().asyncs.lookup.typing);
    // Reopened, the kept draft is selected: `End` edits it in place (typing would replace it).
    key(&mut ui, &mut m, KeyCode::Char('o'));
    assert!(ui.system().asyncs.lookup.draft.is_selected());
    key(&mut ui, &mut m, KeyCode::End);
    key(&mut ui, &mut m, KeyCode::Char('x'));
    assert_eq!(ui.system().asyncs.lookup.draft.text(), "kmsg-9x");
    m.on_identity(masc_tui::actors::contract::IdentityState::Unconfirmed {
        reason: "health read failed".into(),
    });
    let cmd = key(&mut ui, &mut m, KeyCode::Enter);
    assert!(cmd.as_send::<ToolsCommand>().is_none(), "{cmd:?}");
    assert_eq!(ui.system().asyncs.lookup.draft.text(), "kmsg-9x");
    let mut m = model();
    let cmd = key(&mut ui, &mut m, KeyCode::Enter);
    assert_eq!(
        cmd,
        UiCommand::send(ToolsCommand::OpenRequest {
            request_id: "kmsg-9x".into(),
            held: None,
        })
    );
}

/// T-10, T-13: physical failure, the logical terminal decision and an unobservable logical
/// state are different lines; a later answer whose logical part is unavailable keeps the
/// earlier observation, marked not latest.
#[test]
fn t10_t13_physical_logical_and_unobservable_are_distinct_and_not_latest_is_said() {
    let mut m = model();
    let mut ui = ui();
    ui.system_mut().asyncs.open = Some("kmsg-3b11".into());
    m.tools.on_command(&ToolsCommand::OpenRequest {
        request_id: "kmsg-3b11".into(),
        held: None,
    });
    deliver_detail(
        &mut m,
        1,
        None,
        detail(
            "kmsg-3b11",
            "masc-tui",
            "juno",
            r#"{"state":"failed","result":{"error":"meta"}}"#,
            r#"{"run_id":"kmsg-3b11","source_task_id":null}"#,
            r#"{"state":"observed","owner":"juno","terminal_decision":{"decision":"failed","decided_at":1.0,"reason":"keeper turn failed"}}"#,
        ),
    );
    let shown = screen(&m, &ui);
    assert!(shown.contains("physical: failed"), "{shown}");
    assert!(
        shown.contains("logical: owner juno · terminal decision failed"),
        "{shown}"
    );
    assert!(shown.contains("source Task none"), "{shown}");
    deliver_detail(
        &mut m,
        2,
        None,
        detail(
            "kmsg-3b11",
            "masc-tui",
            "juno",
            r#"{"state":"failed","result":{"error":"meta"}}"#,
            r#"{"run_id":"kmsg-3b11","source_task_id":null}"#,
            r#"{"state":"unavailable","reason":"ledger unreadable"}"#,
        ),
    );
    let shown = screen(&m, &ui);
    assert!(
        shown.contains("logical: unobservable now (ledger unreadable)"),
        "{shown}"
    );
    assert!(shown.contains("logical (not latest, observed"), "{shown}");
    assert!(shown.contains("terminal decision failed"), "{shown}");
}

/// A-16, A-17: `t` opens a Task only from the confirmed run's `source_task_id`; without a
/// run it says so and opens nothing. `Esc` goes Task → request → list.
#[test]
fn a16_a17_the_source_task_only_from_a_confirmed_run_and_esc_twice_back() {
    let mut m = model();
    let mut ui = ui();
    deliver_list(&mut m, 1, list(&[row("kmsg-7f3a", "operator", "rondo")]));
    key(&mut ui, &mut m, KeyCode::Char('J'));
    key(&mut ui, &mut m, KeyCode::Enter);
    deliver_detail(
        &mut m,
        1,
        held("operator", "rondo"),
        detail(
            "kmsg-7f3a",
            "operator",
            "rondo",
            r#"{"state":"pending","result":null}"#,
            "null",
            OBSERVED,
        ),
    );
    let cmd = key(&mut ui, &mut m, KeyCode::Char('t'));
    assert!(cmd.as_send::<WorkCommand>().is_none(), "{cmd:?}");
    assert_eq!(
        ui.notice.text.as_deref(),
        Some("no confirmed run with a source Task")
    );
    assert!(screen(&m, &ui).contains("physical: waiting (pending)"));
    deliver_detail(
        &mut m,
        2,
        held("operator", "rondo"),
        detail(
            "kmsg-7f3a",
            "operator",
            "rondo",
            r#"{"state":"running","result":null}"#,
            r#"{"run_id":"kmsg-7f3a","source_task_id":"task-1013"}"#,
            OBSERVED,
        ),
    );
    let cmd = key(&mut ui, &mut m, KeyCode::Char('t'));
    assert!(
        matches!(cmd.as_send::<WorkCommand>(), Some(WorkCommand::OpenTask { task_id, .. }) if task_id == "task-1013"),
        "{cmd:?}"
    );
    assert!(screen(&m, &ui).contains("TASK task-1013"));
    assert_eq!(
        key(&mut ui, &mut m, KeyCode::Esc),
        UiCommand::send(WorkCommand::CloseTask)
    );
    assert!(screen(&m, &ui).contains("REQUEST kmsg-7f3a"));
    assert_eq!(
        key(&mut ui, &mut m, KeyCode::Esc),
        UiCommand::send(ToolsCommand::CloseRequest)
    );
    let shown = screen(&m, &ui);
    assert!(
        shown.contains("ASYNC RUNS") && !shown.contains("REQUEST"),
        "{shown}"
    );
    // Re-entering opens a fresh request: no value of the earlier open is shown (A-17).
    key(&mut ui, &mut m, KeyCode::Enter);
    let open = m.tools.request.as_ref().unwrap();
    assert!(open.detail.fetched.last().is_none() && open.logical.is_none());
}

/// T-12: a pane change closes the open request.
#[test]
fn t12_a_pane_change_closes_the_request() {
    let mut m = model();
    let mut ui = ui();
    deliver_list(&mut m, 1, list(&[row("kmsg-7f3a", "operator", "rondo")]));
    key(&mut ui, &mut m, KeyCode::Char('J'));
    key(&mut ui, &mut m, KeyCode::Enter);
    assert!(m.tools.request.is_some());
    let cmd = key(&mut ui, &mut m, KeyCode::Char('p'));
    assert_eq!(cmd, UiCommand::send(ToolsCommand::CloseRequest));
    assert_eq!(ui.system().pane, SystemPane::Connectors);
    assert!(m.tools.request.is_none() && ui.system().asyncs.open.is_none());
}
