#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! Batch diagnostics on screen (chat-screen.md C-37, C-42, C-30; seed 001
//! "batch는 실제 실행 ID로 인덱싱하고 첫 등장 순서·원래 가장 이른 입력·재확인 수를 보존한다",
//! "같은 실행을 진행줄과 `기존 작업 처리 중`으로 중복 표시하지 않는다"), drawn with a
//! TestBackend: one progress line for a batched run, and `/queue` naming the execution and its
//! members in full.

// `send_step`'s keeper is the Keeper whose stream carried the step (its ticket's slot).
use crate::chat_screen::{draw, opened, queued_steps, send_step as step_on};
use masc_tui::actors::chat::SendStep;
use masc_tui::protocol::chat::{BatchBinding, ChatStreamEvent};
use masc_tui::view::model::Model;
use masc_tui::view::sample::buffer_text;
use masc_tui::view::screens::Ui;
use masc_tui::view::screens::chat::ChatOverlay;
use masc_tui::view::screens::chat::ChatOverlayLayer;
use masc_tui::view::screens::chat::ChatUi;
use masc_tui::view::screens::chat::overlay::open as open_overlay;

const A: &str = "tui-0190f5a0-0000-7000-8000-0000000000b1";
const B: &str = "tui-0190f5a0-0000-7000-8000-0000000000b2";
const C: &str = "tui-0190f5a0-0000-7000-8000-0000000000b3";

fn bound(operation: &str, execution: &str) -> SendStep {
    SendStep::Event(ChatStreamEvent::BatchBound(BatchBinding {
        operation_id: operation.into(),
        execution_id: execution.into(),
    }))
}

/// `keeper`'s chat with A and B accepted as queued, both bound to execution A (the binding
/// before `RUN_STARTED`, as in MASC's batch fixture).
fn two_bound() -> (Model, Ui, String) {
    let (mut model, ui, keeper) = opened(0);
    let pane = model.chat.pane.as_mut().unwrap();
    pane.register_send(A, "first input\nwith a second line");
    pane.register_send(B, "second input");
    for id in [A, B] {
        for s in queued_steps() {
            step_on(&mut model, &keeper, id, s);
        }
        step_on(&mut model, &keeper, id, bound(id, A));
    }
    (model, ui, keeper)
}

fn progress_rows(model: &Model, ui: &Ui) -> Vec<String> {
    buffer_text(&draw(model, ui))
        .lines()
        .filter(|l| l.trim_start().starts_with('○'))
        .map(|l| l.trim().to_string())
        .collect()
}

fn queue_text(model: &Model, ui: &mut Ui) -> String {
    let keeper = ui.layer::<ChatUi>().unwrap().keeper.clone();
    open_overlay(ui, &keeper, ChatOverlay::Queue);
    let text = buffer_text(&draw(model, ui));
    ui.layers.remove::<ChatOverlayLayer>();
    text
}

/// C-37, C-42: two inputs running in one execution draw ONE progress line, which says how
/// many messages the turn holds; before the run starts, the queued inputs draw none; the
/// conversation and the progress line never carry the execution id (C-30).
#[test]
fn c37_c42_a_batched_run_draws_one_progress_line_naming_its_inputs() {
    let (mut model, ui, keeper) = two_bound();
    assert!(
        progress_rows(&model, &ui).is_empty(),
        "queued: no line (C-42)"
    );
    for id in [A, B] {
        step_on(
            &mut model,
            &keeper,
            id,
            SendStep::Event(ChatStreamEvent::RunStarted),
        );
        step_on(
            &mut model,
            &keeper,
            id,
            SendStep::Event(ChatStreamEvent::TextStart {
                message_id: format!("m-{id}"),
            }),
        );
        step_on(
            &mut model,
            &keeper,
            id,
            SendStep::Event(ChatStreamEvent::TextDelta {
                message_id: format!("m-{id}"),
                delta: "on it".into(),
            }),
        );
    }
    let rows = progress_rows(&model, &ui);
    assert_eq!(rows, ["○ STREAMING · 2 messages in one turn"], "{rows:?}");
    let screen = buffer_text(&draw(&model, &ui));
    assert!(!screen.contains(A) && !screen.contains(B), "{screen}");
}

/// C-42: a run alone (no binding) keeps its plain progress line.
#[test]
fn c42_a_run_alone_names_no_batch() {
    let (mut model, ui, keeper) = opened(0);
    model.chat.pane.as_mut().unwrap().register_send(C, "alone");
    for s in queued_steps()
        .into_iter()
        .chain([SendStep::Event(ChatStreamEvent::RunStarted)])
    {
        step_on(&mut model, &keeper, C, s);
    }
    assert_eq!(progress_rows(&model, &ui), ["○ Working"]);
}

/// C-37, C-30: `/queue` shows each waiting input's execution in full, then the execution
/// with its members earliest first (request ids in full, first lines), and the re-confirmation
/// count of a member bound again.
#[test]
fn c37_c30_queue_names_the_execution_and_its_members_in_full() {
    let (mut model, mut ui, keeper) = two_bound();
    step_on(&mut model, &keeper, B, bound(B, A));
    let text = queue_text(&model, &mut ui);
    assert!(text.contains("대기 입력 2건"), "{text}");
    assert_eq!(
        text.matches(&format!("execution {A}")).count(),
        3,
        "under each waiting input and as the section's head\n{text}"
    );
    assert!(text.contains("inputs run together"), "{text}");
    assert!(text.contains("2 input(s) · not started"), "{text}");
    let first = text.find(&format!("1 {A} · first input")).expect(&text);
    let second = text
        .find(&format!("2 {B} · bound again 1× · se"))
        .expect(&text);
    assert!(first < second, "earliest first\n{text}");
}

/// C-37: a binding naming no input of this chat, or carried by another Keeper's stream, is
/// counted and said in `/queue`, never attached to an input.
#[test]
fn c37_a_binding_for_no_input_is_counted_in_queue_never_attached() {
    let (mut model, mut ui, keeper) = opened(0);
    model.chat.pane.as_mut().unwrap().register_send(C, "mine");
    step_on(&mut model, &keeper, C, SendStep::Written);
    step_on(&mut model, &keeper, C, bound("tui-not-mine", C));
    step_on(&mut model, "some-other-keeper", C, bound(C, C));
    let pane = model.chat.pane.as_ref().unwrap();
    assert_eq!(pane.batches.unattached.unknown_request, 1);
    assert_eq!(pane.batches.unattached.other_keeper, 1);
    assert!(pane.batches.executions().is_empty());
    let text = queue_text(&model, &mut ui);
    assert!(
        text.contains("2 batch binding(s) named no input of this chat · not attached"),
        "{text}"
    );
    assert!(!text.contains("inputs run together"), "{text}");
}
