//! The Keeper chat screen (issue 4; chat-screen.md C-56…C-58, C-63): the title above the
//! conversation, the transcript (`TranscriptView`), one progress row for the chat target only,
//! the input, the status line naming the chat target, and the chat footer.
//!
//! Opened with `c` / `m` on a roster row, closed with Esc. The chat target is the Keeper the
//! chat was opened for; the roster cursor never changes it (C-57). Drafts are kept per
//! (workspace, Keeper) across navigation and errors.

pub mod input;
pub mod keys;
pub mod pane;

pub use input::{ChatInput, ComposerInput, LineInput};
pub use pane::{Activity, ChatEffect, ChatPane, HistoryState, PendingSend, Progress, SendPhase};

use super::{ProjectionCtx, Ui, body_area};
use crate::actors::chat::ChatCommand;
use crate::actors::messages::SourceCommand;
use crate::protocol::keepers::{ActivationMode, KeeperRow, KeeperRowSlot};
use crate::view::chat::{ScrollPosition, ViewModes};
use crate::view::model::Model;
use crate::view::text::{fit_width, sanitize};
use crate::view::theme::{Theme, Tone};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

/// Rows of the composer input (C-19: `composer_max_rows = 5`).
pub const COMPOSER_MAX_ROWS: u16 = 5;

/// UI state of the open chat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatUi {
    pub keeper: String,
    /// The workspace the chat was opened in (the draft key).
    pub workspace: String,
    pub input: ChatInput,
    pub scroll: ScrollPosition,
    pub modes: ViewModes,
}

/// What a chat key asks the view actor to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChatUiCommand {
    Open { keeper: String },
    Close { keeper: String },
    Send { keeper: String, text: String },
    LoadOlder { keeper: String },
}

/// Transcript rows at terminal size `area` (the chat's own chrome taken off the body).
pub fn transcript_rows(area: Rect) -> usize {
    // title + progress + composer rule + one input row + status line.
    usize::from(body_area(area).height.saturating_sub(5))
}

fn workspace_of(model: &Model) -> String {
    model
        .gate()
        .current()
        .map(|s| s.workspace.0.clone())
        .unwrap_or_default()
}

fn save_draft(ui: &mut Ui) {
    if let Some(chat) = ui.chat.take() {
        let key = (chat.workspace, chat.keeper);
        if chat.input.text().is_empty() {
            ui.drafts.remove(&key);
        } else {
            ui.drafts.insert(key, chat.input.text().to_string());
        }
    }
}

/// Applies a chat key's command: model and UI first, then the hub (never awaited). Returns a
/// footer notice when something could not be done.
pub fn dispatch(
    cmd: ChatUiCommand,
    model: &mut Model,
    ui: &mut Ui,
    hub: Option<&ractor::ActorRef<SourceCommand>>,
    theme: Theme,
) -> Option<String> {
    let cast = |c: ChatCommand| match hub {
        Some(h) => h.cast(SourceCommand::Chat(c)).is_ok(),
        None => false,
    };
    match cmd {
        ChatUiCommand::Open { keeper } => {
            if let Some(old) = ui.chat.as_ref().map(|c| c.keeper.clone()) {
                save_draft(ui);
                cast(ChatCommand::Close { keeper: old });
            }
            let workspace = workspace_of(model);
            let mut input = ChatInput::default();
            if let Some(draft) = ui.drafts.remove(&(workspace.clone(), keeper.clone())) {
                input.set_text(draft);
            }
            model.chat = Some(ChatPane::new(
                keeper.clone(),
                model.gate().current().map(|s| s.workspace.clone()),
                theme,
            ));
            ui.chat = Some(ChatUi {
                keeper: keeper.clone(),
                workspace,
                input,
                scroll: ScrollPosition::Newest,
                modes: ViewModes::default(),
            });
            (!cast(ChatCommand::Open { keeper }))
                .then(|| "chat not loaded: chat source not running".to_string())
        }
        ChatUiCommand::Close { keeper } => {
            save_draft(ui);
            model.chat = None;
            cast(ChatCommand::Close { keeper });
            None
        }
        ChatUiCommand::LoadOlder { keeper } => {
            let pane = model.chat.as_mut().filter(|p| p.keeper == keeper)?;
            if !pane.has_more {
                return Some("start of the stored history".into());
            }
            if pane.loading_older {
                return None;
            }
            pane.loading_older = true;
            cast(ChatCommand::LoadOlder { keeper });
            None
        }
        ChatUiCommand::Send { keeper, text } => {
            let scope = model.gate().current().cloned();
            let (Some(scope), Some(pane)) = (scope, model.chat.as_mut()) else {
                restore_draft(ui, &workspace_of(model), &keeper, text);
                return Some("not sent: workspace not confirmed".into());
            };
            if hub.is_none() {
                restore_draft(ui, &scope.workspace.0, &keeper, text);
                return Some("not sent: chat source not running".into());
            }
            let request_id = crate::outbox::new_request_id();
            pane.register_send(&request_id, &text);
            cast(ChatCommand::Send {
                keeper,
                request_id,
                text,
                scope,
            });
            None
        }
    }
}

