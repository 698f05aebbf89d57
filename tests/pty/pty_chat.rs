//! End-to-end chat in a real pseudo-terminal: `masc-tui demo`, `c` on rondo, a
//! message typed into the composer and sent with Enter, the demo Keeper's streamed reply
//! (which quotes the message), rondo's history paged back with PgUp past the demo's broken
//! coop-report line without its JSON ever reaching the screen (coop-report.md), then Esc back
//! to the roster and `q q` with the terminal restored (T.6).

// Helpers below assert like the tests they serve.
#![allow(clippy::expect_used, clippy::panic)]

use crate::pty_support::*;

const CHAT_TITLE: &str = "chat · rondo";
/// The prose of rondo's final whose report line is broken (seeded at turn 28 of 40).
const BROKEN_REPORT_PROSE: &str = "훅 설정 고쳤어";
const JSON_MARKS: [&str; 2] = ["coop_reports", "binding_id"];
const MESSAGE: &str = "ping from the pty 42";
const PAGE_UP: &[u8] = b"\x1b[5~";
/// The end of a frame's synchronized-output envelope (T.4).
const SYNC_END: &[u8] = b"\x1b[?2026l";
/// A bound on PgUp presses (the history is finite; this only stops a broken test).
const MAX_PAGES: usize = 200;

fn assert_no_report_json(contents: &str) {
    for mark in JSON_MARKS {
        assert!(
            !contents.contains(mark),
            "report JSON {mark:?} on screen:\n{contents}"
        );
    }
}

#[test]
fn pty_chat_send_reply_history_and_back() {
    let mut session = PtySession::demo(DemoOptions::default());
    session.wait_for_roster();
    session.open_rondo_chat();
    assert_no_report_json(&session.seen().parser.screen().contents());

    // Type into the composer: the terminal cursor is shown on the composer row, after the text.
    session.send(MESSAGE.as_bytes());
    session.wait_for("the typed message with the cursor after it", |s| {
        let screen = s.parser.screen();
        let (row, col) = screen.cursor_position();
        !screen.hide_cursor()
            && row_text(screen, row).contains(MESSAGE)
            && column_of(screen, row, MESSAGE).map(|c| c + MESSAGE.len() as u16) == Some(col)
    });

    // Enter sends; the streamed reply quotes the message.
    session.send(b"\r");
    session.wait_for("the streamed reply quoting the message", |s| {
        let contents = s.parser.screen().contents();
        assert_no_report_json(&contents);
        // The quote block is drawn as markdown (`│ …`); the prose names it in quotes too.
        contents.contains(&format!("│ {MESSAGE}"))
            && contents.contains(&format!("\"{MESSAGE}\"에 대해"))
    });

    // Page back through rondo's history until the broken report's prose shows; its JSON never
    // does, on any screen in between.
    // Each PgUp waits for a whole frame (its synchronized-output end, T.4) that changed the
    // screen, so every page is looked at settled; the JSON check also runs on every state the
    // parser is seen in between.
    let mut pages = 0;
    let mut prose_seen = false;
    loop {
        let before = session.seen().parser.screen().contents();
        assert_no_report_json(&before);
        prose_seen |= before.contains(BROKEN_REPORT_PROSE);
        if prose_seen {
            break;
        }
        assert!(
            !before.contains("start of the stored history"),
            "reached the start without seeing the broken report's prose:\n{before}"
        );
        assert!(pages < MAX_PAGES, "no broken report after {pages} pages");
        let sent_at = session.byte_count();
        session.send(PAGE_UP);
        pages += 1;
        session.wait_for("a whole frame moving back", |s| {
            let now = s.parser.screen().contents();
            assert_no_report_json(&now);
            prose_seen |= now.contains(BROKEN_REPORT_PROSE);
            now != before && rfind(&s.bytes[sent_at..], SYNC_END).is_some()
        });
    }

    // Esc back to the roster, once the turn has ended (Esc during it interrupts it, C-36).
    session.wait_for_text("Esc:back");
    // Esc within a second of the turn's end stays in the chat.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    session.send(b"\x1b");
    session.wait_for("the roster again", |s| {
        let screen = s.parser.screen();
        !screen.contents().contains(CHAT_TITLE)
            && row_of(screen, "rondo").is_some()
            && row_of(screen, "beacon").is_some()
    });

    session.quit_q_q();
    assert_cooked_mode(&session);
}
