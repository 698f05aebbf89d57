#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! The send side of the chat as a new user sees it (chat-screen.md
//! C-8, C-13, C-14, C-17, C-33, C-35, C-42, C-44, C-54, C-55; seed 000 §2.7 wording). Each
//! test asserts the seed's words and marks on the rendered screen: `전송 대기` / `전송 중` /
//! `처리 대기` / `전송 확인 중` (seed 000: "각 입력의 원문 옆 라벨에 …"; the digest C-33 agrees),
//! a refusal as its own error row with the server's reason ("거절 사유는 본문과 분리된 오류
//! 행에 남긴다"), failure rows that never fold ("실패 줄은 접히지 않는다").

use crate::chat_screen::{chat_ticket, draw, opened, page};
use masc_tui::actors::chat::{
    ChatObservation, ChatSlot, Reconciliation, SendOutcome, SendStep, UnknownCause,
};
use masc_tui::actors::contract::{SlotEvent, Ticket};
use masc_tui::protocol::chat::{ChatStreamEvent, OperationState, ReplyDetails, TurnOutcome};
use masc_tui::view::model::Model;
use masc_tui::view::sample::{self, buffer_text};
use masc_tui::view::screens::chat::{ChatEffect, Progress};
use masc_tui::view::transcript::rail::{Rail, Siding};
use masc_tui::view::transcript::{Entry, EntryKind, Speaker, Transcript, ViewModes, plan};

const A: &str = "tui-0190f5a0-0000-7000-8000-00000000000a";
const B: &str = "tui-0190f5a0-0000-7000-8000-00000000000b";

/// Applies `step` of send `id` to the open pane (its own ticket, as the save hub posts it).
fn step(model: &mut Model, keeper: &str, id: &str, step: SendStep) {
    crate::chat_screen::send_step(model, keeper, id, step);
}

fn lines_with<'a>(text: &'a str, words: &str) -> Vec<&'a str> {
    text.lines().filter(|l| l.contains(words)).collect()
}

/// C-8, C-35: a refused send is its own `✗` error row with the server's reason; it stays after
/// the next send completes and after a newest-page reload (failure rows never fold).
#[test]
fn c8_c35_a_refused_send_keeps_its_error_row_with_the_server_reason() {
    let (mut model, ui, keeper) = opened(0);
    model
        .chat
        .pane
        .as_mut()
        .unwrap()
        .register_send(A, "deploy now");
    step(
        &mut model,
        &keeper,
        A,
        SendStep::Ended(SendOutcome::NotApplied {
            cause: "status_409".into(),
            detail: Some("keeper busy: a turn is running".into()),
        }),
    );
    let refused = "refused by the server (HTTP 409): keeper busy: a turn is running";
    let check = |model: &Model, when: &str| {
        let text = buffer_text(&draw(model, &ui));
        let rows = lines_with(&text, refused);
        assert_eq!(rows.len(), 1, "{when}:\n{text}");
        assert!(rows[0].trim_start().starts_with('✗'), "{when}: {}", rows[0]);
        assert!(
            !text.contains("deploy now"),
            "{when}: the refused text is not a message"
        );
    };
    check(&model, "refused");
    // The next send runs to completion.
    model
        .chat
        .pane
        .as_mut()
        .unwrap()
        .register_send(B, "status?");
    for s in [
        SendStep::Written,
        SendStep::Sending,
        SendStep::Accepted {
            state: OperationState::Queued,
            interactive: None,
        },
        SendStep::Event(ChatStreamEvent::RunStarted),
        SendStep::Ended(SendOutcome::Completed {
            reply: ReplyDetails {
                reply: "all green".into(),
                turn_outcome: TurnOutcome("visible_reply".into()),
                turn_ref: "trace-x#2".into(),
            },
        }),
    ] {
        step(&mut model, &keeper, B, s);
    }
    check(&model, "after the next send");
    let t = chat_ticket(&keeper, 9);
    crate::rig::dispatch(&mut model, t.clone());
    crate::rig::observe(&mut model, SlotEvent::Observed(t, page(Vec::new()))).unwrap();
    check(&model, "after a newest-page reload");
}

