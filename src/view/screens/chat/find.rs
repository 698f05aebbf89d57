//! `/find`, `n`/`N` and `/copy` in the chat (C-31, C-74).
//!
//! - `/find <text>` highlights the text in every painted body row and moves the window to the
//!   newest match; with the draft empty `n` walks to the next older match and `N` back toward
//!   the newest (reading a chat goes back in time); `Esc` clears the search first. Matches
//!   are the transcript view's painted rows, so they move with the origin mode, the tool and
//!   reasoning folds and the width, as the frame does. The search runs off the view actor
//!   ([`crate::view::transcript::search::FindJob`]); while it runs the title says `searching…` and
//!   keys keep working; its result is admitted only for the layout and query it was made for
//!   ([`admit`]); `n`/`N` walk the admitted list without re-wrapping.
//! - `/copy` writes one message's stored original (C-31: before sanitising and wrapping) to
//!   the clipboard through OSC 52 — the current `/find` match's message, else the newest
//!   Keeper reply — only when the terminal is known to accept OSC 52
//!   ([`crate::view::terminal::clipboard`]); otherwise the footer says so and nothing is written.

use super::{ChatUi, composer_layout, transcript_rows};
use crate::view::model::Model;
use crate::view::screens::Ui;
use crate::view::terminal::clipboard::{COPY_MAX_BYTES, Osc52, osc52_sequence};
use crate::view::text::sanitize;
use crate::view::transcript::search::{FindJob, FindStamp, Found};
use crate::view::transcript::{EntryKind, ScrollPosition, Speaker};
use ratatui::layout::Rect;
use std::sync::Arc;
use std::time::Instant;

/// A match list admitted for one layout (the stamp it was searched under).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundRows {
    pub stamp: FindStamp,
    /// Transcript rows (from the first row) holding the query, oldest first.
    pub rows: Arc<Vec<usize>>,
    /// Rows of the whole transcript under the stamp.
    pub total: usize,
}

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
    /// The last admitted match list; `n`/`N` walk it without re-wrapping while its stamp is
    /// the view's.
    pub found: Option<FoundRows>,
    /// The search running off the view actor (its stamp): the title says `searching…`.
    pub searching: Option<FindStamp>,
    /// The move to make once a search is admitted (`true`: toward older rows).
    pub pending: Option<bool>,
}

impl FindState {
    pub fn new(query: &str) -> Self {
        Self {
            query: query.to_string(),
            current: None,
            count: 0,
            index: None,
            found: None,
            searching: None,
            pending: None,
        }
    }

    /// The title's words (C-67 style hint beside the scroll hint).
    pub fn words(&self) -> String {
        let query = sanitize(&self.query);
        if self.searching.is_some() {
            return format!("  find \"{query}\" searching… (Esc)");
        }
        match (self.count, self.index) {
            (0, _) => format!("  find \"{query}\" no match (Esc)"),
            (n, Some(i)) => format!("  find \"{query}\" {i}/{n} (n/N, Esc)"),
            (n, None) => format!("  find \"{query}\" {n} (n/N, Esc)"),
        }
    }
}

/// Where the transcript window is: (width, rows).
pub type Window = (u16, usize);

/// The transcript window of the open chat in a terminal of `area`.
pub fn window_of(chat: &ChatUi, area: Rect, now: Instant) -> Window {
    let layout = composer_layout(chat, area, now);
    (layout.history.width, transcript_rows(&layout).max(1))
}

/// What a `/find` or an `n`/`N` did: a footer notice, and a search to run off the view actor.
#[derive(Debug, Default)]
pub struct FindStep {
    pub notice: Option<String>,
    pub search: Option<FindJob>,
}

impl FindStep {
    fn notice(text: String) -> Self {
        Self {
            notice: Some(text),
            search: None,
        }
    }
}

/// The scroll that shows transcript row `row` a third of the window below the top.
fn scroll_to(total: usize, rows: usize, row: usize) -> ScrollPosition {
    let top = row.saturating_sub(rows / 3);
    match total.checked_sub(top + rows) {
        Some(back) if back > 0 => ScrollPosition::Back(back),
        _ => ScrollPosition::Newest,
    }
}

/// The window's top row for `scroll` over `total` rows (no wrapping: the total is known).
fn top_of(scroll: ScrollPosition, total: usize, rows: usize) -> usize {
    match scroll {
        ScrollPosition::Newest => total.saturating_sub(rows),
        ScrollPosition::Back(back) => total.saturating_sub(back + rows),
        ScrollPosition::FromTop(skip) => skip,
    }
}

/// Moves along an admitted match list to the next older (`older`) or newer match; a notice
/// when there is none. Never wraps a row.
fn step(chat: &mut ChatUi, older: bool, rows: usize) -> Option<String> {
    let find = chat.find.as_mut()?;
    let found = find.found.clone()?;
    let matches = found.rows.as_slice();
    find.count = matches.len();
    if matches.is_empty() {
        find.current = None;
        find.index = None;
        return Some(format!("find: no match for \"{}\"", sanitize(&find.query)));
    }
    let top = top_of(chat.scroll, found.total, rows);
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
    chat.scroll = scroll_to(found.total, rows, row);
    None
}

