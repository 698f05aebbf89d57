//! Key handling: pure (UI state, model, key) → command. The open layers (overlays) are offered
//! a key first, top down, then an active field of the surface, then the global keys
//! (surfaces.md, global keys), then the surface.

use super::model::Model;
use super::screens::layer::{self, KeyRoute};
use super::screens::screen::with_screen;
use super::screens::widgets::Ring;
use super::screens::{Tab, Ui};
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
    let had_notice = ui.notice.text.take().is_some();
    let changed = |cmd: UiCommand| match cmd {
        UiCommand::None if had_notice => UiCommand::Repaint,
        other => other,
    };
    // The layers first, top down (the chat, a help, the approvals view …); the global quit
    // arming has its turn before the first layer that does not take every key.
    let global_seen = match layer::offer_key(ui, model, key, |ui| quit_armed(ui, key)) {
        KeyRoute::Taken(cmd) => return changed(cmd),
        KeyRoute::Below { global_seen } => global_seen,
    };
    let tab = ui.tab;
    if ui.screens.of(tab).typing() {
        return changed(with_screen(ui, tab, |screen, ui| {
            screen.typing_key(ui, model, key)
        }));
    }
    if !global_seen && let Some(cmd) = quit_armed(ui, key) {
        return changed(cmd);
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
        KeyCode::Char('?') => {
            super::screens::help::open(ui);
            UiCommand::Repaint
        }
        // Every save of the session and the earlier sessions' outbox rows, on every surface.
        KeyCode::Char(super::screens::journal::JOURNAL_KEY) => super::screens::journal::open(ui),
        // Every configured workspace with its connection and attention counts.
        KeyCode::Char(super::screens::workspaces::WORKSPACES_KEY) => {
            super::screens::workspaces::open(ui, model, None)
        }
        // The live observer feed (§15.2), on every surface.
        KeyCode::Char(super::screens::activity::ACTIVITY_KEY) => {
            super::screens::activity::open(ui, model)
        }
        KeyCode::Char(super::screens::palette::PALETTE_KEY) => {
            super::screens::palette::open(ui, model, handle_key)
        }
        KeyCode::Char('r') => with_screen(ui, tab, |screen, ui| screen.refresh(ui)),
        _ => changed(with_screen(ui, tab, |screen, ui| {
            screen.handle_key(ui, model, key)
        })),
    }
}

/// `Esc` before anything else: a screen waiting for something `Esc` cancels (a preparation,
/// H-2) takes it and nothing else happens. `true` when one did.
pub fn escape_pending(ui: &mut Ui) -> bool {
    let tabs: Vec<Tab> = ui.screens.iter().map(|s| s.tab()).collect();
    tabs.into_iter()
        .any(|tab| with_screen(ui, tab, |screen, ui| screen.escape(ui)))
}

/// The global keys' turn before any layer or surface that does not take every key: the second
/// key after `q` quits or cancels, and a Ctrl key (other than Ctrl-C, Ctrl-Z) does nothing.
fn quit_armed(ui: &mut Ui, key: KeyEvent) -> Option<UiCommand> {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    if ui.quit_armed {
        ui.quit_armed = false;
        if key.code == KeyCode::Char('q') && !ctrl {
            return Some(UiCommand::Quit(ExitCause::QuitKey));
        }
        return Some(UiCommand::Repaint);
    }
    ctrl.then_some(UiCommand::None)
}

/// Bracketed paste: to the layers top down (the chat composer, the Ask reader's input), else
/// into the active field of the surface. Returns `true` when the UI changed.
pub fn handle_paste(ui: &mut Ui, model: &Model, text: &str) -> bool {
    if let Some(changed) = layer::offer_paste(ui, model, text) {
        return changed;
    }
    let tab = ui.tab;
    with_screen(ui, tab, |screen, ui| screen.paste(ui, model, text))
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
    }

    #[test]
    fn t5_gate_rejects_hidden_input_but_quits() {
        let mut ui = Ui {
            area: Rect::new(0, 0, 40, 8),
            ..Ui::default()
        };
        let model = Model::default();
        assert_eq!(handle_key(&mut ui, &model, press('?')), UiCommand::None);
        assert!(!crate::view::screens::help::is_open(&ui));
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
        assert!(crate::view::screens::help::is_open(&ui));
        assert_eq!(handle_key(&mut ui, &model, press('q')), UiCommand::None);
        assert!(!ui.quit_armed);
        handle_key(
            &mut ui,
            &model,
            KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE),
        );
        assert!(!crate::view::screens::help::is_open(&ui));
    }
}
