//! Keeper operations end to end (pause then wake a demo Keeper and see the roster
//! follow): `masc-tui demo` in a pseudo-terminal, the keys sent as an operator
//! types them, the receipt line and the re-read roster read off the emulated screen.

#![allow(clippy::expect_used, clippy::panic)]

use crate::pty_support::*;

/// The roster row of `name` shows `word` (its LIFECYCLE / RUNTIME column).
fn row_shows(session: &PtySession, name: &str, word: &str) {
    session.wait_for(&format!("{name} shows {word}"), |s| {
        let screen = s.parser.screen();
        row_of(screen, name).is_some_and(|row| row_text(screen, row).contains(word))
    });
}

/// The demo with rondo running, then paused with `p` `p` (armed: the first press
/// previews what changes and sends nothing): the receipt line says the pause was sent and the
/// roster, re-read after the receipt, shows rondo paused.
fn demo_with_rondo_paused() -> PtySession {
    let mut session = PtySession::demo(DemoOptions::default());
    session.wait_for_roster();
    row_shows(&session, "rondo", "running");
    session.send(b"p");
    session.wait_for_text("p again to pause rondo");
    session.wait_for_text("paused: no → yes");
    assert_eq!(
        session.trace_count("worker_return", "save:keeper_lifecycle"),
        0,
        "nothing sent on the first press"
    );
    session.send(b"p");
    session.wait_for_text("rondo: pause: sent");
    // The pause sent offers to unbind rondo's bindings too, as its own confirmation naming
    // them; any key but `y` leaves them.
    session.wait_for_text("y to also unbind rondo's 5 connector binding(s)");
    session.send(b"n");
    session.wait_for_text("cancelled: also unbind rondo's 5 connector binding(s) — nothing sent");
    row_shows(&session, "rondo", "paused");
    session
}

/// §14.1, N-3: `p` pauses the selected demo Keeper — the receipt line says so and the roster,
/// re-read after the receipt, shows it paused; `w` then wakes it (a signal: the line says
/// sent); `s` `s` shuts down another Keeper and the roster shows it stopped.
#[test]
fn pty_pause_then_wake_a_demo_keeper_and_the_roster_follows() {
    let mut session = demo_with_rondo_paused();
    session.send(b"w");
    session.wait_for_text("w again to wake rondo");
    session.send(b"w");
    session.wait_for_text("rondo: wake: sent");

    session.send(b"j");
    session.send(b"s");
    session.wait_for_text("s again to shutdown sangsu");
    session.send(b"s");
    session.wait_for_text("sangsu: shutdown: shut down");
    session.wait_for_text("y to also unbind sangsu's 4 connector binding(s)");
    session.send(b"n");
    session.wait_for_text("nothing sent");
    row_shows(&session, "sangsu", "stopped");

    session.quit_q_q();
}

/// §14.1, §14.7, N-3 (surfaces.md Keepers row `p`): `p` on a Keeper the roster shows paused
/// resumes it — the receipt line says resumed and the re-read roster shows it running again.
#[test]
fn pty_s14_1_p_resumes_a_paused_demo_keeper_and_the_roster_follows() {
    let mut session = demo_with_rondo_paused();
    session.send(b"p");
    session.wait_for_text("p again to resume rondo");
    session.send(b"p");
    session.wait_for_text("rondo: resume: resumed");
    row_shows(&session, "rondo", "running");

    session.quit_q_q();
}
