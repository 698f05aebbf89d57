#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! WorkspaceActor against the embedded server (protocol.md §2.1, §3, §13 `/health` faults;
//! sources.md G-6): identity judgement, epochs, withdrawal, and what sources see of it.

use crate::actor_support::{Rig, all_dispatched, plan, start_rig};
use masc_tui::actors::contract::{IdentityState, SlotEvent, SourceEvent, SourceKey, Ticket};
use masc_tui::actors::keepers::{KeepersObservation, KeepersSlot};
use masc_tui::protocol::admission::AdmissionMode;
use masc_tui::server::ServeOptions;
use masc_tui::server::faults::FaultPlan;

async fn rig(opts: ServeOptions, expected_base: Option<&str>) -> Rig {
    start_rig(opts, expected_base, None).await
}

impl Rig {
    async fn identity(&mut self, pred: impl Fn(&IdentityState) -> bool) -> IdentityState {
        match self
            .view
            .wait_event(|e| matches!(e, SourceEvent::Identity(s) if pred(s)))
            .await
        {
            Some(SourceEvent::Identity(s)) => s.clone(),
            _ => panic!("view stopped"),
        }
    }

    async fn confirmed(&mut self) -> (u64, String, AdmissionMode) {
        match self
            .identity(|s| matches!(s, IdentityState::Confirmed { .. }))
            .await
        {
            IdentityState::Confirmed { scope, mode, .. } => (scope.epoch, scope.workspace.0, mode),
            _ => unreachable!(),
        }
    }

    /// The next roster `Dispatched` no earlier wait looked at.
    async fn roster_dispatched(&mut self) -> Ticket<KeepersSlot> {
        self.roster_dispatched_from(0).await
    }

    /// The next roster `Dispatched` of epoch `epoch` or later no earlier wait looked at. (Slot
    /// events and identity events are no longer one list: "the dispatch after this
    /// confirmation" is the dispatch under its epoch.)
    async fn roster_dispatched_from(&mut self, epoch: u64) -> Ticket<KeepersSlot> {
        match self
            .view
            .wait_slot(|e: &SlotEvent<KeepersSlot, KeepersObservation>| {
                matches!(e, SlotEvent::Dispatched(t) if t.scope.epoch >= epoch)
            })
            .await
        {
            Some(SlotEvent::Dispatched(t)) => t.clone(),
            _ => panic!("view stopped"),
        }
    }
}

#[tokio::test]
async fn a_matching_health_opens_an_epoch_for_the_view_and_the_sources() {
    let mut rig = rig(ServeOptions::default(), None).await;
    let (epoch, root, mode) = rig.confirmed().await;
    assert_eq!(root, rig.server.masc_root());
    assert_eq!(mode, AdmissionMode::Receipt);
    let ticket = rig.roster_dispatched().await;
    assert_eq!(
        ticket.scope.epoch, epoch,
        "sources read under the published epoch"
    );
    let probe = rig
        .recorder
        .wait_for(|r| r.source == "workspace" && r.stage == "admit")
        .await
        .unwrap();
    assert!(probe.generation.is_some());
    let returned = rig
        .recorder
        .records_where(|r| r.source == "workspace" && r.stage == "worker_return");
    assert_eq!(returned[0].outcome.as_deref(), Some("ok"));
    rig.finish().await;
}

#[tokio::test]
async fn a_booting_server_is_not_confirmed_until_ready() {
    let mut rig = rig(
        ServeOptions {
            boot_delay_reads: 2,
            ..ServeOptions::default()
        },
        None,
    )
    .await;
    rig.identity(|s| *s == IdentityState::Booting).await;
    let (epoch, _, _) = rig.confirmed().await;
    let ticket = rig.roster_dispatched().await;
    assert_eq!(ticket.scope.epoch, epoch);
    // Nothing was dispatched while booting: the first dispatch follows the confirmation. A
    // dispatch reaches the view with the `Delivered` of its surface's inbox, so the first
    // `Delivered` of any surface comes after the confirmation in the view's mailbox.
    rig.view.drain_ready();
    let first_delivery = rig
        .view
        .events
        .iter()
        .position(|e| matches!(e, SourceEvent::Delivered { .. }))
        .unwrap();
    let confirmation = rig
        .view
        .events
        .iter()
        .position(|e| matches!(e, SourceEvent::Identity(IdentityState::Confirmed { .. })))
        .unwrap();
    assert!(confirmation < first_delivery);
    assert!(
        all_dispatched(&mut rig.view)
            .iter()
            .all(|(_, scope)| scope.epoch >= epoch),
        "no ticket of an earlier (booting) epoch"
    );
    rig.finish().await;
}

