//! `demo --workspaces N` (issue 30 item 5): N embedded servers, the first with a Keeper in
//! error and pending approvals, the rest calm; their config file printed before the TUI opens
//! on the first, usable as printed by another masc-tui while the demo runs.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code

use super::pty_support::*;
use std::process::{Command, Stdio};

/// The printed config: what the demo wrote before it took the terminal.
fn printed_config(session: &PtySession) -> String {
    let seen = session.seen();
    let end = seen
        .bytes
        .windows(ALT_SCREEN_ON.len())
        .position(|w| w == ALT_SCREEN_ON)
        .expect("the TUI took the terminal");
    let text = String::from_utf8_lossy(&seen.bytes[..end]).replace("\r\n", "\n");
    let start = text
        .find("# masc-tui demo --workspaces")
        .unwrap_or_else(|| panic!("no config printed: {text:?}"));
    text[start..].to_string()
}

/// `GET path` on a workspace with its token; the JSON body.
fn get(url: &str, token: &str, path: &str) -> serde_json::Value {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(async {
            reqwest::Client::new()
                .get(format!("{url}{path}"))
                .bearer_auth(token)
                .header("x-masc-agent", "masc-tui")
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap()
        })
}

#[test]
fn pty_demo_workspaces_starts_a_fleet_and_prints_a_config_that_opens_each() {
    let mut session = PtySession::demo(DemoOptions {
        extra_args: vec!["--workspaces", "3"],
        ..DemoOptions::default()
    });
    // The TUI opens on the first: its Keeper in error is on the roster.
    session.wait_for_roster();
    session.wait_for_text("juno");
    let config = printed_config(&session);
    let path = session.dir.path().join("fleet.toml");
    std::fs::write(&path, &config).unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    // The config as printed is valid and every workspace's token file gives its token.
    let check = |workspace: &str| {
        let out = Command::new(binary())
            .args(["config", "check", "--config", path.to_str().unwrap()])
            .args(["--workspace", workspace])
            .env_remove("MASC_TOKEN")
            .env_remove("MASC_HOST")
            .env_remove("MASC_HTTP_PORT")
            .env_remove("MASC_BASE_PATH")
            .env_remove("MASC_TUI_WORKSPACE")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{stdout}{}\n{config}",
            String::from_utf8_lossy(&out.stderr)
        );
        stdout
    };
    let report = check("demo-2");
    assert!(report.contains("workspaces in the file (3):"), "{report}");
    assert_eq!(
        report.matches("masc-tui.token: hidden (").count(),
        4,
        "{report}"
    );
    // Each workspace its own server; the first needs attention, the others are calm.
    let mut urls = Vec::new();
    for name in ["demo-1", "demo-2", "demo-3"] {
        let report = check(name);
        let url = report
            .lines()
            .find(|l| l.starts_with("url"))
            .and_then(|l| l.split_whitespace().nth(1))
            .unwrap()
            .to_string();
        let token_file = report
            .lines()
            .find(|l| l.starts_with("token"))
            .and_then(|l| l.split_whitespace().nth(2))
            .unwrap()
            .trim_end_matches(':')
            .to_string();
        let token = std::fs::read_to_string(&token_file).unwrap();
        let token = token.trim();
        let approvals = get(&url, token, "/api/v1/operator")["pending_confirm_envelope"]["summary"]
            ["total_count"]
            .as_u64()
            .unwrap();
        let roster = get(&url, token, "/api/v1/gate/keepers");
        let in_error = roster.to_string().matches("\"status\":\"error\"").count();
        if name == "demo-1" {
            assert!(
                approvals > 0 && in_error > 0,
                "{name}: {approvals} {in_error}"
            );
        } else {
            assert_eq!((approvals, in_error), (0, 0), "{name} is calm");
        }
        urls.push(url);
    }
    urls.dedup();
    assert_eq!(urls.len(), 3, "three servers");
    session.quit_q_q();
}
