//! The live Sources view end to end: `masc-tui demo` in a pseudo-terminal with a fault plan
//! that answers every Board posts read 500. System › `sources` lists every supervised source
//! and save kind from the stage events of this run; the faulted source shows its failures by
//! class, and `Enter` shows its tickets.

#![allow(clippy::expect_used, clippy::panic)]

use crate::pty_support::*;

/// The registry's order puts `board_posts` 20th (after the Keepers, Keeper detail, chat and
/// Work sources), so `j` nineteen times selects it.
const BOARD_POSTS_INDEX: usize = 19;

#[test]
fn pty_sources_view_shows_a_faulted_source_failing_and_its_tickets_on_enter() {
    let plan = r#"{"rules":[{"match":{"method":"GET","path":"/api/v1/board"},"fault":{"status":500,"body":{"error":"injected"}}}]}"#;
    let mut session = PtySession::demo(DemoOptions {
        faults: Some(plan.into()),
        ..DemoOptions::default()
    });
    session.wait_for_roster();
    // Keepers → Board: its posts read fails (and is traced).
    session.send(b"\t");
    session.wait_for_trace("worker_return", "board_posts", 1);
    // Board → System; Runtime ← P wraps to the last pane, sources.
    session.send(b"\t");
    session.wait_for_text("[Runtime]");
    session.send(b"P");
    session.wait_for_text("[sources]");
    session.wait_for_text("LATENCY");
    session.wait_for_trace("admit", "source_stats", 1);
    session.wait_for("the roster's row running with a latency", |s| {
        let screen = s.parser.screen();
        row_of(screen, "keepers_roster").is_some_and(|r| row_text(screen, r).contains("running"))
    });
    session.send("j".repeat(BOARD_POSTS_INDEX).as_bytes());
    session.wait_for("board_posts selected and failing by class", |s| {
        let text = s.parser.screen().contents();
        text.contains("board_posts (source board)") && text.contains("failures: status_500 ×")
    });
    {
        let seen = session.seen();
        let screen = seen.parser.screen();
        let row = row_of(screen, "board_posts").expect("board_posts row");
        let text = row_text(screen, row);
        let columns: Vec<&str> = text.split_whitespace().collect();
        assert_eq!(columns[1], "running", "{text}");
        let failures: u64 = columns[5].parse().expect("FAIL column");
        assert!(failures >= 1, "{text}");
    }
    session.send(b"\r");
    session.wait_for_text("recent tickets of board_posts");
    session.wait_for("a failed ticket on the timeline", |s| {
        let text = s.parser.screen().contents();
        text.contains("dispatched → worker returned +") && text.contains("(status_500)")
    });
    session.send(b"\x1b");
    session.wait_for("the table again", |s| {
        let text = s.parser.screen().contents();
        text.contains("LATENCY") && !text.contains("recent tickets of")
    });
    session.send(b"qq");
    let status = session.wait_exit();
    assert!(status.success(), "exit status {status:?}");
}
