//! The Keeper chat screen (chat-screen.md C-56…C-58, C-63): the title above the
//! conversation, the transcript (`TranscriptView`), one progress row for the chat target only,
//! the input, the status line naming the chat target, and the chat footer.
//!
//! Opened with `c` / `m` on a roster row, closed with Esc. The chat target is the Keeper the
//! chat was opened for; the roster cursor never changes it (C-57). Drafts are kept per
//! (workspace, Keeper) across navigation and errors in the UI's `DraftStore`.
//!
//! The input is the composer (`crate::view::composer`): it is laid out with `render::plan`
//! inside the chat pane (everything below the title); the transcript and the progress row take
//! what is left above it, the status line takes the plan's footer row and the composer footer
//! goes on the screen's footer row.

mod batch;
mod context;
pub mod context_tabs;
mod control;
mod edit;
pub mod find;
pub mod kept;
pub mod keys;
pub mod layer;
pub mod overlay;
mod sending;
pub mod status;

pub use context::{context_words, gate_words};
pub use edit::edited;
pub use find::FindState;
pub use kept::ChatKept;
pub use overlay::{ChatOverlay, ChatOverlayLayer};
pub use status::{activation_words, mode_words, status_line};

pub use crate::view::chat::{
    Activity, ChatEffect, ChatPane, HistoryState, PendingSend, Progress, SendPhase,
};

use super::layer::LayerHelp;
use super::local::LocalEvent;
use super::{ProjectionCtx, Ui, body_area};
use crate::actors::chat::ChatCommand;
use crate::actors::keeper_detail::{KeeperDetailCommand, Viewer};
use crate::protocol::admission::WorkspaceId;
use crate::protocol::keepers::{KeeperRow, KeeperRowSlot};
use crate::view::bindings::{
    DOWN, ENTER, ESC, LEFT, PAGE_DOWN, PAGE_UP, Press, Section, Table, UP, bind,
};
use crate::view::composer::render::{self, DEFAULT_PLACEHOLDER, footer_text};
use crate::view::composer::{
    Composer, ComposerLayout, ComposerView, Draft, DraftKey, RecallCursor,
};
use crate::view::effects::Effects;
use crate::view::model::Model;
use crate::view::text::{fit_width, sanitize};
use crate::view::theme::{Theme, Tone};
use crate::view::transcript::{FrameInfo, ScrollPosition, ViewModes};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;
use std::time::Instant;

/// Rows the composer's slash menu always leaves above it (C-62): the chat's minimum of
/// transcript rows (C-19, T.5) plus the progress row, so an open menu never puts the
/// transcript behind its resize gate.
pub const MIN_HISTORY_ROWS: u16 = CHAT_MIN_HISTORY_ROWS as u16 + 1;

/// C-19, T.5: the chat's own minimum terminal height — its fixed chrome (header 2, title 1,
/// progress 1, input rule and one text row 2, status line 1, footer 1: 8 rows) plus 3
/// transcript rows. With a chat open this replaces the whole app's gate (60×12): the chat
/// runs from 41 columns ([`CHAT_MIN_TERMINAL_COLS`]) with its own narrow-screen gutter rule
/// (C-18).
pub const CHAT_MIN_HEIGHT: u16 = 8 + CHAT_MIN_HISTORY_ROWS as u16;
pub use crate::view::transcript::gutter::{CHAT_MIN_HISTORY_ROWS, CHAT_MIN_TERMINAL_COLS};