/// C-33, C-44, §2.1: once reconciliation says the server recorded nothing, the input leaves
/// the pending list (no `전송 확인 중`), the note is a status `○` (an unknown outcome is not
/// an error `✗`), nothing says "reconciling", and the text goes back to the draft once.
#[test]
fn c33_c44_not_recorded_leaves_no_confirming_label_and_no_error_mark() {
    let (mut model, ui, keeper) = opened(0);
    model
        .chat
        .pane
        .as_mut()
        .unwrap()
        .register_send(A, "are you there?");
    step(&mut model, &keeper, A, SendStep::Sending);
    step(
        &mut model,
        &keeper,
        A,
        SendStep::Ended(SendOutcome::OutcomeUnknown {
            cause: UnknownCause::Transport,
            accepted: false,
        }),
    );
    let text = buffer_text(&draw(&model, &ui));
    assert!(text.contains("전송 확인 중"), "while reconciling:\n{text}");
    let reconcile = Ticket {
        slot: ChatSlot::Reconcile {
            keeper: keeper.clone(),
            request_id: A.into(),
        },
        generation: 2,
        scope: sample::scope(1),
    };
    let pane = model.chat.pane.as_mut().unwrap();
    pane.take_effects();
    for _ in 0..2 {
        pane.apply(
            &reconcile,
            ChatObservation::Reconciled {
                request_id: A.into(),
                result: Reconciliation::Absent { after_secs: 39 },
            },
        );
    }
    let drafts: Vec<_> = pane
        .take_effects()
        .into_iter()
        .filter(|e| matches!(e, ChatEffect::RestoreDraft { .. }))
        .collect();
    assert!(
        drafts.is_empty(),
        "never back by itself: it may still arrive"
    );
    assert_eq!(pane.send(A).unwrap().pending_state(), None);
    let text = buffer_text(&draw(&model, &ui));
    assert!(!text.contains("전송 확인 중"), "{text}");
    assert!(!text.contains("reconciling"), "{text}");
    let rows = lines_with(&text, "not recorded by the server after 39 s");
    assert!(!rows.is_empty(), "{text}");
    assert!(text.contains("Ctrl-O"), "{text}");
    for row in rows {
        assert!(
            !row.contains('✗'),
            "an unknown outcome is not an error: {row}"
        );
        assert!(row.contains('○'), "{row}");
    }
}

/// C-33: the pending label and the progress row say the same thing in the same words in every
/// frame; a queued request draws no progress row of its own (C-42), never the same fact twice
/// in two languages (C-54, C-55).
#[test]
fn c33_c42_pending_label_and_progress_row_agree() {
    let (mut model, ui, keeper) = opened(0);
    model.chat.pane.as_mut().unwrap().register_send(A, "hello");
    let frame = |model: &Model| buffer_text(&draw(model, &ui));
    let text = frame(&model);
    assert_eq!(
        model.chat.pane.as_ref().unwrap().progress(),
        Progress::Waiting
    );
    assert!(text.contains("전송 대기 · hello"), "{text}");
    assert!(text.contains("○ 전송 대기"), "{text}");
    assert!(!text.contains("전송 중"), "{text}");
    step(&mut model, &keeper, A, SendStep::Written);
    assert!(frame(&model).contains("○ 전송 대기"));
    step(&mut model, &keeper, A, SendStep::Sending);
    let text = frame(&model);
    assert!(
        text.contains("전송 중 · hello") && text.contains("○ 전송 중"),
        "{text}"
    );
    assert!(!text.contains("전송 대기"), "{text}");
    step(
        &mut model,
        &keeper,
        A,
        SendStep::Accepted {
            state: OperationState::Queued,
            interactive: None,
        },
    );
    let text = frame(&model);
    assert!(text.contains("처리 대기 · hello"), "{text}");
    assert_eq!(lines_with(&text, "처리 대기").len(), 1, "{text}");
    assert!(!text.contains("queued"), "{text}");
}

