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
use masc_tui::view::screens::help::HelpLayer;
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
    for needle in ["Keeper chat keys", "Ctrl-J", "PgUp / PgDn", "Ctrl-E"] {
        assert!(
            text.contains(needle),
            "{needle} missing from the help\n{text}"
        );
    }
    // Issue 27: only what works in the chat — its keys, its commands, Ctrl-C / Ctrl-Z; the
    // ring's keys are text here.
    let help = ui.layer::<HelpLayer>().unwrap();
    let titles: Vec<&str> = help.sections.iter().map(|s| s.title.as_str()).collect();
    assert_eq!(
        titles,
        vec!["Keeper chat keys", "Keeper chat commands", "Everywhere"]
    );
    let rows: Vec<&str> = help
        .sections
        .iter()
        .flat_map(|s| s.rows.iter().map(|(k, _)| k.as_str()))
        .collect();
    for key in [
        "Ctrl-J", "Ctrl-G", "Ctrl-F", "Ctrl-D", "Ctrl-R", "Ctrl-N", "Ctrl-S", "Ctrl-C", "Ctrl-Z",
    ] {
        assert!(rows.contains(&key), "{key} missing: {rows:?}");
    }
    for command in [
        "/interrupt",
        "/steer",
        "/approve",
        "/deny",
        "/run-next",
        "/keeper",
        "/thinking",
        "/tools",
        "/find",
        "/copy",
        "/queue",
        "/context",
        "/help",
    ] {
        assert!(
            rows.iter().any(|r| r.split(' ').next() == Some(command)),
            "{command} missing: {rows:?}"
        );
    }
    for ring in ["Tab / Shift-Tab", "r", "?", "q q", "L"] {
        assert!(!rows.contains(&ring), "{ring} listed in the chat: {rows:?}");
    }
    // The help scrolls to what does not fit.
    handle_key(&mut ui, &model, key(KeyCode::End));
    let text = buffer_text(&draw(&model, &ui));
    assert!(text.contains("Ctrl-Z"), "End shows the last rows\n{text}");
    assert!(help_open(&ui));
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
fn issue27_a_command_masc_tui_does_not_run_says_so_by_its_word() {
    let (model, mut ui, _) = opened(0);
    type_text(&mut ui, &model, "/cost");
    handle_key(&mut ui, &model, key(KeyCode::Enter));
    if !ui.layer::<ChatUi>().unwrap().composer.is_empty() {
        handle_key(&mut ui, &model, key(KeyCode::Enter));
    }
    let text = buffer_text(&draw(&model, &ui));
    assert!(
        text.contains("/cost: masc-tui does not run this command"),
        "{text}"
    );
    assert!(
        !text.contains("Cost"),
        "a Rust debug value on the footer\n{text}"
    );
}
