//! Async keeper requests: the list (protocol.md §6.3) and one request (§6.4).

use super::decode::{DecodeError, DecodeErrorKind, WireDecode, decode_json, required_nullable};
use serde::Deserialize;
use serde_json::Value;

/// The full MASC status vocabulary of an async request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AsyncRequestStatus {
    Queued,
    Running,
    Cancelling,
    Done,
    Error,
    Lost,
    Cancelled,
    PersistenceFailed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WorkerOwnership {
    RuntimeOwned,
    DiskOnlyOwnershipUnknown,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct AsyncRequestRow {
    pub request_id: String,
    pub keeper_name: String,
    pub submitted_by: String,
    pub status: AsyncRequestStatus,
    pub submitted_at: f64,
    pub elapsed_sec: f64,
    pub worker_ownership: WorkerOwnership,
    #[serde(default)]
    pub ok: Option<bool>,
    #[serde(default)]
    pub result: Option<Value>,
    #[serde(default)]
    pub completed_at: Option<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub struct AsyncSummary {
    pub active: u64,
    pub runtime_owned: u64,
    pub ownership_unknown: u64,
    pub record_errors: u64,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct AsyncRecordError {
    #[serde(deserialize_with = "required_nullable")]
    pub request_id: Option<String>,
    pub kind: String,
}

/// Why the inventory is unavailable.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AsyncUnavailable {
    AccessRejected { reason: String },
    DirectoryRejected,
    DirectoryReadFailed { reason: String },
}

/// The list: a confirmed inventory (possibly empty) or an unavailable one.
#[derive(Debug, Clone, PartialEq)]
pub enum AsyncRequestList {
    Ready {
        summary: AsyncSummary,
        requests: Vec<AsyncRequestRow>,
        record_errors: Vec<AsyncRecordError>,
        startup_recovery: Option<Value>,
    },
    Unavailable {
        error: AsyncUnavailable,
        startup_recovery: Option<Value>,
    },
}

#[derive(Deserialize)]
enum ListSchema {
    #[serde(rename = "masc.async-request-observation/v1")]
    V1,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum ListStatus {
    Ready,
    Unavailable,
}

#[derive(Deserialize)]
struct ListWire {
    #[allow(dead_code)]
    schema: ListSchema,
    status: ListStatus,
    #[serde(deserialize_with = "required_nullable")]
    startup_recovery: Option<Value>,
    #[serde(default)]
    error: Option<AsyncUnavailable>,
    #[serde(default)]
    summary: Option<AsyncSummary>,
    #[serde(default)]
    requests: Option<Vec<AsyncRequestRow>>,
    #[serde(default)]
    record_errors: Option<Vec<AsyncRecordError>>,
}

fn missing(path: &str) -> DecodeError {
    DecodeError::new(
        DecodeErrorKind::MissingField,
        path,
        "required in this state",
    )
}

fn count_mismatch(path: &str, detail: String) -> DecodeError {
    DecodeError::new(DecodeErrorKind::CountMismatch, path, detail)
}

impl WireDecode for AsyncRequestList {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let w: ListWire = decode_json(bytes)?;
        match w.status {
            ListStatus::Unavailable => Ok(Self::Unavailable {
                error: w.error.ok_or_else(|| missing(".error"))?,
                startup_recovery: w.startup_recovery,
            }),
            ListStatus::Ready => {
                let summary = w.summary.ok_or_else(|| missing(".summary"))?;
                let requests = w.requests.ok_or_else(|| missing(".requests"))?;
                let record_errors = w.record_errors.ok_or_else(|| missing(".record_errors"))?;
                check_summary(&summary, &requests, &record_errors)?;
                Ok(Self::Ready {
                    summary,
                    requests,
                    record_errors,
                    startup_recovery: w.startup_recovery,
                })
            }
        }
    }
}

/// §6.3: `active` = rows = `runtime_owned` + `ownership_unknown`, each matching the rows.
fn check_summary(
    s: &AsyncSummary,
    rows: &[AsyncRequestRow],
    record_errors: &[AsyncRecordError],
) -> Result<(), DecodeError> {
    let n = rows.len() as u64;
    if s.active != n {
        return Err(count_mismatch(
            ".summary.active",
            format!("active {} but {n} rows", s.active),
        ));
    }
    if s.runtime_owned.checked_add(s.ownership_unknown) != Some(s.active) {
        return Err(count_mismatch(
            ".summary.runtime_owned",
            format!(
                "runtime_owned {} + ownership_unknown {} differs from active {}",
                s.runtime_owned, s.ownership_unknown, s.active
            ),
        ));
    }
    let owned = rows
        .iter()
        .filter(|r| r.worker_ownership == WorkerOwnership::RuntimeOwned)
        .count() as u64;
    if owned != s.runtime_owned {
        return Err(count_mismatch(
            ".summary.runtime_owned",
            format!("runtime_owned {} but {owned} such rows", s.runtime_owned),
        ));
    }
    if s.record_errors != record_errors.len() as u64 {
        return Err(count_mismatch(
            ".summary.record_errors",
            format!(
                "record_errors {} but {} listed",
                s.record_errors,
                record_errors.len()
            ),
        ));
    }
    Ok(())
}

// ---- §6.4 single request ----

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PhysicalState {
    Pending,
    Running,
    Failed,
    Completed,
}

impl PhysicalState {
    /// §6.4 mapping from the MASC list status.
    pub fn from_masc_status(status: AsyncRequestStatus) -> Self {
        match status {
            AsyncRequestStatus::Queued => Self::Pending,
            AsyncRequestStatus::Running | AsyncRequestStatus::Cancelling => Self::Running,
            AsyncRequestStatus::Done => Self::Completed,
            AsyncRequestStatus::Error
            | AsyncRequestStatus::Lost
            | AsyncRequestStatus::Cancelled
            | AsyncRequestStatus::PersistenceFailed => Self::Failed,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PhysicalObservation {
    pub state: PhysicalState,
    #[serde(deserialize_with = "required_nullable")]
    pub result: Option<Value>,
}

/// A confirmed run; the source Task opens only from here.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfirmedRun {
    pub run_id: String,
    #[serde(deserialize_with = "required_nullable")]
    pub source_task_id: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TerminalDecisionKind {
    Completed,
    Failed,
    Cancelled,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TerminalDecision {
    pub decision: TerminalDecisionKind,
    pub decided_at: Value,
    pub reason: Value,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case", deny_unknown_fields)]
pub enum LogicalObservation {
    Observed {
        owner: String,
        #[serde(deserialize_with = "required_nullable")]
        terminal_decision: Option<TerminalDecision>,
    },
    Unavailable {
        reason: String,
    },
}

#[derive(Deserialize)]
enum DetailSchema {
    #[serde(rename = "masc.async_request.v1")]
    V1,
}

/// `GET /api/v1/async-requests/{request_id}` (closed body).
#[derive(Debug, Clone, PartialEq)]
pub struct AsyncRequestDetail {
    pub request_id: String,
    pub submitted_by: String,
    pub target_keeper: String,
    pub physical: PhysicalObservation,
    /// `None`: no run confirmed yet.
    pub run: Option<ConfirmedRun>,
    pub logical: LogicalObservation,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DetailWire {
    #[allow(dead_code)]
    schema: DetailSchema,
    request_id: String,
    submitted_by: String,
    target_keeper: String,
    physical: PhysicalObservation,
    #[serde(deserialize_with = "required_nullable")]
    run: Option<ConfirmedRun>,
    logical: LogicalObservation,
}

impl WireDecode for AsyncRequestDetail {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let w: DetailWire = decode_json(bytes)?;
        let has_result = w.physical.result.is_some();
        let may_have_result = matches!(
            w.physical.state,
            PhysicalState::Failed | PhysicalState::Completed
        );
        if has_result && !may_have_result {
            return Err(DecodeError::new(
                DecodeErrorKind::InvalidValue,
                ".physical.result",
                "a result before the request failed or completed",
            ));
        }
        // T-9: the identifiers the detail hands on are read strictly (an empty run id,
        // source Task or logical owner is not a value).
        let blank = |path: &str, what: &str| {
            DecodeError::new(
                DecodeErrorKind::InvalidValue,
                path,
                format!("{what} is blank"),
            )
        };
        if let Some(run) = &w.run {
            if run.run_id.trim().is_empty() {
                return Err(blank(".run.run_id", "run_id"));
            }
            if run
                .source_task_id
                .as_deref()
                .is_some_and(|t| t.trim().is_empty())
            {
                return Err(blank(".run.source_task_id", "source_task_id"));
            }
        }
        if let LogicalObservation::Observed { owner, .. } = &w.logical
            && owner.trim().is_empty()
        {
            return Err(blank(".logical.owner", "owner"));
        }
        Ok(Self {
            request_id: w.request_id,
            submitted_by: w.submitted_by,
            target_keeper: w.target_keeper,
            physical: w.physical,
            run: w.run,
            logical: w.logical,
        })
    }
}

impl AsyncRequestDetail {
    /// Decode and check the echoes: the path id, and (when the client holds the list row)
    /// `submitted_by` and `target_keeper` (= the row's `keeper_name`).
    pub fn decode_for(
        bytes: &[u8],
        request_id: &str,
        held: Option<(&str, &str)>,
    ) -> Result<Self, DecodeError> {
        let d = Self::decode(bytes)?;
        d.check_echo(request_id, held)?;
        Ok(d)
    }

    /// The echo checks of [`Self::decode_for`] on an already decoded body (a value reused
    /// from the ETag cache is checked against the context of the read that reuses it).
    pub fn check_echo(
        &self,
        request_id: &str,
        held: Option<(&str, &str)>,
    ) -> Result<(), DecodeError> {
        if self.request_id != request_id {
            return Err(DecodeError::new(
                DecodeErrorKind::EchoMismatch,
                ".request_id",
                "request_id differs from the requested id",
            ));
        }
        if let Some((submitted_by, target_keeper)) = held {
            if self.submitted_by != submitted_by {
                return Err(DecodeError::new(
                    DecodeErrorKind::EchoMismatch,
                    ".submitted_by",
                    "submitted_by differs from the list row",
                ));
            }
            if self.target_keeper != target_keeper {
                return Err(DecodeError::new(
                    DecodeErrorKind::EchoMismatch,
                    ".target_keeper",
                    "target_keeper differs from the list row's keeper_name",
                ));
            }
        }
        Ok(())
    }

    /// The Task to open: only a confirmed run's `source_task_id`.
    pub fn source_task_id(&self) -> Option<&str> {
        self.run.as_ref().and_then(|r| r.source_task_id.as_deref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIST: &str = r#"{"schema":"masc.async-request-observation/v1","status":"ready","startup_recovery":null,"record_errors":[],"summary":{"active":1,"runtime_owned":1,"ownership_unknown":0,"record_errors":0},
 "requests":[{"request_id":"kmsg-7f3a","keeper_name":"rondo","submitted_by":"operator","status":"running","submitted_at":1787000000.0,"elapsed_sec":2.5,"worker_ownership":"runtime_owned"}]}"#;

    const DETAIL: &str = r#"{"schema":"masc.async_request.v1","request_id":"kmsg-7f3a","submitted_by":"operator","target_keeper":"rondo","physical":{"state":"completed","result":{"reply":"done"}},"run":{"run_id":"kmsg-7f3a","source_task_id":"task-1013"},"logical":{"state":"observed","owner":"rondo","terminal_decision":null}}"#;

    #[test]
    fn list_example_decodes_s6_3() {
        let l = AsyncRequestList::decode(LIST.as_bytes()).unwrap();
        assert!(matches!(l, AsyncRequestList::Ready { ref requests, .. } if requests.len() == 1));
    }

    #[test]
    fn summary_inconsistent_with_rows_is_count_mismatch_s6_3() {
        let body = LIST.replace(r#""active":1"#, r#""active":2"#);
        let e = AsyncRequestList::decode(body.as_bytes()).unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::CountMismatch);
        let body = LIST.replace(r#""ownership_unknown":0"#, r#""ownership_unknown":1"#);
        let e = AsyncRequestList::decode(body.as_bytes()).unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::CountMismatch);
    }

    #[test]
    fn unavailable_list_is_not_empty_s6_3() {
        let body = br#"{"schema":"masc.async-request-observation/v1","status":"unavailable","startup_recovery":null,"error":{"kind":"directory_rejected"}}"#;
        assert!(matches!(
            AsyncRequestList::decode(body).unwrap(),
            AsyncRequestList::Unavailable {
                error: AsyncUnavailable::DirectoryRejected,
                ..
            }
        ));
    }

    #[test]
    fn detail_echoes_s6_4() {
        let d = AsyncRequestDetail::decode_for(
            DETAIL.as_bytes(),
            "kmsg-7f3a",
            Some(("operator", "rondo")),
        )
        .unwrap();
        assert_eq!(d.source_task_id(), Some("task-1013"));
        for (id, held, path) in [
            ("kmsg-other", None, ".request_id"),
            ("kmsg-7f3a", Some(("someone", "rondo")), ".submitted_by"),
            ("kmsg-7f3a", Some(("operator", "sangsu")), ".target_keeper"),
        ] {
            let e = AsyncRequestDetail::decode_for(DETAIL.as_bytes(), id, held).unwrap_err();
            assert_eq!(e.kind, DecodeErrorKind::EchoMismatch);
            assert_eq!(e.path, path);
        }
    }

    #[test]
    fn detail_is_closed_s6_4() {
        let body = DETAIL.replace(r#""run":"#, r#""extra":1,"run":"#);
        assert_eq!(
            AsyncRequestDetail::decode(body.as_bytes())
                .unwrap_err()
                .kind,
            DecodeErrorKind::UnknownField
        );
    }

    #[test]
    fn logical_unavailable_with_physical_completed_is_distinct_s6_4() {
        let body = DETAIL.replace(
            r#"{"state":"observed","owner":"rondo","terminal_decision":null}"#,
            r#"{"state":"unavailable","reason":"ledger missing"}"#,
        );
        let d = AsyncRequestDetail::decode(body.as_bytes()).unwrap();
        assert_eq!(d.physical.state, PhysicalState::Completed);
        assert!(matches!(d.logical, LogicalObservation::Unavailable { .. }));
    }

    #[test]
    fn blank_identifiers_are_refused_t9() {
        for (from, to, path) in [
            (r#""run_id":"kmsg-7f3a""#, r#""run_id":" ""#, ".run.run_id"),
            (
                r#""source_task_id":"task-1013""#,
                r#""source_task_id":"""#,
                ".run.source_task_id",
            ),
            (r#""owner":"rondo""#, r#""owner":"""#, ".logical.owner"),
        ] {
            let e = AsyncRequestDetail::decode(DETAIL.replace(from, to).as_bytes()).unwrap_err();
            assert_eq!(
                (e.kind, e.path.as_str()),
                (DecodeErrorKind::InvalidValue, path)
            );
        }
    }

    #[test]
    fn masc_status_mapping_s6_4() {
        assert_eq!(
            PhysicalState::from_masc_status(AsyncRequestStatus::Cancelling),
            PhysicalState::Running
        );
        assert_eq!(
            PhysicalState::from_masc_status(AsyncRequestStatus::Lost),
            PhysicalState::Failed
        );
    }
}
