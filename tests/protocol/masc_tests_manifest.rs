//! Every case of MASC's own decoder and schema tests that concerns a payload masc-tui reads
//! (tests/fixtures/masc-tests/MANIFEST.tsv: one fixture per case, written from the test's
//! shape) decodes or is refused exactly as the manifest's `expect` says, and the manifest's
//! `agreement` column is honest: a row marked `agree` has masc-tui's outcome equal to MASC's
//! (accepted ⇔ decoded), a row marked `differ` says why and has the other outcome. The
//! figures are those docs/compatibility.md states.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code

use masc_tui::protocol::kinds::{KINDS, decode_kind};
use std::collections::BTreeMap;
use std::path::Path;

struct Row<'a> {
    file: &'a str,
    kind: &'a str,
    masc_test: &'a str,
    version: &'a str,
    masc: &'a str,
    expect: &'a str,
    agreement: &'a str,
}

fn rows(manifest: &str) -> Vec<Row<'_>> {
    let mut lines = manifest.lines();
    assert_eq!(
        lines.next(),
        Some("file\tkind\tmasc_test\tversion\tmasc\texpect\tagreement"),
        "manifest header"
    );
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let c: Vec<&str> = line.split('\t').collect();
            assert_eq!(c.len(), 7, "seven columns: {line}");
            Row {
                file: c[0],
                kind: c[1],
                masc_test: c[2],
                version: c[3],
                masc: c[4],
                expect: c[5],
                agreement: c[6],
            }
        })
        .collect()
}

/// `decode`, `decode~<text the summary holds>` or `reject:<reason>`, against what the kind's
/// decoder gave.
fn meets(expect: &str, got: &Result<String, String>) -> bool {
    match (expect.strip_prefix("reject:"), got) {
        (Some(reason), Err(r)) => r == reason,
        (None, Ok(summary)) => match expect.strip_prefix("decode~") {
            Some(text) => summary.contains(text),
            None => expect == "decode",
        },
        _ => false,
    }
}

#[derive(Default)]
struct Tally {
    checked: usize,
    agreed: usize,
    differ: usize,
}

#[test]
fn masc_decoder_test_cases_decode_or_are_refused_as_the_manifest_says() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/masc-tests");
    let manifest = std::fs::read_to_string(dir.join("MANIFEST.tsv")).unwrap();
    let mut failures = Vec::new();
    let mut by_kind: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut files = std::collections::BTreeSet::new();
    for r in rows(&manifest) {
        assert!(files.insert(r.file), "{} listed twice", r.file);
        assert!(
            KINDS.contains(&r.kind),
            "{}: kind {} is not in KINDS",
            r.file,
            r.kind
        );
        assert!(
            r.masc_test.contains(" › ") && !r.version.is_empty(),
            "{}: names its MASC test and version",
            r.file
        );
        let bytes = std::fs::read(dir.join(r.file)).unwrap();
        let got = match decode_kind(r.kind, &bytes).expect("known kind") {
            Ok(summary) => Ok(summary),
            Err(e) => Err(e.reason().to_string()),
        };
        if !meets(r.expect, &got) {
            failures.push(format!("{}: expected {}, got {got:?}", r.file, r.expect));
        }
        let masc_accepts = r.masc.starts_with("accept");
        assert!(
            masc_accepts || r.masc.starts_with("reject"),
            "{}: masc column is accept… or reject…",
            r.file
        );
        let tally = by_kind.entry(r.kind).or_default();
        tally.checked += 1;
        let decoded = !r.expect.starts_with("reject:");
        if r.agreement.starts_with("agree") {
            assert_eq!(
                decoded, masc_accepts,
                "{}: marked agree, but MASC {} and masc-tui {}",
                r.file, r.masc, r.expect
            );
            tally.agreed += 1;
        } else {
            let why = r.agreement.strip_prefix("differ: ");
            assert!(
                why.is_some_and(|w| w.len() > 20),
                "{}: a difference says why",
                r.file
            );
            assert_ne!(
                decoded,
                masc_accepts,
                "{}: marked differ, but both {}",
                r.file,
                if decoded { "accept" } else { "refuse" }
            );
            tally.differ += 1;
        }
    }
    assert!(
        failures.is_empty(),
        "manifest mismatches:\n{}",
        failures.join("\n")
    );
    let total = by_kind.values().fold(Tally::default(), |mut t, k| {
        t.checked += k.checked;
        t.agreed += k.agreed;
        t.differ += k.differ;
        t
    });
    println!(
        "{:<30} {:>7} {:>6} {:>6}",
        "kind", "checked", "agree", "differ"
    );
    for (kind, t) in &by_kind {
        println!(
            "{kind:<30} {:>7} {:>6} {:>6}",
            t.checked, t.agreed, t.differ
        );
    }
    // The figures docs/compatibility.md reports are the manifest's.
    let doc = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/compatibility.md"),
    )
    .unwrap();
    let figures = format!(
        "{} cases checked, {} agreed, {} deliberately different",
        total.checked, total.agreed, total.differ
    );
    assert!(
        doc.contains(&figures),
        "docs/compatibility.md states: {figures}"
    );
    for (kind, t) in &by_kind {
        let row = format!("| `{kind}` | {} | {} | {} |", t.checked, t.agreed, t.differ);
        assert!(
            doc.contains(&row),
            "docs/compatibility.md has the row {row}"
        );
    }
}
