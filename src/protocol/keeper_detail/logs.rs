//! What the Keeper logs and the activity summary read (§14.9, §14.11): the metrics tail where
//! this MASC serves it (a masc-tui extension: no MASC release does), else the Keeper's turn
//! records, which every MASC serves.
//!
//! A turn record carries the time, the turn kind, the model, the input and output tokens, the
//! latency and the finish reason. A metrics line's channel, message count, cost, work kind,
//! tool calls and heartbeats are not in it: the view names them as missing, it never fills
//! them with zeros or leaves an empty table.

use super::{METRICS_TAIL_LIMIT, MetricsTail};
use crate::protocol::inspector::TurnRecordsPage;
use crate::protocol::inspector::turn_records::TurnKind;

/// How many turn records the logs read where the metrics tail is not served: the metrics
/// tail's window (MASC allows up to 500).
pub const LOGS_TURN_RECORDS_LIMIT: u32 = METRICS_TAIL_LIMIT;

/// The parts of a metrics line a turn record does not carry (said where the logs come from
/// the turn records).
pub const NOT_IN_TURN_RECORDS: &str =
    "channel, message count, cost, work kind, tool calls, heartbeats";

/// The Keeper logs of one read.
#[derive(Debug, Clone, PartialEq)]
pub enum KeeperLogs {
    /// `GET /api/v1/keepers/{name}/metrics-tail` (§14.9).
    Metrics(MetricsTail),
    /// `GET /api/v1/keepers/{name}/turn-records?limit=200` (§14.11) on a MASC without the
    /// metrics tail.
    TurnRecords(TurnRecordsPage),
}

/// What a turn-records window sums to (the activity summary where no metrics tail is served).
/// Numbers are of this window only.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RecordsSummary {
    pub turns: usize,
    pub direct: usize,
    pub autonomous: usize,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Turns whose record has no input or no output tokens (never counted as 0).
    pub usage_unreported: usize,
    /// Rows MASC could not decode and did not serve.
    pub skipped_rows: u64,
    /// Unix time of the newest record.
    pub last_turn_ts: Option<f64>,
}

impl RecordsSummary {
    pub fn of(page: &TurnRecordsPage) -> Self {
        let mut s = Self {
            turns: page.records.len(),
            skipped_rows: page.skipped_rows,
            last_turn_ts: page.latest().map(|r| r.ts),
            ..Self::default()
        };
        for r in &page.records {
            match r.turn_kind {
                TurnKind::Direct => s.direct += 1,
                TurnKind::Autonomous => s.autonomous += 1,
            }
            match (r.input_tokens, r.output_tokens) {
                (Some(i), Some(o)) => {
                    s.input_tokens += i;
                    s.output_tokens += o;
                }
                _ => s.usage_unreported += 1,
            }
        }
        s
    }
}

impl KeeperLogs {
    /// The metrics tail, when that is what was read.
    pub fn metrics(&self) -> Option<&MetricsTail> {
        match self {
            Self::Metrics(t) => Some(t),
            Self::TurnRecords(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(records: serde_json::Value, skipped: u64) -> TurnRecordsPage {
        let entries: Vec<serde_json::Value> = records
            .as_array()
            .into_iter()
            .flatten()
            .map(|r| serde_json::json!({"record": r, "diff_vs_prev": null}))
            .collect();
        let body = serde_json::json!({"keeper": "alpha", "count": entries.len(),
            "skipped_rows": skipped, "health": "ok", "stale_reason": null,
            "live_turn_in_progress": false, "entries": entries});
        TurnRecordsPage::decode_with_limit(&serde_json::to_vec(&body).unwrap(), "alpha", 200)
            .unwrap()
    }

    fn record(turn: u64, kind: &str, usage: Option<(u64, u64)>) -> serde_json::Value {
        let (i, o) = usage.map_or((None, None), |(i, o)| (Some(i), Some(o)));
        serde_json::json!({"execution_ids": [], "keeper": "alpha", "agent_name": "keeper-alpha",
            "turn_kind": kind, "trace_id": "t", "absolute_turn": turn,
            "turn_ref": format!("t#{turn}"), "blocks": [], "input_components": null,
            "runtime_profile": "glm", "request_body_bytes": 10, "input_tokens": i,
            "output_tokens": o, "ts": 1_000.0 + turn as f64})
    }

    /// §14.11 as the logs' source: the window's turns by kind, the tokens of the turns that
    /// report them, the ones that do not counted apart (never 0), MASC's refused rows kept.
    #[test]
    fn s14_11_a_records_window_sums_without_inventing_usage() {
        let p = page(
            serde_json::json!([
                record(1, "direct", Some((1000, 200))),
                record(2, "autonomous", None),
                record(3, "direct", Some((500, 50)))
            ]),
            2,
        );
        let s = RecordsSummary::of(&p);
        assert_eq!((s.turns, s.direct, s.autonomous), (3, 2, 1));
        assert_eq!((s.input_tokens, s.output_tokens), (1500, 250));
        assert_eq!(s.usage_unreported, 1);
        assert_eq!(s.skipped_rows, 2);
        assert_eq!(s.last_turn_ts, Some(1003.0));
        assert_eq!(RecordsSummary::of(&page(serde_json::json!([]), 0)).turns, 0);
        assert!(KeeperLogs::TurnRecords(p).metrics().is_none());
    }
}
