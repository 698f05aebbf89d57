//! Board compose (surfaces.md "Board": `w` new post, on `Esc` `s:send d:discard`; protocol.md
//! §8.4; sources.md E-7, H-5): a draft — title, hearth, body — kept in the UI through re-reads,
//! failures and navigation, sent as a save (`board_post`). The draft goes only when the post
//! is applied or the operator discards it; an outcome unknown is never resent (the draft stays,
//! and a second send of it is refused until the operator looks at the board). The title and
//! hearth are one-line fields (`view::field`): the hearth opens on the list's, selected, so
//! typing replaces it.

use crate::actors::board::compose::{BoardPost, PostIntent};
use crate::actors::saves::{Receipt, SaveKind};
use crate::protocol::outcome::{SaveClass, SaveOutcome};
use crate::view::command::UiCommand;
use crate::view::editor::{EditPurpose, EditRequest, EditResult};
use crate::view::field::Field as Input;
use crate::view::model::Model;
use crate::view::saves::{SaveEntry, SavePhase};
use crate::view::text::{fit_width, sanitize, wrap};
use crate::view::theme::{Theme, Tone};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::text::{Line, Span};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Field {
    #[default]
    Title,
    Hearth,
    Body,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Stage {
    /// Keys edit the fields.
    #[default]
    Editing,
    /// `Esc` was pressed: `s` sends, `d` discards, anything else edits again.
    Confirming,
    /// The compose view is closed; the draft is kept (`w` comes back to it).
    Closed,
}

/// One draft.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compose {
    /// Distinguishes this draft's sends from any other's (the post is not idempotent).
    pub draft_id: String,
    pub title: Input,
    /// Opened on the hearth the list shows: selected, so typing replaces it.
    pub hearth: Input,
    pub body: String,
    pub field: Field,
    pub stage: Stage,
}

impl Compose {
    pub fn new(hearth: Option<&str>) -> Self {
        Self {
            draft_id: format!("draft-{}", uuid::Uuid::now_v7()),
            title: Input::new(),
            hearth: Input::opened_on(hearth.unwrap_or_default()),
            body: String::new(),
            field: Field::Title,
            stage: Stage::Editing,
        }
    }

    pub fn open(&self) -> bool {
        self.stage != Stage::Closed
    }

    pub fn intent(&self) -> PostIntent {
        PostIntent {
            title: self.title.text().trim().to_string(),
            hearth: self.hearth.text().trim().to_string(),
            body: self.body.clone(),
            draft_id: self.draft_id.clone(),
        }
    }
}

/// The newest send of `draft_id` in the current workspace.
pub fn latest<'m>(model: &'m Model, draft_id: &str) -> Option<&'m SaveEntry<BoardPost>> {
    let workspace = model.gate().current()?.workspace.0.clone();
    model.board.saves.composed.latest(draft_id, &workspace)
}

fn applied(model: &Model, c: &Compose) -> bool {
    latest(model, &c.draft_id).is_some_and(|e| e.phase.class() == Some(SaveClass::Applied))
}

/// `w` on the list: the kept draft, or a new one when there is none (or it was posted).
pub fn start(compose: &mut Option<Compose>, model: &Model, hearth: Option<&str>) -> UiCommand {
    match compose {
        Some(c) if !applied(model, c) => c.stage = Stage::Editing,
        _ => *compose = Some(Compose::new(hearth)),
    }
    UiCommand::Repaint
}

