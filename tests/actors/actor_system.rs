#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! The Tools and Runtime catalogue sources against the embedded server with fault plans
//! (protocol.md §6.1–§6.3, §9.1; sources.md T-1, T-2, F-5). Assertions are on typed payloads
//! and the stage trace; synchronisation is by view messages and stage records only.

use crate::actor_support::{plan, rig_with};
use masc_tui::actors::contract::{SlotEvent, SourceEvent};
use masc_tui::actors::decisions::{DecisionsObservation, DecisionsSlot};
use masc_tui::actors::runtime::{RuntimeObservation, RuntimeSlot};
use masc_tui::actors::tools::{TOOLS, ToolsObservation, ToolsSlot};
use masc_tui::protocol::async_requests::AsyncRequestList;
use masc_tui::protocol::client::ClientError;
use masc_tui::protocol::skills::SkillsSnapshotRead;

/// T-1, T-2: the three Tools reads start from one dispatch with their own tickets; a slow
/// inventory blocks neither the Skills catalogue nor the async requests, which are observed
/// while it is still in flight.
#[tokio::test]
async fn t1_t2_a_slow_inventory_blocks_neither_sibling() {
    let mut rig = rig_with(plan(
        // Every read of the route: the waiting inventory source reads it too (§15.8), and
        // which of the two asks first is not fixed.
        r#"{"match":{"method":"GET","path":"/api/v1/dashboard/tools"},"when":{"every":true},"fault":{"delay_ms":20000}}"#,
    ))
    .await;
    let skills = rig
        .observed_of::<_, ToolsObservation>(&ToolsSlot::SkillsCatalog)
        .await;
    let asyncs = rig
        .observed_of::<_, ToolsObservation>(&ToolsSlot::AsyncRequests)
        .await;
    assert!(matches!(
        &skills.payload,
        ToolsObservation::SkillsCatalog(Ok(a)) if matches!(a.value.as_ref(), SkillsSnapshotRead::Ready(_))
    ));
    assert!(matches!(
        &asyncs.payload,
        ToolsObservation::AsyncRequests(Ok(a)) if matches!(a.value.as_ref(), AsyncRequestList::Ready { .. })
    ));
    let inventory_done = rig
        .recorder
        .records_where(|r| r.source == "tools_inventory" && r.stage == "worker_return");
    assert!(
        inventory_done.is_empty(),
        "the inventory is still in flight"
    );
    let dispatches = |s: &str| {
        rig.recorder
            .records_where(|r| r.source == s && r.stage == "dispatch")
            .len()
    };
    assert_eq!(
        (
            dispatches("tools_inventory"),
            dispatches("skills_catalog"),
            dispatches("async_requests")
        ),
        (1, 1, 1),
        "one dispatch each, none started from another's completion"
    );
    rig.finish().await;
}

/// T-2, T-3: a failed Skills read is a typed failure of its own slot; the siblings are
/// admitted beside it.
#[tokio::test]
async fn t2_a_failed_skills_read_fails_only_its_slot() {
    let mut rig = rig_with(plan(
        r#"{"match":{"method":"GET","path":"/api/v1/skills"},"when":{"every":true},"fault":{"status":500,"body":{"error":"catalogue locked"}}}"#,
    ))
    .await;
    let skills = rig
        .observed_of::<_, ToolsObservation>(&ToolsSlot::SkillsCatalog)
        .await;
    let inventory = rig
        .observed_of::<_, ToolsObservation>(&ToolsSlot::ToolsInventory)
        .await;
    let asyncs = rig
        .observed_of::<_, ToolsObservation>(&ToolsSlot::AsyncRequests)
        .await;
    assert!(
        matches!(
            skills.payload,
            ToolsObservation::SkillsCatalog(Err(ClientError::Status { status: 500, .. }))
        ),
        "{:?}",
        skills.payload
    );
    assert!(matches!(
        inventory.payload,
        ToolsObservation::ToolsInventory(Ok(_))
    ));
    assert!(matches!(
        asyncs.payload,
        ToolsObservation::AsyncRequests(Ok(_))
    ));
    rig.finish().await;
}

