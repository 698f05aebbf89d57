#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! Keepers roster source against the embedded server with fault plans (protocol.md §4.1, §13;
//! sources.md G-2..G-7, G-9). Each test asserts the typed slot result the view receives and the
//! stage trace. Synchronisation is by view messages and stage records only.

use crate::actor_support::{Obs, Rig, obs_of, plan, start_rig};
use masc_tui::actors::contract::{
    DemandKind, IdentityState, SlotEvent, SourceControl, SourceEvent, SourceHandle, Ticket,
};
use masc_tui::actors::keepers::{KeepersObservation, KeepersSlot, ROSTER as KEY};
use masc_tui::protocol::client::ClientError;
use masc_tui::server::ServeOptions;
use masc_tui::server::faults::FaultPlan;
use masc_tui::timeline::record::StageRecord;
use std::time::Duration;

const ROSTER: &str = "/api/v1/gate/keepers";

type Observation = Obs<KeepersSlot, KeepersObservation>;
type Event = SlotEvent<KeepersSlot, KeepersObservation>;

async fn rig(faults: FaultPlan) -> Rig {
    rig_with_timeout(faults, None).await
}

/// `request_timeout: None` keeps the client's 10 s: a loaded CI machine must never turn a clean
/// read (or a `/health` poll) into a timeout. Only the timeout scenario shortens it.
async fn rig_with_timeout(faults: FaultPlan, request_timeout: Option<Duration>) -> Rig {
    start_rig(
        ServeOptions {
            faults,
            ..ServeOptions::default()
        },
        None,
        request_timeout,
    )
    .await
}

impl Rig {
    /// The current source handle (the latest `SourceUp`, already seen or still to come).
    async fn source(&mut self) -> SourceHandle {
        self.source_handle(KEY).await
    }

    /// The next `SourceUp` (after a restart).
    async fn next_source_up(&mut self) -> SourceHandle {
        match self
            .view
            .wait_event(|e| matches!(e, SourceEvent::SourceUp { source, .. } if source == &KEY))
            .await
        {
            Some(SourceEvent::SourceUp { handle, .. }) => handle.clone(),
            _ => panic!("no SourceUp"),
        }
    }

    async fn dispatched(&mut self) -> Ticket<KeepersSlot> {
        match self
            .view
            .wait_slot(|e: &Event| matches!(e, SlotEvent::Dispatched(_)))
            .await
        {
            Some(SlotEvent::Dispatched(t)) => t.clone(),
            _ => panic!("no Dispatched"),
        }
    }

    async fn observed(&mut self) -> Observation {
        match self
            .view
            .wait_slot(|e: &Event| matches!(e, SlotEvent::Observed(..)))
            .await
        {
            Some(e) => obs_of(e).unwrap(),
            _ => panic!("no Observed"),
        }
    }

    async fn confirmed_epoch(&mut self) -> u64 {
        match self
            .view
            .wait_event(|e| matches!(e, SourceEvent::Identity(IdentityState::Confirmed { .. })))
            .await
        {
            Some(SourceEvent::Identity(IdentityState::Confirmed { scope, .. })) => scope.epoch,
            _ => panic!("no confirmation"),
        }
    }

    fn stages_of(&self, ticket: &Ticket<KeepersSlot>) -> Vec<StageRecord> {
        self.recorder.records_where(|r| {
            r.source == "keepers_roster" && r.generation == Some(ticket.generation)
        })
    }
}

/// An explicit refresh through the source's control handle (what `r` does).
fn refresh(source: &SourceHandle) {
    assert!(source.send_control(SourceControl::Demand(DemandKind::Explicit)));
}

fn roster_error(o: &Observation) -> Option<&ClientError> {
    match &o.payload {
        KeepersObservation::Roster(Err(e)) => Some(e),
        _ => None,
    }
}

fn stage_names(records: &[StageRecord]) -> Vec<&str> {
    records.iter().map(|r| r.stage.as_str()).collect()
}

/// Runs the first read under `faults` and returns its observation and its stage records.
async fn first_read(faults: FaultPlan) -> (Observation, Vec<StageRecord>, Rig) {
    first_read_on(rig(faults).await).await
}

async fn first_read_on(mut rig: Rig) -> (Observation, Vec<StageRecord>, Rig) {
    let ticket = rig.dispatched().await;
    let obs = rig.observed().await;
    assert_eq!(
        obs.ticket, ticket,
        "the observation carries the dispatched ticket"
    );
    let stages = rig.stages_of(&ticket);
    (obs, stages, rig)
}

