//! The two proof saves of the one save path end to end in `masc-tui demo`: a Board vote
//! (`v`/`V`, protocol-15 §15.6) and a Goal action (`c`/`x`/`o` in the goal detail, §15.4).
//! Both are armed: the first press previews in the confirmation layer and sends nothing, any
//! other key cancels, the same key again sends once; the receipt is shown on the screen that
//! asked and what changed is read again from the server (the vote from the post detail read
//! with `voter=`, the phase from the Planning rollup).

#![allow(clippy::expect_used, clippy::panic)]

use crate::pty_support::*;

/// The text after `marker` up to the next space on the screen (an id the seed chose).
fn word_after(session: &PtySession, marker: &str) -> Option<String> {
    let text = session.seen().parser.screen().contents();
    let at = text.find(marker)? + marker.len();
    text[at..].split_whitespace().next().map(str::to_string)
}

#[test]
fn pty_s15_6_board_vote_is_armed_then_sent_once_and_read_again() {
    let mut session = PtySession::demo(DemoOptions::default());
    session.wait_for_roster();
    session.send(b"\t"); // Keepers → Board
    session.wait_for_text("order hot");
    session.wait_for_text("post-10");
    session.send(b"\r");
    session.wait_for_text("your vote:");
    // First press: the preview, nothing sent; another key cancels.
    session.send(b"v");
    session.wait_for_text("v again to vote up on post");
    session.send(b"j");
    session.wait_for_text("nothing sent");
    assert_eq!(session.trace_count("dispatch", "save:board_vote"), 0);
    // The same key twice: sent once, applied, and the re-read shows masc-tui's vote.
    session.send(b"v");
    session.wait_for_text("v again to vote up on post");
    session.send(b"v");
    session.wait_for_text("vote up: applied");
    session.wait_for_text("your vote: up");
    session.wait_for_trace("worker_return", "save:board_vote", 1);
    // `V` flips it (one vote per voter; §15.6 has no un-vote).
    session.send(b"V");
    session.wait_for_text("V again to vote down on post");
    session.send(b"V");
    session.wait_for_text("vote down: applied");
    session.wait_for_text("your vote: down");
    session.wait_for_trace("worker_return", "save:board_vote", 2);
    session.send(b"\x1b");
    session.send(b"qq");
    let status = session.wait_exit();
    assert!(status.success(), "exit status {status:?}");
    assert_eq!(session.trace_count("worker_return", "save:board_vote"), 2);
}

#[test]
fn pty_s15_4_goal_actions_are_armed_and_the_phase_is_read_again() {
    let mut session = PtySession::demo(DemoOptions::default());
    session.wait_for_roster();
    session.send(b"\x1b[Z"); // Shift-Tab: Keepers → Work (Goals)
    session.wait_for_text("counts are server aggregates");
    session.send(b"\r");
    session.wait_for_text("GOAL ");
    let goal = word_after(&session, "GOAL ").expect("the open goal's id");
    // A single press previews and sends nothing; another key cancels.
    session.send(b"x");
    session.wait_for_text(&format!("x again to drop goal {goal}"));
    session.send(b"j");
    session.wait_for_text("nothing sent");
    assert_eq!(session.trace_count("dispatch", "save:goal_transition"), 0);
    // Drop, confirmed: the receipt, then the phase as the Planning re-read has it.
    session.send(b"x");
    session.wait_for_text(&format!("x again to drop goal {goal}"));
    session.send(b"x");
    session.wait_for_text("drop: applied");
    session.wait_for_text("dropped · P");
    session.wait_for_trace("worker_return", "save:goal_transition", 1);
    // Reopen it: the server moves it back to executing.
    session.send(b"o");
    session.wait_for_text(&format!("o again to reopen goal {goal}"));
    session.send(b"o");
    session.wait_for_text("reopen: applied");
    session.wait_for_text("executing · P");
    session.wait_for_trace("worker_return", "save:goal_transition", 2);
    session.send(b"\x1b");
    session.send(b"qq");
    let status = session.wait_exit();
    assert!(status.success(), "exit status {status:?}");
}
