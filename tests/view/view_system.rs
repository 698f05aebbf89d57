#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! The System surface without a terminal (`TestBackend`): each pane says what its own slot
//! knows (T-3), the tool count only with a settled inventory (T-4), closed non-ready states
//! never read as empty (§6.2, §6.3, G-5), and the Runtime catalogue and usage stand apart (F-4).

use crate::rig::ScreensOf;
use crate::rig::SurfaceSlot;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use masc_tui::actors::connectors::{CONNECTORS, ConnectorsObservation, ConnectorsSlot};
use masc_tui::actors::contract::Ticket;
use masc_tui::actors::decisions::{DecisionsObservation, DecisionsSlot};
use masc_tui::actors::runtime::{RUNTIME, RuntimeLoad};
use masc_tui::actors::runtime::{RuntimeObservation, RuntimeSlot};
use masc_tui::actors::tools::{TOOLS, ToolsObservation, ToolsSlot};
use masc_tui::actors::work::{WorkObservation, WorkSlot};
use masc_tui::protocol::admission::AdmissionMode;
use masc_tui::protocol::async_requests::AsyncRequestList;
use masc_tui::protocol::client::{Admitted, ClientError};
use masc_tui::protocol::decode::{DecodeError, DecodeErrorKind, WireDecode};
use masc_tui::protocol::runtime::{ProviderUsage, RuntimeResolved};
use masc_tui::protocol::skills::SkillsSnapshotRead;
use masc_tui::protocol::tools::ToolsInventoryRead;
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

const INVENTORY: &str = r#"{"generated_at":"2026-08-23T09:00:00Z","tool_inventory":{"count":1,"surface_summary":{},"tools":[{"name":"masc_board_post","description":"Post to the board","registered_schema":true,"dispatch_registered":true,"direct_call_allowed":true,"surfaces":["public_mcp"],"doc_refs":[],"prompt_hints":[]}]},"tool_usage":{},"effective_keeper_surface":null,"skill_activations":null}"#;

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
        mode: AdmissionMode::Receipt,
        from_cache: false,
    })
}

fn model() -> Model {
    let mut m = Model::default();
    m.on_identity(sample::confirmed(1, AdmissionMode::Receipt));
    m
}

fn deliver<S: SurfaceSlot + Clone>(m: &mut Model, slot: S, generation: u64, payload: S::Payload) {
    crate::rig::deliver(m, ticket(slot, generation), payload);
}

fn pane(m: &Model, pane: SystemPane) -> String {
    let ui = Ui {
        area: Rect::new(0, 0, 120, 30),
        tab: Tab::System,
        ..Ui::default()
    }
    .with_screen(masc_tui::view::screens::system::SystemUi {
        pane,
        ..Default::default()
    });
    let mut t = Terminal::new(TestBackend::new(120, 30)).unwrap();
    let ctx = ProjectionCtx::now(Theme::plain());
    t.draw(|f| render(m, &ui, &ctx, f.area(), f.buffer_mut()))
        .unwrap();
    buffer_text(t.backend().buffer())
}

/// T-4, G-5: unread, warming and failed inventories never show a tool count; a settled one
/// does.
#[test]
fn t4_the_tool_count_appears_only_with_a_settled_inventory() {
    let mut m = model();
    let unread = pane(&m, SystemPane::Tools);
    assert!(unread.contains("tool inventory: (not loaded yet)"));
    assert!(!unread.contains("registered"));
    deliver(
        &mut m,
        ToolsSlot::ToolsInventory,
        1,
        ToolsObservation::ToolsInventory(ok(ToolsInventoryRead::Warming { generated_at: None })),
    );
    let warming = pane(&m, SystemPane::Tools);
    assert!(warming.contains("not 0 tools") && !warming.contains("registered"));
    deliver(
        &mut m,
        ToolsSlot::ToolsInventory,
        2,
        ToolsObservation::ToolsInventory(ok(
            ToolsInventoryRead::decode(INVENTORY.as_bytes()).unwrap()
        )),
    );
    let settled = pane(&m, SystemPane::Tools);
    assert!(settled.contains("ALL TOOLS  1 registered") && settled.contains("masc_board_post"));
    // T-14: a failed re-check keeps the last list beside the failure.
    deliver(
        &mut m,
        ToolsSlot::ToolsInventory,
        3,
        ToolsObservation::ToolsInventory(Err(ClientError::Timeout)),
    );
    let failed = pane(&m, SystemPane::Tools);
    assert!(failed.contains("masc_board_post") && failed.contains("read failed: timeout"));
}

