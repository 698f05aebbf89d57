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

/// The §14.8 body.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveContext {
    pub keeper: String,
    /// With `generation`, the owner of this observation (L-2).
    pub trace_id: String,
    pub generation: u64,
    pub context: ContextObservation,
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
        })
    }

    /// The owner this observation belongs to: (`trace_id`, `generation`) (L-2).
    pub fn owner(&self) -> (&str, u64) {
        (&self.trace_id, self.generation)
    }
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
}
