#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! The `O` turn inspector's `1:record` and `2:input` tabs (protocol.md §14.11; sources.md
//! K-14, K-15, K-17) without a terminal (`TestBackend`): the record taken only by its exact
//! `Turn_ref` ("not on this page", never another turn's record), every read state in its own
//! words, a late or failed re-read never clearing what was received, and tab entry, scrolling
//! and `r` (the only key that reads).

use crate::rig::{admitted, dispatch, observe, retire, ticket};
use crate::view_asks::{answered_with_turn, paint, press};
use crossterm::event::KeyCode;
use masc_tui::actors::asks::AsksCommand;
use masc_tui::actors::contract::SlotEvent;
use masc_tui::actors::inspector::{InspectorCommand, InspectorObservation, InspectorSlot};
use masc_tui::protocol::client::{Admitted, ClientError};
use masc_tui::protocol::inspector::{ProviderInput, TurnRecordsPage};
use masc_tui::protocol::routes::RouteFamily;
use masc_tui::timeline::capture::StageRecorder;
use masc_tui::view::admission::RejectReason;
use masc_tui::view::inspector::NotWidened;
use masc_tui::view::keys::UiCommand;
use masc_tui::view::model::Model;
use masc_tui::view::outgoing::InspectorRequest;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

pub fn sha(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
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
    page_of(keeper, records, 50)
}

/// A page read with `limit` (one row refused by MASC's strict decode, as `page`).
pub fn page_of(keeper: &str, records: Vec<Value>, limit: u32) -> TurnRecordsPage {
    let entries: Vec<Value> = records
        .into_iter()
        .map(|r| json!({"record": r, "diff_vs_prev": null}))
        .collect();
    let body = json!({
        "keeper": keeper, "count": entries.len(), "skipped_rows": 1, "health": "stale",
        "stale_reason": "freshness_slo_exceeded", "live_turn_in_progress": false,
        "latest_ts_unix": 1787600000.0, "latest_age_s": 5000.0, "entries": entries
    });
    TurnRecordsPage::decode_with_limit(body.to_string().as_bytes(), keeper, limit).unwrap()
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

/// A read that failed with status 500.
fn failed_500<T>() -> Result<Admitted<T>, ClientError> {
    Err(ClientError::Status {
        status: 500,
        body: "{}".into(),
    })
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
    // A page without trace-rondo#7 (3 rows of 50: every row MASC holds): not found, never
    // turn 6's or 8's record.
    let without = page(
        "rondo",
        vec![
            record("rondo", "trace-rondo", 6, "p"),
            record("rondo", "trace-rondo", 8, "p"),
        ],
    );
    observe_records(&mut m, 1, admitted(without)).unwrap();
    let text = paint(&m, &ui);
    assert!(
        text.contains("not found: rondo's turn records (3 rows, every row MASC holds)"),
        "{text}"
    );
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
    observe_records(&mut m, 4, failed_500()).unwrap();
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
            !matches!(cmd, UiCommand::Send(_) | UiCommand::Many(_)),
            "{code:?} issued a read: {cmd:?}"
        );
    }
    match press(&mut ui, &m, KeyCode::Char('r')) {
        UiCommand::Many(cmds) => {
            assert!(cmds.contains(&UiCommand::send(AsksCommand::Transcript(target.clone()))));
            assert!(cmds.contains(&UiCommand::send(InspectorRequest::Reread(
                InspectorSlot::Records("rondo".into())
            ))));
            assert!(cmds.contains(&UiCommand::send(InspectorRequest::Reread(
                InspectorSlot::Input(target)
            ))));
        }
        other => panic!("{other:?}"),
    }
}

/// `n` records of rondo's turns `from..from + n` (never turn 7 unless the range holds it).
fn turns(from: u64, n: u64) -> Vec<Value> {
    (from..from + n)
        .map(|t| record("rondo", "trace-rondo", t, "p"))
        .collect()
}

fn notice(ui: &masc_tui::view::screens::Ui) -> String {
    ui.notice.text.clone().unwrap_or_default()
}