/// F-5 / §9.1: the Runtime catalogue is its own source; a malformed body is a typed decode
/// failure of that slot (never an empty catalogue), and the Tools reads are unaffected.
#[tokio::test]
async fn f5_a_malformed_runtime_catalogue_is_a_typed_failure_of_its_slot() {
    let mut rig = rig_with(plan(
        r#"{"match":{"method":"GET","path":"/api/v1/runtime/resolved"},"when":{"every":true},"fault":{"malformed":true}}"#,
    ))
    .await;
    let runtime = rig
        .observed_of::<_, RuntimeObservation>(&RuntimeSlot::Catalogue)
        .await;
    assert!(
        matches!(
            &runtime.payload,
            RuntimeObservation::Catalogue(load) if matches!(load.resolved, Err(ClientError::Decode(_)))
        ),
        "{:?}",
        runtime.payload
    );
    let skills = rig
        .observed_of::<_, ToolsObservation>(&ToolsSlot::SkillsCatalog)
        .await;
    assert!(matches!(
        skills.payload,
        ToolsObservation::SkillsCatalog(Ok(_))
    ));
    rig.finish().await;
}

/// §10.1, §10.5: approvals and open asks are two independent slots of the Decisions source; a
/// failed asks read fails only its slot.
#[tokio::test]
async fn decisions_approvals_and_asks_are_independent_slots() {
    let mut rig = rig_with(plan(
        r#"{"match":{"method":"GET","path":"/api/v1/keepers/asks"},"when":{"every":true},"fault":{"status":500,"body":{"error":"asks store locked"}}}"#,
    ))
    .await;
    let asks = rig
        .observed_of::<_, DecisionsObservation>(&DecisionsSlot::Asks)
        .await;
    let approvals = rig
        .observed_of::<_, DecisionsObservation>(&DecisionsSlot::Approvals)
        .await;
    assert!(
        matches!(
            asks.payload,
            DecisionsObservation::Asks(Err(ClientError::Status { status: 500, .. }))
        ),
        "{:?}",
        asks.payload
    );
    let DecisionsObservation::Approvals(Ok(a)) = &approvals.payload else {
        panic!("{:?}", approvals.payload);
    };
    assert_eq!(a.value.actor_filter, "masc-tui");
    assert_eq!(a.value.items.len() as u64, a.value.visible_count);
    rig.finish().await;
}

/// G-6, T-1: a panic in the Tools source restarts it (traced `restart{restarted}`); the new
/// incarnation has its own handle, gets the current identity and reads all three slots again,
/// each with a later generation in the same epoch — nothing from the old one is reused.
#[tokio::test]
async fn a_tools_source_panic_restarts_it_and_redispatches_its_three_reads() {
    let mut rig = rig_with(masc_tui::server::faults::FaultPlan::default()).await;
    let first_handle = rig.source_handle(TOOLS).await;
    let slots = [
        ToolsSlot::ToolsInventory,
        ToolsSlot::SkillsCatalog,
        ToolsSlot::AsyncRequests,
    ];
    let mut first = Vec::new();
    for slot in &slots {
        first.push(rig.observed_of::<_, ToolsObservation>(slot).await.ticket);
    }
    rig.runtime.inject_panic(TOOLS);
    rig.view
        .wait_event(|e| matches!(e, SourceEvent::SourceRestarted(s) if s == &TOOLS))
        .await
        .expect("the Tools source restarted");
    let up = |e: &SourceEvent| matches!(e, SourceEvent::SourceUp { source, handle } if *source == TOOLS && handle.actor_id() != first_handle.actor_id());
    rig.view.wait_event(up).await.expect("a new Tools handle");
    for (slot, before) in slots.iter().zip(&first) {
        // The three arrive in any order (T-1): one already received counts.
        let read_again = |e: &SlotEvent<ToolsSlot, ToolsObservation>| matches!(e, SlotEvent::Observed(t, _) if t.slot == *slot && t.generation > before.generation);
        let again = match rig.view.last_slot(read_again) {
            Some(e) => e.ticket().clone(),
            None => rig
                .view
                .wait_slot(read_again)
                .await
                .unwrap_or_else(|| panic!("{slot:?} not read again"))
                .ticket()
                .clone(),
        };
        assert_eq!(again.scope.epoch, before.scope.epoch, "{slot:?}");
    }
    let restart = rig
        .recorder
        .wait_for(|r| r.stage == "restart" && r.source == TOOLS.0)
        .await
        .expect("a traced restart");
    assert_eq!(restart.reason.as_deref(), Some("restarted"));
    rig.finish().await;
}
