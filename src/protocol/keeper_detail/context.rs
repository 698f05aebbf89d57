//! `GET /api/v1/keepers/{name}/context` — Live Context (protocol.md §14.8, a masc-tui
//! extension serving MASC's `keeper_context_observation_projection` for one Keeper).
//!
//! The body and its `context` object are closed. Checks that fail the read: the `keeper`
//! echo, `turn_ref` = `trace_id#absolute_turn` with the echoed trace, `context_ratio` =
//! tokens / max (relative tolerance 1e-12; null exactly when max is null or 0), and a
//! not-observed reason outside the known vocabulary. A turn-record store failure is an
//! in-body reason ([`ContextUnavailableReason::TurnRecordReadFailed`]), never 0 or empty.

use crate::protocol::client::path_segment;
use crate::protocol::decode::{
    DecodeError, DecodeErrorKind, decode_json_object, present_nullable, required_nullable,
};
use serde::Deserialize;

pub const CONTEXT_SCHEMA: &str = "masc.keeper_context_observation.v1";

/// The Live Context read of one Keeper.
pub fn context_path(name: &str) -> String {
    format!("/api/v1/keepers/{}/context", path_segment(name))
}

/// Why a Keeper's context is not observed (§14.8; the first five since the Aug snapshot,
/// the rest newer MASC). Any other reason fails the read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ContextUnavailableReason {
    ContextMeasurementMissing,
    TurnRecordUndecodable,
    TurnRecordReadFailed,
    TurnRecordWithoutUsage,
    TurnRecordTraceMismatch,
    ConversationCumulativeUsage,
    UsageScopeUnavailable,
    ContextTokensExceedWindow,
}

impl ContextUnavailableReason {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ContextMeasurementMissing => "context_measurement_missing",
            Self::TurnRecordUndecodable => "turn_record_undecodable",
            Self::TurnRecordReadFailed => "turn_record_read_failed",
            Self::TurnRecordWithoutUsage => "turn_record_without_usage",
            Self::TurnRecordTraceMismatch => "turn_record_trace_mismatch",
            Self::ConversationCumulativeUsage => "conversation_cumulative_usage",
            Self::UsageScopeUnavailable => "usage_scope_unavailable",
            Self::ContextTokensExceedWindow => "context_tokens_exceed_window",
        }
    }
}

/// What the server observed of the Keeper's context.
#[derive(Debug, Clone, PartialEq)]
pub enum ContextObservation {
    /// The newest completed turn of the trace reported its prompt tokens.
    Observed {
        tokens: u64,
        /// `None`: the turn resolved no window (show the token count only, C-58).
        max: Option<u64>,
        /// tokens / max, checked against the two.
        ratio: Option<f64>,
        observed_at: String,
        turn_ref: String,
        absolute_turn: u64,
        request_body_bytes: Option<u64>,
        usage_scope: Option<String>,
    },
    /// Not observed, with the server's reason (shown as `unavailable` with it).
    NotObserved {
        reason: ContextUnavailableReason,
        usage_scope: Option<String>,
        raw_input_tokens: Option<u64>,
        context_window: Option<u64>,
    },
}

/// Where a Live Context observation came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContextSource {
    /// `GET /api/v1/keepers/{name}/context` (§14.8): the server's projection.
    ContextRoute,
    /// A MASC without `/context` (every release): MASC's projection rules applied here to
    /// the newest row of `GET /api/v1/keepers/{name}/turn-records?limit=1` (§14.11).
    NewestTurnRecord,
}

/// The §14.8 body.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveContext {
    pub keeper: String,
    /// With `generation`, the owner of this observation (L-2).
    pub trace_id: String,
    pub generation: u64,
    pub context: ContextObservation,
    pub source: ContextSource,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WireBody {
    schema: String,
    keeper: String,
    trace_id: String,
    generation: u64,
    context: WireContext,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WireUnavailable {
    kind: String,
    reason: ContextUnavailableReason,
}

/// Closed; the four measurement keys and `metrics_unavailable` are present in both forms (null
/// where they do not apply): a missing key is another shape, not a null.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WireContext {
    #[serde(deserialize_with = "required_nullable")]
    source: Option<String>,
    #[serde(deserialize_with = "required_nullable")]
    context_tokens: Option<u64>,
    #[serde(deserialize_with = "required_nullable")]
    context_max: Option<u64>,
    #[serde(deserialize_with = "required_nullable")]
    context_ratio: Option<f64>,
    #[serde(default)]
    observed_at: Option<String>,
    #[serde(default)]
    turn_ref: Option<String>,
    #[serde(default)]
    absolute_turn: Option<u64>,
    /// Present when observed (null when the wire was not observed); absent when not observed.
    #[serde(default, deserialize_with = "present_nullable")]
    request_body_bytes: Option<Option<u64>>,
    #[serde(default)]
    usage_scope: Option<String>,
    #[serde(deserialize_with = "required_nullable")]
    metrics_unavailable: Option<WireUnavailable>,
    #[serde(default)]
    raw_input_tokens: Option<u64>,
    #[serde(default)]
    context_window: Option<u64>,
}

