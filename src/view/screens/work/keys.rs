//! Keys of the Work surface: pure (UI state, model, key) → command.
//!
//! Opening a task or goal asks the Work detail source for new reads (new tickets, A-10, A-17);
//! `H` asks for the next older page, `r` for a fresh prefix (A-2), both with the page demand
//! derived from the terminal height (A-8). Scrolling uses the prepared row count; a
//! provisional count never clamps (resets) the saved scroll (A-14).

use super::state::{goal_order, layout_width_for, linked_task_order, page_rows_for, task_order};
use super::{WorkPane, WorkUi};
use crate::actors::work::goal_transition::{GoalTransition, TransitionIntent};
use crate::actors::work::{ChainNext, OlderPages, WorkCommand};
use crate::protocol::goal_transition::GoalAction;
use crate::protocol::planning::PlanningRead;
use crate::view::bindings::{
    Binding, DOWN, END, ENTER, ESC, HOME, LEFT, PAGE_DOWN, PAGE_UP, Press, RIGHT, Table, UP, bind,
};
use crate::view::command::UiCommand;
use crate::view::model::Model;
use crate::view::screens::Search;
use crate::view::screens::widgets::{Ring, effective_offset};
use crate::view::screens::work::state::detail_layout_for;
use crate::view::work::TaskListShown;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;

/// The most older pages one count asks for (`999H`).
const MAX_PAGE_COUNT: u32 = 999;

const LIST_MOVES: Binding = bind(
    "j / k, Down / Up",
    &[Press::ch('j'), Press::ch('k'), DOWN, UP],
    "move the selection",
)
.footer("move");
const LIST_ENDS: Binding = bind(
    "Home / End, g / G",
    &[HOME, END, Press::ch('g'), Press::ch('G')],
    "first / last",
);
const LIST_PAGES: Binding = bind("PgUp / PgDn", &[PAGE_UP, PAGE_DOWN], "page up / down");
const APPROVALS: Binding =
    bind("p", &[Press::ch('p')], "Approvals and questions").footer("approvals");

/// The Goals list (surfaces.md Work → Goals).
pub const GOALS: Table = Table {
    title: "Work · Goals keys",
    bindings: &[
        bind("Enter / Right", &[ENTER, RIGHT], "open the goal's detail").footer("detail"),
        bind("t", &[Press::ch('t')], "show the Tasks").footer("Tasks"),
        LIST_MOVES,
        bind(
            "f",
            &[Press::ch('f')],
            "filter: all / active / completed / dropped",
        )
        .footer("filter"),
        bind("s", &[Press::ch('s')], "sort").footer("sort"),
        LIST_ENDS,
        LIST_PAGES,
        APPROVALS,
    ],
};

/// An open goal.
pub const GOAL_DETAIL: Table = Table {
    title: "Work · goal keys",
    bindings: &[
        bind("Esc / Left", &[ESC, LEFT], "back to the list").footer("back"),
        bind(
            "c / x / o",
            &[Press::ch('c'), Press::ch('x'), Press::ch('o')],
            "request completion / drop / reopen (armed: the same key again sends; the server decides the phase)",
        )
        .footer("complete / drop / reopen"),
        bind("r", &[], "re-read the goal's timeline (the global r)"),
    ],
};

/// The Tasks list (surfaces.md Work → Tasks).
pub const TASKS: Table = Table {
    title: "Work · Tasks keys",
    bindings: &[
        bind("Enter / Right", &[ENTER, RIGHT], "open the task's detail").footer("detail"),
        bind("t", &[Press::ch('t')], "show the Goals").footer("Goals"),
        LIST_MOVES,
        bind("/", &[Press::ch('/')], "search id, title, assignee").footer("search"),
        bind("Esc", &[ESC], "clear the search"),
        LIST_ENDS,
        LIST_PAGES,
        APPROVALS,
    ],
};