/// Every key of the open chat, for the help overlay (C-26: all shortcuts are listed in help;
/// C-65 composer keys, §2.5 view toggles). The chat takes every key: the ring's keys are text
/// here, so the help lists only these, the commands ([`chat_commands`]) and Ctrl-C / Ctrl-Z.
pub const CHAT: Table = Table {
    title: "Keeper chat keys",
    bindings: &[
        bind("Enter", &[ENTER], "send the draft (a /command runs it)"),
        bind("Ctrl-J", &[Press::ctrl('j')], "new line in the draft"),
        bind("Ctrl-U", &[Press::ctrl('u')], "clear the draft"),
        bind(
            "Backspace",
            &[Press::key(crossterm::event::KeyCode::Backspace)],
            "delete one character",
        ),
        bind(
            "Ctrl-W / Esc Del",
            &[Press::ctrl('w')],
            "delete the last word",
        ),
        bind(
            "Ctrl-K",
            &[Press::ctrl('k')],
            "delete to the end of the line",
        ),
        bind(
            "Up / Down",
            &[UP, DOWN],
            "recall this Keeper's inputs (after PgUp: scroll a line)",
        ),
        bind(
            "Left",
            &[LEFT],
            "on an empty draft: back to the Keeper list",
        ),
        bind(
            "PgUp / PgDn",
            &[PAGE_UP, PAGE_DOWN],
            "scroll a page (PgUp at the top loads older)",
        ),
        bind("Ctrl-E", &[Press::ctrl('e')], "back to the newest row"),
        bind(
            "Ctrl-G",
            &[Press::ctrl('g')],
            "next Keeper's chat (not while a turn is in flight)",
        ),
        bind(
            "Ctrl-F",
            &[Press::ctrl('f')],
            "origin: conversation / inline metadata / headings",
        ),
        bind(
            "Ctrl-D",
            &[Press::ctrl('d')],
            "tools: compact / results / full",
        ),
        bind(
            "Ctrl-R",
            &[Press::ctrl('r')],
            "reasoning: folded / full / hidden",
        ),
        bind(
            "Ctrl-N",
            &[Press::ctrl('n')],
            "memory journal: hidden / summary / full",
        ),
        bind("Ctrl-S", &[Press::ctrl('s')], "fold or expand turn details"),
        bind("Ctrl-X", &[Press::ctrl('x')], "edit the draft in $EDITOR"),
        bind(
            "Ctrl-O",
            &[Press::ctrl('o')],
            "a send not recorded after its window: its text back in the draft (it may still arrive; resent unchanged under the same request id)",
        ),
        bind("/", &[], "commands (Tab or Enter picks one)"),
        bind(
            "n / N",
            &[],
            "after /find, with the draft empty: older / newer match",
        ),
        bind(
            "Esc",
            &[ESC],
            "close the menu, else clear /find; while this chat's turn runs: interrupt it; else back (never with a draft typed, nor within 1 s of a turn ending)",
        ),
    ],
};

/// The chat's commands (C-66) for its help: exactly the ones the chat runs.
pub fn chat_commands() -> Section {
    Section {
        title: "Keeper chat commands".into(),
        rows: crate::view::composer::slash::COMMANDS
            .iter()
            .map(|c| {
                let word = match c.arg_hint {
                    "" => format!("/{}", c.name),
                    hint => format!("/{} {hint}", c.name),
                };
                (word, c.help.to_string())
            })
            .collect(),
    }
}

/// C-26: the help opened in a chat (`/help`, `?` is text there) lists the chat's keys and
/// commands; the ring's keys do not reach past the chat.
pub const CHAT_HELP: LayerHelp = LayerHelp {
    table: &CHAT,
    more: &[chat_commands],
    ring: false,
};

/// UI state of the open chat.
#[derive(Debug, Clone)]
pub struct ChatUi {
    pub keeper: String,
    /// The workspace the chat was opened in (the draft key).
    pub workspace: String,
    pub composer: Composer,
    pub scroll: ScrollPosition,
    pub modes: ViewModes,
    /// Where Up/Down recall stands (C-65).
    pub recall: RecallCursor,
    /// `/approve` or `/deny` armed on this approval (confirm token): the same command again
    /// decides it; any other action disarms.
    pub armed: Option<(String, crate::protocol::operator::Decision)>,
    /// `/find`: its text, highlighted in the transcript; `n`/`N` walk it.
    pub find: Option<FindState>,
    /// This chat's turn was running at the last look, and when the last one was seen to end:
    /// `Esc` meant for an interrupt that lands just after the turn ended never leaves the
    /// chat ([`ESC_AFTER_TURN`]).
    pub turn_running: bool,
    pub turn_ended: Option<std::time::Instant>,
}

