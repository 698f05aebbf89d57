//! The conventions of a well-kept CLI: completions and a man page made from the parser itself,
//! `--version` naming the build's commit, a closed stdout ending quietly; and the operational
//! promises around the state directory and `serve`'s token file (§1.1).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn bin() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_masc-tui"));
    for var in ["RUST_LOG", "MASC_TUI_STATE_DIR", "MASC_TOKEN"] {
        cmd.env_remove(var);
    }
    cmd.env(
        "XDG_STATE_HOME",
        std::env::temp_dir().join("masc-tui-cli-conventions-tests"),
    );
    cmd.stdin(Stdio::null());
    cmd
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("run masc-tui")
}

fn stdout_of(output: &Output) -> String {
    assert_eq!(
        output.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone()).expect("UTF-8 stdout")
}

#[test]
fn issue27_completions_for_bash_zsh_and_fish_name_every_subcommand_and_flag() {
    for (shell, marker) in [
        ("bash", "complete -F"),
        ("zsh", "#compdef masc-tui"),
        ("fish", "complete -c masc-tui"),
    ] {
        let script = stdout_of(&run(&["completions", shell]));
        assert!(script.contains(marker), "{shell}: no {marker:?}");
        for word in [
            "demo",
            "serve",
            "doctor",
            "timeline",
            "final-check",
            "completions",
            "state-dir",
            "strict-receipts",
        ] {
            assert!(script.contains(word), "{shell} completion lacks {word}");
        }
    }
    let refused = run(&["completions", "tcsh"]);
    assert_eq!(
        refused.status.code(),
        Some(2),
        "an unknown shell is a usage error"
    );
}

#[test]
fn issue27_bash_completion_script_is_valid_bash() {
    let script = stdout_of(&run(&["completions", "bash"]));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("masc-tui.bash");
    std::fs::write(&file, script).unwrap();
    let checked = Command::new("bash").arg("-n").arg(&file).output();
    if let Ok(checked) = checked {
        assert!(
            checked.status.success(),
            "bash -n: {}",
            String::from_utf8_lossy(&checked.stderr)
        );
    }
}

#[test]
fn issue27_man_page_has_the_options_exit_status_environment_and_files() {
    let page = stdout_of(&run(&["man"]));
    assert!(page.contains(".TH masc-tui 1"), "title: {page:.200}");
    for section in [
        ".SH NAME",
        ".SH SYNOPSIS",
        ".SH OPTIONS",
        ".SH SUBCOMMANDS",
        ".SH \"EXIT STATUS\"",
        ".SH ENVIRONMENT",
        ".SH FILES",
    ] {
        assert!(page.contains(section), "no {section}");
    }
    for word in [
        "MASC_TUI_STATE_DIR",
        "masc\\-tui.token",
        "chat\\-outbox.sqlite3.lock",
        "\\-\\-state\\-dir",
    ] {
        assert!(page.contains(word), "man page lacks {word}");
    }
    assert!(
        !page.contains(".SH EXTRA"),
        "exit status is its own section"
    );

    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("man1");
    stdout_of(&run(&["man", "--dir", out.to_str().unwrap()]));
    for page in [
        "masc-tui.1",
        "masc-tui-demo.1",
        "masc-tui-serve.1",
        "masc-tui-doctor.1",
        "masc-tui-completions.1",
    ] {
        let text =
            std::fs::read_to_string(out.join(page)).unwrap_or_else(|e| panic!("{page}: {e}"));
        assert!(text.starts_with(".ie \\n(.g .ds Aq"), "{page} is roff");
    }
    assert!(
        !out.join("masc-tui-help.1").exists(),
        "no page for clap's help subcommand"
    );
    let demo = std::fs::read_to_string(out.join("masc-tui-demo.1")).unwrap();
    assert!(demo.contains(".TH masc-tui-demo 1"), "{demo:.200}");
    assert!(demo.contains("\\-\\-data"), "demo's own options");
}

/// The commit `build.rs` should have recorded: this work tree's, or `unknown` without git.
fn expected_commit() -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let git = |args: &[&str]| {
        Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let own_tree = git(&["rev-parse", "--show-toplevel"])
        .and_then(|top| Path::new(&top).canonicalize().ok())
        .is_some_and(|top| Some(top) == dir.canonicalize().ok());
    match std::env::var("MASC_TUI_BUILD_COMMIT") {
        Ok(given) if !given.trim().is_empty() => given.trim().to_string(),
        _ if own_tree => git(&["rev-parse", "--short=12", "HEAD"]).unwrap(),
        _ => "unknown".into(),
    }
}

#[test]
fn issue27_version_names_the_builds_commit() {
    let version = stdout_of(&run(&["--version"]));
    assert_eq!(
        version.trim_end(),
        format!(
            "masc-tui {} (commit {})",
            env!("CARGO_PKG_VERSION"),
            expected_commit()
        )
    );
}

