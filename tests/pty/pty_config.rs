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