/// An open task.
pub const TASK_DETAIL: Table = Table {
    title: "Work · task keys",
    bindings: &[
        bind("Esc / Left", &[ESC, LEFT], "back to the list").footer("back"),
        bind(
            "j / k, Down / Up",
            &[Press::ch('j'), Press::ch('k'), DOWN, UP],
            "scroll the history",
        )
        .footer("history"),
        bind(
            "J / K",
            &[Press::ch('J'), Press::ch('K')],
            "scroll the document",
        )
        .footer("document"),
        bind(
            "H, 12H",
            &[
                Press::ch('H'),
                Press::ch('0'),
                Press::ch('1'),
                Press::ch('2'),
                Press::ch('3'),
                Press::ch('4'),
                Press::ch('5'),
                Press::ch('6'),
                Press::ch('7'),
                Press::ch('8'),
                Press::ch('9'),
            ],
            "read the next older history page (a count first reads that many)",
        )
        .footer("older page"),
        bind("PgUp / PgDn", &[PAGE_UP, PAGE_DOWN], "page the history"),
        bind("Home", &[HOME], "the newest event"),
        bind(
            "End",
            &[END],
            "the oldest event, reading every page between (with progress)",
        ),
        bind(
            "r",
            &[],
            "re-read the body and a fresh history prefix (the global r)",
        ),
    ],
};

fn goal_ids(model: &Model, ui: &WorkUi) -> Vec<String> {
    match model.work.planning.fetched.last().map(|o| o.value.as_ref()) {
        Some(PlanningRead::Snapshot(p)) => goal_order(&p.goals, ui.goals.filter, ui.goals.sort)
            .into_iter()
            .map(|i| p.goals[i].id.clone())
            .collect(),
        _ => Vec::new(),
    }
}

/// The ids of the shown task list, in search order: the task list, or the goal-linked tasks
/// where this MASC does not serve the task list route.
fn task_ids(model: &Model, ui: &WorkUi) -> Vec<String> {
    let query = ui.tasks.search.as_ref().map(|s| s.query.as_str());
    match model.work.task_list() {
        TaskListShown::Served(slot) => match slot.fetched.last() {
            Some(o) => task_order(&o.value.tasks, query)
                .into_iter()
                .map(|i| o.value.tasks[i].id.clone())
                .collect(),
            None => Vec::new(),
        },
        TaskListShown::GoalLinked { slot, .. } => match slot.fetched.last() {
            Some(o) => {
                let tasks = o.value.tasks();
                linked_task_order(tasks, query)
                    .into_iter()
                    .map(|i| tasks[i].id.clone())
                    .collect()
            }
            None => Vec::new(),
        },
    }
}

/// New selection for a list key, or `None` when the key is not a movement.
fn moved(code: KeyCode, cur: usize, len: usize, page: usize) -> Option<usize> {
    let last = len.saturating_sub(1);
    Some(match code {
        KeyCode::Char('j') | KeyCode::Down => (cur + 1).min(last),
        KeyCode::Char('k') | KeyCode::Up => cur.saturating_sub(1),
        KeyCode::Home | KeyCode::Char('g') => 0,
        KeyCode::End | KeyCode::Char('G') => last,
        KeyCode::PageDown => (cur + page).min(last),
        KeyCode::PageUp => cur.saturating_sub(page),
        _ => return None,
    })
}

/// `r` on the Work surface.
pub fn refresh(work: &mut WorkUi, area: Rect) -> UiCommand {
    match work.pane {
        WorkPane::Goals if work.goals.open.is_some() => UiCommand::send(WorkCommand::RefreshGoal),
        WorkPane::Goals => UiCommand::Refresh(crate::actors::work::PLANNING),
        WorkPane::Tasks if work.tasks.open.is_some() => {
            // A fresh prefix is read from its newest row.
            work.tasks.history_scroll = 0;
            UiCommand::send(WorkCommand::RefreshTask {
                page_rows: page_rows_for(area),
            })
        }
        WorkPane::Tasks => UiCommand::Refresh(crate::actors::work::TASK_LIST),
    }
}

/// Typed keys while the task search field is active.
pub fn typing(work: &mut WorkUi, key: KeyEvent) -> UiCommand {
    let tasks = &mut work.tasks;
    let Some(search) = tasks.search.as_mut() else {
        return UiCommand::None;
    };
    match key.code {
        KeyCode::Esc => tasks.search = None,
        KeyCode::Enter => search.typing = false,
        KeyCode::Backspace => {
            search.query.pop();
        }
        // T.7: only printable scalars enter the field.
        KeyCode::Char(c) if !c.is_control() && !('\u{80}'..='\u{9f}').contains(&c) => {
            search.query.push(c);
        }
        _ => return UiCommand::None,
    }
    tasks.selected = 0;
    tasks.offset = 0;
    UiCommand::Repaint
}

