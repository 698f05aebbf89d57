//! Keys of the approvals view: `j`/`k` move; `y` `y` confirm and `n` `n` deny (the first press
//! arms, the second sends; another key, leaving the view, or the approval leaving the list or
//! being decided disarms); `Enter` the field list; `R` retry only when offered; `r` re-read.

use super::{ApprovalsUi, intent_of, latest, listed, retry_offered};
use crate::actors::decisions::DECISIONS;
use crate::protocol::operator::Decision;
use crate::view::command::UiCommand;
use crate::view::model::Model;
use crate::view::screens::Ui;
use crossterm::event::{KeyCode, KeyEvent};

/// A key while the approvals view is open.
pub fn handle(ui: &mut Ui, model: &Model, key: KeyEvent) -> UiCommand {
    let Some(view) = ui.approvals.as_mut() else {
        return UiCommand::None;
    };
    let items = listed(model);
    let len = items.len();
    if view.detail_open {
        return match key.code {
            KeyCode::Esc | KeyCode::Enter | KeyCode::Left => {
                view.detail_open = false;
                UiCommand::Repaint
            }
            _ => UiCommand::None,
        };
    }
    let armed = view.armed.take();
    let decision = match key.code {
        KeyCode::Char('y') => Some(Decision::Confirm),
        KeyCode::Char('n') => Some(Decision::Deny),
        _ => None,
    };
    if let Some(decision) = decision {
        let Some(approval) = items.get(view.selected) else {
            return repaint_if(armed.is_some());
        };
        if latest(model, &approval.confirm_token).is_some_and(|e| e.phase.in_flight()) {
            // One decision per approval in flight at a time (§10.5).
            return UiCommand::Repaint;
        }
        return match armed {
            Some((token, d)) if token == approval.confirm_token && d == decision => {
                UiCommand::Decide(intent_of(approval, decision))
            }
            _ => {
                view.armed = Some((approval.confirm_token.clone(), decision));
                UiCommand::Repaint
            }
        };
    }
    match key.code {
        KeyCode::Esc => {
            if armed.is_none() {
                let back = view.opened_from;
                ui.approvals = None;
                ui.tab = back;
            }
            UiCommand::Repaint
        }
        KeyCode::Char('j') | KeyCode::Down => {
            view.selected = (view.selected + 1).min(len.saturating_sub(1));
            UiCommand::Repaint
        }
        KeyCode::Char('k') | KeyCode::Up => {
            view.selected = view.selected.saturating_sub(1);
            UiCommand::Repaint
        }
        KeyCode::Home | KeyCode::Char('g') => {
            view.selected = 0;
            UiCommand::Repaint
        }
        KeyCode::End | KeyCode::Char('G') => {
            view.selected = len.saturating_sub(1);
            UiCommand::Repaint
        }
        KeyCode::Enter | KeyCode::Right if len > 0 => {
            view.detail_open = true;
            UiCommand::Repaint
        }
        KeyCode::Char('R') => match items
            .get(view.selected)
            .and_then(|a| retry_offered(model, a))
        {
            Some(intent) => UiCommand::Decide(intent),
            None => repaint_if(armed.is_some()),
        },
        KeyCode::Char('r') => UiCommand::Refresh(DECISIONS),
        _ => repaint_if(armed.is_some()),
    }
}

fn repaint_if(changed: bool) -> UiCommand {
    if changed {
        UiCommand::Repaint
    } else {
        UiCommand::None
    }
}

/// Keeps the view consistent with what was read: the selection stays in the list, and an
/// armed decision whose approval left the list or was decided meanwhile is disarmed.
pub fn settle(ui: &mut ApprovalsUi, model: &Model) -> bool {
    let items = listed(model);
    let mut changed = false;
    if ui.selected >= items.len() && !items.is_empty() {
        ui.selected = items.len() - 1;
        changed = true;
    }
    let still_armable = ui.armed.as_ref().is_some_and(|(token, _)| {
        items.iter().any(|a| &a.confirm_token == token)
            && !latest(model, token).is_some_and(|e| e.phase.in_flight())
    });
    if ui.armed.is_some() && !still_armable {
        ui.armed = None;
        changed = true;
    }
    changed
}
