#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! The newer chat store on screen (protocol-15 §15.9): a page with `system`
//! Gate rows, an unknown role and an unpaired identity opens whole, the Gate steps of one
//! approval fold into one row in the seeds' grammar (C-53 news first, C-54 comma, `○`, a failed
//! replay `✗`), other senders are named (`◀`), autonomous turns of the bare-array history join
//! by time labelled `AUTO`, a failure the store recorded under this console's request id is
//! drawn once, and the held-call stream events update the gate row at once.

use crate::chat_screen::{chat_ticket, draw, opened, page};
use masc_tui::actors::chat::{ChatObservation, ChatSlot, SendOutcome, SendStep, UnknownCause};
use masc_tui::actors::contract::Ticket;
use masc_tui::protocol::admission::AdmissionMode;
use masc_tui::protocol::chat::{
    ChatHistoryArray, ChatHistoryPage, ChatStreamEvent, OperationState, ToolApprovalRequest,
    ToolApprovalSettled,
};
use masc_tui::protocol::client::{Admitted, ClientError};
use masc_tui::protocol::decode::WireDecode;
use masc_tui::view::model::Model;
use masc_tui::view::sample::{self, buffer_text};
use masc_tui::view::screens::Ui;
use masc_tui::view::screens::chat::ChatUi;
use masc_tui::view::transcript::{JournalMode, OriginMode, ScrollPosition, ViewModes};
use std::sync::Arc;

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/compat")
            .join(name),
    )
    .unwrap()
}

fn newer_page() -> ChatHistoryPage {
    ChatHistoryPage::decode(&fixture("keeper_chat_history_page__newer_store_rows.json")).unwrap()
}

fn apply_page(model: &mut Model, keeper: &str, p: ChatHistoryPage) {
    let mut rows = page(Vec::new());
    if let ChatObservation::HistoryPage { result: Ok(a), .. } = &mut rows {
        a.value = Arc::new(p);
    }
    model
        .chat
        .pane
        .as_mut()
        .unwrap()
        .apply(&chat_ticket(keeper, 1), rows);
}

fn screen(model: &Model, ui: &mut Ui, modes: ViewModes) -> String {
    // Wide enough for the title's counts in one row.
    ui.area.width = 200;
    let chat = ui.layer_mut::<ChatUi>().unwrap();
    chat.modes = modes;
    chat.scroll = ScrollPosition::FromTop(0);
    buffer_text(&draw(model, ui))
}

/// The chat's title row (navigation, then what the history holds beyond its rows).
fn title(text: &str) -> &str {
    text.lines()
        .find(|l| l.contains("Keepers › chat"))
        .unwrap_or_default()
}

fn lines_with<'a>(text: &'a str, words: &str) -> Vec<&'a str> {
    text.lines().filter(|l| l.contains(words)).collect()
}

