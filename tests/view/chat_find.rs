#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! On screen: `/find` highlights its matches and `n`/`N` walk them through the
//! same projection the frame paints (C-74) in every origin mode; `/copy` writes the message's
//! stored original through an OSC 52 sequence of our own, only for a terminal known to accept
//! it (C-31); `/queue` and `/context` open over the chat and close with `Esc`.

use super::chat_layout::{exchanges, history_row};
use super::chat_screen::{chat_ticket, draw, key, opened, page, type_text};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use masc_tui::protocol::chat::ChatRole;
use masc_tui::view::keys::{UiCommand, handle_key};
use masc_tui::view::model::Model;
use masc_tui::view::sample::{buffer_lines, buffer_text};
use masc_tui::view::screens::Ui;
use masc_tui::view::screens::chat::ChatUi;
use masc_tui::view::screens::chat::find::Admission;
use masc_tui::view::screens::chat::overlay::open_over;
use masc_tui::view::screens::chat::{ChatOverlay, find};
use masc_tui::view::terminal::clipboard::{Osc52, osc52_sequence};
use masc_tui::view::theme::Theme;
use masc_tui::view::transcript::{
    Entry, EntryKind, ScrollPosition, Speaker, Transcript, TranscriptView, ViewToggle,
};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use std::time::Instant;

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

/// Runs a `/find` search a key handed out the way the view actor does (off the actor there,
/// here on the test thread), admitting each result and running a re-dispatch again; returns
/// the rejections seen.
pub(crate) fn settle(ui: &mut Ui, model: &Model, cmd: UiCommand) -> Vec<&'static str> {
    let mut rejected = Vec::new();
    let mut next = match cmd {
        UiCommand::Find(job) => Some(*job),
        _ => None,
    };
    while let Some(job) = next.take() {
        match find::admit_into(ui, model, job.run(), Instant::now()) {
            Admission::Applied { .. } => {}
            Admission::Rejected { why, again } => {
                rejected.push(why);
                next = again;
            }
        }
    }
    rejected
}

/// A key, with any search it starts run and admitted.
fn press(ui: &mut Ui, model: &Model, k: KeyEvent) {
    let cmd = handle_key(ui, model, k);
    settle(ui, model, cmd);
}

/// Types a slash command into the composer and enters it (a first Enter may only complete
/// the menu); the command it produced, not run.
fn enter(ui: &mut Ui, model: &Model, command: &str) -> UiCommand {
    type_text(ui, model, command);
    let cmd = handle_key(ui, model, key(KeyCode::Enter));
    if ui.layer::<ChatUi>().unwrap().composer.is_empty() {
        return cmd;
    }
    handle_key(ui, model, key(KeyCode::Enter))
}

/// Runs a slash command typed into the composer, its search (if any) run and admitted.
fn run(ui: &mut Ui, model: &Model, command: &str) {
    let cmd = enter(ui, model, command);
    settle(ui, model, cmd);
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
    let state = ui
        .layer::<ChatUi>()
        .unwrap()
        .find
        .clone()
        .expect("a search");
    assert_eq!(state.count, 4, "{state:?}");
    for origin_step in 0..3 {
        if origin_step > 0 {
            press(
                &mut ui,
                &model,
                KeyEvent::new(KeyCode::Char('f'), KeyModifiers::CONTROL),
            );
        }
        // Walk from the newest match back to the oldest, then forward again: every match is
        // brought into the window and drawn reversed, in this origin mode's projection.
        let mut seen = Vec::new();
        press(&mut ui, &model, key(KeyCode::Char('n')));
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
            let current = ui.layer::<ChatUi>().unwrap().find.as_ref().unwrap().index;
            seen.push(current);
            press(&mut ui, &model, key(KeyCode::Char('n')));
        }
        assert_eq!(seen.last(), Some(&Some(1)), "reached the oldest: {seen:?}");
        // The oldest match was passed: n says so on the footer and stays.
        assert!(buffer_text(&draw(&model, &ui)).contains("no older match"));
        press(&mut ui, &model, key(KeyCode::Char('N')));
        assert_eq!(
            ui.layer::<ChatUi>().unwrap().find.as_ref().unwrap().index,
            Some(2)
        );
        // Back to the newest for the next mode.
        for _ in 0..3 {
            press(&mut ui, &model, key(KeyCode::Char('N')));
        }
    }
    // With a draft, n is text; Esc clears the search first and stays in the chat.
    type_text(&mut ui, &model, "an");
    assert_eq!(ui.layer::<ChatUi>().unwrap().composer.text(), "an");
    ui.layer_mut::<ChatUi>().unwrap().composer.set_text("");
    handle_key(&mut ui, &model, key(KeyCode::Esc));
    assert!(ui.layer::<ChatUi>().unwrap().find.is_none() && ui.layer::<ChatUi>().is_some());
    let text = buffer_text(&draw(&model, &ui));
    assert!(!text.contains("find \""), "{text}");
}