/// K-14, §14.11 (MASC has no cursor on turn records, only `limit` 1–500): `1:record` says
/// where the pinned turn stands with the limit the page was read with — not on this page
/// (newest 50 read) with `H` offered; reading the wider page; not among the rows MASC holds
/// (a page shorter than asked); not found in MASC's maximum 500; found on the wider page.
/// `H` asks for the next wider page only when one may hold the turn, else says why.
#[test]
fn k14_h_widens_the_records_page_and_each_absence_is_its_own_words() {
    let (mut m, mut ui, _target) = answered_with_turn();
    let _ = press(&mut ui, &m, KeyCode::Char('O'));
    // Before any page: H reads nothing.
    assert_eq!(press(&mut ui, &m, KeyCode::Char('H')), UiCommand::Repaint);
    assert!(notice(&ui).contains("no turn records read yet"));
    // The newest 50 (49 records + 1 refused row) without turn 7.
    dispatch(&mut m, ticket(records_slot(), 1));
    observe_records(&mut m, 1, admitted(page_of("rondo", turns(100, 49), 50))).unwrap();
    press(&mut ui, &m, KeyCode::Char('2'));
    let text = paint(&m, &ui);
    assert!(!text.contains("[1:record]"), "{text}");
    // H: the record tab, and the next wider page asked for.
    assert_eq!(
        press(&mut ui, &m, KeyCode::Char('H')),
        UiCommand::send(InspectorRequest::Widen {
            keeper: "rondo".into()
        })
    );
    let text = paint(&m, &ui);
    assert!(text.contains("[1:record]"), "{text}");
    assert!(
        text.contains("this turn is not on this page (newest 50 read; H reads 200)"),
        "{text}"
    );
    assert!(
        text.contains("not on this page (newest 50 read): the 49 records of rondo"),
        "{text}"
    );
    assert!(text.contains("H: read the newest 200"), "{text}");
    assert!(
        !text.contains("turn trace-rondo#100 ·"),
        "never another turn's record"
    );
    // What the view actor does with it: the wider read, its own ticket.
    assert_eq!(
        m.inspector.widen("rondo"),
        Ok(InspectorCommand::Records {
            keeper: "rondo".into(),
            limit: 200
        })
    );
    dispatch(&mut m, ticket(records_slot(), 2));
    let text = paint(&m, &ui);
    assert!(
        text.contains("reading the newest 200 (조회 중) · the newest 50 shown"),
        "{text}"
    );
    // H while it reads: the same wider page again (shared by the source), not 500.
    assert_eq!(
        press(&mut ui, &m, KeyCode::Char('H')),
        UiCommand::send(InspectorRequest::Reread(records_slot()))
    );
    // 120 rows of 200: every row MASC holds, and no turn 7 among them.
    observe_records(&mut m, 2, admitted(page_of("rondo", turns(100, 119), 200))).unwrap();
    let text = paint(&m, &ui);
    assert!(
        text.contains("this turn is not among the 120 rows MASC holds"),
        "{text}"
    );
    assert!(
        text.contains("not found: rondo's turn records (120 rows, every row MASC holds)"),
        "{text}"
    );
    assert!(!text.contains("H: read"), "{text}");
    assert_eq!(press(&mut ui, &m, KeyCode::Char('H')), UiCommand::Repaint);
    assert!(notice(&ui).contains("MASC holds no turn record older"));
    // MASC's maximum: 500 rows, turn 7 not among them; H cannot go further.
    assert_eq!(
        m.inspector.widen("rondo"),
        Ok(InspectorCommand::Records {
            keeper: "rondo".into(),
            limit: 500
        })
    );
    dispatch(&mut m, ticket(records_slot(), 3));
    observe_records(&mut m, 3, admitted(page_of("rondo", turns(100, 499), 500))).unwrap();
    let text = paint(&m, &ui);
    assert!(
        text.contains("this turn is not found in MASC's maximum 500"),
        "{text}"
    );
    assert!(
        text.contains("not found in MASC's maximum 500: the 499 newest records of rondo"),
        "{text}"
    );
    assert_eq!(press(&mut ui, &m, KeyCode::Char('H')), UiCommand::Repaint);
    assert!(notice(&ui).contains("500 is MASC's maximum"));
    assert_eq!(m.inspector.widen("rondo"), Err(NotWidened::AtMaximum));
    // A re-read at the maximum holds turn 7: its own record, H has nothing to do.
    dispatch(&mut m, ticket(records_slot(), 4));
    let mut with = turns(100, 498);
    with.insert(0, record("rondo", "trace-rondo", 7, "keeper instructions"));
    observe_records(&mut m, 4, admitted(page_of("rondo", with, 500))).unwrap();
    let text = paint(&m, &ui);
    assert!(text.contains("turn trace-rondo#7 · autonomous"), "{text}");
    assert!(!text.contains("not on this page"), "{text}");
    assert_eq!(press(&mut ui, &m, KeyCode::Char('H')), UiCommand::Repaint);
    assert!(notice(&ui).contains("the pinned turn is on this page"));
}

