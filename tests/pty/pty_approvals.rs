//! Operator approvals end to end in a real pseudo-terminal (surfaces.md
//! "Approvals / Ask"; protocol.md §10.5, §11 "Approval decision"; sources.md H-5, H-15, K-1):
//! `masc-tui demo --data <dir>`, Work → `p`, the seeded `task_inject` approval selected with
//! `j`, `y` arms (the footer says what will run), the second `y` sends; the receipt shows on
//! screen; after `q q` the demo's own server store shows the approval decided exactly once
//! (gone from the pending table, its action run once, every other approval still pending), the
//! trace one save operation, and the outbox one settled row.

// Helpers below assert like the tests they serve.
#![allow(clippy::expect_used, clippy::panic)]

use crate::pty_support::*;

/// The seeded approval confirmed here: `task_inject` (`masc_add_task`), pending, no expiry.
const INJECT: &str = "opc_9d3b2c48";
/// Its row in the list (delegated tool → target).
const INJECT_ROW: &str = "masc_add_task → workspace";
/// The seeded approvals pending before the test (all actors; one of another actor is hidden;
/// one expires minutes after the demo starts).
const SEEDED: i64 = 9;
const SOURCE: &str = "save:approval_decision";
/// A bound on `j` presses (the list is short; this only stops a broken test).
const MAX_MOVES: usize = 20;

/// The text of the row drawn as the selection (`▸`), if any.
fn selected_row(screen: &vt100::Screen) -> Option<String> {
    (0..ROWS)
        .map(|r| row_text(screen, r))
        .find(|t| t.contains("▸ "))
}

fn store(data: &std::path::Path) -> rusqlite::Connection {
    let path = data.join(".masc").join("masc-tui-server.sqlite3");
    rusqlite::Connection::open(&path)
        .unwrap_or_else(|e| panic!("the demo's store {}: {e}", path.display()))
}

/// §10.5, §11, H-15, K-1: `y` `y` in the real binary confirms one approval exactly once.
#[test]
fn pty_approvals_y_y_confirms_one_approval_exactly_once() {
    let mut session = PtySession::demo(DemoOptions {
        with_data_dir: true,
        ..DemoOptions::default()
    });
    session.wait_for_roster();

    // Keepers → Board → System → Overview → Work, then `p`.
    session.send(b"\t\t\t\t");
    session.send(b"p");
    session.wait_for("the approvals list", |s| {
        let contents = s.parser.screen().contents();
        contents.contains("APPROVALS")
            && contents.contains("hidden 1, actor masc-tui")
            && contents.contains(INJECT_ROW)
    });

    // Select the task_inject approval.
    let mut moves = 0;
    loop {
        let now = selected_row(session.seen().parser.screen());
        if now.as_deref().is_some_and(|t| t.contains(INJECT_ROW)) {
            break;
        }
        assert!(moves < MAX_MOVES, "never selected {INJECT_ROW}: {now:?}");
        session.send(b"j");
        moves += 1;
        session.wait_for("the selection moving", |s| {
            selected_row(s.parser.screen()) != now
        });
    }

    // The first `y` arms and says what will run; nothing is sent.
    session.send(b"y");
    session.wait_for_text(&format!("press y again to CONFIRM {INJECT_ROW}"));
    assert_eq!(
        session.trace_count("dispatch", SOURCE),
        0,
        "armed, not sent"
    );

    // The second `y` sends; the receipt shows (on the row, or under "decisions this
    // session" once the re-read no longer lists the approval).
    session.send(b"y");
    session.wait_for_text("confirmed · the action ran");
    session.wait_for("the approval gone from the list", |s| {
        let contents = s.parser.screen().contents();
        contents.contains("DECISIONS THIS SESSION") && !contents.contains(INJECT_ROW)
    });

    session.send(b"\x1b");
    session.quit_q_q();
    assert_cooked_mode(&session);

    // One save operation ran (one worker, one applied return).
    assert_eq!(session.trace_count("worker_enter", SOURCE), 1);
    assert_eq!(session.trace_count("worker_return", SOURCE), 1);

    // The server decided it exactly once: gone from the pending table, its action run once,
    // every other seeded approval still pending.
    let data = session.data_dir.clone().expect("data dir");
    let db = store(&data);
    let still: i64 = db
        .query_row(
            "SELECT COUNT(*) FROM operator_approvals WHERE confirm_token = ?1",
            [INJECT],
            |r| r.get(0),
        )
        .expect("query the approval");
    assert_eq!(still, 0, "decided");
    let pending: i64 = db
        .query_row("SELECT COUNT(*) FROM operator_approvals", [], |r| r.get(0))
        .expect("count approvals");
    assert_eq!(pending, SEEDED - 1, "only that one was decided");
    let injected: i64 = db
        .query_row(
            "SELECT injected_tasks FROM operator_state WHERE id = 1",
            [],
            |r| r.get(0),
        )
        .expect("operator state");
    assert_eq!(injected, 1, "the action ran exactly once");

    // The outbox holds one approval decision, settled applied, with the operator's inputs.
    let outbox = session
        .dir
        .path()
        .join("state")
        .join("masc-tui")
        .join(masc_tui::outbox::OUTBOX_FILE);
    let outbox = rusqlite::Connection::open(&outbox)
        .unwrap_or_else(|e| panic!("the outbox {}: {e}", outbox.display()));
    let rows: Vec<(String, String)> = {
        let mut stmt = outbox
            .prepare("SELECT target, state FROM saves WHERE kind = 'approval_decision'")
            .expect("prepare");
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .expect("query saves")
            .collect::<Result<_, _>>()
            .expect("rows")
    };
    assert_eq!(
        rows,
        [(INJECT.to_string(), "settled:applied".to_string())],
        "one row, settled"
    );
}
