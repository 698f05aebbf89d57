//! The lifecycle save on the embedded server (protocol.md §14.1–§14.4, §11;
//! sources.md H-5, H-6, N-3): pause, wake, boot, shutdown, delete and the tool gate, each
//! classified by its route's §11 row; the roster re-read follows the server.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code
use crate::actor_support::{Rig, foreign_health, health_rule, plan, quiet_health_rig, rig_with};
use crate::save_keeper_ops::receipt_event;
use crate::save_rig::{confirmed_scope, submit, worker_returns};
use masc_tui::actors::contract::{DemandKind, SlotEvent, SourceControl};
use masc_tui::actors::keepers::ops::lifecycle::{
    LifecycleAction, LifecycleApplied, LifecycleIntent, LifecycleOutcome, LifecycleSave,
};
use masc_tui::actors::keepers::ops::{KeeperOpEvent, OWNER_NOT_RECONFIRMED, STATUS_UNREAD};
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
    let id =
        submit::<LifecycleSave>(rig, LifecycleIntent::new(keeper, action), scope.clone()).await;
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
        worker_returns(&rig, "keeper_lifecycle"),
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

const SANGSU_DIRECTIVE: &str = "/api/v1/keepers/sangsu/directive";
const KEEPER_STATUS: &str = "/api/v1/gate/keeper-status";

/// §14.1, §14.7, N-3 (surfaces.md Keepers row `p`): the resume of an operator-paused Keeper
/// reads the generation from a fresh §14.7 read and sends it once as `owner_nonce` with the
/// press's operation id (the embedded server refuses any other generation with a 409, so
/// "resumed" proves the nonce); the roster re-read shows the pause lifted. A second resume
/// reads again, finds no pause and sends nothing (unchanged).
#[tokio::test(flavor = "current_thread")]
async fn s14_1_s14_7_resume_sends_the_fresh_generation_once_and_the_roster_follows() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let scope = confirmed_scope(&mut rig).await;
    assert_eq!(
        act(&mut rig, &scope, "sangsu", LifecycleAction::Pause)
            .await
            .class(),
        "applied"
    );
    assert_eq!(
        roster_row(&mut rig, "sangsu").await,
        Some((Some(true), Some(true)))
    );
    let reads_before = rig.server.request_count("GET", KEEPER_STATUS);
    match act(&mut rig, &scope, "sangsu", LifecycleAction::Resume).await {
        SaveOutcome::Applied {
            detail: LifecycleApplied::Directive(DirectiveApplied::Resumed { projection }),
            warning: None,
        } => assert_eq!(projection.as_deref(), Some("resumed")),
        other => panic!("not resumed: {other:?}"),
    }
    assert_eq!(
        roster_row(&mut rig, "sangsu").await,
        Some((Some(false), Some(true))),
        "the pause is lifted"
    );
    assert_eq!(
        act(&mut rig, &scope, "sangsu", LifecycleAction::Resume).await,
        SaveOutcome::Unchanged,
        "no pause to lift"
    );
    assert_eq!(
        rig.server.request_count("GET", KEEPER_STATUS) - reads_before,
        2,
        "one fresh metadata read per resume"
    );
    assert_eq!(
        rig.server.request_count("POST", SANGSU_DIRECTIVE),
        2,
        "the pause and one resume"
    );
    assert_eq!(
        worker_returns(&rig, "keeper_lifecycle"),
        // The trace's `ok` covers applied and unchanged; the receipts above tell them apart.
        ["worker_return:ok", "worker_return:ok", "worker_return:ok"]
    );
    rig.finish().await;
}