/// §15.9, C-53, C-54, C-44: the newer page opens whole (12 rows, none blanking it); the three
/// steps of `appr-ops-1` are one row, news first (`승인됨, 적용됨`), then the tool and what the
/// held call asked for, with the status mark `○`; the other Keeper's row is `◀ sangsu · agent`;
/// the failures are `✗` rows; the title counts the unknown role and the unpaired identity; the
/// neutral rows are in the memory lane (hidden by default, shown by Ctrl-N).
#[test]
fn s15_9_c53_a_newer_page_opens_whole_with_its_gate_steps_folded() {
    let (mut model, mut ui, keeper) = opened(0);
    apply_page(&mut model, &keeper, newer_page());
    let text = screen(&model, &mut ui, ViewModes::default());
    let gate = lines_with(&text, "적용됨 · tool_execute · rm /var/log/old/*.gz");
    assert_eq!(
        gate.len(),
        1,
        "one row for the approval's three steps\n{text}"
    );
    assert!(
        gate[0].contains("승인됨, 적용됨 · tool_execute"),
        "news first, two facts joined by a comma: {}",
        gate[0]
    );
    assert!(gate[0].trim_start().starts_with('○'), "{}", gate[0]);
    assert!(
        !text.contains("승인 대기"),
        "the waiting word left once approved"
    );
    assert!(
        lines_with(&text, "sangsu")
            .iter()
            .any(|l| l.contains('◀') && l.contains("sangsu · agent")),
        "another Keeper is an inbound sender, never the operator\n{text}"
    );
    for failure in ["provider closed the connection", "lane unavailable"] {
        let rows = lines_with(&text, failure);
        assert_eq!(rows.len(), 1, "{failure}\n{text}");
        assert!(rows[0].contains('✗'), "{}", rows[0]);
    }
    assert!(text.contains("정리 끝났어요."));
    let title = title(&text);
    assert!(
        title.contains("1 rows of an unknown role or kind in the memory lane (Ctrl-N)")
            && title.contains("1 delivery identities ignored"),
        "{title}"
    );
    assert!(
        !text.contains("운영자가 이 턴을 고정함"),
        "memory lane hidden by default"
    );
    let full = screen(
        &model,
        &mut ui,
        ViewModes {
            journal: JournalMode::Full,
            ..ViewModes::default()
        },
    );
    for neutral in ["운영자가 이 턴을 고정함", "Librarian committed"] {
        assert!(
            lines_with(&full, neutral).iter().any(|l| l.contains('◈')),
            "{neutral}\n{full}"
        );
    }
}

/// C-8, §15.9: a rejected approval reads `거부됨`; a failed replay makes the approval's row a
/// failure (`✗`), and steps of one approval arriving on an older page fold into its row.
#[test]
fn s15_9_c8_a_rejected_and_a_failed_approval_read_as_such() {
    let (mut model, mut ui, keeper) = opened(0);
    let body = br#"{"messages":[
        {"id":"g1","role":"system","content":"","ts":10.0,"approval_lifecycle":{"approval_id":"a2","phase":"resolved_rejected","tool_name":"Execute","call_summary":"git push --force"}},
        {"id":"g2","role":"system","content":"","ts":11.0,"approval_lifecycle":{"approval_id":"a3","phase":"replay_failed","tool_name":"Write"}}
    ]}"#;
    apply_page(&mut model, &keeper, ChatHistoryPage::decode(body).unwrap());
    let older = br#"{"messages":[
        {"id":"g0","role":"system","content":"","ts":5.0,"approval_lifecycle":{"approval_id":"a3","phase":"resolved_approved","tool_name":"Write"}}
    ]}"#;
    let older = ChatHistoryPage::decode(older).unwrap();
    model.chat.pane.as_mut().unwrap().apply(
        &chat_ticket(&keeper, 2),
        ChatObservation::HistoryPage {
            before: Some(10.0),
            result: Ok(Admitted {
                value: Arc::new(older),
                mode: AdmissionMode::Receipt,
                from_cache: false,
            }),
        },
    );
    let text = screen(&model, &mut ui, ViewModes::default());
    let rejected = lines_with(&text, "git push --force");
    assert_eq!(rejected.len(), 1, "{text}");
    assert!(rejected[0].contains("거부됨 · Execute"), "{}", rejected[0]);
    let failed = lines_with(&text, "적용 실패");
    assert_eq!(failed.len(), 1, "{text}");
    assert!(
        failed[0].contains("승인됨, 적용 실패 · Write"),
        "{}",
        failed[0]
    );
    assert!(failed[0].contains('✗'), "C-8: {}", failed[0]);
}

fn autonomous(model: &mut Model, keeper: &str, result: Result<ChatHistoryArray, ClientError>) {
    model.chat.pane.as_mut().unwrap().apply(
        &Ticket {
            slot: ChatSlot::Autonomous {
                keeper: keeper.into(),
            },
            generation: 1,
            scope: sample::scope(1),
        },
        ChatObservation::Autonomous {
            result: result.map(|a| Admitted {
                value: Arc::new(a),
                mode: AdmissionMode::Receipt,
                from_cache: false,
            }),
        },
    );
}

