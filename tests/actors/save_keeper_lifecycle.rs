//! The lifecycle save on the embedded server (issue 10 part A; protocol.md §14.1–§14.4, §11;
//! sources.md H-5, H-6, N-3): pause, wake, boot, shutdown, delete and the tool gate, each
//! classified by its route's §11 row; the roster re-read follows the server.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code
use crate::actor_support::{Rig, plan, rig_with};
use crate::save_keeper_ops::{confirmed_scope, receipt_event, stages, submit};
use masc_tui::actors::contract::{DemandKind, SlotEvent, SourceControl};
use masc_tui::actors::keepers::ops::KeeperOpEvent;
use masc_tui::actors::keepers::ops::lifecycle::{
    LifecycleAction, LifecycleApplied, LifecycleIntent, LifecycleOutcome, LifecycleSave,
};
use masc_tui::actors::keepers::{KeepersObservation, KeepersSlot, ROSTER};
use masc_tui::actors::saves::SaveStep;
use masc_tui::protocol::admission::ReadScope;
use masc_tui::protocol::keeper_ops::ToolApprovalMode;
use masc_tui::protocol::keepers::KeeperRowSlot;
use masc_tui::protocol::outcome::{
    DirectiveApplied, OPERATOR_PAUSED, PowerApplied, ROUTE_NOT_SERVED, SaveOutcome,
};
use masc_tui::server::faults::FaultPlan;

async fn act(
    rig: &mut Rig,
    scope: &ReadScope,
    keeper: &str,
    action: LifecycleAction,
) -> LifecycleOutcome {
    let id = submit::<LifecycleSave>(
        rig,
        LifecycleIntent {
            keeper: keeper.into(),
            action,
        },
        scope.clone(),
    )
    .await;
    match receipt_event(rig, &id).await {
        KeeperOpEvent::Lifecycle(e) => match e.step {
            SaveStep::Ended(r) => r,
            other => panic!("not a receipt: {other:?}"),
        },
        other => panic!("not a lifecycle save: {other:?}"),
    }
}

/// An explicit roster read (what the view demands after a receipt, N-3); `paused` and
/// `keepalive_running` of `keeper`, or `None` when the roster no longer lists it.
pub(crate) async fn roster_row(
    rig: &mut Rig,
    keeper: &str,
) -> Option<(Option<bool>, Option<bool>)> {
    // The read made for this demand carries a generation newer than every earlier one.
    let before = rig
        .view
        .slot_events::<KeepersSlot, KeepersObservation>()
        .iter()
        .filter_map(|e| match e {
            SlotEvent::Observed(t, KeepersObservation::Roster(_)) => Some(t.generation),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    let roster = rig.source_handle(ROSTER).await;
    assert!(roster.send_control(SourceControl::Demand(DemandKind::Explicit)));
    let found = rig
        .view
        .wait_slot::<KeepersSlot, KeepersObservation>(|e| {
            matches!(e, SlotEvent::Observed(t, KeepersObservation::Roster(Ok(_))) if t.generation > before)
        })
        .await;
    let Some(SlotEvent::Observed(_, KeepersObservation::Roster(Ok(read)))) = found else {
        panic!("no roster read: {found:?}");
    };
    read.value.rows.iter().find_map(|slot| match slot {
        KeeperRowSlot::Row(r) if r.name == keeper => Some((r.paused, r.keepalive_running)),
        _ => None,
    })
}

/// §14.1, §14.2, N-3: a pause is applied and latched (a boot is then refused as
/// operator-paused, not applied), a wake is applied (signalled), and the roster read after the
/// receipt shows the pause.
#[tokio::test(flavor = "current_thread")]
async fn s14_1_pause_latches_boot_is_refused_as_operator_paused_and_the_roster_follows() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let scope = confirmed_scope(&mut rig).await;
    assert_eq!(
        roster_row(&mut rig, "sangsu").await,
        Some((Some(false), Some(true)))
    );
    assert_eq!(
        act(&mut rig, &scope, "sangsu", LifecycleAction::Pause).await,
        SaveOutcome::Applied {
            detail: LifecycleApplied::Directive(DirectiveApplied::Signalled),
            warning: None,
        }
    );
    assert_eq!(
        roster_row(&mut rig, "sangsu").await,
        Some((Some(true), Some(true)))
    );
    match act(&mut rig, &scope, "sangsu", LifecycleAction::Boot).await {
        SaveOutcome::NotApplied { reason } => {
            assert!(reason.starts_with(OPERATOR_PAUSED), "{reason}")
        }
        other => panic!("boot of a paused keeper: {other:?}"),
    }
    assert_eq!(
        act(&mut rig, &scope, "sangsu", LifecycleAction::Wake)
            .await
            .class(),
        "applied"
    );
    assert_eq!(
        stages(&rig, "keeper_lifecycle")
            .iter()
            .filter(|s| s.starts_with("worker_return"))
            .cloned()
            .collect::<Vec<_>>(),
        [
            "worker_return:ok",
            "worker_return:not_applied",
            "worker_return:ok"
        ]
    );
    rig.finish().await;
}

/// §14.2, §14.3: delete is refused while the fiber runs (409: not applied); shutdown is
/// applied; delete is then accepted with an operation id, a repeat answers the same id, and the
/// roster no longer lists the Keeper. Boot of a stopped Keeper is applied; again: unchanged
/// (already live).
#[tokio::test(flavor = "current_thread")]
async fn s14_2_s14_3_shutdown_then_delete_is_accepted_and_the_keeper_leaves_the_roster() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let scope = confirmed_scope(&mut rig).await;
    // The initial read first, so every later read is one this test demanded.
    assert_eq!(
        roster_row(&mut rig, "rondo").await,
        Some((Some(false), Some(true)))
    );
    assert_eq!(
        act(&mut rig, &scope, "rondo", LifecycleAction::Delete)
            .await
            .class(),
        "not_applied"
    );
    assert_eq!(
        act(&mut rig, &scope, "rondo", LifecycleAction::Shutdown).await,
        SaveOutcome::Applied {
            detail: LifecycleApplied::Power(PowerApplied::ShutDown),
            warning: None,
        }
    );
    assert_eq!(
        roster_row(&mut rig, "rondo").await,
        Some((Some(true), Some(false)))
    );
    let first = match act(&mut rig, &scope, "rondo", LifecycleAction::Delete).await {
        SaveOutcome::Applied {
            detail: LifecycleApplied::DeleteAccepted(a),
            ..
        } => a.operation_id,
        other => panic!("delete not accepted: {other:?}"),
    };
    match act(&mut rig, &scope, "rondo", LifecycleAction::Delete).await {
        SaveOutcome::Applied {
            detail: LifecycleApplied::DeleteAccepted(a),
            ..
        } => assert_eq!(a.operation_id, first, "a repeat answers the same operation"),
        other => panic!("repeat delete: {other:?}"),
    }
    assert_eq!(roster_row(&mut rig, "rondo").await, None);

    assert_eq!(
        act(&mut rig, &scope, "scout", LifecycleAction::Boot).await,
        SaveOutcome::Applied {
            detail: LifecycleApplied::Power(PowerApplied::Booted),
            warning: None,
        }
    );
    assert_eq!(
        act(&mut rig, &scope, "scout", LifecycleAction::Boot).await,
        SaveOutcome::Unchanged
    );
    rig.finish().await;
}

