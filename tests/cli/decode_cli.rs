//! `masc-tui decode --as KIND FILE`: exit 0 decoded, 1 rejected, 2 usage.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code

use masc_tui::cli::decode::{Args, EXIT_DECODED, EXIT_REJECTED, EXIT_USAGE, run_with};
use std::path::{Path, PathBuf};
use std::process::Command;

fn fixtures_dir() -> Option<PathBuf> {
    let near = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/masc");
    if near.join("MANIFEST.tsv").exists() {
        return Some(near);
    }
    let abs = PathBuf::from("/work/shared/fixtures/masc");
    abs.join("MANIFEST.tsv").exists().then_some(abs)
}

fn run(kind: &str, file: &Path, stdin: &[u8]) -> (i32, String, String) {
    let args = Args {
        kind: kind.to_string(),
        file: file.to_path_buf(),
    };
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = run_with(&args, &mut &stdin[..], &mut out, &mut err).unwrap();
    (
        code,
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
    )
}

#[test]
fn decoded_payload_prints_its_summary() {
    let body = br#"{"count":2,"total":2,"truncated":false,"candle":{"status":"off"},"keepers":[
        {"name":"a","status":"active"},{"name":"b","status":"idle"}]}"#;
    let (code, out, _) = run("gate_keepers", Path::new("-"), body);
    assert_eq!(code, EXIT_DECODED);
    assert_eq!(
        out.trim(),
        "gate_keepers: 2 keepers (active 1, idle 1), candle off, total 2, not truncated"
    );
}

#[test]
fn refused_payload_prints_reason_and_path() {
    let body =
        br#"{"count":1,"total":1,"truncated":false,"keepers":[{"name":"a","status":"running"}]}"#;
    let (code, out, _) = run("gate_keepers", Path::new("-"), body);
    assert_eq!(code, EXIT_REJECTED);
    assert!(
        out.starts_with("rejected: unknown_variant at .keepers[0].status: "),
        "{out}"
    );
}

#[test]
fn usage_errors_exit_2() {
    let (code, _, err) = run("no_such_kind", Path::new("-"), b"{}");
    assert_eq!(code, EXIT_USAGE);
    assert!(err.contains("valid kinds:") && err.contains("keeper_chat_stream"));
    let (code, _, err) = run(
        "planning",
        Path::new("/nonexistent/masc-tui/file.json"),
        b"",
    );
    assert_eq!(code, EXIT_USAGE);
    assert!(err.contains("cannot read"));
}

#[test]
fn binary_reads_sse_transcripts_and_reports_exit_codes() {
    let Some(dir) = fixtures_dir() else {
        println!("fixtures absent, skipping");
        return;
    };
    let bin = env!("CARGO_BIN_EXE_masc-tui");
    let decode = |kind: &str, file: &str| {
        Command::new(bin)
            .args(["decode", "--as", kind])
            .arg(dir.join(file))
            .output()
            .unwrap()
    };
    let ok = decode(
        "keeper_chat_stream",
        "keeper_chat_stream__success_visible_reply_recorded.sse",
    );
    assert_eq!(ok.status.code(), Some(0));
    let text = String::from_utf8_lossy(&ok.stdout);
    assert!(text.starts_with("keeper_chat_stream: completed"), "{text}");
    let cut = decode(
        "keeper_chat_stream",
        "keeper_chat_stream__accepted_then_eof_partial_recorded.sse",
    );
    assert_eq!(cut.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&cut.stdout).starts_with("rejected: stream_interrupted at ."));
    let usage = Command::new(bin)
        .args(["decode", "--as", "bogus", "-"])
        .output()
        .unwrap();
    assert_eq!(usage.status.code(), Some(2));
}