/// Keys while the compose view is open. `notice` is the footer notice to set.
pub fn key(
    compose: &mut Option<Compose>,
    model: &Model,
    key: KeyEvent,
    notice: &mut Option<String>,
) -> UiCommand {
    let Some(c) = compose.as_mut() else {
        return UiCommand::None;
    };
    if applied(model, c) {
        // Posted: any key closes the view; the draft is done.
        *compose = None;
        return UiCommand::Repaint;
    }
    match c.stage {
        Stage::Closed => UiCommand::None,
        Stage::Confirming => match key.code {
            KeyCode::Char('s') => send(c, model, notice),
            KeyCode::Char('d') => {
                *compose = None;
                UiCommand::Repaint
            }
            KeyCode::Char('q') | KeyCode::Esc => {
                c.stage = Stage::Closed;
                UiCommand::Repaint
            }
            _ => {
                c.stage = Stage::Editing;
                UiCommand::Repaint
            }
        },
        Stage::Editing => {
            let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
            if ctrl {
                // Ctrl-E: the body in `$EDITOR` (VISUAL, EDITOR, vi); the draft stays here.
                if key.code == KeyCode::Char('e') {
                    c.field = Field::Body;
                    return UiCommand::Edit(EditRequest::new(
                        EditPurpose::BoardPost,
                        c.body.clone(),
                        ".md",
                    ));
                }
                return UiCommand::None;
            }
            let line = match c.field {
                Field::Title => Some(&mut c.title),
                Field::Hearth => Some(&mut c.hearth),
                Field::Body => None,
            };
            if let Some(line) = line
                && !matches!(key.code, KeyCode::Tab | KeyCode::BackTab | KeyCode::Esc)
                && line.key(key)
            {
                return UiCommand::Repaint;
            }
            let field = &mut c.body;
            match key.code {
                KeyCode::Esc => c.stage = Stage::Confirming,
                KeyCode::Tab => {
                    c.field = match c.field {
                        Field::Title => Field::Hearth,
                        Field::Hearth => Field::Body,
                        Field::Body => Field::Title,
                    }
                }
                KeyCode::BackTab => {
                    c.field = match c.field {
                        Field::Title => Field::Body,
                        Field::Hearth => Field::Title,
                        Field::Body => Field::Hearth,
                    }
                }
                KeyCode::Enter if c.field == Field::Body => field.push('\n'),
                KeyCode::Enter => {
                    c.field = if c.field == Field::Title {
                        Field::Hearth
                    } else {
                        Field::Body
                    }
                }
                KeyCode::Backspace => {
                    field.pop();
                }
                // T.7: only printable scalars enter the draft.
                KeyCode::Char(ch) if !ch.is_control() && !('\u{80}'..='\u{9f}').contains(&ch) => {
                    field.push(ch)
                }
                _ => return UiCommand::None,
            }
            UiCommand::Repaint
        }
    }
}

/// Bracketed paste into the field being edited (line breaks kept only in the body).
pub fn paste(compose: &mut Option<Compose>, text: &str) -> bool {
    let Some(c) = compose.as_mut().filter(|c| c.stage == Stage::Editing) else {
        return false;
    };
    let clean: String = text
        .chars()
        .filter(|ch| *ch == '\n' || (!ch.is_control() && !('\u{80}'..='\u{9f}').contains(ch)))
        .collect();
    match c.field {
        Field::Title => c.title.paste(&clean.replace('\n', " ")),
        Field::Hearth => c.hearth.paste(&clean.replace('\n', " ")),
        Field::Body => c.body.push_str(&clean),
    }
    true
}

fn send(c: &mut Compose, model: &Model, notice: &mut Option<String>) -> UiCommand {
    if c.title.text().trim().is_empty() {
        *notice = Some("a post needs a title".into());
        c.stage = Stage::Editing;
        c.field = Field::Title;
        return UiCommand::Repaint;
    }
    if let Some(e) = latest(model, &c.draft_id) {
        if e.phase.in_flight() {
            *notice = Some("this draft is already being sent".into());
            return UiCommand::Repaint;
        }
        if e.phase.class() == Some(SaveClass::OutcomeUnknown) {
            // H-5: never resent by itself; the operator looks at the board first.
            *notice = Some(
                "the last send's outcome is unknown: look at the board (r) before posting it again"
                    .into(),
            );
            return UiCommand::Repaint;
        }
    }
    c.stage = Stage::Editing;
    UiCommand::save::<BoardPost>(c.intent())
}

