//! Everything the CLI prints passes the one sanitiser (T.7 plus bidi), for
//! every subcommand, in text and in JSON, on stdout and stderr: hostile trace files (source
//! names from connector ids), hostile finals, hostile payloads, hostile file names and
//! `serve`'s printed line. JSON keeps the exact values (escaped as `\uXXXX`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code

use masc_tui::sanitize::is_terminal_safe;
use serde_json::{Value, json};
use std::io::{BufRead, Write};
use std::process::{Command, Output, Stdio};

/// The hostile strings of the issue: OSC 0 title, OSC 52 clipboard, OSC 8 link, erase screen,
/// C1 CSI (U+009B), bidi override, BEL, DEL, a lone CR.
const HOSTILE: &[&str] = &[
    "\u{1b}]0;pwned title\u{7}",
    "\u{1b}]52;c;ZXZpbA==\u{7}",
    "\u{1b}]8;;http://evil.example\u{1b}\\link\u{1b}]8;;\u{1b}\\",
    "\u{1b}[2J\u{1b}[H",
    "\u{9b}31mred",
    "admin\u{202e}gpj.exe",
    "\u{2066}iso\u{2069}\u{200f}",
    "del\u{7f}cr\rback",
];

fn all_hostile() -> String {
    HOSTILE.concat()
}

fn bin() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_masc-tui"));
    cmd.env_remove("RUST_LOG");
    // Default trace files (demo) land here, not in the real state directory.
    cmd.env(
        "XDG_STATE_HOME",
        std::env::temp_dir().join("masc-tui-cli-output-tests"),
    );
    cmd
}

fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = bin()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn masc-tui");
    // A usage error exits before reading its stdin: the write then meets a closed pipe, which
    // says nothing about the output under test (a race that shows under load).
    match child.stdin.take().unwrap().write_all(stdin) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        other => other.unwrap(),
    }
    child.wait_with_output().expect("wait masc-tui")
}

/// Both streams are UTF-8 with no control (other than line feeds) and no bidi control.
fn assert_safe(output: &Output, what: &str) {
    for (name, bytes) in [("stdout", &output.stdout), ("stderr", &output.stderr)] {
        let text = std::str::from_utf8(bytes)
            .unwrap_or_else(|e| panic!("{what}: {name} is not UTF-8: {e}"));
        assert!(
            is_terminal_safe(text),
            "{what}: {name} carries a control or bidi character: {text:?}"
        );
    }
}

fn hostile_trace() -> tempfile::NamedTempFile {
    let mut file = tempfile::NamedTempFile::new().unwrap();
    writeln!(file, "{}", json!({"kind": "process", "pid": 7, "ts_us": 0})).unwrap();
    for (g, name) in HOSTILE.iter().enumerate() {
        let source = format!("connector_names:{name}");
        let g = g as u64 + 1;
        for (stage, extra) in [
            ("dispatch", json!({})),
            (
                "worker_return",
                json!({"outcome": format!("status_{name}")}),
            ),
            ("reject", json!({"reason": format!("why{name}")})),
            ("refused", json!({"reason": name})),
        ] {
            let mut line = json!({"ts_us": g * 100, "pid": 7, "stage": stage,
                "source": source, "generation": g, "epoch": 1});
            line.as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            writeln!(file, "{line}").unwrap();
        }
    }
    // Raw control bytes outside JSON and invalid UTF-8 are unparsed lines, never echoed.
    file.write_all(b"\x1b]0;raw\x07 not json\n\x9b\xff\n")
        .unwrap();
    file.flush().unwrap();
    file
}

