//! `GET /api/v1/keepers/{name}/runtime-trace?trace_id=&turn_id=&limit=` — the stored
//! preparation record of one finished turn (protocol.md §14.12; MASC
//! `server_dashboard_http_keeper_api_post.ml` `keeper_runtime_trace_json`, manifest rows as
//! `Keeper_runtime_manifest.public_to_json`, receipts as execution receipts).
//!
//! Linked only by an exact key (M-1): a `Turn_ref` `trace_id#turn_id` the chat holds, read
//! with that `trace_id` and `turn_id`; the echoes of `keeper`, `trace_id` and `turn_id` must
//! equal the request and `manifest_returned_rows` / `receipt_returned_rows` must count the rows
//! sent, or the read fails. Inside a read nothing is dropped (M-4): a manifest row naming an
//! event outside MASC's list is `Unsupported`, a row of another turn is `OtherTurn` (never
//! attributed to this turn), a row that does not decode is `Undecodable` — each its own kind.
//! `health` other than `ok` is partial, never success or empty.

use crate::protocol::client::path_segment;
use crate::protocol::decode::{DecodeError, DecodeErrorKind, decode_json_object};
use serde::Deserialize;
use serde_json::Value;

/// How many rows are asked for (MASC's default; clamped 1–500 by the server).
pub const TRACE_LIMIT: u32 = 200;

/// MASC's manifest event kinds (`keeper_runtime_manifest_types.ml`, `event_kind_to_string`).
pub const KNOWN_EVENTS: &[&str] = &[
    "turn_started",
    "phase_gate_decided",
    "runtime_routed",
    "runtime_execution_built",
    "runtime_completed",
    "runtime_failed",
    "pre_dispatch_blocked",
    "provider_lane_resolved",
    "provider_attempt_started",
    "provider_attempt_finished",
    "context_injected",
    "context_compacted",
    "event_bus_correlated",
    "checkpoint_loaded",
    "checkpoint_saved",
    "receipt_appended",
    "turn_finished",
];

/// The exact key of a stored report: a `Turn_ref` `<trace_id>#<turn_id>`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TurnLink {
    pub trace_id: String,
    pub turn_id: u64,
}

impl TurnLink {
    /// Parses `trace-alpha#41`; anything else links nothing (never guessed, M-2).
    pub fn parse(turn_ref: &str) -> Option<Self> {
        let (trace, turn) = turn_ref.rsplit_once('#')?;
        let trace = trace.trim();
        if trace.is_empty() || turn.is_empty() || !turn.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        Some(Self {
            trace_id: trace.to_string(),
            turn_id: turn.parse().ok()?,
        })
    }

    pub fn turn_ref(&self) -> String {
        format!("{}#{}", self.trace_id, self.turn_id)
    }
}

/// The read of `keeper`'s report for `link`.
pub fn runtime_trace_path(keeper: &str, link: &TurnLink) -> String {
    format!(
        "/api/v1/keepers/{}/runtime-trace?trace_id={}&turn_id={}&limit={TRACE_LIMIT}",
        path_segment(keeper),
        path_segment(&link.trace_id),
        link.turn_id
    )
}

/// `health`: anything but `ok` is partial (M-4); an unknown value is kept raw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TraceHealth {
    Ok,
    /// No manifest rows for the trace.
    Empty,
    /// The turn has no `turn_finished` row.
    Incomplete,
    /// Manifest rows but no matching receipt.
    Partial,
    Unknown(String),
}

impl TraceHealth {
    fn of(s: &str) -> Self {
        match s {
            "ok" => Self::Ok,
            "empty" => Self::Empty,
            "incomplete" => Self::Incomplete,
            "partial" => Self::Partial,
            other => Self::Unknown(other.to_string()),
        }
    }

    pub fn word(&self) -> &str {
        match self {
            Self::Ok => "ok",
            Self::Empty => "empty",
            Self::Incomplete => "incomplete",
            Self::Partial => "partial",
            Self::Unknown(s) => s,
        }
    }

    pub fn is_ok(&self) -> bool {
        *self == Self::Ok
    }
}

/// One manifest row as this turn's, or the kind it is kept as.
#[derive(Debug, Clone, PartialEq)]
pub enum ManifestEntry {
    Row {
        event: String,
        status: String,
        ts: String,
        logical_seq: Option<i64>,
    },
    /// A row of this turn whose event is outside MASC's list.
    Unsupported { event: String },
    /// A row of another turn (or with no turn id): counted, never attributed (M-4).
    OtherTurn,
    /// A row that does not decode: kept with its reason (M-4).
    Undecodable { reason: String },
}

