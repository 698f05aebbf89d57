//! The open async request (protocol.md §6.4; sources.md T-6…T-13, A-16): the request the view
//! opened, the context it was opened with, its single GET's slot, and the logical observation
//! shown beside it.
//!
//! - The context is fixed when the request is opened: the id, and the list row's requester and
//!   target when it was opened from the list (T-6). An explicit id lookup holds none (T-8).
//! - A result applies only to the request still open with that id (T-11): a closed or replaced
//!   request's result is never applied.
//! - T-13: an admitted answer whose logical part is `unavailable` does not erase an earlier
//!   logical observation of the same open request: it is kept, marked "not latest", with its
//!   time. A read failure keeps the whole last answer beside the failure (G-4).

use crate::actors::tools::HeldRequest;
use crate::protocol::async_requests::{AsyncRequestDetail, LogicalObservation};
use crate::view::admission::Slot;
use std::sync::Arc;
use std::time::Instant;

/// The logical part of the request as shown: the latest answer's, or an earlier one kept
/// because the latest could not observe it (T-13).
#[derive(Debug, Clone, PartialEq)]
pub struct ShownLogical {
    pub logical: LogicalObservation,
    pub observed_at: Instant,
    /// `false`: the latest admitted answer said the logical state is unavailable; this is the
    /// earlier observation, not the latest.
    pub latest: bool,
    /// The latest answer's `unavailable` reason when this is an earlier observation.
    pub unavailable_now: Option<String>,
}

/// The request the view opened and its single GET.
#[derive(Debug, Default)]
pub struct OpenRequest {
    pub request_id: String,
    /// `None` for an explicit id lookup (`o`): nothing filled from the current Keeper (T-8).
    pub held: Option<HeldRequest>,
    pub detail: Slot<Arc<AsyncRequestDetail>>,
    /// The logical observation to show (T-13); `None` until a detail is admitted.
    pub logical: Option<ShownLogical>,
}

impl OpenRequest {
    pub fn new(request_id: String, held: Option<HeldRequest>) -> Self {
        Self {
            request_id,
            held,
            ..Self::default()
        }
    }

    /// After an admitted answer: the logical part to show (T-13).
    pub fn admitted(&mut self, now: Instant) {
        let Some(observed) = self.detail.fetched.last() else {
            return;
        };
        if observed.observed_at != now {
            // The slot kept an older value: this read did not produce a new answer.
            return;
        }
        let logical = observed.value.logical.clone();
        self.logical = match (&logical, self.logical.take()) {
            (LogicalObservation::Unavailable { reason }, Some(prev))
                if matches!(prev.logical, LogicalObservation::Observed { .. }) =>
            {
                Some(ShownLogical {
                    latest: false,
                    unavailable_now: Some(reason.clone()),
                    ..prev
                })
            }
            _ => Some(ShownLogical {
                logical,
                observed_at: now,
                latest: true,
                unavailable_now: None,
            }),
        };
    }

    /// The source Task the `t` key may open: only a confirmed run's `source_task_id` of the
    /// last admitted answer (A-16), never a list row or the current Keeper's Task.
    pub fn source_task(&self) -> Option<(&str, Instant)> {
        let observed = self.detail.fetched.last()?;
        observed
            .value
            .source_task_id()
            .map(|task| (task, observed.observed_at))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::actors::contract::Ticket;
    use crate::actors::tools::ToolsSlot;
    use crate::protocol::admission::AdmissionMode;
    use crate::protocol::client::Admitted;
    use crate::protocol::decode::WireDecode;
    use crate::view::admission::EpochGate;
    use std::time::Duration;

    const DETAIL: &str = r#"{"schema":"masc.async_request.v1","request_id":"kmsg-7f3a","submitted_by":"operator","target_keeper":"rondo","physical":{"state":"completed","result":{"reply":"done"}},"run":{"run_id":"kmsg-7f3a","source_task_id":"task-1013"},"logical":{"state":"observed","owner":"rondo","terminal_decision":null}}"#;

    fn gate() -> EpochGate {
        let mut g = EpochGate::default();
        g.confirm(crate::protocol::admission::ReadScope {
            workspace: crate::protocol::admission::WorkspaceId("ws".into()),
            epoch: 1,
        });
        g
    }

    fn read(open: &mut OpenRequest, generation: u64, body: &str, now: Instant) {
        let gate = gate();
        let ticket = Ticket {
            slot: ToolsSlot::AsyncRequest(open.request_id.clone()),
            generation,
            scope: gate.current().cloned().unwrap(),
        };
        assert!(open.detail.dispatched(&ticket, &gate));
        open.detail.judge(&ticket, &gate).unwrap();
        let value = AsyncRequestDetail::decode(body.as_bytes()).unwrap();
        open.detail.apply_with(
            &ticket,
            Ok(Admitted {
                value: Arc::new(value),
                mode: AdmissionMode::Receipt,
                from_cache: false,
            }),
            now,
            |v| v,
        );
        open.admitted(now);
    }

    #[test]
    fn a_logical_failure_keeps_the_earlier_observation_not_latest_t13() {
        let mut open = OpenRequest::new("kmsg-7f3a".into(), None);
        let t0 = Instant::now();
        read(&mut open, 1, DETAIL, t0);
        assert!(open.logical.as_ref().is_some_and(|l| l.latest));
        let unavailable = DETAIL.replace(
            r#"{"state":"observed","owner":"rondo","terminal_decision":null}"#,
            r#"{"state":"unavailable","reason":"ledger unreadable"}"#,
        );
        let t1 = t0 + Duration::from_secs(10);
        read(&mut open, 2, &unavailable, t1);
        let shown = open.logical.clone().unwrap();
        assert!(!shown.latest);
        assert_eq!(shown.observed_at, t0);
        assert!(matches!(shown.logical, LogicalObservation::Observed { .. }));
        assert_eq!(shown.unavailable_now.as_deref(), Some("ledger unreadable"));
        // The physical part is the latest answer's.
        assert_eq!(open.detail.fetched.last().map(|o| o.observed_at), Some(t1));
        // A later observed answer is the latest again.
        read(&mut open, 3, DETAIL, t1 + Duration::from_secs(10));
        assert!(open.logical.as_ref().is_some_and(|l| l.latest));
    }

    #[test]
    fn without_an_earlier_observation_unavailable_is_shown_as_is_t10() {
        let mut open = OpenRequest::new("kmsg-7f3a".into(), None);
        let unavailable = DETAIL.replace(
            r#"{"state":"observed","owner":"rondo","terminal_decision":null}"#,
            r#"{"state":"unavailable","reason":"ledger unreadable"}"#,
        );
        read(&mut open, 1, &unavailable, Instant::now());
        let shown = open.logical.clone().unwrap();
        assert!(shown.latest);
        assert!(matches!(
            shown.logical,
            LogicalObservation::Unavailable { .. }
        ));
    }

    #[test]
    fn the_source_task_comes_only_from_a_confirmed_run_a16() {
        let mut open = OpenRequest::new("kmsg-7f3a".into(), None);
        assert_eq!(open.source_task(), None);
        let no_run = DETAIL.replace(
            r#"{"run_id":"kmsg-7f3a","source_task_id":"task-1013"}"#,
            "null",
        );
        read(&mut open, 1, &no_run, Instant::now());
        assert_eq!(open.source_task(), None);
        read(&mut open, 2, DETAIL, Instant::now());
        assert_eq!(open.source_task().map(|(t, _)| t), Some("task-1013"));
    }
}
