#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! The selected Keeper's surface read (protocol.md §6.1 `?keeper=`; surfaces.md Tools
//! `available` and `receipts`) against the embedded server's seeded Keepers
//! and fault plans. Assertions are on the typed payload, the view model's typed pane states
//! and the traced stages.

use crate::tools_rig::{Rig, rig};
use crate::work_rig::plan;
use masc_tui::actors::tools::{ToolsCommand, ToolsObservation, ToolsSlot};
use masc_tui::protocol::client::ErrorClass;
use masc_tui::server::faults::FaultPlan;
use masc_tui::view::fetched::{FailureClass, Fetched};
use masc_tui::view::tools::panes::{self, PaneState};

fn key(keeper: &str) -> ToolsSlot {
    ToolsSlot::KeeperSurface(keeper.into())
}

/// The three lists settle first (the server's first inventory read per actor is warming).
async fn lists_settled(rig: &mut Rig) {
    for slot in [
        ToolsSlot::ToolsInventory,
        ToolsSlot::SkillsCatalog,
        ToolsSlot::AsyncRequests,
    ] {
        let t = rig.dispatched(&slot).await;
        rig.observed_ticket(&t).await;
    }
}

async fn select(rig: &mut Rig, keeper: Option<&str>) {
    rig.command(ToolsCommand::SelectKeeper {
        keeper: keeper.map(str::to_string),
    })
    .await;
}

fn failure<T>(state: &PaneState<T>) -> Option<(FailureClass, bool)> {
    match state {
        PaneState::Failed { error, last } => Some((error.class, last.is_some())),
        _ => None,
    }
}

fn unavailable_reason<T>(state: &PaneState<T>) -> Option<String> {
    match state {
        PaneState::Unavailable(u) => Some(u.reason.clone()),
        _ => None,
    }
}

fn keeper_of(payload: &ToolsObservation) -> &str {
    match payload {
        ToolsObservation::KeeperSurface(read) => &read.keeper,
        other => panic!("not a Keeper surface read: {other:?}"),
    }
}

/// T-1: selecting a Keeper starts its own `?keeper=` read with its own
/// ticket; the answer names the Keeper it was asked for and fills both panes (the surface and
/// the activation ledger) of that Keeper; traced as its own slot.
#[tokio::test]
async fn tools_item2_t1_the_keeper_surface_is_its_own_read_for_the_keeper_asked() {
    let mut rig = rig(FaultPlan::none()).await;
    lists_settled(&mut rig).await;
    select(&mut rig, Some("rondo")).await;
    let ticket = rig.dispatched(&key("rondo")).await;
    let payload = rig.observed_ticket(&ticket).await;
    assert_eq!(keeper_of(&payload), "rondo");
    let surface = rig.model.tools.surface.as_ref();
    let PaneState::Shown { value, .. } = panes::available(surface) else {
        panic!("rondo's surface shown: {:?}", panes::available(surface));
    };
    assert!(!value.tools.is_empty());
    assert!(matches!(
        panes::receipts(surface),
        PaneState::Shown { .. } | PaneState::Empty
    ));
    assert_eq!(
        rig.stage_names(&ticket),
        [
            "dispatch",
            "worker_enter",
            "worker_return",
            "observe",
            "unregistered",
            "admit"
        ]
    );
    rig.finish().await;
}

/// T-2, T-3: a failing `?keeper=` read fails only the Keeper panes, typed
/// (`status_500`, no last data); the three lists stay admitted.
#[tokio::test]
async fn tools_item2_t2_a_failed_keeper_read_fails_only_its_panes() {
    let mut rig = rig(plan(
        r#"{"match":{"method":"GET","path":"/api/v1/dashboard/tools","query":"keeper="},"when":{"every":true},"fault":{"status":500,"body":"boom"}}"#,
    ))
    .await;
    lists_settled(&mut rig).await;
    select(&mut rig, Some("rondo")).await;
    let ticket = rig.dispatched(&key("rondo")).await;
    rig.observed_ticket(&ticket).await;
    let surface = rig.model.tools.surface.as_ref();
    for state in [
        failure(&panes::available(surface)),
        failure(&panes::receipts(surface)),
    ] {
        assert!(
            matches!(
                &state,
                Some((FailureClass::Read(ErrorClass::Status(500)), false))
            ),
            "{state:?}"
        );
    }
    let system = &rig.model.tools;
    assert!(matches!(system.inventory.fetched, Fetched::Ready(_)));
    assert!(matches!(system.skills.fetched, Fetched::Ready(_)));
    assert!(matches!(system.asyncs.fetched, Fetched::Ready(_)));
    rig.finish().await;
}

/// G-5: a Keeper the server does not know is `unavailable` with the
/// server's reason in both panes — never an empty surface or an empty ledger.
#[tokio::test]
async fn tools_item2_g5_an_unknown_keeper_is_unavailable_not_empty() {
    let mut rig = rig(FaultPlan::none()).await;
    lists_settled(&mut rig).await;
    select(&mut rig, Some("nobody-here")).await;
    let ticket = rig.dispatched(&key("nobody-here")).await;
    rig.observed_ticket(&ticket).await;
    let surface = rig.model.tools.surface.as_ref();
    for state in [
        unavailable_reason(&panes::available(surface)),
        unavailable_reason(&panes::receipts(surface)),
    ] {
        assert_eq!(state.as_deref(), Some("unknown_keeper"));
    }
    rig.finish().await;
}

/// G-7, T-12 (the rule for the Keeper read): selecting another Keeper
/// retires the first Keeper's read in flight — it is never observed — and only the new
/// Keeper's answer is applied; selecting none retires it and reads nothing more.
#[tokio::test]
async fn tools_item2_g7_another_keeper_retires_the_old_read() {
    let mut rig = rig(plan(
        r#"{"match":{"method":"GET","path":"/api/v1/dashboard/tools","query":"keeper=rondo"},"when":{"nth":1},"fault":{"delay_ms":1500}}"#,
    ))
    .await;
    lists_settled(&mut rig).await;
    select(&mut rig, Some("rondo")).await;
    let first = rig.dispatched(&key("rondo")).await;
    select(&mut rig, Some("sangsu")).await;
    rig.retired(&first).await;
    let second = rig.dispatched(&key("sangsu")).await;
    let payload = rig.observed_ticket(&second).await;
    assert_eq!(keeper_of(&payload), "sangsu");
    // One generation counter across Keepers: the first read's trace is its own and ends in
    // a retire, never an observe.
    assert!(second.generation > first.generation);
    let stages = rig.stage_names(&first);
    assert!(stages.contains(&"retire".to_string()), "{stages:?}");
    assert!(!stages.contains(&"observe".to_string()), "{stages:?}");
    assert_eq!(rig.model.tools.surface_keeper(), Some("sangsu"));
    assert!(!rig.rejected.iter().any(|(t, _)| t == &second));
    select(&mut rig, None).await;
    assert!(rig.model.tools.surface.is_none());
    rig.finish().await;
}
