//! Board keys (surfaces.md "Board"): `j`/`k`, Home/End, PgUp/PgDn; Right/`Enter` read;
//! Left/`Esc` back; `s` ranking (hot → trending → recent → updated → discussed); `f`/`F`
//! next/previous hearth from the census (then back to every hearth); `v`/`V` vote up/down on
//! the open or selected post (§15.6: armed — the first press previews, the same key again
//! sends); `r` re-reads (global).

use super::{BoardUi, LIST_HEADER_ROWS, selected_index, shown_posts};
use crate::actors::board::vote::{BoardVote, VoteIntent};
use crate::actors::board::{BoardCommand, BoardQuery};
use crate::protocol::board::VoteDirection;
use crate::view::bindings::{
    Binding, DOWN, END, ENTER, ESC, HOME, LEFT, PAGE_DOWN, PAGE_UP, Press, RIGHT, Table, UP, bind,
};
use crate::view::command::UiCommand;
use crate::view::model::Model;
use crossterm::event::{KeyCode, KeyEvent};

const VOTE: Binding = bind(
    "v / V",
    &[Press::ch('v'), Press::ch('V')],
    "vote up / down on the post (armed: the same key again sends; one vote per voter, a flip allowed, no un-vote)",
)
.footer("vote");

/// The post list.
pub const POSTS: Table = Table {
    title: "Board keys",
    bindings: &[
        bind(
            "Enter / Right, l",
            &[ENTER, RIGHT, Press::ch('l')],
            "read the selected post",
        )
        .footer("read"),
        bind(
            "j / k, Down / Up",
            &[Press::ch('j'), Press::ch('k'), DOWN, UP],
            "move",
        )
        .footer("move"),
        bind(
            "w",
            &[Press::ch('w')],
            "new post (title, hearth, body; Tab field; Esc: s send · d discard · Esc keep draft)",
        )
        .footer("post"),
        bind(
            "s",
            &[Press::ch('s')],
            "order: hot → trending → recent → updated → discussed",
        )
        .footer("order"),
        bind(
            "f / F",
            &[Press::ch('f'), Press::ch('F')],
            "next / previous hearth (from the census), then all",
        )
        .footer("hearth"),
        VOTE,
        bind(
            "Home / End, g / G",
            &[HOME, END, Press::ch('g'), Press::ch('G')],
            "first / last",
        ),
        bind("PgUp / PgDn", &[PAGE_UP, PAGE_DOWN], "page"),
        bind("r", &[], "re-read posts and hearths (the global r)"),
    ],
};

/// An open post.
pub const POST: Table = Table {
    title: "Board post keys",
    bindings: &[
        bind(
            "Esc / Left, h",
            &[ESC, LEFT, Press::ch('h')],
            "back to the list",
        )
        .footer("back"),
        bind(
            "j / k, Down / Up",
            &[Press::ch('j'), Press::ch('k'), DOWN, UP],
            "scroll",
        )
        .footer("scroll"),
        VOTE,
        bind("PgUp / PgDn", &[PAGE_UP, PAGE_DOWN], "page"),
        bind("Home", &[HOME], "top of the post"),
        bind("r", &[], "re-read the post (the global r)"),
    ],
};

/// `r` on the Board: the open post's detail, else the posts and the census.
pub fn refresh(ui: &BoardUi) -> UiCommand {
    if ui.open.is_some() {
        UiCommand::send(BoardCommand::RefreshPost)
    } else {
        UiCommand::Refresh(crate::actors::board::BOARD)
    }
}

/// The hearth after (or before) `current` in the census order; `None` wraps to "all".
fn step_hearth(model: &Model, current: Option<&str>, forward: bool) -> Option<String> {
    let names: Vec<String> = model
        .board
        .census
        .fetched
        .last()
        .map(|o| o.value.hearths.iter().map(|h| h.name.clone()).collect())
        .unwrap_or_default();
    if names.is_empty() {
        return None;
    }
    let at = current.and_then(|c| names.iter().position(|n| n == c));
    let next = match (at, forward) {
        (None, true) => Some(0),
        (None, false) => Some(names.len() - 1),
        (Some(i), true) => (i + 1 < names.len()).then_some(i + 1),
        (Some(i), false) => i.checked_sub(1),
    };
    next.and_then(|i| names.get(i).cloned())
}

