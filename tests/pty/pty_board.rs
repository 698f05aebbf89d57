//! Board compose end to end: `masc-tui demo` in a pseudo-terminal:
//! post to the Board and see the post after the re-read (protocol.md §8.4; sources.md E-7).

#![allow(clippy::expect_used, clippy::panic)]

use crate::pty_support::*;

/// Board: `w`, a title, `Tab` `Tab`, a body, `Esc`, `s`: the post is applied, the list is read
/// again and shows it; one `save:board_post` traced.
#[test]
fn pty_board_post_then_see_it_after_the_reread_s8_4() {
    let mut session = PtySession::demo(DemoOptions::default());
    session.wait_for_roster();
    // Keepers → Board.
    session.send(b"\t");
    session.wait_for_text("order hot");
    session.send(b"w");
    session.wait_for_text("NEW POST");
    session.send(b"PTY compose check\t\tposted from the pty test");
    session.send(b"\x1b");
    session.wait_for_text("s send · d discard");
    session.send(b"s");
    session.wait_for_text("posted as ");
    session.send(b"x");
    session.wait_for("the new post in the re-read list", |s| {
        let text = s.parser.screen().contents();
        !text.contains("NEW POST") && text.contains("PTY compose check")
    });
    session.wait_for_trace("worker_return", "save:board_post", 1);
    session.send(b"qq");
    let status = session.wait_exit();
    assert!(status.success(), "exit status {status:?}");
}

/// The body in `$EDITOR` (a scripted `VISUAL` that writes the file): `Ctrl-E` in the compose
/// view hands the terminal over and takes it back; the edited body is in the draft, and the
/// post is sent with it.
#[test]
fn pty_board_body_in_the_editor_then_post_s8_4() {
    let dir = tempfile::tempdir().expect("temp dir");
    let script = dir.path().join("editor.sh");
    std::fs::write(&script, "printf 'body from the editor 한글\\n' > \"$1\"\n")
        .expect("editor script");
    let mut session = PtySession::demo(DemoOptions {
        visual: Some(format!("sh {}", script.display())),
        ..DemoOptions::default()
    });
    session.wait_for_roster();
    session.send(b"\t");
    session.wait_for_text("order hot");
    session.send(b"w");
    session.wait_for_text("NEW POST");
    session.send(b"PTY editor body");
    session.send(b"\x05"); // Ctrl-E
    session.wait_for("the edited body back in the draft", |s| {
        let screen = s.parser.screen();
        screen.alternate_screen() && screen.contents().contains("body from the editor 한글")
    });
    session.send(b"\x1b");
    session.wait_for_text("s send · d discard");
    session.send(b"s");
    session.wait_for_text("posted as ");
    session.wait_for_trace("worker_return", "save:board_post", 1);
    session.send(b"x");
    session.send(b"qq");
    let status = session.wait_exit();
    assert!(status.success(), "exit status {status:?}");
}