/// How long after a turn ends `Esc` still does not leave the chat (an `Esc` typed to
/// interrupt it arrives late; the keys typed after it belong to the chat, never the roster).
pub const ESC_AFTER_TURN: std::time::Duration = std::time::Duration::from_secs(1);

/// The chat pane inside the body: everything below the title row.
fn pane_area(body: Rect) -> Rect {
    Rect::new(
        body.x,
        body.y.saturating_add(1),
        body.width,
        body.height.saturating_sub(1),
    )
}

/// What the composer shows besides itself. Pending inputs stay in the transcript (the pane
/// owns them, C-32…C-34), so the composer's own pending block is empty. `interruptible`: this
/// chat's turn runs and no stop of it is asked, so Esc interrupts it (C-36) and the footer
/// says `Esc:interrupt` (C-63); otherwise Esc goes back.
fn composer_view(theme: Theme, now: Instant, interruptible: bool) -> ComposerView<'static> {
    ComposerView {
        theme,
        pending: &[],
        placeholder: DEFAULT_PLACEHOLDER,
        turn_in_flight: interruptible,
        now,
    }
}

/// The composer layout of the chat open in `ui` at the UI's terminal size: the same geometry
/// the last frame was painted with, which is what keys act on.
pub fn composer_layout(chat: &ChatUi, area: Rect, now: Instant) -> ComposerLayout {
    // The footer's words do not change the geometry.
    let view = composer_view(Theme::plain(), now, false);
    render::plan(
        pane_area(body_area(area)),
        &chat.composer,
        &view,
        MIN_HISTORY_ROWS,
    )
}

/// Transcript rows of a layout (its history area less the progress row).
pub fn transcript_rows(layout: &ComposerLayout) -> usize {
    usize::from(layout.history.height.saturating_sub(1))
}

fn workspace_of(model: &Model) -> String {
    model
        .gate()
        .current()
        .map(|s| s.workspace.0.clone())
        .unwrap_or_default()
}

fn draft_key(workspace: &str, keeper: &str) -> DraftKey {
    DraftKey::new(WorkspaceId(workspace.to_string()), keeper)
}

/// Closes the chat (and what is open over it), its draft kept.
fn save_draft(ui: &mut Ui) {
    if let Some(mut chat) = ui.layers.remove::<ChatUi>() {
        let key = draft_key(&chat.workspace, &chat.keeper);
        let draft = chat.composer.take_draft();
        ui.layers
            .with_kept(|kept: &mut ChatKept| kept.drafts.put(key, draft));
    }
}

/// What a chat key asks that needs the model and the hubs: the chat screen's own events,
/// consumed by [`dispatch`] when the view actor runs them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChatEvent {
    Open {
        keeper: String,
    },
    Close {
        keeper: String,
    },
    /// `text` is what is posted (`OutgoingMessage::inline_text`); `draft` is what goes back
    /// into the composer when the send cannot leave.
    Send {
        keeper: String,
        text: String,
        draft: Draft,
    },
    LoadOlder {
        keeper: String,
    },
    /// `/interrupt [name]`: stop this chat's turn, or the named Keeper's current turn (its
    /// outcome shows in that Keeper's chat, never near this input: C-43).
    Interrupt {
        keeper: String,
        name: Option<String>,
    },
    /// `/steer <text>`: send the text, then ask that it run next, stopping the running turn.
    Steer {
        keeper: String,
        text: String,
    },
    /// `/run-next`: this chat's oldest input still queued runs next (§14.14, nothing stopped).
    RunNext {
        keeper: String,
    },
    /// `Ctrl-O`: the text of the newest send nothing more will confirm goes back into the
    /// draft, with the warning that it may still arrive; sent again unchanged it keeps its
    /// request id (§4.3), so the server keeps one.
    TakeBack {
        keeper: String,
    },
}

