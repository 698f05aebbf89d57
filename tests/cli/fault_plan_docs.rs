//! The commands of docs/fault-plans.md run as they stand (a documented command that fails
//! misleads): the script example starts a test-mode server, replaces its plan (a JSON write: the
//! content type is required, else 415) and reads it back.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The `sh` block under "## Example: a script".
fn script_example() -> String {
    let doc = include_str!("../../docs/fault-plans.md");
    let section = doc
        .split("## Example: a script")
        .nth(1)
        .expect("the script example section");
    let block = section.split("```sh\n").nth(1).expect("an sh block");
    block.split("```").next().unwrap().to_string()
}

/// Runs `script` under `bash -eu` with this build's `masc-tui` first on `PATH` (failsafe:
/// killed after 60 s, a hang fails the test).
fn run_script(script: &str) -> Output {
    let bin_dir = std::path::Path::new(env!("CARGO_BIN_EXE_masc-tui"))
        .parent()
        .unwrap()
        .to_path_buf();
    let path = std::env::join_paths(std::iter::once(bin_dir).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .unwrap();
    let mut child = Command::new("bash")
        .args(["-eu", "-o", "pipefail", "-c", script])
        .env("PATH", path)
        .env_remove("MASC_HTTP_PORT")
        .env_remove("MASC_HOST")
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("bash");
    let deadline = Instant::now() + Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("failsafe: the doc script did not finish");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn issue32_fault_plan_script_example_runs_as_documented() {
    let script = script_example();
    assert!(
        script.contains("Content-Type: application/json"),
        "{script}"
    );
    let output = run_script(&script);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "exit {:?}\nstdout: {stdout}\nstderr: {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("\"rules\":1"),
        "the POST's answer: {stdout}"
    );
    assert!(
        stdout.contains("repeat_cursor") && stdout.contains("/api/v1/dashboard/tasks/history/page"),
        "the plan read back: {stdout}"
    );
}

/// The same script without the JSON content type — the example as it was — fails: the server
/// answers 415 and `curl -f` stops the script. (So the test above can tell a broken example.)
#[test]
fn issue32_fault_plan_example_without_json_content_type_is_refused() {
    let script = script_example().replace(" -H 'Content-Type: application/json'", "");
    // The server is stopped whatever curl says, so nothing outlives the test.
    let script = script.replacen(
        "serve_pid=$!\n",
        "serve_pid=$!\ntrap 'kill $serve_pid 2>/dev/null' EXIT\n",
        1,
    );
    let output = run_script(&script);
    assert!(
        !output.status.success(),
        "a plan posted as form data must be refused"
    );
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("415"),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}
