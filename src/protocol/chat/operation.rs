//! `GET /api/v1/keepers/{name}/chat/operations/{request_id}` (protocol.md §4.4).
//!
//! Shapes as MASC's own encoder writes them (`Keeper_chat_operation.to_json`,
//! lib/keeper_chat_operations/keeper_chat_operation.ml at MASC d541eb07): a `Failed` record
//! always carries the `outcome_ref` key, `null` when the turn left no outcome (a cancelled
//! turn, a restart, an exception). That null is a settled failure, not an undecodable record.

use super::events::OperationState;
use crate::protocol::decode::{
    DecodeError, DecodeErrorKind, WireDecode, decode_json_object, present_nullable,
};
use serde::Deserialize;

pub const CHAT_OPERATION_SCHEMA: &str = "masc.keeper_chat_operation.v1";

/// The state with the fields that state carries.
#[derive(Debug, Clone, PartialEq)]
pub enum OperationProgress {
    Queued,
    Running {
        started_at: f64,
    },
    Succeeded {
        completed_at: f64,
        outcome_ref: String,
    },
    Failed {
        completed_at: f64,
        /// `None`: the key was sent as `null` (the failed turn left no outcome to point at).
        outcome_ref: Option<String>,
        failure_kind: String,
        failure_detail: serde_json::Value,
    },
    Cancelled {
        completed_at: f64,
    },
}

/// MASC's `failure_kind` of a cancelled turn (`Turn_cancelled`, keeper_chat_operation.ml).
pub const FAILURE_TURN_CANCELLED: &str = "Turn_cancelled";

impl OperationProgress {
    /// The operation was cancelled: state `Cancelled`, or `Failed` with MASC's
    /// `Turn_cancelled` failure kind (the stop of a running turn is recorded as a failure).
    pub fn is_cancellation(&self) -> bool {
        match self {
            Self::Cancelled { .. } => true,
            Self::Failed { failure_kind, .. } => failure_kind == FAILURE_TURN_CANCELLED,
            _ => false,
        }
    }

    pub fn state(&self) -> OperationState {
        match self {
            Self::Queued => OperationState::Queued,
            Self::Running { .. } => OperationState::Running,
            Self::Succeeded { .. } => OperationState::Succeeded,
            Self::Failed { .. } => OperationState::Failed,
            Self::Cancelled { .. } => OperationState::Cancelled,
        }
    }
}

/// The reconciliation record of one chat operation.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatOperationRecord {
    pub operation_id: String,
    /// Journal sequence (an int64 the server sends as a string).
    pub sequence: i64,
    pub created_at: f64,
    pub progress: OperationProgress,
    /// Opaque to masc-tui; kept for diagnostics.
    pub execution_digest: serde_json::Value,
    pub source: serde_json::Value,
    pub input: serde_json::Value,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RecordWire {
    schema: String,
    operation_id: String,
    sequence: String,
    created_at: f64,
    state: OperationState,
    execution_digest: serde_json::Value,
    source: serde_json::Value,
    input: serde_json::Value,
    #[serde(default)]
    started_at: Option<f64>,
    #[serde(default)]
    completed_at: Option<f64>,
    /// Absent (`None`), present `null` (`Some(None)`) or a string.
    #[serde(default, deserialize_with = "present_nullable")]
    outcome_ref: Option<Option<String>>,
    #[serde(default)]
    failure_kind: Option<String>,
    #[serde(default)]
    failure_detail: Option<serde_json::Value>,
}

fn need<T>(value: Option<T>, field: &str, state: OperationState) -> Result<T, DecodeError> {
    value.ok_or_else(|| {
        DecodeError::new(
            DecodeErrorKind::MissingField,
            format!(".{field}"),
            format!("state {} without {field}", state.as_str()),
        )
    })
}