impl LocalEvent for ChatEvent {
    fn run(&self, ui: &mut Ui, fx: &mut Effects<'_>) {
        ui.notice.text = dispatch(self.clone(), ui, fx);
    }
}

/// Applies a chat event: model and UI first, then the hubs (never awaited). Returns a footer
/// notice when something could not be done.
pub fn dispatch(cmd: ChatEvent, ui: &mut Ui, fx: &mut Effects<'_>) -> Option<String> {
    // The chat target owns its Live Context and metadata reads (L-2, C-57).
    match &cmd {
        ChatEvent::Open { keeper } => {
            let _ = fx.send(KeeperDetailCommand::Watch {
                viewer: Viewer::Chat,
                keeper: keeper.clone(),
            });
        }
        ChatEvent::Close { .. } => {
            let _ = fx.send(KeeperDetailCommand::Unwatch {
                viewer: Viewer::Chat,
            });
        }
        _ => {}
    }
    match cmd {
        ChatEvent::Open { keeper } => {
            if let Some(old) = ui.layer::<ChatUi>().map(|c| c.keeper.clone()) {
                save_draft(ui);
                let _ = fx.cast(ChatCommand::Close { keeper: old });
            }
            let model = &mut *fx.model;
            let workspace = workspace_of(model);
            let key = draft_key(&workspace, &keeper);
            let composer = ui
                .layers
                .with_kept(|kept: &mut ChatKept| kept.drafts.take(&key))
                .map_or_else(Composer::new, Composer::from_draft);
            let mut pane = ChatPane::new(
                keeper.clone(),
                model.gate().current().map(|s| s.workspace.clone()),
                fx.theme,
            );
            // Inputs held while an interrupt of this Keeper is in flight (§14.13) are still
            // waiting to be sent: shown again as `전송 대기`.
            for held in model.chat.control.held.of(&workspace, &keeper) {
                pane.register_send(&held.request_id, &held.text);
            }
            model.chat.pane = Some(pane);
            ui.layers.push(ChatUi {
                keeper: keeper.clone(),
                workspace,
                composer,
                scroll: ScrollPosition::Newest,
                modes: ViewModes::default(),
                recall: RecallCursor::default(),
                armed: None,
                find: None,
                turn_running: false,
                turn_ended: None,
            });
            fx.cast(ChatCommand::Open { keeper })
                .is_err()
                .then(|| "chat not loaded: chat source not running".to_string())
        }
        ChatEvent::Close { keeper } => {
            save_draft(ui);
            fx.model.chat.pane = None;
            let _ = fx.cast(ChatCommand::Close { keeper });
            None
        }
        ChatEvent::LoadOlder { keeper } => {
            let pane = fx.model.chat.pane.as_mut().filter(|p| p.keeper == keeper)?;
            if !pane.has_more {
                return Some("start of the stored history".into());
            }
            if pane.loading_older {
                return None;
            }
            pane.loading_older = true;
            let _ = fx.cast(ChatCommand::LoadOlder { keeper });
            None
        }
        ChatEvent::Send {
            keeper,
            text,
            draft,
        } => sending::send(ui, fx, keeper, text, draft).err(),
        ChatEvent::Interrupt { keeper, name } => control::interrupt(fx, keeper, name),
        ChatEvent::Steer { keeper, text } => control::steer(ui, fx, keeper, text),
        ChatEvent::RunNext { keeper } => control::run_next(fx, keeper),
        ChatEvent::TakeBack { keeper } => sending::take_back(ui, fx, &keeper),
    }
}

