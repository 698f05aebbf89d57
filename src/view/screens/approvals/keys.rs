//! Keys of the approvals view: `j`/`k` move; `y` `y` confirm and `n` `n` deny (the first press
//! arms, the second sends; another key, leaving the view, a workspace change, or the approval
//! leaving the list or a decision of it starting or ending disarms); `Enter` the field list of
//! the selected approval (the selection follows the approval across re-reads); `R` retry only
//! when offered; `r` re-read.

use super::reader::{self, AskReader, ReaderOutcome};
use super::{ApprovalsUi, ArmedOver, asks, intent_of, latest, listed, retry_offered, selected_ask};
use crate::actors::decisions::DECISIONS;
use crate::actors::decisions::approval::ApprovalDecision;
use crate::protocol::operator::Decision;
use crate::view::command::UiCommand;
use crate::view::model::Model;
use crate::view::screens::Ui;
use crate::view::screens::layer::LayerCx;
use crossterm::event::{KeyCode, KeyEvent};

/// A key while the approvals view is open (it is the layer `view`; `cx.ui` is the rest).
pub fn handle(view: &mut ApprovalsUi, cx: &mut LayerCx<'_>, key: KeyEvent) -> UiCommand {
    let model = cx.model;
    let ui = &mut *cx.ui;
    let page = crate::view::screens::body_area(ui.area).height as usize;
    if let Some(r) = view.reader.as_mut() {
        let outcome = ui
            .layers
            .with_kept(|asks: &mut asks::AsksUi| reader::handle(r, asks, model, page, key));
        return match outcome {
            ReaderOutcome::Cmd(cmd) => cmd,
            ReaderOutcome::Notice(why) => {
                ui.notice.text = Some(why.to_string());
                UiCommand::Repaint
            }
            ReaderOutcome::Close => {
                // Back to the summary, previewing the question the reader was on.
                view.ask = Some(r.ask.clone());
                view.ask_question = r.question;
                view.reader = None;
                UiCommand::Repaint
            }
        };
    }
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
    let armed_over = view.armed_over.take();
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
        // The second press sends only what the first armed, over the same workspace and
        // decision state (checked here too: an identity change may not have been settled).
        let over = ArmedOver::now(model, &approval.confirm_token);
        return match armed {
            Some((token, d))
                if token == approval.confirm_token
                    && d == decision
                    && armed_over.as_ref() == Some(&over) =>
            {
                UiCommand::save::<ApprovalDecision>(intent_of(approval, decision))
            }
            _ => {
                view.anchor = Some(approval.confirm_token.clone());
                view.armed = Some((approval.confirm_token.clone(), decision));
                view.armed_over = Some(over);
                UiCommand::Repaint
            }
        };
    }
    match key.code {
        KeyCode::Esc => {
            if armed.is_none() {
                ui.tab = view.opened_from;
                cx.close();
            }
            UiCommand::Repaint
        }
        KeyCode::Char('j') | KeyCode::Down => {
            select(view, model, (view.selected + 1).min(len.saturating_sub(1)));
            UiCommand::Repaint
        }
        KeyCode::Char('k') | KeyCode::Up => {
            select(view, model, view.selected.saturating_sub(1));
            UiCommand::Repaint
        }
        KeyCode::Home | KeyCode::Char('g') => {
            select(view, model, 0);
            UiCommand::Repaint
        }
        KeyCode::End | KeyCode::Char('G') => {
            select(view, model, len.saturating_sub(1));
            UiCommand::Repaint
        }
        KeyCode::Enter | KeyCode::Right if len > 0 => {
            let selected = view.selected;
            select(view, model, selected);
            view.detail_open = true;
            UiCommand::Repaint
        }
        KeyCode::Char('R') => match items
            .get(view.selected)
            .and_then(|a| retry_offered(model, a))
        {
            Some(intent) => UiCommand::save::<ApprovalDecision>(intent),
            None => repaint_if(armed.is_some()),
        },
        KeyCode::Char('r') => UiCommand::Refresh(DECISIONS),
        // The durable Gate queue (§15.3), over this view: `Esc` there comes back here.
        KeyCode::Char(crate::view::screens::gate_queue::GATE_QUEUE_KEY) => {
            crate::view::screens::gate_queue::open(ui, model)
        }
        // The summary preview's Ask (K-7: choosing Asks here never answers anything).
        KeyCode::Char('[') | KeyCode::Char(']') => {
            let open = asks::open_asks(model);
            if open.is_empty() {
                return repaint_if(armed.is_some());
            }
            let at = selected_ask(model, view).map_or(0, |(i, _)| i);
            let next = if key.code == KeyCode::Char(']') {
                (at + 1) % open.len()
            } else {
                (at + open.len() - 1) % open.len()
            };
            view.ask = open.get(next).map(|a| asks::ask_ref(a));
            view.ask_question = 0;
            UiCommand::Repaint
        }
        KeyCode::Char('a') => match selected_ask(model, view) {
            Some((_, ask)) => {
                let question = if view.ask.as_ref() == Some(&asks::ask_ref(ask)) {
                    view.ask_question
                } else {
                    0
                };
                view.reader = Some(AskReader::new(asks::ask_ref(ask), question));
                UiCommand::Repaint
            }
            None => {
                // Unread is not "none open": the list may still be on its way.
                let read = model.decisions.asks.fetched.last().is_some();
                ui.notice.text = Some(if read {
                    "no open Ask to answer".into()
                } else {
                    "Asks not read yet: nothing to answer (r re-reads)".into()
                });
                UiCommand::Repaint
            }
        },
        _ => repaint_if(armed.is_some()),
    }
}