fn invalid(path: &str, detail: impl Into<String>) -> DecodeError {
    DecodeError::new(DecodeErrorKind::InvalidValue, path, detail)
}

fn required<T>(value: Option<T>, path: &str) -> Result<T, DecodeError> {
    value.ok_or_else(|| {
        DecodeError::new(
            DecodeErrorKind::MissingField,
            path,
            "required when the context is observed",
        )
    })
}

impl LiveContext {
    /// Decodes the body of the read for `name` with every §14.8 check.
    pub fn decode_for(bytes: &[u8], name: &str) -> Result<Self, DecodeError> {
        let wire: WireBody = decode_json_object(bytes)?;
        super::check_envelope(&wire.schema, CONTEXT_SCHEMA, &wire.keeper, name)?;
        let c = wire.context;
        let context = match c.metrics_unavailable {
            Some(unavailable) => {
                if unavailable.kind != "not_observed" {
                    return Err(invalid(
                        ".context.metrics_unavailable.kind",
                        format!("unknown kind {:?}", unavailable.kind),
                    ));
                }
                if c.source.is_some()
                    || c.context_tokens.is_some()
                    || c.context_max.is_some()
                    || c.context_ratio.is_some()
                {
                    return Err(invalid(
                        ".context",
                        "not observed, yet source or token values are set",
                    ));
                }
                ContextObservation::NotObserved {
                    reason: unavailable.reason,
                    usage_scope: c.usage_scope,
                    raw_input_tokens: c.raw_input_tokens,
                    context_window: c.context_window,
                }
            }
            None => {
                let source = required(c.source, ".context.source")?;
                if source != "turn_record" {
                    return Err(invalid(
                        ".context.source",
                        format!("unknown source {source:?}"),
                    ));
                }
                let tokens = required(c.context_tokens, ".context.context_tokens")?;
                let observed_at = required(c.observed_at, ".context.observed_at")?;
                let turn_ref = required(c.turn_ref, ".context.turn_ref")?;
                let absolute_turn = required(c.absolute_turn, ".context.absolute_turn")?;
                let expected_ref = format!("{}#{absolute_turn}", wire.trace_id);
                if turn_ref != expected_ref {
                    return Err(DecodeError::new(
                        DecodeErrorKind::IdentityMismatch,
                        ".context.turn_ref",
                        format!("{turn_ref:?} is not {expected_ref:?}"),
                    ));
                }
                check_ratio(tokens, c.context_max, c.context_ratio)?;
                ContextObservation::Observed {
                    tokens,
                    max: c.context_max,
                    ratio: c.context_ratio,
                    observed_at,
                    turn_ref,
                    absolute_turn,
                    request_body_bytes: required(
                        c.request_body_bytes,
                        ".context.request_body_bytes",
                    )?,
                    usage_scope: c.usage_scope,
                }
            }
        };
        Ok(Self {
            keeper: wire.keeper,
            trace_id: wire.trace_id,
            generation: wire.generation,
            context,
            source: ContextSource::ContextRoute,
        })
    }

