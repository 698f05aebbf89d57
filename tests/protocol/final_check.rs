//! Hidden report lines (seed 002, digest coop-report.md): every case is judged against what
//! pulldown-cmark itself renders, so the checker and the renderer cannot silently disagree.

use masc_tui::protocol::coop_report::{
    FOR_DAD_LIMIT, FinalAnalysis, InvalidReportCause, LeakCause, ReaderSource, analyse,
};
use pulldown_cmark::{Event, Parser};
use serde_json::json;

const DAD: &str = "아빠, 끝났어. 커밋은 origin에 푸시됐어.\n아빠가 할 일은 없어.";

/// The displayed text of a document: the content of every event a renderer shows, blocks
/// separated by newlines (a plain-text renderer over pulldown-cmark's own events).
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

/// Whether a renderer shows any of the report: its JSON key or its label.
fn renderer_shows_report(text: &str) -> bool {
    let shown = rendered(text);
    shown.contains("coop_reports") || shown.contains("coop-")
}

fn report_json(body: &str, for_dad: Option<&str>) -> String {
    let mut report = json!({
        "binding_id": "b1", "outcome": "done", "body": body,
        "evidence": {"commits": ["abc123"]},
    });
    if let (Some(text), Some(object)) = (for_dad, report.as_object_mut()) {
        object.insert("for_dad".into(), json!(text));
    }
    json!({ "coop_reports": [report] }).to_string()
}

/// The final shape of [S2]: Dad's lines, a gap, one report line, a tail after `>`.
fn final_answer(body: &str, gap: &str, tail: &str) -> String {
    format!(
        "{DAD}{gap}[coop-report]: <{}>{tail}",
        report_json(body, Some(DAD))
    )
}

/// Leak verdicts must agree with the renderer, case by case.
fn checked(text: &str) -> FinalAnalysis {
    let analysis = analyse(text);
    assert_eq!(
        !analysis.leaks.is_empty(),
        renderer_shows_report(text),
        "checker and pulldown-cmark disagree on {text:?}: leaks {:?}, rendered {:?}",
        analysis.leaks,
        rendered(text)
    );
    analysis
}

fn causes(analysis: &FinalAnalysis) -> Vec<(usize, LeakCause)> {
    analysis.leaks.iter().map(|l| (l.line, l.cause)).collect()
}

#[test]
fn s2_control_clean_report_line_is_hidden_and_folded() {
    let text = final_answer("Hook covers ~/CWK/{repo}.", "\n\n", "");
    let analysis = checked(&text);
    assert!(analysis.is_clean());
    assert_eq!(analysis.reports.len(), 1);
    assert_eq!(analysis.reports[0].report.binding_id, "b1");
    let hidden: Vec<usize> = analysis.hidden_lines.iter().map(|h| h.line).collect();
    assert_eq!(hidden, [4]);
    assert_eq!(
        analysis.hidden_lines[0].label.as_deref(),
        Some("coop-report")
    );
    assert!(!rendered(&text).contains("coop"));
}

#[test]
fn s2_f1_angle_bracket_in_data_leaks_the_json() {
    let text = final_answer("Hook covers ~/CWK/<repo>.", "\n\n", "");
    let analysis = checked(&text);
    assert_eq!(causes(&analysis), [(4, LeakCause::AngleBracketInData)]);
    // [S2]: the JSON, including the for_dad key, is rendered as text.
    assert!(rendered(&text).contains("\"for_dad\""));
    assert!(analysis.leaks[0].visible.starts_with("[coop-report]: <{"));
    // The report is still committed: a broken line is still a report (report_spans).
    assert_eq!(analysis.reports.len(), 1);
}

#[test]
fn s2_f2_missing_blank_line_joins_the_paragraph() {
    let text = final_answer("Hook covers ~/CWK/{repo}.", "\n", "");
    let analysis = checked(&text);
    assert_eq!(causes(&analysis), [(3, LeakCause::NoBlankLineBefore)]);
    assert!(analysis.hidden_lines.is_empty());
}

