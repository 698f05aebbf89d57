//! The Keeper detail reads (protocol.md §14.7–§14.9):
//!
//! - [`status`]: `GET /api/v1/gate/keeper-status?name=` — Keeper metadata (§14.7, N-1); its
//!   `meta.trace_id` and `meta.generation` own Live Context (L-2).
//! - [`context`]: `GET /api/v1/keepers/{name}/context` — Live Context (§14.8, masc-tui
//!   extension; L-1…L-4, C-57, C-58).
//! - [`gate`]: `GET /api/v1/dashboard/gate` — the workspace Gate mode of the chat status
//!   line's `gate:` (§14.4, C-57).
//! - [`metrics`]: `GET /api/v1/keepers/{name}/metrics-tail?limit=` — Keeper logs and the
//!   activity summary (§14.9, masc-tui extension; N-5…N-7).
//!
//! Each decoder is tolerant where MASC releases differ (a part a release does not send is
//! `SinceRelease::NotInRelease` or absent, never a default value) and strict where the
//! protocol is closed (§14.8, §14.9 bodies, echoes, vocabularies).

pub mod context;
pub mod gate;
pub mod logs;
pub mod metrics;
pub mod status;

pub use context::{
    ContextObservation, ContextSource, ContextUnavailableReason, LiveContext, context_path,
};
pub use gate::{DashboardGate, GATE_PATH, GateModeState};
pub use logs::{KeeperLogs, LOGS_TURN_RECORDS_LIMIT, NOT_IN_TURN_RECORDS, RecordsSummary};
pub use metrics::{
    ActivitySummary, METRICS_TAIL_LIMIT, MetricsChannel, MetricsEntry, MetricsRecord, MetricsRow,
    MetricsRowKind, MetricsTail, TurnMode, TurnUsage, metrics_tail_path,
};
pub use status::{KeeperMeta, KeeperStatus, keeper_status_path, not_registered};

use crate::protocol::decode::{DecodeError, DecodeErrorKind};

/// The closed envelopes of §14.8 and §14.9: their `schema` and the `keeper` echo of the
/// Keeper asked for (an answer about another Keeper is never shown as this one's).
pub(crate) fn check_envelope(
    schema: &str,
    expected_schema: &str,
    keeper: &str,
    asked: &str,
) -> Result<(), DecodeError> {
    if schema != expected_schema {
        return Err(DecodeError::new(
            DecodeErrorKind::InvalidValue,
            ".schema",
            format!("unknown schema {schema:?}"),
        ));
    }
    if keeper != asked {
        return Err(DecodeError::new(
            DecodeErrorKind::EchoMismatch,
            ".keeper",
            format!("asked for {asked:?}, the answer names {keeper:?}"),
        ));
    }
    Ok(())
}
