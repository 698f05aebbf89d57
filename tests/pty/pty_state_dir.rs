//! One masc-tui per state directory (a second one would relabel the first one's saves), and a
//! throwaway demo that leaves nothing behind.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code

use super::pty_support::*;
use std::process::{Command, Stdio};

/// A second TUI on the `XDG_STATE_HOME` of a running one is refused before it opens the
/// outbox, the terminal or a server: exit 4, the holder's pid and the way out on stderr. The
/// running session is untouched, and once it quits the directory is free again.
#[test]
fn pty_second_tui_on_one_state_dir_is_refused_with_the_holders_pid() {
    let mut session = PtySession::demo(DemoOptions {
        with_data_dir: true,
        ..DemoOptions::default()
    });
    session.wait_for_roster();
    let state_home = session.dir.path().join("state");
    let second_data = session.dir.path().join("data-2");
    let second = |extra: &[&str]| {
        Command::new(binary())
            .arg("demo")
            .arg("--data")
            .arg(&second_data)
            .args(extra)
            .env("XDG_STATE_HOME", &state_home)
            .env_remove("MASC_TUI_STATE_DIR")
            .stdin(Stdio::null())
            .output()
            .expect("run a second masc-tui")
    };
    let refused = second(&[]);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(4), "stderr: {stderr}");
    assert!(
        stderr.contains(&format!("another masc-tui (pid {})", session.pid())),
        "names the holder: {stderr}"
    );
    assert!(
        stderr.contains("--state-dir DIR"),
        "offers the way out: {stderr}"
    );
    assert!(
        !second_data.exists(),
        "refused before the server made its workspace"
    );
    assert!(session.running(), "the first session goes on");

    // `--read-only` gets past the lock without the outbox: a banner names the holder, and a
    // save is refused before it leaves (its Keeper is not woken).
    let looking = PtySession::demo(DemoOptions {
        with_data_dir: true,
        state_home: Some(state_home.clone()),
        extra_args: vec!["--read-only"],
        ..DemoOptions::default()
    });
    looking.wait_for_roster();
    looking.wait_for_text(&format!(
        "READ-ONLY: pid {} holds this state directory · no saves",
        session.pid()
    ));
    let mut looking = looking;
    looking.quit_q_q();
    assert!(session.running(), "the first session goes on");

    // Its own state directory gets past the lock: the run then stops at the next start-up
    // step, a fault plan that does not exist (exit 2, not 4), before any server or terminal.
    let missing_plan = session.dir.path().join("no-such-plan.json");
    let missing_plan = missing_plan.to_str().unwrap();
    let own = session.dir.path().join("state-2");
    let other = second(&[
        "--state-dir",
        own.to_str().unwrap(),
        "--faults",
        missing_plan,
    ]);
    assert_eq!(
        other.status.code(),
        Some(2),
        "stderr: {}",
        String::from_utf8_lossy(&other.stderr)
    );
    assert!(own.join("chat-outbox.sqlite3.lock").exists());

    session.quit_q_q();
    let after = second(&["--faults", missing_plan]);
    assert_eq!(
        after.status.code(),
        Some(2),
        "free once the holder quit: {}",
        String::from_utf8_lossy(&after.stderr)
    );
}

/// A demo without `--data` removes its workspace, its state directory and the exit log with
/// them: nothing is left in `TMPDIR` after `q q`.
#[test]
fn pty_demo_without_data_leaves_nothing_behind() {
    let mut session = PtySession::demo(DemoOptions {
        own_tmpdir: true,
        ..DemoOptions::default()
    });
    session.wait_for_roster();
    let tmp = session.dir.path().join("tmp");
    let names = || -> Vec<String> {
        std::fs::read_dir(&tmp)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect()
    };
    let during = names();
    assert!(
        during.iter().any(|n| n.starts_with("masc-tui-workspace-"))
            && during.iter().any(|n| n.starts_with("masc-tui-state-")),
        "the demo's temporary workspace and state directory: {during:?}"
    );
    session.quit_q_q();
    assert_eq!(names(), Vec::<String>::new(), "left behind in TMPDIR");
}
