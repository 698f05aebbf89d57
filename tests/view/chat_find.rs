#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! Issue 14 item 4 on screen: `/find` highlights its matches and `n`/`N` walk them through the
//! same projection the frame paints (C-74) in every origin mode; `/copy` writes the message's
//! stored original through an OSC 52 sequence of our own, only for a terminal known to accept
//! it (C-31); `/queue` and `/context` open over the chat and close with `Esc`.

use super::chat_layout::{exchanges, history_row};
use super::chat_screen::{chat_ticket, draw, key, opened, page, type_text};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use masc_tui::protocol::chat::ChatRole;
use masc_tui::view::clipboard::{Osc52, osc52_sequence};
use masc_tui::view::keys::{UiCommand, handle_key};
use masc_tui::view::model::Model;
use masc_tui::view::sample::{buffer_lines, buffer_text};
use masc_tui::view::screens::Ui;
use masc_tui::view::screens::chat::{ChatOverlay, find};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Modifier;

/// 40 exchanges; answers 5, 15, 25 and 35 hold `needle-<i>`; the newest reply last.
fn chat_with_needles() -> (Model, Ui) {
    let (mut model, mut ui, keeper) = opened(0);
    let mut rows = exchanges(40, |i| {
        if i % 10 == 5 {
            format!("answer {i} holds the Needle-{i} here")
        } else {
            format!("answer {i}")
        }
    });
    rows.push(history_row(
        "a-last",
        ChatRole::Assistant,
        "the newest reply\u{1b}[2J with an escape",
        1_787_010_000.0,
    ));
    model
        .chat
        .pane
        .as_mut()
        .unwrap()
        .apply(&chat_ticket(&keeper, 1), page(rows));
    ui.area = Rect::new(0, 0, 100, 30);
    (model, ui)
}

/// Runs a slash command typed into the composer (a first Enter may only complete the menu).
fn run(ui: &mut Ui, model: &Model, command: &str) -> UiCommand {
    type_text(ui, model, command);
    let cmd = handle_key(ui, model, key(KeyCode::Enter));
    if ui.chat.as_ref().unwrap().composer.is_empty() {
        return cmd;
    }
    handle_key(ui, model, key(KeyCode::Enter))
}

/// The needles shown on screen, each with whether its cells are drawn reversed.
fn shown_needles(buf: &Buffer) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    for (y, line) in buffer_lines(buf).iter().enumerate() {
        let Some(at) = line.find("Needle-") else {
            continue;
        };
        let word: String = line[at..]
            .split_whitespace()
            .next()
            .unwrap_or("")
            .to_string();
        let col = line[..at].chars().count() as u16;
        let reversed = buf[(col, y as u16)].modifier.contains(Modifier::REVERSED);
        out.push((word, reversed));
    }
    out
}

#[test]
fn c74_find_highlights_matches_and_n_walks_them_in_every_origin_mode() {
    let (model, mut ui) = chat_with_needles();
    run(&mut ui, &model, "/find needle");
    let state = ui.chat.as_ref().unwrap().find.clone().expect("a search");
    assert_eq!(state.count, 4, "{state:?}");
    for origin_step in 0..3 {
        if origin_step > 0 {
            handle_key(
                &mut ui,
                &model,
                KeyEvent::new(KeyCode::Char('f'), KeyModifiers::CONTROL),
            );
        }
        // Walk from the newest match back to the oldest, then forward again: every match is
        // brought into the window and drawn reversed, in this origin mode's projection.
        let mut seen = Vec::new();
        handle_key(&mut ui, &model, key(KeyCode::Char('n')));
        for _ in 0..4 {
            let buf = draw(&model, &ui);
            let shown = shown_needles(&buf);
            assert!(
                !shown.is_empty(),
                "step {origin_step}: no match shown\n{}",
                buffer_text(&buf)
            );
            assert!(
                shown.iter().all(|(_, rev)| *rev),
                "not highlighted: {shown:?}"
            );
            let title = &buffer_lines(&buf)[2];
            assert!(title.contains("find \"needle\""), "{title}");
            let current = ui.chat.as_ref().unwrap().find.as_ref().unwrap().index;
            seen.push(current);
            handle_key(&mut ui, &model, key(KeyCode::Char('n')));
        }
        assert_eq!(seen.last(), Some(&Some(1)), "reached the oldest: {seen:?}");
        // The oldest match was passed: n says so on the footer and stays.
        assert!(buffer_text(&draw(&model, &ui)).contains("no older match"));
        handle_key(&mut ui, &model, key(KeyCode::Char('N')));
        assert_eq!(
            ui.chat.as_ref().unwrap().find.as_ref().unwrap().index,
            Some(2)
        );
        // Back to the newest for the next mode.
        for _ in 0..3 {
            handle_key(&mut ui, &model, key(KeyCode::Char('N')));
        }
    }
    // With a draft, n is text; Esc clears the search first and stays in the chat.
    type_text(&mut ui, &model, "an");
    assert_eq!(ui.chat.as_ref().unwrap().composer.text(), "an");
    ui.chat.as_mut().unwrap().composer.set_text("");
    handle_key(&mut ui, &model, key(KeyCode::Esc));
    assert!(ui.chat.as_ref().unwrap().find.is_none() && ui.chat.is_some());
    let text = buffer_text(&draw(&model, &ui));
    assert!(!text.contains("find \""), "{text}");
}

