//! The `/context` inspector end to end in a real pseudo-terminal (protocol.md
//! §14.11; sources.md K-15, K-17; C-58): `masc-tui demo`, rondo's chat, `/context` reads the
//! turn records once and then the newest turn's serialized input; `2` and `3` switch tabs with
//! no further read; `Esc` closes.

#![allow(clippy::expect_used, clippy::panic)]

use crate::pty_support::*;

#[test]
fn pty_c58_k17_context_tabs_read_once_and_switch_without_reading() {
    let mut session = PtySession::demo(DemoOptions::default());
    session.wait_for_roster();
    session.open_rondo_chat();
    session.send(b"/context");
    session.send(b"\r");
    session.wait_for("the context menu entry or overlay", |s| {
        s.parser.screen().contents().contains("[1:stack]")
            || s.parser.screen().contents().contains("/context")
    });
    if !session
        .seen()
        .parser
        .screen()
        .contents()
        .contains("[1:stack]")
    {
        session.send(b"\r");
    }
    session.wait_for("the newest turn record on 1:stack", |s| {
        let c = s.parser.screen().contents();
        c.contains("[1:stack]") && c.contains("newest turn trace-rondo#48")
    });
    session.wait_for_trace("worker_return", "provider_input", 1);
    session.send(b"2");
    session.wait_for("the serialized input on 2:request", |s| {
        let c = s.parser.screen().contents();
        c.contains("[2:request]") && c.contains("serialized input of trace-rondo#48  received")
    });
    session.send(b"3");
    session.wait_for("the proof on 3:proof", |s| {
        let c = s.parser.screen().contents();
        c.contains("[3:proof]") && c.contains("VERIFIED")
    });
    session.send(b"j1");
    session.wait_for_text("[1:stack]");
    assert_eq!(session.trace_count("dispatch", "turn_records"), 1, "K-17");
    assert_eq!(session.trace_count("dispatch", "provider_input"), 1, "K-17");
    session.send(b"\x1b");
    session.wait_for("the overlay closed", |s| {
        !s.parser.screen().contents().contains("[1:stack]")
    });
}
