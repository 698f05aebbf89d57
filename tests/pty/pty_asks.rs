//! In `masc-tui demo`, answer one Ask through the real binary — Work,
//! `p`, `a`, a digit, `Enter` `Enter` — and see the receipt, the follow-up and the inspector
//! pinned to the answer's recorded turn; the answer is made exactly once (one save dispatched,
//! one POST worker), and a re-read no longer lists the Ask open (sources.md K-1, K-2, K-9,
//! K-13, K-14, K-16).

use crate::pty_support::{DemoOptions, PtySession};

#[test]
fn pty_demo_answer_one_ask_once_then_follow_up_and_inspector_k1_k14() {
    let mut session = PtySession::demo(DemoOptions::default());
    session.wait_for_roster();
    session.send(b"\x1b[Z"); // Shift-Tab: Keepers → Work
    session.send(b"p");
    session.wait_for_text("ASKS");
    // The Asks list is its own read: `a` answers a listed Ask, so wait until one is listed
    // (before that the key says the Asks are not read yet).
    session.wait_for_text("하늘 · 1 question");
    session.send(b"a");
    session.wait_for_text("ASK 1/");
    session.send(b"1");
    session.send(b"\r");
    session.wait_for_text("press Enter again to send");
    session.send(b"\r");
    session.wait_for_text("answer saved");
    session.wait_for_trace("worker_return", "save:ask_answer", 1);
    // The follow-up of the applied answer: every source arrives, then COMPLETED.
    session.wait_for_text("complete");
    session.send(b"O");
    session.wait_for_text("(pinned)");
    session.wait_for_text("received ·");
    session.send(b"\x1b");
    session.wait_for_text("FOLLOW-UP");
    // K-2: the re-read observed apart; the Ask is no longer listed open, the receipt stays.
    session.send(b"r");
    session.wait_for_text("no longer listed open");
    assert!(
        session
            .seen()
            .parser
            .screen()
            .contents()
            .contains("answer saved")
    );
    assert_eq!(session.trace_count("dispatch", "save:ask_answer"), 1);
    assert_eq!(session.trace_count("worker_return", "save:ask_answer"), 1);
    session.send(b"\x1b");
    session.send(b"q");
    session.send(b"q");
    let status = session.wait_exit();
    assert!(status.success(), "exit status {status:?}");
}
