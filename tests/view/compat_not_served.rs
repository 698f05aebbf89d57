#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! An older MASC on screen (ratatui `TestBackend`): a read whose route this MASC does not
//! serve is shown plainly on its surface — what is missing and what to do — never `degraded`,
//! never `0`, never `data unreliable`; the header lists the absent capabilities and stays
//! `connected`; Work › Tasks lists the goal-linked tasks and the task detail the legacy recent
//! events, both marked partial (A-3, A-4), and only when the primary route is not served;
//! connector channel ids show without names when the names route is absent.

use crate::rig::ScreensOf;
use crate::rig::SurfaceSlot;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use masc_tui::actors::connectors::{ConnectorsObservation, ConnectorsSlot};
use masc_tui::actors::connectors::{NamesChain, NamesPageRead};
use masc_tui::actors::contract::Ticket;
use masc_tui::actors::decisions::{DecisionsObservation, DecisionsSlot};
use masc_tui::actors::tools::{ToolsObservation, ToolsSlot};
use masc_tui::actors::work::{GoalLinkedTasks, WorkCommand, WorkObservation, WorkSlot};
use masc_tui::protocol::admission::AdmissionMode;
use masc_tui::protocol::client::{Admitted, ClientError};
use masc_tui::protocol::connectors::{ConnectorStatusList, NameScope};
use masc_tui::protocol::decode::WireDecode;
use masc_tui::protocol::goals::GoalsTree;
use masc_tui::protocol::routes::RouteFamily;
use masc_tui::protocol::tasks::{LegacyTaskEvents, TaskList};
use masc_tui::view::keys::{UiCommand, handle_key};
use masc_tui::view::model::{ConnectionState, Model};
use masc_tui::view::sample::{self, buffer_text};
use masc_tui::view::screens::system::SystemPane;
use masc_tui::view::screens::work::WorkPane;
use masc_tui::view::screens::work::detail::LEGACY_MARKER;
use masc_tui::view::screens::work::tasks::GOAL_LINKED_PARTIAL;
use masc_tui::view::screens::{ProjectionCtx, Tab, Ui, render};
use masc_tui::view::theme::Theme;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use std::sync::Arc;

const T: &str = "task-1013";

fn ticket<S>(slot: S, generation: u64) -> Ticket<S> {
    Ticket {
        slot,
        generation,
        scope: sample::scope(1),
    }
}

fn ok<T>(value: T) -> Result<Admitted<T>, ClientError> {
    Ok(Admitted {
        value: Arc::new(value),
        mode: AdmissionMode::Health,
        from_cache: false,
    })
}

fn not_served<T>(route: RouteFamily) -> Result<Admitted<T>, ClientError> {
    Err(ClientError::NotServed { route })
}

/// A model confirmed in health mode, as against MASC v0.24.0.
fn august() -> Model {
    let mut m = Model::default();
    m.on_identity(sample::confirmed(1, AdmissionMode::Health));
    m
}

fn deliver<S: SurfaceSlot + Clone>(m: &mut Model, slot: S, generation: u64, payload: S::Payload) {
    crate::rig::deliver(m, ticket(slot, generation), payload);
}

fn ui(tab: Tab, width: u16, height: u16) -> Ui {
    Ui {
        area: Rect::new(0, 0, width, height),
        tab,
        ..Ui::default()
    }
}

fn screen(m: &Model, ui: &Ui) -> String {
    let mut t = Terminal::new(TestBackend::new(ui.area.width, ui.area.height)).unwrap();
    let ctx = ProjectionCtx::now(Theme::plain());
    t.draw(|f| render(m, ui, &ctx, f.area(), f.buffer_mut()))
        .unwrap();
    buffer_text(t.backend().buffer())
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

/// The goals tree of MASC v0.24.0 with two goals linking three tasks (one twice).
fn linked() -> GoalLinkedTasks {
    let tree = GoalsTree::decode(
        br#"{"approval_queue_state":{"state":"ready"},"tree":[
          {"id":"goal-7","title":"Ship TUI","phase":"executing","tasks":[
             {"id":"task-1013","title":"Write decoder","status":"in_progress","priority":2,"assignee":"alpha","created_at":"2026-10-01T09:00:00Z","updated_at":"2026-10-02T10:00:00Z"},
             {"id":"task-1014","title":"Wire the view","status":"todo","priority":3}],
           "children":[{"id":"goal-8","title":"Docs","phase":"executing","tasks":[
             {"id":"task-1013","title":"Write decoder","status":"in_progress"},
             {"id":"task-1020","title":"Write the page","status":"done","priority":4,"assignee":"beta"}]}]}],
         "summary":{}}"#,
    )
    .unwrap();
    GoalLinkedTasks::from_tree(&tree)
}