/// §14.1, §11, H-5: a resume whose metadata read fails is not sent (`keeper_status_unread`); a
/// typed 409 is the conflict (re-read before any retry); a drop before the handler and one after
/// the store committed are both outcome unknown — the roster shows the first left the pause and
/// the second lifted it; a reconfirmation serving another workspace is not sent. Each sent at
/// most once; nothing resent.
#[tokio::test(flavor = "current_thread")]
async fn s14_1_h5_resume_faults_are_distinct_and_each_sent_once() {
    let mut rig = quiet_health_rig(FaultPlan::default()).await;
    let scope = confirmed_scope(&mut rig).await;
    assert_eq!(
        act(&mut rig, &scope, "sangsu", LifecycleAction::Pause)
            .await
            .class(),
        "applied"
    );
    let conflict = r#"{"ok":false,"action":"resume","operation":"resume_owner","name":"sangsu","committed":false,"error":"keeper generation changed"}"#;
    let post = format!(r#""method":"POST","path":"{SANGSU_DIRECTIVE}""#);
    rig.server.set_faults(plan(&format!(
        r#"{{"match":{{"method":"GET","path":"{KEEPER_STATUS}"}},"when":{{"nth":1}},"fault":{{"status":500,"body":{{"ok":false,"error":"store"}}}}}},
           {{"match":{{{post}}},"when":{{"nth":1}},"fault":{{"status":409,"body":{conflict}}}}},
           {{"match":{{{post}}},"when":{{"nth":2}},"fault":{{"drop":"before_apply"}}}},
           {{"match":{{{post}}},"when":{{"nth":3}},"fault":{{"drop":"after_apply"}}}}"#
    )));
    let posts_before = rig.server.request_count("POST", SANGSU_DIRECTIVE);
    match act(&mut rig, &scope, "sangsu", LifecycleAction::Resume).await {
        SaveOutcome::NotSent { reason } => assert!(reason.starts_with(STATUS_UNREAD), "{reason}"),
        other => panic!("sent without the generation: {other:?}"),
    }
    assert_eq!(
        rig.server.request_count("POST", SANGSU_DIRECTIVE),
        posts_before
    );
    match act(&mut rig, &scope, "sangsu", LifecycleAction::Resume).await {
        SaveOutcome::Conflict { current } => {
            assert_eq!(current.reason, "keeper generation changed")
        }
        other => panic!("not a conflict: {other:?}"),
    }
    assert_eq!(
        act(&mut rig, &scope, "sangsu", LifecycleAction::Resume)
            .await
            .class(),
        "outcome_unknown"
    );
    assert_eq!(
        roster_row(&mut rig, "sangsu").await,
        Some((Some(true), Some(true))),
        "dropped before the handler: still paused"
    );
    assert_eq!(
        act(&mut rig, &scope, "sangsu", LifecycleAction::Resume)
            .await
            .class(),
        "outcome_unknown"
    );
    assert_eq!(
        roster_row(&mut rig, "sangsu").await,
        Some((Some(false), Some(true))),
        "dropped after the commit: resumed, still outcome unknown"
    );
    assert_eq!(
        rig.server.request_count("POST", SANGSU_DIRECTIVE) - posts_before,
        3
    );

    // Paused again; the reconfirmation just before the POST serves another workspace.
    rig.server.set_faults(FaultPlan::default());
    assert_eq!(
        act(&mut rig, &scope, "sangsu", LifecycleAction::Pause)
            .await
            .class(),
        "applied"
    );
    let foreign = foreign_health(&rig.server.base_path());
    rig.server.set_faults(plan(&health_rule(2, 200, &foreign)));
    let posts_before = rig.server.request_count("POST", SANGSU_DIRECTIVE);
    assert_eq!(
        act(&mut rig, &scope, "sangsu", LifecycleAction::Resume).await,
        SaveOutcome::NotSent {
            reason: OWNER_NOT_RECONFIRMED.into()
        }
    );
    assert_eq!(
        rig.server.request_count("POST", SANGSU_DIRECTIVE),
        posts_before
    );
    rig.finish().await;
}

/// K-1, H-15: a save of the same intent submitted the moment the previous one's receipt is seen
/// (pause, then resume of one Keeper, back to back) is started, not taken for a duplicate of
/// the finished job: the hub hears a job ended before its receipt reaches the surface, so the
/// next submit queues behind that in the hub's mailbox. On a multi-threaded runtime the other
/// order dropped about one such submit in twenty silently (no receipt ever).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn k1_a_submit_made_on_seeing_the_receipt_is_never_dropped_as_a_duplicate() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let scope = confirmed_scope(&mut rig).await;
    // The hub hears of the epoch apart from the view (K-5 refuses a save made before): until it
    // does, a no-op resume comes back not sent.
    let mut tries = 0;
    while act(&mut rig, &scope, "sangsu", LifecycleAction::Resume)
        .await
        .class()
        == "not_sent"
    {
        tries += 1;
        assert!(tries < 100, "the save hub never held the epoch");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    for i in 0..30 {
        for action in [LifecycleAction::Pause, LifecycleAction::Resume] {
            let class = act(&mut rig, &scope, "sangsu", action).await.class();
            assert!(
                matches!(class, "applied" | "unchanged"),
                "{i} {action:?}: {class}"
            );
        }
    }
}