/// After an admitted observation: apply the pane's side effects to UI state (and ask the chat
/// hub to reconcile a send that ended unknown).
pub fn after_observed(ui: &mut Ui, fx: &mut Effects<'_>) -> bool {
    let released = sending::release_held(ui, fx);
    let model = &mut *fx.model;
    let Some(pane) = model.chat.pane.as_mut() else {
        return released;
    };
    // The chat target's approval questions and their decisions (C-44, C-53).
    crate::view::chat::approvals::sync(&model.decisions, pane);
    let effects = pane.take_effects();
    let changed = released || !effects.is_empty();
    apply_effects(ui, fx, effects);
    changed
}

/// The open pane's side effects on UI state and on the chat hub.
pub(super) fn apply_effects(ui: &mut Ui, fx: &mut Effects<'_>, effects: Vec<ChatEffect>) {
    for effect in effects {
        match effect {
            ChatEffect::RestoreDraft {
                workspace,
                keeper,
                text,
            } => {
                let draft = Draft {
                    cursor: text.len(),
                    text,
                    spills: Vec::new(),
                };
                sending::restore_draft(ui, &workspace, &keeper, draft);
            }
            ChatEffect::Reconcile { keeper, request_id } => {
                let _ = fx.cast(ChatCommand::Reconcile { keeper, request_id });
            }
            ChatEffect::Mark { request_id, mark } => {
                let _ = fx.cast(ChatCommand::Mark { request_id, mark });
            }
            ChatEffect::ControlToken {
                workspace,
                keeper,
                token,
            } => fx
                .model
                .chat
                .control
                .hold_token(&workspace, &keeper, &token),
            ChatEffect::Steer { keeper, request_id } => {
                if let Some(notice) = control::submit_steer(fx, keeper, request_id) {
                    ui.notice.text = Some(notice);
                }
            }
        }
    }
}

fn roster_row<'a>(model: &'a Model, keeper: &str) -> Option<&'a KeeperRow> {
    model.keepers.roster.fetched.last().and_then(|o| {
        o.value.rows.iter().find_map(|r| match r {
            KeeperRowSlot::Row(row) if row.name == keeper => Some(row.as_ref()),
            _ => None,
        })
    })
}

