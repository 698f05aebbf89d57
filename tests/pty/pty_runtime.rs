//! System › Runtime through the real binary in a pseudo-terminal: the raw
//! `runtime.toml` editor with a scripted `$EDITOR` (sources.md J-1, J-2, F-2) and the model
//! form (I-1, I-4). The editor script leaves an invalid TOML the first time — the server's own
//! preview error shows and the draft is kept (nothing committed, nothing re-read) — and fixes
//! it the second time (`e` reopens the draft): the save commits, the catalogue is re-read
//! exactly once after it (one forced load, F-2) and lists the new model. The form sets a
//! model's context override and the catalogue shows it.

#![allow(clippy::expect_used, clippy::panic)]

use crate::pty_support::*;

/// The runtime source's trace line for a load an explicit demand asked for (F-2, F-7).
const FORCED: &str = "forced catalogue load dispatched";

/// Trace lines whose message is `message`.
fn messages(session: &PtySession, message: &str) -> usize {
    let Ok(text) = std::fs::read_to_string(&session.trace_file) else {
        return 0;
    };
    text.lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|v| v["message"] == message)
        .count()
}

fn to_runtime_pane(session: &mut PtySession) {
    session.wait_for_roster();
    // Keepers → Board → System (the Runtime pane first).
    session.send(b"\t");
    session.send(b"\t");
    session.wait_for_text("CATALOGUE");
}

/// J-1, J-2, F-2: `e` opens `runtime.toml` in the scripted editor; an invalid TOML is refused by
/// the server's preview (its error on screen, the draft kept, nothing committed or re-read); `e`
/// reopens the draft, the fixed text saves with CAS, and the catalogue is re-read once.
#[test]
fn pty_raw_config_invalid_toml_keeps_the_draft_then_the_fix_saves_and_rereads_once() {
    let dir = tempfile::tempdir().expect("temp dir");
    let script = dir.path().join("editor.sh");
    let state = dir.path().join("runs");
    // First run: a model table header missing its bracket (invalid TOML). Second run: the
    // bracket added; everything else the operator wrote is kept.
    std::fs::write(
        &script,
        format!(
            "n=$(cat '{state}' 2>/dev/null || echo 0); n=$((n+1)); echo $n > '{state}'\n\
             if [ \"$n\" = 1 ]; then\n\
             printf '\\n[[models]\\nruntime_id = \"local.pty-fixed\"\\nprovider = \"Local\"\\nprovider_id = \"local\"\\nmodel_id = \"pty-fixed\"\\nmax_context = 4096\\nis_local = true\\n' >> \"$1\"\n\
             else\n\
             sed -i 's/^\\[\\[models\\]$/[[models]]/' \"$1\"\n\
             fi\n",
            state = state.display()
        ),
    )
    .expect("editor script");
    let mut session = PtySession::demo(DemoOptions {
        visual: Some(format!("sh {}", script.display())),
        ..DemoOptions::default()
    });
    to_runtime_pane(&mut session);
    let forced_before = messages(&session, FORCED);

    session.send(b"e");
    // The save path's preview: the edit's diff first; Enter sends it.
    session.wait_for_text("Enter to save");
    session.wait_for_text("+runtime_id = \"local.pty-fixed\"");
    session.send(b"\r");
    session.wait_for_text("runtime config parse failed");
    session.wait_for_text("draft #");
    assert_raw_mode(&session);
    assert!(
        session
            .seen()
            .parser
            .screen()
            .contents()
            .contains("RAW runtime.toml"),
        "the raw block"
    );

    session.send(b"e");
    session.wait_for_text("Enter to save");
    session.send(b"\r");
    session.wait_for_text("committed @");
    session.wait_for_text("catalogue re-read after the save");
    session.wait_for_text("local.pty-fixed");
    assert_eq!(
        messages(&session, FORCED),
        forced_before + 1,
        "one catalogue re-read after the save; none after the refusal"
    );
    assert_eq!(
        std::fs::read_to_string(&state).expect("runs").trim(),
        "2",
        "the editor ran twice"
    );
    session.quit_q_q();
    // Two raw saves ran: the refused one and the committed one.
    assert_eq!(session.trace_count("worker_return", "save:runtime_raw"), 2);
}

/// I-1, I-4: `Enter` on the selected model opens its context-override form on a fresh raw
/// config read; the typed value saves (preview, then CAS) and the catalogue shows it; `Ctrl-X`
/// closes recovery.
#[test]
fn pty_model_form_sets_a_context_override_and_the_catalogue_shows_it() {
    let mut session = PtySession::demo(DemoOptions::default());
    to_runtime_pane(&mut session);
    session.send(b"\r");
    session.wait_for_text("EDIT anthropic.claude-opus-5 · max_context_override");
    session.wait_for_text("opened on");
    session.send(b"123456");
    session.wait_for_text("123456");
    session.send(b"\r");
    // The save path's preview: old → new and the file's diff, nothing sent before the second Enter.
    session.wait_for_text("Enter again to set anthropic.claude-opus-5's max_context_override");
    session.wait_for_text("+max_context_override = 123456");
    assert_eq!(session.trace_count("worker_return", "save:runtime_form"), 0);
    session.send(b"\r");
    session.wait_for_text("committed @");
    session.wait_for_text("ctx 123456");
    session.send(b"\x18"); // Ctrl-X
    session.wait_for("the form closed", |s| {
        !s.parser
            .screen()
            .contents()
            .contains("EDIT anthropic.claude-opus-5")
    });
    session.quit_q_q();
    assert_eq!(session.trace_count("worker_return", "save:runtime_form"), 1);
}
