#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! The Keeper detail reads in the view without a terminal (`TestBackend`): the detail pane's
//! parts (Identity, Current Work, Live Context, activity), the logs (`o`) and the chat status
//! line's context (protocol.md §14.7–§14.9; sources.md L-1…L-4, N-5…N-7; chat-screen.md
//! C-57, C-58). The five states read differently: not requested, pending, not served (only
//! that part), failed with the last good value, normal-empty.

use crate::rig::ScreensOf;
use crate::rig::{dispatch, observe};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use masc_tui::actors::contract::{SlotEvent, Ticket};
use masc_tui::actors::keeper_detail::{
    ContextOwner, ContextRead, KeeperDetailCommand, KeeperDetailObservation, KeeperDetailSlot,
    Viewer,
};
use masc_tui::protocol::admission::AdmissionMode;
use masc_tui::protocol::client::{Admitted, ClientError};
use masc_tui::protocol::keeper_detail::{KeeperLogs, KeeperStatus, LiveContext, MetricsTail};
use masc_tui::protocol::keepers::{KeeperRowSlot, KeeperStatus as RowStatus};
use masc_tui::protocol::routes::RouteFamily;
use masc_tui::view::admission::RejectReason;
use masc_tui::view::fetched::Fetched;
use masc_tui::view::keys::{UiCommand, handle_key};
use masc_tui::view::model::Model;
use masc_tui::view::sample::{self, buffer_text};
use masc_tui::view::screens::chat::context_words;
use masc_tui::view::screens::{ProjectionCtx, Tab, Ui, render};
use masc_tui::view::theme::Theme;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use std::sync::Arc;

fn ticket(slot: KeeperDetailSlot, generation: u64) -> Ticket<KeeperDetailSlot> {
    Ticket {
        slot,
        generation,
        scope: sample::scope(1),
    }
}

fn admitted<T>(value: T) -> Admitted<T> {
    Admitted {
        value: Arc::new(value),
        mode: AdmissionMode::Receipt,
        from_cache: false,
    }
}

fn status(name: &str, generation: u64) -> KeeperStatus {
    let body = serde_json::json!({"name": name, "meta": {"schema":"masc.keeper_meta.v1","name": name,
        "agent_name": name, "trace_id": format!("trace-{name}"), "generation": generation,
        "total_turns": 41, "current_task_id": "task-1013", "last_blocker": null},
        "instructions": "Run the decoder tests.", "paused": false, "keepalive_running": true,
        "last_turn_ago_s": 95.0, "sandbox_profile": "docker", "network_mode": "bridge"});
    KeeperStatus::decode_for(&serde_json::to_vec(&body).unwrap(), name).unwrap()
}

fn live(name: &str, generation: u64, tokens: u64, max: Option<u64>) -> LiveContext {
    let ratio = max.map(|m| tokens as f64 / m as f64);
    let body = serde_json::json!({"schema":"masc.keeper_context_observation.v1","keeper": name,
        "trace_id": format!("trace-{name}"), "generation": generation, "context": {
        "source":"turn_record","context_tokens": tokens,"context_max": max,"context_ratio": ratio,
        "observed_at":"2026-11-20T08:53:00Z","turn_ref": format!("trace-{name}#48"),
        "absolute_turn":48,"request_body_bytes":1,"metrics_unavailable":null}});
    LiveContext::decode_for(&serde_json::to_vec(&body).unwrap(), name).unwrap()
}

fn unobserved(name: &str, reason: &str) -> LiveContext {
    let body = serde_json::json!({"schema":"masc.keeper_context_observation.v1","keeper": name,
        "trace_id": format!("trace-{name}"), "generation": 7, "context": {"source":null,
        "context_tokens":null,"context_max":null,"context_ratio":null,
        "metrics_unavailable":{"kind":"not_observed","reason": reason}}});
    LiveContext::decode_for(&serde_json::to_vec(&body).unwrap(), name).unwrap()
}