/// Work › Tasks on MASC v0.24.0: the list route not served, the goal-linked tasks read.
fn tasks_from_goal_links() -> Model {
    let mut m = august();
    deliver(
        &mut m,
        WorkSlot::TaskList,
        1,
        WorkObservation::TaskList(not_served(RouteFamily::TaskList)),
    );
    deliver(
        &mut m,
        WorkSlot::GoalLinkedTasks,
        1,
        WorkObservation::GoalLinkedTasks(ok(linked())),
    );
    m
}

/// The header: routes this MASC does not serve are listed compactly and
/// the connection stays `connected`; a real failure beside them still reads `degraded`.
#[test]
fn issue13_header_lists_absent_routes_and_never_calls_them_degraded() {
    let mut m = tasks_from_goal_links();
    deliver(
        &mut m,
        ToolsSlot::SkillsCatalog,
        1,
        ToolsObservation::SkillsCatalog(not_served(RouteFamily::Skills)),
    );
    deliver(
        &mut m,
        DecisionsSlot::Asks,
        1,
        DecisionsObservation::Asks(not_served(RouteFamily::Asks)),
    );
    assert_eq!(m.connection(), ConnectionState::Connected);
    assert_eq!(
        m.not_served(),
        vec![
            RouteFamily::TaskList,
            RouteFamily::Skills,
            RouteFamily::Asks
        ]
    );
    let text = screen(&m, &ui(Tab::Keepers, 140, 20));
    let header = text.lines().nth(1).unwrap();
    assert!(header.contains("● connected"), "{header}");
    assert!(
        header.contains("not served: task list, skills, asks"),
        "{header}"
    );
    assert!(!text.contains("degraded"), "{text}");
    // Narrow: the count instead of the names, never cut mid-name.
    let narrow = screen(&m, &ui(Tab::Keepers, 70, 20));
    let header = narrow.lines().nth(1).unwrap();
    assert!(!header.contains("degraded"), "{header}");
    // A real failure of a served route still degrades the connection.
    deliver(
        &mut m,
        ToolsSlot::ToolsInventory,
        2,
        ToolsObservation::ToolsInventory(Err(ClientError::Timeout)),
    );
    assert_eq!(m.connection(), ConnectionState::Degraded);
    let text = screen(&m, &ui(Tab::Keepers, 160, 20));
    let header = text.lines().nth(1).unwrap();
    assert!(
        header.contains("◐ degraded") && header.contains("not served: task list, skills, asks"),
        "{header}"
    );
}

/// The Overview: an asks route this MASC does not serve reads "not served
/// by this MASC" with what to do — never `Asks 0 · data unreliable`.
#[test]
fn issue13_overview_says_not_served_instead_of_0_data_unreliable() {
    let mut m = august();
    deliver(
        &mut m,
        DecisionsSlot::Asks,
        1,
        DecisionsObservation::Asks(not_served(RouteFamily::Asks)),
    );
    deliver(
        &mut m,
        DecisionsSlot::Approvals,
        1,
        DecisionsObservation::Approvals(not_served(RouteFamily::OperatorSummary)),
    );
    let text = screen(&m, &ui(Tab::Overview, 130, 30));
    let asks = text.lines().find(|l| l.starts_with("Asks")).unwrap();
    assert!(
        asks.contains("not served by this MASC — upgrade MASC, or read open asks"),
        "{asks}"
    );
    let approvals = text.lines().find(|l| l.starts_with("Approvals")).unwrap();
    assert!(approvals.contains("not served by this MASC"), "{approvals}");
    for line in [asks, approvals] {
        assert!(
            !line.contains(" 0") && !line.contains("data unreliable"),
            "{line}"
        );
    }
    // Another failure keeps its own words (surfaces.md: a failed count reads `0 · data
    // unreliable`).
    deliver(
        &mut m,
        DecisionsSlot::Asks,
        2,
        DecisionsObservation::Asks(Err(ClientError::Timeout)),
    );
    let text = screen(&m, &ui(Tab::Overview, 130, 30));
    let asks = text.lines().find(|l| l.starts_with("Asks")).unwrap();
    assert!(asks.contains("0 · data unreliable (read failed: timeout)"));
}

