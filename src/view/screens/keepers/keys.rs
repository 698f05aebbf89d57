//! Keys of the Keepers roster: selection, `/` live search (`n`/`N`), the detail pane, and
//! `c`/`m` to open the selected Keeper's chat.

use super::KeepersScreen;
use super::detail::DetailUi;
use super::row_matches;
use crate::actors::keeper_detail::{KeeperDetailCommand, Viewer};
use crate::view::bindings::{
    DOWN, END, ENTER, ESC, HOME, LEFT, PAGE_DOWN, PAGE_UP, Press, RIGHT, Table, UP, bind,
};
use crate::view::command::UiCommand;
use crate::view::model::Model;
use crate::view::screens::chat::ChatEvent;
use crate::view::screens::widgets::effective_offset;
use crate::view::screens::{RosterUi, Search, Ui};
use crossterm::event::{KeyCode, KeyEvent};

/// The roster's keys (no detail open).
pub const ROSTER: Table = Table {
    title: "Keepers keys",
    bindings: &[
        bind(
            "c / m",
            &[Press::ch('c'), Press::ch('m')],
            "chat with the selected Keeper",
        )
        .footer("chat"),
        bind(
            "Enter / Right",
            &[ENTER, RIGHT],
            "detail of the selected row",
        )
        .footer("detail"),
        bind(
            "j / k, Down / Up",
            &[Press::ch('j'), Press::ch('k'), DOWN, UP],
            "move selection",
        )
        .footer("move"),
        bind(
            "/",
            &[Press::ch('/')],
            "search by name (live jump); Enter asks the server for a name not loaded",
        )
        .footer("search"),
        bind(
            "n / N",
            &[Press::ch('n'), Press::ch('N')],
            "next / previous match",
        ),
        bind("Esc", &[ESC], "clear the search"),
        bind(
            "Home / End, G",
            &[HOME, END, Press::ch('G')],
            "first / last keeper",
        ),
        bind("PgUp / PgDn", &[PAGE_UP, PAGE_DOWN], "page up / down"),
        bind(
            "e",
            &[Press::ch('e')],
            "settings in $EDITOR (Esc or a move cancels while reading)",
        )
        .footer("settings"),
        bind(
            "a",
            &[Press::ch('a')],
            "create a keeper: its declaration in $EDITOR (create-only)",
        )
        .footer("new"),
        bind(
            "p",
            &[Press::ch('p')],
            "pause (resume when paused, boot when no fiber runs)",
        )
        .footer("pause"),
        bind("w", &[Press::ch('w')], "wake").footer("wake"),
        bind(
            "s s",
            &[Press::ch('s')],
            "shutdown (the first press previews)",
        ),
        bind(
            "x x",
            &[Press::ch('x')],
            "delete (only with no fiber running; the first press previews)",
        ),
        bind("g then y / a", &[Press::ch('g')], "tool gate yolo / auto"),
        bind("U", &[Press::ch('U')], "runtime assignment picker"),
    ],
};

/// The keys of the open detail pane.
pub const DETAIL: Table = Table {
    title: "Keeper detail keys",
    bindings: &[
        bind("Esc / Left", &[ESC, LEFT], "close the detail").footer("close"),
        bind(
            "[ / ]",
            &[Press::ch('['), Press::ch(']')],
            "Info / Instructions tab",
        )
        .footer("tabs"),
        bind(
            "j / k, Down / Up",
            &[Press::ch('j'), Press::ch('k'), DOWN, UP],
            "scroll",
        )
        .footer("scroll"),
        bind(
            "o",
            &[Press::ch('o')],
            "Keeper logs: newest 200 metrics rows",
        )
        .footer("logs"),
        bind(
            "e",
            &[Press::ch('e')],
            "settings in $EDITOR (Esc or a move cancels while reading)",
        )
        .footer("settings"),
        bind(
            "d / m / s",
            &[Press::ch('d'), Press::ch('m'), Press::ch('s')],
            "sandbox: docker / microvm / remote_ssh",
        )
        .footer("sandbox"),
        bind("U", &[Press::ch('U')], "runtime assignment picker").footer("runtime"),
        bind(
            "r",
            &[],
            "re-read metadata, live context, metrics (the global r)",
        ),
    ],
};