/// Runs `args` with stdout a pipe whose reader is already gone (`| head` after `head` quit):
/// the first write meets EPIPE.
fn run_into_closed_pipe(args: &[&str]) -> Output {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    bin()
        .args(args)
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .expect("run masc-tui")
}

#[test]
fn issue27_a_closed_stdout_is_a_quiet_exit() {
    let trace = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(
        trace.path(),
        "{\"stage\":\"dispatch\",\"source\":\"keepers\",\"generation\":1,\"epoch\":1,\"ts_us\":1}\n",
    )
    .unwrap();
    let trace = trace.path().to_str().unwrap().to_string();
    let final_file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(final_file.path(), "Done.\n").unwrap();
    let final_file = final_file.path().to_str().unwrap().to_string();
    for args in [
        vec!["timeline", trace.as_str()],
        vec!["timeline", trace.as_str(), "--json"],
        vec!["final-check", final_file.as_str()],
        vec!["completions", "bash"],
        vec!["man"],
    ] {
        let output = run_into_closed_pipe(&args);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{args:?}: stderr {}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert_eq!(
            String::from_utf8_lossy(&output.stderr),
            "",
            "{args:?}: nothing on stderr"
        );
    }
    // `serve` whose line cannot be printed stops, and takes its token file with it.
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("ws");
    let output = bin()
        .args(["serve", "--port", "0", "--data", data.to_str().unwrap()])
        .env("RUST_LOG", "off")
        .stdout(
            std::io::pipe()
                .map(|(r, w)| {
                    drop(r);
                    w
                })
                .unwrap(),
        )
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(!data.join(".masc/auth/masc-tui.token").exists());
}

/// A second process on a state directory a running one holds is refused with the holder's pid
/// (here this test process holds it, as a running TUI does); the TUI and the demo alike.
#[test]
fn issue32_a_held_state_directory_refuses_the_tui_and_the_demo() {
    let dir = tempfile::tempdir().unwrap();
    let state_home = dir.path().join("state");
    let outbox = state_home.join("masc-tui").join("chat-outbox.sqlite3");
    let _held = masc_tui::outbox::InstanceLock::acquire(&outbox).unwrap();
    let data = dir.path().join("data");
    for args in [
        vec!["--url", "http://127.0.0.1:9"],
        vec!["demo", "--data", data.to_str().unwrap()],
    ] {
        let output = bin()
            .args(&args)
            .env("XDG_STATE_HOME", &state_home)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(4), "{args:?}: {stderr}");
        assert!(
            stderr.contains(&format!("pid {}", std::process::id())),
            "{args:?}: {stderr}"
        );
        assert!(stderr.contains("MASC_TUI_STATE_DIR=DIR"), "{stderr}");
    }
    assert!(!data.exists(), "refused before the demo's server started");
    // The explicit directory is claimed instead of the default one (its lock file appears;
    // the run then stops at its missing fault plan, exit 2).
    let own = dir.path().join("own");
    let output = bin()
        .args([
            "demo",
            "--data",
            data.to_str().unwrap(),
            "--faults",
            "/nonexistent/plan.json",
        ])
        .env("XDG_STATE_HOME", &state_home)
        .env("MASC_TUI_STATE_DIR", &own)
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(own.join("chat-outbox.sqlite3.lock").exists());
    let traces: Vec<_> = std::fs::read_dir(&own)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("trace-") && n.ends_with(".jsonl"))
        .collect();
    assert_eq!(
        traces.len(),
        1,
        "the trace file goes to the chosen state directory"
    );
}

/// `serve` writes the token it requires to the file the client reads when no token is given
/// (`<base>/.masc/auth/masc-tui.token`, 0600, before its `MASC_TOKEN=…` line), and removes it
/// at a clean stop.
#[test]
fn issue27_serve_writes_its_token_file_and_removes_it_at_stop() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("ws");
    let mut child = bin()
        .args(["serve", "--port", "0", "--data", data.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let token = line
        .split_whitespace()
        .find_map(|w| w.strip_prefix("MASC_TOKEN="))
        .unwrap_or_else(|| panic!("no token in {line:?}"))
        .to_string();
    let base = data.canonicalize().unwrap();
    let file = base.join(".masc").join("auth").join("masc-tui.token");
    let written = std::fs::read_to_string(&file).unwrap();
    assert_eq!(written.trim_end(), token);
    assert_eq!(masc_tui::private_file::mode_of(&file).unwrap(), 0o600);
    assert_eq!(
        masc_tui::private_file::mode_of(file.parent().unwrap()).unwrap(),
        0o700
    );
    let stop = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(stop.success());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    assert!(!file.exists(), "the token died with the server");
}
