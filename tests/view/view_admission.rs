//! Admission by ticket (G-2, G-3, G-6, G-7): superseded, stale-epoch, withdrawn and
//! unknown-slot results are rejected with a traced reason and never applied.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers

use crate::rig::{dispatch, observe};
use masc_tui::actors::contract::{IdentityState, SlotEvent, Ticket};
use masc_tui::actors::decisions::{DecisionsObservation, DecisionsSlot};
use masc_tui::actors::keepers::{KeepersSlot, ROSTER};
use masc_tui::protocol::admission::{AdmissionMode, ReadScope, WorkspaceId};
use masc_tui::protocol::client::ClientError;
use masc_tui::view::admission::RejectReason;
use masc_tui::view::fetched::Fetched;
use masc_tui::view::model::Model;
use masc_tui::view::sample::{
    confirmed, roster, roster_failure, roster_observation, roster_ticket,
};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tracing::field::{Field, Visit};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::{Context, SubscriberExt};

type Events = Arc<Mutex<Vec<HashMap<String, String>>>>;

struct Capture(Events);

struct Fields(HashMap<String, String>);

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().into(), format!("{value:?}"));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().into(), value.into());
    }
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.0.insert(field.name().into(), value.to_string());
    }
}

impl<S: tracing::Subscriber> Layer<S> for Capture {
    fn on_event(&self, event: &tracing::Event<'_>, _ctx: Context<'_, S>) {
        if event.metadata().target() != "masc_tui::stage" {
            return;
        }
        let mut fields = Fields(HashMap::new());
        event.record(&mut fields);
        self.0.lock().unwrap().push(fields.0);
    }
}

/// Runs `f` with stage events captured.
fn traced<R>(f: impl FnOnce() -> R) -> (R, Vec<HashMap<String, String>>) {
    let events: Events = Arc::default();
    let subscriber = tracing_subscriber::registry().with(Capture(Arc::clone(&events)));
    let out = tracing::subscriber::with_default(subscriber, f);
    let captured = events.lock().unwrap().clone();
    (out, captured)
}

fn last_names(model: &Model) -> Option<usize> {
    model
        .keepers
        .roster
        .fetched
        .last()
        .map(|o| o.value.rows.len())
}

fn assert_rejected(events: &[HashMap<String, String>], reason: &str, generation: u64, epoch: u64) {
    let e = events.last().expect("a stage event");
    assert_eq!(e.get("stage").map(String::as_str), Some("reject"));
    assert_eq!(e.get("reason").map(String::as_str), Some(reason));
    assert_eq!(e.get("source").map(String::as_str), Some("keepers_roster"));
    assert_eq!(e.get("generation"), Some(&generation.to_string()));
    assert_eq!(e.get("epoch"), Some(&epoch.to_string()));
}

#[test]
fn g7_superseded_result_is_rejected_traced_and_not_applied() {
    let mut m = Model::default();
    m.on_identity(confirmed(1, AdmissionMode::Receipt));
    dispatch(&mut m, roster_ticket(1, 1));
    dispatch(&mut m, roster_ticket(2, 1));
    let (verdict, events) = traced(|| {
        observe(
            &mut m,
            roster_observation(roster_ticket(1, 1), roster(5), AdmissionMode::Receipt),
        )
    });
    assert_eq!(verdict, Err(RejectReason::Superseded));
    assert_rejected(&events, "superseded", 1, 1);
    assert!(matches!(m.keepers.roster.fetched, Fetched::Loading));
    let (verdict, events) = traced(|| {
        observe(
            &mut m,
            roster_observation(roster_ticket(2, 1), roster(2), AdmissionMode::Receipt),
        )
    });
    assert_eq!(verdict, Ok(()));
    assert_eq!(
        events
            .last()
            .and_then(|e| e.get("stage"))
            .map(String::as_str),
        Some("admit")
    );
    assert_eq!(last_names(&m), Some(2));
}

#[test]
fn g2_stale_epoch_result_is_rejected_and_not_applied() {
    let mut m = Model::default();
    m.on_identity(confirmed(1, AdmissionMode::Receipt));
    dispatch(&mut m, roster_ticket(1, 1));
    observe(
        &mut m,
        roster_observation(roster_ticket(1, 1), roster(3), AdmissionMode::Receipt),
    )
    .unwrap();
    dispatch(&mut m, roster_ticket(2, 1));
    // A new epoch opens while generation 2 is in flight.
    m.on_identity(confirmed(2, AdmissionMode::Receipt));
    let (verdict, events) = traced(|| {
        observe(
            &mut m,
            roster_observation(roster_ticket(2, 1), roster(9), AdmissionMode::Receipt),
        )
    });
    assert_eq!(verdict, Err(RejectReason::StaleEpoch));
    assert_rejected(&events, "stale_epoch", 2, 1);
    assert_eq!(last_names(&m), Some(3));
    assert!(matches!(m.keepers.roster.fetched, Fetched::Ready(_)));
}