#[tokio::test]
async fn g6_a_failed_probe_withdraws_the_epoch_and_recovery_opens_a_new_one() {
    let mut rig = rig(ServeOptions::default(), None).await;
    let (first, _, _) = rig.confirmed().await;
    rig.server.set_faults(plan(
        r#"{"match":{"method":"GET","path":"/health"},"fault":{"status":500,"body":"down"}}"#,
    ));
    let withdrawn = rig
        .identity(|s| matches!(s, IdentityState::Unconfirmed { .. }))
        .await;
    let IdentityState::Unconfirmed { reason } = withdrawn else {
        unreachable!()
    };
    assert!(reason.contains("status_500"), "{reason}");
    rig.server.set_faults(FaultPlan::none());
    let (second, _, _) = rig.confirmed().await;
    // One advance for the withdrawal, one for the confirmation.
    assert_eq!(second, first + 2);
    let first_ticket = rig.roster_dispatched().await;
    assert_eq!(first_ticket.scope.epoch, first);
    // The roster is read again after recovery, under the new epoch, as a new read.
    let ticket = rig.roster_dispatched_from(second).await;
    assert!(ticket.scope.epoch >= second);
    assert!(ticket.generation > first_ticket.generation);
    rig.finish().await;
}

#[tokio::test]
async fn a_base_mismatch_is_reported_and_no_read_is_dispatched() {
    let mut rig = rig(
        ServeOptions::default(),
        Some("/nonexistent/masc-tui/elsewhere"),
    )
    .await;
    let mismatch = rig
        .identity(|s| matches!(s, IdentityState::Mismatch { .. }))
        .await;
    let IdentityState::Mismatch { served, .. } = mismatch else {
        unreachable!()
    };
    assert_eq!(served, rig.server.base_path());
    // Several further probes judged, and still no source read (refused without an epoch).
    rig.recorder
        .wait_for(|r| r.source == "workspace" && r.stage == "admit" && r.generation >= Some(4))
        .await
        .unwrap();
    assert!(
        all_dispatched(&mut rig.view).is_empty(),
        "no ticket without a confirmed epoch"
    );
    assert!(
        rig.recorder
            .records_where(|r| r.source == "keepers_roster" && r.stage == "dispatch")
            .is_empty()
    );
    rig.finish().await;
}

#[tokio::test]
async fn g6_a_workspace_switch_withdraws_and_confirms_the_new_root() {
    let mut rig = rig(ServeOptions::default(), None).await;
    let (first, root, _) = rig.confirmed().await;
    let old_ticket = rig.roster_dispatched().await;
    let base = rig.server.base_path();
    let new_root = format!("{base}/.masc-other");
    rig.server.switch_workspace(&base, &new_root);
    rig.identity(
        |s| matches!(s, IdentityState::Unconfirmed { reason } if reason.contains("changed")),
    )
    .await;
    let (second, switched, _) = rig.confirmed().await;
    assert!(second > first);
    assert_ne!(switched, root);
    assert_eq!(switched, new_root);
    let fresh = rig.roster_dispatched().await;
    assert!(fresh.generation > old_ticket.generation);
    assert_eq!(fresh.scope.workspace.0, new_root);
    rig.finish().await;
}

#[tokio::test]
async fn a_workspace_actor_panic_withdraws_then_reconfirms_under_a_new_epoch() {
    let mut rig = rig(ServeOptions::default(), None).await;
    let (first, _, _) = rig.confirmed().await;
    rig.roster_dispatched().await;
    rig.runtime.inject_panic(SourceKey::WORKSPACE);
    rig.view
        .wait_event(|e| matches!(e, SourceEvent::SourceRestarted(SourceKey::WORKSPACE)))
        .await
        .unwrap();
    rig.identity(|s| matches!(s, IdentityState::Unconfirmed { .. }))
        .await;
    let (second, _, _) = rig.confirmed().await;
    assert!(second > first, "epochs continue across the restart");
    let ticket = rig.roster_dispatched().await;
    assert_eq!(ticket.scope.epoch, second);
    rig.finish().await;
}
