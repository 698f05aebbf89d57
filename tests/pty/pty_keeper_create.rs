//! Create Keeper `a` end to end (sources.md H-14, H-17; protocol.md §9.9):
//! `masc-tui demo` in a pseudo-terminal with a scripted `$EDITOR` that fills in the
//! declaration's name; the line says created, the roster read after the receipt lists the new
//! Keeper, and no chat opens on its own.

#![allow(clippy::expect_used, clippy::panic)]

use crate::pty_support::*;

#[test]
fn pty_h14_h17_a_creates_a_keeper_and_the_roster_lists_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let script = dir.path().join("editor.sh");
    std::fs::write(
        &script,
        "sed 's/^name = \"\"/name = \"lark\"/' \"$1\" > \"$1.new\" && mv \"$1.new\" \"$1\"\n",
    )
    .expect("editor script");
    let mut session = PtySession::demo(DemoOptions {
        visual: Some(format!("sh {}", script.display())),
        ..DemoOptions::default()
    });
    session.wait_for_roster();
    session.send(b"a");
    session.wait_for_text("lark: create: created");
    session.wait_for("lark in the roster", |s| {
        let screen = s.parser.screen();
        // A roster row (not the operation line, which also names it).
        (0..ROWS).any(|r| {
            let text = row_text(screen, r);
            text.contains(" lark ") && !text.contains("create:")
        })
    });
    // H-17: nothing opened a chat; the roster is in front.
    let contents = session.seen().parser.screen().contents();
    assert!(!contents.contains("chat · lark"), "{contents}");
    session.send(b"qq");
    let status = session.wait_exit();
    assert!(status.success(), "exit status {status:?}");
}