/// One execution receipt, or why it could not be read.
#[derive(Debug, Clone, PartialEq)]
pub enum ReceiptEntry {
    Read {
        outcome: String,
        terminal_reason_code: Option<String>,
        runtime_id: Option<String>,
        error_kind: Option<String>,
    },
    Undecodable {
        reason: String,
    },
}

/// The report of one turn.
#[derive(Debug, Clone, PartialEq)]
pub struct RuntimeTrace {
    pub keeper: String,
    pub link: TurnLink,
    pub health: TraceHealth,
    pub stale_reason: Option<String>,
    pub manifest_total_rows: u64,
    pub manifest_total_rows_exact: bool,
    pub manifest: Vec<ManifestEntry>,
    pub receipts: Vec<ReceiptEntry>,
}

impl RuntimeTrace {
    /// Rows of this turn MASC knows, in the order sent.
    pub fn rows(&self) -> impl Iterator<Item = &ManifestEntry> {
        self.manifest
            .iter()
            .filter(|e| matches!(e, ManifestEntry::Row { .. }))
    }

    pub fn count(&self, kind: fn(&ManifestEntry) -> bool) -> usize {
        self.manifest.iter().filter(|e| kind(e)).count()
    }

    /// Decodes the answer to the read of `keeper`'s `link`.
    pub fn decode_for(bytes: &[u8], keeper: &str, link: &TurnLink) -> Result<Self, DecodeError> {
        #[derive(Deserialize)]
        struct Wire {
            keeper: String,
            trace_id: String,
            turn_id: Option<u64>,
            health: String,
            stale_reason: Option<String>,
            manifest_total_rows: u64,
            manifest_total_rows_exact: bool,
            manifest_returned_rows: u64,
            receipt_returned_rows: u64,
            manifest_rows: Vec<Value>,
            receipts: Vec<Value>,
        }
        let w: Wire = decode_json_object(bytes)?;
        let echo = |path: &str, detail: String| {
            Err(DecodeError::new(
                DecodeErrorKind::EchoMismatch,
                path,
                detail,
            ))
        };
        if w.keeper != keeper {
            return echo(".keeper", format!("asked for {keeper}"));
        }
        if w.trace_id != link.trace_id {
            return echo(".trace_id", "another trace than asked".into());
        }
        if w.turn_id != Some(link.turn_id) {
            return echo(".turn_id", "another turn than asked".into());
        }
        let count = |path: &str| {
            Err(DecodeError::new(
                DecodeErrorKind::CountMismatch,
                path,
                "disagrees with the rows sent",
            ))
        };
        if w.manifest_returned_rows != w.manifest_rows.len() as u64 {
            return count(".manifest_returned_rows");
        }
        if w.receipt_returned_rows != w.receipts.len() as u64 {
            return count(".receipt_returned_rows");
        }
        let manifest = w
            .manifest_rows
            .iter()
            .map(|row| manifest_entry(row, keeper, link))
            .collect();
        let receipts = w.receipts.iter().map(receipt_entry).collect();
        Ok(Self {
            keeper: w.keeper,
            link: link.clone(),
            health: TraceHealth::of(&w.health),
            stale_reason: w.stale_reason,
            manifest_total_rows: w.manifest_total_rows,
            manifest_total_rows_exact: w.manifest_total_rows_exact,
            manifest,
            receipts,
        })
    }
}

fn manifest_entry(row: &Value, keeper: &str, link: &TurnLink) -> ManifestEntry {
    #[derive(Deserialize)]
    struct Row {
        keeper_name: String,
        trace_id: String,
        keeper_turn_id: Option<u64>,
        event: String,
        status: String,
        ts: String,
        logical_seq: Option<i64>,
    }
    let row: Row = match serde_json::from_value(row.clone()) {
        Ok(r) => r,
        Err(e) => {
            return ManifestEntry::Undecodable {
                reason: e.to_string(),
            };
        }
    };
    if row.keeper_name != keeper
        || row.trace_id != link.trace_id
        || row.keeper_turn_id != Some(link.turn_id)
    {
        return ManifestEntry::OtherTurn;
    }
    if !KNOWN_EVENTS.contains(&row.event.as_str()) {
        return ManifestEntry::Unsupported { event: row.event };
    }
    ManifestEntry::Row {
        event: row.event,
        status: row.status,
        ts: row.ts,
        logical_seq: row.logical_seq,
    }
}

