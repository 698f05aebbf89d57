//! The mouse: the wheel scrolls what is under the pointer — the open chat's
//! transcript, else the list or pane in front (as `Up`/`Down` would, three rows a notch) — and a
//! left click selects a tab of the ring or a row of the surface. `--no-mouse` leaves the
//! terminal's mouse to the terminal (the guard then never enables capture).

use super::keys::handle_key;
use super::model::Model;
use super::screens::chat::ChatUi;
use super::screens::screen::with_screen;
use super::screens::{Ui, body_area, header};
use super::transcript::ScrollPosition;
use crate::view::command::UiCommand;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use std::any::Any;

/// Rows one wheel notch scrolls.
pub const WHEEL_ROWS: usize = 3;

/// Handles one mouse event.
pub fn handle_mouse(ui: &mut Ui, model: &Model, event: MouseEvent) -> UiCommand {
    if ui.too_small() {
        return UiCommand::None;
    }
    match event.kind {
        MouseEventKind::ScrollUp => wheel(ui, model, true),
        MouseEventKind::ScrollDown => wheel(ui, model, false),
        MouseEventKind::Down(MouseButton::Left) => click(ui, model, event.column, event.row),
        _ => UiCommand::None,
    }
}

/// The wheel: the chat's transcript when the chat is in front (its `Up`/`Down` recall inputs),
/// else `Up`/`Down` to what is in front.
fn wheel(ui: &mut Ui, model: &Model, up: bool) -> UiCommand {
    let chat_in_front = ui
        .layers
        .top_down()
        .next()
        .is_some_and(|l| (l as &dyn Any).is::<ChatUi>());
    if chat_in_front && let Some(chat) = ui.layer_mut::<ChatUi>() {
        chat.scroll = scrolled(chat.scroll, up, WHEEL_ROWS);
        return UiCommand::Repaint;
    }
    let code = if up { KeyCode::Up } else { KeyCode::Down };
    let mut out = UiCommand::None;
    for _ in 0..WHEEL_ROWS {
        match handle_key(ui, model, KeyEvent::new(code, KeyModifiers::NONE)) {
            UiCommand::None => {}
            cmd => out = cmd,
        }
    }
    out
}

/// The transcript's scroll `rows` further back (`up`) or nearer the newest row.
fn scrolled(scroll: ScrollPosition, up: bool, rows: usize) -> ScrollPosition {
    match (scroll, up) {
        (ScrollPosition::Newest, true) => ScrollPosition::Back(rows),
        (ScrollPosition::Back(n), true) => ScrollPosition::Back(n + rows),
        (ScrollPosition::FromTop(n), true) => ScrollPosition::FromTop(n.saturating_sub(rows)),
        (ScrollPosition::Back(n), false) if n > rows => ScrollPosition::Back(n - rows),
        (ScrollPosition::FromTop(n), false) => ScrollPosition::FromTop(n + rows),
        (_, false) => ScrollPosition::Newest,
    }
}

/// A click on the tab ring selects that surface; a click in the body is the surface's (a row
/// of its list). With a layer open the click does nothing: the layer is in front.
fn click(ui: &mut Ui, model: &Model, column: u16, row: u16) -> UiCommand {
    if !ui.layers.is_empty() {
        return UiCommand::None;
    }
    if row == ui.area.y {
        return match header::tab_at(column.saturating_sub(ui.area.x)) {
            Some(tab) if tab != ui.tab => {
                ui.tab = tab;
                UiCommand::Repaint
            }
            _ => UiCommand::None,
        };
    }
    let body = body_area(ui.area);
    if row < body.y || row >= body.bottom() {
        return UiCommand::None;
    }
    let tab = ui.tab;
    with_screen(ui, tab, |screen, ui| {
        screen.click(ui, model, column - body.x, row - body.y)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::sample::mouse_at as at;
    use crate::view::screens::Tab;
    use crate::view::screens::widgets::Ring;

    /// A click on a tab's label selects that surface, between labels nothing.
    #[test]
    fn a_click_on_the_tab_ring_selects_the_tab_under_it() {
        let model = Model::default();
        let mut ui = Ui::default();
        let click = MouseEventKind::Down(MouseButton::Left);
        // "masc-tui   Overview   Work  [Keepers] …": Work's label spans columns 21..27.
        assert_eq!(header::tab_at(21), Some(Tab::Work));
        assert_eq!(header::tab_at(9), None, "the space before a label");
        assert_eq!(
            handle_mouse(&mut ui, &model, at(click, 22, 0)),
            UiCommand::Repaint
        );
        assert_eq!(ui.tab, Tab::Work);
        for &tab in Tab::RING {
            let x = (0..200u16).find(|&x| header::tab_at(x) == Some(tab));
            assert!(x.is_some(), "{tab:?} has a label");
        }
        assert_eq!(
            handle_mouse(&mut ui, &model, at(click, 4, 0)),
            UiCommand::None
        );
        assert_eq!(ui.tab, Tab::Work);
    }

    #[test]
    fn the_wheel_scrolls_the_transcript_back_and_forth() {
        let s = scrolled(ScrollPosition::Newest, true, 3);
        assert_eq!(s, ScrollPosition::Back(3));
        assert_eq!(scrolled(s, true, 3), ScrollPosition::Back(6));
        assert_eq!(
            scrolled(ScrollPosition::Back(6), false, 3),
            ScrollPosition::Back(3)
        );
        assert_eq!(
            scrolled(ScrollPosition::Back(3), false, 3),
            ScrollPosition::Newest
        );
        assert_eq!(
            scrolled(ScrollPosition::FromTop(2), true, 3),
            ScrollPosition::FromTop(0)
        );
    }
}
