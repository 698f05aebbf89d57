//! Hidden report lines in Keeper final answers (seed 002; English digest `spec/coop-report.md`).
//!
//! A worker's final answer carries prose for Dad and a report hidden as a CommonMark link
//! reference definition, `[coop-report]: <{"coop_reports":[…]}>`. [`analyse`] finds every report
//! container (hidden or not, like the engine's `report_spans`), checks each report against the
//! closed field set, decides with pulldown-cmark — on the whole document, in context — which
//! report lines a renderer would display (leaks) and which it hides, and computes what Dad reads
//! (`dad_text`).

mod judge;
mod lines;
mod reader;
mod rendered;
mod spans;
mod syntax;

pub use judge::{HiddenBy, HiddenLine, Leak};
pub use reader::{FOR_DAD_LIMIT, ReaderSource, ReaderText, is_report_line};
pub use spans::{
    CoopReport, InvalidReport, InvalidReportCause, LocatedReport, REPORT_FIELDS, ReportSpan,
};
pub use syntax::LeakCause;

use judge::Verdict;
use lines::LineTable;
use rendered::Rendered;
use serde::Serialize;
use serde_json::Value;

/// Everything the checker knows about one final answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FinalAnalysis {
    /// What a reader sees (`dad_text`): the `for_dad` lines, else the cleaned prose.
    pub reader_text: ReaderText,
    /// Every report container, in text order.
    pub spans: Vec<ReportSpan>,
    /// Reports with exactly the closed field set, well typed.
    pub reports: Vec<LocatedReport>,
    /// Rejected reports, each with its cause (never silently dropped).
    pub invalid_reports: Vec<InvalidReport>,
    /// Report text a CommonMark renderer displays, in line order.
    pub leaks: Vec<Leak>,
    /// Report and acknowledgement lines a renderer shows nothing of, in line order.
    pub hidden_lines: Vec<HiddenLine>,
}

impl FinalAnalysis {
    /// No leak and no invalid report.
    pub fn is_clean(&self) -> bool {
        self.leaks.is_empty() && self.invalid_reports.is_empty()
    }
}

/// Analyses one Keeper final answer. Never panics, whatever the text.
pub fn analyse(final_text: &str) -> FinalAnalysis {
    let lines = LineTable::new(final_text);
    let containers = spans::scan_containers(final_text);
    let reader_text = reader::reader_text(
        final_text,
        containers
            .iter()
            .map(|(start, end, entries)| (*start, *end, entries.as_slice())),
    );

    let mut reports = Vec::new();
    let mut invalid_reports = Vec::new();
    let mut report_spans = Vec::with_capacity(containers.len());
    for (span_index, (start, end, entries)) in containers.into_iter().enumerate() {
        let line = lines.index_of(start) + 1;
        for (index, entry) in entries.iter().enumerate() {
            match spans::validate_entry(entry) {
                Ok(report) => reports.push(LocatedReport {
                    span: span_index,
                    index,
                    line,
                    report,
                }),
                Err(cause) => invalid_reports.push(InvalidReport {
                    span: Some(span_index),
                    index: Some(index),
                    line,
                    cause,
                    raw: entry.clone(),
                }),
            }
        }
        report_spans.push(ReportSpan {
            start,
            end,
            line,
            entries,
        });
    }

    let rendered = Rendered::parse(final_text);
    let ranges: Vec<(usize, usize)> = report_spans.iter().map(|s| (s.start, s.end)).collect();
    let mut leaks = Vec::new();
    let mut hidden_lines = Vec::new();
    for unit in judge::units(final_text, &lines, &ranges) {
        if unit.span.is_none() && unit.head.as_ref().is_some_and(is_report_label) {
            invalid_reports.push(unreadable_report_line(final_text, &lines, &unit));
        }
        match judge::judge(final_text, &lines, &rendered, &unit) {
            Verdict::Leak(leak) => leaks.push(leak),
            Verdict::Hidden(hidden) => hidden_lines.extend(hidden),
        }
    }
    leaks.sort_by_key(|l| l.line_index);
    hidden_lines.sort_by_key(|h| h.line_index);
    hidden_lines.dedup_by_key(|h| h.line_index);
    invalid_reports.sort_by_key(|r| r.line);

    FinalAnalysis {
        reader_text,
        spans: report_spans,
        reports,
        invalid_reports,
        leaks,
        hidden_lines,
    }
}

fn is_report_label(head: &syntax::DefinitionHead) -> bool {
    head.label.eq_ignore_ascii_case("coop-report")
}

/// A `[coop-report]:` line with no readable container: say why the JSON did not read.
fn unreadable_report_line(text: &str, lines: &LineTable, unit: &judge::Unit) -> InvalidReport {
    let rest = text.get(unit.region.clone()).unwrap_or("");
    let detail = match rest.find('{') {
        None => "no JSON object on the line".to_owned(),
        Some(at) => match serde_json::from_str::<Value>(&rest[at..]) {
            Err(err) if err.is_eof() => "JSON object is truncated".to_owned(),
            Err(err) => format!("JSON does not parse: {err}"),
            Ok(_) => "JSON object holds no coop_reports list".to_owned(),
        },
    };
    let raw = lines
        .get(unit.first_line)
        .and_then(|l| text.get(l.start..l.end))
        .map_or(Value::Null, |s| Value::String(s.to_owned()));
    InvalidReport {
        span: None,
        index: None,
        line: unit.first_line + 1,
        cause: InvalidReportCause::UnreadableReportLine { detail },
        raw,
    }
}
