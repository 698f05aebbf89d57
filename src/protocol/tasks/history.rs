//! Task history: the cursor pages (protocol.md §5.3, sources.md A-1…) and the legacy
//! recent-events array (§5.4). The legacy array is never a fallback for a *failed* page
//! and never labelled the history; it is read only when this MASC does not serve the
//! page route at all (an older release), and then shown as "legacy recent events, not the full
//! history".

use super::reroot;
use crate::protocol::decode::{
    DecodeError, DecodeErrorKind, WireDecode, decode_json, decode_json_object, decode_value,
    first_byte,
};
use compact_str::CompactString;
use serde::Deserialize;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

pub const TASK_HISTORY_PAGE_SCHEMA: &str = "masc.task_history_page.v1";

/// What was asked for one page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageRequest {
    pub task_id: String,
    /// `None` = the newest page.
    pub cursor: Option<String>,
    pub limit: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct HandoffContext {
    #[serde(default)]
    pub summary: Option<String>,
}

/// One stored event line of a task, as the page serves it. Its strings are `CompactString`s
/// so the short ones (ids, times, kinds, names) are stored inline and a 200-row page
/// allocates for its notes only.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct TaskEventRow {
    pub task_id: CompactString,
    /// RFC 3339 (checked).
    pub ts: CompactString,
    #[serde(default)]
    pub task: Option<CompactString>,
    #[serde(rename = "type", default)]
    pub event_type: Option<CompactString>,
    #[serde(default)]
    pub action: Option<CompactString>,
    #[serde(default)]
    pub from_status: Option<CompactString>,
    #[serde(default)]
    pub to_status: Option<CompactString>,
    #[serde(default)]
    pub agent: Option<CompactString>,
    #[serde(default)]
    pub actor: Option<CompactString>,
    #[serde(default)]
    pub actor_kind: Option<CompactString>,
    #[serde(default)]
    pub assignee: Option<CompactString>,
    #[serde(default)]
    pub notes: Option<CompactString>,
    #[serde(default)]
    pub reason: Option<CompactString>,
    #[serde(default)]
    pub handoff_context: Option<HandoffContext>,
}

/// Whether an older page exists. `EndOfStoredHistory` is the end of what the server has
/// stored and observed, not a finished task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HistoryContinuation {
    More { next_cursor: String },
    EndOfStoredHistory,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskHistoryPage {
    pub task_id: String,
    pub cursor: Option<String>,
    /// Newest first.
    pub rows: Vec<TaskEventRow>,
    pub continuation: HistoryContinuation,
}

#[derive(Deserialize)]
#[serde(bound(deserialize = "R: Deserialize<'de>"))]
struct PageWire<R> {
    schema: String,
    task_id: String,
    cursor: Option<String>,
    #[serde(deserialize_with = "presized_rows")]
    rows: Vec<R>,
    next_cursor: Option<String>,
    has_more: bool,
}

/// Rows a page's vector is sized for before the first is read: a full page of the demand the
/// screens ask for is read without growing the vector (each growth would move every
/// row read so far, 336 bytes a row); the spare room is given back after the last row.
const ROWS_BEFORE_GROWTH: usize = 256;

/// `rows` read into a vector sized up front (the same elements, in the same order, as
/// serde's own `Vec` reading).
fn presized_rows<'de, D, R>(d: D) -> Result<Vec<R>, D::Error>
where
    D: serde::Deserializer<'de>,
    R: Deserialize<'de>,
{
    struct Rows<R>(std::marker::PhantomData<R>);
    impl<'de, R: Deserialize<'de>> serde::de::Visitor<'de> for Rows<R> {
        type Value = Vec<R>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a sequence")
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<R>, A::Error> {
            let hint = seq.size_hint().unwrap_or(0);
            let mut rows = Vec::with_capacity(hint.max(ROWS_BEFORE_GROWTH));
            while let Some(row) = seq.next_element()? {
                rows.push(row);
            }
            rows.shrink_to_fit();
            Ok(rows)
        }
    }
    d.deserialize_seq(Rows(std::marker::PhantomData))
}