fn tail(name: &str, with_diagnostics: bool) -> MetricsTail {
    let turn = serde_json::json!({"schema":"keeper.metrics.v1","record_kind":"turn",
        "ts":"2026-11-20T08:00:00Z","ts_unix":1.0,"channel":"turn","name":name,"trace_id":"t",
        "generation":7,"message_count":4,"usage":{"input_tokens":1000,"output_tokens":200,
        "cache_creation_tokens":0,"cache_read_tokens":0,"total_tokens":1200,"usage_trust":"reported",
        "usage_anomaly":false,"usage_anomaly_reasons":[]},"usage_trust":"reported",
        "usage_anomaly_reasons":[],"latency_ms":900,"cost_usd":0.5,"turn_mode":"tool_use",
        "tool_call_count":1,"tools_used":["read_file"]});
    let mut rows = vec![serde_json::json!({"index":1,"line":turn})];
    if with_diagnostics {
        let mut other = turn.clone();
        other["name"] = "sangsu".into();
        rows.push(serde_json::json!({"index":2,"malformed":"invalid JSON: EOF"}));
        rows.push(serde_json::json!({"index":3,"line":other}));
    }
    let body = serde_json::json!({"schema":"masc.keeper_metrics_tail.v1","keeper":name,"limit":200,"rows":rows});
    MetricsTail::decode_for(&serde_json::to_vec(&body).unwrap(), name).unwrap()
}

fn owner(name: &str, generation: u64) -> ContextOwner {
    ContextOwner {
        trace_id: format!("trace-{name}"),
        generation,
    }
}

fn context_obs(
    name: &str,
    gen_owner: u64,
    result: Result<LiveContext, ClientError>,
) -> KeeperDetailObservation {
    KeeperDetailObservation::Context(Box::new(ContextRead {
        owner: owner(name, gen_owner),
        result: result.map(admitted),
    }))
}

/// A model with a roster holding `rondo` and `mira`, confirmed.
fn connected() -> Model {
    let mut m = Model::default();
    m.on_identity(sample::confirmed(1, AdmissionMode::Receipt));
    let rows = vec![
        KeeperRowSlot::Row(Box::new(sample::bare_row("rondo", RowStatus::Busy))),
        KeeperRowSlot::Row(Box::new(sample::bare_row("mira", RowStatus::Idle))),
    ];
    crate::rig::admit_roster(&mut m, rows);
    m
}

fn ui() -> Ui {
    Ui {
        area: Rect::new(0, 0, 100, 60),
        tab: Tab::Keepers,
        ..Ui::default()
    }
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

/// Presses `code`; a Keeper detail command goes to the model as the view actor does.
fn press(ui: &mut Ui, m: &mut Model, code: KeyCode) -> UiCommand {
    let cmd = handle_key(ui, m, key(code));
    if let Some(c) = cmd.as_send::<KeeperDetailCommand>() {
        m.keeper_detail.on_command(c);
    }
    cmd
}

fn paint(model: &Model, ui: &Ui) -> String {
    let mut t = Terminal::new(TestBackend::new(ui.area.width, ui.area.height)).unwrap();
    let ctx = ProjectionCtx::now(Theme::plain());
    t.draw(|f| render(model, ui, &ctx, f.area(), f.buffer_mut()))
        .unwrap();
    buffer_text(t.backend().buffer())
}

fn line_with<'a>(text: &'a str, needle: &str) -> Option<&'a str> {
    text.lines().find(|l| l.contains(needle))
}

