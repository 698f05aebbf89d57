//! The Gate queue end to end (protocol-15-operator.md §15.3, issue 28 item 5): `masc-tui demo`
//! in a pseudo-terminal, the queue opened from the palette, the seeded row approved from it —
//! previewed first, sent by `y` again — the row leaving the queue on the re-read that confirms
//! the save, and the save's line in the journal.

#![allow(clippy::expect_used, clippy::panic)]

use crate::pty_support::*;

#[test]
fn pty_gate_queue_approve_from_the_pane_the_row_leaves_and_the_journal_says_so() {
    let mut session = PtySession::demo(DemoOptions::default());
    session.wait_for_roster();
    session.send(b":gate queue");
    session.wait_for_text("› open the Gate queue");
    session.send(b"\r");
    session.wait_for_text("GATE QUEUE · 3 pending · mode Auto Judge");
    session.wait_for_text("github_push  waits for you");

    // The first `y` previews; nothing is sent before the second.
    session.send(b"y");
    session.wait_for_text("y again to approve Gate row gate-101: rondo github_push");
    session.send(b"y");
    session.wait_for_trace("worker_return", "save:gate_resolve", 1);
    // The re-read after the receipt no longer lists the row: the save is confirmed by it.
    session.wait_for_text("GATE QUEUE · 2 pending");
    session.wait_for("the approve confirmed", |s| {
        let text = s.parser.screen().contents();
        text.contains("approve gate-101 rondo github_push: applied") && text.contains("confirmed")
    });

    // The saves journal lists it.
    session.send(b"L");
    session.wait_for_text("SAVES JOURNAL");
    session.wait_for_text("gate_resolve");
    session.send(b"\x1b");
    std::thread::sleep(std::time::Duration::from_millis(300));
    session.send(b"qq");
    let status = session.wait_exit();
    assert!(status.success(), "exit status {status:?}");
}
