//! Key handling: pure (UI state, model, key) → command. An open overlay or an active field
//! handles its own keys first (surfaces.md, global keys).

use super::model::Model;
use super::screens::widgets::Ring;
use super::screens::{Tab, Ui, screen_of};
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

pub use super::command::{ExitCause, UiCommand};

/// Handles one key event.
pub fn handle_key(ui: &mut Ui, model: &Model, key: KeyEvent) -> UiCommand {
    if key.kind == KeyEventKind::Release {
        return UiCommand::None;
    }
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    if ctrl && key.code == KeyCode::Char('c') {
        return UiCommand::Quit(ExitCause::Interrupt);
    }
    if ctrl && key.code == KeyCode::Char('z') {
        return UiCommand::Suspend;
    }
    if ui.too_small() {
        // T.5: behind the resize gate hidden input is rejected; only quitting works.
        return match (ui.quit_armed, key.code) {
            (true, KeyCode::Char('q')) => UiCommand::Quit(ExitCause::QuitKey),
            (false, KeyCode::Char('q')) => {
                ui.quit_armed = true;
                UiCommand::None
            }
            _ => {
                ui.quit_armed = false;
                UiCommand::None
            }
        };
    }
    let had_notice = ui.notice.take().is_some();
    let changed = |cmd: UiCommand| match cmd {
        UiCommand::None if had_notice => UiCommand::Repaint,
        other => other,
    };
    if ui.chat.is_some() {
        return changed(super::screens::chat::keys::handle(ui, model, key));
    }
    if super::screens::approvals::keys::typing(ui) {
        // The reader's answer input takes every key (K-14: `o`/`O` are text too).
        return changed(super::screens::approvals::keys::handle(ui, model, key));
    }
    let screen = screen_of(ui.tab);
    if screen.typing(ui) && !ui.help_open {
        return changed(screen.typing_key(ui, model, key));
    }
    if ui.help_open {
        if matches!(key.code, KeyCode::Esc | KeyCode::Char('?')) {
            ui.help_open = false;
            return UiCommand::Repaint;
        }
        return changed(UiCommand::None);
    }
    if ui.quit_armed {
        ui.quit_armed = false;
        if key.code == KeyCode::Char('q') && !ctrl {
            return UiCommand::Quit(ExitCause::QuitKey);
        }
        return UiCommand::Repaint;
    }
    if ctrl {
        return changed(UiCommand::None);
    }
    if let Some(view) = ui.approvals.as_mut() {
        match key.code {
            // A surface change closes the view (and disarms).
            KeyCode::Tab | KeyCode::BackTab => ui.approvals = None,
            // Quitting and help stay global; they disarm too.
            KeyCode::Char('q') | KeyCode::Char('?') => view.armed = None,
            _ => return changed(super::screens::approvals::keys::handle(ui, model, key)),
        }
    }
    match key.code {
        KeyCode::Char('q') => {
            ui.quit_armed = true;
            UiCommand::Repaint
        }
        KeyCode::Tab => {
            ui.tab = ui.tab.next();
            UiCommand::Repaint
        }
        KeyCode::BackTab => {
            ui.tab = ui.tab.previous();
            UiCommand::Repaint
        }
        KeyCode::Char('3') => {
            ui.tab = Tab::Keepers;
            UiCommand::Repaint
        }
        KeyCode::Char('?') => {
            ui.help_open = true;
            UiCommand::Repaint
        }
        KeyCode::Char('r') => screen.refresh(ui),
        _ => changed(screen.handle_key(ui, model, key)),
    }
}

/// Bracketed paste: into the chat composer, else into the active field of the surface.
/// Returns `true` when the UI changed.
pub fn handle_paste(ui: &mut Ui, model: &Model, text: &str) -> bool {
    if ui.chat.is_some() {
        return super::screens::chat::keys::paste(ui, text);
    }
    if super::screens::approvals::keys::paste(ui, text) {
        return true;
    }
    screen_of(ui.tab).paste(ui, model, text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::layout::Rect;

    fn press(c: char) -> KeyEvent {
        KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)
    }

    #[test]
    fn tab_ring_wraps_both_ways() {
        let mut ui = Ui::default();
        let model = Model::default();
        ui.tab = Tab::System;
        handle_key(
            &mut ui,
            &model,
            KeyEvent::new(KeyCode::Tab, KeyModifiers::NONE),
        );
        assert_eq!(ui.tab, Tab::Overview);
        handle_key(
            &mut ui,
            &model,
            KeyEvent::new(KeyCode::BackTab, KeyModifiers::SHIFT),
        );
        assert_eq!(ui.tab, Tab::System);
        handle_key(&mut ui, &model, press('3'));
        assert_eq!(ui.tab, Tab::Keepers);
    }

    #[test]
    fn t5_gate_rejects_hidden_input_but_quits() {
        let mut ui = Ui {
            area: Rect::new(0, 0, 40, 8),
            ..Ui::default()
        };
        let model = Model::default();
        assert_eq!(handle_key(&mut ui, &model, press('?')), UiCommand::None);
        assert!(!ui.help_open);
        assert_eq!(handle_key(&mut ui, &model, press('q')), UiCommand::None);
        assert_eq!(
            handle_key(&mut ui, &model, press('q')),
            UiCommand::Quit(ExitCause::QuitKey)
        );
    }

    #[test]
    fn help_closes_with_esc_and_swallows_other_keys() {
        let mut ui = Ui::default();
        let model = Model::default();
        handle_key(&mut ui, &model, press('?'));
        assert!(ui.help_open);
        assert_eq!(handle_key(&mut ui, &model, press('q')), UiCommand::None);
        assert!(!ui.quit_armed);
        handle_key(
            &mut ui,
            &model,
            KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE),
        );
        assert!(!ui.help_open);
    }
}
