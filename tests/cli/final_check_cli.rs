//! `masc-tui final-check`: exit codes (0 clean, 1 leaks or invalid reports, 2 usage) and the
//! `--json` field names scripts depend on.

#![allow(clippy::expect_used)] // tests may expect (house rules)

use serde_json::{Value, json};
use std::io::Write;
use std::process::{Command, Output, Stdio};

const DAD: &str = "아빠, 끝났어.\n아빠가 할 일은 없어.";

fn report_line(body: &str) -> String {
    let report = json!({"coop_reports": [{
        "binding_id": "b1", "outcome": "done", "body": body,
        "for_dad": DAD, "evidence": {}
    }]});
    format!("[coop-report]: <{report}>")
}

fn run_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_masc-tui"))
        .arg("final-check")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn masc-tui");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input)
        .expect("write stdin");
    child.wait_with_output().expect("wait masc-tui")
}

fn run_file(text: &str, extra: &[&str]) -> Output {
    let mut file = tempfile::NamedTempFile::new().expect("temp file");
    file.write_all(text.as_bytes()).expect("write temp file");
    let path = file.path().to_string_lossy().into_owned();
    let mut args = vec![path.as_str()];
    args.extend_from_slice(extra);
    run_stdin(&args, b"")
}

fn json_of(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).expect("stdout is one JSON object")
}

#[test]
fn clean_final_exits_zero_and_prints_what_dad_reads() {
    let output = run_file(&format!("{DAD}\n\n{}\n", report_line("covers {repo}")), &[]);
    assert_eq!(output.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("  아빠가 할 일은 없어."), "{stdout}");
    assert!(stdout.contains("leaks: 0"));
    assert!(stdout.contains("hidden lines: 4"));
}

#[test]
fn s2_f1_leak_exits_one_with_line_and_cause() {
    let text = format!("{DAD}\n\n{}", report_line("covers <repo>"));
    let output = run_stdin(&["-"], text.as_bytes());
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("line 4: angle_bracket_in_data"), "{stdout}");
}

#[test]
fn json_shape_has_the_names_scripts_depend_on() {
    let text = format!("{DAD}\n{}", report_line("covers {repo}"));
    let output = run_stdin(&["--json"], text.as_bytes());
    assert_eq!(output.status.code(), Some(1));
    let v = json_of(&output);
    assert_eq!(v["reader_text"], json!(DAD));
    assert_eq!(v["reports"].as_array().map(Vec::len), Some(1));
    assert_eq!(v["reports"][0]["binding_id"], "b1");
    assert_eq!(v["invalid_reports"], json!([]));
    assert_eq!(v["leaks"][0]["line"], 3);
    assert_eq!(v["leaks"][0]["cause"], "no_blank_line_before");
    assert_eq!(v["clean"], false);
}

#[test]
fn json_clean_final_has_empty_leaks_and_hidden_line_indexes() {
    let text = format!("{DAD}\n\n[coop-read]: <COOP_READ 9>\n{}", report_line("x"));
    let output = run_file(&text, &["--json"]);
    assert_eq!(output.status.code(), Some(0));
    let v = json_of(&output);
    assert_eq!(v["leaks"], json!([]));
    assert_eq!(v["hidden_lines"][0]["line_index"], 3);
    assert_eq!(v["hidden_lines"][1]["line_index"], 4);
    assert_eq!(v["reader_source"]["source"], "for_dad");
}

#[test]
fn extra_key_exits_one_through_invalid_reports() {
    let report = json!({"coop_reports": [{
        "binding_id":"b1","outcome":"done","body":"x","for_dad":"아빠","evidence":{},"evidnce":{}
    }]});
    let text = format!("{DAD}\n\n[coop-report]: <{report}>");
    let output = run_stdin(&["--json", "-"], text.as_bytes());
    assert_eq!(output.status.code(), Some(1));
    let v = json_of(&output);
    assert_eq!(v["leaks"], json!([]));
    assert_eq!(v["reports"], json!([]));
    assert_eq!(v["invalid_reports"][0]["cause"], "invalid_field_set");
    assert_eq!(v["invalid_reports"][0]["extra"], json!(["evidnce"]));
}

#[test]
fn plain_prose_without_reports_is_clean() {
    let output = run_stdin(&[], "아빠, {repo} 은 JSON이 아니야.".as_bytes());
    assert_eq!(output.status.code(), Some(0));
}

#[test]
fn usage_errors_exit_two() {
    let missing = run_stdin(&["/nonexistent/final.md"], b"");
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("cannot read"));
    let unknown_flag = run_stdin(&["--nope"], b"");
    assert_eq!(unknown_flag.status.code(), Some(2));
    let not_utf8 = run_stdin(&["-"], &[0x61, 0xff, 0x62]);
    assert_eq!(not_utf8.status.code(), Some(2));
}

#[test]
fn control_characters_from_the_worker_are_escaped_on_the_terminal() {
    let output = run_stdin(&[], "아빠\u{1b}[31m 빨강".as_bytes());
    assert_eq!(output.status.code(), Some(0));
    assert!(!output.stdout.contains(&0x1b));
}