/// K-14, K-15, G-7: a narrower page that arrives late — after the wider read was dispatched,
/// before or after its result — is rejected and traced (`superseded` while the wider read owns
/// the slot, `withdrawn` once it ended and nothing owns it) and never replaces the wider page
/// or its "reading" state.
#[test]
fn k14_a_late_narrower_page_is_rejected_and_traced_never_shown_over_the_wider() {
    let recorder = StageRecorder::new();
    let _trace = tracing::subscriber::set_default(recorder.subscriber());
    let (mut m, mut ui, _target) = answered_with_turn();
    let _ = press(&mut ui, &m, KeyCode::Char('O'));
    press(&mut ui, &m, KeyCode::Char('1'));
    // The narrower read in flight; the wider one supersedes it (the source retires the first).
    dispatch(&mut m, ticket(records_slot(), 1));
    m.inspector.widen("rondo").unwrap();
    retire(&mut m, ticket(records_slot(), 1));
    dispatch(&mut m, ticket(records_slot(), 2));
    // Late, before the wider result: rejected; still reading.
    assert_eq!(
        observe_records(&mut m, 1, admitted(page_of("rondo", turns(100, 49), 50))),
        Err(RejectReason::Superseded)
    );
    assert!(paint(&m, &ui).contains("reading (조회 중)"));
    let mut with = turns(100, 150);
    with.insert(0, record("rondo", "trace-rondo", 7, "keeper instructions"));
    observe_records(&mut m, 2, admitted(page_of("rondo", with, 200))).unwrap();
    // Late, after it: rejected; the wider page and turn 7's record stay.
    assert_eq!(
        observe_records(&mut m, 1, admitted(page_of("rondo", turns(100, 49), 50))),
        Err(RejectReason::Withdrawn)
    );
    let text = paint(&m, &ui);
    assert!(text.contains("turn trace-rondo#7 · autonomous"), "{text}");
    assert!(
        text.contains("received · 151 newest turn records"),
        "{text}"
    );
    assert!(!text.contains("not on this page"), "{text}");
    let page = m.inspector.records["rondo"].fetched.last().unwrap();
    assert_eq!(page.value.limit, 200);
    let rejected = recorder.records_where(|r| {
        r.stage == "reject" && r.source == "turn_records" && r.generation == Some(1)
    });
    let reasons: Vec<Option<&str>> = rejected.iter().map(|r| r.reason.as_deref()).collect();
    assert_eq!(
        reasons,
        [Some("superseded"), Some("withdrawn")],
        "{rejected:?}"
    );
}

/// K-14, K-15, G-4: a wider read that fails keeps the narrower page beside its failure (the
/// failure first, then where the pinned turn stands, with the wider page still offered); `H`
/// then asks for that same wider page again (never a third, wider one), and a record shows
/// once it arrives.
#[test]
fn k14_a_failed_wider_read_keeps_the_page_and_h_asks_the_same_wider_page_again() {
    let (mut m, mut ui, _target) = answered_with_turn();
    let _ = press(&mut ui, &m, KeyCode::Char('O'));
    press(&mut ui, &m, KeyCode::Char('1'));
    dispatch(&mut m, ticket(records_slot(), 1));
    observe_records(&mut m, 1, admitted(page_of("rondo", turns(100, 49), 50))).unwrap();
    assert_eq!(
        press(&mut ui, &m, KeyCode::Char('H')),
        UiCommand::send(InspectorRequest::Widen {
            keeper: "rondo".into()
        })
    );
    m.inspector.widen("rondo").unwrap();
    dispatch(&mut m, ticket(records_slot(), 2));
    observe_records(&mut m, 2, failed_500()).unwrap();
    let text = paint(&m, &ui);
    // The state row (failure first; the width cuts its end) and the page's own rows.
    assert!(
        text.contains(
            "read failed (status_500) · last observation shown · this turn is not on this page"
        ),
        "{text}"
    );
    assert!(
        text.contains("not on this page (newest 50 read): the 49 records of rondo"),
        "{text}"
    );
    assert!(text.contains("H: read the newest 200"), "{text}");
    assert_eq!(
        press(&mut ui, &m, KeyCode::Char('H')),
        UiCommand::send(InspectorRequest::Reread(records_slot())),
        "the same wider page again"
    );
    assert_eq!(
        m.inspector.reread(records_slot()),
        InspectorCommand::Records {
            keeper: "rondo".into(),
            limit: 200
        }
    );
    dispatch(&mut m, ticket(records_slot(), 3));
    assert!(paint(&m, &ui).contains("reading the newest 200 (조회 중) · the newest 50 shown"));
    let mut with = turns(100, 150);
    with.push(record("rondo", "trace-rondo", 7, "keeper instructions"));
    observe_records(&mut m, 3, admitted(page_of("rondo", with, 200))).unwrap();
    let text = paint(&m, &ui);
    assert!(text.contains("turn trace-rondo#7 · autonomous"), "{text}");
    assert!(!text.contains("read failed"), "{text}");
}