fn err(kind: DecodeErrorKind, path: impl Into<String>, detail: impl Into<String>) -> DecodeError {
    DecodeError::new(kind, path, detail)
}

impl WireDecode for TaskHistoryPage {
    /// The checks that need no request: schema, `has_more` ⇔ `next_cursor`, no empty page
    /// with more, every row of the envelope's task.
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        Self::decode_checked(bytes, None)
    }
}

impl TaskHistoryPage {
    /// `request`: the echoes are checked right after the schema, before any row, so a page
    /// for another task reads as an echo mismatch rather than as rows of another task.
    fn decode_checked(bytes: &[u8], request: Option<&PageRequest>) -> Result<Self, DecodeError> {
        // Fast path, one parse for the common all-valid page: rows typed straight from the body.
        // When that decode succeeds, the checks below run in the same order on the same values as
        // on the slow path, so the answer is the same; any body it refuses takes the slow path,
        // which names the failure. A body that is UTF-8 as a whole is read as text (no check per
        // string); any other is read as bytes.
        if first_byte(bytes) == Some(b'{')
            && let Ok(w) = match std::str::from_utf8(bytes) {
                Ok(text) => serde_json::from_str::<PageWire<TaskEventRow>>(text),
                Err(_) => serde_json::from_slice::<PageWire<TaskEventRow>>(bytes),
            }
        {
            return Self::checked(w, request, |i, row, task_id| {
                check_row(i, &row, task_id)?;
                Ok(row)
            });
        }
        let w: PageWire<serde_json::Value> = decode_json_object(bytes)?;
        Self::checked(w, request, |i, v, task_id| decode_row(i, &v, task_id))
    }

    /// The envelope checks, then each row through `row` (index, wire row, envelope task id).
    fn checked<R>(
        w: PageWire<R>,
        request: Option<&PageRequest>,
        row: impl Fn(usize, R, &str) -> Result<TaskEventRow, DecodeError>,
    ) -> Result<Self, DecodeError> {
        if w.schema != TASK_HISTORY_PAGE_SCHEMA {
            return Err(err(
                DecodeErrorKind::InvalidValue,
                ".schema",
                format!("schema is not {TASK_HISTORY_PAGE_SCHEMA}"),
            ));
        }
        if let Some(request) = request {
            if w.task_id != request.task_id {
                return Err(err(
                    DecodeErrorKind::EchoMismatch,
                    ".task_id",
                    "task_id is not the requested task",
                ));
            }
            if w.cursor != request.cursor {
                return Err(err(
                    DecodeErrorKind::EchoMismatch,
                    ".cursor",
                    "cursor is not the requested cursor",
                ));
            }
        }
        let continuation = match (w.has_more, w.next_cursor) {
            (true, Some(next_cursor)) => HistoryContinuation::More { next_cursor },
            (false, None) => HistoryContinuation::EndOfStoredHistory,
            (has_more, _) => {
                return Err(err(
                    DecodeErrorKind::Other("has_more_inconsistent"),
                    ".has_more",
                    format!("has_more {has_more} disagrees with next_cursor"),
                ));
            }
        };
        if w.has_more && w.rows.is_empty() {
            return Err(err(
                DecodeErrorKind::Other("empty_page_with_more"),
                ".rows",
                "an empty page with has_more",
            ));
        }
        let task_id = w.task_id;
        let rows = w
            .rows
            .into_iter()
            .enumerate()
            .map(|(i, r)| row(i, r, &task_id))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self {
            task_id,
            cursor: w.cursor,
            rows,
            continuation,
        })
    }
}

fn decode_row(i: usize, v: &serde_json::Value, task_id: &str) -> Result<TaskEventRow, DecodeError> {
    if v.is_object() && v.get("task_id").is_none() {
        return Err(err(
            DecodeErrorKind::IdentityMismatch,
            format!(".rows[{i}].task_id"),
            "row without task_id",
        ));
    }
    let row: TaskEventRow = decode_value(v).map_err(|e| reroot(e, &format!(".rows[{i}]")))?;
    check_row(i, &row, task_id)?;
    Ok(row)
}