#[test]
fn s2_f3_text_after_bracket_is_no_definition() {
    let text = final_answer("Hook covers ~/CWK/{repo}.", "\n\n", " trailing");
    let analysis = checked(&text);
    assert_eq!(causes(&analysis), [(4, LeakCause::TextAfterBracket)]);
}

#[test]
fn s2_quoted_title_after_bracket_stays_hidden() {
    // A quoted title is part of a definition: the renderer hides it, so no leak.
    let text = final_answer("x", "\n\n", " \"title\"");
    assert!(checked(&text).leaks.is_empty());
}

#[test]
fn f1_and_f2_together_report_both_causes() {
    let text = final_answer("a <b>", "\n", "");
    let analysis = checked(&text);
    assert_eq!(
        analysis.leaks[0].causes,
        [LeakCause::AngleBracketInData, LeakCause::NoBlankLineBefore]
    );
}

#[test]
fn report_line_inside_a_fence_renders_as_code() {
    let text = format!(
        "{DAD}\n\n```\n[coop-report]: <{}>\n```\n",
        report_json("x", None)
    );
    let analysis = checked(&text);
    assert_eq!(causes(&analysis), [(5, LeakCause::InsideFence)]);
}

#[test]
fn unclosed_fence_above_swallows_the_report_line() {
    let text = format!("```\n{DAD}\n\n[coop-report]: <{}>", report_json("x", None));
    assert_eq!(causes(&checked(&text)), [(5, LeakCause::InsideFence)]);
}

#[test]
fn old_json_fence_report_leaks_inside_fence() {
    let text = format!("{DAD}\n\n```json\n{}\n```", report_json("x", Some(DAD)));
    let analysis = checked(&text);
    assert_eq!(causes(&analysis), [(5, LeakCause::InsideFence)]);
    assert_eq!(analysis.reports.len(), 1);
}

#[test]
fn four_space_indent_is_indented_code_three_is_allowed() {
    let line = format!("[coop-report]: <{}>", report_json("x", Some(DAD)));
    let four = format!("{DAD}\n\n    {line}");
    assert_eq!(causes(&checked(&four)), [(4, LeakCause::IndentedCode)]);
    let three = format!("{DAD}\n\n   {line}");
    assert!(checked(&three).is_clean());
}

#[test]
fn crlf_final_hides_like_lf_and_still_needs_the_blank_line() {
    let clean = final_answer("x", "\n\n", "").replace('\n', "\r\n");
    let analysis = checked(&clean);
    assert!(analysis.is_clean());
    assert_eq!(analysis.hidden_lines.len(), 1);
    assert_eq!(analysis.hidden_lines[0].line, 4);
    let glued = final_answer("x", "\n", "").replace('\n', "\r\n");
    assert_eq!(
        causes(&checked(&glued)),
        [(3, LeakCause::NoBlankLineBefore)]
    );
    // A bare CR is a CommonMark line ending too.
    let bare_cr = final_answer("x", "\n\n", "").replace('\n', "\r");
    assert!(checked(&bare_cr).is_clean());
}

#[test]
fn crlf_prose_reader_text_drops_report_lines() {
    let text = format!(
        "{DAD}\r\n\r\n[coop-read]: <COOP_READ 7>\r\n[coop-report]: <{}>\r\n",
        report_json("x", Some(" "))
    );
    let analysis = checked(&text);
    assert_eq!(analysis.reader_text.source, ReaderSource::Prose);
    assert_eq!(analysis.reader_text.text, DAD);
}

