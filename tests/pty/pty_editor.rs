//! The `$EDITOR` handoff through the real binary in a pseudo-terminal: `Ctrl-X` in a chat's
//! composer hands the terminal to a scripted editor (`VISUAL`) that talks to the terminal
//! itself — it prints a banner and reads a line the "operator" types — and the TUI takes the
//! terminal back with a full repaint, the edited text as the draft. While the editor runs the
//! terminal is in cooked mode, off the alternate screen, and not one typed byte reaches the
//! TUI's reader; the editor gets all of them. `q q` then ends with the terminal restored.

#![allow(clippy::expect_used, clippy::panic)]

use crate::pty_support::*;

const BANNER: &str = "SCRIPTED-EDITOR-OPEN";
const TYPED_IN_EDITOR: &str = "typed in the editor 한글";

#[test]
fn pty_ctrl_x_hands_the_terminal_to_the_editor_and_takes_it_back() {
    let dir = tempfile::tempdir().expect("temp dir");
    let script = dir.path().join("editor.sh");
    // The scripted editor: a banner on the terminal, one line read from the terminal, the file
    // rewritten as "<old text> + <line>".
    std::fs::write(
        &script,
        format!(
            "printf '{BANNER}\\n'\nIFS= read -r line\nold=$(cat \"$1\")\nprintf '%s + %s\\n' \"$old\" \"$line\" > \"$1\"\n"
        ),
    )
    .expect("editor script");
    let mut session = PtySession::demo(DemoOptions {
        visual: Some(format!("sh {}", script.display())),
        ..DemoOptions::default()
    });
    session.wait_for_roster();
    session.send(b"c");
    session.wait_for_text("chat · rondo");
    session.send(b"draft one");
    session.wait_for_text("draft one");
    assert_raw_mode(&session);

    session.send(b"\x18"); // Ctrl-X
    session.wait_for("the editor's banner on the main screen", |s| {
        !s.parser.screen().alternate_screen() && s.parser.screen().contents().contains(BANNER)
    });
    assert_cooked_mode(&session);
    session.send(format!("{TYPED_IN_EDITOR}\r").as_bytes());

    session.wait_for("the chat back with the edited draft", |s| {
        let screen = s.parser.screen();
        screen.alternate_screen()
            && screen.contents().contains("chat · rondo")
            && screen
                .contents()
                .contains(&format!("draft one + {TYPED_IN_EDITOR}"))
    });
    assert_raw_mode(&session);
    // Not sent: Enter sends, Ctrl-X only edits. The line typed into the editor never reached
    // the composer as keys (it would show twice).
    let contents = session.seen().parser.screen().contents();
    assert_eq!(
        contents.matches(TYPED_IN_EDITOR).count(),
        1,
        "the editor's input reached the TUI:\n{contents}"
    );
    assert!(!contents.contains(BANNER), "full repaint after the editor");

    // Esc never leaves a chat with a draft typed: the draft stays in front.
    session.send(b"\x1b");
    session.wait_for_text("the draft is not empty");
    session.send(b"\x15"); // Ctrl-U clears it
    session.send(b"\x1b");
    session.wait_for_roster();
    session.send(b"qq");
    let status = session.wait_exit();
    assert!(status.success(), "exit status {status:?}");
    assert_terminal_restored(&session.seen());
}
