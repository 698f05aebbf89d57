//! Every fixture of the system kinds decodes or rejects exactly as MANIFEST.tsv says,
//! reason included (protocol.md §6–§10).

// Tests may unwrap (house rules); the helpers below are test-only.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
use masc_tui::protocol::kinds::system as kinds_system;
use std::path::{Path, PathBuf};

const SYSTEM_KINDS: &[&str] = &[
    "dashboard_tools",
    "skills_snapshot",
    "async_requests",
    "gate_connectors",
    "connector_names_page",
    "board_posts",
    "board_post_detail",
    "board_hearths",
    "runtime_resolved",
    "runtime_config_raw",
    "runtime_config_conflict",
    "keeper_config_snapshot",
    "keeper_config_save_responses",
    "runtime_assignment_responses",
    "keeper_asks",
    "ask_answer_responses",
    "operator_summary",
];

fn fixtures_dir() -> Option<PathBuf> {
    let near = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/masc");
    if near.exists() {
        return Some(near);
    }
    let abs = PathBuf::from("/work/shared/fixtures/masc");
    abs.exists().then_some(abs)
}

struct Row {
    file: String,
    kind: String,
    expect: String,
}

fn manifest(dir: &Path) -> Vec<Row> {
    let text = std::fs::read_to_string(dir.join("MANIFEST.tsv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (f, k, e) = (col("file"), col("kind"), col("expect"));
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let cells: Vec<&str> = l.split('\t').collect();
            Row {
                file: cells[f].to_string(),
                kind: cells[k].to_string(),
                expect: cells[e].trim().to_string(),
            }
        })
        .collect()
}

#[test]
fn system_kinds_match_manifest() {
    let Some(dir) = fixtures_dir() else {
        println!("fixtures absent, skipping");
        return;
    };
    let rows: Vec<Row> = manifest(&dir)
        .into_iter()
        .filter(|r| SYSTEM_KINDS.contains(&r.kind.as_str()))
        .collect();
    assert!(!rows.is_empty(), "the manifest lists system fixtures");
    let mut failures = Vec::new();
    for row in &rows {
        let bytes = std::fs::read(dir.join(&row.file)).unwrap();
        let got = kinds_system::decode(&row.kind, &bytes).expect("kind is a system kind");
        let got_text = match &got {
            Ok(_) => "decode".to_string(),
            Err(e) => format!("reject:{}", e.reason()),
        };
        if got_text != row.expect {
            failures.push(format!(
                "{}: expected {}, got {} ({:?})",
                row.file, row.expect, got_text, got
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let rejects = rows
        .iter()
        .filter(|r| r.expect.starts_with("reject:"))
        .count();
    println!(
        "{} system fixtures checked, {rejects} of them rejections",
        rows.len()
    );
    assert!(rejects > 0 && rejects < rows.len());
}

#[test]
fn every_system_kind_has_a_fixture_and_a_decoder() {
    let Some(dir) = fixtures_dir() else {
        println!("fixtures absent, skipping");
        return;
    };
    let rows = manifest(&dir);
    for kind in SYSTEM_KINDS {
        assert!(
            rows.iter().any(|r| r.kind == *kind),
            "{kind} has no fixture"
        );
        assert!(kinds_system::decode(kind, b"{}").is_some(), "{kind}");
    }
    assert!(kinds_system::decode("health", b"{}").is_none());
}