/// §6.2, G-5: the closed non-ready Skills states read as what they are, never as an empty
/// catalogue, and differently from each other.
#[test]
fn s6_2_skills_states_are_never_an_empty_catalogue() {
    let texts: Vec<String> = [
        SkillsSnapshotRead::NotRegistered,
        SkillsSnapshotRead::Uninitialized,
        SkillsSnapshotRead::InvalidWorkspace,
    ]
    .into_iter()
    .map(|state| {
        let mut m = model();
        deliver(
            &mut m,
            ToolsSlot::SkillsCatalog,
            1,
            ToolsObservation::SkillsCatalog(ok(state)),
        );
        pane(&m, SystemPane::Skills)
    })
    .collect();
    for (i, a) in texts.iter().enumerate() {
        assert!(
            !a.contains("no skill surfaces") && !a.contains("0 surfaces"),
            "{a}"
        );
        for b in &texts[i + 1..] {
            assert_ne!(a, b);
        }
    }
}

/// §6.3, T-2: an unavailable async-request observation is not an empty queue, and it leaves
/// the sibling panes alone.
#[test]
fn s6_3_unavailable_async_requests_are_not_an_empty_queue() {
    let mut m = model();
    let body = br#"{"schema":"masc.async-request-observation/v1","status":"unavailable","startup_recovery":null,"error":{"kind":"access_rejected","reason":"admin token required"}}"#;
    deliver(
        &mut m,
        ToolsSlot::AsyncRequests,
        1,
        ToolsObservation::AsyncRequests(ok(AsyncRequestList::decode(body).unwrap())),
    );
    let text = pane(&m, SystemPane::AsyncRuns);
    assert!(text.contains("access rejected: admin token required"));
    assert!(!text.contains("no active async requests"));
    assert!(pane(&m, SystemPane::Tools).contains("tool inventory: (not loaded yet)"));
}

/// F-4: a catalogue decode error does not hide readable usage, and the reverse.
#[test]
fn f4_catalogue_and_usage_stand_apart() {
    let bad = |path: &str| DecodeError::new(DecodeErrorKind::InvalidValue, path, "bad section");
    let usage = ProviderUsage {
        provider_usage_windows_since: 1_790_179_140.2,
        provider_usage_windows: Vec::new(),
    };
    let mut m = model();
    deliver(
        &mut m,
        RuntimeSlot::Catalogue,
        1,
        RuntimeObservation::Catalogue(Box::new(RuntimeLoad {
            resolved: ok(RuntimeResolved {
                catalogue: Err(bad(".lanes[0]")),
                usage: Ok(masc_tui::protocol::decode::SinceRelease::Sent(usage)),
            }),
            probe: Err(ClientError::Timeout),
            forced: false,
        })),
    );
    let text = pane(&m, SystemPane::Runtime);
    assert!(text.contains("catalogue unreadable") && text.contains(".lanes[0]"));
    assert!(text.contains("USAGE  0 accounts"), "{text}");
}

/// `p` cycles the panes; `r` re-reads the pane's own source (the Tools source for the three
/// Tools panes, the catalogue for Runtime).
#[test]
fn p_cycles_panes_and_r_names_the_panes_source() {
    let m = model();
    let mut ui = Ui {
        area: Rect::new(0, 0, 120, 30),
        tab: Tab::System,
        ..Ui::default()
    };
    let key = |c| KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE);
    assert_eq!(
        handle_key(&mut ui, &m, key('r')),
        UiCommand::Refresh(RUNTIME)
    );
    handle_key(&mut ui, &m, key('p'));
    assert_eq!(ui.system().pane, SystemPane::Tools);
    assert_eq!(handle_key(&mut ui, &m, key('r')), UiCommand::Refresh(TOOLS));
    handle_key(&mut ui, &m, key('P'));
    handle_key(&mut ui, &m, key('P'));
    assert_eq!(ui.system().pane, SystemPane::Sources, "P wraps backwards");
    assert_eq!(
        handle_key(&mut ui, &m, key('r')),
        UiCommand::Refresh(masc_tui::actors::source_stats::SOURCE_STATS)
    );
    handle_key(&mut ui, &m, key('P'));
    assert_eq!(ui.system().pane, SystemPane::Logs);
    assert_eq!(
        handle_key(&mut ui, &m, key('r')),
        UiCommand::Refresh(masc_tui::actors::system_logs::SYSTEM_LOGS)
    );
    handle_key(&mut ui, &m, key('P'));
    assert_eq!(ui.system().pane, SystemPane::Usage);
    assert_eq!(handle_key(&mut ui, &m, key('r')), UiCommand::Refresh(TOOLS));
    for _ in 0..3 {
        handle_key(&mut ui, &m, key('P'));
    }
    assert_eq!(ui.system().pane, SystemPane::Connectors);
    assert_eq!(
        handle_key(&mut ui, &m, key('r')),
        UiCommand::Refresh(CONNECTORS)
    );
}