/// `n`/`N`: walks the admitted match list when it was searched under the view's current
/// layout; after a layout change (width, modes, transcript revision) dispatches the search
/// again and makes the move when its result is admitted.
pub fn walk(chat: &mut ChatUi, model: &Model, older: bool, window: Window) -> FindStep {
    let (width, rows) = window;
    let Some(pane) = model.chat.pane.as_ref().filter(|p| p.keeper == chat.keeper) else {
        return FindStep::default();
    };
    let Some(find) = chat.find.as_mut() else {
        return FindStep::default();
    };
    let mut view = pane.view();
    view.set_modes(chat.modes);
    let now = view.find_stamp(width);
    if find.found.as_ref().is_some_and(|f| f.stamp == now) {
        drop(view);
        return FindStep {
            notice: step(chat, older, rows),
            search: None,
        };
    }
    // The list (if any) counts rows of another projection: the window is the reference.
    find.current = None;
    find.index = None;
    find.pending = Some(older);
    if find.searching == Some(now) {
        // Already searching this layout: the move waits for that result.
        return FindStep::default();
    }
    let job = view.find_job(width, &find.query);
    find.searching = Some(job.stamp());
    FindStep {
        notice: None,
        search: Some(job),
    }
}

/// `/find <text>`: starts a search (off the view actor) that, once admitted, moves to the
/// newest match at or above the window's bottom; `/find` alone clears it.
pub fn start(chat: &mut ChatUi, model: &Model, query: Option<String>, window: Window) -> FindStep {
    match query.filter(|q| !q.trim().is_empty()) {
        None => {
            chat.find = None;
            FindStep::notice("find cleared".into())
        }
        Some(q) => {
            chat.find = Some(FindState::new(q.trim()));
            walk(chat, model, true, window)
        }
    }
}

/// What became of a search result.
#[derive(Debug)]
pub enum Admission {
    /// Taken: the match list is the search's, the pending move made (`notice`: what the
    /// footer says, e.g. no match).
    Applied { notice: Option<String> },
    /// Not applied (`why` is traced); `again`: the same search for the current layout, when
    /// it is still awaited (the layout changed while it ran).
    Rejected {
        why: &'static str,
        again: Option<FindJob>,
    },
}

/// Admits a search result into the open chat's `/find`, only when its query is the search's
/// and its stamp (layout generation, modes, transcript revision, width) is the one the search
/// was dispatched for and still the view's at the chat's current window.
pub fn admit(chat: &mut ChatUi, model: &Model, found: Found, window: Window) -> Admission {
    let (width, rows) = window;
    let Some(find) = chat.find.as_mut() else {
        return Admission::Rejected {
            why: "find_cleared",
            again: None,
        };
    };
    if found.query != find.query {
        return Admission::Rejected {
            why: "find_query_changed",
            again: None,
        };
    }
    if find.searching != Some(found.stamp) {
        return Admission::Rejected {
            why: "find_superseded",
            again: None,
        };
    }
    let Some(pane) = model.chat.pane.as_ref().filter(|p| p.keeper == chat.keeper) else {
        find.searching = None;
        return Admission::Rejected {
            why: "find_chat_closed",
            again: None,
        };
    };
    let mut view = pane.view();
    view.set_modes(chat.modes);
    if view.find_stamp(width) != found.stamp {
        // The layout moved while the search ran: the rows are another projection's. The
        // search is still awaited, so it runs again for the layout of now.
        let job = view.find_job(width, &find.query);
        find.searching = Some(job.stamp());
        return Admission::Rejected {
            why: "find_layout_changed",
            again: Some(job),
        };
    }
    view.adopt_found_heights(&found);
    drop(view);
    find.searching = None;
    find.count = found.rows.len();
    find.found = Some(FoundRows {
        stamp: found.stamp,
        rows: Arc::new(found.rows),
        total: found.total,
    });
    let notice = match find.pending.take() {
        Some(older) => step(chat, older, rows),
        None => None,
    };
    Admission::Applied { notice }
}

/// [`admit`] for the chat open in `ui` at its current window; a notice goes on the composer's
/// footer. The view actor calls this when a search comes back, and so do tests.
pub fn admit_into(ui: &mut Ui, model: &Model, found: Found, now: Instant) -> Admission {
    let area = ui.area;
    let Some(chat) = ui.layer_mut::<super::ChatUi>() else {
        return Admission::Rejected {
            why: "find_chat_closed",
            again: None,
        };
    };
    let window = window_of(chat, area, now);
    let admission = admit(chat, model, found, window);
    if let Admission::Applied {
        notice: Some(notice),
    } = &admission
    {
        chat.composer.report_failure(notice.clone(), now);
    }
    admission
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