/// The checks of a decoded row: its task, and an RFC 3339 `ts`.
fn check_row(i: usize, row: &TaskEventRow, task_id: &str) -> Result<(), DecodeError> {
    if row.task_id != task_id {
        return Err(err(
            DecodeErrorKind::IdentityMismatch,
            format!(".rows[{i}].task_id"),
            "row of another task",
        ));
    }
    if row.task.as_deref().is_some_and(|t| t != task_id) {
        return Err(err(
            DecodeErrorKind::IdentityMismatch,
            format!(".rows[{i}].task"),
            "row task differs from task_id",
        ));
    }
    if !is_rfc3339(&row.ts) {
        return Err(err(
            DecodeErrorKind::InvalidValue,
            format!(".rows[{i}].ts"),
            "ts is not RFC 3339",
        ));
    }
    Ok(())
}

/// Whether `ts` parses as RFC 3339 (the `time` crate's parser decides). The common shape
/// `YYYY-MM-DDTHH:MM:SS[.fff][Z|±HH:MM]` with in-range fields is accepted without it: every
/// string [`rfc3339_plain`] accepts, the parser accepts too (tested below).
pub(crate) fn is_rfc3339(ts: &str) -> bool {
    rfc3339_plain(ts.as_bytes()) || OffsetDateTime::parse(ts, &Rfc3339).is_ok()
}

/// The plain RFC 3339 shape with every field in range; `false` means "ask the parser".
fn rfc3339_plain(b: &[u8]) -> bool {
    fn digits(b: &[u8]) -> Option<u32> {
        b.iter().try_fold(0u32, |acc, &c| {
            c.is_ascii_digit().then(|| acc * 10 + u32::from(c - b'0'))
        })
    }
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' {
        return false;
    }
    if b[13] != b':' || b[16] != b':' {
        return false;
    }
    let (Some(year), Some(month), Some(day)) =
        (digits(&b[0..4]), digits(&b[5..7]), digits(&b[8..10]))
    else {
        return false;
    };
    let (Some(hour), Some(minute), Some(second)) =
        (digits(&b[11..13]), digits(&b[14..16]), digits(&b[17..19]))
    else {
        return false;
    };
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    if year == 0 || day == 0 || day > days || hour > 23 || minute > 59 || second > 59 {
        return false;
    }
    let mut rest = &b[19..];
    if let Some((&b'.', frac)) = rest.split_first() {
        let n = frac.iter().take_while(|c| c.is_ascii_digit()).count();
        if n == 0 || n > 9 {
            return false;
        }
        rest = &frac[n..];
    }
    match rest {
        [b'Z'] => true,
        [b'+' | b'-', h1, h2, b':', m1, m2] => {
            matches!((digits(&[*h1, *h2]), digits(&[*m1, *m2])), (Some(h), Some(m)) if h <= 23 && m <= 59)
        }
        _ => false,
    }
}

impl TaskHistoryPage {
    /// Decode a page against its request and the cursors already used in this chain:
    /// echoes, page demand, and a repeating cursor.
    pub fn decode_for(
        bytes: &[u8],
        request: &PageRequest,
        used_cursors: &[String],
    ) -> Result<Self, DecodeError> {
        let page = Self::decode_checked(bytes, Some(request))?;
        if page.rows.len() > request.limit as usize {
            return Err(err(
                DecodeErrorKind::Other("page_over_limit"),
                ".rows",
                format!("{} rows for limit {}", page.rows.len(), request.limit),
            ));
        }
        if let HistoryContinuation::More { next_cursor } = &page.continuation {
            let repeats = request.cursor.as_ref() == Some(next_cursor)
                || used_cursors.iter().any(|c| c == next_cursor);
            if repeats {
                return Err(err(
                    DecodeErrorKind::RepeatingCursor,
                    ".next_cursor",
                    "next_cursor repeats a cursor of this chain",
                ));
            }
        }
        Ok(page)
    }
}

