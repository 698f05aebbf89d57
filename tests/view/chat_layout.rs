#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! The chat's geometry seen on screen: the slash menu never takes the conversation's
//! minimum rows (C-62) and a chat runs at 41 columns with its own gate instead of the whole
//! app's 60×12 (C-19, T.5), its gutter following the narrow-screen rule (C-18).

use super::chat_screen::{chat_ticket, draw, key, opened, page, type_text};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use masc_tui::protocol::chat::{ChatHistoryRow, ChatRole};
use masc_tui::view::keys::handle_key;
use masc_tui::view::model::Model;
use masc_tui::view::sample::{buffer_lines, buffer_text};
use masc_tui::view::screens::Ui;
use masc_tui::view::screens::chat::ChatUi;
use masc_tui::view::screens::chat::{composer_layout, transcript_rows};
use masc_tui::view::transcript::{ReasoningMode, ToolVisibility};
use ratatui::layout::Rect;
use std::time::Instant;

const NEWEST: &str = "newest reply of the test";

pub(crate) fn history_row(id: &str, role: ChatRole, content: &str, ts: f64) -> ChatHistoryRow {
    ChatHistoryRow {
        id: id.into(),
        role,
        content: content.into(),
        ts: Some(ts),
        kind: None,
        turn_ref: None,
        tool_call_id: None,
        tool_call_name: None,
        ..ChatHistoryRow::new("", ChatRole::User, "", 0.0)
    }
}

/// `n` exchanges a minute apart: `question i` from the operator, then `answer(i)` 30 s later.
pub(crate) fn exchanges(n: u32, answer: impl Fn(u32) -> String) -> Vec<ChatHistoryRow> {
    let mut rows = Vec::new();
    for i in 0..n {
        let ts = 1_787_000_000.0 + f64::from(i) * 60.0;
        rows.push(history_row(
            &format!("u{i}"),
            ChatRole::User,
            &format!("question {i}"),
            ts,
        ));
        rows.push(history_row(
            &format!("a{i}"),
            ChatRole::Assistant,
            &answer(i),
            ts + 30.0,
        ));
    }
    rows
}

/// A chat open on keeper 0 with a few exchanges, `NEWEST` last.
fn chat_with_history() -> (Model, Ui) {
    let (mut model, ui, keeper) = opened(0);
    let mut rows = exchanges(6, |i| format!("answer {i}"));
    rows.push(history_row(
        "a-last",
        ChatRole::Assistant,
        NEWEST,
        1_787_001_000.0,
    ));
    model
        .chat
        .pane
        .as_mut()
        .unwrap()
        .apply(&chat_ticket(&keeper, 1), page(rows));
    (model, ui)
}

#[test]
fn c62_the_slash_menu_keeps_the_conversations_minimum_at_60_by_12_to_16() {
    let (model, mut ui) = chat_with_history();
    type_text(&mut ui, &model, "/");
    for height in 12..=16 {
        ui.area = Rect::new(0, 0, 60, height);
        let layout = composer_layout(ui.layer::<ChatUi>().unwrap(), ui.area, Instant::now());
        assert!(
            transcript_rows(&layout) >= 3,
            "60x{height}: {} transcript rows under the menu",
            transcript_rows(&layout)
        );
        assert!(layout.menu.is_some(), "60x{height}: the menu has room");
        let text = buffer_text(&draw(&model, &ui));
        assert!(
            !text.contains("resize"),
            "60x{height}: the transcript is gated\n{text}"
        );
        assert!(
            text.contains(NEWEST),
            "60x{height}: the newest row is hidden\n{text}"
        );
    }
}

