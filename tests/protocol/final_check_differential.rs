//! `final-check` against a second renderer. Documents generated from report
//! line fragments in adversarial contexts are rendered to HTML by comrak (a port of cmark-gfm,
//! the CommonMark reference) and by pulldown-cmark; what a reader sees is the HTML's text
//! (comments, tags and attributes — an image's alt text — are never shown). Wherever the two
//! renderers agree, the checker's verdict must agree with them. Where they disagree, the
//! document's line endings or whitespace are one of the documented differences
//! (docs/audits/chat.md, "final-check and CommonMark"); a long label is not one of them: there
//! comrak (with cmark, commonmark.js and markdown-it) is right and the checker follows it.

use masc_tui::protocol::coop_report::analyse;
use proptest::prelude::*;

/// The text a reader sees in rendered HTML: comments, tags (with their attributes) and
/// declarations dropped, the five entities and numeric references decoded.
fn reader_sees(html: &str) -> String {
    let mut out = String::new();
    let mut rest = html;
    while let Some(at) = rest.find('<') {
        out.push_str(&rest[..at]);
        let after = &rest[at..];
        // A browser reads `<` as markup only before a letter, `/`, `!` or `?`.
        let markup = after
            .chars()
            .nth(1)
            .is_some_and(|c| c.is_ascii_alphabetic() || matches!(c, '/' | '!' | '?'));
        if !markup {
            out.push('<');
            rest = &after[1..];
            continue;
        }
        let end = if after.starts_with("<!--") {
            after.find("-->").map(|e| e + 3)
        } else {
            after.find('>').map(|e| e + 1)
        };
        rest = end.map_or("", |e| &after[e..]);
    }
    out.push_str(rest);
    out.replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

fn shows_report(seen: &str) -> bool {
    seen.contains("coop_reports") || seen.contains("coop-") || seen.contains("COOP_")
}

fn comrak_sees(text: &str) -> String {
    let mut options = comrak::Options::default();
    options.render.r#unsafe = true;
    reader_sees(&comrak::markdown_to_html(text, &options))
}

fn pulldown_sees(text: &str) -> String {
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, pulldown_cmark::Parser::new(text));
    reader_sees(&html)
}

const REPORT: &str = r#"{"coop_reports":[{"binding_id":"b","outcome":"done","body":"x","evidence":{},"for_dad":"아빠 됐어"}]}"#;

fn long_label() -> String {
    format!("coop-report{}", "x".repeat(1000))
}

fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("아빠, 끝났어.".to_owned()),
        Just(String::new()),
        Just(String::new()),
        Just("```".to_owned()),
        Just("> 인용".to_owned()),
        Just("- 항목".to_owned()),
        Just("<div>".to_owned()),
        Just("</div>".to_owned()),
        Just("<!--".to_owned()),
        Just("-->".to_owned()),
        Just(format!("[coop-report]: <{REPORT}>")),
        Just(format!("> [coop-report]: <{REPORT}>")),
        Just("> [coop-report]:".to_owned()),
        Just(format!("> <{REPORT}>")),
        Just("[coop-report]:".to_owned()),
        Just(format!("<{REPORT}>")),
        Just(format!("<!-- [coop-report]: <{REPORT}> -->")),
        Just(format!("글 <!-- [coop-report]: <{REPORT}> --> 끝")),
        Just(format!("![[coop-report]: <{REPORT}>](x.png)")),
        Just(format!("그림 ![{REPORT}](x.png)")),
        Just(format!("[{}]: <{REPORT}>", long_label())),
        Just(format!("[coop-report]: <{REPORT}> \"title\"")),
        Just(format!("\t[coop-report]: <{REPORT}>")),
        Just(format!("  \t[coop-report]: <{REPORT}>")),
        Just(format!("[coop-report]:\t<{REPORT}>")),
        Just(format!("\x0c[coop-report]: <{REPORT}>")),
        Just("[coop-read]: <COOP_READ 1>".to_owned()),
    ]
}

fn document() -> impl Strategy<Value = (String, &'static str)> {
    (
        prop::collection::vec(fragment(), 1..7),
        prop_oneof![Just("\n"), Just("\r\n"), Just("\r")],
    )
        // Every document ends with its line ending: comrak 0.59 shows a definition whose `<…>`
        // destination holds a space when it is the last line without one (cmark and
        // pulldown-cmark hide it), a comrak quirk, not a CommonMark difference.
        .prop_map(|(lines, eol)| (lines.join(eol) + eol, eol))
}

/// The documented differences between the renderers: lone CR line endings, tabs and form
/// feeds.
fn documented_difference(text: &str, eol: &str) -> bool {
    eol == "\r" || text.contains('\t') || text.contains('\x0c')
}

