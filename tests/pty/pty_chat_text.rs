//! The composer in a real terminal (C-70, T.7): a skin-tone emoji typed or pasted keeps its
//! modifier all the way to the Keeper (the demo's reply quotes what it received).

#![allow(clippy::expect_used, clippy::panic)]

use crate::pty_support::*;

/// `👍🏽`: U+1F44D THUMBS UP SIGN + U+1F3FD EMOJI MODIFIER FITZPATRICK TYPE-4.
const THUMBS_MEDIUM: &str = "\u{1F44D}\u{1F3FD}";

fn sent_and_quoted(session: &mut PtySession, marker: &str) {
    session.send(b"\r");
    let quoted = format!("│ {marker} {THUMBS_MEDIUM} ok");
    session.wait_for("the reply quoting the message with its modifier", |s| {
        s.parser.screen().contents().contains(&quoted)
    });
    // The turn ends (Esc during it would interrupt it, C-36; the footer offers back again).
    session.wait_for_text("Esc:back");
}

#[test]
fn pty_c70_t7_a_typed_skin_tone_emoji_keeps_its_modifier() {
    let mut session = PtySession::demo(DemoOptions::default());
    session.wait_for_roster();
    session.open_rondo_chat();
    // Typed: the terminal sends the two scalars' UTF-8 one after the other.
    session.send(b"typed ");
    session.send(THUMBS_MEDIUM.as_bytes());
    session.send(b" ok");
    session.wait_for("the typed text in the composer", |s| {
        s.parser
            .screen()
            .contents()
            .contains(&format!("typed {THUMBS_MEDIUM} ok"))
    });
    sent_and_quoted(&mut session, "typed");
    // Pasted (bracketed paste, C-68).
    let paste = format!("\x1b[200~pasted {THUMBS_MEDIUM} ok\x1b[201~");
    session.send(paste.as_bytes());
    session.wait_for("the pasted text in the composer", |s| {
        s.parser
            .screen()
            .contents()
            .contains(&format!("pasted {THUMBS_MEDIUM} ok"))
    });
    sent_and_quoted(&mut session, "pasted");
    // Esc goes back only once the turn is over (during a turn it may ask to stop it, C-36):
    // wait for the reply's end and the footer's `Esc:back`.
    session.wait_for("the turn over and Esc going back", |s| {
        let contents = s.parser.screen().contents();
        contents.contains("Anything else you want me to look at?")
            && contents.contains("Esc:back")
            && !contents.contains("Esc:interrupt")
    });
    // Esc within a second of the turn's end stays in the chat.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    session.send(b"\x1b");
    session.wait_for_roster();
    session.quit_q_q();
}