/// Paints the chat screen into `body` (the rows between the header and the footer) and the
/// composer footer into the footer row below it; returns the terminal cursor cell (the
/// composer's cursor).
pub fn render(
    chat: &ChatUi,
    model: &Model,
    ui: &Ui,
    ctx: &ProjectionCtx,
    body: Rect,
    buf: &mut Buffer,
) -> Option<(u16, u16)> {
    let theme = ctx.theme;
    if body.height < 6 {
        return None;
    }
    let pane = model.chat.pane.as_ref().filter(|p| p.keeper == chat.keeper);
    let row = |i: u16| Rect::new(body.x, body.y + i, body.width, 1);
    let width = usize::from(body.width);

    // The composer below the transcript (C-19, C-59…C-64), laid out by the composer itself.
    let view = composer_view(theme, ctx.now, control::interruptible(model, &chat.keeper));
    let mut layout = render::plan(pane_area(body), &chat.composer, &view, MIN_HISTORY_ROWS);
    // The plan's footer row is the status line's (C-57); the composer footer goes on the
    // screen's footer row, the row below the body.
    let status_row = layout.footer;
    layout.footer = Rect::new(body.x, body.y + body.height, body.width, 1);

    // Transcript, then one progress row, the chat target's only (C-39…C-44).
    let history = layout.history;
    let transcript_area = Rect::new(
        history.x,
        history.y,
        history.width,
        history.height.saturating_sub(1),
    );
    let mut frame = FrameInfo::default();
    match pane {
        Some(p) => {
            let mut view = p.view();
            view.set_modes(chat.modes);
            view.set_find(chat.find.as_ref().map(|f| f.query.as_str()));
            view.render_into(buf, transcript_area, chat.scroll);
            frame = view.last_frame();
        }
        None => {
            Line::from(Span::styled("chat not open", theme.style(Tone::Dim))).render(
                Rect::new(
                    transcript_area.x,
                    transcript_area.y,
                    transcript_area.width,
                    1,
                ),
                buf,
            );
        }
    }
    // Title (C-56), painted after the transcript so its hint reads this frame: navigation above the conversation; opened detail modes beside it (C-26).
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
    } + &pane.map(|p| p.history_facts()).unwrap_or_default();
    title.push(Span::styled(history_note, theme.style(Tone::Warn)));
    // The search, then the C-67 scroll hint from what this frame shows.
    if let Some(find) = &chat.find {
        title.push(Span::styled(find.words(), theme.style(Tone::Accent)));
    }
    title.push(Span::styled(
        scroll_hint(chat.scroll, frame, pane.is_some_and(|p| p.has_more)),
        theme.style(Tone::Dim),
    ));
    Line::from(title).render(row(0), buf);

    if let (Some(p), true) = (pane, history.height > 0) {
        let progress_row = Rect::new(history.x, history.y + history.height - 1, history.width, 1);
        let batch = p.current_batch().map(|e| e.members.len());
        progress_line(&p.progress(), batch, theme, width).render(progress_row, buf);
    }

    let cursor = render::render(&chat.composer, &view, &layout, buf);
    // A screen notice (a refused send) goes before the hints unless the composer reports its
    // own failure (C-64).
    if let Some(notice) = ui
        .notice
        .text
        .as_ref()
        .filter(|_| chat.composer.notice(ctx.now).is_none())
    {
        let (hints, tone) = footer_text(&chat.composer, &view, layout.menu.is_some());
        let footer = layout.footer;
        for x in footer.left()..footer.right() {
            if let Some(cell) = buf.cell_mut((x, footer.y)) {
                cell.reset();
            }
        }
        Line::from(vec![
            Span::styled(
                format!("{} · ", sanitize(notice)),
                theme.style(Tone::Accent),
            ),
            Span::styled(hints, theme.style(tone)),
        ])
        .render(footer, buf);
    }

    // Status line (C-57, C-58): the chat target, never the roster cursor.
    if status_row.height > 0 {
        status_line(
            &chat.keeper,
            roster_row(model, &chat.keeper),
            model.keeper_detail.of(&chat.keeper),
            &model.keeper_detail.gate.fetched,
            &model.keeper_detail.tool_modes.fetched,
            theme,
            width,
        )
        .render(status_row, buf);
    }
    cursor
}

/// C-67: `PgUp:scroll back` at the newest row when older rows exist (on screen or in older
/// pages still to load); scrolled back `↑/↓:line  PgUp/PgDn:page  Ctrl-E:newest` with
/// `(N back)`, or `(start)` at the first row of the stored history. The first row of a loaded
/// window with older pages remaining is not the start: there `PgUp` loads the next older page,
/// and the hint says so.
fn scroll_hint(scroll: ScrollPosition, frame: FrameInfo, older_pages: bool) -> String {
    let keys = "  ↑/↓:line  PgUp/PgDn:page  Ctrl-E:newest";
    match scroll {
        ScrollPosition::Newest if frame.at_top && !older_pages => String::new(),
        ScrollPosition::Newest => "  PgUp:scroll back".to_string(),
        _ if frame.at_top && !older_pages => format!("{keys}  (start)"),
        ScrollPosition::Back(n) if frame.at_top => {
            format!("{keys}  ({n} back · PgUp:older page)")
        }
        _ if frame.at_top => format!("{keys}  (PgUp:older page)"),
        ScrollPosition::Back(n) => format!("{keys}  ({n} back)"),
        ScrollPosition::FromTop(_) => keys.to_string(),
    }
}