#[test]
fn multiple_reports_and_acknowledgement_lines_are_all_hidden() {
    let first = report_json("first", Some("첫째 줄"));
    let second = report_json("second", Some("둘째 줄"));
    let text = format!(
        "{DAD}\n\n[coop-read]: <COOP_READ 41>\n[coop-reply]: <COOP_REPLY 42>\n\
         [coop-report]: <{first}>\n[coop-report]: <{second}>\n"
    );
    let analysis = checked(&text);
    assert!(analysis.is_clean());
    assert_eq!(analysis.reports.len(), 2);
    assert_eq!(analysis.spans.len(), 2);
    let hidden: Vec<(usize, Option<&str>)> = analysis
        .hidden_lines
        .iter()
        .map(|h| (h.line_index, h.label.as_deref()))
        .collect();
    assert_eq!(
        hidden,
        [
            (3, Some("coop-read")),
            (4, Some("coop-reply")),
            (5, Some("coop-report")),
            (6, Some("coop-report"))
        ]
    );
    assert_eq!(analysis.reader_text.text, "첫째 줄\n둘째 줄");
}

#[test]
fn two_reports_in_one_container_one_broken_line() {
    let reports = json!({"coop_reports": [
        {"binding_id":"a","outcome":"done","body":"x","evidence":{},"for_dad":"하나"},
        {"binding_id":"b","outcome":"blocked","body":"y","evidence":{},"for_dad":"둘"},
    ]});
    let text = format!("{DAD}\n\n[coop-report]: <{reports}>\n\n[coop-read]: <COOP <READ> 1>");
    let analysis = checked(&text);
    assert_eq!(analysis.reports.len(), 2);
    assert_eq!(causes(&analysis), [(6, LeakCause::AngleBracketInData)]);
    assert_eq!(analysis.leaks[0].label.as_deref(), Some("coop-read"));
}

#[test]
fn for_dad_present_wins_over_prose() {
    let text = format!(
        "English paragraph nobody asked for.\n\n[coop-report]: <{}>",
        report_json("x", Some("  아빠, 다 했어.  "))
    );
    let analysis = checked(&text);
    assert_eq!(analysis.reader_text.text, "아빠, 다 했어.");
    assert_eq!(
        analysis.reader_text.source,
        ReaderSource::ForDad {
            lines: 1,
            truncated: false
        }
    );
}

#[test]
fn for_dad_blank_falls_back_to_cleaned_prose() {
    let text = format!(
        "{DAD}\n\n\n\n```json\n```\n\n[coop-report]: <{}>\n",
        report_json("x", Some("   "))
    );
    let analysis = checked(&text);
    assert_eq!(analysis.reader_text.source, ReaderSource::Prose);
    assert_eq!(analysis.reader_text.text, DAD);
    assert!(analysis.is_clean());
}

#[test]
fn for_dad_absent_rejects_the_report_and_falls_back_to_prose() {
    let text = format!("{DAD}\n\n[coop-report]: <{}>", report_json("x", None));
    let analysis = checked(&text);
    assert!(analysis.reports.is_empty());
    assert_eq!(analysis.invalid_reports.len(), 1);
    assert_eq!(
        analysis.invalid_reports[0].cause,
        InvalidReportCause::InvalidFieldSet {
            extra: vec![],
            missing: vec!["for_dad".into()]
        }
    );
    assert_eq!(analysis.reader_text.text, DAD);
    // Not a leak: the line is still hidden; the report is just refused.
    assert!(analysis.leaks.is_empty());
}

#[test]
fn for_dad_over_limit_is_cut_on_a_char_boundary() {
    let long = "가".repeat(FOR_DAD_LIMIT + 10);
    let text = format!(
        "{DAD}\n\n[coop-report]: <{}>",
        report_json("x", Some(&long))
    );
    let analysis = checked(&text);
    assert_eq!(analysis.reader_text.text.chars().count(), FOR_DAD_LIMIT);
    assert!(matches!(
        analysis.reader_text.source,
        ReaderSource::ForDad {
            truncated: true,
            ..
        }
    ));
}

#[test]
fn extra_key_rejects_the_report_visibly() {
    let report = json!({"coop_reports": [{
        "binding_id":"b1","outcome":"done","body":"x","for_dad":"아빠","evidence":{},"evidnce":{"x":1}
    }]});
    let text = format!("{DAD}\n\n[coop-report]: <{report}>");
    let analysis = checked(&text);
    assert!(analysis.reports.is_empty());
    assert!(!analysis.is_clean());
    let invalid = &analysis.invalid_reports[0];
    assert_eq!(invalid.line, 4);
    assert_eq!(
        invalid.cause,
        InvalidReportCause::InvalidFieldSet {
            extra: vec!["evidnce".into()],
            missing: vec![]
        }
    );
    assert_eq!(invalid.raw["evidnce"]["x"], 1);
}