#[tokio::test]
async fn a_clean_read_is_observed_with_the_epoch_and_a_receipt() {
    let (obs, stages, rig) = first_read(FaultPlan::none()).await;
    let KeepersObservation::Roster(Ok(admitted)) = &obs.payload else {
        panic!("{:?}", obs.payload);
    };
    assert!(admitted.value.count > 0, "the seeded roster has keepers");
    assert_eq!(admitted.mode.as_str(), "receipt");
    assert_eq!(
        stage_names(&stages),
        [
            "dispatch",
            "worker_enter",
            "worker_return",
            "observe",
            "unregistered"
        ]
    );
    assert_eq!(stages[2].outcome.as_deref(), Some("ok"));
    assert_eq!(obs.ticket.scope.workspace.0, rig.server.masc_root());
    rig.finish().await;
}

#[tokio::test]
async fn g9_timeout_fails_the_roster_slot_only() {
    // 2 s: far above a /health poll on a loaded machine, far below the 20 s delay fault.
    let (obs, stages, mut rig) = first_read_on(
        rig_with_timeout(
            plan(
                r#"{"match":{"method":"GET","path":"/api/v1/gate/keepers"},"when":{"nth":1},"fault":{"delay_ms":20000}}"#,
            ),
            Some(Duration::from_secs(2)),
        )
        .await,
    )
    .await;
    assert_eq!(roster_error(&obs), Some(&ClientError::Timeout));
    assert_eq!(stages[2].outcome.as_deref(), Some("timeout"));
    // Not an identity observation: the epoch stays confirmed (§2.1), and a refresh recovers.
    rig.view.drain_ready();
    let confirmed_at = rig
        .view
        .events
        .iter()
        .position(|e| matches!(e, SourceEvent::Identity(IdentityState::Confirmed { .. })))
        .unwrap();
    assert!(
        !rig.view.events[confirmed_at + 1..]
            .iter()
            .any(|e| matches!(e, SourceEvent::Identity(_))),
        "a failed read is not an identity observation"
    );
    let source = rig.source().await;
    refresh(&source);
    let again = rig.observed().await;
    assert_eq!(again.ticket.scope.epoch, obs.ticket.scope.epoch);
    assert!(roster_error(&again).is_none(), "{:?}", again.payload);
    rig.finish().await;
}

#[tokio::test]
async fn status_500_is_a_typed_failure() {
    let (obs, stages, rig) = first_read(plan(
        r#"{"match":{"method":"GET","path":"/api/v1/gate/keepers"},"fault":{"status":500,"body":{"ok":false,"error":"store"}}}"#,
    ))
    .await;
    assert!(matches!(
        roster_error(&obs),
        Some(ClientError::Status { status: 500, .. })
    ));
    assert_eq!(stages[2].outcome.as_deref(), Some("status_500"));
    rig.finish().await;
}

#[tokio::test]
async fn malformed_body_is_a_decode_failure() {
    let (obs, stages, rig) = first_read(plan(
        r#"{"match":{"method":"GET","path":"/api/v1/gate/keepers"},"fault":{"malformed":true}}"#,
    ))
    .await;
    assert!(
        matches!(roster_error(&obs), Some(ClientError::Decode(_))),
        "{:?}",
        obs.payload
    );
    assert!(
        stages[2]
            .outcome
            .as_deref()
            .is_some_and(|o| o.starts_with("decode_"))
    );
    rig.finish().await;
}

#[tokio::test]
async fn g9_missing_receipt_fails_the_read() {
    let (obs, stages, rig) = first_read(plan(
        r#"{"match":{"method":"GET","path":"/api/v1/gate/keepers"},"fault":{"receipt":"missing"}}"#,
    ))
    .await;
    assert_eq!(roster_error(&obs), Some(&ClientError::ReceiptMissing));
    assert_eq!(stages[2].outcome.as_deref(), Some("receipt_missing"));
    rig.finish().await;
}

#[tokio::test]
async fn g9_wrong_receipt_fails_the_read() {
    let (obs, stages, rig) = first_read(plan(
        r#"{"match":{"method":"GET","path":"/api/v1/gate/keepers"},"fault":{"receipt":"wrong"}}"#,
    ))
    .await;
    assert!(
        matches!(
            roster_error(&obs),
            Some(ClientError::ReceiptMismatch { .. })
        ),
        "{:?}",
        obs.payload
    );
    assert_eq!(stages[2].outcome.as_deref(), Some("receipt_mismatch"));
    rig.finish().await;
}