/// The keys of the Keeper logs.
pub const LOGS: Table = Table {
    title: "Keeper logs keys",
    bindings: &[
        bind("Esc / Left", &[ESC, LEFT], "back to the detail").footer("back"),
        bind(
            "j / k, Down / Up",
            &[Press::ch('j'), Press::ch('k'), DOWN, UP],
            "scroll",
        )
        .footer("scroll"),
        bind("PgUp / PgDn", &[PAGE_UP, PAGE_DOWN], "page"),
        bind("Home", &[HOME], "the newest rows"),
        bind("r", &[], "re-read the logs (the global r)"),
    ],
};

/// The rows the roster shows: the loaded page's, and the Keeper found by name after them.
fn roster_len(roster: &RosterUi, model: &Model) -> usize {
    model
        .keepers
        .roster
        .fetched
        .last()
        .map_or(0, |o| o.value.rows.len())
        + usize::from(roster.found.is_some())
}

/// Whether the server has Keepers the loaded page does not list (§4.1 `total`, `truncated`).
pub fn beyond_page(model: &Model) -> bool {
    model
        .keepers
        .roster
        .fetched
        .last()
        .is_some_and(|o| o.value.truncated || o.value.total > o.value.count)
}

/// A key on the roster (no field active).
pub fn handle(keepers: &mut KeepersScreen, ui: &mut Ui, model: &Model, key: KeyEvent) -> UiCommand {
    if !keepers.roster.detail_open
        && let Some(cmd) =
            super::operations::lifecycle::key(&mut keepers.roster, &mut ui.notice.text, model, key)
    {
        return cmd;
    }
    if !keepers.roster.detail_open && key.code == KeyCode::Char('a') {
        return super::operations::create::key(&mut keepers.create, &mut ui.notice.text, model);
    }
    let page = ui.roster_page_rows().max(1);
    roster_key(&mut keepers.roster, model, key, page)
}

/// Whether the `/` search field or the `U` picker takes every key.
pub fn typing(roster: &RosterUi) -> bool {
    roster.picker.is_some() || roster.search.as_ref().is_some_and(|s| s.typing)
}

/// A key while the search field or the picker is active.
pub fn typing_key(roster: &mut RosterUi, ui: &Ui, model: &Model, key: KeyEvent) -> UiCommand {
    if roster.picker.is_some() {
        return super::operations::picker_key(roster, model, key);
    }
    let page = ui.roster_page_rows().max(1);
    search_typing(roster, model, key, page)
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

/// Selects the row shown `line` rows below the first shown one (a click).
pub fn select_shown(roster: &mut RosterUi, model: &Model, line: usize, page: usize) -> UiCommand {
    let len = roster_len(roster, model);
    if len == 0 {
        return UiCommand::None;
    }
    let selected = roster.selected.min(len - 1);
    let top = effective_offset(selected, roster.offset, page, len);
    let index = top + line;
    if index >= len {
        return UiCommand::None;
    }
    roster.offset = top;
    select(roster, index, len, page)
}

/// The name of roster row `index` (an undecodable row's name when it had one; the Keeper
/// found by name at the index after the page's rows).
fn row_name(roster: &RosterUi, model: &Model, index: usize) -> Option<String> {
    let page_rows = model
        .keepers
        .roster
        .fetched
        .last()
        .map_or(0, |o| o.value.rows.len());
    if index == page_rows {
        return roster.found.clone();
    }
    super::operations::row_name(model, index)
}

/// `/` found nothing on the loaded page and the server has more: ask it for `name` (§14.7,
/// the only way MASC reaches a Keeper beyond its first 200) and select the answer's row.
fn ask_by_name(roster: &mut RosterUi, model: &Model, name: String, page: usize) -> UiCommand {
    roster.search_missed = false;
    roster.found = Some(name.clone());
    let len = roster_len(roster, model);
    let _ = select(roster, len - 1, len, page);
    UiCommand::send(KeeperDetailCommand::Watch {
        viewer: Viewer::Detail,
        keeper: name,
    })
}

/// What a Keeper is opened on from outside the roster (the command palette's `keeper <name>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeeperOpen {
    Chat,
    Detail,
}

