//! The command palette `:` end to end (issue 28 item 1): `masc-tui demo` in a pseudo-terminal,
//! the palette driven as an operator drives it — to a surface, to a pane, to a Keeper's detail
//! by typing `keep` … and an armed key chosen by what it does, which still previews and waits
//! for its confirming key before anything is sent.

#![allow(clippy::expect_used, clippy::panic)]

use crate::pty_support::*;

#[test]
fn pty_palette_lands_on_surfaces_panes_a_keeper_and_keeps_armed_keys_armed() {
    let mut session = PtySession::demo(DemoOptions::default());
    session.wait_for_roster();

    // `:` `go boa` `Enter`: the Board.
    session.send(b":");
    session.wait_for_text("command palette");
    session.send(b"go boa");
    session.wait_for_text("› go to Board");
    session.send(b"\r");
    session.wait_for_text("order hot");

    // A pane: System › sources.
    session.send(b":sys sources");
    session.wait_for_text("› go to System › sources");
    session.send(b"\r");
    session.wait_for_text("[sources]");

    // `keep` lists the loaded Keepers; the rest of the name narrows to one; Enter opens it.
    session.send(b":keep");
    session.wait_for_text("keeper rondo · chat");
    session.send(b"er sangsu detail");
    session.wait_for_text("› keeper sangsu · detail");
    session.send(b"\r");
    session.wait_for("sangsu's detail", |s| {
        let text = s.parser.screen().contents();
        text.contains("Instructions") && text.contains("sangsu") && !text.contains("palette")
    });

    // An armed key by what it does: the preview first, sent only on its confirming key.
    session.send(b"\x1b");
    session.wait_for_text("c/m chat");
    session.send(b":pause");
    session.wait_for_text("› pause (resume when paused");
    session.send(b"\r");
    session.wait_for_text("Enter again to pause sangsu");
    session.send(b"\r");
    session.wait_for_text("sangsu: pause: sent");
    session.wait_for_trace("worker_return", "save:keeper_lifecycle", 1);
    // Whatever the pause offers next (an unbind) is declined; Esc then `q` apart, so the
    // terminal does not read them as Alt-q.
    session.send(b"\x1b");
    std::thread::sleep(std::time::Duration::from_millis(300));
    session.send(b"qq");
    let status = session.wait_exit();
    assert!(status.success(), "exit status {status:?}");
}

/// §15.1 in `demo`: the palette to System › logs; the seeded ring newest first with MASC's
/// header; `l` steps the level (the window read again at `warn` after two steps); `Enter` shows
/// a row whole.
#[test]
fn pty_palette_to_system_logs_and_its_level_ladder() {
    let mut session = PtySession::demo(DemoOptions::default());
    session.wait_for_roster();
    session.send(b":sys logs");
    session.wait_for_text("› go to System › logs");
    session.send(b"\r");
    session.wait_for_text("LOGS  level ≥ debug · category all  (200 of 260, seq 260)");
    session.send(b"ll");
    session.wait_for_text("LOGS  level ≥ warn · category all");
    session.wait_for_text("heartbeat late by");
    session.send(b"\r");
    session.wait_for_text("LOG ROW ");
    session.send(b"\r");
    session.send(b"qq");
    let status = session.wait_exit();
    assert!(status.success(), "exit status {status:?}");
}
