//! Preparation detail end to end in a real pseudo-terminal (protocol.md
//! §14.12; sources.md M-1, M-4, M-9; chat-screen.md C-30): `masc-tui demo`, rondo's chat,
//! `Ctrl-S` expands the details and the newest reply's stored report is read by its exact
//! `turn_ref` and shown — its health, its rows, the event MASC's client does not know and the
//! previous turn's row kept apart; `Ctrl-S` again folds it away.

// Helpers below assert like the tests they serve.
#![allow(clippy::expect_used, clippy::panic)]

use crate::pty_support::*;

#[test]
fn pty_m9_ctrl_s_shows_the_preparation_detail_of_the_newest_turn() {
    let mut session = PtySession::demo(DemoOptions::default());
    session.wait_for_roster();
    session.open_rondo_chat();
    assert!(
        !session
            .seen()
            .parser
            .screen()
            .contents()
            .contains("준비 상세"),
        "folded by default (C-30)"
    );
    session.send(b"\x13");
    session.wait_for("the preparation detail", |s| {
        let contents = s.parser.screen().contents();
        contents.contains("준비 상세 · trace-rondo#")
            && contents.contains("최근 확인")
            && contents.contains("unsupported event: preparation_scope_opened")
            && contents.contains("rows of other turns")
    });
    session.send(b"\x13");
    session.wait_for("folded again", |s| {
        !s.parser.screen().contents().contains("준비 상세")
    });

    session.send(b"\x1b");
    session.wait_for("the roster again", |s| {
        !s.parser.screen().contents().contains("chat · rondo")
    });
    session.quit_q_q();
}