#[test]
fn c74_a_stale_find_result_query_or_width_or_revision_changed_is_not_applied() {
    let (mut model, mut ui) = chat_with_needles();
    let scroll = ui.layer::<ChatUi>().unwrap().scroll;
    let UiCommand::Find(first) = enter(&mut ui, &model, "/find needle") else {
        panic!("/find hands its search to the view actor");
    };
    // While the search runs the title says so, and keys keep working.
    let title = buffer_lines(&draw(&model, &ui))[2].clone();
    assert!(title.contains("find \"needle\" searching…"), "{title}");
    type_text(&mut ui, &model, "draft");
    assert_eq!(ui.layer::<ChatUi>().unwrap().composer.text(), "draft");
    ui.layer_mut::<ChatUi>().unwrap().composer.set_text("");

    // Query changed: the first search's result is rejected, nothing of it applied.
    let UiCommand::Find(second) = enter(&mut ui, &model, "/find needle-25") else {
        panic!("a second search");
    };
    let before = ui.layer::<ChatUi>().unwrap().find.clone().unwrap();
    match find::admit_into(&mut ui, &model, first.run(), Instant::now()) {
        Admission::Rejected { why, again } => {
            assert_eq!(why, "find_query_changed");
            assert!(again.is_none(), "a superseded search is not run again");
        }
        other => panic!("applied: {other:?}"),
    }
    let chat = ui.layer::<ChatUi>().unwrap();
    assert_eq!(chat.find.as_ref(), Some(&before), "state untouched");
    assert_eq!(chat.scroll, scroll, "the window did not move");
    assert!(matches!(
        find::admit_into(&mut ui, &model, second.run(), Instant::now()),
        Admission::Applied { notice: None }
    ));
    let state = ui.layer::<ChatUi>().unwrap().find.clone().unwrap();
    assert_eq!((state.count, state.index), (1, Some(1)), "{state:?}");
    assert!(state.searching.is_none());

    // Width changed while the search ran: rejected, and (still awaited) dispatched again
    // for the new width, whose result is admitted.
    let UiCommand::Find(third) = enter(&mut ui, &model, "/find needle") else {
        panic!("a third search");
    };
    ui.area = Rect::new(0, 0, 70, 30);
    let scroll = ui.layer::<ChatUi>().unwrap().scroll;
    let again = match find::admit_into(&mut ui, &model, third.run(), Instant::now()) {
        Admission::Rejected { why, again } => {
            assert_eq!(why, "find_layout_changed");
            again.expect("re-dispatched for the new width")
        }
        other => panic!("applied: {other:?}"),
    };
    let chat = ui.layer::<ChatUi>().unwrap();
    let state = chat.find.as_ref().unwrap();
    assert!(state.found.is_none() && state.count == 0, "{state:?}");
    assert!(state.searching.is_some(), "still searching");
    assert_eq!(chat.scroll, scroll, "the window did not move");
    assert!(matches!(
        find::admit_into(&mut ui, &model, again.run(), Instant::now()),
        Admission::Applied { .. }
    ));
    assert_eq!(
        ui.layer::<ChatUi>().unwrap().find.as_ref().unwrap().count,
        4
    );

    // The transcript changed while `n` searched again (after Ctrl-F): rejected too.
    press(
        &mut ui,
        &model,
        KeyEvent::new(KeyCode::Char('f'), KeyModifiers::CONTROL),
    );
    let UiCommand::Find(walk) = handle_key(&mut ui, &model, key(KeyCode::Char('n'))) else {
        panic!("n after a mode change searches again");
    };
    let keeper = ui.layer::<ChatUi>().unwrap().keeper.clone();
    model.chat.pane.as_mut().unwrap().apply(
        &chat_ticket(&keeper, 2),
        page(vec![history_row(
            "a-later",
            ChatRole::Assistant,
            "a later Needle-99",
            1_787_020_000.0,
        )]),
    );
    let rejected = settle(&mut ui, &model, UiCommand::Find(walk));
    assert_eq!(rejected, vec!["find_layout_changed"]);
    let state = ui.layer::<ChatUi>().unwrap().find.clone().unwrap();
    assert!(
        state.searching.is_none() && state.index.is_some(),
        "{state:?}"
    );
}