/// System: Skills and async runs whose routes this MASC does not serve
/// say so with what to do, whole (wrapped, not cut), never `read failed`.
#[test]
fn issue13_skills_and_async_panes_say_what_is_missing_and_what_to_do() {
    let mut m = august();
    deliver(
        &mut m,
        ToolsSlot::SkillsCatalog,
        1,
        ToolsObservation::SkillsCatalog(not_served(RouteFamily::Skills)),
    );
    deliver(
        &mut m,
        ToolsSlot::AsyncRequests,
        1,
        ToolsObservation::AsyncRequests(not_served(RouteFamily::AsyncRequests)),
    );
    let pane = |pane| {
        let mut u = ui(Tab::System, 80, 20);
        u.system_mut().pane = pane;
        screen(&m, &u)
    };
    let skills = pane(SystemPane::Skills);
    let joined = skills.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        joined.contains(
            "skills catalogue: not served by this MASC — upgrade MASC to read the Skills catalogue."
        ),
        "{skills}"
    );
    assert!(
        joined
            .contains("Missing: GET /api/v1/skills (added in MASC releases newer than this one)."),
        "{skills}"
    );
    assert!(!skills.contains("read failed") && !skills.contains("data unreliable"));
    let asyncs = pane(SystemPane::AsyncRuns);
    assert!(
        asyncs
            .contains("async requests: not served by this MASC — upgrade MASC to read async runs")
    );
}

/// Work › Tasks fallback: where the task list route is not served the
/// goal-linked tasks are listed, marked partial, each once with every goal that links it;
/// Enter opens the selected one.
#[test]
fn issue13_work_tasks_lists_the_goal_linked_tasks_marked_partial() {
    let m = tasks_from_goal_links();
    let mut u = ui(Tab::Work, 110, 24);
    u.work_mut().pane = WorkPane::Tasks;
    let text = screen(&m, &u);
    assert!(text.contains("TASKS (from goal links)  3"), "{text}");
    assert!(
        text.contains("task list: not served by this MASC — upgrade MASC for the full list"),
        "{text}"
    );
    assert!(text.contains(GOAL_LINKED_PARTIAL), "{text}");
    assert!(text.contains("2 goals read"));
    let row = text.lines().find(|l| l.contains("task-1013")).unwrap();
    assert!(
        row.contains("in_progress")
            && row.contains("Write decoder")
            && row.contains("goal-7,goal-8"),
        "{row}"
    );
    let unprioritised = text.lines().find(|l| l.contains("task-1020")).unwrap();
    assert!(unprioritised.contains("P4") && unprioritised.contains("beta"));
    assert!(!text.contains("read failed") && !text.contains("no tasks"));
    // j, Enter: the second goal-linked task opens.
    let mut u = u;
    assert_eq!(
        handle_key(&mut u, &m, key(KeyCode::Char('j'))),
        UiCommand::Repaint
    );
    match handle_key(&mut u, &m, key(KeyCode::Enter))
        .as_send::<WorkCommand>()
        .cloned()
    {
        Some(WorkCommand::OpenTask { task_id, .. }) => assert_eq!(task_id, "task-1014"),
        other => panic!("Enter: {other:?}"),
    }
}