#[test]
fn g6_withdrawn_result_is_rejected_and_last_value_kept() {
    let mut m = Model::default();
    m.on_identity(confirmed(1, AdmissionMode::Receipt));
    dispatch(&mut m, roster_ticket(1, 1));
    observe(
        &mut m,
        roster_observation(roster_ticket(1, 1), roster(3), AdmissionMode::Receipt),
    )
    .unwrap();
    dispatch(&mut m, roster_ticket(2, 1));
    m.on_identity(IdentityState::Unconfirmed {
        reason: "health read failed".into(),
    });
    let (verdict, events) = traced(|| {
        observe(
            &mut m,
            roster_failure(roster_ticket(2, 1), ClientError::Timeout),
        )
    });
    assert_eq!(verdict, Err(RejectReason::Withdrawn));
    assert_rejected(&events, "withdrawn", 2, 1);
    // Not applied: no failure recorded; the last value stays.
    assert!(matches!(m.keepers.roster.fetched, Fetched::Ready(_)));
    assert_eq!(last_names(&m), Some(3));
}

#[test]
fn g6_another_workspace_never_borrows_the_value_or_the_read() {
    let mut m = Model::default();
    m.on_identity(confirmed(1, AdmissionMode::Receipt));
    dispatch(&mut m, roster_ticket(1, 1));
    observe(
        &mut m,
        roster_observation(roster_ticket(1, 1), roster(3), AdmissionMode::Receipt),
    )
    .unwrap();
    let other = ReadScope {
        workspace: WorkspaceId("/srv/other/.masc".into()),
        epoch: 2,
    };
    m.on_identity(IdentityState::Confirmed {
        scope: other.clone(),
        base_path: "/srv/other".into(),
        mode: AdmissionMode::Receipt,
    });
    assert!(matches!(m.keepers.roster.fetched, Fetched::NotRequested));
    // Same generation number and epoch, old workspace: stale.
    let old = Ticket {
        slot: KeepersSlot::Roster,
        generation: 1,
        scope: ReadScope {
            workspace: WorkspaceId("/home/op/demo/.masc".into()),
            epoch: 2,
        },
    };
    let (verdict, _) = traced(|| {
        observe(
            &mut m,
            roster_observation(old, roster(1), AdmissionMode::Receipt),
        )
    });
    assert_eq!(verdict, Err(RejectReason::StaleEpoch));
}

/// A result that does not fit the slot its ticket names is never applied. Slot types are per
/// surface now, so a ticket of another surface's slot cannot even reach this one; what remains
/// expressible is a payload of another slot of the same surface (here: an asks result under
/// the approvals slot's own, owning ticket).
#[test]
fn unknown_slot_is_rejected() {
    let mut m = Model::default();
    m.on_identity(confirmed(1, AdmissionMode::Receipt));
    let ticket = Ticket {
        slot: DecisionsSlot::Approvals,
        generation: 1,
        scope: masc_tui::view::sample::scope(1),
    };
    dispatch(&mut m, ticket.clone());
    let (verdict, events) = traced(|| {
        observe(
            &mut m,
            SlotEvent::Observed(
                ticket,
                DecisionsObservation::Asks(Err(ClientError::Timeout)),
            ),
        )
    });
    assert_eq!(verdict, Err(RejectReason::UnknownSlot));
    assert_eq!(
        events
            .last()
            .and_then(|e| e.get("reason"))
            .map(String::as_str),
        Some("unknown_slot")
    );
    assert_eq!(
        events
            .last()
            .and_then(|e| e.get("source"))
            .map(String::as_str),
        Some("operator_approvals")
    );
    // Neither slot took it: the approvals read is still in flight, the asks never read.
    assert!(matches!(m.decisions.approvals.fetched, Fetched::Loading));
    assert!(matches!(m.decisions.asks.fetched, Fetched::NotRequested));
    assert!(matches!(m.keepers.roster.fetched, Fetched::NotRequested));
}

#[test]
fn source_restart_fails_the_read_and_rejects_its_late_result() {
    let mut m = Model::default();
    m.on_identity(confirmed(1, AdmissionMode::Receipt));
    dispatch(&mut m, roster_ticket(1, 1));
    observe(
        &mut m,
        roster_observation(roster_ticket(1, 1), roster(3), AdmissionMode::Receipt),
    )
    .unwrap();
    dispatch(&mut m, roster_ticket(2, 1));
    assert!(m.on_source_restarted(ROSTER));
    match &m.keepers.roster.fetched {
        Fetched::Failed {
            last: Some(o),
            error,
            ..
        } => {
            assert_eq!(error.class.to_string(), "source_restarted");
            assert_eq!(o.value.rows.len(), 3);
        }
        other => panic!("unexpected {other:?}"),
    }
    let (verdict, _) = traced(|| {
        observe(
            &mut m,
            roster_observation(roster_ticket(2, 1), roster(7), AdmissionMode::Receipt),
        )
    });
    assert_eq!(verdict, Err(RejectReason::Withdrawn));
    assert_eq!(last_names(&m), Some(3));
}