/// §15.9, C-25: the autonomous turns of the bare array join the transcript by time (the direct
/// rows it repeats are not drawn twice), labelled `AUTO` in the origin rows, with their tool
/// steps and the count of steps the transcript does not carry; a turn that said nothing keeps
/// one status line. A read the server does not serve is said in the title, never an empty
/// chat.
#[test]
fn s15_9_c25_autonomous_turns_join_by_time_labelled_auto() {
    let (mut model, mut ui, keeper) = opened(0);
    let direct = br#"{"messages":[
        {"id":"m-1","role":"user","content":"status?","ts":1795140000.5},
        {"id":"m-2","role":"assistant","content":"All green.","ts":1795140060.5},
        {"id":"m-3","role":"user","content":"later question","ts":1795143000.5}
    ]}"#;
    apply_page(
        &mut model,
        &keeper,
        ChatHistoryPage::decode(direct).unwrap(),
    );
    let array = ChatHistoryArray::decode(&fixture(
        "keeper_chat_history__bare_array_with_autonomous_rows.json",
    ))
    .unwrap();
    autonomous(&mut model, &keeper, Ok(array));
    let text = screen(
        &model,
        &mut ui,
        ViewModes {
            origin: OriginMode::Row,
            ..ViewModes::default()
        },
    );
    assert_eq!(lines_with(&text, "All green.").len(), 1, "{text}");
    let at = |words: &str| {
        text.find(words)
            .unwrap_or_else(|| panic!("{words:?} not shown\n{text}"))
    };
    assert!(
        at("All green.") < at("야간 로그 로테이션")
            && at("야간 로그 로테이션") < at("later question")
    );
    assert!(
        text.lines().any(|l| l.contains("AUTO")),
        "C-25: the autonomous turn is named AUTO\n{text}"
    );
    assert!(
        text.contains("(3 steps not carried by the transcript)"),
        "{text}"
    );
    assert!(
        text.contains("autonomous turn · no text or steps recorded"),
        "{text}"
    );
    assert!(text.contains("masc_task_history"), "{text}");

    let (mut model, mut ui, keeper) = opened(1);
    apply_page(
        &mut model,
        &keeper,
        ChatHistoryPage::decode(direct).unwrap(),
    );
    autonomous(
        &mut model,
        &keeper,
        Err(ClientError::NotServed {
            route: masc_tui::protocol::routes::RouteFamily::ChatHistoryArray,
        }),
    );
    let text = screen(&model, &mut ui, ViewModes::default());
    assert!(
        title(&text).contains("autonomous turns not served by this MASC"),
        "{text}"
    );
    assert!(text.contains("All green."));
}

const SEND: &str = "tui-0190f5a0-0000-7000-8000-0000000000f1";

fn send_step(model: &mut Model, keeper: &str, step: SendStep) {
    crate::chat_screen::send_step(model, keeper, SEND, step);
}