fn receipt_words(e: &SaveEntry<BoardPost>) -> (String, Tone) {
    let words = |r: &<BoardPost as SaveKind>::Receipt| -> (String, Tone) {
        let reason = Receipt::reason(r)
            .map(|x| format!(": {}", sanitize(&x)))
            .unwrap_or_default();
        match r {
            SaveOutcome::Applied { detail, .. } => (
                format!(
                    "posted as {} — the list re-reads; any key closes",
                    sanitize(&detail.post_id)
                ),
                Tone::Good,
            ),
            _ => match Receipt::class(r) {
                SaveClass::NotApplied => (
                    format!("refused{reason} — draft kept (s sends again)"),
                    Tone::Bad,
                ),
                SaveClass::NotSent => (
                    format!("not sent{reason} — draft kept (s sends)"),
                    Tone::Warn,
                ),
                SaveClass::OutcomeUnknown => (
                    format!(
                        "outcome unknown{reason} — not resent; draft kept; look at the board (r)"
                    ),
                    Tone::Bad,
                ),
                _ => (
                    format!("{}{reason}", Receipt::class(r).as_str()),
                    Tone::Warn,
                ),
            },
        }
    };
    match &e.phase {
        SavePhase::Submitted | SavePhase::Written => ("queued…".into(), Tone::Busy),
        SavePhase::Sending => ("sending…".into(), Tone::Busy),
        SavePhase::Ended(r) | SavePhase::Restored(r) => words(r),
    }
}

/// The compose view's lines.
pub fn lines(model: &Model, c: &Compose, theme: Theme, width: usize) -> Vec<Line<'static>> {
    let mut out = vec![Line::styled(
        "NEW POST  (the draft is kept through re-reads, failures and navigation)",
        theme.style(Tone::Strong),
    )];
    let editing = |f: Field| c.stage == Stage::Editing && c.field == f;
    let cursor = |f: Field| if editing(f) { "▏" } else { "" };
    let mark = |f: Field| if c.field == f { "›" } else { " " };
    out.push(Line::raw(
        fit_width(
            &format!(
                "{} title   {}",
                mark(Field::Title),
                c.title.shown(editing(Field::Title))
            ),
            width,
        )
        .into_owned(),
    ));
    out.push(Line::raw(
        fit_width(
            &format!(
                "{} hearth  {}{}",
                mark(Field::Hearth),
                c.hearth.shown(editing(Field::Hearth)),
                if c.hearth.text().trim().is_empty() {
                    "  (none)"
                } else {
                    ""
                }
            ),
            width,
        )
        .into_owned(),
    ));
    out.push(Line::raw(format!("{} body", mark(Field::Body))));
    let body = format!("{}{}", c.body, cursor(Field::Body));
    for raw in body.split('\n') {
        for l in wrap(&sanitize(raw), width.saturating_sub(4).max(1)) {
            out.push(Line::raw(format!("    {l}")));
        }
    }
    if let Some(e) = latest(model, &c.draft_id) {
        let (text, tone) = receipt_words(e);
        out.push(Line::styled(
            fit_width(&text, width).into_owned(),
            theme.style(tone),
        ));
    }
    out
}

/// The body back from `$EDITOR`: it replaces the draft's body only when it was edited (a
/// cancelled or failed edit leaves the draft as it was).
pub fn edited(compose: &mut Option<Compose>, result: EditResult, notice: &mut Option<String>) {
    match (compose.as_mut(), result.outcome.edited_text()) {
        (Some(c), Some(text)) if result.purpose == EditPurpose::BoardPost => {
            c.body = text.to_string();
            c.field = Field::Body;
            c.stage = Stage::Editing;
        }
        _ => *notice = Some(result.notice()),
    }
}

pub fn footer(c: &Compose, theme: Theme) -> Vec<Span<'static>> {
    let text = match c.stage {
        Stage::Confirming => " s send · d discard · Esc close (draft kept) · any other key edits",
        _ => " Tab field · Enter next / new line · Ctrl-E body in $EDITOR · Esc send or discard",
    };
    vec![Span::styled(text, theme.style(Tone::Dim))]
}