/// §14.4: the tool gate is applied with the echoed mode; an unregistered Keeper is not applied
/// (404); a server without the route (404 of MASC's prefix handler) is "route not served".
#[tokio::test(flavor = "current_thread")]
async fn s14_4_tool_gate_applied_unknown_keeper_and_route_not_served_are_distinct() {
    let mut rig = rig_with(plan(
        r#"{"match":{"method":"POST","path":"/api/v1/keepers/tool-approval-mode"},"when":{"nth":3},"fault":{"status":404,"body":{"error":"not found"}}}"#,
    ))
    .await;
    let scope = confirmed_scope(&mut rig).await;
    assert_eq!(
        act(
            &mut rig,
            &scope,
            "rondo",
            LifecycleAction::ToolGate(ToolApprovalMode::Yolo)
        )
        .await,
        SaveOutcome::Applied {
            detail: LifecycleApplied::ToolGate(ToolApprovalMode::Yolo),
            warning: None,
        }
    );
    match act(
        &mut rig,
        &scope,
        "nobody",
        LifecycleAction::ToolGate(ToolApprovalMode::Auto),
    )
    .await
    {
        SaveOutcome::NotApplied { reason } => assert_ne!(reason, ROUTE_NOT_SERVED),
        other => panic!("unknown keeper: {other:?}"),
    }
    assert_eq!(
        act(
            &mut rig,
            &scope,
            "rondo",
            LifecycleAction::ToolGate(ToolApprovalMode::Auto)
        )
        .await,
        SaveOutcome::NotApplied {
            reason: ROUTE_NOT_SERVED.into()
        }
    );
    rig.finish().await;
}

/// H-5, §11: a shutdown whose pause was not latched is applied plus failure; a connection lost
/// after the commit is outcome unknown, never resent (one POST each).
#[tokio::test(flavor = "current_thread")]
async fn h5_s11_shutdown_pause_not_latched_and_a_drop_are_distinct() {
    let mut rig = rig_with(plan(
        r#"{"match":{"method":"POST","path":"/api/v1/keepers/sangsu/shutdown"},"when":{"nth":1},"fault":{"status":500,"body":{"ok":false,"error":"paused-state persist failed after shutdown"}}},
           {"match":{"method":"POST","path":"/api/v1/keepers/sangsu/shutdown"},"when":{"nth":2},"fault":{"drop":"after_apply"}}"#,
    ))
    .await;
    let scope = confirmed_scope(&mut rig).await;
    match act(&mut rig, &scope, "sangsu", LifecycleAction::Shutdown).await {
        SaveOutcome::Applied {
            detail: LifecycleApplied::Power(PowerApplied::ShutDownPauseNotLatched),
            warning: Some(_),
        } => {}
        other => panic!("not applied plus failure: {other:?}"),
    }
    assert_eq!(
        act(&mut rig, &scope, "sangsu", LifecycleAction::Shutdown)
            .await
            .class(),
        "outcome_unknown"
    );
    assert_eq!(
        rig.server
            .request_count("POST", "/api/v1/keepers/sangsu/shutdown"),
        2
    );
    rig.finish().await;
}