/// N-1, L-1, L-2, N-5, N-6: opening the detail watches the Keeper; each part shows its own
/// state — not requested, reading, its value — and the context waits for the metadata.
/// Leaving unwatches and keeps the last observations.
#[test]
fn n1_l2_detail_parts_show_their_own_states_and_leaving_keeps_values() {
    let mut m = connected();
    let mut ui = ui();
    let cmd = press(&mut ui, &mut m, KeyCode::Enter);
    assert_eq!(
        cmd,
        UiCommand::send(KeeperDetailCommand::Watch {
            viewer: Viewer::Detail,
            keeper: "rondo".into()
        })
    );
    let unread = paint(&m, &ui);
    assert!(unread.contains("IDENTITY: not requested"), "{unread}");
    assert!(unread.contains("waits for the Keeper metadata"), "{unread}");
    assert!(unread.contains("ACTIVITY: not requested"), "{unread}");
    dispatch(&mut m, ticket(KeeperDetailSlot::Meta("rondo".into()), 1));
    dispatch(&mut m, ticket(KeeperDetailSlot::Metrics("rondo".into()), 1));
    let reading = paint(&m, &ui);
    assert!(reading.contains("IDENTITY: ⟳ reading…"), "{reading}");
    assert!(reading.contains("ACTIVITY: ⟳ reading…"), "{reading}");
    observe(
        &mut m,
        SlotEvent::Observed(
            ticket(KeeperDetailSlot::Meta("rondo".into()), 1),
            KeeperDetailObservation::Meta(Ok(admitted(status("rondo", 7)))),
        ),
    )
    .unwrap();
    let t = ticket(KeeperDetailSlot::Context("rondo".into()), 1);
    dispatch(&mut m, t.clone());
    observe(
        &mut m,
        SlotEvent::Observed(
            t,
            context_obs("rondo", 7, Ok(live("rondo", 7, 100_887, Some(200_000)))),
        ),
    )
    .unwrap();
    observe(
        &mut m,
        SlotEvent::Observed(
            ticket(KeeperDetailSlot::Metrics("rondo".into()), 1),
            KeeperDetailObservation::Metrics(Ok(admitted(KeeperLogs::Metrics(tail(
                "rondo", true,
            ))))),
        ),
    )
    .unwrap();
    let shown = paint(&m, &ui);
    assert!(
        line_with(&shown, "generation").is_some_and(|l| l.contains('7')),
        "{shown}"
    );
    assert!(
        line_with(&shown, "task").is_some_and(|l| l.contains("task-1013")),
        "{shown}"
    );
    let ctx_line = line_with(&shown, "tokens").expect("the context line");
    assert!(ctx_line.contains("50%"), "{ctx_line}");
    assert!(ctx_line.contains("100,887 / 200,000 tokens"), "{ctx_line}");
    assert!(line_with(&shown, "turn ref").is_some_and(|l| l.contains("trace-rondo#48")));
    assert!(shown.contains("rejected 2/3 physical rows"), "{shown}");
    assert!(line_with(&shown, "turns 1").is_some(), "{shown}");
    // Esc leaves: unwatch, values kept (N-6).
    let cmd = press(&mut ui, &mut m, KeyCode::Esc);
    assert_eq!(
        cmd,
        UiCommand::send(KeeperDetailCommand::Unwatch {
            viewer: Viewer::Detail
        })
    );
    assert_eq!(m.keeper_detail.watched_by(Viewer::Detail), None);
    let kept = m.keeper_detail.of("rondo").unwrap();
    assert!(matches!(kept.context.fetched, Fetched::Ready(_)));
}

/// L-3, G-4: a failed re-read keeps the last good value beside the failure; a route this
/// MASC does not serve marks only that part; the other parts stay.
#[test]
fn l3_failed_reread_keeps_the_last_value_and_not_served_is_only_that_part() {
    let mut m = connected();
    let mut ui = ui();
    press(&mut ui, &mut m, KeyCode::Enter);
    crate::rig::deliver(
        &mut m,
        ticket(KeeperDetailSlot::Meta("rondo".into()), 1),
        KeeperDetailObservation::Meta(Ok(admitted(status("rondo", 7)))),
    );
    crate::rig::deliver(
        &mut m,
        ticket(KeeperDetailSlot::Context("rondo".into()), 1),
        context_obs("rondo", 7, Ok(live("rondo", 7, 100_887, Some(200_000)))),
    );
    let t2 = ticket(KeeperDetailSlot::Context("rondo".into()), 2);
    dispatch(&mut m, t2.clone());
    observe(
        &mut m,
        SlotEvent::Observed(
            t2,
            context_obs(
                "rondo",
                7,
                Err(ClientError::Status {
                    status: 503,
                    body: String::new(),
                }),
            ),
        ),
    )
    .unwrap();
    crate::rig::deliver(
        &mut m,
        ticket(KeeperDetailSlot::Metrics("rondo".into()), 1),
        KeeperDetailObservation::Metrics(Err(ClientError::NotServed {
            route: RouteFamily::KeeperMetricsTail,
        })),
    );
    let shown = paint(&m, &ui);
    assert!(
        line_with(&shown, "LIVE CONTEXT: read failed")
            .is_some_and(|l| l.contains("status_503") && l.contains("showing the last good value")),
        "{shown}"
    );
    assert!(
        line_with(&shown, "tokens").is_some_and(|l| l.contains("50%")),
        "{shown}"
    );
    assert!(
        shown.contains("ACTIVITY: not served by this MASC (only this part is unavailable)"),
        "{shown}"
    );
    assert!(
        !shown.contains("no records"),
        "not served is not no records: {shown}"
    );
    assert!(
        line_with(&shown, "generation").is_some(),
        "metadata still shown"
    );
}

