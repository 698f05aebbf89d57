#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! `masc-tui timeline FILE --svg OUT.svg`: the swimlane picture of the same tickets the Chrome
//! trace shows (G-1: read-path evidence), drawn by plotters' SVG backend.

use super::timeline_chrome::sample_trace;
use masc_tui::cli::timeline::{Args, run_with};

fn count(haystack: &str, needle: &str) -> usize {
    haystack.matches(needle).count()
}

#[test]
fn g1_svg_draws_a_row_per_source_lane_a_bar_per_ticket_and_a_mark_per_reason() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("trace.jsonl");
    std::fs::write(&input, sample_trace()).unwrap();
    let output = dir.path().join("out.svg");
    let args = Args {
        file: input,
        json: false,
        chrome_trace: None,
        svg: Some(output.clone()),
    };
    let mut printed = Vec::new();
    assert_eq!(run_with(&args, &mut printed).unwrap(), 0);
    let printed = String::from_utf8(printed).unwrap();
    assert!(printed.contains("swimlane picture: 8 tickets"), "{printed}");
    let svg = std::fs::read_to_string(&output).unwrap();
    assert!(svg.starts_with("<svg"), "{}", &svg[..80]);
    assert!(svg.trim_end().ends_with("</svg>"));
    // A chart per process, a row label per source lane.
    assert!(svg.contains("masc-tui (pid 7)"));
    assert!(svg.contains("masc-tui (pid 8)"));
    for label in [
        "keepers_roster",
        "keepers_roster (2)",
        "save:approval",
        "board",
    ] {
        assert_eq!(
            count(&svg, &format!("\n{label}\n</text>")),
            1,
            "row {label}"
        );
    }
    // Bars by outcome colour (each colour also once per legend that lists it): admitted 3 in
    // pid 7 and 1 in pid 8; rejected, retired, unfinished and admitted-after-failure 1 each.
    let bars = |colour: &str| count(&svg, &format!(r#"fill="{colour}" stroke="none""#));
    assert_eq!(bars("#4CA05A"), 4 + 2);
    for colour in ["#CD463C", "#969696", "#78AADC", "#E69628"] {
        assert_eq!(bars(colour), 2, "{colour}");
    }
    // A triangle per mark (failure, rejection, retirement, refusal, restart) and per legend
    // line of a mark.
    assert_eq!(count(&svg, "<polygon"), 5 + 5);
    for legend in [
        "mark: rejected (1)",
        "mark: refused demand (1)",
        "mark: restart (1)",
    ] {
        assert!(svg.contains(legend), "{legend}");
    }
}
