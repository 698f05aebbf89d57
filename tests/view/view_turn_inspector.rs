#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! The `O` turn inspector's `1:record` and `2:input` tabs (protocol.md §14.11; sources.md
//! K-14, K-15, K-17) without a terminal (`TestBackend`): the record taken only by its exact
//! `Turn_ref` ("not on this page", never another turn's record), every read state in its own
//! words, a late or failed re-read never clearing what was received, and tab entry, scrolling
//! and `r` (the only key that reads).

use crate::rig::{dispatch, observe, retire};
use crate::view_asks::{answered_with_turn, paint, press};
use crossterm::event::KeyCode;
use masc_tui::actors::asks::AsksCommand;
use masc_tui::actors::contract::{SlotEvent, Ticket};
use masc_tui::actors::inspector::{InspectorObservation, InspectorSlot};
use masc_tui::protocol::admission::AdmissionMode;
use masc_tui::protocol::client::{Admitted, ClientError};
use masc_tui::protocol::inspector::{ProviderInput, TurnRecordsPage};
use masc_tui::protocol::routes::RouteFamily;
use masc_tui::view::admission::RejectReason;
use masc_tui::view::keys::UiCommand;
use masc_tui::view::model::Model;
use masc_tui::view::sample;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::sync::Arc;

pub fn sha(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

fn admitted<T>(value: T) -> Result<Admitted<T>, ClientError> {
    Ok(Admitted {
        value: Arc::new(value),
        mode: AdmissionMode::Receipt,
        from_cache: false,
    })
}

fn ticket<S>(slot: S, generation: u64) -> Ticket<S> {
    Ticket {
        slot,
        generation,
        scope: sample::scope(1),
    }
}

/// A record as MASC's `Turn_record.to_json` writes it (lib/types/turn_record.ml, d541eb0750).
pub fn record(keeper: &str, trace: &str, turn: u64, prompt: &str) -> Value {
    json!({
        "execution_ids": ["exec-1"], "keeper": keeper, "agent_name": keeper, "generation": 7,
        "turn_kind": "autonomous", "trace_id": trace, "absolute_turn": turn,
        "turn_ref": format!("{trace}#{turn}"),
        "blocks": [{"block": "keeper_instructions", "bytes": prompt.len(), "digest": sha(prompt)}],
        "input_components": [
            {"component": "prompt.keeper_instructions", "bytes": prompt.len()},
            {"component": "tool_schemas", "bytes": 64},
            {"component": "message_user", "bytes": 42}
        ],
        "runtime_profile": "claude-sonnet", "request_runtime_profile": "claude-sonnet",
        "request_body_bytes": 400, "transmitted_atoms": 1, "total_atoms": 1,
        "model_input_measurement": "wire_shape", "raw_trace_run_ref": null,
        "selected_model": "claude-sonnet-4", "finish_reason": "stop", "context_window": 200000,
        "input_tokens": 1000, "output_tokens": 200, "usage_scope": "per_request",
        "ts": 1787600000.0
    })
}

pub fn page(keeper: &str, records: Vec<Value>) -> TurnRecordsPage {
    let entries: Vec<Value> = records
        .into_iter()
        .map(|r| json!({"record": r, "diff_vs_prev": null}))
        .collect();
    let body = json!({
        "keeper": keeper, "count": entries.len(), "skipped_rows": 1, "health": "stale",
        "stale_reason": "freshness_slo_exceeded", "live_turn_in_progress": false,
        "latest_ts_unix": 1787600000.0, "latest_age_s": 5000.0, "entries": entries
    });
    TurnRecordsPage::decode_for(body.to_string().as_bytes(), keeper).unwrap()
}

/// A provider input as MASC's encoder writes it (the resolved body, newer MASC).
pub fn input(keeper: &str, trace: &str, turn: u64, prompt: &str) -> ProviderInput {
    let msg = json!({"role": "user", "content": "안녕 👍🏽 check the board"});
    let tool = json!({"name": "masc_status", "input_schema": {"type": "object"}});
    let body = json!({
        "dashboard_surface": "/api/v1/keepers/:name/provider-input",
        "schema": "masc.resolved-provider-input.v1",
        "keeper": keeper, "trace_id": trace, "absolute_turn": turn,
        "turn_ref": format!("{trace}#{turn}"), "runtime_profile": "claude-sonnet",
        "captured_at": 1787600000.0,
        "wire": {"phase": "Pre_dispatch_serialization", "capture_id": null,
                 "provider": "anthropic", "model": "claude-sonnet-4",
                 "http_codec": "anthropic_messages", "stream": true, "body_bytes": 400,
                 "body_sha256": sha("body")},
        "system_prompt": {"bytes": prompt.len(), "sha256": sha(prompt), "text": prompt},
        "messages": [{"index": 0, "role": "user", "bytes": 42, "sha256": sha("m"), "content": msg}],
        "tool_schemas": [{"index": 0, "name": "masc_status", "bytes": 64, "sha256": sha("t"),
                          "content": tool}]
    });
    ProviderInput::decode_for(
        body.to_string().as_bytes(),
        keeper,
        &format!("{trace}#{turn}"),
    )
    .unwrap()
}

fn records_slot() -> InspectorSlot {
    InspectorSlot::Records("rondo".into())
}

fn observe_records(
    m: &mut Model,
    generation: u64,
    result: Result<Admitted<TurnRecordsPage>, ClientError>,
) -> Result<(), RejectReason> {
    observe(
        m,
        SlotEvent::Observed(
            ticket(records_slot(), generation),
            InspectorObservation::Records(result),
        ),
    )
}

/// K-14, K-15: `1:record` names each read state, never shows another turn's record when the
/// pinned one is not on the page, and keeps what it received through a later read that ends
/// without a result or fails.
#[test]
fn k14_k15_the_record_tab_shows_the_pinned_turn_only() {
    let (mut m, mut ui, target) = answered_with_turn();
    let _ = press(&mut ui, &m, KeyCode::Char('O'));
    press(&mut ui, &m, KeyCode::Char('1'));
    let text = paint(&m, &ui);
    assert!(
        text.contains("[1:record]") && text.contains("not loaded"),
        "{text}"
    );
    dispatch(&mut m, ticket(records_slot(), 1));
    assert!(paint(&m, &ui).contains("reading (조회 중)"));
    // A page without trace-rondo#7: "not on this page", never turn 6's or 8's record.
    let without = page(
        "rondo",
        vec![
            record("rondo", "trace-rondo", 6, "p"),
            record("rondo", "trace-rondo", 8, "p"),
        ],
    );
    observe_records(&mut m, 1, admitted(without)).unwrap();
    let text = paint(&m, &ui);
    assert!(text.contains("not on this page"), "{text}");
    assert!(!text.contains("turn trace-rondo#8"), "{text}");
    assert!(!text.contains("turn trace-rondo#6"), "{text}");
    assert!(text.contains("1 row(s) MASC could not decode"), "{text}");
    // The next page has it.
    dispatch(&mut m, ticket(records_slot(), 2));
    let with = page(
        "rondo",
        vec![
            record("rondo", "trace-rondo", 6, "p"),
            record("rondo", "trace-rondo", 7, "keeper instructions"),
        ],
    );
    observe_records(&mut m, 2, admitted(with)).unwrap();
    let text = paint(&m, &ui);
    assert!(text.contains("turn trace-rondo#7 · autonomous"), "{text}");
    assert!(text.contains("prompt.keeper_instructions"), "{text}");
    assert!(text.contains("tokens in 1000 (per_request)"), "{text}");
    // A re-read in flight shows the last record (K-15: a late result of a superseded read is
    // rejected and clears nothing); one that ends without a result keeps it.
    dispatch(&mut m, ticket(records_slot(), 3));
    assert_eq!(
        observe_records(&mut m, 1, Err(ClientError::Timeout)),
        Err(RejectReason::Superseded)
    );
    let text = paint(&m, &ui);
    assert!(text.contains("reading again (조회 중)"), "{text}");
    assert!(text.contains("turn trace-rondo#7 · autonomous"), "{text}");
    retire(&mut m, ticket(records_slot(), 3));
    assert!(paint(&m, &ui).contains("turn trace-rondo#7 · autonomous"));
    // A failed re-read shows its class beside the record it keeps.
    dispatch(&mut m, ticket(records_slot(), 4));
    observe_records(
        &mut m,
        4,
        Err(ClientError::Status {
            status: 500,
            body: "{}".into(),
        }),
    )
    .unwrap();
    let text = paint(&m, &ui);
    assert!(text.contains("read failed (status_500)"), "{text}");
    assert!(text.contains("last observation shown"), "{text}");
    assert!(text.contains("turn trace-rondo#7 · autonomous"), "{text}");
    let _ = target;
}

/// K-15: `2:input` — not loaded, reading, no snapshot (404), not served, permission denied
/// and received are each their own words; server text is sanitised and wide characters fit.
#[test]
fn k15_the_input_tab_words_each_state_apart() {
    let (mut m, mut ui, target) = answered_with_turn();
    let _ = press(&mut ui, &m, KeyCode::Char('O'));
    press(&mut ui, &m, KeyCode::Char('2'));
    assert!(paint(&m, &ui).contains("not loaded"));
    let slot = InspectorSlot::Input(target.clone());
    let cases: Vec<(ClientError, &str)> = vec![
        (
            ClientError::Status {
                status: 404,
                body: r#"{"error":"no provider-input snapshot for trace-rondo#7"}"#.into(),
            },
            "no serialized input kept for this turn (404)",
        ),
        (
            ClientError::NotServed {
                route: RouteFamily::ProviderInput,
            },
            "not served by this MASC",
        ),
        (
            ClientError::Unauthorized {
                status: 403,
                code: None,
            },
            "permission denied (status 403)",
        ),
    ];
    for (generation, (err, words)) in (1u64..).zip(cases) {
        dispatch(&mut m, ticket(slot.clone(), generation));
        if generation == 1 {
            assert!(paint(&m, &ui).contains("reading (조회 중)"));
        }
        observe(
            &mut m,
            SlotEvent::Observed(
                ticket(slot.clone(), generation),
                InspectorObservation::Input(Err(err)),
            ),
        )
        .unwrap();
        let text = paint(&m, &ui);
        assert!(text.contains(words), "{words}\n{text}");
    }
    dispatch(&mut m, ticket(slot.clone(), 9));
    let prompt = "keeper instructions\u{1b}[31m red";
    observe(
        &mut m,
        SlotEvent::Observed(
            ticket(slot, 9),
            InspectorObservation::Input(admitted(input("rondo", "trace-rondo", 7, prompt))),
        ),
    )
    .unwrap();
    let text = paint(&m, &ui);
    assert!(text.contains("system prompt ·"), "{text}");
    assert!(text.contains("✓ digest of the text"), "{text}");
    assert!(!text.contains('\u{1b}'), "server text is sanitised");
    assert!(text.contains("message #0 user"), "{text}");
    assert!(text.contains("안녕 👍🏽"), "{text}");
    assert!(text.contains("tool schema #0 masc_status"), "{text}");
}

/// K-17: tab entry and scrolling issue no read; `r` re-reads the three readings, each its own
/// command (K-15: independent).
#[test]
fn k17_tabs_and_scroll_read_nothing_and_r_rereads_all_three() {
    let (m, mut ui, target) = answered_with_turn();
    let _ = press(&mut ui, &m, KeyCode::Char('O'));
    for code in [
        KeyCode::Char('1'),
        KeyCode::Char('2'),
        KeyCode::Char('j'),
        KeyCode::PageDown,
        KeyCode::Char('3'),
        KeyCode::Left,
    ] {
        let cmd = press(&mut ui, &m, code);
        assert!(
            !matches!(
                cmd,
                UiCommand::Asks(_) | UiCommand::Inspector(_) | UiCommand::Many(_)
            ),
            "{code:?} issued a read: {cmd:?}"
        );
    }
    match press(&mut ui, &m, KeyCode::Char('r')) {
        UiCommand::Many(cmds) => {
            assert!(cmds.contains(&UiCommand::Asks(AsksCommand::Transcript(target.clone()))));
            assert!(cmds.contains(&UiCommand::Inspector(InspectorSlot::Records(
                "rondo".into()
            ))));
            assert!(cmds.contains(&UiCommand::Inspector(InspectorSlot::Input(target))));
        }
        other => panic!("{other:?}"),
    }
}
