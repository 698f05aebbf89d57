#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! What each Keeper waits on (protocol-15-operator.md §15.8) on the Keepers screen without a
//! terminal: the selected Keeper's "waits on" line (sentence, source, next action, due), the
//! WAITS ON part of the detail, and each state apart — not loaded, not sent by this MASC, read
//! failed (the last value kept beside the failure), a Keeper the inventory does not list, the
//! Keeper list unreadable, rows cut, an unknown source shown raw.

use crate::rig::{admitted, deliver, dispatch, observe, screen_text, ticket};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use masc_tui::actors::contract::SlotEvent;
use masc_tui::actors::keepers::{WaitingObservation, WaitingSlot};
use masc_tui::protocol::admission::AdmissionMode;
use masc_tui::protocol::client::ClientError;
use masc_tui::protocol::decode::WireDecode;
use masc_tui::protocol::keepers::{KeeperRowSlot, KeeperStatus as RowStatus};
use masc_tui::protocol::waiting::WaitingInventoryRead;
use masc_tui::view::keys::handle_key;
use masc_tui::view::model::Model;
use masc_tui::view::sample;
use masc_tui::view::screens::{Tab, Ui};
use ratatui::layout::Rect;
use serde_json::{Value, json};

fn now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
}

fn row(keeper: &str, source: &str, what: Option<&str>, next: &str, due_in: Option<f64>) -> Value {
    let mut r = json!({"keeper_name": keeper, "source": source, "waiting_on": "owner_fifo",
        "wake_producer": "keeper_owner_actor", "since": now() - 120.0,
        "due_at": due_in.map(|d| now() + d), "next_action": next, "detail": {}});
    if let Some(w) = what {
        r["what"] = json!(w);
    }
    r
}

fn tools_body(keepers: Vec<Value>, global: Vec<Value>, known: bool) -> WaitingInventoryRead {
    let body = json!({"generated_at": "x", "tool_inventory": {"count": 0, "tools": [],
        "surface_summary": {}}, "tool_usage": {}, "keeper_waiting_inventory": {
        "schema": "masc.dashboard.keeper_waiting_inventory.v3", "keeper_count_known": known,
        "keeper_count": keepers.len(), "waiting_keeper_count": 1, "row_count": 1,
        "row_count_truncated": false, "keepers": keepers, "global_waiting_on": global}});
    WaitingInventoryRead::decode(&serde_json::to_vec(&body).unwrap()).unwrap()
}

fn keeper(name: &str, state: &str, rows: Vec<Value>) -> Value {
    json!({"keeper_name": name, "state": state, "waiting_count": rows.len(), "waiting_on": rows})
}

/// A confirmed model with `rondo` (selected) and `mira` on the roster.
fn connected() -> Model {
    let mut m = Model::default();
    m.on_identity(sample::confirmed(1, AdmissionMode::Receipt));
    crate::rig::admit_roster(
        &mut m,
        vec![
            KeeperRowSlot::Row(Box::new(sample::bare_row("rondo", RowStatus::Busy))),
            KeeperRowSlot::Row(Box::new(sample::bare_row("mira", RowStatus::Idle))),
        ],
    );
    m
}

fn ui() -> Ui {
    Ui {
        area: Rect::new(0, 0, 120, 40),
        tab: Tab::Keepers,
        ..Ui::default()
    }
}

fn admit(m: &mut Model, generation: u64, read: WaitingInventoryRead) {
    deliver(
        m,
        ticket(WaitingSlot::Inventory, generation),
        WaitingObservation(admitted(read)),
    );
}

fn line_with<'a>(text: &'a str, needle: &str) -> &'a str {
    text.lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle:?} in\n{text}"))
}

/// §15.8: the selected Keeper's line reads the sentence, the source, the next action and the
/// due time of its most pressing row, and counts the rest; the title counts the Keepers waiting.
#[test]
fn s15_8_the_selected_keepers_line_reads_what_source_next_and_due() {
    let mut m = connected();
    let ui = ui();
    assert!(
        screen_text(&m, &ui).contains("waits on: not loaded yet"),
        "never 'nothing waiting' before a read"
    );
    admit(
        &mut m,
        1,
        tools_body(
            vec![
                keeper(
                    "rondo",
                    "waiting",
                    vec![
                        row(
                            "rondo",
                            "schedule_waiting",
                            Some("예약 실행 · digest"),
                            "wait_until_due",
                            Some(900.0),
                        ),
                        row(
                            "rondo",
                            "hitl_pending",
                            Some("운영자 승인 대기 · bash"),
                            "operator_resolve_hitl",
                            None,
                        ),
                    ],
                ),
                keeper("mira", "idle", vec![]),
            ],
            vec![],
            true,
        ),
    );
    let text = screen_text(&m, &ui);
    let line = line_with(&text, "waits on:");
    assert!(line.contains("예약 실행 · digest (schedule)"), "{line}");
    assert!(line.contains("next wait_until_due"), "{line}");
    assert!(line.contains("due in 1"), "{line}");
    assert!(line.contains("+1 more"), "{line}");
    assert!(line_with(&text, "KEEPERS").contains("1 waiting"), "{text}");
    // The selection moves: the line follows it.
    let mut ui = ui;
    handle_key(
        &mut ui,
        &m,
        KeyEvent::new(KeyCode::Char('j'), KeyModifiers::NONE),
    );
    let text = screen_text(&m, &ui);
    assert!(
        line_with(&text, "waits on:").contains("nothing (idle)"),
        "{text}"
    );
}

