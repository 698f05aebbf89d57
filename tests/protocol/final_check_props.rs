//! Property tests: arbitrary text never panics, and on documents assembled from report-line
//! fragments the checker's verdict always matches what pulldown-cmark renders.
//!
//! Past failures replay from `tests/proptest-regressions/final_check_props.txt`: proptest's
//! default location for a module of a `tests/<binary>/main.rs` test binary.

use masc_tui::protocol::coop_report::analyse;
use proptest::prelude::*;
use pulldown_cmark::{Event, Parser};

fn rendered(text: &str) -> String {
    let mut out = String::new();
    for event in Parser::new(text) {
        match event {
            Event::Text(s)
            | Event::Code(s)
            | Event::Html(s)
            | Event::InlineHtml(s)
            | Event::InlineMath(s)
            | Event::DisplayMath(s) => out.push_str(&s),
            Event::SoftBreak | Event::HardBreak | Event::End(_) => out.push('\n'),
            Event::Rule => out.push_str("---\n"),
            _ => {}
        }
    }
    out
}

const REPORT: &str = r#"{"coop_reports":[{"binding_id":"b","outcome":"done","body":"x","evidence":{},"for_dad":"아빠 됐어"}]}"#;
const ANGLE: &str = r#"{"coop_reports":[{"binding_id":"b","outcome":"done","body":"<repo>","evidence":{},"for_dad":"아빠"}]}"#;

fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("아빠, 끝났어.".to_owned()),
        Just("Some prose with {repo} and { braces }.".to_owned()),
        Just(String::new()),
        Just("```".to_owned()),
        Just("# 제목".to_owned()),
        Just("> 인용".to_owned()),
        Just("- 항목".to_owned()),
        Just(format!("[coop-report]: <{REPORT}>")),
        Just(format!("   [coop-report]: <{REPORT}>")),
        Just(format!("    [coop-report]: <{REPORT}>")),
        Just(format!("[coop-report]: <{ANGLE}>")),
        Just(format!("[coop-report]: <{REPORT}> trailing")),
        Just(format!("[coop-report]: <{REPORT}> \"title\"")),
        Just(REPORT.to_owned()),
        Just("[coop-read]: <COOP_READ 1>".to_owned()),
        Just("[coop-reply]: <COOP_REPLY 2> x".to_owned()),
    ]
}

fn document() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(fragment(), 0..8),
        prop_oneof![Just("\n"), Just("\r\n")],
    )
        .prop_map(|(lines, eol)| lines.join(eol))
}

proptest! {
    #[test]
    fn arbitrary_text_never_panics(text in any::<String>()) {
        let analysis = analyse(&text);
        prop_assert!(analysis.reader_text.text.chars().count() <= text.chars().count().max(1200));
    }

    #[test]
    fn brace_heavy_text_never_panics(text in r#"[{}\[\]":,<> \n\r\\a-z0-9]{0,200}"#) {
        let _ = analyse(&text);
        let _ = analyse(&format!("[coop-report]: <{text}>"));
    }

    /// A leak is reported exactly when the renderer shows report text (its key or its label).
    #[test]
    fn leak_verdict_matches_the_renderer(text in document()) {
        let analysis = analyse(&text);
        let shown = rendered(&text);
        let renderer_leaks = shown.contains("coop_reports") || shown.contains("coop-")
            || shown.contains("COOP_");
        prop_assert_eq!(!analysis.leaks.is_empty(), renderer_leaks, "{:?} rendered {:?}", text, shown);
    }

    /// Hidden lines are really invisible: deleting them does not change the displayed words.
    /// (Whitespace is compared loosely: a hidden definition inside a list item can turn a tight
    /// list loose, which changes paragraph wrapping but no displayed text; and a leaked
    /// `[coop-report]` elsewhere is a shortcut link while the hidden definition exists, so
    /// its brackets show once the definition is gone — brackets are ignored.)
    #[test]
    fn hidden_lines_do_not_change_the_rendering(text in document()) {
        let analysis = analyse(&text);
        let hidden: Vec<usize> = analysis.hidden_lines.iter().map(|h| h.line_index).collect();
        let kept: String = text
            .split_inclusive('\n')
            .enumerate()
            .filter(|(i, _)| !hidden.contains(i))
            .map(|(_, line)| line)
            .collect();
        let words = |s: &str| {
            s.replace(['[', ']'], " ").split_whitespace().map(str::to_owned).collect::<Vec<_>>()
        };
        prop_assert_eq!(words(&rendered(&kept)), words(&rendered(&text)), "{:?} hidden {:?}", text, hidden);
    }
}

proptest! {
    /// Every leak in documents built from the known failure shapes gets a named cause.
    #[test]
    fn every_leak_of_a_known_shape_is_explained(text in document()) {
        let analysis = analyse(&text);
        for leak in &analysis.leaks {
            prop_assert_ne!(leak.cause, masc_tui::protocol::coop_report::LeakCause::Unexplained,
                "{:?}: {:?}", text, leak);
        }
    }
}