#[test]
fn c19_t5_at_41_columns_the_chat_runs_with_its_own_gate() {
    let (model, mut ui) = chat_with_history();
    ui.area = Rect::new(0, 0, 41, 11);
    let text = buffer_text(&draw(&model, &ui));
    assert!(!text.contains("terminal too small"), "{text}");
    assert!(text.contains("chat"), "the chat's title\n{text}");
    assert!(text.contains(NEWEST), "{text}");
    // Keys reach the composer (the app's gate would reject them).
    type_text(&mut ui, &model, "hi");
    assert_eq!(ui.layer::<ChatUi>().unwrap().composer.text(), "hi");
    // The narrow-screen gutter (C-18): inline drops the rail first, the transcript still runs.
    handle_key(
        &mut ui,
        &model,
        KeyEvent::new(KeyCode::Char('f'), KeyModifiers::CONTROL),
    );
    let lines = buffer_lines(&draw(&model, &ui));
    let joined = lines.join("\n");
    // The body column is narrow here: the reply wraps.
    assert!(joined.contains("newest reply"), "{joined}");
    assert!(
        !lines.iter().any(|l| l.contains('╭') || l.contains('╰')),
        "no rail at 41 columns\n{joined}"
    );
    assert!(!joined.contains("resize"), "{joined}");
}

#[test]
fn t5_below_the_chats_own_minimum_the_gate_names_it() {
    let (model, mut ui) = chat_with_history();
    for (w, h) in [(40, 11), (41, 10)] {
        ui.area = Rect::new(0, 0, w, h);
        let text = buffer_text(&draw(&model, &ui));
        assert!(text.contains("terminal too small"), "{w}x{h}\n{text}");
        assert!(text.contains("41x11"), "{w}x{h}\n{text}");
        // Hidden input is rejected behind the gate.
        handle_key(&mut ui, &model, key(KeyCode::Char('z')));
        assert!(ui.layer::<ChatUi>().unwrap().composer.is_empty(), "{w}x{h}");
    }
    // With the chat closed the whole app's gate is back.
    ui.area = Rect::new(0, 0, 41, 11);
    ui.layers.remove::<ChatUi>();
    let text = buffer_text(&draw(&model, &ui));
    assert!(text.contains("60x12"), "{text}");
}

/// The first transcript row (below the header and the title) naming a question or an answer.
fn first_labelled_row(model: &Model, ui: &Ui) -> String {
    buffer_lines(&draw(model, ui))
        .into_iter()
        .skip(3)
        .find_map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            words
                .windows(2)
                .find(|w| w[0] == "question" || w[0] == "answer")
                .map(|w| format!("{} {}", w[0], w[1]))
        })
        .unwrap_or_default()
}

/// The chat with `rows` at 100×30, three pages back; the entry at the window's top.
fn scrolled_back(
    mut model: Model,
    mut ui: Ui,
    keeper: &str,
    rows: Vec<ChatHistoryRow>,
) -> (Model, Ui, String) {
    model
        .chat
        .pane
        .as_mut()
        .unwrap()
        .apply(&chat_ticket(keeper, 1), page(rows));
    ui.area = Rect::new(0, 0, 100, 30);
    for _ in 0..3 {
        handle_key(&mut ui, &model, key(KeyCode::PageUp));
    }
    let anchored = first_labelled_row(&model, &ui);
    assert!(!anchored.is_empty());
    (model, ui, anchored)
}

#[test]
fn c31_c74_ctrl_f_keeps_the_anchor_entry_not_the_row_count() {
    let (model, ui, keeper) = opened(0);
    let rows = exchanges(40, |i| format!("answer {i}"));
    let (model, mut ui, anchored) = scrolled_back(model, ui, &keeper, rows);
    let mut scrolls = vec![ui.layer::<ChatUi>().unwrap().scroll];
    // bare → inline → row → bare: the same entry stays at the top in each mode.
    for _ in 0..3 {
        handle_key(
            &mut ui,
            &model,
            KeyEvent::new(KeyCode::Char('f'), KeyModifiers::CONTROL),
        );
        let origin = ui.layer::<ChatUi>().unwrap().modes.origin;
        assert_eq!(
            first_labelled_row(&model, &ui),
            anchored,
            "{origin:?}: the window moved to other content"
        );
        scrolls.push(ui.layer::<ChatUi>().unwrap().scroll);
    }
    assert_ne!(
        scrolls[0], scrolls[1],
        "the row count changes with the mode (one row per message inline, two in bare)"
    );
}