/// Selects the Keeper `name` and opens its chat or detail: a row of the loaded page is
/// selected as a move would; a name beyond it is asked of the server as `/` then `Enter` asks
/// (§14.7). `None` when the name is neither loaded nor reachable (the server has no more).
pub fn open_named(
    roster: &mut RosterUi,
    model: &Model,
    name: &str,
    open: KeeperOpen,
    page: usize,
) -> Option<UiCommand> {
    let loaded = model
        .keepers
        .roster
        .fetched
        .last()
        .map_or(0, |o| o.value.rows.len());
    let index =
        (0..loaded).find(|&i| super::operations::row_name(model, i).as_deref() == Some(name));
    let watch = match index {
        Some(index) => {
            let _ = select(roster, index, roster_len(roster, model), page);
            None
        }
        None if beyond_page(model) => {
            roster.search = Some(Search {
                query: name.to_string(),
                typing: false,
            });
            Some(ask_by_name(roster, model, name.to_string(), page))
        }
        None => return None,
    };
    let keeper = name.to_string();
    let opened = match open {
        KeeperOpen::Chat => UiCommand::local(ChatEvent::Open { keeper }),
        KeeperOpen::Detail => {
            roster.detail_open = true;
            roster.detail = DetailUi {
                keeper: Some(keeper.clone()),
                ..DetailUi::default()
            };
            if watch.is_some() {
                // The server look-up is the detail's own read of that Keeper.
                return watch;
            }
            UiCommand::send(KeeperDetailCommand::Watch {
                viewer: Viewer::Detail,
                keeper,
            })
        }
    };
    Some(match watch {
        Some(watch) => UiCommand::Many(vec![watch, opened]),
        None => opened,
    })
}

/// A key in the open detail pane (or its logs).
fn detail_key(roster: &mut RosterUi, model: &Model, key: KeyEvent) -> UiCommand {
    let d = &mut roster.detail;
    if let Some(scroll) = d.logs.as_mut() {
        return match key.code {
            KeyCode::Esc | KeyCode::Left => {
                d.logs = None;
                UiCommand::Repaint
            }
            KeyCode::Char('j') | KeyCode::Down => {
                *scroll = scroll.saturating_add(1);
                UiCommand::Repaint
            }
            KeyCode::Char('k') | KeyCode::Up => {
                *scroll = scroll.saturating_sub(1);
                UiCommand::Repaint
            }
            KeyCode::PageDown => {
                *scroll = scroll.saturating_add(20);
                UiCommand::Repaint
            }
            KeyCode::PageUp => {
                *scroll = scroll.saturating_sub(20);
                UiCommand::Repaint
            }
            KeyCode::Home => {
                *scroll = 0;
                UiCommand::Repaint
            }
            _ => UiCommand::None,
        };
    }
    match key.code {
        KeyCode::Esc | KeyCode::Left => {
            roster.detail_open = false;
            roster.detail = DetailUi::default();
            // Leaving retires the reads; the last observations stay (N-6).
            UiCommand::send(KeeperDetailCommand::Unwatch {
                viewer: Viewer::Detail,
            })
        }
        KeyCode::Char(']') | KeyCode::Char('[') => {
            d.tab = d.tab.step(key.code == KeyCode::Char(']'));
            d.scroll = 0;
            UiCommand::Repaint
        }
        KeyCode::Char('j') | KeyCode::Down => {
            d.scroll = d.scroll.saturating_add(1);
            UiCommand::Repaint
        }
        KeyCode::Char('k') | KeyCode::Up => {
            d.scroll = d.scroll.saturating_sub(1);
            UiCommand::Repaint
        }
        // `o`: the Keeper logs (the metrics the activity summary shares, N-5).
        KeyCode::Char('o') => {
            d.logs = Some(0);
            UiCommand::Repaint
        }
        KeyCode::Char('U') => super::operations::open_picker(roster, model),
        KeyCode::Char('e') => match roster.detail.keeper.clone() {
            Some(keeper) => UiCommand::local(super::operations::settings::Prepare { keeper }),
            None => UiCommand::None,
        },
        code => super::operations::sandbox_key(roster, model, code).unwrap_or(UiCommand::None),
    }
}