#[test]
fn c31_copy_writes_the_stored_original_through_our_osc52_only_when_known() {
    let (model, mut ui) = chat_with_needles();
    let window = (100, 20);
    let chat = ui.chat.as_ref().unwrap();
    // The newest reply, its stored original (escape included: it travels base64-encoded).
    let (bytes, notice) =
        find::copy(chat, &model, window, Osc52::Accepted("kitty".into())).expect("copied");
    assert_eq!(
        bytes,
        osc52_sequence("the newest reply\u{1b}[2J with an escape")
    );
    assert_eq!(
        bytes.iter().filter(|b| **b == 0x1b).count(),
        1,
        "only our own ESC"
    );
    assert!(
        notice.contains("OSC 52") && notice.contains("newest reply"),
        "{notice}"
    );
    // Not known to accept OSC 52: nothing written, and the footer says why.
    let why = find::copy(chat, &model, window, Osc52::Unknown("TERM=xterm".into()))
        .expect_err("not copied");
    assert!(
        why.contains("not known to accept OSC 52") && why.contains("TERM=xterm"),
        "{why}"
    );
    // After /find, the found message is the one copied.
    run(&mut ui, &model, "/find needle-25");
    let chat = ui.chat.as_ref().unwrap();
    let (bytes, _) =
        find::copy(chat, &model, window, Osc52::Accepted("kitty".into())).expect("copied");
    assert_eq!(bytes, osc52_sequence("answer 25 holds the Needle-25 here"));
}

#[test]
fn issue14_queue_and_context_open_over_the_chat_and_esc_closes_them() {
    let (mut model, mut ui) = chat_with_needles();
    run(&mut ui, &model, "/queue");
    assert_eq!(ui.chat.as_ref().unwrap().overlay, Some(ChatOverlay::Queue));
    let text = buffer_text(&draw(&model, &ui));
    assert!(
        text.contains("/queue") && text.contains("no input of yours waits"),
        "{text}"
    );
    handle_key(&mut ui, &model, key(KeyCode::Esc));
    assert_eq!(ui.chat.as_ref().unwrap().overlay, None);
    assert!(ui.chat.is_some(), "Esc closed the overlay, not the chat");
    // A send not yet confirmed as started is listed with its one label (C-32, C-33).
    model
        .chat
        .pane
        .as_mut()
        .unwrap()
        .register_send("tui-0000-test", "please look at the board\nsecond line");
    run(&mut ui, &model, "/queue");
    let text = buffer_text(&draw(&model, &ui));
    assert!(text.contains("대기 입력 1건"), "{text}");
    assert!(
        text.contains("전송 대기 · please look at the board"),
        "{text}"
    );
    assert!(text.contains("request tui-0000-test"), "{text}");
    handle_key(&mut ui, &model, key(KeyCode::Esc));
    run(&mut ui, &model, "/context");
    let text = buffer_text(&draw(&model, &ui));
    assert!(
        text.contains("/context") && text.contains("chat target"),
        "{text}"
    );
    assert!(
        text.contains("context not requested"),
        "observed values only\n{text}"
    );
    assert!(text.contains("gate: not loaded"), "{text}");
    handle_key(&mut ui, &model, key(KeyCode::Esc));
    assert_eq!(ui.chat.as_ref().unwrap().overlay, None);
}
