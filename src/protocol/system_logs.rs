//! §15.1 System Logs: `GET /api/v1/dashboard/logs` (as in MASC), the query and its body.
//!
//! The body is read leniently (open on MASC's side, and its order differs across releases):
//! rows are kept by `seq`, never by position (Aug answers newest first, a newer server may
//! answer oldest first); a row that does not decode is kept in its place as
//! [`LogRowSlot::Undecodable`] with whatever `seq` it had; an unknown `level`, `source` or
//! `category` string is kept as sent, never folded into a known one; `latest_seq: null` is
//! accepted (Aug writes it on an empty page; MASC's newest decoder would refuse it).

use super::client::QueryString;
use super::decode::{DecodeError, DecodeErrorKind, WireDecode, decode_json};
use serde::Deserialize;
use serde_json::Value;

pub const LOGS_PATH: &str = "/api/v1/dashboard/logs";

/// The rows one read asks for (MASC clamps 1–3000; its TUI asks 200).
pub const PAGE_LIMIT: u32 = 200;

/// The minimum level asked (`level=`): MASC's ladder, which `l` steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub enum MinLevel {
    #[default]
    Debug,
    Info,
    Warn,
    Error,
}

impl MinLevel {
    pub const ALL: [MinLevel; 4] = [Self::Debug, Self::Info, Self::Warn, Self::Error];

    /// The query word MASC takes.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Debug => "debug",
            Self::Info => "info",
            Self::Warn => "warn",
            Self::Error => "error",
        }
    }

    /// The next step of the ladder (error wraps to debug).
    pub fn next(self) -> Self {
        match self {
            Self::Debug => Self::Info,
            Self::Info => Self::Warn,
            Self::Warn => Self::Error,
            Self::Error => Self::Debug,
        }
    }
}

/// The categories MASC writes (`lib/masc_log/log.ml:29`); the filter `c` cycles through them,
/// then `uncategorized` (rows with none), then every category.
pub const CATEGORIES: [&str; 10] = [
    "fsm",
    "lifecycle",
    "directive",
    "heartbeat",
    "tool",
    "routine",
    "boundary",
    "turn",
    "broadcast",
    "uncategorized",
];

/// What one read of the logs asks.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct LogQuery {
    pub level: MinLevel,
    /// One category name or `uncategorized`; `None`: every row.
    pub category: Option<String>,
    /// Delta read: only rows with a greater `seq`.
    pub since_seq: Option<u64>,
    /// Paging back: only rows with a smaller `seq`.
    pub before_seq: Option<u64>,
}

impl LogQuery {
    /// The request target.
    pub fn target(&self) -> String {
        let mut q = QueryString::new()
            .pair("limit", &PAGE_LIMIT.to_string())
            .pair("level", self.level.as_str());
        if let Some(c) = &self.category {
            q = q.pair("category", c);
        }
        if let Some(s) = self.since_seq {
            q = q.pair("since_seq", &s.to_string());
        }
        if let Some(b) = self.before_seq {
            q = q.pair("before_seq", &b.to_string());
        }
        q.append_to(LOGS_PATH)
    }

    /// The same filters, without a delta or a page back.
    pub fn filters(&self) -> Self {
        Self {
            level: self.level,
            category: self.category.clone(),
            since_seq: None,
            before_seq: None,
        }
    }
}

/// One log row (closed on MASC's side, read leniently here: strings outside MASC's vocabulary
/// are kept as sent).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct LogRow {
    pub seq: u64,
    #[serde(default)]
    pub ts: String,
    #[serde(default)]
    pub level: String,
    #[serde(default)]
    pub source: String,
    #[serde(default)]
    pub module: String,
    /// The Keeper, or the literal `"system"`.
    #[serde(default)]
    pub keeper_name: String,
    #[serde(default)]
    pub turn_id: Option<i64>,
    #[serde(default)]
    pub message: String,
    /// Shown only in the row's detail (G-10: never written to masc-tui's own log).
    #[serde(default)]
    pub details: Option<Value>,
    #[serde(default)]
    pub category: Option<String>,
}

/// A row as it came: decoded, or kept with what could be read of it.
#[derive(Debug, Clone, PartialEq)]
pub enum LogRowSlot {
    Row(Box<LogRow>),
    Undecodable { seq: Option<u64>, error: String },
}

impl LogRowSlot {
    pub fn seq(&self) -> Option<u64> {
        match self {
            Self::Row(r) => Some(r.seq),
            Self::Undecodable { seq, .. } => *seq,
        }
    }
}

/// `ring`: the live window's bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
pub struct LogRing {
    #[serde(default)]
    pub start_seq: u64,
    #[serde(default)]
    pub total: u64,
    /// Older entries were evicted: a thin page below `start_seq` is "outside the live window",
    /// not "nothing happened".
    #[serde(default)]
    pub dropped_before: bool,
}

/// One page of the logs.
#[derive(Debug, Clone, PartialEq)]
pub struct LogsPage {
    pub generated_at_iso: Option<String>,
    pub returned: u64,
    pub latest_seq: Option<u64>,
    pub oldest_seq: Option<u64>,
    /// Entries the ring has ever seen (not rows returned).
    pub total: u64,
    pub ring: Option<LogRing>,
    /// In `seq` order, newest first, whatever order the server sent.
    pub rows: Vec<LogRowSlot>,
}

#[derive(Deserialize)]
struct Wire {
    #[serde(default)]
    generated_at_iso: Option<String>,
    returned: u64,
    #[serde(default)]
    latest_seq: Option<u64>,
    #[serde(default)]
    oldest_seq: Option<u64>,
    #[serde(default)]
    total: u64,
    #[serde(default)]
    ring: Option<LogRing>,
    entries: Vec<Value>,
}

