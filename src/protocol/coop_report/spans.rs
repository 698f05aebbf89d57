//! Report spans (`report_spans` of the engine, [S2]): every `{` is tried as the start of a JSON
//! value; each object holding a `coop_reports` list is a report container, hidden or not. Each
//! entry of the list is then checked against the closed field set (`adapters/host.py`).

use serde::Serialize;
use serde_json::{Map, Value};

/// The closed field set of one report ([S2] REPORT_FIELDS).
pub const REPORT_FIELDS: [&str; 5] = ["binding_id", "outcome", "body", "evidence", "for_dad"];

/// One report container found in a final answer: byte range `start..end` of the JSON object.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReportSpan {
    pub start: usize,
    pub end: usize,
    /// 1-based line number of the opening `{`.
    pub line: usize,
    /// Raw entries of the `coop_reports` list, valid or not.
    pub entries: Vec<Value>,
}

/// A report with exactly the closed field set, each field of its type.
/// `outcome` stays the worker's string: its vocabulary is not part of this lesson's contract.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CoopReport {
    pub binding_id: String,
    pub outcome: String,
    pub body: String,
    pub evidence: Map<String, Value>,
    pub for_dad: String,
}

/// Where a report sits: index of its span and its position in that span's list.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LocatedReport {
    pub span: usize,
    pub index: usize,
    /// 1-based line of the span's opening `{`.
    pub line: usize,
    #[serde(flatten)]
    pub report: CoopReport,
}

/// Why a report was rejected. Rejection is visible: never a silent drop of keys or entries.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "cause", rename_all = "snake_case")]
pub enum InvalidReportCause {
    /// An entry of `coop_reports` that is not a JSON object.
    NotAnObject { found: &'static str },
    /// Keys outside the closed set (e.g. the typo `evidnce`) and/or keys of the set absent.
    InvalidFieldSet {
        extra: Vec<String>,
        missing: Vec<String>,
    },
    /// A key of the set holding a value of the wrong JSON type.
    WrongType {
        field: &'static str,
        expected: &'static str,
        found: &'static str,
    },
    /// A `[coop-report]:` line whose destination holds no readable report container (broken or
    /// truncated JSON): the report it was meant to carry is lost, so it is surfaced here.
    UnreadableReportLine { detail: String },
}

impl InvalidReportCause {
    pub fn name(&self) -> &'static str {
        match self {
            Self::NotAnObject { .. } => "not_an_object",
            Self::InvalidFieldSet { .. } => "invalid_field_set",
            Self::WrongType { .. } => "wrong_type",
            Self::UnreadableReportLine { .. } => "unreadable_report_line",
        }
    }
}

/// A rejected report with its location and the raw value as the worker wrote it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InvalidReport {
    /// Span index; `None` for a report line with no readable container.
    pub span: Option<usize>,
    pub index: Option<usize>,
    /// 1-based line number.
    pub line: usize,
    #[serde(flatten)]
    pub cause: InvalidReportCause,
    pub raw: Value,
}

/// Byte ranges of the containers, in text order, never overlapping: after a container the scan
/// resumes at its end (a nested container is part of the outer report, as in the engine).
pub(crate) fn scan_containers(text: &str) -> Vec<(usize, usize, Vec<Value>)> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(rel) = text.get(from..).and_then(|rest| rest.find('{')) {
        let start = from + rel;
        match container_at(text, start) {
            Some((end, entries)) => {
                found.push((start, end, entries));
                from = end;
            }
            None => from = start + 1,
        }
    }
    found
}

/// The raw decoder step: one JSON value starting at `start`, if it is a report container.
fn container_at(text: &str, start: usize) -> Option<(usize, Vec<Value>)> {
    let rest = text.get(start..)?;
    let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
    let value = stream.next()?.ok()?;
    let end = start + stream.byte_offset();
    match value {
        Value::Object(mut object) => match object.remove("coop_reports") {
            Some(Value::Array(entries)) => Some((end, entries)),
            _ => None,
        },
        _ => None,
    }
}

pub(crate) fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Checks one entry against the closed field set, then each field's type.
pub(crate) fn validate_entry(entry: &Value) -> Result<CoopReport, InvalidReportCause> {
    let Value::Object(object) = entry else {
        return Err(InvalidReportCause::NotAnObject {
            found: json_type(entry),
        });
    };
    let extra: Vec<String> = object
        .keys()
        .filter(|key| !REPORT_FIELDS.contains(&key.as_str()))
        .cloned()
        .collect();
    let missing: Vec<String> = REPORT_FIELDS
        .iter()
        .filter(|field| !object.contains_key(**field))
        .map(|field| (*field).to_owned())
        .collect();
    if !extra.is_empty() || !missing.is_empty() {
        return Err(InvalidReportCause::InvalidFieldSet { extra, missing });
    }
    let string = |field: &'static str| -> Result<String, InvalidReportCause> {
        match object.get(field) {
            Some(Value::String(s)) => Ok(s.clone()),
            other => Err(InvalidReportCause::WrongType {
                field,
                expected: "string",
                found: other.map_or("absent", json_type),
            }),
        }
    };
    let evidence = match object.get("evidence") {
        Some(Value::Object(map)) => map.clone(),
        other => {
            return Err(InvalidReportCause::WrongType {
                field: "evidence",
                expected: "object",
                found: other.map_or("absent", json_type),
            });
        }
    };
    Ok(CoopReport {
        binding_id: string("binding_id")?,
        outcome: string("outcome")?,
        body: string("body")?,
        evidence,
        for_dad: string("for_dad")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_brace_is_tried_and_non_json_braces_are_skipped() {
        let text = r#"{repo} and {"a": {"b": 1}} then {"coop_reports": []} tail {"#;
        let found = scan_containers(text);
        assert_eq!(found.len(), 1);
        let (start, end, entries) = &found[0];
        assert_eq!(&text[*start..*end], r#"{"coop_reports": []}"#);
        assert!(entries.is_empty());
    }

    #[test]
    fn container_nested_in_another_object_is_found_from_its_own_brace() {
        let text = r#"{"result": {"coop_reports": [1]}}"#;
        let found = scan_containers(text);
        assert_eq!(found.len(), 1);
        assert_eq!(&text[found[0].0..found[0].1], r#"{"coop_reports": [1]}"#);
    }

    #[test]
    fn coop_reports_that_is_not_a_list_is_no_container() {
        assert!(scan_containers(r#"{"coop_reports": {"x": 1}}"#).is_empty());
    }

    #[test]
    fn extra_key_rejects_the_report_and_names_the_key() {
        let entry =
            json!({"binding_id":"b","outcome":"done","body":"x","for_dad":"y","evidnce":{}});
        let err = validate_entry(&entry).err();
        assert_eq!(
            err,
            Some(InvalidReportCause::InvalidFieldSet {
                extra: vec!["evidnce".into()],
                missing: vec!["evidence".into()],
            })
        );
    }

    #[test]
    fn wrong_type_is_named_not_coerced() {
        let entry = json!({"binding_id":7,"outcome":"done","body":"x","for_dad":"y","evidence":{}});
        assert_eq!(
            validate_entry(&entry).err().map(|c| c.name()),
            Some("wrong_type")
        );
        let entry =
            json!({"binding_id":"b","outcome":"done","body":"x","for_dad":"y","evidence":[]});
        assert!(matches!(
            validate_entry(&entry),
            Err(InvalidReportCause::WrongType {
                field: "evidence",
                ..
            })
        ));
    }
}
