//! Held tool calls end to end in a real pseudo-terminal (protocol.md §14.5;
//! chat-screen.md C-44, C-53): `masc-tui demo`, rondo's chat shows the demo's held `bash` call
//! as a gate row; `/approve` previews it on the footer, `/approve` again answers it through the
//! save, and the row reads `승인됨 · 적용 예정 · bash`; the next held call still waits.

// Helpers below assert like the tests they serve.
#![allow(clippy::expect_used, clippy::panic)]

use crate::pty_support::*;

#[test]
fn pty_c53_approve_a_held_demo_tool_call_in_the_chat() {
    let mut session = PtySession::demo(DemoOptions::default());
    session.wait_for_roster();
    session.open_rondo_chat();
    session.wait_for_text("승인 대기 · bash");

    session.send(b"/approve");
    session.wait_for_text("/approve");
    session.send(b"\r");
    session.wait_for_text("/approve again to confirm");
    session.send(b"/approve");
    session.wait_for_text("/approve");
    session.send(b"\r");
    // Approved, then (once the held-calls re-read no longer lists it) settled: a fast re-read
    // may replace the first words before a frame is looked at.
    session.wait_for("the held call answered", |s| {
        let contents = s.parser.screen().contents();
        contents.contains("승인됨 · 적용 예정 · bash")
            || contents
                .lines()
                .any(|l| l.contains("승인됨 · 대기 끝남 확인") && l.contains("bash"))
    });
    let contents = session.seen().parser.screen().contents();
    assert!(
        contents.contains("승인 대기 · masc_board_post"),
        "the next held call still waits:\n{contents}"
    );
    assert!(!contents.contains("✗ "), "{contents}");

    session.send(b"\x1b");
    session.wait_for("the roster again", |s| {
        !s.parser.screen().contents().contains("chat · rondo")
    });
    session.quit_q_q();
}