fn receipt_entry(row: &Value) -> ReceiptEntry {
    #[derive(Deserialize)]
    struct Receipt {
        outcome: String,
        terminal_reason_code: Option<String>,
        runtime_id: Option<String>,
        error_kind: Option<String>,
    }
    match serde_json::from_value::<Receipt>(row.clone()) {
        Ok(r) => ReceiptEntry::Read {
            outcome: r.outcome,
            terminal_reason_code: r.terminal_reason_code,
            runtime_id: r.runtime_id,
            error_kind: r.error_kind,
        },
        Err(e) => ReceiptEntry::Undecodable {
            reason: e.to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn link() -> TurnLink {
        TurnLink::parse("trace-rondo#41").unwrap()
    }

    fn row(event: &str, turn: Option<u64>) -> Value {
        json!({"schema_version":1,"ts":"2026-11-20T09:00:00Z","keeper_name":"rondo","agent_name":null,
               "trace_id":"trace-rondo","generation":3,"keeper_turn_id":turn,"agent_core_turn_count":null,
               "logical_seq":1,"event":event,"runtime_id":"claude","status":"ok","decision":{},"links":{}})
    }

    fn body(rows: Vec<Value>, receipts: Vec<Value>, health: &str) -> Vec<u8> {
        json!({"keeper":"rondo","trace_id":"trace-rondo","turn_id":41,"health":health,
               "stale_reason":null,"manifest_total_rows":rows.len(),"manifest_total_rows_exact":true,
               "manifest_returned_rows":rows.len(),"receipt_returned_rows":receipts.len(),
               "turn_identity":{},"provider_attempts":{},"event_bus":{},"runtime_lens":{},
               "manifest_rows":rows,"receipts":receipts})
        .to_string()
        .into_bytes()
    }

    #[test]
    fn m1_m2_a_link_is_an_exact_turn_ref_or_nothing() {
        assert_eq!(
            TurnLink::parse("trace-rondo#41"),
            Some(TurnLink {
                trace_id: "trace-rondo".into(),
                turn_id: 41
            })
        );
        assert_eq!(link().turn_ref(), "trace-rondo#41");
        for bad in [
            "trace-rondo",
            "#41",
            "trace-rondo#",
            "trace-rondo#4a",
            "tui-0190f5a0",
        ] {
            assert_eq!(TurnLink::parse(bad), None, "{bad}");
        }
        assert_eq!(
            runtime_trace_path("하늘", &link()),
            "/api/v1/keepers/%ED%95%98%EB%8A%98/runtime-trace?trace_id=trace-rondo&turn_id=41&limit=200"
        );
    }

    #[test]
    fn m4_every_row_is_kept_as_its_own_kind() {
        let mut bad = row("turn_started", Some(41));
        bad.as_object_mut().unwrap().remove("status");
        let t = RuntimeTrace::decode_for(
            &body(
                vec![
                    row("turn_started", Some(41)),
                    row("preparation_scope_opened", Some(41)),
                    row("turn_started", Some(40)),
                    bad,
                    row("turn_finished", Some(41)),
                ],
                vec![
                    json!({"outcome":"ok","terminal_reason_code":"success","runtime_id":"claude"}),
                    json!(7),
                ],
                "partial",
            ),
            "rondo",
            &link(),
        )
        .unwrap();
        assert_eq!(t.rows().count(), 2);
        assert_eq!(
            t.count(|e| matches!(e, ManifestEntry::Unsupported { .. })),
            1
        );
        assert_eq!(t.count(|e| matches!(e, ManifestEntry::OtherTurn)), 1);
        assert_eq!(
            t.count(|e| matches!(e, ManifestEntry::Undecodable { .. })),
            1
        );
        assert!(matches!(t.receipts[1], ReceiptEntry::Undecodable { .. }));
        assert_eq!(t.health, TraceHealth::Partial);
        assert!(!t.health.is_ok());
    }

    #[test]
    fn m1_echoes_and_counts_must_hold() {
        let ok = body(vec![row("turn_started", Some(41))], vec![], "ok");
        assert!(RuntimeTrace::decode_for(&ok, "rondo", &link()).is_ok());
        assert!(RuntimeTrace::decode_for(&ok, "mira", &link()).is_err());
        let other = TurnLink::parse("trace-rondo#42").unwrap();
        assert!(RuntimeTrace::decode_for(&ok, "rondo", &other).is_err());
        let lying = String::from_utf8(ok).unwrap().replace(
            "\"manifest_returned_rows\":1",
            "\"manifest_returned_rows\":3",
        );
        assert!(RuntimeTrace::decode_for(lying.as_bytes(), "rondo", &link()).is_err());
    }
}