    /// The Live Context of the owner (`trace_id`, `generation`) from a turn-records page read
    /// with `limit=1`, by the rules of MASC's own projection
    /// (`Keeper_context_observation_projection`, which `/context` serves): no row is
    /// `context_measurement_missing`; a newest row MASC could not decode (`skipped_rows`, no
    /// record) is `turn_record_undecodable`; a row of another trace is
    /// `turn_record_trace_mismatch`; no input tokens is `turn_record_without_usage`; a
    /// cumulative or unknown usage scope is not an occupancy; tokens over the window are not
    /// clamped; no window keeps the tokens without a ratio.
    pub fn from_newest_turn_record(
        page: &crate::protocol::inspector::TurnRecordsPage,
        trace_id: &str,
        generation: u64,
    ) -> Self {
        let context = match page.latest() {
            None if page.skipped_rows > 0 => not_observed(
                ContextUnavailableReason::TurnRecordUndecodable,
                None,
                None,
                None,
            ),
            None => not_observed(
                ContextUnavailableReason::ContextMeasurementMissing,
                None,
                None,
                None,
            ),
            Some(r) => record_observation(r, trace_id),
        };
        Self {
            keeper: page.keeper.clone(),
            trace_id: trace_id.to_string(),
            generation,
            context,
            source: ContextSource::NewestTurnRecord,
        }
    }

    /// The owner this observation belongs to: (`trace_id`, `generation`) (L-2).
    pub fn owner(&self) -> (&str, u64) {
        (&self.trace_id, self.generation)
    }
}

fn not_observed(
    reason: ContextUnavailableReason,
    usage_scope: Option<String>,
    raw_input_tokens: Option<u64>,
    context_window: Option<u64>,
) -> ContextObservation {
    ContextObservation::NotObserved {
        reason,
        usage_scope,
        raw_input_tokens,
        context_window,
    }
}

/// One record's observation for the owner's trace (MASC's projection, see
/// [`LiveContext::from_newest_turn_record`]). An absent `usage_scope` is an August record,
/// written before the scope existed: its input tokens are per request.
fn record_observation(
    r: &crate::protocol::inspector::TurnRecord,
    trace_id: &str,
) -> ContextObservation {
    use ContextUnavailableReason as R;
    let scope = r.usage_scope.clone();
    if r.trace_id != trace_id {
        return not_observed(R::TurnRecordTraceMismatch, None, None, None);
    }
    let Some(tokens) = r.input_tokens else {
        return not_observed(R::TurnRecordWithoutUsage, scope, None, r.context_window);
    };
    match scope.as_deref() {
        None | Some("per_request") => {}
        Some("conversation_cumulative") => {
            return not_observed(
                R::ConversationCumulativeUsage,
                scope,
                Some(tokens),
                r.context_window,
            );
        }
        Some(_) => {
            return not_observed(
                R::UsageScopeUnavailable,
                scope,
                Some(tokens),
                r.context_window,
            );
        }
    }
    let max = r.context_window.filter(|w| *w > 0);
    if let Some(window) = max
        && tokens > window
    {
        return not_observed(
            R::ContextTokensExceedWindow,
            scope,
            Some(tokens),
            Some(window),
        );
    }
    ContextObservation::Observed {
        tokens,
        max,
        ratio: max.map(|m| tokens as f64 / m as f64),
        observed_at: rfc3339_seconds(r.ts),
        turn_ref: r.turn_ref.clone(),
        absolute_turn: r.absolute_turn,
        request_body_bytes: r.request_body_bytes,
        usage_scope: scope,
    }
}

/// RFC 3339 UTC of a record's unix time, to the second (the `observed_at` MASC's projection
/// writes; the logs' TIME of a turn record).
pub fn rfc3339_seconds(ts: f64) -> String {
    let nanos = (ts * 1e9) as i128;
    time::OffsetDateTime::from_unix_timestamp_nanos(nanos)
        .ok()
        .and_then(|t| {
            t.replace_nanosecond(0)
                .ok()?
                .format(&time::format_description::well_known::Rfc3339)
                .ok()
        })
        .unwrap_or_else(|| format!("unix {ts}"))
}