impl WireDecode for LogsPage {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let wire: Wire = decode_json(bytes)?;
        if wire.returned != wire.entries.len() as u64 {
            return Err(DecodeError::new(
                DecodeErrorKind::CountMismatch,
                ".returned",
                format!("returned {} but {} rows", wire.returned, wire.entries.len()),
            ));
        }
        let mut rows: Vec<LogRowSlot> = wire
            .entries
            .into_iter()
            .map(|v| {
                let seq = v.get("seq").and_then(Value::as_u64);
                match serde_json::from_value::<LogRow>(v) {
                    Ok(row) => LogRowSlot::Row(Box::new(row)),
                    Err(e) => LogRowSlot::Undecodable {
                        seq,
                        error: e.to_string(),
                    },
                }
            })
            .collect();
        // By seq, newest first; a row without a seq keeps its place after the rows with one.
        rows.sort_by_key(|r| std::cmp::Reverse(r.seq()));
        Ok(Self {
            generated_at_iso: wire.generated_at_iso,
            returned: wire.returned,
            latest_seq: wire.latest_seq,
            oldest_seq: wire.oldest_seq,
            total: wire.total,
            ring: wire.ring,
            rows,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const AUG: &str = r#"{"generated_at_iso":"2026-08-22T19:48:45Z","dashboard_surface":"/api/v1/dashboard/logs","source":"masc_log_ring",
      "retention":{"scope":"dashboard_logs","capacity":50000,"keep_days":7},
      "query":{"limit":200,"level":"debug","applied_level":"DEBUG","min_level":0,"module":null,"since_seq":null,"before_seq":null,"category":null,"exclude_category":null},
      "returned":3,"latest_seq":12,"oldest_seq":9,"latest_ts_iso":"2026-08-22T19:48:44Z",
      "ring":{"start_seq":1,"total":12,"dropped_before":false},"total":12,
      "entries":[
        {"seq":12,"ts":"2026-08-22T19:48:44Z","level":"ERROR","source":"structured","module":"keeper","keeper_name":"rondo","turn_id":3,"message":"turn failed","details":{"k":1},"category":"turn"},
        {"seq":10,"ts":"2026-08-22T19:48:40Z","level":"TRACE","source":"otel_bridge","module":"x","keeper_name":"system","turn_id":null,"message":"m","details":null,"category":"weird"},
        {"seq":9,"ts":"2026-08-22T19:48:39Z","level":"INFO","source":"legacy_stderr","module":"x","keeper_name":"system","turn_id":null,"message":"m","details":null,"category":null}]}"#;

    #[test]
    fn s15_1_aug_page_decodes_newest_first_with_unknown_words_kept() {
        let page = LogsPage::decode(AUG.as_bytes()).unwrap();
        assert_eq!(page.latest_seq, Some(12));
        assert_eq!(page.ring.map(|r| r.dropped_before), Some(false));
        let seqs: Vec<Option<u64>> = page.rows.iter().map(LogRowSlot::seq).collect();
        assert_eq!(seqs, vec![Some(12), Some(10), Some(9)]);
        let LogRowSlot::Row(row) = &page.rows[1] else {
            panic!("decoded");
        };
        assert_eq!(
            (
                row.level.as_str(),
                row.source.as_str(),
                row.category.as_deref()
            ),
            ("TRACE", "otel_bridge", Some("weird"))
        );
    }

    #[test]
    fn s15_1_oldest_first_is_ordered_by_seq_and_null_latest_is_accepted() {
        let body = r#"{"returned":2,"latest_seq":null,"total":5,"entries":[
            {"seq":3,"level":"INFO","message":"a"},{"seq":4,"level":"INFO","message":"b"}]}"#;
        let page = LogsPage::decode(body.as_bytes()).unwrap();
        assert_eq!(page.latest_seq, None);
        assert_eq!(page.rows[0].seq(), Some(4));
        let empty = r#"{"returned":0,"latest_seq":null,"oldest_seq":null,"total":9,
            "ring":{"start_seq":5,"total":9,"dropped_before":true},"entries":[]}"#;
        let page = LogsPage::decode(empty.as_bytes()).unwrap();
        assert!(page.rows.is_empty() && page.ring.unwrap().dropped_before);
    }

    #[test]
    fn s15_1_a_bad_row_is_kept_and_a_count_mismatch_refused() {
        let body = r#"{"returned":2,"total":2,"entries":[{"seq":"x"},{"seq":7,"message":"ok"}]}"#;
        let page = LogsPage::decode(body.as_bytes()).unwrap();
        assert!(matches!(page.rows[0], LogRowSlot::Row(_)));
        assert!(matches!(
            page.rows[1],
            LogRowSlot::Undecodable { seq: None, .. }
        ));
        let bad = r#"{"returned":3,"total":2,"entries":[{"seq":7}]}"#;
        let e = LogsPage::decode(bad.as_bytes()).unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::CountMismatch);
    }

    #[test]
    fn s15_1_the_query_names_every_filter() {
        let q = LogQuery {
            level: MinLevel::Warn,
            category: Some("turn".into()),
            since_seq: Some(40),
            before_seq: None,
        };
        assert_eq!(
            q.target(),
            "/api/v1/dashboard/logs?limit=200&level=warn&category=turn&since_seq=40"
        );
        assert_eq!(MinLevel::Error.next(), MinLevel::Debug);
    }
}