/// N-7: an empty metrics window is a real "no records"; a failed read with nothing before it
/// is a failure, never "no records" or 0.
#[test]
fn n7_empty_is_no_records_and_failed_is_never_no_records() {
    let mut m = connected();
    let mut ui = ui();
    press(&mut ui, &mut m, KeyCode::Down);
    press(&mut ui, &mut m, KeyCode::Enter);
    assert_eq!(m.keeper_detail.watched_by(Viewer::Detail), Some("mira"));
    crate::rig::deliver(
        &mut m,
        ticket(KeeperDetailSlot::Metrics("mira".into()), 1),
        KeeperDetailObservation::Metrics(Err(ClientError::Status {
            status: 500,
            body: r#"{"error":"metrics_read_failed","detail":"x"}"#.into(),
        })),
    );
    let failed = paint(&m, &ui);
    assert!(
        failed.contains("ACTIVITY: read failed — status_500"),
        "{failed}"
    );
    assert!(!failed.contains("no records"), "{failed}");
    assert!(!failed.contains("turns 0"), "{failed}");
    let empty = serde_json::json!({"schema":"masc.keeper_metrics_tail.v1","keeper":"mira","limit":200,"rows":[]});
    let empty = MetricsTail::decode_for(&serde_json::to_vec(&empty).unwrap(), "mira").unwrap();
    crate::rig::deliver(
        &mut m,
        ticket(KeeperDetailSlot::Metrics("mira".into()), 2),
        KeeperDetailObservation::Metrics(Ok(admitted(KeeperLogs::Metrics(empty)))),
    );
    let shown = paint(&m, &ui);
    assert!(shown.contains("no records in the metrics store"), "{shown}");
    // The logs say the same, and a not-observed context names its reason.
    press(&mut ui, &mut m, KeyCode::Char('o'));
    let logs = paint(&m, &ui);
    assert!(logs.contains("LOGS mira"), "{logs}");
    assert!(logs.contains("no records in the metrics store"), "{logs}");
}

/// L-2: a context answer for another generation than the owner its read was launched for is
/// rejected unshown (`other_target`); the last value stays.
#[test]
fn l2_a_context_of_another_owner_is_rejected_unshown() {
    let mut m = connected();
    let mut ui = ui();
    press(&mut ui, &mut m, KeyCode::Enter);
    let t = ticket(KeeperDetailSlot::Context("rondo".into()), 1);
    dispatch(&mut m, t.clone());
    let verdict = observe(
        &mut m,
        SlotEvent::Observed(
            t,
            context_obs("rondo", 7, Ok(live("rondo", 99, 1, Some(2)))),
        ),
    );
    assert_eq!(verdict, Err(RejectReason::OtherTarget));
    let shown = paint(&m, &ui);
    assert!(!shown.contains("50%"), "{shown}");
    assert!(!line_with(&shown, "tokens").is_some_and(|l| l.contains(" / 2 tokens")));
}

