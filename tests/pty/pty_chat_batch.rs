//! A batched execution end to end in a real pseudo-terminal (chat-screen.md
//! C-37, C-42, C-30): `masc-tui demo` (its embedded server plays a newer MASC, which runs the
//! inputs waiting behind a run together in one execution), rondo's chat, a message asking for
//! the demo's long reply, and two more inputs queued while it streams. When the two run, the
//! screen shows one progress row for them, `○ STREAMING · 2 messages in one turn` (C-42: never a
//! row per input), and `/queue` lists the execution with both members' full request ids
//! (C-37, C-30).
//!
//! Robust under load: every wait is on screen contents; the two inputs ask for the long reply
//! too, so the batched run streams for long enough to be seen and inspected, and the request
//! ids are read from the screen (`/queue` lists each waiting input's id) rather than assumed —
//! which member's id names the execution depends on which POST reached the server first, so
//! the test accepts either (as tests/actors/chat_batch.rs does).

#![allow(clippy::expect_used, clippy::panic)]

use crate::pty_support::*;

const FIRST: &str = "write me a long reply";
const SECOND: &str = "second: another long reply";
const THIRD: &str = "third: one more long reply";
const BATCH_ROW: &str = "○ STREAMING · 2 messages in one turn";

/// The request ids on screen right after `label` (`request tui-…` under a waiting input,
/// `execution tui-…`, a member row ` 1 tui-…`): every whitespace-delimited `tui-` token that
/// follows an occurrence of `label` (the overlay shares its lines with the transcript).
fn ids_after(contents: &str, label: &str) -> Vec<String> {
    let mut ids = Vec::new();
    for line in contents.lines() {
        for (at, _) in line.match_indices(label) {
            if let Some(token) = line[at + label.len()..].split_whitespace().next()
                && token.starts_with("tui-")
            {
                ids.push(token.to_string());
            }
        }
    }
    ids
}

/// The ids of the `/queue` member rows (`   1 tui-… · text`, `   2 tui-… · text`), sorted.
fn member_ids(contents: &str) -> Vec<String> {
    let mut ids = ids_after(contents, " 1 ");
    ids.extend(ids_after(contents, " 2 "));
    ids.sort();
    ids
}

/// The progress rows on screen (C-42: one for the whole run).
fn progress_rows(contents: &str) -> usize {
    contents
        .lines()
        .filter(|l| {
            ["○ STREAMING", "○ THINKING", "○ Working"]
                .iter()
                .any(|p| l.contains(p))
        })
        .count()
}

/// Waits until the screen satisfies `cond` and returns that very screen (the run goes on
/// meanwhile: a later snapshot may already show the next state).
fn wait_and_keep(session: &PtySession, what: &str, cond: impl Fn(&str) -> bool) -> String {
    let mut kept = String::new();
    session.wait_for(what, |s| {
        let c = s.parser.screen().contents();
        let found = cond(&c);
        if found {
            kept = c;
        }
        found
    });
    kept
}

/// Types `text` and waits for it on screen before Enter (Enter sends what is typed).
fn type_and_send(session: &mut PtySession, text: &str) {
    session.send(text.as_bytes());
    session.wait_for_text(text);
    session.send(b"\r");
}

#[test]
fn pty_c37_c42_two_inputs_queued_behind_a_long_reply_run_as_one_execution() {
    let mut session = PtySession::demo(DemoOptions::default());
    session.wait_for_roster();
    session.open_rondo_chat();

    type_and_send(&mut session, FIRST);
    session.wait_for("the long reply streaming", |s| {
        let c = s.parser.screen().contents();
        c.contains("step 2:") && c.contains("○ STREAMING")
    });
    type_and_send(&mut session, SECOND);
    type_and_send(&mut session, THIRD);

    // Both wait behind the run: `/queue` names each with its full request id.
    type_and_send(&mut session, "/queue");
    let contents = wait_and_keep(&session, "both inputs waiting, with their ids", |c| {
        c.contains("대기 입력 2건") && ids_after(c, "request ").len() == 2
    });
    let mut ids = ids_after(&contents, "request ");
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 2, "two distinct request ids:\n{contents}");
    assert!(
        ids.iter().all(|id| id.len() == 40),
        "shown in full:\n{contents}"
    );
    session.send(b"\x1b");
    session.wait_for("the queue closed", |s| {
        !s.parser.screen().contents().contains("대기 입력")
    });

    // C-42: when the two run, one progress row says so (checked on the screen that shows it).
    let shown = wait_and_keep(&session, "one progress row for the batched run", |c| {
        c.contains(BATCH_ROW)
    });
    assert_eq!(
        progress_rows(&shown),
        1,
        "one row, never one per input:\n{shown}"
    );

    // C-37, C-30: `/queue` lists the execution (a member's request id) and both members.
    type_and_send(&mut session, "/queue");
    let contents = wait_and_keep(&session, "the execution with both members", |c| {
        // Both ids whole: a frame read while it is still being drawn may hold half of one.
        c.contains("inputs run together") && member_ids(c) == ids
    });
    let mut execution = ids_after(&contents, "execution ");
    execution.dedup();
    assert_eq!(execution.len(), 1, "one execution:\n{contents}");
    assert!(
        ids.contains(&execution[0]),
        "named by a member's request id:\n{contents}"
    );
    assert_eq!(
        member_ids(&contents),
        ids,
        "both members, ids in full:\n{contents}"
    );
    assert!(contents.contains("2 input(s) · running"), "{contents}");
    session.send(b"\x1b");
    session.wait_for("the queue closed", |s| {
        !s.parser.screen().contents().contains("inputs run together")
    });
}
