//! Two operators on one `masc-tui serve` (protocol.md §9.4 CAS; sources.md J-1, J-2, I-1):
//! A edits `runtime.toml` in a scripted `$EDITOR` and holds its preview while B commits a
//! model form change; A's save then meets the revision conflict. It never overwrites B
//! silently: the three-way view opens (yours, theirs, what an overwrite loses), `u` reopens it
//! instead of keeping the stale text, an overwrite shows exactly B's lines it would lose and
//! needs its own key, and the rebase commits A's change on B's file — B's change kept.

#![allow(clippy::expect_used, clippy::panic)]

use crate::pty_support::*;

/// Keepers → Board → System (the Runtime pane first).
fn to_runtime_pane(session: &mut PtySession) {
    session.wait_for_roster();
    session.send(b"\t");
    session.send(b"\t");
    session.wait_for_text("CATALOGUE");
}

fn shows(session: &PtySession, text: &str) -> bool {
    session.seen().parser.screen().contents().contains(text)
}

#[test]
fn pty_two_operators_a_conflict_shows_three_views_and_the_rebase_keeps_both_changes() {
    let served = Served::start();
    let dir = tempfile::tempdir().expect("temp dir");
    let script = dir.path().join("editor.sh");
    // A's edit: the default runtime.
    std::fs::write(
        &script,
        "sed -i 's/^default = \"anthropic.claude-sonnet-4\"$/default = \"openai.gpt-5\"/' \"$1\"\n",
    )
    .expect("editor script");
    let mut a = PtySession::demo(DemoOptions {
        connect: Some(served.connect.clone()),
        visual: Some(format!("sh {}", script.display())),
        ..DemoOptions::default()
    });
    let mut b = PtySession::demo(DemoOptions {
        connect: Some(served.connect.clone()),
        ..DemoOptions::default()
    });
    to_runtime_pane(&mut a);
    to_runtime_pane(&mut b);

    // A's edit is previewed and held there.
    a.send(b"e");
    a.wait_for_text("Enter to save");
    a.wait_for_text("+default = \"openai.gpt-5\"");
    assert_eq!(
        served.requests("POST"),
        0,
        "nothing sent before the confirming key"
    );

    // B commits a form change meanwhile.
    b.send(b"\r");
    b.wait_for_text("EDIT anthropic.claude-opus-5 · max_context_override");
    b.wait_for_text("opened on");
    b.send(b"123456");
    b.wait_for_text("123456");
    b.send(b"\r");
    b.wait_for_text("Enter again to set");
    assert_eq!(
        served.requests("POST"),
        0,
        "B's form is not sent on its first Enter"
    );
    b.send(b"\r");
    b.wait_for_text("committed @");
    assert!(
        served.requests("POST") >= 2,
        "the log counts B's preview and commit"
    );

    // A confirms: the server's revision moved — the three views, B's change among them.
    a.send(b"\r");
    a.wait_for_text("changed on the server (now @");
    a.wait_for_text("2 their changes");
    a.wait_for_text("+max_context_override = 123456");
    a.send(b"1");
    a.wait_for_text("+default = \"openai.gpt-5\"");

    // Esc keeps the draft; `u` reopens the three views (never the stale text on B's file).
    a.send(b"\x1b");
    a.wait_for("the three views closed", |s| {
        !s.parser.screen().contents().contains("1 yours · 2 theirs")
    });
    a.send(b"u");
    a.wait_for_text("1 yours · 2 theirs");

    // An overwrite first shows what of B's is lost; another key goes back.
    a.send(b"o");
    a.wait_for_text("o again to overwrite runtime.toml with your draft");
    a.wait_for_text("-max_context_override = 123456");
    a.send(b"n");
    a.wait_for_text("cancelled: overwrite runtime.toml");
    assert!(shows(&a, "1 yours · 2 theirs"), "back at the three views");
    assert_eq!(
        a.trace_count("worker_return", "save:runtime_raw"),
        1,
        "only the conflicted save left A"
    );

    // Rebase: A's change on B's file, previewed, then committed.
    a.send(b"r");
    a.wait_for_text("your changes rebased on the server's file");
    a.send(b"S");
    a.wait_for_text("S again to save");
    a.wait_for_text("+default = \"openai.gpt-5\"");
    a.send(b"S");
    a.wait_for_text("committed @");
    // B's override is still there after A's commit: A's catalogue re-read shows it.
    a.wait_for_text("ctx 123456");
    assert_eq!(a.trace_count("worker_return", "save:runtime_raw"), 2);

    // B closes its finished form and sees A's change beside its own.
    b.send(b"\x18"); // Ctrl-X
    b.send(b"r");
    b.wait_for_text("default openai.gpt-5");
    assert!(shows(&b, "ctx 123456"));

    a.quit_q_q();
    b.quit_q_q();
}
