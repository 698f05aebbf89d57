//! C-65 in a real terminal: a refused send's text comes back into the composer once; the
//! operator clears it (`Ctrl-U`), goes back to the roster and reopens the chat — the composer
//! stays empty, and stays empty after a later send and another reopen (seed 001: no automatic
//! resend, drafts are what the operator left); the refusal's error row is rebuilt on the
//! reopen and `/find 409` finds it (C-8, C-35).

#![allow(clippy::expect_used, clippy::panic)]

use crate::pty_support::*;
use std::time::Duration;

const MESSAGE: &str = "refused once 4471";
const LATER: &str = "a later message 4472";
const CTRL_U: &[u8] = b"\x15";

/// The row the terminal cursor is on (the composer's, while the chat has focus).
fn composer_row(s: &Seen) -> String {
    let screen = s.parser.screen();
    row_text(screen, screen.cursor_position().0)
}

fn back_to_roster_and_reopen(session: &mut PtySession) {
    session.wait_for_text("Esc:back");
    // Esc within a second of a turn's end stays in the chat.
    std::thread::sleep(Duration::from_millis(1100));
    session.send(b"\x1b");
    session.wait_for_roster();
    session.open_rondo_chat();
    // The outbox restore and the history land after the title: give them their frames.
    std::thread::sleep(Duration::from_millis(1500));
}

#[test]
fn pty_c65_a_cleared_refused_draft_stays_cleared_after_a_reopen() {
    let plan = r#"{"rules":[{"match":{"method":"POST","path":"/api/v1/keepers/chat/stream"},"when":{"nth":1},"fault":{"status":409,"body":{"error":"turn busy"}}}]}"#.to_string();
    let mut session = PtySession::demo(DemoOptions {
        faults: Some(plan),
        ..DemoOptions::default()
    });
    session.wait_for_roster();
    session.open_rondo_chat();
    session.send(MESSAGE.as_bytes());
    session.send(b"\r");
    session.wait_for("the refusal row and the text back in the composer", |s| {
        s.parser.screen().contents().contains("HTTP 409") && composer_row(s).contains(MESSAGE)
    });
    session.send(CTRL_U);
    session.wait_for("the composer cleared", |s| {
        !composer_row(s).contains(MESSAGE)
    });

    back_to_roster_and_reopen(&mut session);
    let row = composer_row(&session.seen());
    assert!(
        !row.contains(MESSAGE),
        "the cleared draft came back: {row:?}"
    );
    // C-8, C-35: the refusal's error row (its 409 and the server's reason) is rebuilt on the
    // reopen, and `/find 409` finds it.
    session.wait_for("the refusal row after the reopen", |s| {
        let contents = s.parser.screen().contents();
        contents.contains("HTTP 409") && contents.contains("turn busy")
    });
    session.send(b"/find 409\r");
    session.wait_for("/find 409 finding the refusal row", |s| {
        let contents = s.parser.screen().contents();
        contents.contains("find \"409\" 1/1") || contents.contains("find \"409\" 1 (")
    });
    session.send(b"\x1b");
    session.wait_for("the find closed", |s| {
        !s.parser.screen().contents().contains("find \"409\"")
    });

    // A later send goes through; the refused text is not appended to it, nor restored after.
    session.send(LATER.as_bytes());
    session.send(b"\r");
    session.wait_for("the reply quoting the later message only", |s| {
        let contents = s.parser.screen().contents();
        contents.contains(&format!("│ {LATER}")) && !contents.contains(&format!("{MESSAGE}{LATER}"))
    });
    back_to_roster_and_reopen(&mut session);
    let row = composer_row(&session.seen());
    assert!(
        !row.contains(MESSAGE) && !row.contains(LATER),
        "the composer holds only what the operator left: {row:?}"
    );
    session.wait_for_text("Esc:back");
    session.send(b"\x1b");
    session.wait_for_roster();
    session.quit_q_q();
}
