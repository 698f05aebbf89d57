//! `/interrupt` end to end in a real pseudo-terminal (issue 14; protocol.md §14.13;
//! chat-screen.md C-44): `masc-tui demo`, rondo's chat, a message asking for the demo's long
//! reply, `/interrupt` while it streams — the turn ends as interrupted (a `○` status, never
//! the Keeper's reply and never an error row), and the reply's end never appears.

// Helpers below assert like the tests they serve.
#![allow(clippy::expect_used, clippy::panic)]

use crate::pty_support::*;

const CHAT_TITLE: &str = "chat · rondo";
const MESSAGE: &str = "write me a long reply";
/// The last line of the demo's long reply: never reached once the turn is stopped.
const REPLY_END: &str = "That is the whole list.";

#[test]
fn pty_c44_interrupt_a_long_demo_reply_and_the_turn_ends_interrupted() {
    let mut session = PtySession::demo(DemoOptions::default());
    session.wait_for_roster();
    session.open_rondo_chat();

    session.send(MESSAGE.as_bytes());
    session.send(b"\r");
    session.wait_for("the long reply streaming", |s| {
        let contents = s.parser.screen().contents();
        contents.contains("step 2:") && contents.contains("○ streaming")
    });

    session.send(b"/interrupt");
    session.wait_for_text("/interrupt");
    session.send(b"\r");
    session.wait_for("the turn ended as interrupted", |s| {
        let contents = s.parser.screen().contents();
        contents.contains("interrupted · the turn was stopped before its reply")
            && contents.contains("interrupted · the turn stopped at your request")
    });
    let contents = session.seen().parser.screen().contents();
    assert!(!contents.contains(REPLY_END), "{contents}");
    assert!(!contents.contains("○ interrupt requested"), "{contents}");
    assert!(
        !contents.contains("✗ "),
        "an interrupt is not an error:\n{contents}"
    );

    session.send(b"\x1b");
    session.wait_for("the roster again", |s| {
        !s.parser.screen().contents().contains(CHAT_TITLE)
    });
    session.send(b"q");
    session.wait_for_text("press q again to quit");
    session.send(b"q");
    let status = session.wait_exit();
    assert!(status.success(), "exit status {status:?}");
    assert_terminal_restored(&session.seen());
}
