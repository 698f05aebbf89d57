//! Keys and pastes of the chat screen (C-65). The composer takes every key first; what it
//! leaves (`Unhandled`) is the screen's: Esc back, PgUp/PgDn pages (PgUp at the top loads an
//! older page), Ctrl-E newest, Ctrl-F/D/R/N/S view toggles. Every key is handled here while the
//! chat is open, so typed text never reaches the roster or the tab ring.

use super::{ChatEvent, ChatUi, Progress, composer_layout, transcript_rows};
use crate::actors::decisions::approval::ApprovalDecision;
use crate::actors::decisions::held_call::HeldCallDecision;
use crate::protocol::operator::Decision;
use crate::view::chat::approvals;
use crate::view::command::UiCommand;
use crate::view::composer::slash::{ThinkingChoice, ToolsChoice};
use crate::view::composer::{
    ComposerAction, PasteStamp, RecallDirection, RecallStep, SlashCommand,
};
use crate::view::editor::{EditPurpose, EditRequest};
use crate::view::model::Model;
use crate::view::screens::Ui;
use crate::view::screens::help::HelpLayer;
use crate::view::transcript::{
    ReasoningMode, ScrollPosition, ToolVisibility, ViewModes, ViewToggle,
};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use std::time::Instant;

/// Handles one key while the chat is open (the chat layer is `chat`; `ui` is the rest).
pub fn handle(chat: &mut ChatUi, ui: &mut Ui, model: &Model, key: KeyEvent) -> UiCommand {
    let now = Instant::now();
    let area = ui.area;
    // `/find`: with the draft empty, `n` walks to the next older match, `N` to the newer.
    if chat.find.is_some()
        && chat.composer.text().is_empty()
        && matches!(key.code, KeyCode::Char('n' | 'N'))
        && !key
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
    {
        let window = super::find::window_of(chat, area, now);
        let older = key.code == KeyCode::Char('n');
        let step = super::find::walk(chat, model, older, window);
        return find_command(chat, step, now);
    }
    // C-65: `Left` on an empty composer opens the Keeper list (the roster); the draft (empty)
    // and the chat stay as they are for `c` to reopen.
    if key.code == KeyCode::Left && key.modifiers.is_empty() && chat.composer.text().is_empty() {
        return UiCommand::local(ChatEvent::Close {
            keeper: chat.keeper.clone(),
        });
    }
    let layout = composer_layout(chat, area, now);
    let page = transcript_rows(&layout).max(1);
    let revision = chat.composer.revision();
    let action = chat.composer.handle_key(key, &layout.key_context(now));
    // An armed `/approve` / `/deny` survives typing the command again; anything else disarms.
    let armed = match action {
        ComposerAction::Edited | ComposerAction::Unchanged => chat.armed.clone(),
        _ => chat.armed.take(),
    };
    if chat.composer.revision() != revision {
        // The recalled text was edited or sent: it is the draft now (C-65).
        chat.recall.end();
    }
    match action {
        ComposerAction::Send(message) => {
            chat.scroll = ScrollPosition::Newest;
            UiCommand::local(ChatEvent::Send {
                keeper: chat.keeper.clone(),
                text: message.inline_text(),
                draft: message.draft,
            })
        }
        ComposerAction::Slash(SlashCommand::Approve) => {
            decide(chat, ui, model, Decision::Confirm, armed)
        }
        ComposerAction::Slash(SlashCommand::Deny) => decide(chat, ui, model, Decision::Deny, armed),
        ComposerAction::Slash(command) => {
            let window = (layout.history.width, page);
            slash(chat, ui, model, command, now, window)
        }
        // C-66: the composer put the typed error on its footer; nothing is sent.
        ComposerAction::SlashRejected(_) | ComposerAction::Edited => UiCommand::Repaint,
        ComposerAction::Recall(direction) => recall(chat, model, direction),
        ComposerAction::Unchanged => UiCommand::None,
        ComposerAction::Unhandled => screen_key(chat, model, key, (layout.history.width, page)),
    }
}