#[test]
fn issue16_timeline_text_and_json_escape_hostile_source_names() {
    let trace = hostile_trace();
    let path = trace.path().to_str().unwrap();
    let text = run(&["timeline", path], b"");
    assert_eq!(text.status.code(), Some(0), "{text:?}");
    assert_safe(&text, "timeline");
    let stdout = String::from_utf8_lossy(&text.stdout);
    assert!(
        stdout.contains("connector_names:\\x1B]0;pwned title\\x07"),
        "{stdout}"
    );
    assert!(stdout.contains("\\u009B31mred"));
    assert!(stdout.contains("admin\\u202Egpj.exe"));

    let json_out = run(&["timeline", path, "--json"], b"");
    assert_eq!(json_out.status.code(), Some(0));
    assert_safe(&json_out, "timeline --json");
    let raw = String::from_utf8_lossy(&json_out.stdout);
    assert!(raw.contains("\\u001B]0;pwned title\\u0007"), "{raw}");
    assert!(raw.contains("\\u009B31mred") && raw.contains("\\u202E"));
    // A JSON reader still gets the exact names back.
    let report: Value = serde_json::from_slice(&json_out.stdout).unwrap();
    let names: Vec<&str> = report["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["source"].as_str().unwrap())
        .collect();
    for name in HOSTILE {
        assert!(
            names.contains(&format!("connector_names:{name}").as_str()),
            "{name:?} in {names:?}"
        );
    }
    assert_eq!(report["unparsed_lines"], 2);
}

#[test]
fn issue16_timeline_run_with_sanitises_in_process() {
    let trace = hostile_trace();
    let mut out = Vec::new();
    let args = masc_tui::cli::timeline::Args {
        file: trace.path().to_path_buf(),
        json: false,
        chrome_trace: None,
        svg: None,
    };
    assert_eq!(
        masc_tui::cli::timeline::run_with(&args, &mut out).unwrap(),
        0
    );
    assert!(is_terminal_safe(std::str::from_utf8(&out).unwrap()));
}

fn hostile_final() -> String {
    let report = json!({"coop_reports": [{
        "binding_id": format!("b{}", all_hostile()),
        "outcome": format!("done{}", HOSTILE[0]),
        "body": all_hostile(),
        "for_dad": format!("아빠{}", all_hostile()),
        "evidence": {"k\u{9b}": all_hostile()},
    }]});
    // A clean hidden line, a leaking line (a paragraph before it), and hostile prose.
    format!(
        "아빠 {}\n\n[coop-report]: <{report}>\n\nprose{}\n[coop-report]: <{{\"coop_reports\":[{{\"binding_id\":\"x{}\"}}]}}>\n",
        HOSTILE[3], HOSTILE[4], HOSTILE[5]
    )
}

#[test]
fn issue16_final_check_text_and_json_escape_worker_controls() {
    let text = hostile_final();
    let plain = run(&["final-check"], text.as_bytes());
    assert!(matches!(plain.status.code(), Some(0 | 1)), "{plain:?}");
    assert_safe(&plain, "final-check");
    let stdout = String::from_utf8_lossy(&plain.stdout);
    assert!(
        stdout.contains("\\x1B["),
        "controls are shown, escaped: {stdout}"
    );

    let json_out = run(&["final-check", "--json"], text.as_bytes());
    assert_safe(&json_out, "final-check --json");
    let v: Value = serde_json::from_slice(&json_out.stdout).unwrap();
    assert!(
        v["reader_text"].as_str().unwrap().contains(HOSTILE[0]),
        "the JSON value is exact: {v}"
    );
    let raw = String::from_utf8_lossy(&json_out.stdout);
    assert!(raw.contains("\\u009B") && raw.contains("\\u202E") && raw.contains("\\u001B"));
}

#[test]
fn issue16_decode_summary_rejection_and_usage_lines_are_sanitised() {
    // A rejection whose path and detail quote hostile keys and values.
    let hostile_key = json!({"count": 1, "total": 1, "truncated": false,
        "keepers": [{"name": all_hostile(), "status": all_hostile()}]});
    let out = run(
        &["decode", "--as", "gate_keepers", "-"],
        hostile_key.to_string().as_bytes(),
    );
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_safe(&out, "decode rejection");
    let closed = json!({"candle": {"status": "off", all_hostile(): 1}, "count": 0,
        "total": 0, "truncated": false, "keepers": []});
    let out = run(
        &["decode", "--as", "gate_keepers", "-"],
        closed.to_string().as_bytes(),
    );
    assert_safe(&out, "decode rejection with a hostile key");
    // Every manifest kind on a hostile document: decoded or rejected, never raw.
    for kind in masc_tui::protocol::kinds::KINDS {
        let body = json!({"error": all_hostile(), "name": all_hostile(), "id": all_hostile(),
            "status": all_hostile(), "message": all_hostile(), all_hostile(): all_hostile()});
        let out = run(&["decode", "--as", kind, "-"], body.to_string().as_bytes());
        assert_safe(&out, &format!("decode --as {kind}"));
        let raw = format!("{}\n\u{9b}\u{1b}]0;x\u{7}", all_hostile());
        let out = run(&["decode", "--as", kind, "-"], raw.as_bytes());
        assert_safe(&out, &format!("decode --as {kind} (not JSON)"));
    }
    // A summary that quotes server names (the roster summary names no keeper; the board
    // post summary quotes a title).
    let out = run(&["decode", "--as", &all_hostile(), "-"], b"{}");
    assert_eq!(out.status.code(), Some(2));
    assert_safe(&out, "decode unknown kind");
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join(format!("missing{}.json", HOSTILE[0]));
    let out = run(
        &["decode", "--as", "gate_keepers", missing.to_str().unwrap()],
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
    assert_safe(&out, "decode unreadable hostile file name");
    assert!(String::from_utf8_lossy(&out.stderr).contains("\\x1B]0;"));
}

#[test]
fn issue16_error_lines_of_every_subcommand_are_sanitised() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir
        .path()
        .join(format!("trace{}.jsonl", all_hostile().replace('/', "")));
    let path = missing.to_str().unwrap();
    for args in [
        vec!["timeline", path],
        vec!["timeline", path, "--json"],
        vec!["final-check", path],
        vec!["serve", "--port", "0", "--faults", path],
        vec!["demo", "--faults", path],
    ] {
        let out = run(&args, b"");
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        assert_safe(&out, &format!("{args:?}"));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.starts_with("masc-tui: "), "{stderr}");
        assert!(stderr.contains("\\x1B]0;pwned"), "{stderr}");
    }
    // `doctor` against an unreachable URL that carries controls: the report, text or JSON,
    // shows them escaped.
    let url = format!("http://127.0.0.1:9/{}", HOSTILE[0]);
    for json in [false, true] {
        let mut args = vec!["doctor", "--url", url.as_str(), "--timeout", "2"];
        if json {
            args.push("--json");
        }
        let out = run(&args, b"");
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        assert_safe(&out, &format!("{args:?}"));
    }
    // A final that is not UTF-8.
    let out = run(&["final-check"], b"ok\xff\x9b");
    assert_eq!(out.status.code(), Some(2));
    assert_safe(&out, "final-check not UTF-8");
}

/// `serve` prints `MASC_URL=… MASC_TOKEN=… MASC_BASE_PATH=…`: a token or data directory
/// holding controls is printed escaped.
#[test]
fn issue16_serve_line_escapes_a_hostile_token_and_data_dir() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join(format!("ws{}", HOSTILE[0]));
    let token = format!("tok{}", HOSTILE[1]);
    let mut child = bin()
        .args([
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--data",
            data.to_str().unwrap(),
            "--token",
            &token,
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let status = child.wait().unwrap();
    assert!(line.starts_with("MASC_URL=http://127.0.0.1:"), "{line:?}");
    assert!(is_terminal_safe(&line), "{line:?}");
    assert!(line.contains("\\x1B]52;c;ZXZpbA==\\x07"), "{line:?}");
    assert!(line.contains("ws\\x1B]0;pwned title\\x07"), "{line:?}");
    assert!(status.code().is_some(), "serve ended by itself on SIGTERM");
}
