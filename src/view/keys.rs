//! Key handling: pure (UI state, model, key) → command. An open overlay or an active field
//! handles its own keys first (surfaces.md, global keys).

use super::model::Model;
use super::screens::keepers::{effective_offset, row_matches};
use super::screens::{RosterUi, Search, Tab, Ui};
use crate::protocol::keepers::KeeperRowSlot;
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

pub use super::command::{ExitCause, UiCommand};

fn roster_len(model: &Model) -> usize {
    model
        .keepers
        .roster
        .fetched
        .last()
        .map_or(0, |o| o.value.rows.len())
}

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
    if ui.roster.search.as_ref().is_some_and(|s| s.typing) {
        let page = ui_page(ui);
        return changed(search_typing(&mut ui.roster, model, key, page));
    }
    if ui.tab == Tab::Work && ui.work.typing() && !ui.help_open {
        return changed(super::screens::work::keys::typing(ui, key));
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
        KeyCode::Char('r') => match ui.tab {
            Tab::Keepers | Tab::Overview => UiCommand::Refresh(crate::actors::keepers::ROSTER),
            Tab::Work => super::screens::work::keys::refresh(ui),
            Tab::Board => super::screens::board::keys::refresh(&ui.board),
            Tab::System => UiCommand::Refresh(ui.system.pane.source()),
        },
        _ if ui.tab == Tab::Keepers => {
            let page = ui_page(ui);
            changed(roster_key(&mut ui.roster, model, key, page))
        }
        _ if ui.tab == Tab::Work => changed(super::screens::work::keys::handle(ui, model, key)),
        _ if ui.tab == Tab::System => {
            let rows = super::screens::body_area(ui.area).height;
            if super::screens::system::handle(&mut ui.system, key, rows) {
                UiCommand::Repaint
            } else {
                changed(UiCommand::None)
            }
        }
        _ if ui.tab == Tab::Board => {
            let rows = super::screens::body_area(ui.area).height;
            changed(super::screens::board::keys::handle(
                &mut ui.board,
                model,
                key,
                rows,
            ))
        }
        _ => changed(UiCommand::None),
    }
}

fn ui_page(ui: &Ui) -> usize {
    ui.roster_page_rows().max(1)
}

fn select(roster: &mut RosterUi, index: usize, len: usize, page: usize) -> UiCommand {
    if len == 0 {
        return UiCommand::None;
    }
    let index = index.min(len - 1);
    let offset = effective_offset(index, roster.offset, page, len);
    if index == roster.selected && offset == roster.offset {
        return UiCommand::None;
    }
    roster.selected = index;
    roster.offset = offset;
    UiCommand::Repaint
}

fn roster_key(roster: &mut RosterUi, model: &Model, key: KeyEvent, page: usize) -> UiCommand {
    let len = roster_len(model);
    let cur = roster.selected.min(len.saturating_sub(1));
    if roster.detail_open {
        return match key.code {
            KeyCode::Esc | KeyCode::Left => {
                roster.detail_open = false;
                UiCommand::Repaint
            }
            _ => UiCommand::None,
        };
    }
    match key.code {
        KeyCode::Char('j') | KeyCode::Down => select(roster, cur + 1, len, page),
        KeyCode::Char('k') | KeyCode::Up => select(roster, cur.saturating_sub(1), len, page),
        KeyCode::Home | KeyCode::Char('g') => select(roster, 0, len, page),
        KeyCode::End | KeyCode::Char('G') => select(roster, len.saturating_sub(1), len, page),
        KeyCode::PageDown => select(roster, cur + page, len, page),
        KeyCode::PageUp => select(roster, cur.saturating_sub(page), len, page),
        // `c` / `m` open the selected Keeper's chat (as in MASC).
        KeyCode::Char('c') | KeyCode::Char('m') if len > 0 => {
            let name = match model
                .keepers
                .roster
                .fetched
                .last()
                .and_then(|o| o.value.rows.get(cur))
            {
                Some(KeeperRowSlot::Row(row)) => Some(row.name.clone()),
                Some(KeeperRowSlot::Undecodable { name, .. }) => name.clone(),
                None => None,
            };
            match name {
                Some(keeper) => {
                    UiCommand::Chat(super::screens::chat::ChatUiCommand::Open { keeper })
                }
                None => UiCommand::None,
            }
        }
        KeyCode::Enter | KeyCode::Right if len > 0 => {
            roster.detail_open = true;
            UiCommand::Repaint
        }
        KeyCode::Char('/') => {
            roster.search = Some(Search {
                query: String::new(),
                typing: true,
            });
            roster.search_missed = false;
            UiCommand::Repaint
        }
        KeyCode::Char('n') => jump(roster, model, cur, true, true, page),
        KeyCode::Char('N') => jump(roster, model, cur, false, true, page),
        KeyCode::Esc if roster.search.is_some() => {
            roster.search = None;
            roster.search_missed = false;
            UiCommand::Repaint
        }
        _ => UiCommand::None,
    }
}

