//! Reading a trace file line by line (the format of [`super::layer`]): the one parser the
//! report, the Chrome trace and the swimlane picture share.
//!
//! Lines are read as bytes: a line that is not UTF-8 or not JSON is an unparsed line, never the
//! end of the file (a hostile or torn trace still yields everything else). A line without its
//! own `pid` belongs to the process whose header line came last.

use super::record::StageRecord;
use std::io::BufRead;

/// The client's per-read event target (`protocol::client::REQUEST_TARGET`).
pub const REQUEST_TARGET: &str = "masc_tui::request";

/// One line of a trace file.
#[derive(Debug, Clone, PartialEq)]
pub enum TraceLine {
    /// The `{"kind":"process",…}` header a process writes first.
    Process,
    /// A stage event (its `pid` filled from the header when the line had none).
    Stage(StageRecord),
    /// A `masc_tui::request` event: its `fields` object.
    Request(serde_json::Value),
    /// Any other event.
    Other,
    /// Not UTF-8, not JSON, or a stage line missing `stage`/`source`/`ts_us`.
    Unparsed,
}

/// Where and when a line was written: its process (own `pid`, else the last header's) and its
/// `ts_us` when it had one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineStamp {
    pub pid: Option<u32>,
    pub ts_us: Option<u64>,
}

fn pid_of(value: &serde_json::Value) -> Option<u32> {
    value
        .get("pid")
        .and_then(serde_json::Value::as_u64)
        .and_then(|p| u32::try_from(p).ok())
}

/// Calls `each` for every non-blank line of `input`, in file order.
pub fn read_trace(
    input: impl BufRead,
    mut each: impl FnMut(LineStamp, TraceLine),
) -> std::io::Result<()> {
    let mut current_pid: Option<u32> = None;
    for line in input.split(b'\n') {
        let line = line?;
        let unparsed = LineStamp {
            pid: current_pid,
            ts_us: None,
        };
        let Ok(line) = std::str::from_utf8(&line) else {
            each(unparsed, TraceLine::Unparsed);
            continue;
        };
        if line.trim().is_empty() {
            continue;
        }
        let Ok(value) = serde_json::from_str::<serde_json::Value>(line) else {
            each(unparsed, TraceLine::Unparsed);
            continue;
        };
        if value.get("kind").and_then(|k| k.as_str()) == Some("process") {
            current_pid = pid_of(&value);
        }
        let stamp = LineStamp {
            pid: pid_of(&value).or(current_pid),
            ts_us: value.get("ts_us").and_then(serde_json::Value::as_u64),
        };
        let parsed = if value.get("kind").and_then(|k| k.as_str()) == Some("process") {
            TraceLine::Process
        } else if value.get("stage").is_some() {
            match serde_json::from_value::<StageRecord>(value) {
                Ok(mut record) => {
                    record.pid = record.pid.or(current_pid);
                    TraceLine::Stage(record)
                }
                Err(_) => TraceLine::Unparsed,
            }
        } else if value.get("target").and_then(|t| t.as_str()) == Some(REQUEST_TARGET) {
            TraceLine::Request(value.get("fields").cloned().unwrap_or_default())
        } else {
            TraceLine::Other
        };
        each(stamp, parsed);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_without_pid_belongs_to_the_last_header_and_bad_lines_do_not_stop_reading() {
        let text = b"{\"kind\":\"process\",\"pid\":9,\"ts_us\":0}\n\xff\xfe\nnot json\n\n{\"ts_us\":5,\"stage\":\"dispatch\",\"source\":\"s\",\"generation\":1}\n{\"ts_us\":6,\"level\":\"INFO\",\"target\":\"x\"}\n";
        let mut lines = Vec::new();
        read_trace(&text[..], |stamp, line| lines.push((stamp, line))).unwrap();
        assert_eq!(lines.len(), 5);
        assert_eq!(lines[0].1, TraceLine::Process);
        assert_eq!(lines[1].1, TraceLine::Unparsed);
        assert_eq!(lines[2].1, TraceLine::Unparsed);
        let TraceLine::Stage(record) = &lines[3].1 else {
            panic!("not a stage line: {:?}", lines[3]);
        };
        assert_eq!(record.pid, Some(9));
        assert_eq!(
            lines[3].0,
            LineStamp {
                pid: Some(9),
                ts_us: Some(5)
            }
        );
        assert_eq!(lines[4].1, TraceLine::Other);
    }
}