#[tokio::test]
async fn g9_duplicate_receipt_fails_the_read() {
    let (obs, _stages, rig) = first_read(plan(
        r#"{"match":{"method":"GET","path":"/api/v1/gate/keepers"},"fault":{"receipt":"duplicate"}}"#,
    ))
    .await;
    assert_eq!(roster_error(&obs), Some(&ClientError::ReceiptDuplicated));
    rig.finish().await;
}

#[tokio::test]
async fn unauthorized_once_is_retried_and_admitted() {
    let (obs, stages, rig) = first_read(plan(
        r#"{"match":{"method":"GET","path":"/api/v1/gate/keepers"},"when":{"nth":1},"fault":{"status":401,"body":{"error":"invalid token","auth_error_code":"invalid_token"}}}"#,
    ))
    .await;
    assert!(roster_error(&obs).is_none(), "{:?}", obs.payload);
    assert_eq!(stages[2].outcome.as_deref(), Some("ok"));
    // §1.3: the identical request was repeated exactly once, within the same ticket.
    assert_eq!(rig.server.request_count("GET", ROSTER), 2);
    assert_eq!(
        rig.recorder
            .records_where(|r| r.source == "keepers_roster" && r.stage == "dispatch")
            .len(),
        1
    );
    rig.finish().await;
}

#[tokio::test]
async fn g3_explicit_refresh_supersedes_an_in_flight_read() {
    let mut rig = rig(plan(
        r#"{"match":{"method":"GET","path":"/api/v1/gate/keepers"},"when":{"nth":1},"fault":{"delay_ms":5000}}"#,
    ))
    .await;
    let source = rig.source().await;
    let slow = rig.dispatched().await;
    rig.recorder
        .wait_for(|r| r.stage == "worker_enter" && r.generation == Some(slow.generation))
        .await
        .unwrap();
    refresh(&source);
    let fresh = rig.dispatched().await;
    assert!(fresh.generation > slow.generation);
    let obs = rig.observed().await;
    assert_eq!(obs.ticket, fresh, "only the superseding read is observed");
    assert!(roster_error(&obs).is_none(), "{:?}", obs.payload);
    assert!(
        rig.view
            .slot_events::<KeepersSlot, KeepersObservation>()
            .iter()
            .any(|e| matches!(e, SlotEvent::Retired(t) if t == &slow))
    );
    let old = rig.stages_of(&slow);
    let names = stage_names(&old);
    assert!(
        names.contains(&"cancel_requested") && names.contains(&"retire"),
        "{names:?}"
    );
    assert!(
        !names.contains(&"worker_return") && !names.contains(&"observe"),
        "aborted: {names:?}"
    );
    assert_eq!(
        old.iter()
            .find(|r| r.stage == "retire")
            .unwrap()
            .reason
            .as_deref(),
        Some("superseded")
    );
    rig.finish().await;
}

#[tokio::test]
async fn g6_workspace_switch_changes_the_epoch_and_retires_old_reads() {
    let mut rig = rig(plan(
        r#"{"match":{"method":"GET","path":"/api/v1/gate/keepers"},"when":{"nth":1},"fault":{"delay_ms":5000}}"#,
    ))
    .await;
    let first_epoch = rig.confirmed_epoch().await;
    let old = rig.dispatched().await;
    assert_eq!(old.scope.epoch, first_epoch);
    // Same base, another store root: the server restarted as another workspace.
    let base = rig.server.base_path();
    let new_root = format!("{base}/.masc-switched");
    rig.server.switch_workspace(&base, &new_root);
    let new_epoch = rig.confirmed_epoch().await;
    assert!(new_epoch > first_epoch);
    let fresh = rig.dispatched().await;
    assert_eq!(fresh.scope.epoch, new_epoch);
    assert_eq!(fresh.scope.workspace.0, new_root);
    let obs = rig.observed().await;
    assert_eq!(obs.ticket, fresh, "no observation of the old epoch");
    assert!(roster_error(&obs).is_none(), "{:?}", obs.payload);
    let retire = rig
        .stages_of(&old)
        .into_iter()
        .find(|r| r.stage == "retire")
        .unwrap();
    assert_eq!(retire.reason.as_deref(), Some("withdrawn"));
    assert_eq!(retire.epoch, Some(first_epoch));
    rig.finish().await;
}