/// §15.8: every row is in the detail with its technical words; an unknown source is shown raw
/// and marked; a row without `what` (v0.24.0) reads by its technical name.
#[test]
fn s15_8_the_detail_lists_every_row_with_its_technical_words() {
    let mut m = connected();
    let mut ui = ui();
    admit(
        &mut m,
        1,
        tools_body(
            vec![keeper(
                "rondo",
                "dreaming",
                vec![
                    row(
                        "rondo",
                        "teleport_queue",
                        Some("순간이동 대기"),
                        "await_teleport",
                        None,
                    ),
                    row(
                        "rondo",
                        "chat_operation_queued",
                        None,
                        "keeper_owner_start_fifo_head",
                        None,
                    ),
                ],
            )],
            vec![],
            true,
        ),
    );
    handle_key(
        &mut ui,
        &m,
        KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE),
    );
    let text = screen_text(&m, &ui);
    assert!(text.contains("WAITS ON"), "{text}");
    assert!(line_with(&text, "state").contains("dreaming"), "{text}");
    assert!(
        line_with(&text, "순간이동 대기").contains("teleport_queue (unknown source)"),
        "{text}"
    );
    assert!(
        line_with(&text, "next await_teleport").contains("waiting 2m"),
        "{text}"
    );
    assert!(
        line_with(&text, "· owner_fifo — chat queued").contains("owner_fifo"),
        "{text}"
    );
    assert!(text.contains("woken by keeper_owner_actor"), "{text}");
}

/// §15.8: not sent by this MASC, read failed (the last value kept beside the failure), the
/// Keeper list unreadable with a workspace read error, rows cut — each its own words.
#[test]
fn s15_8_absent_failed_unknown_and_cut_each_say_so() {
    let mut m = connected();
    let ui = ui();
    admit(&mut m, 1, WaitingInventoryRead::NotSent);
    assert!(
        line_with(&screen_text(&m, &ui), "waits on:").contains("not sent by this MASC"),
        "an older MASC is not 'nothing waiting'"
    );
    let read = tools_body(
        vec![keeper(
            "rondo",
            "waiting",
            vec![row(
                "rondo",
                "hitl_pending",
                Some("운영자 승인 대기 · bash"),
                "operator_resolve_hitl",
                None,
            )],
        )],
        vec![],
        true,
    );
    admit(&mut m, 2, read);
    let t = ticket(WaitingSlot::Inventory, 3);
    dispatch(&mut m, t.clone());
    observe(
        &mut m,
        SlotEvent::Observed(
            t,
            WaitingObservation(Err(ClientError::Status {
                status: 500,
                body: "{\"error\":\"snapshot locked\"}".into(),
            })),
        ),
    )
    .unwrap();
    let line = line_with(&screen_text(&m, &ui), "waits on:").to_string();
    assert!(line.contains("운영자 승인 대기 · bash"), "{line}");
    assert!(line.contains("read failed, showing last value"), "{line}");

    let mut error = row(
        "",
        "read_error",
        Some("대기 기록 읽기 실패 · keeper_meta_store"),
        "repair_keeper_meta_store",
        None,
    );
    error["keeper_name"] = Value::Null;
    admit(&mut m, 4, tools_body(vec![], vec![error], false));
    let text = screen_text(&m, &ui);
    assert!(
        line_with(&text, "waits on:").contains("unknown (MASC could not read its Keeper list)"),
        "{text}"
    );
    assert!(
        line_with(&text, "KEEPERS").contains("1 read errors"),
        "{text}"
    );

    let mut cut = keeper(
        "rondo",
        "waiting",
        vec![row(
            "rondo",
            "external_attention",
            Some("discord 멘션"),
            "keeper_process_external_attention",
            None,
        )],
    );
    cut["truncated_sources"] = json!({"external_attention": true});
    admit(&mut m, 5, tools_body(vec![cut], vec![], true));
    let text = screen_text(&m, &ui);
    assert!(
        line_with(&text, "waits on:").contains("(cut by MASC)"),
        "{text}"
    );
    assert!(
        line_with(&text, "KEEPERS").contains("(not exact)"),
        "{text}"
    );
}
