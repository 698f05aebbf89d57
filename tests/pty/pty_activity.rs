//! Activity end to end (protocol-15-operator.md §15.2, issue 28 item 2): `masc-tui demo` in a
//! pseudo-terminal, `A` on the Keepers surface opens the live observer feed; the embedded
//! server's scripted events arrive as MASC's TUI draws them; `f` shows the quiet rows too.

#![allow(clippy::expect_used, clippy::panic)]

use crate::pty_support::*;

#[test]
fn pty_activity_opens_live_and_shows_the_demo_events() {
    let mut session = PtySession::demo(DemoOptions::default());
    session.wait_for_roster();
    session.send(b"A");
    session.wait_for_text("ACTIVITY · live · scope actions");
    session.wait_for_text("turn settled");
    session.send(b"ff");
    session.wait_for_text("scope everything");
    session.wait_for_text("heartbeat");
    session.send(b"A");
    session.wait_for_text("c/m chat");
    session.send(b"qq");
    let status = session.wait_exit();
    assert!(status.success(), "exit status {status:?}");
}