/// The reader is taking text: every key (also `q`, `?`, `Tab`) goes to it.
pub fn typing(view: &ApprovalsUi) -> bool {
    view.reader.as_ref().is_some_and(AskReader::typing)
}

/// Bracketed paste into the reader's answer input; `true` when it took it.
pub fn paste(view: &mut ApprovalsUi, ui: &mut Ui, text: &str) -> bool {
    match view.reader.as_mut() {
        Some(r) => ui
            .layers
            .with_kept(|asks: &mut asks::AsksUi| reader::paste(r, asks, text)),
        None => false,
    }
}

fn repaint_if(changed: bool) -> UiCommand {
    if changed {
        UiCommand::Repaint
    } else {
        UiCommand::None
    }
}

/// Selects row `index` and anchors the selection on its approval.
fn select(view: &mut ApprovalsUi, model: &Model, index: usize) {
    view.selected = index;
    view.anchor = listed(model).get(index).map(|a| a.confirm_token.clone());
}

/// Keeps the view consistent with what was read: the selection follows its approval (a
/// re-read that moves the list never moves the selection, or an open detail, onto another
/// approval; if the approval left the list, the detail closes and the nearest row is
/// selected), and an armed decision is disarmed when its approval left the list, the
/// workspace changed, or a decision of it started or ended meanwhile.
pub fn follow_list(ui: &mut ApprovalsUi, model: &Model) -> bool {
    let items = listed(model);
    let mut changed = false;
    let found = ui
        .anchor
        .as_ref()
        .and_then(|t| items.iter().position(|a| &a.confirm_token == t));
    match found {
        Some(i) if i != ui.selected => {
            ui.selected = i;
            changed = true;
        }
        Some(_) => {}
        None => {
            if ui.anchor.is_some() && ui.detail_open {
                ui.detail_open = false;
                changed = true;
            }
            if ui.selected >= items.len() && !items.is_empty() {
                ui.selected = items.len() - 1;
                changed = true;
            }
            ui.anchor = items.get(ui.selected).map(|a| a.confirm_token.clone());
        }
    }
    let still_armable = ui.armed.as_ref().is_some_and(|(token, _)| {
        items.iter().any(|a| &a.confirm_token == token)
            && !latest(model, token).is_some_and(|e| e.phase.in_flight())
            && ui.armed_over.as_ref() == Some(&ArmedOver::now(model, token))
    });
    if ui.armed.is_some() && !still_armable {
        ui.armed = None;
        ui.armed_over = None;
        changed = true;
    }
    changed
}
