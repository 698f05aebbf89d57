//! `/interrupt` and Esc end to end in a real pseudo-terminal (protocol.md §14.13;
//! chat-screen.md C-36, C-44, C-63): `masc-tui demo`, rondo's chat, a message asking for the
//! demo's long reply, `/interrupt` (or Esc, which the footer offers as `Esc:interrupt`) while it
//! streams — the turn ends as interrupted (a `○` status, never the Keeper's reply and never an
//! error row), the reply's end never appears, and Esc then goes back (not within a second of the
//! turn's end).

// Helpers below assert like the tests they serve.
#![allow(clippy::expect_used, clippy::panic)]

use crate::pty_support::*;

const CHAT_TITLE: &str = "chat · rondo";
const MESSAGE: &str = "write me a long reply";
/// The last line of the demo's long reply: never reached once the turn is stopped.
const REPLY_END: &str = "That is the whole list.";

/// The demo with rondo's chat open and its long reply streaming.
fn long_reply_streaming() -> PtySession {
    let mut session = PtySession::demo(DemoOptions::default());
    session.wait_for_roster();
    session.open_rondo_chat();

    session.send(MESSAGE.as_bytes());
    session.send(b"\r");
    session.wait_for("the long reply streaming", |s| {
        let contents = s.parser.screen().contents();
        contents.contains("step 2:")
            && contents.contains("○ STREAMING")
            && contents.contains("Esc:interrupt")
    });
    session
}

/// Presses `stop` (the bytes of the keys).
fn press(session: &mut PtySession, stop: &[&[u8]]) {
    for keys in stop {
        session.send(keys);
        // Typed text is on screen before the next key (Enter runs what is typed).
        if let Ok(text) = std::str::from_utf8(keys)
            && text.chars().all(|c| !c.is_control())
        {
            session.wait_for_text(text);
        }
    }
}

/// A second after the turn's end, Esc goes back to the roster; `q q` quits.
fn back_and_quit(mut session: PtySession) {
    std::thread::sleep(std::time::Duration::from_millis(1100));
    session.send(b"\x1b");
    session.wait_for("the roster again", |s| {
        !s.parser.screen().contents().contains(CHAT_TITLE)
    });
    session.quit_q_q();
}

/// Streams the long reply, stops it with `stop` (the bytes of the keys), and checks the end.
fn interrupt_the_long_reply(stop: &[&[u8]]) {
    let mut session = long_reply_streaming();
    press(&mut session, stop);
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
    assert!(contents.contains("Esc:back"), "{contents}");

    // Within a second of the turn ending, Esc stays in the chat (an Esc meant to interrupt
    // it may arrive late); after that it goes back.
    session.send(b"\x1b");
    session.wait_for_text("the turn just ended");
    assert!(
        session
            .seen()
            .parser
            .screen()
            .contents()
            .contains(CHAT_TITLE)
    );
    back_and_quit(session);
}

#[test]
fn pty_c44_interrupt_a_long_demo_reply_and_the_turn_ends_interrupted() {
    interrupt_the_long_reply(&[b"/interrupt", b"\r"]);
}

/// C-36: Esc during the turn is the interrupt (not armed); once it ended, Esc goes back.
#[test]
fn pty_c36_esc_interrupts_a_long_demo_reply_and_the_turn_ends_interrupted() {
    interrupt_the_long_reply(&[b"\x1b"]);
}

/// C-36, C-44: with an input queued behind the streaming reply, the stop reaches the running
/// turn (never the queued request: no "another turn is current now"); the queued input runs
/// after it.
fn interrupt_with_an_input_queued(stop: &[&[u8]]) {
    const QUEUED: &str = "queued behind the reply 5521";
    let mut session = long_reply_streaming();
    session.send(QUEUED.as_bytes());
    session.send(b"\r");
    session.wait_for("the input queued behind the reply", |s| {
        let contents = s.parser.screen().contents();
        contents.contains(QUEUED) && contents.contains("처리 대기")
    });
    press(&mut session, stop);
    session.wait_for("the running turn stopped at the operator's request", |s| {
        let contents = s.parser.screen().contents();
        assert!(
            !contents.contains("another turn is current now"),
            "the stop went to the queued request:\n{contents}"
        );
        contents.contains("interrupted · the turn stopped at your request")
    });
    session.wait_for("the queued input answered after the stop", |s| {
        s.parser
            .screen()
            .contents()
            .contains(&format!("│ {QUEUED}"))
    });
    let contents = session.seen().parser.screen().contents();
    assert!(!contents.contains(REPLY_END), "{contents}");
    assert!(
        !contents.contains("another turn is current now"),
        "{contents}"
    );
    session.wait_for_text("Esc:back");
    back_and_quit(session);
}

#[test]
fn pty_c36_esc_with_an_input_queued_stops_the_running_turn() {
    interrupt_with_an_input_queued(&[b"\x1b"]);
}

#[test]
fn pty_c44_interrupt_with_an_input_queued_stops_the_running_turn() {
    interrupt_with_an_input_queued(&[b"/interrupt", b"\r"]);
}
