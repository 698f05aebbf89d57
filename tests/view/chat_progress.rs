#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! The one progress row of the chat target (chat-screen.md C-39, C-40, C-42;
//! seed 000 "Working은 턴이 진행 중이라는 뜻이다. Thinking·답변 델타를 실제로 받으면 진행줄에
//! `THINKING`·`STREAMING`을 표시한다"; seed 001 "이어서 처리하기를 기다리는 요청은 진행줄을
//! 그리지 않는다. 다음 실행이 시작되면 진행줄이 돌아온다").

use crate::chat_screen::{draw, opened};
use crate::chat_turn_esc::step;
use masc_tui::actors::chat::{SendOutcome, SendStep};
use masc_tui::protocol::chat::{ChatStreamEvent, OperationState, ReplyDetails, TurnOutcome};
use masc_tui::view::model::Model;
use masc_tui::view::sample::buffer_text;
use masc_tui::view::screens::Ui;

const A: &str = "tui-0190f5a0-0000-7000-8000-0000000000c1";
const B: &str = "tui-0190f5a0-0000-7000-8000-0000000000c2";

fn progress_rows(model: &Model, ui: &Ui) -> Vec<String> {
    buffer_text(&draw(model, ui))
        .lines()
        .filter(|l| l.trim_start().starts_with('○'))
        .map(|l| l.trim().to_string())
        .collect()
}

fn accepted() -> SendStep {
    SendStep::Accepted {
        state: OperationState::Queued,
        interactive: None,
    }
}

/// C-39, C-40: after `RUN_STARTED` the row says `Working` (never `THINKING` before a delta; a
/// thinking event without text changes nothing), `THINKING` after a thinking delta,
/// `STREAMING` after an answer delta, the current call's name while a call is open — one row,
/// no timer, no runtime id, no list of earlier calls.
#[test]
fn c39_c40_progress_tokens_follow_observed_deltas_and_name_the_current_call() {
    let (mut model, ui, keeper) = opened(0);
    model
        .chat
        .pane
        .as_mut()
        .unwrap()
        .register_send(A, "status?");
    for s in [SendStep::Written, SendStep::Sending, accepted()] {
        step(&mut model, &keeper, A, s);
    }
    let expect = |model: &Model, token: &str| {
        let rows = progress_rows(model, &ui);
        assert!(
            rows.iter().any(|r| r == token),
            "expected {token:?} in {rows:?}"
        );
        for other in ["○ Working", "○ THINKING", "○ STREAMING"] {
            if other != token {
                assert!(
                    !rows.iter().any(|r| r == other),
                    "{other} with {token}: {rows:?}"
                );
            }
        }
    };
    step(
        &mut model,
        &keeper,
        A,
        SendStep::Event(ChatStreamEvent::RunStarted),
    );
    expect(&model, "○ Working");
    step(
        &mut model,
        &keeper,
        A,
        SendStep::Event(ChatStreamEvent::ThinkingDelta { delta: None }),
    );
    expect(&model, "○ Working");
    step(
        &mut model,
        &keeper,
        A,
        SendStep::Event(ChatStreamEvent::ThinkingDelta {
            delta: Some("checking".into()),
        }),
    );
    expect(&model, "○ THINKING");
    step(
        &mut model,
        &keeper,
        A,
        SendStep::Event(ChatStreamEvent::ToolCallStart {
            tool_call_id: Some("tc-1".into()),
            tool_call_name: "masc_task_list".into(),
        }),
    );
    expect(&model, "○ Working · masc_task_list");
    step(
        &mut model,
        &keeper,
        A,
        SendStep::Event(ChatStreamEvent::ToolCallEnd {
            tool_call_id: "tc-1".into(),
        }),
    );
    expect(&model, "○ Working");
    step(
        &mut model,
        &keeper,
        A,
        SendStep::Event(ChatStreamEvent::TextStart {
            message_id: "m-1".into(),
        }),
    );
    step(
        &mut model,
        &keeper,
        A,
        SendStep::Event(ChatStreamEvent::TextDelta {
            message_id: "m-1".into(),
            delta: "All".into(),
        }),
    );
    expect(&model, "○ STREAMING");
    // C-40: the call that ended is no longer named; nothing else shares the row.
    assert!(
        !progress_rows(&model, &ui)
            .iter()
            .any(|r| r.starts_with("○ Working ·")),
        "no earlier call on the row"
    );
}

/// C-42: a request queued behind the running turn (waiting for its continuation) draws no
/// progress row and does not hide the running turn's; it is shown once (its `처리 대기` label);
/// when its own run starts, the progress row is its.
#[test]
fn c42_a_request_waiting_behind_the_running_turn_draws_no_progress_row_and_shows_once() {
    let (mut model, ui, keeper) = opened(0);
    let pane = model.chat.pane.as_mut().unwrap();
    pane.register_send(A, "first question");
    pane.register_send(B, "second question");
    for s in [
        SendStep::Written,
        SendStep::Sending,
        accepted(),
        SendStep::Event(ChatStreamEvent::RunStarted),
        SendStep::Event(ChatStreamEvent::TextStart {
            message_id: "m-a".into(),
        }),
        SendStep::Event(ChatStreamEvent::TextDelta {
            message_id: "m-a".into(),
            delta: "Working on".into(),
        }),
    ] {
        step(&mut model, &keeper, A, s);
    }
    for s in [SendStep::Written, SendStep::Sending, accepted()] {
        step(&mut model, &keeper, B, s);
    }
    let rows = progress_rows(&model, &ui);
    assert_eq!(rows, vec!["○ STREAMING".to_string()], "{rows:?}");
    let text = buffer_text(&draw(&model, &ui));
    let second: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("second question"))
        .collect();
    assert_eq!(second.len(), 1, "shown once:\n{text}");
    assert!(second[0].contains("처리 대기"), "{}", second[0]);
    assert_eq!(text.matches("처리 대기").count(), 1, "{text}");
    // A ends; B's run starts: the row is B's.
    step(
        &mut model,
        &keeper,
        A,
        SendStep::Ended(SendOutcome::Completed {
            reply: ReplyDetails {
                reply: "Working on it.".into(),
                turn_outcome: TurnOutcome("visible_reply".into()),
                turn_ref: "trace-c#1".into(),
            },
        }),
    );
    assert!(
        progress_rows(&model, &ui).is_empty(),
        "B still waits: no row"
    );
    step(
        &mut model,
        &keeper,
        B,
        SendStep::Event(ChatStreamEvent::RunStarted),
    );
    assert_eq!(progress_rows(&model, &ui), vec!["○ Working".to_string()]);
}
