//! `/find`, `n`/`N` and `/copy` in the chat (issue 14 item 4; C-31, C-74).
//!
//! - `/find <text>` highlights the text in every painted body row and moves the window to the
//!   newest match; with the draft empty `n` walks to the next older match and `N` back toward
//!   the newest (reading a chat goes back in time); `Esc` clears the search first. Matches
//!   are the transcript view's painted rows ([`TranscriptView::find_rows`]), so they move
//!   with the origin mode, the tool and reasoning folds and the width, as the frame does.
//! - `/copy` writes one message's stored original (C-31: before sanitising and wrapping) to
//!   the clipboard through OSC 52 — the current `/find` match's message, else the newest
//!   Keeper reply — only when the terminal is known to accept OSC 52
//!   ([`crate::view::clipboard`]); otherwise the footer says so and nothing is written.

use super::ChatUi;
use crate::view::chat::{EntryKind, ScrollPosition, Speaker};
use crate::view::clipboard::{COPY_MAX_BYTES, Osc52, osc52_sequence};
use crate::view::model::Model;
use crate::view::text::sanitize;

/// An active `/find`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FindState {
    pub query: String,
    /// The transcript row (from the first row) the last `n`/`N` moved to; `None` after a view
    /// toggle or before the first move (the window is the reference then).
    pub current: Option<usize>,
    /// Matches when last counted, and the 1-based place of `current` among them.
    pub count: usize,
    pub index: Option<usize>,
}

impl FindState {
    pub fn new(query: &str) -> Self {
        Self {
            query: query.to_string(),
            current: None,
            count: 0,
            index: None,
        }
    }

    /// The title's words (C-67 style hint beside the scroll hint).
    pub fn words(&self) -> String {
        let query = sanitize(&self.query);
        match (self.count, self.index) {
            (0, _) => format!("  find \"{query}\" no match (Esc)"),
            (n, Some(i)) => format!("  find \"{query}\" {i}/{n} (n/N, Esc)"),
            (n, None) => format!("  find \"{query}\" {n} (n/N, Esc)"),
        }
    }
}

/// Where the transcript window is: (width, rows).
pub type Window = (u16, usize);

/// The scroll that shows transcript row `row` a third of the window below the top.
fn scroll_to(total: usize, rows: usize, row: usize) -> ScrollPosition {
    let top = row.saturating_sub(rows / 3);
    match total.checked_sub(top + rows) {
        Some(back) if back > 0 => ScrollPosition::Back(back),
        _ => ScrollPosition::Newest,
    }
}

/// Moves to the next older (`older`) or newer match; a notice when there is none.
pub fn walk(chat: &mut ChatUi, model: &Model, older: bool, window: Window) -> Option<String> {
    let (width, rows) = window;
    let height = u16::try_from(rows).unwrap_or(u16::MAX);
    let pane = model
        .chat
        .pane
        .as_ref()
        .filter(|p| p.keeper == chat.keeper)?;
    let find = chat.find.as_mut()?;
    let mut view = pane.view();
    view.set_modes(chat.modes);
    let matches = view.find_rows(width, &find.query);
    let total = view.total_rows(width);
    find.count = matches.len();
    if matches.is_empty() {
        find.current = None;
        find.index = None;
        return Some(format!("find: no match for \"{}\"", sanitize(&find.query)));
    }
    let top = view
        .top_row(width, height, chat.scroll)
        .unwrap_or_else(|| total.saturating_sub(rows));
    let next = if older {
        let below = find.current.unwrap_or(top + rows);
        matches.iter().rposition(|&r| r < below)
    } else {
        let above = find.current.map_or(top, |c| c + 1);
        matches.iter().position(|&r| r >= above)
    };
    let Some(at) = next else {
        return Some(if older {
            "find: no older match".to_string()
        } else {
            "find: no newer match".to_string()
        });
    };
    let row = matches[at];
    find.current = Some(row);
    find.index = Some(at + 1);
    chat.scroll = scroll_to(total, rows, row);
    None
}

/// `/find <text>`: starts a search at the window and moves to the newest match at or above
/// its bottom; `/find` alone clears it.
pub fn start(
    chat: &mut ChatUi,
    model: &Model,
    query: Option<String>,
    window: Window,
) -> Option<String> {
    match query.filter(|q| !q.trim().is_empty()) {
        None => {
            chat.find = None;
            Some("find cleared".into())
        }
        Some(q) => {
            chat.find = Some(FindState::new(q.trim()));
            walk(chat, model, true, window)
        }
    }
}

/// `/copy`: the OSC 52 bytes and the footer's words, or why nothing was copied.
pub fn copy(
    chat: &ChatUi,
    model: &Model,
    window: Window,
    support: Osc52,
) -> Result<(Vec<u8>, String), String> {
    let pane = model
        .chat
        .pane
        .as_ref()
        .filter(|p| p.keeper == chat.keeper)
        .ok_or_else(|| "/copy: the chat is not loaded".to_string())?;
    let mut view = pane.view();
    view.set_modes(chat.modes);
    let chosen = chat
        .find
        .as_ref()
        .and_then(|f| f.current)
        .and_then(|row| view.entry_at_row(window.0, row))
        .map(|(_, text)| (text, "the found message"));
    let chosen = chosen.or_else(|| {
        view.transcript()
            .entries()
            .iter()
            .rev()
            .find(|e| {
                matches!(e.speaker, Speaker::Keeper { .. })
                    && e.kind == EntryKind::Utterance
                    && !e.text.trim().is_empty()
            })
            .map(|e| (e.text.clone(), "the newest reply"))
    });
    let Some((text, what)) = chosen else {
        return Err("/copy: no Keeper reply to copy".into());
    };
    let name = match support {
        Osc52::Accepted(name) => name,
        Osc52::Unknown(why) => {
            return Err(format!(
                "/copy: this terminal is not known to accept OSC 52 ({}); nothing copied · MASC_TUI_OSC52=on sends it",
                sanitize(&why)
            ));
        }
    };
    if text.len() > COPY_MAX_BYTES {
        return Err(format!(
            "/copy: {what} is {} bytes, more than a terminal takes through OSC 52 ({COPY_MAX_BYTES}); nothing copied",
            text.len()
        ));
    }
    let chars = text.chars().count();
    Ok((
        osc52_sequence(&text),
        format!(
            "copied {what} ({chars} characters) through OSC 52 · {}",
            sanitize(&name)
        ),
    ))
}