/// One line of the legacy §5.4 array (every field as the event line has it).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct LegacyTaskEvent {
    pub ts: String,
    #[serde(default)]
    pub task: Option<String>,
    #[serde(default)]
    pub task_id: Option<String>,
    #[serde(rename = "type", default)]
    pub event_type: Option<String>,
    #[serde(default)]
    pub action: Option<String>,
    #[serde(default)]
    pub from_status: Option<String>,
    #[serde(default)]
    pub to_status: Option<String>,
    #[serde(default)]
    pub agent: Option<String>,
    #[serde(default)]
    pub actor: Option<String>,
    #[serde(default)]
    pub handoff_context: Option<HandoffContext>,
}

/// The legacy recent-events array (§5.4): newest lines only, no cursor and no end signal, so
/// it says nothing about completeness. Never used as a fallback for a failed §5.3 page
/// read only when the page route is not served by this MASC.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LegacyTaskEvents {
    pub events: Vec<LegacyTaskEvent>,
}

impl WireDecode for LegacyTaskEvents {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        Ok(Self {
            events: decode_json(bytes)?,
        })
    }
}

impl LegacyTaskEvents {
    /// Decode the legacy array read for `task_id` (A-9's rule for §5.4): every line must name
    /// the task by `task` or `task_id`, and a line naming it by both must name it twice. A
    /// line of another task, or of no task, fails the read.
    pub fn decode_for(bytes: &[u8], task_id: &str) -> Result<Self, DecodeError> {
        let read = Self::decode(bytes)?;
        for (i, e) in read.events.iter().enumerate() {
            let names = [e.task.as_deref(), e.task_id.as_deref()];
            if names.iter().all(Option::is_none) {
                return Err(err(
                    DecodeErrorKind::IdentityMismatch,
                    format!("[{i}].task_id"),
                    "event line without task or task_id",
                ));
            }
            if let Some((field, _)) = [("task", names[0]), ("task_id", names[1])]
                .into_iter()
                .find(|(_, n)| n.is_some_and(|n| n != task_id))
            {
                return Err(err(
                    DecodeErrorKind::IdentityMismatch,
                    format!("[{i}].{field}"),
                    "event line of another task",
                ));
            }
        }
        Ok(read)
    }
}

#[cfg(test)]
mod rfc3339_tests {
    use super::*;

    /// Every string the plain check accepts, `time`'s RFC 3339 parser accepts; the plain
    /// check refuses only what the parser then judges.
    #[test]
    fn the_plain_check_accepts_nothing_the_parser_refuses() {
        let mut accepted = 0;
        let years = ["0000", "0001", "1999", "2000", "2024", "2100", "9999"];
        let fields = ["00", "01", "02", "12", "13", "28", "29", "30", "31", "32"];
        let tails = [
            "Z",
            "z",
            "+00:00",
            "-00:00",
            "+09:00",
            "-23:59",
            "+24:00",
            "+23:60",
            "+0900",
            ".5Z",
            ".123456789Z",
            ".1234567891Z",
            ".Z",
            ".12+01:00",
            "",
            "ZZ",
            " Z",
        ];
        for y in years {
            for mo in fields {
                for d in fields {
                    for (h, mi, s) in [
                        ("00", "00", "00"),
                        ("23", "59", "59"),
                        ("24", "00", "00"),
                        ("12", "60", "00"),
                        ("12", "30", "60"),
                    ] {
                        for tail in tails {
                            for sep in ["T", "t"] {
                                let ts = format!("{y}-{mo}-{d}{sep}{h}:{mi}:{s}{tail}");
                                let plain = rfc3339_plain(ts.as_bytes());
                                let parsed = OffsetDateTime::parse(&ts, &Rfc3339).is_ok();
                                assert!(!plain || parsed, "{ts}: plain accepts, parser refuses");
                                accepted += usize::from(plain);
                                assert_eq!(is_rfc3339(&ts), parsed, "{ts}");
                            }
                        }
                    }
                }
            }
        }
        assert!(accepted > 1000, "the plain check took {accepted}");
        for odd in [
            "",
            "2026",
            "2026-10-01T00:00:00",
            "२०२६-10-01T00:00:00Z",
            "2026-1O-01T00:00:00Z",
        ] {
            assert!(!rfc3339_plain(odd.as_bytes()), "{odd}");
        }
    }
}
