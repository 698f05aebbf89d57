//! A session started from the config file alone (issue 30 item 1): the file's default
//! workspace, its token from an owner-only token file, its start surface.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code

use super::pty_support::*;

#[test]
fn pty_the_config_files_default_workspace_opens_with_its_token_file_on_its_start_surface() {
    let served = Served::start();
    let base = &served.connect.base_path;
    // `serve` wrote its token to the workspace's token file (0600): the config names it, and
    // no token, URL or base path is given on the command line or in the environment.
    let config = format!(
        "[defaults]\nworkspace = \"local\"\nstart = \"board\"\n\n\
         [workspaces.local]\nurl = \"{}\"\ntoken_file = \"{base}/.masc/auth/masc-tui.token\"\n\
         base_path = \"{base}\"\n",
        served.connect.url
    );
    let mut session = PtySession::demo(DemoOptions {
        config: Some(config),
        ..DemoOptions::default()
    });
    // The Board is in front and its posts were read with the file's token.
    session.wait_for_text("order hot");
    session.wait_for_text("Flaky test in chat stream #1");
    session.wait_for_text(&format!("● connected · {base}"));
    session.send(b"qq");
    let status = session.wait_exit();
    assert!(status.success(), "{status:?}");
}

/// The `[workspaces.NAME]` table of a running `serve`, its token from its token file.
fn table(name: &str, served: &Served, colour: &str) -> String {
    let base = &served.connect.base_path;
    format!(
        "[workspaces.{name}]\nurl = \"{}\"\ntoken_file = \"{base}/.masc/auth/masc-tui.token\"\n\
         base_path = \"{base}\"\ncolour = \"{colour}\"\n\n",
        served.connect.url
    )
}

/// A session on the `calm` workspace of a config file naming `calm` and `busy`.
fn calm_session_beside(calm: &Served, busy: &Served) -> PtySession {
    let config = format!(
        "[defaults]\nworkspace = \"calm\"\n\n{}{}",
        table("calm", calm, "green"),
        table("busy", busy, "red")
    );
    PtySession::demo(DemoOptions {
        config: Some(config),
        ..DemoOptions::default()
    })
}

#[test]
fn pty_the_picker_shows_a_hidden_workspaces_pending_approval_on_its_own_line() {
    let calm = Served::start_with(&["--calm"]);
    let busy = Served::start();
    let mut session = calm_session_beside(&calm, &busy);
    // The session reads the calm one: its name leads the header.
    session.wait_for_text(&format!(
        "■ calm · ● connected · {}",
        calm.connect.base_path
    ));
    session.send(b"W");
    session.wait_for_text("WORKSPACES");
    // Each line from its own workspace's watch: the hidden busy one has pending approvals and
    // a Keeper in error; the session's calm one has none.
    let line_of = |screen: &str, name: &str| -> Option<String> {
        screen
            .lines()
            .find(|l| l.contains(&format!("■ {name}")) && l.contains(" ago"))
            .map(str::to_string)
    };
    session.wait_for("both fleet lines read", |s| {
        let screen = s.parser.screen().contents();
        line_of(&screen, "busy").is_some() && line_of(&screen, "calm").is_some()
    });
    let screen = session.seen().parser.screen().contents();
    let busy_line = line_of(&screen, "busy").unwrap();
    let calm_line = line_of(&screen, "calm").unwrap();
    assert!(busy_line.contains("connected"), "{busy_line}");
    assert!(!busy_line.contains("approvals 0"), "{busy_line}");
    assert!(busy_line.contains("approvals "), "{busy_line}");
    assert!(busy_line.contains("Keepers in error "), "{busy_line}");
    assert!(!busy_line.contains("Keepers in error 0"), "{busy_line}");
    assert!(calm_line.contains("(this session)"), "{calm_line}");
    assert!(calm_line.contains("approvals 0"), "{calm_line}");
    assert!(calm_line.contains("Keepers in error 0"), "{calm_line}");
    session.send(b"\x1b");
    session.send(b"qq");
    let status = session.wait_exit();
    assert!(status.success(), "{status:?}");
}

#[test]
fn pty_a_hidden_workspaces_token_file_others_may_read_is_refused_for_its_watch() {
    let calm = Served::start_with(&["--calm"]);
    let busy = Served::start();
    let token = format!("{}/.masc/auth/masc-tui.token", busy.connect.base_path);
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&token, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    let mut session = calm_session_beside(&calm, &busy);
    session.wait_for_text("● connected");
    session.send(b"W");
    session.wait_for_text("not watched: token file readable by its group and others (mode 644)");
    // The request log counts its own read, and nothing else reached the exposed workspace.
    assert_eq!(
        busy.requests("GET"),
        1,
        "nothing was sent to the exposed workspace"
    );
    session.send(b"\x1b");
    session.send(b"qq");
    let status = session.wait_exit();
    assert!(status.success(), "{status:?}");
}