/// `batch`: how many of this chat's inputs the running execution holds (C-37), when more than
/// one — said on the one progress line of that run (C-42: never a row per input).
fn progress_line(
    progress: &Progress,
    batch: Option<usize>,
    theme: Theme,
    width: usize,
) -> Line<'static> {
    // C-7: never bright cyan all-caps; one row, call and response state only (C-40).
    let (mut text, tone) = match progress {
        Progress::Idle => return Line::default(),
        // C-33: the same words as the pending label of the same send.
        Progress::Waiting => ("○ 전송 대기".to_string(), Tone::Dim),
        Progress::Sending => ("○ 전송 중".to_string(), Tone::Dim),
        // C-42, C-54, C-55: the pending label `처리 대기` says it; no second line, no second
        // language.
        Progress::Queued => return Line::default(),
        // C-39 (seed 000: "Working은 턴이 진행 중이라는 뜻이다. Thinking·답변 델타를 실제로
        // 받으면 진행줄에 `THINKING`·`STREAMING`을 표시한다"): the response state's token, and
        // (C-40) the current call's name while one is open — nothing else.
        Progress::Active(Activity::Working) => ("○ Working".to_string(), Tone::Dim),
        Progress::Active(Activity::Thinking) => ("○ THINKING".to_string(), Tone::Dim),
        Progress::Active(Activity::Streaming) => ("○ STREAMING".to_string(), Tone::Dim),
        Progress::Active(Activity::Tool(name)) => {
            (format!("○ Working · {}", sanitize(name)), Tone::Dim)
        }
        Progress::Stopping => ("○ interrupt requested".to_string(), Tone::Warn),
        Progress::Unconfirmed(u) => (unconfirmed_text(u), Tone::Warn),
    };
    // MASC's own terminal client draws a batch as one row, `3 messages in one turn ·
    // running` (its PTY test "Server batch has one TUI status row").
    if let (Progress::Active(_), Some(n)) = (progress, batch) {
        text.push_str(&format!(" · {n} messages in one turn"));
    }
    Line::from(Span::styled(
        fit_width(&text, width).into_owned(),
        theme.style(tone),
    ))
}

/// C-44: what the unknown outcomes are waiting for (drawn `○`, never the error mark `✗`: an
/// unknown outcome is not a failure, §2.1), by where they stand — "reconciling" only
/// while a reconciliation is still to come (C-44: a send reconciled as not recorded is
/// no longer "reconciling").
fn unconfirmed_text(u: &crate::view::chat::Unconfirmed) -> String {
    let mut parts = Vec::new();
    if u.reconciling > 0 {
        parts.push(format!(
            "○ 전송 확인 중 · {} send(s) with unknown outcome · reconciling by request id",
            u.reconciling
        ));
    }
    if u.not_recorded > 0 {
        parts.push(format!(
            "○ {} send(s) not recorded by the server after their window, not resent · Ctrl-O takes a text back",
            u.not_recorded
        ));
    }
    if u.unreconcilable > 0 {
        parts.push(format!(
            "○ {} send(s) with unknown outcome · this MASC cannot reconcile them",
            u.unreconcilable
        ));
    }
    parts.join(" · ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::chat::Unconfirmed;

    /// C-44: "reconciling" only while a reconciliation is still to come; a send
    /// reconciled as not recorded, or one this MASC cannot reconcile, says so instead.
    #[test]
    fn c44_reconciling_is_said_only_while_a_reconciliation_is_to_come() {
        let only_absent = unconfirmed_text(&Unconfirmed {
            reconciling: 0,
            not_recorded: 2,
            unreconcilable: 0,
        });
        assert!(!only_absent.contains("reconciling"), "{only_absent}");
        assert!(
            only_absent.contains("2 send(s) not recorded"),
            "{only_absent}"
        );
        let mixed = unconfirmed_text(&Unconfirmed {
            reconciling: 1,
            not_recorded: 0,
            unreconcilable: 3,
        });
        assert!(mixed.contains("1 send(s) with unknown outcome · reconciling"));
        assert!(mixed.contains("3 send(s) with unknown outcome · this MASC cannot reconcile"));
    }
}