fn roster_key(roster: &mut RosterUi, model: &Model, key: KeyEvent, page: usize) -> UiCommand {
    let len = roster_len(roster, model);
    let cur = roster.selected.min(len.saturating_sub(1));
    if roster.detail_open {
        return detail_key(roster, model, key);
    }
    match key.code {
        KeyCode::Char('j') | KeyCode::Down => select(roster, cur + 1, len, page),
        KeyCode::Char('k') | KeyCode::Up => select(roster, cur.saturating_sub(1), len, page),
        KeyCode::Home => select(roster, 0, len, page),
        KeyCode::End | KeyCode::Char('G') => select(roster, len.saturating_sub(1), len, page),
        KeyCode::PageDown => select(roster, cur + page, len, page),
        KeyCode::PageUp => select(roster, cur.saturating_sub(page), len, page),
        // `c` / `m` open the selected Keeper's chat (as in MASC).
        KeyCode::Char('c') | KeyCode::Char('m') if len > 0 => match row_name(roster, model, cur) {
            Some(keeper) => UiCommand::local(ChatEvent::Open { keeper }),
            None => UiCommand::None,
        },
        KeyCode::Enter | KeyCode::Right if len > 0 => {
            roster.detail_open = true;
            let keeper = row_name(roster, model, cur);
            roster.detail = DetailUi {
                keeper: keeper.clone(),
                ..DetailUi::default()
            };
            match keeper {
                // The detail reads of this Keeper (§14.7–§14.9), owned by the detail viewer.
                Some(keeper) => UiCommand::send(KeeperDetailCommand::Watch {
                    viewer: Viewer::Detail,
                    keeper,
                }),
                None => UiCommand::Repaint,
            }
        }
        KeyCode::Char('/') => {
            roster.search = Some(Search {
                query: String::new(),
                typing: true,
            });
            roster.search_missed = false;
            UiCommand::Repaint
        }
        KeyCode::Char('U') if len > 0 => super::operations::open_picker(roster, model),
        KeyCode::Char('e') if len > 0 => match row_name(roster, model, cur) {
            Some(keeper) => UiCommand::local(super::operations::settings::Prepare { keeper }),
            None => UiCommand::None,
        },
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
            let name = search.query.trim().to_string();
            if roster.search_missed && !name.is_empty() && beyond_page(model) {
                return ask_by_name(roster, model, name, page);
            }
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

/// Bracketed paste into the roster: into the search field only; non-printables become spaces (T.7).
/// Returns `true` when the UI changed.
pub fn paste(roster: &mut RosterUi, ui: &Ui, model: &Model, text: &str) -> bool {
    let page = ui.roster_page_rows().max(1);
    let cur = roster.selected;
    let Some(search) = roster.search.as_mut().filter(|s| s.typing) else {
        return false;
    };
    search.query.extend(text.chars().map(|c| {
        if c.is_control() || ('\u{80}'..='\u{9f}').contains(&c) {
            ' '
        } else {
            c
        }
    }));
    let _ = jump(roster, model, cur, true, false, page);
    true
}