#[test]
fn nested_braces_in_prose_are_not_reports() {
    let text = format!(
        "아빠, `{{repo}}` 자리에 {{a {{b}}}} 를 넣었어. {{\"k\": {{\"v\": 1}}}}\n\n[coop-report]: <{}>",
        report_json("Hook covers ~/CWK/{repo}.", Some(DAD))
    );
    let analysis = checked(&text);
    assert!(analysis.is_clean());
    assert_eq!(analysis.spans.len(), 1);
    assert_eq!(analysis.spans[0].line, 3);
}

#[test]
fn a_brace_that_is_not_json_is_ignored() {
    let text = "아빠, {이건 JSON이 아니야 { \"열린\": 채로 끝나";
    let analysis = checked(text);
    assert!(analysis.spans.is_empty());
    assert!(analysis.is_clean());
    assert_eq!(analysis.reader_text.text, text);
}

#[test]
fn bare_json_in_prose_leaks_as_not_a_definition() {
    let text = format!("{DAD}\n\n{}", report_json("x", Some(DAD)));
    let analysis = checked(&text);
    assert_eq!(causes(&analysis), [(4, LeakCause::NotADefinition)]);
    assert_eq!(analysis.reader_text.text, DAD);
}

#[test]
fn pretty_printed_json_breaks_the_destination() {
    let pretty = serde_json::to_string_pretty(&json!({"coop_reports": [
        {"binding_id":"b","outcome":"done","body":"x","evidence":{},"for_dad":"아빠"}
    ]}))
    .unwrap_or_default();
    let text = format!("{DAD}\n\n[coop-report]: <{pretty}>");
    let analysis = checked(&text);
    assert_eq!(causes(&analysis), [(4, LeakCause::LineBreakInData)]);
}

#[test]
fn blockquote_lazy_continuation_is_no_blank_line_before() {
    let text = format!("> {DAD}\n[coop-report]: <{}>", report_json("x", Some(DAD)));
    assert_eq!(causes(&checked(&text)), [(3, LeakCause::NoBlankLineBefore)]);
}

#[test]
fn heading_above_needs_no_blank_line() {
    // A heading is no paragraph, so a definition right under it is still a definition.
    let text = format!("# 끝\n[coop-report]: <{}>", report_json("x", Some(DAD)));
    assert!(checked(&text).is_clean());
}

#[test]
fn broken_json_in_report_line_is_an_invalid_report() {
    let text = format!("{DAD}\n\n[coop-report]: <{{\"coop_reports\": [>");
    let analysis = checked(&text);
    assert!(analysis.spans.is_empty());
    assert_eq!(analysis.invalid_reports.len(), 1);
    assert_eq!(
        analysis.invalid_reports[0].cause.name(),
        "unreadable_report_line"
    );
}

#[test]
fn removing_hidden_lines_leaves_the_rendering_unchanged() {
    let cases = [
        final_answer("x", "\n\n", ""),
        final_answer("x", "\n\n", "").replace('\n', "\r\n"),
        format!(
            "{DAD}\n\n[coop-read]: <COOP_READ 1>\n[coop-report]: <{}>\n\n끝.",
            report_json("y", Some(DAD))
        ),
    ];
    for text in cases {
        let analysis = checked(&text);
        assert!(!analysis.hidden_lines.is_empty());
        let hidden: Vec<usize> = analysis.hidden_lines.iter().map(|h| h.line_index).collect();
        let kept: String = text
            .split_inclusive('\n')
            .enumerate()
            .filter(|(i, _)| !hidden.contains(i))
            .map(|(_, line)| line)
            .collect();
        assert_eq!(rendered(&kept), rendered(&text), "{text:?}");
    }
}