/// N-7, surfaces.md "Keeper logs": `o` shows the window oldest first with the malformed and
/// other-Keeper rows in their slots and counted; `Esc` goes back to the detail.
#[test]
fn n7_logs_show_diagnostic_rows_in_their_slots() {
    let mut m = connected();
    let mut ui = ui();
    press(&mut ui, &mut m, KeyCode::Enter);
    crate::rig::deliver(
        &mut m,
        ticket(KeeperDetailSlot::Metrics("rondo".into()), 1),
        KeeperDetailObservation::Metrics(Ok(admitted(KeeperLogs::Metrics(tail("rondo", true))))),
    );
    press(&mut ui, &mut m, KeyCode::Char('o'));
    let logs = paint(&m, &ui);
    assert!(logs.contains("rejected 2/3 physical rows"), "{logs}");
    let lines: Vec<&str> = logs.lines().collect();
    let at = |needle: &str| {
        lines
            .iter()
            .position(|l| l.contains(needle))
            .unwrap_or(usize::MAX)
    };
    assert!(at("1,000/200") < at("✗ malformed line"), "{logs}");
    assert!(
        at("✗ malformed line") < at("another Keeper (sangsu)"),
        "{logs}"
    );
    assert!(
        line_with(&logs, "1,000/200").is_some_and(|l| l.contains("tool_use") && l.contains("turn"))
    );
    press(&mut ui, &mut m, KeyCode::Esc);
    assert!(ui.roster().detail_open && ui.roster().detail.logs.is_none());
    // `r` in the detail re-reads that Keeper, not the roster (L-4).
    let cmd = handle_key(
        &mut ui,
        &m,
        KeyEvent::new(KeyCode::Char('r'), KeyModifiers::NONE),
    );
    assert_eq!(
        cmd,
        UiCommand::send(KeeperDetailCommand::Refresh {
            keeper: "rondo".into()
        })
    );
}

/// §14.9 on a MASC without the metrics tail: the logs are the Keeper's turn records, the
/// title says where they come from, the parts a record does not carry are named before the
/// rows, a turn without usage shows `--` (never 0), and the detail's ACTIVITY sums them.
#[test]
fn s14_9_logs_from_turn_records_say_what_they_lack() {
    let mut m = connected();
    let mut ui = ui();
    press(&mut ui, &mut m, KeyCode::Enter);
    let record = |turn: u64, usage: Option<(u64, u64)>| {
        serde_json::json!({"execution_ids": [], "keeper": "rondo", "agent_name": "keeper-rondo",
            "turn_kind": "direct", "trace_id": "trace-rondo", "absolute_turn": turn,
            "turn_ref": format!("trace-rondo#{turn}"), "blocks": [], "input_components": null,
            "runtime_profile": "glm", "request_body_bytes": 10, "selected_model": "glm-5.3",
            "finish_reason": "stop", "request_latency_ms": 1200,
            "input_tokens": usage.map(|u| u.0), "output_tokens": usage.map(|u| u.1),
            "ts": 1_787_600_000.0 + turn as f64})
    };
    let body = serde_json::json!({"keeper": "rondo", "count": 2, "skipped_rows": 1,
        "health": "ok", "stale_reason": null, "live_turn_in_progress": false, "entries": [
            {"record": record(47, None), "diff_vs_prev": null},
            {"record": record(48, Some((100_887, 412))), "diff_vs_prev": null}]});
    let page = masc_tui::protocol::inspector::TurnRecordsPage::decode_with_limit(
        &serde_json::to_vec(&body).unwrap(),
        "rondo",
        200,
    )
    .unwrap();
    crate::rig::deliver(
        &mut m,
        ticket(KeeperDetailSlot::Metrics("rondo".into()), 1),
        KeeperDetailObservation::Metrics(Ok(admitted(KeeperLogs::TurnRecords(page)))),
    );
    let shown = paint(&m, &ui);
    assert!(
        line_with(&shown, "turns 2").is_some_and(|l| l.contains("direct 2")),
        "{shown}"
    );
    assert!(
        line_with(&shown, "tokens in 100,887 / out 412")
            .is_some_and(|l| l.contains("1 turns without usage")),
        "{shown}"
    );
    assert!(shown.contains("does not serve /metrics-tail"), "{shown}");
    press(&mut ui, &mut m, KeyCode::Char('o'));
    let logs = paint(&m, &ui);
    assert!(
        line_with(&logs, "LOGS rondo")
            .is_some_and(|l| l.contains("newest 2 turn records")
                && l.contains("1 rows MASC could not decode")),
        "{logs}"
    );
    assert!(
        logs.contains("from the turn records: this MASC does not serve /metrics-tail"),
        "{logs}"
    );
    assert!(
        line_with(&logs, "not in turn records").is_some_and(|l| l.contains("cost")),
        "{logs}"
    );
    assert!(
        line_with(&logs, "100,887/412")
            .is_some_and(|l| l.contains("direct") && l.contains("glm-5.3") && l.contains("1.2s")),
        "{logs}"
    );
    let lines: Vec<&str> = logs.lines().collect();
    let unreported = lines
        .iter()
        .find(|l| l.contains("2026-08-24T19:34:07Z"))
        .unwrap_or_else(|| panic!("{logs}"));
    assert!(
        unreported.contains("--") && !unreported.contains("0/0"),
        "{unreported}"
    );
}

