//! Task history: the cursor pages (protocol.md §5.3, sources.md A-1…) and the legacy
//! recent-events array (§5.4), which is never a fallback and never labelled "history".

use super::reroot;
use crate::protocol::decode::{
    DecodeError, DecodeErrorKind, WireDecode, decode_json, decode_json_object, decode_value,
};
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

/// One stored event line of a task, as the page serves it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct TaskEventRow {
    pub task_id: String,
    /// RFC 3339 (checked).
    pub ts: String,
    #[serde(default)]
    pub task: Option<String>,
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
    pub actor_kind: Option<String>,
    #[serde(default)]
    pub assignee: Option<String>,
    #[serde(default)]
    pub notes: Option<String>,
    #[serde(default)]
    pub reason: Option<String>,
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
struct PageWire {
    schema: String,
    task_id: String,
    cursor: Option<String>,
    rows: Vec<serde_json::Value>,
    next_cursor: Option<String>,
    has_more: bool,
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
        let w: PageWire = decode_json_object(bytes)?;
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
        let rows = w
            .rows
            .iter()
            .enumerate()
            .map(|(i, v)| decode_row(i, v, &w.task_id))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self {
            task_id: w.task_id,
            cursor: w.cursor,
            rows,
            continuation,
        })
    }
}

fn decode_row(i: usize, v: &serde_json::Value, task_id: &str) -> Result<TaskEventRow, DecodeError> {
    let at = format!(".rows[{i}]");
    if v.is_object() && v.get("task_id").is_none() {
        return Err(err(
            DecodeErrorKind::IdentityMismatch,
            format!("{at}.task_id"),
            "row without task_id",
        ));
    }
    let row: TaskEventRow = decode_value(v).map_err(|e| reroot(e, &at))?;
    if row.task_id != task_id {
        return Err(err(
            DecodeErrorKind::IdentityMismatch,
            format!("{at}.task_id"),
            "row of another task",
        ));
    }
    if row.task.as_deref().is_some_and(|t| t != task_id) {
        return Err(err(
            DecodeErrorKind::IdentityMismatch,
            format!("{at}.task"),
            "row task differs from task_id",
        ));
    }
    if OffsetDateTime::parse(&row.ts, &Rfc3339).is_err() {
        return Err(err(
            DecodeErrorKind::InvalidValue,
            format!("{at}.ts"),
            "ts is not RFC 3339",
        ));
    }
    Ok(row)
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
/// it says nothing about completeness. Never used as a fallback for §5.3.
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