/// Korean, emoji with a skin tone and CJK punctuation around the query, long enough to wrap
/// at every width tried.
fn wide_view() -> TranscriptView {
    let mut t = Transcript::new();
    for i in 0..60u32 {
        let keeper = Speaker::Keeper {
            name: "alpha".into(),
            owner: true,
        };
        let text = match i % 5 {
            0 => format!(
                "배포 {i}: 한국어 문장과 emoji 👍🏽 사이의 Deploy 단어 {}",
                "가나다 ".repeat(i as usize % 9)
            ),
            1 => format!(
                "「deploy」は全角の括弧の中 {i} {}",
                "漢字かな ".repeat(i as usize % 7)
            ),
            2 => format!("**DePloY** 굵게 {i}\n- 목록 deploy 👍🏽\n\n`deploy` 코드"),
            3 => format!("no match here {i} {}", "ㅎ".repeat(40)),
            _ => format!("{}deploy{}", "🙂".repeat(i as usize % 30), "한".repeat(25)),
        };
        let entry = if i % 2 == 0 {
            Entry::new(format!("k{i}"), keeper, EntryKind::Utterance, text)
        } else {
            Entry::new(
                format!("u{i}"),
                Speaker::Operator,
                EntryKind::Utterance,
                text,
            )
        };
        t.push(entry.with_ts(1_787_000_000.0 + f64::from(i) * 61.0));
    }
    TranscriptView::new(t, Theme::default())
}

#[test]
fn c74_off_actor_match_list_equals_the_on_actor_rows_with_wide_chars() {
    let mut view = wide_view();
    for origin in 0..3 {
        if origin > 0 {
            view.toggle(ViewToggle::Origin);
        }
        for width in [41u16, 57, 80, 100, 160] {
            let job = view.find_job(width, "deploy");
            let found = job.run();
            let on_actor = view.find_rows(width, "deploy");
            assert!(
                on_actor.len() > 20,
                "origin {origin} width {width}: {on_actor:?}"
            );
            assert_eq!(found.rows, on_actor, "origin {origin} width {width}");
            assert_eq!(
                found.total,
                view.total_rows(width),
                "origin {origin} width {width}"
            );
            // Its heights are adopted only under the stamp it was made for.
            assert!(view.adopt_found_heights(&found));
        }
    }
    // Another width's result is not adopted.
    let found = view.find_job(80, "deploy").run();
    view.find_stamp(100);
    view.render(100, 20, ScrollPosition::Newest);
    let mut other = found.clone();
    other.stamp = view.find_stamp(100);
    other.block_heights.pop();
    assert!(
        !view.adopt_found_heights(&other),
        "a plan of another length"
    );
    assert!(!view.adopt_found_heights(&found), "another width");
}

#[test]
fn c31_copy_writes_the_stored_original_through_our_osc52_only_when_known() {
    let (model, mut ui) = chat_with_needles();
    let window = (100, 20);
    let chat = ui.layer::<ChatUi>().unwrap();
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
    let chat = ui.layer::<ChatUi>().unwrap();
    let (bytes, _) =
        find::copy(chat, &model, window, Osc52::Accepted("kitty".into())).expect("copied");
    assert_eq!(bytes, osc52_sequence("answer 25 holds the Needle-25 here"));
}

#[test]
fn issue14_queue_and_context_open_over_the_chat_and_esc_closes_them() {
    let (mut model, mut ui) = chat_with_needles();
    run(&mut ui, &model, "/queue");
    assert_eq!(open_over(&ui), Some(ChatOverlay::Queue));
    let text = buffer_text(&draw(&model, &ui));
    assert!(
        text.contains("/queue") && text.contains("no input of yours waits"),
        "{text}"
    );
    handle_key(&mut ui, &model, key(KeyCode::Esc));
    assert_eq!(open_over(&ui), None);
    assert!(
        ui.layer::<ChatUi>().is_some(),
        "Esc closed the overlay, not the chat"
    );
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
    assert_eq!(open_over(&ui), None);
}

/// Issue 27 item 3: "find: no older match" is the chat footer's line of that step; the Esc that
/// moves on ends it (it does not linger for its time window).
#[test]
fn issue27_the_find_miss_line_ends_with_esc() {
    let (model, mut ui) = chat_with_needles();
    run(&mut ui, &model, "/find needle");
    for _ in 0..8 {
        press(&mut ui, &model, key(KeyCode::Char('n')));
    }
    assert!(buffer_text(&draw(&model, &ui)).contains("no older match"));
    handle_key(&mut ui, &model, key(KeyCode::Esc));
    let text = buffer_text(&draw(&model, &ui));
    assert!(!text.contains("no older match"), "{text}");
    assert!(ui.layer::<ChatUi>().is_some(), "the Esc cleared /find only");
}
