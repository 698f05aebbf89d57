//! `GET /api/v1/keepers/{name}/metrics-tail?limit=` — Keeper logs and the activity summary
//! (protocol.md §14.9, a masc-tui extension over MASC's `keeper.metrics.v1` store).
//!
//! The envelope is closed and strict (schema, `keeper` echo, `limit`, rows with contiguous
//! 1-based `index`). Each row is judged on its own (N-7): a line the server could not parse
//! (`malformed`), a line that is not a `keeper.metrics.v1` record, and a record naming another
//! Keeper each stay in their window slot as a diagnostic row and are counted
//! (`rejected N/M physical rows`), never dropped or replaced. `rows: []` is a real "no
//! records"; a failed read is a failure, never "no records" or "activity 0".

use crate::protocol::client::{QueryString, path_segment};
use crate::protocol::decode::{
    DecodeError, DecodeErrorKind, decode_json, decode_json_object, required_nullable,
};
use serde::Deserialize;

pub const METRICS_TAIL_SCHEMA: &str = "masc.keeper_metrics_tail.v1";
pub const METRICS_RECORD_SCHEMA: &str = "keeper.metrics.v1";
/// The newest rows the Keeper logs show (surfaces.md "Keeper logs"; §14.9 clamps 1–200).
pub const METRICS_TAIL_LIMIT: u32 = 200;

/// The logs read of one Keeper.
pub fn metrics_tail_path(name: &str, limit: u32) -> String {
    QueryString::new()
        .pair("limit", &limit.to_string())
        .append_to(&format!(
            "/api/v1/keepers/{}/metrics-tail",
            path_segment(name)
        ))
}

/// `channel` of a record (logs column Channel: `turn`, `sched`, `hb`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MetricsChannel {
    Turn,
    ScheduledAutonomous,
    Heartbeat,
}

impl MetricsChannel {
    pub fn short(self) -> &'static str {
        match self {
            Self::Turn => "turn",
            Self::ScheduledAutonomous => "sched",
            Self::Heartbeat => "hb",
        }
    }
}

/// `turn_mode` of a turn record (logs column Work).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnMode {
    ToolUse,
    TextResponse,
    SkipText,
    Noop,
}

impl TurnMode {
    /// The Work column: `tool_use`; `text_turn` for `text_response` and `skip_text`; `noop`.
    pub fn work(self) -> &'static str {
        match self {
            Self::ToolUse => "tool_use",
            Self::TextResponse | Self::SkipText => "text_turn",
            Self::Noop => "noop",
        }
    }
}

/// The token usage of a turn: all four counts null, or all set with total = input + output.
/// Signed: a usage MASC classified untrusted keeps the provider's counts as reported, a
/// negative one included (MASC's `Keeper_usage_trust`); a trusted one is never negative.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TurnUsage {
    pub input_tokens: i64,
    pub output_tokens: i64,
    pub cache_creation_tokens: i64,
    pub cache_read_tokens: i64,
}

/// What kind of record a row holds.
#[derive(Debug, Clone, PartialEq)]
pub enum MetricsEntry {
    Turn {
        message_count: u64,
        /// `None`: the provider reported no usage (shown `--`, never 0).
        usage: Option<TurnUsage>,
        /// `false`: MASC classified the usage untrusted (`usage_trust: untrusted`, an anomaly):
        /// shown as reported and marked, never summed into the activity totals.
        usage_trusted: bool,
        latency_ms: u64,
        cost_usd: Option<f64>,
        turn_mode: TurnMode,
        tool_call_count: u64,
    },
    Heartbeat {
        message_count: Option<u64>,
    },
}

/// One decoded `keeper.metrics.v1` record.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricsRecord {
    pub ts: String,
    pub ts_unix: Option<f64>,
    pub channel: MetricsChannel,
    pub name: String,
    pub trace_id: Option<String>,
    pub generation: Option<u64>,
    pub entry: MetricsEntry,
}