/// Puts `text` back into the draft of (workspace, keeper): the open input when it is that
/// chat, else the stored draft; appended on a new line when a draft exists.
fn restore_draft(ui: &mut Ui, workspace: &str, keeper: &str, text: String) {
    if let Some(chat) = ui
        .chat
        .as_mut()
        .filter(|c| c.keeper == keeper && c.workspace == workspace)
    {
        let merged = match chat.input.text() {
            "" => text,
            current => format!("{current}\n{text}"),
        };
        chat.input.set_text(merged);
        return;
    }
    let slot = ui
        .drafts
        .entry((workspace.to_string(), keeper.to_string()))
        .or_default();
    if !slot.is_empty() {
        slot.push('\n');
    }
    slot.push_str(&text);
}

/// After an admitted observation: apply the pane's side effects to UI state.
pub fn after_observed(model: &mut Model, ui: &mut Ui) -> bool {
    let Some(pane) = model.chat.as_mut() else {
        return false;
    };
    let effects = pane.take_effects();
    let changed = !effects.is_empty();
    for effect in effects {
        match effect {
            ChatEffect::RestoreDraft {
                workspace,
                keeper,
                text,
            } => restore_draft(ui, &workspace, &keeper, text),
        }
    }
    changed
}

fn roster_row<'a>(model: &'a Model, keeper: &str) -> Option<&'a KeeperRow> {
    model.keepers.fetched.last().and_then(|o| {
        o.value.rows.iter().find_map(|r| match r {
            KeeperRowSlot::Row(row) if row.name == keeper => Some(row.as_ref()),
            _ => None,
        })
    })
}

/// Paints the chat screen into `body` (the rows between the header and the footer).
pub fn render(model: &Model, ui: &Ui, ctx: &ProjectionCtx, body: Rect, buf: &mut Buffer) {
    let Some(chat) = ui.chat.as_ref() else {
        return;
    };
    let theme = ctx.theme;
    if body.height < 6 {
        return;
    }
    let pane = model.chat.as_ref().filter(|p| p.keeper == chat.keeper);
    let row = |i: u16| Rect::new(body.x, body.y + i, body.width, 1);
    let width = usize::from(body.width);

    // Title (C-56): navigation above the conversation; opened detail modes beside it (C-26).
    let mut title = vec![
        Span::styled("Keepers › chat · ", theme.style(Tone::Dim)),
        Span::styled(
            sanitize(&chat.keeper).into_owned(),
            theme.style(Tone::Strong),
        ),
    ];
    for badge in chat.modes.opened_badges() {
        title.push(Span::styled(format!(" [{badge}]"), theme.style(Tone::Dim)));
    }
    let history_note = match pane.map(|p| (&p.history, p.loading_older, &p.older_failure)) {
        None => " · not loaded".to_string(),
        Some((HistoryState::Loading, _, _)) => " · loading…".to_string(),
        Some((HistoryState::Failed { class }, _, _)) => format!(" · history failed: {class}"),
        Some((HistoryState::Ready, true, _)) => " · loading older…".to_string(),
        Some((HistoryState::Ready, false, Some(class))) => format!(" · older page failed: {class}"),
        Some((HistoryState::Ready, false, None)) => String::new(),
    };
    title.push(Span::styled(history_note, theme.style(Tone::Warn)));
    let hint = match chat.scroll {
        ScrollPosition::Newest => String::new(),
        ScrollPosition::Back(n) => format!("  ↑/↓:line  PgUp/PgDn:page  Ctrl-E:newest  ({n} back)"),
        ScrollPosition::FromTop(_) => "  Ctrl-E:newest  (start)".to_string(),
    };
    title.push(Span::styled(hint, theme.style(Tone::Dim)));
    Line::from(title).render(row(0), buf);

    // Transcript.
    let input_rows = (chat.input.text().split('\n').count() as u16).clamp(1, COMPOSER_MAX_ROWS);
    let fixed = 1 + 1 + 1 + input_rows + 1;
    let transcript_h = body.height.saturating_sub(fixed);
    let transcript_area = Rect::new(body.x, body.y + 1, body.width, transcript_h);
    match pane {
        Some(p) => {
            let mut view = p.view();
            view.set_modes(chat.modes);
            view.render_into(buf, transcript_area, chat.scroll);
        }
        None => {
            Line::from(Span::styled("chat not open", theme.style(Tone::Dim)))
                .render(Rect::new(body.x, body.y + 1, body.width, 1), buf);
        }
    }

    // One progress row, the chat target's only (C-39…C-44).
    let progress_y = 1 + transcript_h;
    if let Some(p) = pane {
        progress_line(&p.progress(), theme, width).render(row(progress_y), buf);
    }

    // Input.
    let rule = "─".repeat(width);
    Line::from(Span::styled(rule, theme.style(Tone::Dim))).render(row(progress_y + 1), buf);
    let text = chat.input.text();
    let cursor = chat.input.cursor().min(text.len());
    let with_caret = format!("{}▏{}", &text[..cursor], &text[cursor..]);
    let lines: Vec<&str> = with_caret.split('\n').collect();
    let shown = &lines[lines.len().saturating_sub(usize::from(input_rows))..];
    for (i, l) in shown.iter().enumerate() {
        let prompt = if i == 0 { "› " } else { "  " };
        Line::from(vec![
            Span::styled(prompt, theme.style(Tone::Accent)),
            Span::raw(fit_width(&sanitize(l), width.saturating_sub(2)).into_owned()),
        ])
        .render(row(progress_y + 2 + i as u16), buf);
    }

    // Status line (C-57, C-58): the chat target, never the roster cursor.
    status_line(&chat.keeper, roster_row(model, &chat.keeper), theme, width)
        .render(row(body.height - 1), buf);
}

