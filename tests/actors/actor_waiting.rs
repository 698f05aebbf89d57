#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! The waiting inventory source (protocol-15-operator.md §15.8) against the embedded server
//! with fault plans: the Tools body read for its `keeper_waiting_inventory` key, a slot of its
//! own whose failure never touches the roster. Assertions are on typed payloads and the stage
//! trace; synchronisation is by view messages and stage records only.

use crate::actor_support::{plan, rig_with};
use masc_tui::actors::contract::{DemandKind, SourceControl};
use masc_tui::actors::keepers::{
    KeepersObservation, KeepersSlot, WAITING_INVENTORY, WaitingObservation, WaitingSlot,
};
use masc_tui::protocol::client::ClientError;
use masc_tui::protocol::waiting::{WaitState, WaitingInventoryRead, WaitingSource};
use masc_tui::server::faults::FaultPlan;
use masc_tui::server::routes::tools::set_waiting_script;
use masc_tui::server::store::waiting::WaitingScript;

const SLOT: WaitingSlot = WaitingSlot::Inventory;

/// §15.8: the inventory arrives typed from the seeded queues, and its read is traced under the
/// source's own name (dispatch, worker return, admit).
#[tokio::test]
async fn s15_8_the_inventory_arrives_typed_and_traced() {
    let mut rig = rig_with(FaultPlan::none()).await;
    let obs = rig.observed_of::<_, WaitingObservation>(&SLOT).await;
    let WaitingObservation(Ok(admitted)) = &obs.payload else {
        panic!("{:?}", obs.payload)
    };
    let inv = admitted
        .value
        .inventory()
        .expect("sent by the embedded server");
    let rondo = inv.of("rondo").unwrap();
    assert_eq!(rondo.state, WaitState::Busy, "its seeded turn runs");
    assert_eq!(rondo.headline().unwrap().source, WaitingSource::HitlPending);
    assert_eq!(inv.of("scout").unwrap().state, WaitState::Deferred);
    for stage in ["dispatch", "worker_return"] {
        assert!(
            !rig.recorder
                .records_where(|r| r.source == "keeper_waiting_inventory" && r.stage == stage)
                .is_empty(),
            "no {stage} record"
        );
    }
    rig.finish().await;
}

/// §15.8 fault: the Tools route failing is a typed failure of the waiting slot alone; the roster
/// beside it is observed as read.
#[tokio::test]
async fn s15_8_a_failed_tools_read_fails_only_the_waiting_slot() {
    let mut rig = rig_with(plan(
        r#"{"match":{"method":"GET","path":"/api/v1/dashboard/tools"},"when":{"every":true},"fault":{"status":500,"body":{"error":"snapshot locked"}}}"#,
    ))
    .await;
    let waiting = rig.observed_of::<_, WaitingObservation>(&SLOT).await;
    assert!(
        matches!(
            waiting.payload,
            WaitingObservation(Err(ClientError::Status { status: 500, .. }))
        ),
        "{:?}",
        waiting.payload
    );
    let roster = rig
        .observed_of::<_, KeepersObservation>(&KeepersSlot::Roster)
        .await;
    assert!(matches!(roster.payload, KeepersObservation::Roster(Ok(_))));
    let failed = rig.recorder.records_where(|r| {
        r.source == "keeper_waiting_inventory"
            && r.stage == "worker_return"
            && r.outcome.as_deref().is_some_and(|o| o.contains("500"))
    });
    assert!(!failed.is_empty(), "the failure is on the timeline");
    rig.finish().await;
}

/// §15.8 fault: a malformed Tools body is a decode failure of the slot, never an empty
/// inventory.
#[tokio::test]
async fn s15_8_a_malformed_body_is_a_decode_failure() {
    let mut rig = rig_with(plan(
        r#"{"match":{"method":"GET","path":"/api/v1/dashboard/tools"},"when":{"every":true},"fault":{"malformed":true}}"#,
    ))
    .await;
    let waiting = rig.observed_of::<_, WaitingObservation>(&SLOT).await;
    assert!(
        matches!(
            waiting.payload,
            WaitingObservation(Err(ClientError::Decode(_)))
        ),
        "{:?}",
        waiting.payload
    );
    rig.finish().await;
}

/// §15.8 fault: an older server's Tools body without the key is "not sent", a value of its own.
#[tokio::test]
async fn s15_8_the_key_absent_is_not_sent() {
    let rig = rig_with(FaultPlan::none()).await;
    set_waiting_script(
        rig.server.state(),
        WaitingScript {
            absent: true,
            ..WaitingScript::default()
        },
    )
    .await
    .unwrap();
    let mut rig = rig;
    // The first read may have left before the script: an explicit read answers it.
    let source = rig.source_handle(WAITING_INVENTORY).await;
    assert!(source.send_control(SourceControl::Demand(DemandKind::Explicit)));
    let not_sent = rig
        .view
        .wait_slot(
            |e: &masc_tui::actors::contract::SlotEvent<WaitingSlot, WaitingObservation>| {
                matches!(
                    e,
                    masc_tui::actors::contract::SlotEvent::Observed(_, WaitingObservation(Ok(a)))
                        if *a.value == WaitingInventoryRead::NotSent
                )
            },
        )
        .await;
    assert!(not_sent.is_some(), "no read answered not sent");
    rig.finish().await;
}