/// D-5, D-6 on screen: bindings are usable from the status alone (`id (name unknown)`); a
/// chain's names resolve them as they arrive; reading, complete and failed-after-N-pages are
/// separate stages, and a failure keeps the pages already read.
#[test]
fn d5_d6_bindings_first_then_names_by_stage() {
    use masc_tui::actors::connectors::{NamesChain, NamesPageRead};
    use masc_tui::protocol::connectors::{ConnectorStatusList, NameMapping, NameScope};
    let status = r#"{"connectors":[{"connector_id":"discord","display_name":"Discord","status":"connected","available":true,"connected":true,"configured_bindings":[{"channel_id":"111","keeper_name":"rondo"},{"channel_id":"999","keeper_name":"하늘"}]}],"total":1,"active_count":1,"generated_at":"2026-09-20T10:00:00Z"}"#.as_bytes();
    let mut m = model();
    deliver(
        &mut m,
        ConnectorsSlot::Status,
        1,
        ConnectorsObservation::Status(ok(ConnectorStatusList::decode(status).unwrap())),
    );
    let early = pane(&m, SystemPane::Connectors);
    assert!(early.contains("Discord  CONNECTED  2 bindings"));
    assert!(early.contains("111 (name unknown) → rondo"), "{early}");
    assert!(early.contains("channel: not read"));
    let key = ConnectorsSlot::Names {
        connector: "discord".into(),
        scope: "channel".into(),
    };
    let mut first = NamesChain::fresh("discord", NameScope::Channel);
    first.mappings = vec![NameMapping {
        id: "111".into(),
        name: "general".into(),
    }];
    first.pages_read = 1;
    first.next_after_id = Some("111".into());
    let first = Arc::new(first);
    deliver(
        &mut m,
        key.clone(),
        2,
        ConnectorsObservation::Names(Box::new(NamesPageRead {
            base: Arc::new(NamesChain::fresh("discord", NameScope::Channel)),
            result: ok(first.as_ref().clone()),
        })),
    );
    let reading = pane(&m, SystemPane::Connectors);
    assert!(reading.contains("#general (111) → rondo"));
    assert!(reading.contains("999 (name unknown) → 하늘"));
    assert!(
        reading.contains("channel: reading… 1 so far (1 page)"),
        "{reading}"
    );
    deliver(
        &mut m,
        key,
        3,
        ConnectorsObservation::Names(Box::new(NamesPageRead {
            base: first,
            result: Err(ClientError::Status {
                status: 500,
                body: String::new(),
            }),
        })),
    );
    let failed = pane(&m, SystemPane::Connectors);
    assert!(
        failed.contains("channel: 1 kept, read failed (status_500) after 1 page"),
        "{failed}"
    );
    assert!(
        failed.contains("#general (111) → rondo"),
        "earlier pages kept (D-6)"
    );
}