/// The generator's seed: fixed, so CI runs the same 768 documents every time (a disagreement
/// it finds is a defect to fix, never a flaky run); `MASC_TUI_DIFF_SEED=<u64>` explores others
/// (`cargo test --test protocol final_check_differential`).
fn seed() -> proptest::test_runner::RngSeed {
    let fixed = std::env::var("MASC_TUI_DIFF_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x0c00_9e90_27ed_5eed);
    proptest::test_runner::RngSeed::Fixed(fixed)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 768, rng_seed: seed(), ..ProptestConfig::default() })]

    #[test]
    fn final_check_agrees_with_commonmark_wherever_the_renderers_agree((text, eol) in document()) {
        let reference = shows_report(&comrak_sees(&text));
        let pulldown = shows_report(&pulldown_sees(&text));
        let long = text.contains(&long_label());
        if reference != pulldown {
            // pulldown-cmark differs from the reference only where documented, or on a label
            // over 999 characters (where the checker follows the reference, checked below).
            prop_assert!(long || documented_difference(&text, eol),
                "undocumented renderer difference: {text:?}");
        }
        if reference == pulldown || long && !documented_difference(&text, eol) {
            let analysis = analyse(&text);
            prop_assert_eq!(!analysis.leaks.is_empty(), reference,
                "checker vs CommonMark on {:?}: leaks {:?}", text, analysis.leaks);
        }
    }
}

#[test]
fn s2_a_quoted_report_continued_on_the_next_quoted_line_stays_hidden_and_clean() {
    let text = format!("아빠, 끝났어.\n\n> [coop-report]:\n> <{REPORT}>\n");
    assert!(!shows_report(&comrak_sees(&text)));
    let analysis = analyse(&text);
    assert!(analysis.leaks.is_empty(), "{:?}", analysis.leaks);
    assert!(
        analysis.invalid_reports.is_empty(),
        "{:?}",
        analysis.invalid_reports
    );
    assert_eq!(analysis.reports.len(), 1);
    assert!(analysis.is_clean());
}

#[test]
fn s2_a_label_over_999_characters_is_no_definition_and_leaks() {
    let text = format!("아빠, 끝났어.\n\n[{}]: <{REPORT}>\n", long_label());
    assert!(shows_report(&comrak_sees(&text)), "the reference shows it");
    let analysis = analyse(&text);
    assert_eq!(analysis.leaks.len(), 1, "{:?}", analysis.leaks);
    assert_eq!(analysis.leaks[0].cause.name(), "label_too_long");
    // 999 characters is still a label.
    let ok = format!(
        "아빠.\n\n[coop-report{}]: <{REPORT}>\n",
        "x".repeat(999 - 11)
    );
    assert!(!shows_report(&comrak_sees(&ok)));
    assert!(analyse(&ok).leaks.is_empty());
}

#[test]
fn s2_reports_in_html_comments_or_image_alt_text_are_hidden() {
    for (text, whole_line) in [
        (
            format!("아빠, 끝났어.\n\n<!-- [coop-report]: <{REPORT}> -->\n"),
            true,
        ),
        (
            format!("아빠, 끝났어.\n\n<!--\n[coop-report]: <{REPORT}>\n-->\n"),
            true,
        ),
        (format!("아빠, 끝났어 <!-- {REPORT} --> 정말.\n"), false),
        (
            format!("아빠, 끝났어.\n\n![[coop-report]: <{REPORT}>](x.png)\n"),
            true,
        ),
    ] {
        assert!(!shows_report(&comrak_sees(&text)), "{text}");
        let analysis = analyse(&text);
        assert!(analysis.leaks.is_empty(), "{text}: {:?}", analysis.leaks);
        assert!(analysis.is_clean(), "{text}");
        // A line with nothing else shown is a hidden line; a comment inside prose is not.
        assert_eq!(!analysis.hidden_lines.is_empty(), whole_line, "{text}");
    }
    // Text between tags of an HTML block is shown, comments or not.
    let shown = format!("<div>\n<!-- x -->\n[coop-report]: <{REPORT}>\n</div>\n");
    assert!(shows_report(&comrak_sees(&shown)));
    assert_eq!(analyse(&shown).leaks.len(), 1);
}

#[test]
fn s2_a_comment_raw_html_leaves_open_hides_everything_after_it() {
    // Found by the differential test: the `<div>` block ends at the blank line, but its `<!--`
    // is never closed, so a browser hides the indented code block after it.
    let open = format!("<div>\n<!--\n\n\t[coop-report]: <{REPORT}>\n");
    assert!(!shows_report(&comrak_sees(&open)));
    assert!(!shows_report(&pulldown_sees(&open)));
    let analysis = analyse(&open);
    assert!(analysis.leaks.is_empty(), "{:?}", analysis.leaks);
    assert!(!analysis.hidden_lines.is_empty());
    // A definition (no event of its own) and an over-long label inside the open comment too.
    for line in [
        format!("[coop-report]: <{REPORT}>"),
        format!("[{}]: <{REPORT}>", long_label()),
        format!("글 [coop-report]: <{REPORT}>"),
    ] {
        let text = format!("<div>\n<!--\n\n{line}\n");
        assert!(!shows_report(&comrak_sees(&text)), "{text}");
        assert!(analyse(&text).leaks.is_empty(), "{text}");
    }
    // Raw HTML that closes the comment ends the hiding: what follows is shown again.
    let closed = format!("<div>\n<!--\n\n<div>\n-->\n\n    [coop-report]: <{REPORT}>\n");
    assert!(shows_report(&comrak_sees(&closed)));
    assert_eq!(analyse(&closed).leaks.len(), 1, "{closed}");
    // `-->` in rendered text is escaped and closes nothing.
    let escaped = format!("<div>\n<!--\n\n-->\n\n    [coop-report]: <{REPORT}>\n");
    assert_eq!(
        shows_report(&comrak_sees(&escaped)),
        !analyse(&escaped).leaks.is_empty(),
        "{escaped}"
    );
}