/// Moves to the next (or previous) row matching the search, wrapping; `skip_current` for n/N.
fn jump(
    roster: &mut RosterUi,
    model: &Model,
    from: usize,
    forward: bool,
    skip_current: bool,
    page: usize,
) -> UiCommand {
    let Some(query) = roster.search.as_ref().map(|s| s.query.to_lowercase()) else {
        return UiCommand::None;
    };
    let Some(value) = model.keepers.roster.fetched.last() else {
        return UiCommand::None;
    };
    let rows = &value.value.rows;
    let len = rows.len();
    if len == 0 || query.is_empty() {
        return UiCommand::None;
    }
    let start = usize::from(skip_current);
    let found = (start..len + start).map(|step| {
        if forward {
            (from + step) % len
        } else {
            (from + len * 2 - step) % len
        }
    });
    let hit = found.into_iter().find(|&i| row_matches(&rows[i], &query));
    let missed = hit.is_none();
    let was_missed = std::mem::replace(&mut roster.search_missed, missed);
    match hit {
        Some(i) => match select(roster, i, len, page) {
            UiCommand::None if was_missed != missed => UiCommand::Repaint,
            other => other,
        },
        None if was_missed != missed => UiCommand::Repaint,
        None => UiCommand::None,
    }
}

fn search_typing(roster: &mut RosterUi, model: &Model, key: KeyEvent, page: usize) -> UiCommand {
    let cur = roster.selected;
    let Some(search) = roster.search.as_mut() else {
        return UiCommand::None;
    };
    match key.code {
        KeyCode::Esc => {
            roster.search = None;
            roster.search_missed = false;
            UiCommand::Repaint
        }
        KeyCode::Enter => {
            search.typing = false;
            UiCommand::Repaint
        }
        KeyCode::Backspace => {
            search.query.pop();
            let _ = jump(roster, model, cur, true, false, page);
            UiCommand::Repaint
        }
        // T.7: typed keys are filtered one scalar at a time; only printable ones enter the field.
        KeyCode::Char(c) if !c.is_control() && !('\u{80}'..='\u{9f}').contains(&c) => {
            search.query.push(c);
            let _ = jump(roster, model, cur, true, false, page);
            UiCommand::Repaint
        }
        _ => UiCommand::None,
    }
}

/// Bracketed paste: into the search field only; non-printables become spaces (T.7).
/// Returns `true` when the UI changed.
pub fn handle_paste(ui: &mut Ui, model: &Model, text: &str) -> bool {
    if ui.chat.is_some() {
        return super::screens::chat::keys::paste(ui, text);
    }
    let page = ui_page(ui);
    let cur = ui.roster.selected;
    let Some(search) = ui.roster.search.as_mut().filter(|s| s.typing) else {
        return false;
    };
    search.query.extend(text.chars().map(|c| {
        if c.is_control() || ('\u{80}'..='\u{9f}').contains(&c) {
            ' '
        } else {
            c
        }
    }));
    let _ = jump(&mut ui.roster, model, cur, true, false, page);
    true
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