/// Up/Down past the composer's edge (C-65): after PgUp (the transcript scrolled back) they
/// scroll one line; otherwise they walk this Keeper's inputs, pending first, then sent.
fn recall(chat: &mut ChatUi, model: &Model, direction: RecallDirection) -> UiCommand {
    if chat.scroll != ScrollPosition::Newest {
        chat.scroll = match (direction, chat.scroll) {
            (RecallDirection::Older, ScrollPosition::Back(n)) => ScrollPosition::Back(n + 1),
            (RecallDirection::Older, ScrollPosition::FromTop(n)) => {
                ScrollPosition::FromTop(n.saturating_sub(1))
            }
            (RecallDirection::Newer, ScrollPosition::Back(n)) if n > 1 => {
                ScrollPosition::Back(n - 1)
            }
            (RecallDirection::Newer, ScrollPosition::FromTop(n)) => ScrollPosition::FromTop(n + 1),
            _ => ScrollPosition::Newest,
        };
        return UiCommand::Repaint;
    }
    let list = model
        .chat
        .pane
        .as_ref()
        .filter(|p| p.keeper == chat.keeper)
        .map(|p| p.recall_list())
        .unwrap_or_default();
    let composer = &mut chat.composer;
    match chat.recall.step(direction, &list, || composer.draft()) {
        RecallStep::Show(text) => composer.set_text(&text),
        RecallStep::Restore(draft) => composer.restore_draft(draft),
        RecallStep::Stay => return UiCommand::None,
    }
    UiCommand::Repaint
}

/// Ctrl-G (C-65): the chat of the next Keeper in roster order (wrapping), not while this
/// chat's turn is in flight — that is refused on the footer (C-64), never queued.
fn next_keeper(chat: &mut ChatUi, model: &Model) -> UiCommand {
    let now = Instant::now();
    let in_flight = model
        .chat
        .pane
        .as_ref()
        .filter(|p| p.keeper == chat.keeper)
        .is_some_and(|p| {
            matches!(
                p.progress(),
                Progress::Waiting | Progress::Sending | Progress::Queued | Progress::Active(_)
            )
        });
    if in_flight {
        chat.composer.report_failure(
            "Ctrl-G: this Keeper's turn is in flight; wait for it to end",
            now,
        );
        return UiCommand::Repaint;
    }
    let names: Vec<&str> = model
        .keepers
        .roster
        .fetched
        .last()
        .map(|o| o.value.keepers().map(|r| r.name.as_str()).collect())
        .unwrap_or_default();
    let next = names
        .iter()
        .position(|n| *n == chat.keeper)
        .map_or(0, |i| (i + 1) % names.len().max(1));
    match names.get(next) {
        Some(name) if *name != chat.keeper => UiCommand::local(ChatEvent::Open {
            keeper: (*name).to_string(),
        }),
        _ => {
            chat.composer
                .report_failure("Ctrl-G: no other Keeper in the roster", now);
            UiCommand::Repaint
        }
    }
}

/// `Ctrl-X`: the draft goes to the operator's `$EDITOR`; what comes back replaces it (it is
/// not sent: `Enter` sends). A draft holding pasted blocks (C-68) stays in the composer.
fn edit_draft(chat: &mut ChatUi) -> UiCommand {
    if !chat.composer.spills().is_empty() {
        chat.composer.report_failure(
            "Ctrl-X: the draft holds pasted blocks; send or clear them first",
            Instant::now(),
        );
        return UiCommand::Repaint;
    }
    UiCommand::Edit(EditRequest::new(
        EditPurpose::ChatMessage,
        chat.composer.text(),
        ".md",
    ))
}

/// A view toggle (Ctrl-F/D/R/N/S) that keeps the scroll on the same entry (C-31, C-74).
fn toggle_keeping_anchor(
    chat: &mut ChatUi,
    model: &Model,
    toggle: ViewToggle,
    window: (u16, usize),
) {
    change_modes_keeping_anchor(chat, model, window, |modes| modes.toggle(toggle));
}