/// C-57, C-58: the status line's context is the chat target's observed value only — `%`
/// with current/max, the token count alone without a window, `unavailable` with the reason —
/// and a kept value after a failed re-read is marked.
#[test]
fn c58_status_line_context_words() {
    use masc_tui::view::fetched::{Observed, SlotFailure};
    let obs = |c: LiveContext| Observed {
        value: Arc::new(c),
        observed_at: std::time::Instant::now(),
        health_admitted: false,
    };
    let words = |f: Fetched<Arc<LiveContext>>| context_words(Some(&f)).0;
    assert_eq!(context_words(None).0, "context not requested");
    assert_eq!(words(Fetched::NotRequested), "context not requested");
    assert_eq!(words(Fetched::Loading), "context reading…");
    assert_eq!(
        words(Fetched::Ready(obs(live(
            "rondo",
            7,
            100_887,
            Some(200_000)
        )))),
        "context 50% · 100,887/200,000"
    );
    assert_eq!(
        words(Fetched::Ready(obs(live("하늘", 2, 48_210, None)))),
        "context 48,210 tokens"
    );
    assert_eq!(
        words(Fetched::Ready(obs(unobserved(
            "mira",
            "turn_record_without_usage"
        )))),
        "context unavailable (turn_record_without_usage)"
    );
    let failure = |e: ClientError| SlotFailure::of_client(&e);
    assert_eq!(
        words(Fetched::Failed {
            last: None,
            error: failure(ClientError::Timeout),
            retrying: false
        }),
        "context unavailable (timeout)"
    );
    assert_eq!(
        words(Fetched::Failed {
            last: None,
            error: failure(ClientError::NotServed {
                route: RouteFamily::KeeperContext
            }),
            retrying: false
        }),
        "context unavailable (not served by this MASC)"
    );
    let kept = words(Fetched::Failed {
        last: Some(obs(live("rondo", 7, 100_887, Some(200_000)))),
        error: failure(ClientError::Timeout),
        retrying: false,
    });
    assert!(kept.starts_with("context 50%") && kept.contains("(last; re-read failed: timeout)"));
}

/// C-57, §14.4: the status line's `gate:` is the workspace Gate mode read — `gate: not
/// loaded` until it is read, the mode word once it is, a kept value marked after a failure.
#[test]
fn c57_status_line_gate_words() {
    use masc_tui::protocol::decode::WireDecode;
    use masc_tui::protocol::keeper_detail::DashboardGate;
    use masc_tui::view::screens::chat::gate_words;
    let mut m = connected();
    assert_eq!(
        gate_words(&m.keeper_detail.gate.fetched).0,
        "gate: not loaded"
    );
    let body = br#"{"hitl":{"gate_mode":{"mode":"auto_judge","configured":true,"state":"ready"}}}"#;
    crate::rig::deliver(
        &mut m,
        ticket(KeeperDetailSlot::WorkspaceGate, 1),
        KeeperDetailObservation::Gate(Ok(admitted(DashboardGate::decode(body).unwrap()))),
    );
    assert_eq!(
        gate_words(&m.keeper_detail.gate.fetched).0,
        "gate: Auto Judge"
    );
    crate::rig::deliver(
        &mut m,
        ticket(KeeperDetailSlot::WorkspaceGate, 2),
        KeeperDetailObservation::Gate(Err(ClientError::Timeout)),
    );
    assert_eq!(
        gate_words(&m.keeper_detail.gate.fetched).0,
        "gate: Auto Judge (last)"
    );
}