impl WireDecode for ChatOperationRecord {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let w: RecordWire = decode_json_object(bytes)?;
        if w.schema != CHAT_OPERATION_SCHEMA {
            return Err(DecodeError::new(
                DecodeErrorKind::InvalidValue,
                ".schema",
                format!("schema is not {CHAT_OPERATION_SCHEMA}"),
            ));
        }
        let sequence = w.sequence.parse::<i64>().map_err(|_| {
            DecodeError::new(
                DecodeErrorKind::InvalidValue,
                ".sequence",
                "sequence is not an int64 string",
            )
        })?;
        let s = w.state;
        let progress = match s {
            OperationState::Queued => OperationProgress::Queued,
            OperationState::Running => OperationProgress::Running {
                started_at: need(w.started_at, "started_at", s)?,
            },
            OperationState::Succeeded => OperationProgress::Succeeded {
                completed_at: need(w.completed_at, "completed_at", s)?,
                // A succeeded turn always names its outcome: null is refused.
                outcome_ref: need(w.outcome_ref.flatten(), "outcome_ref", s)?,
            },
            OperationState::Failed => OperationProgress::Failed {
                completed_at: need(w.completed_at, "completed_at", s)?,
                // The key is required; its value may be null (MASC writes `Null` for
                // `failure.outcome_ref = None`).
                outcome_ref: need(w.outcome_ref, "outcome_ref", s)?,
                failure_kind: need(w.failure_kind, "failure_kind", s)?,
                failure_detail: need(w.failure_detail, "failure_detail", s)?,
            },
            OperationState::Cancelled => OperationProgress::Cancelled {
                completed_at: need(w.completed_at, "completed_at", s)?,
            },
        };
        Ok(Self {
            operation_id: w.operation_id,
            sequence,
            created_at: w.created_at,
            progress,
            execution_digest: w.execution_digest,
            source: w.source,
            input: w.input,
        })
    }
}

impl ChatOperationRecord {
    /// Decode the record read for `request_id`: the `operation_id` echo must be exact.
    pub fn decode_for(bytes: &[u8], request_id: &str) -> Result<Self, DecodeError> {
        let record = Self::decode(bytes)?;
        if record.operation_id != request_id {
            return Err(DecodeError::new(
                DecodeErrorKind::EchoMismatch,
                ".operation_id",
                "operation_id is not the requested id",
            ));
        }
        Ok(record)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// MASC's encoder for a Failed record whose turn left no outcome (cancelled turn).
    const FAILED_NULL_REF: &[u8] = br#"{"schema":"masc.keeper_chat_operation.v1","operation_id":"tui-01","sequence":"7","created_at":1.0,"execution_digest":"d1","source":{},"input":null,"state":"Failed","completed_at":3.0,"failure_kind":"Turn_cancelled","failure_detail":"turn cancelled by operator","outcome_ref":null}"#;

    #[test]
    fn failed_with_null_outcome_ref_settles_issue13_defect1() {
        let r = ChatOperationRecord::decode_for(FAILED_NULL_REF, "tui-01").unwrap();
        assert_eq!(r.progress.state(), OperationState::Failed);
        assert!(r.progress.state().is_terminal());
        assert!(r.progress.is_cancellation());
        match r.progress {
            OperationProgress::Failed { outcome_ref, .. } => assert_eq!(outcome_ref, None),
            other => panic!("expected Failed, got {other:?}"),
        }
    }

    #[test]
    fn failed_without_the_outcome_ref_key_is_still_refused_s4_4() {
        let body = String::from_utf8_lossy(FAILED_NULL_REF).replace(r#","outcome_ref":null"#, "");
        let e = ChatOperationRecord::decode(body.as_bytes()).unwrap_err();
        assert_eq!(
            (e.kind, e.path.as_str()),
            (DecodeErrorKind::MissingField, ".outcome_ref")
        );
    }

    #[test]
    fn succeeded_with_null_outcome_ref_is_refused_s4_4() {
        let body = br#"{"schema":"masc.keeper_chat_operation.v1","operation_id":"tui-01","sequence":"7","created_at":1.0,"execution_digest":"d1","source":{},"input":null,"state":"Succeeded","completed_at":3.0,"outcome_ref":null}"#;
        let e = ChatOperationRecord::decode(body).unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::MissingField);
    }

    #[test]
    fn a_failure_of_another_kind_is_not_a_cancellation() {
        let body = String::from_utf8_lossy(FAILED_NULL_REF)
            .replace("Turn_cancelled", "Interrupted_by_restart");
        let r = ChatOperationRecord::decode(body.as_bytes()).unwrap();
        assert!(!r.progress.is_cancellation());
    }
}