/// C-31, C-74: `/tools <mode>` and `/thinking <mode>` keep the window's top entry as the
/// Ctrl keys do, though the tool rows' heights change the row count.
#[test]
fn c31_c74_slash_tools_and_thinking_with_a_mode_keep_the_anchor_entry() {
    let (model, ui, keeper) = opened(0);
    let mut rows = Vec::new();
    for (i, row) in exchanges(40, |i| format!("answer {i}"))
        .into_iter()
        .enumerate()
    {
        if i % 2 == 1 {
            let mut tool = history_row(
                &format!("t{i}"),
                ChatRole::Tool,
                "{\"path\": \"src/main.rs\",\n \"lines\": [1, 2, 3],\n \"why\": \"look\"}",
                row.ts.unwrap_or_default() - 1.0,
            );
            tool.tool_call_name = Some("read_file".into());
            tool.tool_call_id = Some(format!("call-{i}"));
            rows.push(tool);
        }
        rows.push(row);
    }
    let (model, mut ui, anchored) = scrolled_back(model, ui, &keeper, rows);
    let mut scrolls = vec![ui.layer::<ChatUi>().unwrap().scroll];
    for command in [
        "/tools full",
        "/thinking hidden",
        "/tools compact",
        "/thinking full",
        "/tools results",
    ] {
        type_text(&mut ui, &model, command);
        handle_key(&mut ui, &model, key(KeyCode::Enter));
        if !ui.layer::<ChatUi>().unwrap().composer.is_empty() {
            handle_key(&mut ui, &model, key(KeyCode::Enter));
        }
        assert!(
            ui.layer::<ChatUi>().unwrap().composer.is_empty(),
            "{command} ran"
        );
        assert_eq!(
            first_labelled_row(&model, &ui),
            anchored,
            "{command}: the window moved to other content"
        );
        scrolls.push(ui.layer::<ChatUi>().unwrap().scroll);
    }
    let modes = ui.layer::<ChatUi>().unwrap().modes;
    assert_eq!(modes.tools, ToolVisibility::Results);
    assert_eq!(modes.reasoning, ReasoningMode::Full);
    assert_ne!(
        scrolls[0], scrolls[1],
        "full tool rows change the row count: {scrolls:?}"
    );
}

/// C-67: `PgUp:scroll back` at the newest row while older rows exist; scrolled back the keys
/// and `(N back)`; at the first row `(start)`.
#[test]
fn c67_the_scroll_hint_follows_the_painted_frame() {
    let (model, mut ui) = chat_with_history();
    ui.area = Rect::new(0, 0, 100, 16);
    let title = |ui: &Ui| buffer_lines(&draw(&model, ui))[2].clone();
    assert!(title(&ui).contains("PgUp:scroll back"), "{}", title(&ui));
    handle_key(&mut ui, &model, key(KeyCode::PageUp));
    let back = title(&ui);
    assert!(
        back.contains("Ctrl-E:newest") && back.contains(" back)"),
        "{back}"
    );
    for _ in 0..10 {
        handle_key(&mut ui, &model, key(KeyCode::PageUp));
        if title(&ui).contains("(start)") {
            break;
        }
    }
    assert!(title(&ui).contains("(start)"), "{}", title(&ui));
}

/// C-67: at the first row of a loaded window while older pages remain, the hint is not
/// `(start)` (before, every loaded page's top said so): it names the key that loads the next
/// older page; `(start)` only where the stored history begins.
#[test]
fn c67_the_top_of_a_loaded_page_with_older_pages_is_not_the_start() {
    let (mut model, mut ui) = chat_with_history();
    model.chat.pane.as_mut().unwrap().has_more = true;
    ui.area = Rect::new(0, 0, 100, 16);
    let title = |model: &Model, ui: &Ui| buffer_lines(&draw(model, ui))[2].clone();
    let mut top = String::new();
    for _ in 0..12 {
        handle_key(&mut ui, &model, key(KeyCode::PageUp));
        top = title(&model, &ui);
        if top.contains("older page") {
            break;
        }
    }
    assert!(!top.contains("(start)"), "{top}");
    assert!(top.contains("PgUp:older page"), "{top}");
    model.chat.pane.as_mut().unwrap().has_more = false;
    let start = title(&model, &ui);
    assert!(start.contains("(start)"), "{start}");
}