/// A change of the view modes (a Ctrl toggle, `/thinking <mode>`, `/tools <mode>`) that keeps
/// the scroll on the same entry (C-31, C-74): the entry at the window's top is found again in
/// the new projection, never the same row count.
fn change_modes_keeping_anchor(
    chat: &mut ChatUi,
    model: &Model,
    window: (u16, usize),
    change: impl FnOnce(&mut ViewModes),
) {
    let (width, rows) = window;
    let height = u16::try_from(rows).unwrap_or(u16::MAX);
    let pane = model.chat.pane.as_ref().filter(|p| p.keeper == chat.keeper);
    let Some(pane) = pane else {
        change(&mut chat.modes);
        return;
    };
    let mut view = pane.view();
    view.set_modes(chat.modes);
    let anchor = view.anchor(width, height, chat.scroll);
    // A match row of the old projection means another row now: the window is the reference.
    if let Some(find) = chat.find.as_mut() {
        find.current = None;
        find.index = None;
    }
    change(&mut chat.modes);
    view.set_modes(chat.modes);
    if let Some(anchor) = anchor {
        chat.scroll = view.position_of(width, height, &anchor);
    }
}

/// A key the composer left to the screen.
fn screen_key(chat: &mut ChatUi, model: &Model, key: KeyEvent, window: (u16, usize)) -> UiCommand {
    let page = window.1;
    if key.modifiers.contains(KeyModifiers::CONTROL) {
        let toggle = match key.code {
            KeyCode::Char('f') => ViewToggle::Origin,
            KeyCode::Char('d') => ViewToggle::Tools,
            KeyCode::Char('r') => ViewToggle::Reasoning,
            KeyCode::Char('n') => ViewToggle::Journal,
            KeyCode::Char('s') => ViewToggle::Details,
            KeyCode::Char('e') => {
                chat.scroll = ScrollPosition::Newest;
                return UiCommand::Repaint;
            }
            KeyCode::Char('g') => return next_keeper(chat, model),
            KeyCode::Char('x') => return edit_draft(chat),
            KeyCode::Char('o') => {
                return UiCommand::local(ChatEvent::TakeBack {
                    keeper: chat.keeper.clone(),
                });
            }
            _ => return UiCommand::None,
        };
        toggle_keeping_anchor(chat, model, toggle, window);
        return UiCommand::Repaint;
    }
    if key.code == KeyCode::Esc {
        // The footer's notice (a `/find` miss, a refused step) ends with the Esc that moves on.
        chat.composer.clear_notice();
    }
    match key.code {
        // Esc clears an active `/find` before it leaves the chat.
        KeyCode::Esc if chat.find.is_some() => {
            chat.find = None;
            UiCommand::Repaint
        }
        // C-36: Esc during this chat's turn requests that exact turn to stop (the same save as
        // `/interrupt`); once a stop is asked, or with no turn running, Esc goes back.
        KeyCode::Esc if super::control::interruptible(model, &chat.keeper) => {
            UiCommand::local(ChatEvent::Interrupt {
                keeper: chat.keeper.clone(),
                name: None,
            })
        }
        // Esc never leaves the chat while a draft is typed (its text would be left behind
        // mid-thought) nor right after a turn ended (an Esc meant to interrupt it arrives late:
        // what is typed next belongs to the chat, never the roster).
        KeyCode::Esc if !chat.composer.is_empty() => {
            chat.composer.report_failure(
                "Esc: the draft is not empty — send it, or Ctrl-U clears it, to leave the chat",
                Instant::now(),
            );
            UiCommand::Repaint
        }
        KeyCode::Esc
            if chat
                .turn_ended
                .is_some_and(|at| at.elapsed() < super::ESC_AFTER_TURN) =>
        {
            chat.composer.report_failure(
                "the turn just ended: Esc again in a moment to leave the chat",
                Instant::now(),
            );
            UiCommand::Repaint
        }
        KeyCode::Esc => UiCommand::local(ChatEvent::Close {
            keeper: chat.keeper.clone(),
        }),
        KeyCode::PageUp => {
            let at_top = model
                .chat
                .pane
                .as_ref()
                .filter(|p| p.keeper == chat.keeper)
                .is_some_and(|p| p.view().last_frame().at_top);
            if at_top {
                return UiCommand::local(ChatEvent::LoadOlder {
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
        _ => UiCommand::None,
    }
}

/// A `/find` step's notice onto the footer; its search (if any) for the view actor to run off
/// the actor.
fn find_command(chat: &mut ChatUi, step: super::find::FindStep, now: Instant) -> UiCommand {
    if let Some(notice) = step.notice {
        chat.composer.report_failure(notice, now);
    }
    match step.search {
        Some(job) => UiCommand::Find(Box::new(job)),
        None => UiCommand::Repaint,
    }
}

/// A valid slash command (C-59…C-61): the ones that map to what the chat screen already does
/// run; the rest report on the composer footer that they are not available. None is sent.
fn slash(
    chat: &mut ChatUi,
    ui: &mut Ui,
    model: &Model,
    command: SlashCommand,
    now: Instant,
    window: (u16, usize),
) -> UiCommand {
    match command {
        SlashCommand::Find(query) => {
            let step = super::find::start(chat, model, query, window);
            return find_command(chat, step, now);
        }
        SlashCommand::Copy => {
            let support = crate::view::terminal::clipboard::osc52_from_env();
            match super::find::copy(chat, model, window, support) {
                Ok((bytes, notice)) => {
                    ui.notice.text = Some(notice);
                    return UiCommand::Clipboard(bytes);
                }
                Err(why) => chat.composer.report_failure(why, now),
            }
        }
        // An overlay opened over the chat ends the chat's footer notice.
        SlashCommand::Queue => {
            chat.composer.clear_notice();
            super::overlay::open(ui, &chat.keeper, super::ChatOverlay::Queue)
        }
        SlashCommand::Context => {
            chat.composer.clear_notice();
            super::overlay::open(
                ui,
                &chat.keeper,
                super::ChatOverlay::Context(super::context_tabs::ContextView::default()),
            )
        }
        // C-26: opened in a chat, the help lists the chat's keys.
        SlashCommand::Help => {
            chat.composer.clear_notice();
            ui.layers.push(HelpLayer::layer(super::CHAT_HELP))
        }
        // Like the Ctrl keys, a mode set by name keeps the window's top entry (C-31, C-74).
        SlashCommand::Thinking(choice) => {
            change_modes_keeping_anchor(chat, model, window, |modes| match choice {
                None => modes.toggle(ViewToggle::Reasoning),
                Some(ThinkingChoice::Hidden) => modes.reasoning = ReasoningMode::Hidden,
                Some(ThinkingChoice::Folded) => modes.reasoning = ReasoningMode::Folded,
                Some(ThinkingChoice::Full) => modes.reasoning = ReasoningMode::Full,
            });
        }
        SlashCommand::Tools(choice) => {
            change_modes_keeping_anchor(chat, model, window, |modes| match choice {
                None => modes.toggle(ViewToggle::Tools),
                Some(ToolsChoice::Compact) => modes.tools = ToolVisibility::Compact,
                Some(ToolsChoice::Results) => modes.tools = ToolVisibility::Results,
                Some(ToolsChoice::Full) => modes.tools = ToolVisibility::Full,
            });
        }
        SlashCommand::Keeper(Some(keeper)) => {
            return UiCommand::local(ChatEvent::Open { keeper });
        }
        SlashCommand::Interrupt(name) => {
            return UiCommand::local(ChatEvent::Interrupt {
                keeper: chat.keeper.clone(),
                name,
            });
        }
        SlashCommand::RunNext => {
            return UiCommand::local(ChatEvent::RunNext {
                keeper: chat.keeper.clone(),
            });
        }
        SlashCommand::Steer(text) => {
            chat.scroll = ScrollPosition::Newest;
            return UiCommand::local(ChatEvent::Steer {
                keeper: chat.keeper.clone(),
                text,
            });
        }
        SlashCommand::Keeper(None) => {
            return UiCommand::local(ChatEvent::Close {
                keeper: chat.keeper.clone(),
            });
        }
        other => chat
            .composer
            .report_failure(format!("not available in masc-tui yet: {other}"), now),
    }
    UiCommand::Repaint
}

/// `/approve` / `/deny` (C-53, armed like `y y` / `n n` in Approvals): the first press previews
/// the oldest pending approval of the chat target on the footer, the same command again decides
/// it through the approval save; nothing is decided while a decision on it is in flight.
fn decide(
    chat: &mut ChatUi,
    ui: &mut Ui,
    model: &Model,
    decision: Decision,
    armed: Option<(String, Decision)>,
) -> UiCommand {
    let command = match decision {
        Decision::Confirm => "/approve",
        Decision::Deny => "/deny",
    };
    let workspace = crate::view::screens::approvals::workspace(model);
    // Held tool calls first (§14.5): a turn waits on each; then operator approvals.
    if let Some(answer) = held_call(chat, ui, model, decision, &armed, workspace.as_deref()) {
        return answer;
    }
    let pending: Vec<_> = approvals::pending_for(&model.decisions, &chat.keeper)
        .into_iter()
        .filter(|a| {
            workspace.as_deref().is_none_or(|ws| {
                model
                    .decisions
                    .decisions
                    .in_flight(&a.confirm_token, ws)
                    .is_none()
            })
        })
        .collect();
    let Some(approval) = pending.first() else {
        ui.notice.text = Some(format!(
            "{command}: no approval of {} is waiting",
            crate::view::text::sanitize(&chat.keeper)
        ));
        return UiCommand::Repaint;
    };
    if armed.as_ref() == Some(&(approval.confirm_token.clone(), decision)) {
        ui.notice.text = None;
        return UiCommand::save::<ApprovalDecision>(crate::view::screens::approvals::intent_of(
            approval, decision,
        ));
    }
    chat.armed = Some((approval.confirm_token.clone(), decision));
    let more = match pending.len() {
        1 => String::new(),
        n => format!(" ({n} waiting; the oldest first)"),
    };
    ui.notice.text = Some(format!(
        "{} {} of {}?{more} {command} again to confirm; anything else cancels",
        if decision == Decision::Confirm {
            "approve"
        } else {
            "deny"
        },
        crate::view::text::sanitize(&approval.delegated_tool),
        crate::view::text::sanitize(&chat.keeper),
    ));
    UiCommand::Repaint
}

/// `/approve` / `/deny` on the oldest held tool call of the chat target that has no answer in
/// flight or applied (C-53, §14.5), armed: the first press previews it on the footer, the same
/// command again answers it through the `held_call_decision` save. `None` when no held call of
/// this Keeper waits (the operator approvals are next).
fn held_call(
    chat: &mut ChatUi,
    ui: &mut Ui,
    model: &Model,
    decision: Decision,
    armed: &Option<(String, Decision)>,
    workspace: Option<&str>,
) -> Option<UiCommand> {
    use crate::actors::decisions::held_call::HeldCallIntent;
    use crate::protocol::held_calls::ToolCallVerdict;
    use crate::protocol::outcome::SaveClass;
    let waiting: Vec<_> =
        crate::view::chat::held_calls::pending_for(&model.decisions, &chat.keeper)
            .into_iter()
            .filter(|c| {
                workspace.is_none_or(|ws| {
                    let key = HeldCallIntent::call_key(&c.keeper, &c.tool_call_id);
                    model
                        .decisions
                        .held_answers
                        .latest(&key, ws)
                        .is_none_or(|e| {
                            !e.phase.in_flight() && e.phase.class() != Some(SaveClass::Applied)
                        })
                })
            })
            .collect();
    let call = waiting.first()?;
    let command = match decision {
        Decision::Confirm => "/approve",
        Decision::Deny => "/deny",
    };
    let key = format!("held:{}", call.tool_call_id);
    if armed.as_ref() == Some(&(key.clone(), decision)) {
        ui.notice.text = None;
        return Some(UiCommand::save::<HeldCallDecision>(HeldCallIntent {
            keeper: call.keeper.clone(),
            tool_call_id: call.tool_call_id.clone(),
            tool: call.tool.clone(),
            decision: match decision {
                Decision::Confirm => ToolCallVerdict::Approve,
                Decision::Deny => ToolCallVerdict::Deny,
            },
        }));
    }
    chat.armed = Some((key, decision));
    let more = match waiting.len() {
        1 => String::new(),
        n => format!(" ({n} waiting; the oldest first)"),
    };
    let sanitize = crate::view::text::sanitize;
    ui.notice.text = Some(format!(
        "{} the held {} call of {}?{more} {command} again to confirm; anything else cancels",
        if decision == Decision::Confirm {
            "approve"
        } else {
            "deny"
        },
        sanitize(&call.tool),
        sanitize(&chat.keeper),
    ));
    Some(UiCommand::Repaint)
}

/// Bracketed paste into the composer (C-68: normalised, cut at 1 MiB, large pastes held as a
/// spill behind a placeholder).
pub fn paste(chat: &mut ChatUi, area: Rect, text: &str) -> bool {
    let now = Instant::now();
    let ctx = composer_layout(chat, area, now).key_context(now);
    chat.composer.paste(text, &PasteStamp::now(), &ctx);
    true
}