/// `context_ratio` equals tokens / max (relative tolerance 1e-12) and is null exactly when
/// max is null or 0.
fn check_ratio(tokens: u64, max: Option<u64>, ratio: Option<f64>) -> Result<(), DecodeError> {
    let path = ".context.context_ratio";
    match (max.filter(|m| *m > 0), ratio) {
        (None, None) => Ok(()),
        (None, Some(_)) => Err(invalid(path, "a ratio without a window")),
        (Some(_), None) => Err(invalid(path, "a window without a ratio")),
        (Some(max), Some(ratio)) => {
            let expected = tokens as f64 / max as f64;
            let tolerance = 1e-12 * expected.abs().max(f64::MIN_POSITIVE);
            if ratio.is_finite() && (ratio - expected).abs() <= tolerance {
                Ok(())
            } else {
                Err(invalid(
                    path,
                    format!("{ratio} is not {tokens}/{max} = {expected}"),
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::inspector::TurnRecordsPage;

    const OBSERVED: &str = r#"{"schema":"masc.keeper_context_observation.v1","keeper":"alpha","trace_id":"trace-alpha","generation":3,"context":{"source":"turn_record","context_tokens":100887,"context_max":200000,"context_ratio":0.504435,
 "observed_at":"2026-10-08T10:00:00Z","turn_ref":"trace-alpha#41","absolute_turn":41,"request_body_bytes":412337,"metrics_unavailable":null}}"#;

    #[test]
    fn s14_8_the_protocol_example_decodes() {
        let c = LiveContext::decode_for(OBSERVED.as_bytes(), "alpha").unwrap();
        assert_eq!(c.owner(), ("trace-alpha", 3));
        match c.context {
            ContextObservation::Observed {
                tokens, max, ratio, ..
            } => {
                assert_eq!((tokens, max), (100_887, Some(200_000)));
                assert_eq!(ratio, Some(0.504435));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn s14_8_not_observed_carries_its_reason_and_an_unknown_reason_fails() {
        let body = r#"{"schema":"masc.keeper_context_observation.v1","keeper":"a","trace_id":"t","generation":1,
            "context":{"source":null,"context_tokens":null,"context_max":null,"context_ratio":null,
            "metrics_unavailable":{"kind":"not_observed","reason":"turn_record_read_failed"}}}"#;
        let c = LiveContext::decode_for(body.as_bytes(), "a").unwrap();
        assert!(matches!(
            c.context,
            ContextObservation::NotObserved {
                reason: ContextUnavailableReason::TurnRecordReadFailed,
                ..
            }
        ));
        let unknown = body.replace("turn_record_read_failed", "disk_on_fire");
        let e = LiveContext::decode_for(unknown.as_bytes(), "a").unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::UnknownVariant);
    }

    #[test]
    fn s14_8_checks_fail_the_read() {
        let wrong_echo = LiveContext::decode_for(OBSERVED.as_bytes(), "beta").unwrap_err();
        assert_eq!(wrong_echo.kind, DecodeErrorKind::EchoMismatch);
        let wrong_ref = OBSERVED.replace("trace-alpha#41", "trace-other#41");
        let e = LiveContext::decode_for(wrong_ref.as_bytes(), "alpha").unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::IdentityMismatch);
        let wrong_ratio = OBSERVED.replace("0.504435", "0.6");
        let e = LiveContext::decode_for(wrong_ratio.as_bytes(), "alpha").unwrap_err();
        assert_eq!(
            (e.kind, e.path.as_str()),
            (DecodeErrorKind::InvalidValue, ".context.context_ratio")
        );
        let extra = OBSERVED.replace("\"generation\":3,", "\"generation\":3,\"extra\":1,");
        let e = LiveContext::decode_for(extra.as_bytes(), "alpha").unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::UnknownField);
    }

    #[test]
    fn c58_without_a_window_the_ratio_must_be_null() {
        let no_max = OBSERVED
            .replace("\"context_max\":200000", "\"context_max\":null")
            .replace("\"context_ratio\":0.504435", "\"context_ratio\":null");
        let c = LiveContext::decode_for(no_max.as_bytes(), "alpha").unwrap();
        assert!(matches!(
            c.context,
            ContextObservation::Observed {
                max: None,
                ratio: None,
                ..
            }
        ));
        let ratio_left = OBSERVED.replace("\"context_max\":200000", "\"context_max\":null");
        assert!(LiveContext::decode_for(ratio_left.as_bytes(), "alpha").is_err());
    }

    #[test]
    fn the_path_encodes_the_name() {
        assert_eq!(context_path("a/b"), "/api/v1/keepers/a%2Fb/context");
    }

    /// A records page of `alpha` read with `limit=1` holding `record` (or none), as MASC's
    /// envelope writes it.
    fn records_page(record: Option<serde_json::Value>, skipped: u64) -> TurnRecordsPage {
        let entries: Vec<serde_json::Value> = record
            .into_iter()
            .map(|r| serde_json::json!({"record": r, "diff_vs_prev": null}))
            .collect();
        let body = serde_json::json!({"keeper": "alpha", "count": entries.len(),
            "skipped_rows": skipped, "health": "ok", "stale_reason": null,
            "live_turn_in_progress": false, "entries": entries});
        TurnRecordsPage::decode_with_limit(&serde_json::to_vec(&body).unwrap(), "alpha", 1).unwrap()
    }

    fn record(trace: &str, fields: serde_json::Value) -> serde_json::Value {
        let mut r = serde_json::json!({"execution_ids": [], "keeper": "alpha",
            "agent_name": "keeper-alpha", "turn_kind": "direct", "trace_id": trace,
            "absolute_turn": 4071, "turn_ref": format!("{trace}#4071"), "blocks": [],
            "input_components": null, "runtime_profile": "glm-coding",
            "request_body_bytes": 560_513, "input_tokens": 18_000, "context_window": 131_072,
            "ts": 1_781_200_000.5});
        if let (Some(r), Some(f)) = (r.as_object_mut(), fields.as_object()) {
            r.extend(f.clone());
        }
        r
    }

    fn reason_of(c: &LiveContext) -> Option<ContextUnavailableReason> {
        match c.context {
            ContextObservation::NotObserved { reason, .. } => Some(reason),
            ContextObservation::Observed { .. } => None,
        }
    }

    /// §14.8 on a MASC without `/context`: the newest turn record read here by the rules of
    /// MASC's projection (its own tests, `test_keeper_context_observation_projection`): the
    /// measured record, the absences each typed, never 0 and never clamped.
    #[test]
    fn s14_8_the_newest_turn_record_projects_as_masc_projects_it() {
        use ContextUnavailableReason as R;
        let owner = "trace-1780648779957-00000";
        let c = LiveContext::from_newest_turn_record(
            &records_page(Some(record(owner, serde_json::json!({}))), 0),
            owner,
            3,
        );
        assert_eq!(c.owner(), (owner, 3));
        assert_eq!(c.source, ContextSource::NewestTurnRecord);
        match &c.context {
            ContextObservation::Observed {
                tokens,
                max,
                ratio,
                observed_at,
                turn_ref,
                request_body_bytes,
                ..
            } => {
                assert_eq!((*tokens, *max), (18_000, Some(131_072)));
                assert_eq!(*ratio, Some(18_000.0 / 131_072.0));
                assert_eq!(observed_at, "2026-06-11T17:46:40Z");
                assert_eq!(turn_ref, &format!("{owner}#4071"));
                assert_eq!(*request_body_bytes, Some(560_513));
            }
            other => panic!("{other:?}"),
        }
        let case = |fields: serde_json::Value, trace: &str| {
            reason_of(&LiveContext::from_newest_turn_record(
                &records_page(Some(record(trace, fields)), 0),
                owner,
                3,
            ))
        };
        assert_eq!(
            case(serde_json::json!({}), "trace-1780648779957-99999"),
            Some(R::TurnRecordTraceMismatch)
        );
        assert_eq!(
            case(serde_json::json!({"input_tokens": null}), owner),
            Some(R::TurnRecordWithoutUsage)
        );
        assert_eq!(
            case(
                serde_json::json!({"input_tokens": 1_063_857, "context_window": 128_000,
                    "usage_scope": "conversation_cumulative"}),
                owner
            ),
            Some(R::ConversationCumulativeUsage)
        );
        assert_eq!(
            case(serde_json::json!({"usage_scope": "turn_total"}), owner),
            Some(R::UsageScopeUnavailable)
        );
        assert_eq!(
            case(
                serde_json::json!({"input_tokens": 128_001, "context_window": 128_000}),
                owner
            ),
            Some(R::ContextTokensExceedWindow)
        );
        assert_eq!(
            case(serde_json::json!({"usage_scope": "per_request"}), owner),
            None
        );
        let no_window = LiveContext::from_newest_turn_record(
            &records_page(
                Some(record(owner, serde_json::json!({"context_window": null}))),
                0,
            ),
            owner,
            3,
        );
        assert!(matches!(
            no_window.context,
            ContextObservation::Observed {
                tokens: 18_000,
                max: None,
                ratio: None,
                ..
            }
        ));
        assert_eq!(
            reason_of(&LiveContext::from_newest_turn_record(
                &records_page(None, 0),
                owner,
                3
            )),
            Some(R::ContextMeasurementMissing)
        );
        assert_eq!(
            reason_of(&LiveContext::from_newest_turn_record(
                &records_page(None, 1),
                owner,
                3
            )),
            Some(R::TurnRecordUndecodable)
        );
    }
}
