//! Every row of the fixture manifest decodes or is rejected exactly as `expect` says.
//!
//! Every kind has a decoder: a kind answering `decoder_not_built` fails the test.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code

use masc_tui::protocol::kinds::{KINDS, decode_kind};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn fixtures_dir() -> Option<PathBuf> {
    let near = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/masc");
    if near.join("MANIFEST.tsv").exists() {
        return Some(near);
    }
    let abs = PathBuf::from("/work/shared/fixtures/masc");
    abs.join("MANIFEST.tsv").exists().then_some(abs)
}

#[derive(Default)]
struct Tally {
    decoded: usize,
    rejected: usize,
    skipped: usize,
}

#[test]
fn manifest_rows_decode_or_reject_as_expected() {
    let Some(dir) = fixtures_dir() else {
        println!("fixtures absent, skipping");
        return;
    };
    let manifest = std::fs::read_to_string(dir.join("MANIFEST.tsv")).unwrap();
    let mut tally: BTreeMap<String, Tally> = BTreeMap::new();
    let mut failures = Vec::new();
    for (line_no, line) in manifest.lines().enumerate().skip(1) {
        if line.trim().is_empty() {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        assert!(
            cols.len() >= 3,
            "MANIFEST line {} has too few columns",
            line_no + 1
        );
        let (file, kind, expect) = (cols[0], cols[1], cols[cols.len() - 1]);
        assert!(
            KINDS.contains(&kind),
            "manifest kind {kind} is not in KINDS"
        );
        let bytes = std::fs::read(dir.join(file)).unwrap();
        let entry = tally.entry(kind.to_string()).or_default();
        let result = decode_kind(kind, &bytes).expect("known kind");
        match (&result, expect.strip_prefix("reject:")) {
            (Err(e), _) if e.reason() == "decoder_not_built" => entry.skipped += 1,
            (Ok(_), None) => entry.decoded += 1,
            (Err(e), Some(reason)) if e.reason() == reason => entry.rejected += 1,
            (Ok(summary), Some(reason)) => failures.push(format!(
                "{file}: expected reject:{reason}, decoded: {summary}"
            )),
            (Err(e), expected) => failures.push(format!(
                "{file}: expected {}, got {e}",
                expected.map_or("decode".to_string(), |r| format!("reject:{r}"))
            )),
        }
    }
    println!(
        "{:<32} {:>7} {:>8} {:>7}",
        "kind", "decoded", "rejected", "skipped"
    );
    for (kind, t) in &tally {
        println!(
            "{kind:<32} {:>7} {:>8} {:>7}",
            t.decoded, t.rejected, t.skipped
        );
    }
    let skipped: Vec<&String> = tally
        .iter()
        .filter(|(_, t)| t.skipped > 0)
        .map(|(k, _)| k)
        .collect();
    assert!(skipped.is_empty(), "kinds without a decoder: {skipped:?}");
    assert!(
        failures.is_empty(),
        "manifest mismatches:\n{}",
        failures.join("\n")
    );
}