/// §15.9, C-8: a send whose stream was cut (outcome unknown, `전송 확인 중`) and whose failure
/// the store recorded under its request id (`delivery_key` operation) is settled by that row:
/// one failure row, no pending label, nothing left "to confirm".
#[test]
fn s15_9_a_failure_recorded_under_the_send_id_is_drawn_once() {
    let (mut model, mut ui, keeper) = opened(0);
    model
        .chat
        .pane
        .as_mut()
        .unwrap()
        .register_send(SEND, "로그 로테이션 주기 알려 줘");
    for s in [
        SendStep::Written,
        SendStep::Sending,
        SendStep::Accepted {
            state: OperationState::Queued,
            interactive: None,
        },
        SendStep::Ended(SendOutcome::OutcomeUnknown {
            cause: UnknownCause::Transport,
            accepted: true,
        }),
    ] {
        send_step(&mut model, &keeper, s);
    }
    let before = screen(&model, &mut ui, ViewModes::default());
    assert!(before.contains("전송 확인 중"), "{before}");
    let body = format!(
        r#"{{"messages":[
        {{"id":"u","role":"user","content":"로그 로테이션 주기 알려 줘","ts":1.0,"delivery_key":{{"kind":"operation","operation_id":"{SEND}"}},"transcript_slot":{{"kind":"accepted_user"}}}},
        {{"id":"f","role":"assistant","kind":"transport_failure","content":"Keeper request failed: provider closed the connection","ts":2.0,"delivery_key":{{"kind":"operation","operation_id":"{SEND}"}},"transcript_slot":{{"kind":"terminal_assistant"}}}}
    ]}}"#
    );
    apply_page(
        &mut model,
        &keeper,
        ChatHistoryPage::decode(body.as_bytes()).unwrap(),
    );
    let after = screen(&model, &mut ui, ViewModes::default());
    assert_eq!(
        lines_with(&after, "provider closed the connection").len(),
        1,
        "{after}"
    );
    assert!(!after.contains("전송 확인 중"), "{after}");
    assert_eq!(
        lines_with(&after, "로그 로테이션 주기 알려 줘").len(),
        1,
        "{after}"
    );
    let pane = model.chat.pane.as_ref().unwrap();
    assert_eq!(pane.send(SEND).unwrap().unknown_standing(), None);
}

/// §15.9 (stream `CUSTOM` events for held calls): `KEEPER_TOOL_APPROVAL_REQUESTED` draws the
/// call's gate row at once; `…_SETTLED` says the wait ended with its outcome; a settlement for a
/// call never announced invents no row.
#[test]
fn s15_9_c44_held_call_events_update_the_gate_row_at_once() {
    let (mut model, mut ui, keeper) = opened(0);
    model
        .chat
        .pane
        .as_mut()
        .unwrap()
        .register_send(SEND, "작업 목록 봐 줘");
    for s in [
        SendStep::Written,
        SendStep::Sending,
        SendStep::Accepted {
            state: OperationState::Running,
            interactive: None,
        },
        SendStep::Event(ChatStreamEvent::RunStarted),
        SendStep::Event(ChatStreamEvent::ToolApprovalRequested(Box::new(
            ToolApprovalRequest {
                tool_call_id: "tc-1".into(),
                tool_call_name: "masc_task_list".into(),
                args: "{}".into(),
                question: Some("작업 목록을 읽어도 될까요?".into()),
                because: None,
            },
        ))),
    ] {
        send_step(&mut model, &keeper, s);
    }
    let waiting = screen(&model, &mut ui, ViewModes::default());
    let rows = lines_with(
        &waiting,
        "승인 대기 · masc_task_list · 작업 목록을 읽어도 될까요?",
    );
    assert_eq!(rows.len(), 1, "{waiting}");
    assert!(rows[0].contains('○'), "{}", rows[0]);
    send_step(
        &mut model,
        &keeper,
        SendStep::Event(ChatStreamEvent::ToolApprovalSettled(ToolApprovalSettled {
            tool_call_id: "tc-unknown".into(),
            outcome: "approved".into(),
        })),
    );
    assert_eq!(screen(&model, &mut ui, ViewModes::default()), waiting);
    send_step(
        &mut model,
        &keeper,
        SendStep::Event(ChatStreamEvent::ToolApprovalSettled(ToolApprovalSettled {
            tool_call_id: "tc-1".into(),
            outcome: "Approved".into(),
        })),
    );
    let settled = screen(&model, &mut ui, ViewModes::default());
    assert_eq!(
        lines_with(&settled, "승인됨 · 대기 끝남 · masc_task_list").len(),
        1,
        "{settled}"
    );
    assert!(!settled.contains("승인 대기"), "{settled}");
}