fn entry(id: &str, speaker: Speaker, text: &str, request: &str, turn_ref: &str) -> Entry {
    let mut e = Entry::new(id, speaker, EntryKind::Utterance, text).with_request(request);
    e.turn_ref = Some(turn_ref.into());
    e
}

/// C-13, C-14, C-17: two requests whose replies name the same `turn_ref` are two turns (the
/// group key is the full request id); the operator's row and its reply share one turn.
#[test]
fn c13_c17_groups_key_on_the_full_request_id_not_the_turn_ref() {
    let keeper = || Speaker::Keeper {
        name: "rondo".into(),
        owner: true,
    };
    let mut t = Transcript::new();
    t.upsert(entry("a-in", Speaker::Operator, "first", A, A));
    t.upsert(entry("a-out", keeper(), "one", A, "trace-rondo#7"));
    t.upsert(entry("b-in", Speaker::Operator, "second", B, B));
    t.upsert(entry("b-out", keeper(), "two", B, "trace-rondo#7"));
    let blocks = plan::build_plan(&t, ViewModes::default(), 0);
    let turns: Vec<Option<u32>> = blocks.iter().map(|b| b.turn).collect();
    assert_eq!(turns.len(), 4, "{turns:?}");
    assert_eq!(turns[0], turns[1], "input and reply of A are one turn");
    assert_eq!(turns[2], turns[3], "input and reply of B are one turn");
    assert_ne!(turns[1], turns[3], "A and B are two turns: {turns:?}");
}

/// C-12, C-14, §2.3: the operator's own input reloaded from a store that names neither its
/// request nor its turn, lying between two rows of another turn (it was queued while that
/// turn ran), is its own one-row turn that splits the bracket — as its live twin did — never
/// `───┤ ▶ YOU`, the siding of a row from another sender. A journal row still passes beside.
#[test]
fn c12_c14_a_reloaded_own_input_inside_another_turn_is_not_drawn_as_another_sender() {
    let reply = |id: &str, text: &str| {
        let mut e = Entry::new(
            id,
            Speaker::Keeper {
                name: "rondo".into(),
                owner: true,
            },
            EntryKind::Utterance,
            text,
        );
        e.turn_ref = Some("turn-a".into());
        e
    };
    // The rail is drawn with the origin inline (Ctrl-F), the journal lane shown.
    let inline = ViewModes {
        origin: masc_tui::view::transcript::OriginMode::Inline,
        journal: masc_tui::view::transcript::JournalMode::Full,
        ..ViewModes::default()
    };
    let mut t = Transcript::new();
    t.upsert(reply("a-1", "one"));
    t.upsert(Entry::new(
        "b-in",
        Speaker::Operator,
        EntryKind::Utterance,
        "queued meanwhile",
    ));
    t.upsert(reply("a-2", "two"));
    let blocks = plan::build_plan(&t, inline, 0);
    assert_eq!(blocks.len(), 3);
    assert!(
        blocks[1].turn.is_some(),
        "the own input is a turn of its own"
    );
    assert_ne!(blocks[1].turn, blocks[0].turn);
    assert!(
        !matches!(blocks[1].rail, Rail::Joins(_)),
        "{:?}",
        blocks[1].rail
    );
    assert_ne!(
        blocks[0].rail,
        Rail::Opens,
        "the split turn has no bracket over the input"
    );

    let mut t = Transcript::new();
    t.upsert(reply("a-1", "one"));
    t.upsert(Entry::new(
        "j-1",
        Speaker::System,
        EntryKind::Journal,
        "memory noted",
    ));
    t.upsert(reply("a-2", "two"));
    let blocks = plan::build_plan(&t, inline, 0);
    assert_eq!(
        blocks[1].rail,
        Rail::Joins(Siding::Journal),
        "a journal row passes beside"
    );
}
