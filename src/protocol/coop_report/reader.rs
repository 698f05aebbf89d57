//! What Dad reads of one final (`dad_text` of the engine, [S2]): the reports' `for_dad` lines,
//! else the prose with report spans, REPORT_LINE lines and empty code fences removed.

use super::lines::{is_py_space, py_strip};
use serde::Serialize;
use serde_json::Value;

/// `FOR_DAD_LIMIT`: the joined `for_dad` lines are cut to this many characters (code points).
pub const FOR_DAD_LIMIT: usize = 1200;

/// Where the reader text came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "source", rename_all = "snake_case")]
pub enum ReaderSource {
    /// The `for_dad` lines of the reports; `truncated` when the cut at [`FOR_DAD_LIMIT`] applied.
    ForDad { lines: usize, truncated: bool },
    /// No report had a non-blank `for_dad`: the cleaned prose.
    Prose,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReaderText {
    pub text: String,
    #[serde(flatten)]
    pub source: ReaderSource,
}

/// `spans` are the containers' byte ranges and raw entries, in text order, not overlapping.
pub(crate) fn reader_text<'a>(
    text: &str,
    spans: impl Iterator<Item = (usize, usize, &'a [Value])> + Clone,
) -> ReaderText {
    // Every entry that is an object with a non-blank string `for_dad` counts, whether or not
    // the adapter accepts the report: the engine's dad_text reads raw spans.
    let lines: Vec<&str> = spans
        .clone()
        .flat_map(|(_, _, entries)| entries.iter())
        .filter_map(|entry| entry.as_object()?.get("for_dad")?.as_str())
        .map(py_strip)
        .filter(|line| !line.is_empty())
        .collect();
    if !lines.is_empty() {
        let joined = lines.join("\n");
        let truncated = joined.chars().count() > FOR_DAD_LIMIT;
        return ReaderText {
            text: joined.chars().take(FOR_DAD_LIMIT).collect(),
            source: ReaderSource::ForDad {
                lines: lines.len(),
                truncated,
            },
        };
    }
    let mut prose = String::with_capacity(text.len());
    let mut from = 0;
    for (start, end, _) in spans {
        prose.push_str(text.get(from..start).unwrap_or_default());
        from = end;
    }
    prose.push_str(text.get(from..).unwrap_or_default());
    // CRLF and lone CR become LF first, so the REPORT_LINE `$` and the newline collapse see CRLF
    // finals the way CommonMark does (the engine regex alone keeps `<>\r` lines).
    let prose = prose.replace("\r\n", "\n").replace('\r', "\n");
    let prose = blank_report_lines(&prose);
    let prose = remove_empty_fences(&prose);
    let prose = collapse_newlines(&prose);
    ReaderText {
        text: py_strip(&prose).to_owned(),
        source: ReaderSource::Prose,
    }
}

/// REPORT_LINE, the engine regex (multiline):
/// `^ {0,3}\[coop-[a-z]+\]:[ \t]*<[^<>\n]*>[ \t]*$`. It judges one line in isolation.
pub fn is_report_line(line: &str) -> bool {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return false;
    }
    let Some(rest) = line[indent..].strip_prefix("[coop-") else {
        return false;
    };
    let letters = rest.len()
        - rest
            .trim_start_matches(|c: char| c.is_ascii_lowercase())
            .len();
    if letters == 0 {
        return false;
    }
    let Some(rest) = rest[letters..].strip_prefix("]:") else {
        return false;
    };
    let Some(rest) = rest.trim_start_matches([' ', '\t']).strip_prefix('<') else {
        return false;
    };
    let Some(close) = rest.find(['<', '>']) else {
        return false;
    };
    rest[close..].starts_with('>') && rest[close + 1..].trim_matches([' ', '\t']).is_empty()
}

/// `re.sub(REPORT_LINE, '', text)`: a matching line becomes empty, its newline stays.
fn blank_report_lines(text: &str) -> String {
    text.split('\n')
        .map(|line| if is_report_line(line) { "" } else { line })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `re.sub(r'```[A-Za-z]*\s*```', '', text)`, scanning left to right like `re.sub`.
fn remove_empty_fences(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        if let Some(len) = empty_fence_len(rest) {
            i += len;
            continue;
        }
        let step = rest.chars().next().map_or(1, char::len_utf8);
        out.push_str(&rest[..step]);
        i += step;
    }
    out
}

fn empty_fence_len(rest: &str) -> Option<usize> {
    let body = rest.strip_prefix("```")?;
    let after_info = body.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    let after_space = after_info.trim_start_matches(is_py_space);
    let tail = after_space.strip_prefix("```")?;
    Some(rest.len() - tail.len())
}

/// `re.sub(r'\n{3,}', '\n\n', text)`.
fn collapse_newlines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut run = 0;
    for c in text.chars() {
        if c == '\n' {
            run += 1;
            if run <= 2 {
                out.push(c);
            }
        } else {
            run = 0;
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_line_regex_cases_s2() {
        assert!(is_report_line("[coop-report]: <{}>"));
        assert!(is_report_line("   [coop-read]:\t<COOP_READ 1>  "));
        assert!(is_report_line("[coop-report]: <>"));
        assert!(!is_report_line("    [coop-report]: <{}>"), "4 spaces");
        assert!(!is_report_line("[coop-report]: <a<b>"), "F1 angle");
        assert!(!is_report_line("[coop-report]: <{}> trailing"), "F3");
        assert!(
            !is_report_line("[coop-Report]: <{}>"),
            "label is lowercase only"
        );
        assert!(!is_report_line("[coop-]: <{}>"));
        assert!(!is_report_line("[coop-report]: <{}>\r"), "CR is no [ \\t]");
    }

    #[test]
    fn empty_fences_go_like_re_sub() {
        assert_eq!(remove_empty_fences("a ```json\n\n``` b"), "a  b");
        assert_eq!(remove_empty_fences("``` x ```"), "``` x ```");
        assert_eq!(remove_empty_fences("``````"), "");
    }

    #[test]
    fn three_or_more_newlines_collapse_to_two() {
        assert_eq!(collapse_newlines("a\n\n\n\nb\nc"), "a\n\nb\nc");
    }

    #[test]
    fn for_dad_cut_counts_characters_not_bytes() {
        let long = "아".repeat(FOR_DAD_LIMIT + 5);
        let entries = vec![serde_json::json!({ "for_dad": long })];
        let spans = [(0usize, 0usize, entries.as_slice())];
        let reader = reader_text("", spans.iter().copied());
        assert_eq!(reader.text.chars().count(), FOR_DAD_LIMIT);
        assert_eq!(
            reader.source,
            ReaderSource::ForDad {
                lines: 1,
                truncated: true
            }
        );
    }
}