#[tokio::test]
async fn g7_late_result_after_withdrawal_never_reaches_the_view() {
    let mut rig = rig(plan(
        r#"{"match":{"method":"GET","path":"/api/v1/gate/keepers"},"when":{"nth":1},"fault":{"delay_ms":5000}}"#,
    ))
    .await;
    let epoch = rig.confirmed_epoch().await;
    let old = rig.dispatched().await;
    rig.recorder
        .wait_for(|r| r.stage == "worker_enter" && r.generation == Some(old.generation))
        .await
        .unwrap();
    // /health fails from now on: the epoch is withdrawn while the roster read is in flight.
    // The replacement plan keeps the roster delay: the request may reach the server after it.
    rig.server.set_faults(plan(
        r#"{"match":{"method":"GET","path":"/health"},"fault":{"status":500,"body":"down"}},
           {"match":{"method":"GET","path":"/api/v1/gate/keepers"},"fault":{"delay_ms":5000}}"#,
    ));
    rig.view
        .wait_slot(|e: &Event| matches!(e, SlotEvent::Retired(t) if *t == old))
        .await
        .unwrap();
    // Health comes back: a new epoch and a new read; the old one never shows up.
    rig.server.set_faults(FaultPlan::none());
    let new_epoch = rig.confirmed_epoch().await;
    assert!(new_epoch > epoch);
    let obs = rig.observed().await;
    assert_ne!(obs.ticket, old);
    assert_eq!(obs.ticket.scope.epoch, new_epoch);
    assert!(
        !rig.view
            .slot_events::<KeepersSlot, KeepersObservation>()
            .iter()
            .any(|e| matches!(e, SlotEvent::Observed(t, _) if t == &old))
    );
    let old_stages = rig.stages_of(&old);
    let names = stage_names(&old_stages);
    assert!(names.contains(&"cancel_requested"), "{names:?}");
    assert!(
        !names.contains(&"observe"),
        "the withdrawn worker was aborted: {names:?}"
    );
    let retire = old_stages.iter().find(|r| r.stage == "retire").unwrap();
    assert_eq!(retire.reason.as_deref(), Some("withdrawn"));
    rig.finish().await;
}

#[tokio::test]
async fn a_source_panic_restarts_it_and_redispatches_the_read() {
    let mut rig = rig(FaultPlan::none()).await;
    let first_handle = rig.source().await;
    let first = rig.observed().await;
    rig.runtime.inject_panic(KEY);
    rig.view
        .wait_event(|e| matches!(e, SourceEvent::SourceRestarted(s) if s == &KEY))
        .await
        .unwrap();
    let second_handle = rig.next_source_up().await;
    assert_ne!(first_handle.actor_id(), second_handle.actor_id());
    // The new incarnation gets the current identity and reads again, with a later generation.
    let again = rig.observed().await;
    assert!(again.ticket.generation > first.ticket.generation);
    assert_eq!(again.ticket.scope.epoch, first.ticket.scope.epoch);
    assert!(roster_error(&again).is_none(), "{:?}", again.payload);
    let restart = rig
        .recorder
        .wait_for(|r| r.stage == "restart" && r.source == "keepers_roster")
        .await
        .unwrap();
    assert_eq!(restart.reason.as_deref(), Some("restarted"));
    rig.finish().await;
}

#[tokio::test]
async fn dropped_connection_is_a_transport_failure_of_this_slot_only() {
    let (obs, stages, mut rig) = first_read(plan(
        r#"{"match":{"method":"GET","path":"/api/v1/gate/keepers"},"when":{"nth":1},"fault":{"drop":"before_apply"}}"#,
    ))
    .await;
    assert!(
        matches!(roster_error(&obs), Some(ClientError::Transport(_))),
        "{:?}",
        obs.payload
    );
    assert_eq!(stages[2].outcome.as_deref(), Some("transport"));
    // The identity is untouched (G-9): an explicit refresh in the same epoch succeeds.
    let epoch = obs.ticket.scope.epoch;
    refresh(&rig.source().await);
    let next = rig.observed().await;
    assert_eq!(next.ticket.scope.epoch, epoch);
    assert!(next.ticket.generation > obs.ticket.generation);
    assert!(matches!(next.payload, KeepersObservation::Roster(Ok(_))));
    rig.finish().await;
}

#[tokio::test]
async fn truncated_body_is_never_applied() {
    let (obs, stages, rig) = first_read(plan(
        r#"{"match":{"method":"GET","path":"/api/v1/gate/keepers"},"fault":{"truncate_at":40}}"#,
    ))
    .await;
    let err = roster_error(&obs).cloned();
    assert!(
        matches!(
            err,
            Some(ClientError::Transport(_) | ClientError::Decode(_) | ClientError::Timeout)
        ),
        "{err:?}"
    );
    assert!(stages[2].outcome.as_deref().is_some_and(|o| o != "ok"));
    rig.finish().await;
}