/// The fallback is chosen only when the list route is known not served — a list
/// read failing any other way shows its failure, never the goal-linked list (even one read
/// earlier); a first read still pending shows "reading", not the fallback.
#[test]
fn issue13_the_goal_linked_list_is_never_shown_for_another_failure() {
    let mut m = tasks_from_goal_links();
    deliver(
        &mut m,
        WorkSlot::TaskList,
        2,
        WorkObservation::TaskList(Err(ClientError::Status {
            status: 500,
            body: String::new(),
        })),
    );
    let mut u = ui(Tab::Work, 110, 24);
    u.work_mut().pane = WorkPane::Tasks;
    let text = screen(&m, &u);
    assert!(
        text.contains("task list: read failed (status_500)"),
        "{text}"
    );
    assert!(!text.contains("from goal links") && !text.contains("task-1013"));
    // Served again: the list itself.
    let list = TaskList::decode(br#"{"schema":"masc.task_list.v1","sources":{"backlog":{"state":"read"},"archive":{"state":"read"},"goal_links":{"state":"read"}},"tasks":[{"id":"task-1","title":"Only","status":"todo","priority":1,"assignee":null,"created_at":"2026-10-01T09:00:00Z","completed_at":null,"archived":false,"goal_ids":[]}]}"#).unwrap();
    deliver(
        &mut m,
        WorkSlot::TaskList,
        3,
        WorkObservation::TaskList(ok(list)),
    );
    let text = screen(&m, &u);
    assert!(text.contains("coverage: backlog read"), "{text}");
    assert!(!text.contains("from goal links"));
}

/// A-3/A-4: where the history page route is not served the legacy recent events
/// show, marked "not the full history, no older pages"; `H` asks nothing; the body says the
/// task detail route is not served and shows what the goal links know of the task.
#[test]
fn issue13_a3_a4_task_detail_shows_legacy_recent_events_marked_partial() {
    let mut m = tasks_from_goal_links();
    m.work.on_command(&WorkCommand::OpenTask {
        task_id: T.into(),
        page_rows: 20,
    });
    deliver(
        &mut m,
        WorkSlot::TaskBody(T.into()),
        1,
        WorkObservation::TaskBody(not_served(RouteFamily::TaskDetail)),
    );
    let base = Arc::new(masc_tui::actors::work::HistoryChain::fresh(T));
    let request = base.next_request(20).unwrap();
    deliver(
        &mut m,
        WorkSlot::TaskHistory(T.into()),
        1,
        WorkObservation::TaskHistory(Box::new(masc_tui::actors::work::HistoryPageRead {
            base,
            request,
            result: not_served(RouteFamily::TaskHistoryPage),
        })),
    );
    let mut u = ui(Tab::Work, 110, 32);
    u.work_mut().pane = WorkPane::Tasks;
    u.work_mut().tasks.open = Some(T.into());
    let reading = screen(&m, &u);
    assert!(reading.contains(LEGACY_MARKER), "{reading}");
    assert!(reading.contains("not read yet"), "{reading}");
    let events = LegacyTaskEvents::decode_for(
        br#"[{"ts":"2026-10-08T10:00:00Z","type":"task_transition","task":"task-1013","from_status":"in_progress","to_status":"done","agent":"alpha"},{"ts":"2026-10-07T09:00:00Z","action":"claim","task_id":"task-1013","agent":"alpha"}]"#,
        T,
    )
    .unwrap();
    deliver(
        &mut m,
        WorkSlot::TaskHistoryLegacy(T.into()),
        1,
        WorkObservation::TaskHistoryLegacy(ok(events)),
    );
    let text = screen(&m, &u);
    let status = text.lines().find(|l| l.contains("HISTORY")).unwrap();
    assert!(
        status.contains(LEGACY_MARKER) && status.contains("2 recent events"),
        "{status}"
    );
    assert!(
        text.contains(
            "task history pages: not served by this MASC — upgrade MASC for paged history"
        ),
        "{text}"
    );
    assert!(!status.contains("end of stored history") && !status.contains("H reads"));
    assert!(text.contains("2026-10-08 10:00 task_transition in_progress → done · alpha"));
    assert!(text.contains("2026-10-07 09:00 claim · alpha"));
    // The body: not served, what to do, then the goal links' row.
    assert!(
        text.contains("task body: not served by this MASC — upgrade MASC for the task body"),
        "{text}"
    );
    assert!(text.contains("from goal links (not the task body):"));
    assert!(text.contains("in_progress · P2 · alpha · goals goal-7, goal-8"));
    assert!(!text.contains("read failed"));
    // `H`: no older pages exist in the legacy array; nothing is asked.
    assert_eq!(
        handle_key(&mut u, &m, key(KeyCode::Char('H'))),
        UiCommand::None
    );
    // A history page failing any other way keeps the page route's words, never the legacy
    // array (A-3).
    let base = Arc::new(masc_tui::actors::work::HistoryChain::fresh(T));
    let request = base.next_request(20).unwrap();
    deliver(
        &mut m,
        WorkSlot::TaskHistory(T.into()),
        2,
        WorkObservation::TaskHistory(Box::new(masc_tui::actors::work::HistoryPageRead {
            base,
            request,
            result: Err(ClientError::Timeout),
        })),
    );
    let text = screen(&m, &u);
    let status = text.lines().find(|l| l.contains("HISTORY")).unwrap();
    assert!(
        status.contains("history: read failed (timeout)"),
        "{status}"
    );
    assert!(!text.contains(LEGACY_MARKER) && !text.contains("claim · alpha"));
    assert!(matches!(
        handle_key(&mut u, &m, key(KeyCode::Char('H'))).as_send::<WorkCommand>(),
        Some(WorkCommand::OlderHistory { .. })
    ));
}

/// Connectors: where the names route is absent, channel ids show
/// without names and say why; every scope reads "not served", also for a connector whose
/// chains the source never started (the route was already known absent).
#[test]
fn issue13_d5_connector_ids_show_without_names_when_the_names_route_is_absent() {
    let status = br#"{"connectors":[{"connector_id":"discord","display_name":"Discord","status":"connected","available":true,"connected":true,"configured_bindings":[{"channel_id":"111","keeper_name":"rondo"}]},{"connector_id":"slack","display_name":"Slack","status":"connected","available":true,"connected":true,"configured_bindings":[{"channel_id":"C42","keeper_name":"alpha"}]}],"total":2,"active_count":2}"#;
    let mut m = august();
    deliver(
        &mut m,
        ConnectorsSlot::Status,
        1,
        ConnectorsObservation::Status(ok(ConnectorStatusList::decode(status).unwrap())),
    );
    for scope in [NameScope::Server, NameScope::Channel, NameScope::Person] {
        let name = match scope {
            NameScope::Server => "server",
            NameScope::Channel => "channel",
            NameScope::Person => "person",
        };
        deliver(
            &mut m,
            ConnectorsSlot::Names {
                connector: "discord".into(),
                scope: name.into(),
            },
            1,
            ConnectorsObservation::Names(Box::new(NamesPageRead {
                base: Arc::new(NamesChain::fresh("discord", scope)),
                result: not_served(RouteFamily::ConnectorNames),
            })),
        );
    }
    let mut u = ui(Tab::System, 120, 30);
    u.system_mut().pane = SystemPane::Connectors;
    let text = screen(&m, &u);
    assert!(
        text.contains(
            "connector names: not served by this MASC — channel ids are shown without names"
        ),
        "{text}"
    );
    assert!(
        text.contains("111 (name unknown: this MASC does not serve the names route) → rondo"),
        "{text}"
    );
    assert!(
        text.contains("C42 (name unknown: this MASC does not serve the names route) → alpha"),
        "slack had no chain: {text}"
    );
    let names: Vec<&str> = text
        .lines()
        .filter(|l| l.trim_start().starts_with("names  "))
        .collect();
    assert_eq!(names.len(), 2, "{text}");
    for line in names {
        assert!(
            line.contains("server: not served · channel: not served · person: not served"),
            "{line}"
        );
    }
    assert!(!text.contains("read failed"));
    assert_eq!(m.connection(), ConnectionState::Connected);
    assert_eq!(m.not_served(), vec![RouteFamily::ConnectorNames]);
}
