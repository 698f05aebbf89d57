//! Keys of the chat screen (C-65 subset; the slash menu and the full composer keys belong to
//! the composer work item). Every key is handled here while the chat is open, so typed text
//! never reaches the roster or the tab ring.

use super::input::ComposerInput;
use super::{ChatUiCommand, transcript_rows};
use crate::view::chat::{ScrollPosition, ViewToggle};
use crate::view::keys::UiCommand;
use crate::view::model::Model;
use crate::view::screens::Ui;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// Handles one key while the chat is open.
pub fn handle(ui: &mut Ui, model: &Model, key: KeyEvent) -> UiCommand {
    let page = transcript_rows(ui.area).max(1);
    let Some(chat) = ui.chat.as_mut() else {
        return UiCommand::None;
    };
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    if ctrl {
        let toggle = match key.code {
            KeyCode::Char('f') => Some(ViewToggle::Origin),
            KeyCode::Char('d') => Some(ViewToggle::Tools),
            KeyCode::Char('r') => Some(ViewToggle::Reasoning),
            KeyCode::Char('n') => Some(ViewToggle::Journal),
            KeyCode::Char('s') => Some(ViewToggle::Details),
            _ => None,
        };
        if let Some(t) = toggle {
            chat.modes.toggle(t);
            return UiCommand::Repaint;
        }
        return match key.code {
            KeyCode::Char('j') => {
                chat.input.newline();
                UiCommand::Repaint
            }
            KeyCode::Char('u') => {
                chat.input.clear();
                UiCommand::Repaint
            }
            KeyCode::Char('e') => {
                chat.scroll = ScrollPosition::Newest;
                UiCommand::Repaint
            }
            _ => UiCommand::None,
        };
    }
    match key.code {
        KeyCode::Esc => UiCommand::Chat(ChatUiCommand::Close {
            keeper: chat.keeper.clone(),
        }),
        KeyCode::Enter => {
            if chat.input.text().trim().is_empty() {
                return UiCommand::None;
            }
            let text = chat.input.take_text();
            chat.scroll = ScrollPosition::Newest;
            UiCommand::Chat(ChatUiCommand::Send {
                keeper: chat.keeper.clone(),
                text,
            })
        }
        KeyCode::PageUp => {
            let at_top = model
                .chat
                .as_ref()
                .filter(|p| p.keeper == chat.keeper)
                .is_some_and(|p| p.view().last_frame().at_top);
            if at_top {
                return UiCommand::Chat(ChatUiCommand::LoadOlder {
                    keeper: chat.keeper.clone(),
                });
            }
            chat.scroll = match chat.scroll {
                ScrollPosition::Newest => ScrollPosition::Back(page),
                ScrollPosition::Back(n) => ScrollPosition::Back(n + page),
                ScrollPosition::FromTop(n) => ScrollPosition::FromTop(n.saturating_sub(page)),
            };
            UiCommand::Repaint
        }
        KeyCode::PageDown => {
            chat.scroll = match chat.scroll {
                ScrollPosition::Back(n) if n > page => ScrollPosition::Back(n - page),
                ScrollPosition::FromTop(n) => ScrollPosition::FromTop(n + page),
                _ => ScrollPosition::Newest,
            };
            UiCommand::Repaint
        }
        KeyCode::Backspace => {
            chat.input.backspace();
            UiCommand::Repaint
        }
        KeyCode::Left => {
            chat.input.left();
            UiCommand::Repaint
        }
        KeyCode::Right => {
            chat.input.right();
            UiCommand::Repaint
        }
        KeyCode::Home => {
            chat.input.home();
            UiCommand::Repaint
        }
        KeyCode::End => {
            chat.input.end();
            UiCommand::Repaint
        }
        KeyCode::Char(c) => {
            chat.input.insert_char(c);
            UiCommand::Repaint
        }
        _ => UiCommand::None,
    }
}

/// Bracketed paste into the chat input: CR, LF and CRLF become LF, other non-printables a
/// space (T.7, C-68; the large-paste rule is the composer's).
pub fn paste(ui: &mut Ui, text: &str) -> bool {
    let Some(chat) = ui.chat.as_mut() else {
        return false;
    };
    let normalised = text.replace("\r\n", "\n").replace('\r', "\n");
    for c in normalised.chars() {
        match c {
            '\n' => chat.input.newline(),
            c if super::input::printable(c) => chat.input.insert_char(c),
            _ => chat.input.insert_char(' '),
        }
    }
    true
}