/// The goal detail's action keys (§15.4): `c` request completion, `x` drop, `o` reopen. Each
/// is armed by the save path (previewed with the goal's phase now, sent on the same key
/// again); the client never pre-guesses the server's transition matrix.
fn goal_action(code: KeyCode) -> Option<GoalAction> {
    match code {
        KeyCode::Char('c') => Some(GoalAction::RequestComplete),
        KeyCode::Char('x') => Some(GoalAction::Drop),
        KeyCode::Char('o') => Some(GoalAction::Reopen),
        _ => None,
    }
}

/// Every other key on the Work surface.
pub fn handle(work: &mut WorkUi, area: Rect, model: &Model, key: KeyEvent) -> UiCommand {
    let page = (detail_layout_for(area).history.height as usize).max(1);
    let list_page = (crate::view::screens::body_area(area).height as usize)
        .saturating_sub(4)
        .max(1);
    let shift = key.modifiers.contains(KeyModifiers::SHIFT);
    match work.pane {
        WorkPane::Goals if work.goals.open.is_some() => match key.code {
            KeyCode::Esc | KeyCode::Left => {
                work.goals.open = None;
                UiCommand::send(WorkCommand::CloseGoal)
            }
            code => goal_action(code).zip(work.goals.open.clone()).map_or(
                UiCommand::None,
                |(action, goal_id)| {
                    UiCommand::save::<GoalTransition>(TransitionIntent {
                        goal_id,
                        action,
                        note: None,
                    })
                },
            ),
        },
        WorkPane::Goals => {
            let ids = goal_ids(model, work);
            match key.code {
                KeyCode::Char('t') => {
                    work.pane = WorkPane::Tasks;
                    UiCommand::Repaint
                }
                KeyCode::Char('f') => {
                    work.goals.filter = work.goals.filter.next();
                    work.goals.selected = 0;
                    work.goals.offset = 0;
                    UiCommand::Repaint
                }
                KeyCode::Char('s') => {
                    work.goals.sort = work.goals.sort.next();
                    UiCommand::Repaint
                }
                KeyCode::Enter | KeyCode::Right => match ids.get(work.goals.selected) {
                    Some(id) => {
                        work.goals.open = Some(id.clone());
                        UiCommand::send(WorkCommand::OpenGoal {
                            goal_id: id.clone(),
                        })
                    }
                    None => UiCommand::None,
                },
                code => match moved(code, work.goals.selected, ids.len(), list_page) {
                    Some(n) if n != work.goals.selected => {
                        work.goals.selected = n;
                        UiCommand::Repaint
                    }
                    _ => UiCommand::None,
                },
            }
        }
        WorkPane::Tasks if work.tasks.open.is_some() => {
            let width = layout_width_for(area);
            let task = model.work.task.as_ref();
            let count = |history: bool| {
                task.and_then(|t| {
                    // The legacy recent events are one row each, not prepared.
                    if let (true, Some(n)) = (history, super::detail::legacy_len(t)) {
                        return Some((n, false));
                    }
                    if history {
                        model.work.layouts.history(t, width)
                    } else {
                        model.work.layouts.body(t, width)
                    }
                    .map(|s| (s.lines.len(), s.provisional))
                })
            };
            // Where the page route is not served there are no older pages to read.
            let pages_not_served = task.is_some_and(|t| t.pages_absent().is_some());
            let scroll = |saved: &mut usize, delta: isize, history: bool, h: usize| {
                let next = if delta < 0 {
                    saved.saturating_sub(delta.unsigned_abs())
                } else {
                    saved.saturating_add(delta.unsigned_abs())
                };
                // Only a current (non-provisional) count clamps the saved scroll (A-14).
                let next = match count(history) {
                    Some((n, false)) => next.min(n.saturating_sub(h)),
                    _ => next,
                };
                if next == *saved {
                    UiCommand::None
                } else {
                    *saved = next;
                    UiCommand::Repaint
                }
            };
            let body_h = (detail_layout_for(area).body.height as usize)
                .saturating_sub(1)
                .max(1);
            let tasks = &mut work.tasks;
            // A count before `H` (`12H`): any other key forgets it.
            let page_count = match key.code {
                KeyCode::Char(d @ '0'..='9') => {
                    let digit = d.to_digit(10).unwrap_or(0);
                    let typed = tasks.count.unwrap_or(0).saturating_mul(10) + digit;
                    tasks.count = Some(typed.min(MAX_PAGE_COUNT));
                    return UiCommand::Repaint;
                }
                _ => tasks.count.take(),
            };
            match key.code {
                KeyCode::Esc | KeyCode::Left => {
                    tasks.open = None;
                    UiCommand::send(WorkCommand::CloseTask)
                }
                KeyCode::Char('H') if pages_not_served => UiCommand::None,
                KeyCode::Char('H') => match page_count.filter(|n| *n > 1) {
                    Some(n) => UiCommand::send(WorkCommand::ReadOlder {
                        page_rows: page_rows_for(area),
                        pages: OlderPages::Count(n),
                    }),
                    None => UiCommand::send(WorkCommand::OlderHistory {
                        page_rows: page_rows_for(area),
                    }),
                },
                KeyCode::Char('J') => scroll(&mut tasks.body_scroll, 1, false, body_h),
                KeyCode::Char('K') => scroll(&mut tasks.body_scroll, -1, false, body_h),
                KeyCode::Char('j') | KeyCode::Down if !shift => {
                    scroll(&mut tasks.history_scroll, 1, true, page)
                }
                KeyCode::Char('k') | KeyCode::Up if !shift => {
                    scroll(&mut tasks.history_scroll, -1, true, page)
                }
                KeyCode::PageDown => scroll(&mut tasks.history_scroll, page as isize, true, page),
                KeyCode::PageUp => scroll(&mut tasks.history_scroll, -(page as isize), true, page),
                KeyCode::Home => {
                    let changed = tasks.history_scroll != 0;
                    tasks.history_scroll = 0;
                    if changed {
                        UiCommand::Repaint
                    } else {
                        UiCommand::None
                    }
                }
                // The history lists newest first: its end is the oldest. `End` shows the end
                // of what is read and reads every page between it and the oldest stored, with
                // progress; `End` again shows them. Refused while the count is provisional
                // (A-14).
                KeyCode::End => match count(true) {
                    Some((n, false)) => {
                        tasks.history_scroll = n.saturating_sub(page);
                        let older_left = task.is_some_and(|t| {
                            t.history
                                .fetched
                                .last()
                                .is_some_and(|o| matches!(o.value.next, ChainNext::Older { .. }))
                        });
                        if older_left && !pages_not_served {
                            UiCommand::send(WorkCommand::ReadOlder {
                                page_rows: page_rows_for(area),
                                pages: OlderPages::ToOldest,
                            })
                        } else {
                            UiCommand::Repaint
                        }
                    }
                    _ => UiCommand::None,
                },
                _ => UiCommand::None,
            }
        }
        WorkPane::Tasks => {
            let ids = task_ids(model, work);
            match key.code {
                KeyCode::Char('t') => {
                    work.pane = WorkPane::Goals;
                    UiCommand::Repaint
                }
                KeyCode::Char('/') => {
                    work.tasks.search = Some(Search {
                        query: String::new(),
                        typing: true,
                    });
                    UiCommand::Repaint
                }
                KeyCode::Esc if work.tasks.search.is_some() => {
                    work.tasks.search = None;
                    UiCommand::Repaint
                }
                KeyCode::Enter | KeyCode::Right => match ids.get(work.tasks.selected) {
                    Some(id) => {
                        work.tasks.open = Some(id.clone());
                        work.tasks.history_scroll = 0;
                        work.tasks.body_scroll = 0;
                        UiCommand::send(WorkCommand::OpenTask {
                            task_id: id.clone(),
                            page_rows: page_rows_for(area),
                        })
                    }
                    None => UiCommand::None,
                },
                code => match moved(code, work.tasks.selected, ids.len(), list_page) {
                    Some(n) if n != work.tasks.selected => {
                        work.tasks.selected = n;
                        work.tasks.offset =
                            effective_offset(n, work.tasks.offset, list_page, ids.len());
                        UiCommand::Repaint
                    }
                    _ => UiCommand::None,
                },
            }
        }
    }
}