/// What one window slot holds.
#[derive(Debug, Clone, PartialEq)]
pub enum MetricsRowKind {
    Record(MetricsRecord),
    /// The server could not parse the physical line (its message).
    Malformed(String),
    /// A JSON line that is not a `keeper.metrics.v1` record.
    Undecodable(DecodeError),
    /// A record naming another Keeper: shown as a diagnostic, never as this Keeper's.
    OtherKeeper(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct MetricsRow {
    /// 1-based position in this window (not a file line).
    pub index: u32,
    pub kind: MetricsRowKind,
}

/// The §14.9 body, rows oldest first.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricsTail {
    pub keeper: String,
    /// The effective limit the server applied.
    pub limit: u32,
    pub rows: Vec<MetricsRow>,
}

/// The activity summary computed from one metrics observation (N-5). Counts are of the
/// decoded rows of this window only; `rejected` of `physical` rows could not be counted.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ActivitySummary {
    pub physical: usize,
    pub rejected: usize,
    pub turns: usize,
    pub scheduled: usize,
    pub heartbeats: usize,
    pub tool_calls: u64,
    /// Sums over turns whose usage was reported and trusted; `usage_unreported` turns reported
    /// none, `usage_untrusted` turns reported one MASC flagged as an anomaly.
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub usage_unreported: usize,
    pub usage_untrusted: usize,
    /// Sum over turns that reported a cost; `None` when none did.
    pub cost_usd: Option<f64>,
    /// `ts` of the newest decoded turn.
    pub last_turn: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WireTail {
    schema: String,
    keeper: String,
    limit: u32,
    rows: Vec<WireRow>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WireRow {
    index: u32,
    #[serde(default)]
    line: Option<serde_json::Map<String, serde_json::Value>>,
    #[serde(default)]
    malformed: Option<String>,
}

#[derive(Deserialize)]
struct WireRecord {
    schema: String,
    record_kind: String,
    ts: String,
    #[serde(default)]
    ts_unix: Option<f64>,
    channel: MetricsChannel,
    name: String,
    #[serde(default)]
    trace_id: Option<String>,
    #[serde(default)]
    generation: Option<u64>,
}

/// Every count is present (null when unreported: an absent key is a row of another shape).
#[derive(Deserialize)]
struct WireUsage {
    #[serde(deserialize_with = "required_nullable")]
    input_tokens: Option<i64>,
    #[serde(deserialize_with = "required_nullable")]
    output_tokens: Option<i64>,
    #[serde(deserialize_with = "required_nullable")]
    cache_creation_tokens: Option<i64>,
    #[serde(deserialize_with = "required_nullable")]
    cache_read_tokens: Option<i64>,
    #[serde(deserialize_with = "required_nullable")]
    total_tokens: Option<i64>,
    usage_trust: String,
    usage_anomaly: bool,
    usage_anomaly_reasons: Vec<String>,
}

#[derive(Deserialize)]
struct WireTurn {
    message_count: u64,
    usage: WireUsage,
    usage_trust: String,
    usage_anomaly_reasons: Vec<String>,
    latency_ms: u64,
    #[serde(deserialize_with = "required_nullable")]
    cost_usd: Option<f64>,
    turn_mode: TurnMode,
    tool_call_count: u64,
    tools_used: Vec<String>,
}

#[derive(Deserialize)]
struct WireHeartbeat {
    #[serde(deserialize_with = "required_nullable")]
    message_count: Option<u64>,
}

/// MASC's trust word for a usage it flagged as an anomaly (`Keeper_usage_trust`).
const UNTRUSTED: &str = "untrusted";

fn invalid(path: &str, detail: impl Into<String>) -> DecodeError {
    DecodeError::new(DecodeErrorKind::InvalidValue, path, detail)
}

/// Decodes one `line` as MASC's `keeper.metrics.v1` (§14.9).
pub fn decode_record(
    line: &serde_json::Map<String, serde_json::Value>,
) -> Result<MetricsRecord, DecodeError> {
    let bytes = serde_json::to_vec(line)
        .map_err(|e| DecodeError::new(DecodeErrorKind::Syntax, ".", e.to_string()))?;
    let common: WireRecord = decode_json(&bytes)?;
    if common.schema != METRICS_RECORD_SCHEMA {
        return Err(invalid(".schema", format!("not {METRICS_RECORD_SCHEMA}")));
    }
    let entry = match common.record_kind.as_str() {
        "turn" => {
            if common.channel == MetricsChannel::Heartbeat {
                return Err(invalid(".channel", "a turn on the heartbeat channel"));
            }
            let t: WireTurn = decode_json(&bytes)?;
            let usage = check_usage(&t.usage)?;
            if t.usage_trust != t.usage.usage_trust {
                return Err(invalid(".usage_trust", "differs from usage.usage_trust"));
            }
            if t.usage_anomaly_reasons != t.usage.usage_anomaly_reasons {
                return Err(invalid(
                    ".usage_anomaly_reasons",
                    "differs from usage.usage_anomaly_reasons",
                ));
            }
            let trusted = t.usage.usage_trust != UNTRUSTED;
            if t.usage.usage_anomaly == trusted {
                return Err(invalid(
                    ".usage.usage_anomaly",
                    "the anomaly flag disagrees with the usage trust",
                ));
            }
            if trusted
                && usage.is_some_and(|u| {
                    [
                        u.input_tokens,
                        u.output_tokens,
                        u.cache_creation_tokens,
                        u.cache_read_tokens,
                    ]
                    .iter()
                    .any(|n| *n < 0)
                })
            {
                return Err(invalid(".usage", "a negative count in a trusted usage"));
            }
            if t.tool_call_count != t.tools_used.len() as u64 {
                return Err(invalid(
                    ".tool_call_count",
                    "is not the length of tools_used",
                ));
            }
            if t.tool_call_count != 0 && t.turn_mode != TurnMode::ToolUse {
                return Err(invalid(".tool_call_count", "tool calls outside tool_use"));
            }
            MetricsEntry::Turn {
                message_count: t.message_count,
                usage,
                usage_trusted: trusted,
                latency_ms: t.latency_ms,
                cost_usd: t.cost_usd,
                turn_mode: t.turn_mode,
                tool_call_count: t.tool_call_count,
            }
        }
        "heartbeat" => {
            if common.channel != MetricsChannel::Heartbeat {
                return Err(invalid(".channel", "a heartbeat off the heartbeat channel"));
            }
            let h: WireHeartbeat = decode_json(&bytes)?;
            MetricsEntry::Heartbeat {
                message_count: h.message_count,
            }
        }
        other => {
            return Err(DecodeError::new(
                DecodeErrorKind::UnknownVariant,
                ".record_kind",
                format!("unknown record kind {other:?}"),
            ));
        }
    };
    Ok(MetricsRecord {
        ts: common.ts,
        ts_unix: common.ts_unix,
        channel: common.channel,
        name: common.name,
        trace_id: common.trace_id,
        generation: common.generation,
        entry,
    })
}

fn check_usage(u: &WireUsage) -> Result<Option<TurnUsage>, DecodeError> {
    match (
        u.input_tokens,
        u.output_tokens,
        u.cache_creation_tokens,
        u.cache_read_tokens,
        u.total_tokens,
    ) {
        (None, None, None, None, None) => Ok(None),
        (Some(input), Some(output), Some(cc), Some(cr), Some(total)) => {
            if input.checked_add(output) != Some(total) {
                return Err(invalid(".usage.total_tokens", "is not input + output"));
            }
            Ok(Some(TurnUsage {
                input_tokens: input,
                output_tokens: output,
                cache_creation_tokens: cc,
                cache_read_tokens: cr,
            }))
        }
        _ => Err(invalid(".usage", "token counts partly null")),
    }
}

impl MetricsTail {
    /// Decodes the body of the read for `name`: the envelope strictly, each row on its own.
    pub fn decode_for(bytes: &[u8], name: &str) -> Result<Self, DecodeError> {
        let wire: WireTail = decode_json_object(bytes)?;
        super::check_envelope(&wire.schema, METRICS_TAIL_SCHEMA, &wire.keeper, name)?;
        if !(1..=METRICS_TAIL_LIMIT).contains(&wire.limit) {
            return Err(invalid(".limit", format!("{} outside 1–200", wire.limit)));
        }
        if wire.rows.len() > wire.limit as usize {
            return Err(DecodeError::new(
                DecodeErrorKind::CountMismatch,
                ".rows",
                format!("{} rows over the limit {}", wire.rows.len(), wire.limit),
            ));
        }
        let mut rows = Vec::with_capacity(wire.rows.len());
        for (i, row) in wire.rows.into_iter().enumerate() {
            let path = format!(".rows[{i}]");
            if row.index as usize != i + 1 {
                return Err(invalid(
                    &format!("{path}.index"),
                    format!("{} is not {}", row.index, i + 1),
                ));
            }
            let kind = match (row.line, row.malformed) {
                (Some(line), None) => match decode_record(&line) {
                    Ok(record) if record.name != name => MetricsRowKind::OtherKeeper(record.name),
                    Ok(record) => MetricsRowKind::Record(record),
                    Err(e) => MetricsRowKind::Undecodable(e),
                },
                (None, Some(message)) => MetricsRowKind::Malformed(message),
                _ => {
                    return Err(invalid(&path, "exactly one of line and malformed"));
                }
            };
            rows.push(MetricsRow {
                index: row.index,
                kind,
            });
        }
        Ok(Self {
            keeper: wire.keeper,
            limit: wire.limit,
            rows,
        })
    }

    /// Rows that are not a decoded record of this Keeper.
    pub fn rejected(&self) -> usize {
        self.rows
            .iter()
            .filter(|r| !matches!(r.kind, MetricsRowKind::Record(_)))
            .count()
    }

    /// The activity summary of this window (N-5).
    pub fn summary(&self) -> ActivitySummary {
        let mut s = ActivitySummary {
            physical: self.rows.len(),
            rejected: self.rejected(),
            ..ActivitySummary::default()
        };
        for row in &self.rows {
            let MetricsRowKind::Record(r) = &row.kind else {
                continue;
            };
            match &r.entry {
                MetricsEntry::Heartbeat { .. } => s.heartbeats += 1,
                MetricsEntry::Turn {
                    usage,
                    usage_trusted,
                    cost_usd,
                    tool_call_count,
                    ..
                } => {
                    if r.channel == MetricsChannel::ScheduledAutonomous {
                        s.scheduled += 1;
                    } else {
                        s.turns += 1;
                    }
                    s.tool_calls += tool_call_count;
                    match usage {
                        Some(_) if !usage_trusted => s.usage_untrusted += 1,
                        Some(u) => {
                            s.input_tokens += u64::try_from(u.input_tokens).unwrap_or(0);
                            s.output_tokens += u64::try_from(u.output_tokens).unwrap_or(0);
                        }
                        None => s.usage_unreported += 1,
                    }
                    if let Some(c) = cost_usd.filter(|c| c.is_finite()) {
                        s.cost_usd = Some(s.cost_usd.unwrap_or(0.0) + c);
                    }
                    s.last_turn = Some(r.ts.clone());
                }
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn(name: &str, mode: &str, tools: &[&str]) -> serde_json::Value {
        serde_json::json!({"schema":"keeper.metrics.v1","record_kind":"turn","ts":"2026-11-20T08:00:00Z",
            "ts_unix":1.0,"channel":"turn","name":name,"agent_name":name,"trace_id":"trace-a","generation":3,
            "message_count":4,"usage":{"input_tokens":10,"output_tokens":5,"cache_creation_tokens":0,
            "cache_read_tokens":2,"total_tokens":15,"usage_trust":"reported","usage_anomaly":false,
            "usage_anomaly_reasons":[]},"usage_trust":"reported","usage_anomaly_reasons":[],
            "latency_ms":900,"cost_usd":0.01,"turn_mode":mode,"tool_call_count":tools.len(),"tools_used":tools})
    }

    fn body(rows: Vec<serde_json::Value>) -> Vec<u8> {
        serde_json::to_vec(
            &serde_json::json!({"schema":METRICS_TAIL_SCHEMA,"keeper":"a","limit":200,"rows":rows}),
        )
        .unwrap()
    }

    #[test]
    fn s14_9_the_protocol_example_keeps_the_malformed_slot() {
        let example = r#"{"schema":"masc.keeper_metrics_tail.v1","keeper":"alpha","limit":200,"rows":[{"index":1,"malformed":"invalid JSON: unexpected end of input"},
 {"index":2,"line":{"schema":"keeper.metrics.v1","record_kind":"heartbeat","ts":"2026-09-30T00:00:00Z","ts_unix":1790726400.0,"channel":"heartbeat","name":"alpha","agent_name":"alpha","trace_id":"trace-alpha","generation":3,"message_count":123}}]}"#;
        let t = MetricsTail::decode_for(example.as_bytes(), "alpha").unwrap();
        assert_eq!(t.rows.len(), 2);
        assert!(matches!(t.rows[0].kind, MetricsRowKind::Malformed(_)));
        assert!(matches!(
            t.rows[1].kind,
            MetricsRowKind::Record(MetricsRecord {
                entry: MetricsEntry::Heartbeat {
                    message_count: Some(123)
                },
                ..
            })
        ));
        let s = t.summary();
        assert_eq!(
            (s.physical, s.rejected, s.heartbeats, s.turns),
            (2, 1, 1, 0)
        );
    }

    #[test]
    fn n7_wrong_name_and_bad_records_stay_in_their_slots() {
        let mut bad_total = turn("a", "tool_use", &["read"]);
        bad_total["usage"]["total_tokens"] = 99.into();
        let rows = vec![
            serde_json::json!({"index":1,"line":turn("a","tool_use",&["read","grep"])}),
            serde_json::json!({"index":2,"line":turn("b","noop",&[])}),
            serde_json::json!({"index":3,"line":bad_total}),
            serde_json::json!({"index":4,"line":{"schema":"other.v1","record_kind":"turn"}}),
            serde_json::json!({"index":5,"line":turn("a","text_response",&["x"])}),
        ];
        let t = MetricsTail::decode_for(&body(rows), "a").unwrap();
        assert!(matches!(t.rows[0].kind, MetricsRowKind::Record(_)));
        assert_eq!(t.rows[1].kind, MetricsRowKind::OtherKeeper("b".into()));
        assert!(matches!(t.rows[2].kind, MetricsRowKind::Undecodable(_)));
        assert!(matches!(t.rows[3].kind, MetricsRowKind::Undecodable(_)));
        assert!(
            matches!(t.rows[4].kind, MetricsRowKind::Undecodable(_)),
            "tool calls outside tool_use"
        );
        let s = t.summary();
        assert_eq!(
            (s.physical, s.rejected, s.turns, s.tool_calls),
            (5, 4, 1, 2)
        );
        assert_eq!((s.input_tokens, s.output_tokens), (10, 5));
    }

    #[test]
    fn n7_empty_rows_are_a_real_no_records_and_the_envelope_is_strict() {
        let t = MetricsTail::decode_for(&body(vec![]), "a").unwrap();
        assert!(t.rows.is_empty());
        assert_eq!(t.summary().physical, 0);
        let e = MetricsTail::decode_for(&body(vec![]), "b").unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::EchoMismatch);
        let gap = body(vec![serde_json::json!({"index":2,"malformed":"x"})]);
        assert!(MetricsTail::decode_for(&gap, "a").is_err());
        let both = body(vec![
            serde_json::json!({"index":1,"malformed":"x","line":{}}),
        ]);
        assert!(MetricsTail::decode_for(&both, "a").is_err());
    }

    #[test]
    fn unreported_usage_is_not_zero() {
        let mut t = turn("a", "noop", &[]);
        for k in [
            "input_tokens",
            "output_tokens",
            "cache_creation_tokens",
            "cache_read_tokens",
            "total_tokens",
        ] {
            t["usage"][k] = serde_json::Value::Null;
        }
        t["cost_usd"] = serde_json::Value::Null;
        let tail =
            MetricsTail::decode_for(&body(vec![serde_json::json!({"index":1,"line":t})]), "a")
                .unwrap();
        let s = tail.summary();
        assert_eq!((s.turns, s.usage_unreported, s.cost_usd), (1, 1, None));
    }

    #[test]
    fn the_path_carries_the_limit() {
        assert_eq!(
            metrics_tail_path("하늘", 200),
            "/api/v1/keepers/%ED%95%98%EB%8A%98/metrics-tail?limit=200"
        );
    }

    /// §14.9 with MASC's `Keeper_usage_trust`: an untrusted usage keeps the provider's counts
    /// as reported (a negative one too), is marked and left out of the activity totals; its
    /// anomaly flag and reasons must agree with the trust; a count key is never left out.
    #[test]
    fn n5_untrusted_usage_is_kept_marked_and_left_out_of_the_totals() {
        let mut untrusted = turn("a", "noop", &[]);
        untrusted["usage"] = serde_json::json!({"input_tokens": -10, "output_tokens": 12,
            "cache_creation_tokens": 3, "cache_read_tokens": 4, "total_tokens": 2,
            "usage_trust": "untrusted", "usage_anomaly": true,
            "usage_anomaly_reasons": ["negative_input_tokens"]});
        untrusted["usage_trust"] = "untrusted".into();
        untrusted["usage_anomaly_reasons"] = serde_json::json!(["negative_input_tokens"]);
        let rows = vec![
            serde_json::json!({"index":1,"line":turn("a","noop",&[])}),
            serde_json::json!({"index":2,"line":untrusted.clone()}),
        ];
        let tail = MetricsTail::decode_for(&body(rows), "a").unwrap();
        let MetricsRowKind::Record(MetricsRecord {
            entry:
                MetricsEntry::Turn {
                    usage: Some(u),
                    usage_trusted: false,
                    ..
                },
            ..
        }) = &tail.rows[1].kind
        else {
            panic!("{:?}", tail.rows[1].kind)
        };
        assert_eq!(u.input_tokens, -10);
        let s = tail.summary();
        assert_eq!((s.turns, s.usage_untrusted, s.input_tokens), (2, 1, 10));
        let mut flag = untrusted.clone();
        flag["usage"]["usage_anomaly"] = false.into();
        assert!(decode_record(flag.as_object().unwrap()).is_err());
        let mut trusted_negative = untrusted.clone();
        trusted_negative["usage"]["usage_trust"] = "trusted".into();
        trusted_negative["usage_trust"] = "trusted".into();
        trusted_negative["usage"]["usage_anomaly"] = false.into();
        assert!(decode_record(trusted_negative.as_object().unwrap()).is_err());
        let mut missing = turn("a", "noop", &[]);
        missing["usage"]
            .as_object_mut()
            .unwrap()
            .remove("cache_read_tokens");
        assert_eq!(
            decode_record(missing.as_object().unwrap())
                .unwrap_err()
                .kind,
            DecodeErrorKind::MissingField
        );
    }
}
