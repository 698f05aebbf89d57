#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! Issue 27 item 1: the help and the footer are made from the binding tables, and the tables
//! are the dispatch's truth. For every surface state and layer: each listed press does
//! something (a command, or a change of the UI), and each press of a probe set that does
//! something is listed (in the state's tables, the ring's or everywhere's). The help wraps at
//! 80×24 and 160×50 with no cut word, scrolls, and searches with `/`.

use crate::rig::{ScreensOf, admit_roster, deliver, screen_text};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use masc_tui::actors::board::{BoardObservation, BoardQuery, BoardSlot};
use masc_tui::view::bindings::{ALWAYS, Press, RING, Table};
use masc_tui::view::keys::{UiCommand, handle_key};
use masc_tui::view::model::Model;
use masc_tui::view::sample;
use masc_tui::view::screens::help::{HelpLayer, help_lines};
use masc_tui::view::screens::widgets::Ring;
use masc_tui::view::screens::{Tab, Ui};
use ratatui::layout::Rect;

fn ui_at(tab: Tab, width: u16, height: u16) -> Ui {
    Ui {
        tab,
        area: Rect::new(0, 0, width, height),
        ..Ui::default()
    }
}

fn roster_model() -> Model {
    let mut m = super::view_board::connected();
    admit_roster(&mut m, (0..5).map(sample_row).collect());
    m
}

fn sample_row(i: usize) -> masc_tui::protocol::keepers::KeeperRowSlot {
    masc_tui::protocol::keepers::KeeperRowSlot::Row(Box::new(sample::keeper_row(i)))
}

fn board_model() -> Model {
    let mut m = roster_model();
    deliver(
        &mut m,
        super::view_board::ticket(BoardSlot::Posts, 1),
        super::view_board::posts_read(
            BoardQuery::default(),
            vec![
                super::view_board::post("post-1", "a"),
                super::view_board::post("post-2", "b"),
                super::view_board::post("post-3", "c"),
            ],
        ),
    );
    deliver(
        &mut m,
        super::view_board::ticket(BoardSlot::Census, 1),
        BoardObservation::Census(Ok(super::view_board::admitted(super::view_board::census(
            &[("ops", 5), ("verification", 10)],
        )))),
    );
    m
}

/// Makes the model and UI of one state.
type Setup<'a> = dyn Fn() -> (Model, Ui) + 'a;

/// The probe set: printable ASCII, the named keys, Ctrl with a letter.
fn probes() -> Vec<Press> {
    let mut out: Vec<Press> = (b'!'..=b'~').map(|c| Press::ch(c as char)).collect();
    out.push(Press::ch(' '));
    for code in [
        KeyCode::Enter,
        KeyCode::Esc,
        KeyCode::Tab,
        KeyCode::BackTab,
        KeyCode::Backspace,
        KeyCode::Delete,
        KeyCode::Insert,
        KeyCode::Up,
        KeyCode::Down,
        KeyCode::Left,
        KeyCode::Right,
        KeyCode::Home,
        KeyCode::End,
        KeyCode::PageUp,
        KeyCode::PageDown,
        KeyCode::F(1),
        KeyCode::F(5),
    ] {
        out.push(Press::key(code));
    }
    out.extend((b'a'..=b'z').map(|c| Press::ctrl(c as char)));
    out
}

/// Whether `press` does something on the state `setup` makes: a command, or the UI changed.
fn does_something(setup: &Setup<'_>, press: Press) -> bool {
    let (model, mut ui) = setup();
    let before = format!("{ui:?}");
    let cmd = handle_key(&mut ui, &model, press.event());
    cmd != UiCommand::None || format!("{ui:?}") != before
}

/// One state's check: every listed press works, every working probe is listed.
fn check(name: &str, setup: &Setup<'_>, tables: &[&Table], ring: bool) {
    let mut listed: Vec<&Table> = tables.to_vec();
    if ring {
        listed.push(&RING);
    }
    listed.push(&ALWAYS);
    for table in &listed {
        for binding in table.bindings {
            for press in binding.presses {
                assert!(
                    does_something(setup, *press),
                    "{name}: `{}` ({press:?}) is listed but does nothing",
                    binding.keys
                );
            }
        }
    }
    for press in probes() {
        let event = press.event();
        let is_listed = listed.iter().any(|t| t.binds(&event));
        if !is_listed {
            assert!(
                !does_something(setup, press),
                "{name}: {press:?} does something but is not listed"
            );
        }
    }
}

