//! Issue 27 "done when": the help of every surface read as an operator reads it, at 80×24 and
//! 160×50 — every word whole in the box, every page reached by scrolling — and the mouse: a
//! click selects a tab, the wheel moves the roster, capture is on only without `--no-mouse`
//! and off again at exit.

use crate::pty_support::{DemoOptions, MOUSE_ON, PtySession, assert_terminal_restored, rfind};
use masc_tui::view::screens::help::HelpLayer;
use masc_tui::view::screens::{Tab, Ui};

/// Every word of the help of `tab` (as `?` builds it on a fresh session).
fn help_words(tab: Tab) -> Vec<String> {
    let ui = Ui {
        tab,
        ..Ui::default()
    };
    let help = HelpLayer::surface(&ui.screens.of(tab).bindings());
    help.sections
        .iter()
        .flat_map(|s| {
            std::iter::once(s.title.clone())
                .chain(s.rows.iter().flat_map(|(k, d)| [k.clone(), d.clone()]))
        })
        .flat_map(|t| t.split_whitespace().map(str::to_string).collect::<Vec<_>>())
        .collect()
}

/// The help box's top and bottom border rows, once both are painted.
fn box_rows(screen: &vt100::Screen) -> Option<(u16, u16)> {
    let cols = screen.size().1.get();
    let width = cols.saturating_sub(2).min(110);
    let left = (cols - width) / 2 + 1;
    let corner = |r: u16, c: &str| {
        screen
            .cell(r, left - 1)
            .is_some_and(|cell| cell.contents() == c)
    };
    let rows = screen.size().0.get();
    let top = (0..rows).find(|&r| corner(r, "┌"))?;
    let bottom = (top..rows).find(|&r| corner(r, "└"))?;
    Some((top, bottom))
}

/// The words inside the help box on screen: the box is centred, `min(cols - 2, 110)` wide.
fn box_words(screen: &vt100::Screen) -> Vec<String> {
    let cols = screen.size().1.get();
    let width = cols.saturating_sub(2).min(110);
    let left = (cols - width) / 2 + 1;
    let (top, bottom) = box_rows(screen).unwrap_or((0, 0));
    screen
        .rows(left, width.saturating_sub(2))
        .enumerate()
        .filter(|(r, _)| u16::try_from(*r).is_ok_and(|r| r > top && r < bottom))
        .flat_map(|(_, row)| {
            row.split_whitespace()
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn pty_issue27_help_of_every_surface_at_80x24_and_160x50_has_no_cut_word() {
    let mut session = PtySession::demo(DemoOptions::default());
    session.wait_for_roster();
    for (cols, rows) in [(80u16, 24u16), (160, 50)] {
        session.resize(cols, rows);
        session.wait_for("the frame at the new size", |s| {
            let text = s.parser.screen().contents();
            text.contains("[Keepers]") && text.contains("? more")
        });
        // The ring from Keepers: Keepers, Board, System, Overview, Work.
        for tab in [
            Tab::Keepers,
            Tab::Board,
            Tab::System,
            Tab::Overview,
            Tab::Work,
        ] {
            let title = format!("[{}]", tab.title());
            session.wait_for("the surface", |s| {
                s.parser.screen().contents().contains(&title)
            });
            let known = help_words(tab);
            session.send(b"?");
            session.wait_for("the help", |s| {
                s.parser.screen().contents().contains(" help")
            });
            let mut pages = 0;
            loop {
                // Read in one look, once the whole box is painted.
                let (mut screen, mut words) = (String::new(), Vec::new());
                session.wait_for("the whole help box", |s| {
                    let now = s.parser.screen();
                    if box_rows(now).is_none() {
                        return false;
                    }
                    screen = now.contents();
                    words = box_words(now);
                    true
                });
                assert!(
                    words.len() > 5,
                    "{tab:?} at {cols}x{rows}: the help box not found\n{screen}"
                );
                for word in words {
                    assert!(
                        known.contains(&word),
                        "{tab:?} at {cols}x{rows}: `{word}` is not a whole word of the help\n{screen}"
                    );
                }
                let title_row = screen.lines().find(|l| l.contains("┌ help")).unwrap_or("");
                // " help 1–20 of 31 · …": the last page reached when its end is the total.
                let Some((range, rest)) = title_row
                    .split_once(" help ")
                    .and_then(|(_, r)| r.split_once(" of "))
                else {
                    break;
                };
                let total: String = rest.chars().take_while(char::is_ascii_digit).collect();
                let shown_end = range.rsplit('–').next().unwrap_or("");
                if shown_end == total || pages > 10 {
                    break;
                }
                pages += 1;
                let before = title_row.to_string();
                session.send(b"\x1b[6~");
                session.wait_for("the next page", |s| {
                    !s.parser.screen().contents().contains(&before)
                        && box_rows(s.parser.screen()).is_some()
                });
            }
            session.send(b"\x1b");
            session.wait_for("the help closed", |s| {
                !s.parser.screen().contents().contains("Esc closes")
            });
            session.send(b"\t");
        }
    }
    session.send(b"qq");
    let status = session.wait_exit();
    assert!(status.success(), "exit status {status:?}");
    assert_terminal_restored(&session.seen());
}

#[test]
fn pty_issue27_a_click_selects_a_tab_and_the_wheel_moves_the_roster() {
    let mut session = PtySession::demo(DemoOptions::default());
    session.wait_for_roster();
    assert!(
        rfind(&session.seen().bytes, MOUSE_ON).is_some(),
        "capture on"
    );
    // SGR mouse: a left press on "Board" of the tab ring (row 1, 1-based columns).
    let board = (0..200u16)
        .find(|&x| masc_tui::view::screens::header::tab_at(x) == Some(Tab::Board))
        .unwrap();
    session.send(format!("\x1b[<0;{};1M", board + 2).as_bytes());
    session.wait_for("the Board after a click", |s| {
        s.parser.screen().contents().contains("[Board]")
    });
    session.send(b"\x1b[Z");
    session.wait_for("back on Keepers", |s| {
        s.parser.screen().contents().contains("[Keepers]")
    });
    // The wheel down (button 65) three rows: the selection leaves the first row.
    let first_row = |s: &crate::pty_support::Seen| {
        let screen = s.parser.screen();
        (0..screen.size().0.get()).find(|&r| screen.cell(r, 2).is_some_and(|c| c.inverse()))
    };
    let before = first_row(&session.seen());
    session.send(b"\x1b[<65;20;8M");
    session.wait_for("the selection moved by the wheel", |s| {
        first_row(s) != before
    });
    session.send(b"qq");
    let status = session.wait_exit();
    assert!(status.success(), "exit status {status:?}");
    assert_terminal_restored(&session.seen());
}

#[test]
fn pty_issue27_no_mouse_leaves_the_mouse_to_the_terminal() {
    let mut session = PtySession::demo(DemoOptions {
        extra_args: vec!["--no-mouse"],
        ..DemoOptions::default()
    });
    session.wait_for_roster();
    assert!(
        rfind(&session.seen().bytes, MOUSE_ON).is_none(),
        "no capture"
    );
    session.send(b"qq");
    let status = session.wait_exit();
    assert!(status.success(), "exit status {status:?}");
    assert_terminal_restored(&session.seen());
}
