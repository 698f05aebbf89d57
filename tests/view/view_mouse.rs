#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! Issue 27 item 8: the wheel scrolls the list in front and a click selects a row.

use crate::rig::{ScreensOf, admit_roster};
use crossterm::event::{MouseButton, MouseEventKind};
use masc_tui::protocol::keepers::KeeperRowSlot;
use masc_tui::view::keys::UiCommand;
use masc_tui::view::model::Model;
use masc_tui::view::mouse::{WHEEL_ROWS, handle_mouse};
use masc_tui::view::sample;
use masc_tui::view::sample::mouse_at as at;
use masc_tui::view::screens::{Tab, Ui};
use ratatui::layout::Rect;

fn roster(n: usize) -> (Model, Ui) {
    let mut m = super::view_board::connected();
    admit_roster(
        &mut m,
        (0..n)
            .map(|i| KeeperRowSlot::Row(Box::new(sample::keeper_row(i))))
            .collect(),
    );
    let ui = Ui {
        tab: Tab::Keepers,
        area: Rect::new(0, 0, 100, 30),
        ..Ui::default()
    };
    (m, ui)
}

#[test]
fn issue27_a_click_selects_the_roster_row_under_it() {
    let (m, mut ui) = roster(8);
    // Header 2 rows, then the roster's title and column heading: row 0 is at y = 4.
    let click = MouseEventKind::Down(MouseButton::Left);
    assert_eq!(
        handle_mouse(&mut ui, &m, at(click, 30, 7)),
        UiCommand::Repaint
    );
    assert_eq!(ui.keepers().roster.selected, 3);
    assert_eq!(
        handle_mouse(&mut ui, &m, at(click, 30, 3)),
        UiCommand::None,
        "the heading"
    );
    assert_eq!(
        handle_mouse(&mut ui, &m, at(click, 30, 20)),
        UiCommand::None,
        "below the rows"
    );
    assert_eq!(ui.keepers().roster.selected, 3);
}

#[test]
fn issue27_the_wheel_moves_the_list_in_front() {
    let (m, mut ui) = roster(12);
    handle_mouse(&mut ui, &m, at(MouseEventKind::ScrollDown, 30, 10));
    assert_eq!(ui.keepers().roster.selected, WHEEL_ROWS);
    handle_mouse(&mut ui, &m, at(MouseEventKind::ScrollUp, 30, 10));
    assert_eq!(ui.keepers().roster.selected, 0);
}