/// The state's tables as the surface reports them (what `?` and the footer show).
fn tables_of(setup: &Setup<'_>) -> Vec<&'static Table> {
    let (_, ui) = setup();
    ui.screens.of(ui.tab).bindings()
}

fn open_key(ui: &mut Ui, model: &Model, code: KeyCode) {
    handle_key(ui, model, KeyEvent::new(code, KeyModifiers::NONE));
}

#[test]
fn issue27_every_binding_of_every_surface_works_and_every_working_key_is_listed() {
    // The selection mid-list, so moving either way does something, and a search kept (its
    // `n`/`N` and `Esc` work then).
    let keepers = || {
        let m = roster_model();
        let mut ui = ui_at(Tab::Keepers, 120, 40);
        open_key(&mut ui, &m, KeyCode::Char('/'));
        for c in "keeper".chars() {
            open_key(&mut ui, &m, KeyCode::Char(c));
        }
        open_key(&mut ui, &m, KeyCode::Enter);
        open_key(&mut ui, &m, KeyCode::Down);
        open_key(&mut ui, &m, KeyCode::Down);
        (m, ui)
    };
    let detail = || {
        let (m, mut ui) = keepers();
        open_key(&mut ui, &m, KeyCode::Enter);
        assert!(ui.keepers().roster.detail_open);
        (m, ui)
    };
    let logs = || {
        let (m, mut ui) = detail();
        open_key(&mut ui, &m, KeyCode::Char('o'));
        (m, ui)
    };
    let overview = || (roster_model(), ui_at(Tab::Overview, 120, 40));
    let board = || {
        let m = board_model();
        let mut ui = ui_at(Tab::Board, 120, 40);
        open_key(&mut ui, &m, KeyCode::Down);
        (m, ui)
    };
    let post = || {
        let (m, mut ui) = board();
        open_key(&mut ui, &m, KeyCode::Enter);
        (m, ui)
    };
    let goals = || {
        let m = super::work_screens::planning_model();
        let mut ui = ui_at(Tab::Work, 120, 40);
        open_key(&mut ui, &m, KeyCode::Down);
        (m, ui)
    };
    let goal = || {
        let (m, mut ui) = goals();
        open_key(&mut ui, &m, KeyCode::Enter);
        (m, ui)
    };
    let journal = || {
        let m = roster_model();
        let mut ui = ui_at(Tab::Keepers, 120, 40);
        open_key(&mut ui, &m, KeyCode::Char('L'));
        (m, ui)
    };
    let states: Vec<(&str, Box<Setup<'_>>)> = vec![
        ("Keepers roster", Box::new(keepers)),
        ("Keeper detail", Box::new(detail)),
        ("Keeper logs", Box::new(logs)),
        ("Overview", Box::new(overview)),
        ("Board", Box::new(board)),
        ("Board post", Box::new(post)),
        ("Work goals", Box::new(goals)),
        ("Work goal", Box::new(goal)),
        ("Saves journal", Box::new(journal)),
    ];
    for (name, setup) in &states {
        let (_, ui) = setup();
        match masc_tui::view::screens::layer::top_down(&ui, |l| l.help()) {
            Some(help) => check(name, setup.as_ref(), &[help.table], help.ring),
            None => check(name, setup.as_ref(), &tables_of(setup.as_ref()), true),
        }
    }
    // Keepers: `c`/`m` (the chat) are listed and on the footer.
    let (m, ui) = keepers();
    let text = screen_text(&m, &ui);
    let footer = text.lines().last().unwrap();
    assert!(footer.contains("c/m chat"), "{footer}");
    assert!(
        footer.ends_with("? more") || footer.trim_end().ends_with("? more"),
        "{footer}"
    );
}

#[test]
fn issue27_the_help_layer_lists_its_own_keys_and_they_work() {
    let help = || {
        let m = roster_model();
        let mut ui = ui_at(Tab::Keepers, 80, 24);
        open_key(&mut ui, &m, KeyCode::Char('?'));
        assert!(ui.layer::<HelpLayer>().is_some());
        (m, ui)
    };
    // The help takes every key: only its own are listed (plus Ctrl-C / Ctrl-Z).
    let listed = [&masc_tui::view::screens::help::HELP];
    for binding in listed.iter().flat_map(|t| t.bindings) {
        for press in binding.presses {
            assert!(
                does_something(&help, *press),
                "help: `{}` does nothing",
                binding.keys
            );
        }
    }
    for press in probes() {
        let event = press.event();
        if listed.iter().any(|t| t.binds(&event)) || ALWAYS.binds(&event) {
            continue;
        }
        assert!(
            !does_something(&help, press),
            "help: {press:?} does something but is not listed"
        );
    }
}

/// The help of each surface at 80×24 and 160×50: every line within the box, every word of every
/// binding whole somewhere in it, and every line reachable by scrolling.
#[test]
fn issue27_help_wraps_whole_words_and_scrolls_at_80x24_and_160x50() {
    for (width, height) in [(80u16, 24u16), (160, 50)] {
        for &tab in <Tab as Ring>::RING {
            let m = roster_model();
            let mut ui = ui_at(tab, width, height);
            open_key(&mut ui, &m, KeyCode::Char('?'));
            let help = ui.layer::<HelpLayer>().unwrap().clone();
            let inner = usize::from(width.saturating_sub(2).min(110)) - 2;
            let lines = help_lines(&help.sections, inner);
            let words: Vec<String> = lines
                .iter()
                .flat_map(|l| {
                    l.text()
                        .split_whitespace()
                        .map(str::to_string)
                        .collect::<Vec<_>>()
                })
                .collect();
            for (keys, does) in help.sections.iter().flat_map(|s| s.rows.iter()) {
                for word in keys.split_whitespace().chain(does.split_whitespace()) {
                    assert!(
                        words.iter().any(|w| w == word),
                        "{tab:?} at {width}x{height}: `{word}` cut"
                    );
                }
            }
            // Scroll to the end: the last row's text is on screen.
            let mut seen = String::new();
            for _ in 0..lines.len() {
                seen.push_str(&screen_text(&m, &ui));
                open_key(&mut ui, &m, KeyCode::PageDown);
            }
            let last = help.sections.last().unwrap().rows.last().unwrap();
            assert!(
                seen.contains(last.1.as_str()),
                "{tab:?} at {width}x{height}: the last line never shows"
            );
        }
    }
}

#[test]
fn issue27_help_search_jumps_to_a_match_and_esc_clears_it_first() {
    let m = roster_model();
    let mut ui = ui_at(Tab::Keepers, 80, 24);
    open_key(&mut ui, &m, KeyCode::Char('?'));
    open_key(&mut ui, &m, KeyCode::Char('/'));
    for c in "suspend".chars() {
        open_key(&mut ui, &m, KeyCode::Char(c));
    }
    open_key(&mut ui, &m, KeyCode::Enter);
    let text = screen_text(&m, &ui);
    assert!(text.contains("suspend (fg resumes)"), "{text}");
    assert!(text.contains("1 found"), "{text}");
    open_key(&mut ui, &m, KeyCode::Esc);
    let help = ui.layer::<HelpLayer>().unwrap();
    assert!(help.search.is_none(), "the first Esc clears the search");
    open_key(&mut ui, &m, KeyCode::Esc);
    assert!(ui.layer::<HelpLayer>().is_none(), "the second closes");
}

/// Issue 27 item 3: the roster's kept search is the Keepers footer's; another surface's footer
/// does not show it.
#[test]
fn issue27_a_keepers_search_does_not_show_in_the_work_footer() {
    let m = roster_model();
    let mut ui = ui_at(Tab::Keepers, 120, 40);
    open_key(&mut ui, &m, KeyCode::Char('/'));
    for c in "keeper".chars() {
        open_key(&mut ui, &m, KeyCode::Char(c));
    }
    open_key(&mut ui, &m, KeyCode::Enter);
    let footer = |ui: &Ui| screen_text(&m, ui).lines().last().unwrap().to_string();
    assert!(footer(&ui).contains("/keeper (n/N)"), "{}", footer(&ui));
    ui.tab = Tab::Work;
    assert!(!footer(&ui).contains("/keeper"), "{}", footer(&ui));
    ui.tab = Tab::Keepers;
    assert!(
        footer(&ui).contains("/keeper (n/N)"),
        "kept for its surface"
    );
}
