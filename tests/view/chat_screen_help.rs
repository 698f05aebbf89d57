#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! Seen on screen: help opened in a chat lists the chat's keys (C-26), `Left` on an
//! empty composer opens the Keeper list (C-65), and a command without screen behaviour is named
//! by its word on the footer, never by a Rust debug value.

use super::chat_screen::{draw, key, opened, type_text};
use crossterm::event::KeyCode;
use masc_tui::view::keys::{UiCommand, handle_key};
use masc_tui::view::sample::buffer_text;
use masc_tui::view::screens::chat::ChatEvent;
use masc_tui::view::screens::chat::ChatUi;
use masc_tui::view::screens::help::is_open as help_open;

#[test]
fn c26_help_opened_in_a_chat_lists_the_chat_keys() {
    let (model, mut ui, _) = opened(0);
    type_text(&mut ui, &model, "/help");
    handle_key(&mut ui, &model, key(KeyCode::Enter));
    if !help_open(&ui) {
        // The first Enter only completed the menu candidate (C-60).
        handle_key(&mut ui, &model, key(KeyCode::Enter));
    }
    assert!(help_open(&ui));
    let text = buffer_text(&draw(&model, &ui));
    for needle in [
        "Keeper chat keys",
        "Ctrl-J",
        "PgUp / PgDn",
        "Ctrl-E",
        "Ctrl-G",
        "Ctrl-F",
        "Ctrl-D",
        "Ctrl-R",
        "Ctrl-N",
        "Ctrl-S",
        "Global keys",
    ] {
        assert!(
            text.contains(needle),
            "{needle} missing from the help\n{text}"
        );
    }
    assert!(!text.contains("(no keys of its own"), "{text}");
    handle_key(&mut ui, &model, key(KeyCode::Esc));
    assert!(!help_open(&ui), "Esc closes the help first");
    assert!(ui.layer::<ChatUi>().is_some(), "and stays in the chat");
}

#[test]
fn c65_left_on_an_empty_composer_opens_the_keeper_list() {
    let (model, mut ui, keeper) = opened(1);
    type_text(&mut ui, &model, "ab");
    let cmd = handle_key(&mut ui, &model, key(KeyCode::Left));
    assert!(
        !matches!(cmd.as_local::<ChatEvent>(), Some(ChatEvent::Close { .. })),
        "with a draft, Left moves the caret: {cmd:?}"
    );
    assert_eq!(ui.layer::<ChatUi>().unwrap().composer.text(), "ab");
    ui.layer_mut::<ChatUi>().unwrap().composer.set_text("");
    let cmd = handle_key(&mut ui, &model, key(KeyCode::Left));
    assert_eq!(cmd, UiCommand::local(ChatEvent::Close { keeper }));
}

#[test]
fn issue14_an_unavailable_command_is_named_by_its_word_never_a_debug_value() {
    let (model, mut ui, _) = opened(0);
    type_text(&mut ui, &model, "/cost");
    handle_key(&mut ui, &model, key(KeyCode::Enter));
    if !ui.layer::<ChatUi>().unwrap().composer.is_empty() {
        handle_key(&mut ui, &model, key(KeyCode::Enter));
    }
    let text = buffer_text(&draw(&model, &ui));
    assert!(
        text.contains("not available in masc-tui yet: /cost"),
        "{text}"
    );
    assert!(
        !text.contains("Cost"),
        "a Rust debug value on the footer\n{text}"
    );
}
