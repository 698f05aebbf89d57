//! `GET /api/v1/keepers/{name}/chat/operations/{request_id}` (protocol.md §4.4).

use super::events::OperationState;
use crate::protocol::decode::{DecodeError, DecodeErrorKind, WireDecode, decode_json_object};
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
        outcome_ref: String,
        failure_kind: String,
        failure_detail: serde_json::Value,
    },
    Cancelled {
        completed_at: f64,
    },
}

impl OperationProgress {
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
    #[serde(default)]
    outcome_ref: Option<String>,
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
                outcome_ref: need(w.outcome_ref, "outcome_ref", s)?,
            },
            OperationState::Failed => OperationProgress::Failed {
                completed_at: need(w.completed_at, "completed_at", s)?,
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