/// `v` up, `V` down on `post_id` (§15.6). The save path previews it (masc-tui's vote now →
/// the asked one) and the same key again commits; the score shown after is the re-read's.
fn vote(post_id: &str, code: KeyCode) -> Option<UiCommand> {
    let direction = match code {
        KeyCode::Char('v') => VoteDirection::Up,
        KeyCode::Char('V') => VoteDirection::Down,
        _ => return None,
    };
    Some(UiCommand::save::<BoardVote>(VoteIntent {
        post_id: post_id.to_string(),
        direction,
    }))
}

fn set_query(ui: &mut BoardUi, query: BoardQuery) -> UiCommand {
    ui.query = query.clone();
    ui.offset = 0;
    UiCommand::send(BoardCommand::SetQuery(query))
}

pub fn handle(ui: &mut BoardUi, model: &Model, key: KeyEvent, body_rows: u16) -> UiCommand {
    if let Some(open) = ui.open.clone() {
        return match key.code {
            KeyCode::Esc | KeyCode::Left | KeyCode::Char('h') => {
                ui.open = None;
                ui.selected = Some(open);
                ui.scroll = 0;
                UiCommand::send(BoardCommand::ClosePost)
            }
            KeyCode::Char('j') | KeyCode::Down => {
                ui.scroll += 1;
                UiCommand::Repaint
            }
            KeyCode::Char('k') | KeyCode::Up => {
                ui.scroll = ui.scroll.saturating_sub(1);
                UiCommand::Repaint
            }
            KeyCode::PageDown => {
                ui.scroll += body_rows.max(1) as usize;
                UiCommand::Repaint
            }
            KeyCode::PageUp => {
                ui.scroll = ui.scroll.saturating_sub(body_rows.max(1) as usize);
                UiCommand::Repaint
            }
            KeyCode::Home => {
                ui.scroll = 0;
                UiCommand::Repaint
            }
            code => vote(&open, code).unwrap_or(UiCommand::None),
        };
    }
    match key.code {
        KeyCode::Char('w') => {
            return super::compose::start(&mut ui.compose, model, ui.query.hearth.as_deref());
        }
        KeyCode::Char('s') => {
            let query = BoardQuery {
                sort: ui.query.sort.next(),
                hearth: ui.query.hearth.clone(),
            };
            return set_query(ui, query);
        }
        KeyCode::Char('f') | KeyCode::Char('F') => {
            let forward = key.code == KeyCode::Char('f');
            let query = BoardQuery {
                sort: ui.query.sort,
                hearth: step_hearth(model, ui.query.hearth.as_deref(), forward),
            };
            if query == ui.query {
                return UiCommand::None;
            }
            return set_query(ui, query);
        }
        _ => {}
    }
    let Some(obs) = shown_posts(model) else {
        return UiCommand::None;
    };
    let posts = &obs.page.posts;
    if posts.is_empty() {
        return UiCommand::None;
    }
    let page = body_rows.saturating_sub(LIST_HEADER_ROWS).max(1) as usize;
    let current = selected_index(ui, posts);
    if let Some(cmd) = posts.get(current).and_then(|p| vote(&p.id, key.code)) {
        return cmd;
    }
    let target = match key.code {
        KeyCode::Char('j') | KeyCode::Down => (current + 1).min(posts.len() - 1),
        KeyCode::Char('k') | KeyCode::Up => current.saturating_sub(1),
        KeyCode::Home | KeyCode::Char('g') => 0,
        KeyCode::End | KeyCode::Char('G') => posts.len() - 1,
        KeyCode::PageDown => (current + page).min(posts.len() - 1),
        KeyCode::PageUp => current.saturating_sub(page),
        KeyCode::Enter | KeyCode::Right | KeyCode::Char('l') => {
            let id = posts[current].id.clone();
            ui.selected = Some(id.clone());
            ui.open = Some(id.clone());
            ui.scroll = 0;
            return UiCommand::send(BoardCommand::OpenPost { post_id: id });
        }
        _ => return UiCommand::None,
    };
    ui.selected = Some(posts[target].id.clone());
    ui.offset =
        crate::view::screens::widgets::effective_offset(target, ui.offset, page, posts.len());
    UiCommand::Repaint
}