#[tokio::test]
async fn forbidden_is_not_retried_and_is_typed() {
    let (obs, stages, rig) = first_read(plan(
        r#"{"match":{"method":"GET","path":"/api/v1/gate/keepers"},"fault":{"status":403,"body":{"error":"forbidden","auth_error_code":"insufficient_role"}}}"#,
    ))
    .await;
    assert!(
        matches!(
            roster_error(&obs),
            Some(ClientError::Unauthorized { status: 403, .. })
        ),
        "{:?}",
        obs.payload
    );
    assert_eq!(stages[2].outcome.as_deref(), Some("unauthorized_403"));
    // §1.3: 403 is never retried — exactly one roster request reached the server.
    assert_eq!(rig.server.request_count("GET", "/api/v1/gate/keepers"), 1);
    rig.finish().await;
}

/// §1.3: a second 401 after the one re-read of the token is a typed `Unauthorized` failure of
/// this slot: exactly two requests, one dispatch, never a third try.
#[tokio::test]
async fn unauthorized_twice_is_typed_and_not_retried_again() {
    let (obs, stages, rig) = first_read(plan(
        r#"{"match":{"method":"GET","path":"/api/v1/gate/keepers"},"when":{"first":2},"fault":{"status":401,"body":{"error":"invalid token","auth_error_code":"invalid_token"}}}"#,
    ))
    .await;
    assert!(
        matches!(
            roster_error(&obs),
            Some(ClientError::Unauthorized { status: 401, .. })
        ),
        "{:?}",
        obs.payload
    );
    assert_eq!(rig.server.request_count("GET", ROSTER), 2);
    assert_eq!(
        stage_names(&stages)[..3],
        ["dispatch", "worker_enter", "worker_return"]
    );
    assert_ne!(stages[2].outcome.as_deref(), Some("ok"));
    rig.finish().await;
}

/// G-8 / §1.4: a re-read of an unchanged roster sends the cached ETag, the server answers 304
/// with a receipt, and the view gets the same typed value marked `from_cache` under the new
/// ticket (a new generation, not the old result replayed).
#[tokio::test]
async fn an_unchanged_reread_reuses_the_cached_value_by_etag() {
    let (first, _, mut rig) = first_read(FaultPlan::none()).await;
    let KeepersObservation::Roster(Ok(a)) = &first.payload else {
        panic!("{:?}", first.payload);
    };
    assert!(!a.from_cache);
    let source = rig.source().await;
    refresh(&source);
    let second = loop {
        let obs = rig.observed().await;
        if obs.ticket != first.ticket {
            break obs;
        }
    };
    assert!(second.ticket.generation > first.ticket.generation);
    let KeepersObservation::Roster(Ok(b)) = &second.payload else {
        panic!("{:?}", second.payload);
    };
    assert!(b.from_cache, "answered 304 and served from the ETag cache");
    assert_eq!(b.value, a.value);
    assert_eq!(
        b.mode.as_str(),
        "receipt",
        "a 304 still carries the receipt"
    );
    assert_eq!(rig.server.request_count("GET", ROSTER), 2);
    rig.finish().await;
}

/// §2.3 end to end: against an older MASC (no admission advert, no receipts) the roster is
/// admitted in health mode, flagged on the typed result and on the confirmed identity — never
/// passed off as receipt-admitted.
#[tokio::test]
async fn a_server_without_receipts_is_admitted_in_health_mode_and_says_so() {
    let mut rig = start_rig(
        ServeOptions {
            legacy_no_receipts: true,
            ..ServeOptions::default()
        },
        None,
        None,
    )
    .await;
    let confirmed = rig
        .view
        .wait_event(|e| matches!(e, SourceEvent::Identity(IdentityState::Confirmed { .. })))
        .await;
    let Some(SourceEvent::Identity(IdentityState::Confirmed { mode, .. })) = confirmed else {
        panic!("no confirmation: {confirmed:?}");
    };
    assert_eq!(mode.as_str(), "health");
    let ticket = rig.dispatched().await;
    let obs = rig.observed().await;
    assert_eq!(obs.ticket, ticket);
    let KeepersObservation::Roster(Ok(admitted)) = &obs.payload else {
        panic!("{:?}", obs.payload);
    };
    assert_eq!(admitted.mode.as_str(), "health", "flagged on the result");
    assert!(admitted.value.count > 0);
    assert_eq!(
        rig.stages_of(&ticket)
            .iter()
            .find(|r| r.stage == "worker_return")
            .and_then(|r| r.outcome.clone())
            .as_deref(),
        Some("ok")
    );
    rig.finish().await;
}
