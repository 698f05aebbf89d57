//! The Tools async runs pane end to end: `masc-tui demo` in a pseudo-terminal: open an async
//! request and its source Task and come back with `Esc` twice (sources.md T-6, T-9, A-16, A-17).

#![allow(clippy::expect_used, clippy::panic)]

use crate::pty_support::*;

/// System › async runs: `J` `J` selects the second row (the seeded `kmsg-7f3a`, newest
/// first), `Enter` opens its detail through its own single GET, `t` opens the source Task of
/// the confirmed run, `Esc` goes back to the request and `Esc` again to the list. Each open
/// is one traced dispatch of its own.
#[test]
fn pty_tools_request_and_source_task_and_back_a16_a17() {
    let mut session = PtySession::demo(DemoOptions::default());
    session.wait_for_roster();
    // Keepers → Board → System; Runtime → all tools → Skills → async runs.
    session.send(b"\t\t");
    session.wait_for_text("[Runtime]");
    session.send(b"ppp");
    session.wait_for_text("ASYNC RUNS");
    session.wait_for_text("kmsg-7f3a");
    session.send(b"JJ");
    session.wait_for("kmsg-7f3a selected", |s| {
        let screen = s.parser.screen();
        row_of(screen, "kmsg-7f3a").is_some_and(|r| row_text(screen, r).contains('›'))
    });
    session.send(b"\r");
    session.wait_for_text("REQUEST kmsg-7f3a");
    session.wait_for_text("task-1013 (t opens it)");
    session.wait_for_text("physical: running");
    session.send(b"t");
    session.wait_for_text("TASK task-1013");
    session.send(b"\x1b");
    session.wait_for("the request again", |s| {
        let text = s.parser.screen().contents();
        text.contains("REQUEST kmsg-7f3a") && !text.contains("TASK task-1013")
    });
    session.send(b"\x1b");
    session.wait_for("the list again", |s| {
        let text = s.parser.screen().contents();
        text.contains("ASYNC RUNS") && !text.contains("REQUEST kmsg-7f3a")
    });
    // Re-entering is a new read with its own dispatch (A-17).
    session.send(b"\r");
    session.wait_for_text("REQUEST kmsg-7f3a");
    session.wait_for_trace("dispatch", "async_request", 2);
    session.send(b"qq");
    let status = session.wait_exit();
    assert!(status.success(), "exit status {status:?}");
}

/// System › available (surfaces.md "Tools"): entering the pane reads the
/// roster's selected Keeper's surface (one traced `keeper_surface` dispatch), `J` chooses the
/// next Keeper and reads it, `p` shows the same Keeper's Skill receipts, `K` goes back; leaving
/// the System tab and coming back reads the chosen Keeper again with no System key. (That the
/// tab switch itself sends the selection, not the Tools cadence, is asserted on the view actor:
/// `view_actor::tools_item2_the_keeper_panes_read_follows_the_tab_without_a_system_key`.)
#[test]
fn pty_tools_keeper_panes_follow_the_chosen_keeper_and_a_tab_switch_reads_at_once() {
    let mut session = PtySession::demo(DemoOptions::default());
    session.wait_for_roster();
    // Keepers → Board → System; Runtime → all tools → Skills → async runs → connectors →
    // available.
    session.send(b"\t\t");
    session.wait_for_text("[Runtime]");
    session.send(b"ppppp");
    session.wait_for_text("[available]");
    session.wait_for_text("KEEPER  rondo");
    session.wait_for_trace("dispatch", "keeper_surface", 1);
    session.send(b"J");
    session.wait_for_text("KEEPER  sangsu");
    session.wait_for_trace("dispatch", "keeper_surface", 2);
    session.send(b"p");
    session.wait_for_text("[receipts]");
    session.wait_for_text("KEEPER  sangsu");
    session.send(b"K");
    session.wait_for_text("KEEPER  rondo");
    session.wait_for_trace("dispatch", "keeper_surface", 3);

    // Shift-Tab to the Board, then Tab back: the pane is still `receipts`.
    session.send(b"\x1b[Z");
    session.wait_for_text("order hot");
    let before = session.trace_count("dispatch", "keeper_surface");
    session.send(b"\t");
    session.wait_for_text("[receipts]");
    session.wait_for_trace("dispatch", "keeper_surface", before + 1);
    session.wait_for_text("KEEPER  rondo");

    session.send(b"qq");
    let status = session.wait_exit();
    assert!(status.success(), "exit status {status:?}");
}
