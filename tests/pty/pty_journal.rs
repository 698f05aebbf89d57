//! The saves journal `L` end to end (issue 25 items 7, 8; sources.md H-6, N-3): `masc-tui
//! demo` in a pseudo-terminal, three saves made as an operator makes them — a pause confirmed
//! by the roster re-read, a settings save the server refuses (a fault plan), and the pause
//! undone from the journal (`u` previews the resume, `u` again sends it) — then the journal
//! lists each with its words, the kind filter `t` and the unsettled filter `f` narrow it, and a
//! save with no undo says why.

#![allow(clippy::expect_used, clippy::panic)]

use crate::pty_support::*;

/// The journal's row of `kind` on screen, if shown.
fn journal_row(session: &PtySession, kind: &str, needle: &str) -> Option<String> {
    let seen = session.seen();
    let screen = seen.parser.screen();
    (0..screen.size().0.get())
        .map(|r| row_text(screen, r))
        .find(|t| t.contains(kind) && t.contains(needle))
}

#[test]
fn pty_journal_lists_a_confirmed_a_refused_and_an_undone_save_with_filters_and_undo() {
    let dir = tempfile::tempdir().expect("temp dir");
    let script = dir.path().join("editor.sh");
    std::fs::write(
        &script,
        "sed -e '/^autoboot_enabled/{s/true/false/;t;s/false/true/}' \"$1\" > \"$1.new\" && mv \"$1.new\" \"$1\"\n",
    )
    .expect("editor script");
    let plan = r#"{"rules":[{"match":{"method":"POST","path":"/api/v1/keepers/sangsu/config"},"fault":{"status":400,"body":{"ok":false,"error":"settings refused by the test"}}}]}"#;
    let mut session = PtySession::demo(DemoOptions {
        visual: Some(format!("sh {}", script.display())),
        faults: Some(plan.to_string()),
        ..DemoOptions::default()
    });
    session.wait_for_roster();

    // Confirmed: rondo paused, the roster re-read shows it.
    session.send(b"p");
    session.wait_for_text("p again to pause rondo");
    session.send(b"p");
    session.wait_for_text("y to also unbind rondo's");
    session.send(b"n");
    session.wait_for_text("rondo: pause: sent · confirmed ");

    // Refused: sangsu's settings, answered 400.
    session.send(b"j");
    session.send(b"e");
    session.wait_for_text("Enter to save sangsu's settings");
    session.send(b"\r");
    session.wait_for_text("sangsu: settings autoboot_enabled: not applied");

    // The journal lists both with their words; newest first.
    session.send(b"L");
    session.wait_for_text("SAVES JOURNAL · 2 saves, 0 unsettled · every kind");
    let pause = journal_row(&session, "keeper_lifecycle", "rondo").expect("the pause row");
    assert!(pause.contains("applied · confirmed "), "{pause}");
    let refused = journal_row(&session, "keeper_settings", "sangsu").expect("the settings row");
    assert!(refused.contains("not applied"), "{refused}");
    assert!(
        refused.contains("settings refused by the test"),
        "{refused}"
    );

    // `t` narrows to one kind at a time; `f` to the unsettled (none now).
    session.send(b"t");
    session.wait_for_text("SAVES JOURNAL · 2 saves, 0 unsettled · keeper_lifecycle");
    assert!(journal_row(&session, "keeper_settings", "sangsu").is_none());
    session.send(b"t");
    session.wait_for_text("· keeper_settings");
    assert!(journal_row(&session, "keeper_lifecycle", "rondo").is_none());
    session.send(b"t");
    session.wait_for_text("· every kind");
    session.send(b"f");
    session.wait_for_text("no save matches the filter");
    session.send(b"f");
    session.wait_for_text("keeper_lifecycle");

    // The refused save has no undo, and says why.
    session.send(b"u");
    session.wait_for_text("keeper_settings: no undo now: it was not applied");

    // The pause's undo: `u` previews the resume (nothing sent), `u` again sends it.
    session.send(b"j");
    let before = session.trace_count("worker_return", "save:keeper_lifecycle");
    session.send(b"u");
    session.wait_for_text("u again to resume rondo");
    assert_eq!(
        session.trace_count("worker_return", "save:keeper_lifecycle"),
        before,
        "the preview sends nothing"
    );
    session.send(b"u");
    session.wait_for_text("SAVES JOURNAL · 3 saves");
    // Both rondo rows confirmed by their roster re-reads: the pause and its undo.
    session.wait_for("the resume confirmed", |s| {
        s.parser
            .screen()
            .contents()
            .lines()
            .filter(|l| l.contains("keeper_lifecycle") && l.contains("rondo"))
            .filter(|l| l.contains("applied · confirmed "))
            .count()
            == 2
    });
    session.wait_for_trace("worker_return", "save:keeper_lifecycle", before + 1);

    session.send(b"L");
    session.quit_q_q();
}
