//! Connector binding writes end to end: `masc-tui demo` in a pseudo-terminal: bind a channel, see
//! it in the re-read status, unbind it, see it gone (protocol.md §7.3, §7.4; sources.md D-10).

#![allow(clippy::expect_used, clippy::panic)]

use crate::pty_support::*;

/// System › connectors: `J` selects Discord, `b` opens the bind form (`000pty`, `Tab`,
/// `rondo`, `Enter`): the bind is applied and the status read after it lists the binding;
/// `x` `x` unbinds it and the next status no longer lists it (each previewed first). One POST each (traced saves).
#[test]
fn pty_connectors_bind_then_unbind_a_channel_s7_3_s7_4() {
    let mut session = PtySession::demo(DemoOptions::default());
    session.wait_for_roster();
    session.send(b"\t\t");
    session.wait_for_text("[Runtime]");
    session.send(b"pppp");
    session.wait_for_text("CONNECTORS");
    session.wait_for_text("Discord");
    session.send(b"J");
    session.send(b"b");
    session.wait_for_text("bind discord channel:");
    session.send(b"000pty\trondo\r");
    session.wait_for_text("Enter again to bind discord channel 000pty to rondo");
    session.send(b"\r");
    session.wait_for("the bound channel in the re-read status", |s| {
        let screen = s.parser.screen();
        row_of(screen, "000pty (name unknown) → rondo").is_some_and(|r| {
            let text = row_text(screen, r);
            text.contains("bind rondo applied") && text.contains('›')
        })
    });
    session.send(b"x");
    session.wait_for_text("x again to unbind discord channel 000pty from rondo");
    session.send(b"x");
    session.wait_for("the binding gone from the re-read status", |s| {
        row_of(s.parser.screen(), "000pty (name unknown)").is_none()
    });
    // Its row is gone, so its receipt is said on the notice line.
    session.wait_for_text("unbind rondo from discord 000pty applied");
    session.wait_for_trace("worker_return", "save:connector_bind", 1);
    session.wait_for_trace("worker_return", "save:connector_unbind", 1);
    session.send(b"qq");
    let status = session.wait_exit();
    assert!(status.success(), "exit status {status:?}");
}