/// surfaces.md Overview: Goals, Task flow, quota coverage and Attention come from the slots
/// other surfaces own, as read; nothing is invented (an error keeper is named, a disconnected
/// connector is named, at most two items).
#[test]
fn overview_panels_read_the_slots_they_name() {
    use masc_tui::protocol::connectors::ConnectorStatusList;
    use masc_tui::protocol::planning::PlanningRead;
    let mut m = model();
    let planning = br#"{"generated_at":"2026-11-20T09:00:00Z","goals":[{"id":"goal-2","title":"Chat parity","phase":"executing","priority":2},{"id":"goal-1","title":"Ship 1.0","phase":"executing","priority":1},{"id":"goal-9","title":"Old","phase":"completed","priority":1}],"rollup":{"active_count":2,"paused_count":0,"verifying_count":0,"done_count":1,"dropped_count":0},"task_backlog":{"todo":6,"claimed":7,"in_progress":8,"done":6,"cancelled":6}}"#;
    deliver(
        &mut m,
        WorkSlot::Planning,
        1,
        WorkObservation::Planning(ok(PlanningRead::decode(planning).unwrap())),
    );
    let status = br#"{"connectors":[{"connector_id":"slack","display_name":"Slack","status":"stale","available":true,"connected":false,"configured_bindings":[]}],"total":1,"active_count":0}"#;
    deliver(
        &mut m,
        ConnectorsSlot::Status,
        2,
        ConnectorsObservation::Status(ok(ConnectorStatusList::decode(status).unwrap())),
    );
    let ui = Ui {
        area: Rect::new(0, 0, 120, 30),
        tab: Tab::Overview,
        ..Ui::default()
    };
    let mut t = Terminal::new(TestBackend::new(120, 30)).unwrap();
    let ctx = ProjectionCtx::now(Theme::plain());
    t.draw(|f| render(&m, &ui, &ctx, f.area(), f.buffer_mut()))
        .unwrap();
    let text = buffer_text(t.backend().buffer());
    let goals: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("Goals"))
        .take(2)
        .collect();
    assert!(goals[0].contains("goal-1 Ship 1.0 · P1"), "{text}");
    assert!(goals[1].contains("goal-2 Chat parity · P2"));
    assert!(!text.contains("goal-9"), "only executing goals");
    assert!(text.contains("todo 6 · claimed 7 · in progress 8 · done 6 · cancelled 6"));
    assert!(
        !text.contains("awaiting verification"),
        "a count the server did not send is not shown"
    );
    assert!(text.contains("connector Slack is not connected"));
    let quota = text.lines().find(|l| l.starts_with("Quota")).unwrap();
    assert!(quota.contains("(not loaded yet)"));
}

/// surfaces.md "decisions first": the Overview lists this actor's pending approvals and the
/// open asks as read; an approval the server still lists after it expired says so (§10.5); an
/// unread or failed list is never "0 pending".
#[test]
fn overview_decisions_list_approvals_and_asks_as_read() {
    use masc_tui::protocol::operator::OperatorApprovals;
    let overview = |m: &Model| {
        let ui = Ui {
            area: Rect::new(0, 0, 120, 30),
            tab: Tab::Overview,
            ..Ui::default()
        };
        let mut t = Terminal::new(TestBackend::new(120, 30)).unwrap();
        let ctx = ProjectionCtx::now(Theme::plain());
        t.draw(|f| render(m, &ui, &ctx, f.area(), f.buffer_mut()))
            .unwrap();
        buffer_text(t.backend().buffer())
    };
    let mut m = model();
    let unread = overview(&m);
    assert!(unread.contains("Approvals    (not loaded yet)"), "{unread}");
    assert!(unread.contains("Asks         (not loaded yet)"));
    let approvals = br#"{"pending_confirm_envelope":{"items":[{"confirm_token":"tok-1","trace_id":"tr-1","actor":"masc-tui","action_type":"namespace_pause","target_type":"workspace","target_id":null,"payload":{"reason":"operator requested"},"delegated_tool":"masc_pause","created_at":"2020-08-21T12:00:00Z","expires_at":"2020-08-21T12:15:00Z"}],"summary":{"actor_filter":"masc-tui","filter_active":true,"visible_count":1,"hidden_count":2,"total_count":3,"hidden_actors":["ops-bot"],"confirm_required_actions":[]}}}"#;
    deliver(
        &mut m,
        DecisionsSlot::Approvals,
        1,
        DecisionsObservation::Approvals(ok(OperatorApprovals::decode(approvals).unwrap())),
    );
    deliver(
        &mut m,
        DecisionsSlot::Asks,
        2,
        DecisionsObservation::Asks(Err(ClientError::Timeout)),
    );
    let text = overview(&m);
    assert!(text.contains("1 pending for masc-tui · 2 of other actors not listed"));
    assert!(
        text.contains(
            "masc_pause → workspace · expired 2020-08-21 12:15 (still listed by the server)"
        ),
        "{text}"
    );
    let asks = text.lines().find(|l| l.starts_with("Asks")).unwrap();
    assert!(
        asks.contains("read failed: timeout") && !asks.contains("0 open"),
        "{asks}"
    );
}