fn progress_line(progress: &Progress, theme: Theme, width: usize) -> Line<'static> {
    // C-7: never bright cyan all-caps; one row, call and response state only (C-40).
    let (text, tone) = match progress {
        Progress::Idle => return Line::default(),
        Progress::Sending => ("○ 전송 중".to_string(), Tone::Dim),
        Progress::Queued => (
            "○ 처리 대기 · queued, not processed yet".to_string(),
            Tone::Dim,
        ),
        Progress::Active(Activity::Working) => ("○ working".to_string(), Tone::Dim),
        Progress::Active(Activity::Thinking) => ("○ thinking".to_string(), Tone::Dim),
        Progress::Active(Activity::Streaming) => ("○ streaming".to_string(), Tone::Dim),
        Progress::Active(Activity::Tool(name)) => {
            (format!("○ tool · {}", sanitize(name)), Tone::Dim)
        }
        Progress::Unconfirmed(n) => (
            format!(
                "✗ 전송 확인 중 · {n} send(s) with unknown outcome · reconciling by request id"
            ),
            Tone::Warn,
        ),
    };
    Line::from(Span::styled(
        fit_width(&text, width).into_owned(),
        theme.style(tone),
    ))
}

/// The status line: chat target, health, mode, gate, context (C-57, C-58).
pub fn status_line(
    keeper: &str,
    row: Option<&KeeperRow>,
    theme: Theme,
    width: usize,
) -> Line<'static> {
    let sep = || Span::styled(" · ", theme.style(Tone::Dim));
    let mut spans = vec![
        Span::styled("› ", theme.style(Tone::Accent)),
        Span::styled(sanitize(keeper).into_owned(), theme.style(Tone::Strong)),
    ];
    match row {
        Some(r) => {
            let (mark, tone) = super::keepers::status_mark(r.status);
            spans.push(sep());
            spans.push(Span::styled(
                format!("{mark} {}", format!("{:?}", r.status).to_lowercase()),
                theme.style(tone),
            ));
            spans.push(sep());
            spans.push(Span::styled(
                format!(
                    "health {}",
                    sanitize(r.health.as_deref().unwrap_or("unknown"))
                ),
                theme.style(Tone::Dim),
            ));
            if r.activation_mode == Some(ActivationMode::Autonomous) {
                spans.push(sep());
                spans.push(Span::styled("AUTO", theme.style(Tone::Dim)));
            }
        }
        None => {
            spans.push(sep());
            spans.push(Span::styled("roster not read", theme.style(Tone::Dim)));
        }
    }
    spans.push(sep());
    spans.push(Span::styled("gate: not loaded", theme.style(Tone::Dim)));
    spans.push(sep());
    spans.push(Span::styled("context unavailable", theme.style(Tone::Dim)));
    let line = Line::from(spans);
    if line.width() > width {
        let plain: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
        return Line::from(Span::styled(
            fit_width(&plain, width).into_owned(),
            theme.style(Tone::Dim),
        ));
    }
    line
}

/// The chat footer (C-63): send, newline, back, commands, help — nothing else.
pub fn footer(ui: &Ui, theme: Theme) -> Line<'static> {
    let mut spans = Vec::new();
    if let Some(notice) = &ui.notice {
        spans.push(Span::styled(
            format!("{} · ", sanitize(notice)),
            theme.style(Tone::Accent),
        ));
    }
    spans.push(Span::styled(
        "Enter send · Ctrl-J newline · Esc back · / commands · ? help",
        theme.style(Tone::Dim),
    ));
    Line::from(spans)
}
