#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! The Connectors source's write demand (sources.md D-10…D-14): what a settled binding write
//! asks of the status read and the name chains, on the embedded server's fault plans. The
//! assertions are on the order of the view's messages (typed tickets) and the stage trace.

use crate::tools_rig::{ConnectorsMsg as ViewMsg, ConnectorsRig, connectors_rig};
use crate::work_rig::plan;
use masc_tui::actors::connectors::ConnectorsCommand;
use masc_tui::actors::connectors::{CONNECTORS, ConnectorsObservation, ConnectorsSlot};
use masc_tui::actors::contract::{DemandKind, SlotEvent, SourceControl};

const STATUS: &str = "/api/v1/gate/connectors";
const NAMES: &str = "/api/v1/gate/connector/names";

fn is_names_dispatch(m: &ViewMsg) -> bool {
    matches!(m, ViewMsg::Slot(SlotEvent::Dispatched(t)) if matches!(t.slot, ConnectorsSlot::Names { .. }))
}

async fn written(rig: &mut ConnectorsRig) {
    rig.handle(CONNECTORS)
        .await
        .commands::<ConnectorsCommand>()
        .expect("the Connectors source takes its commands")
        .send_message(ConnectorsCommand::BindingWritten)
        .unwrap();
}

/// D-10, D-12: a write while the status read is pending merges its demand: that (older)
/// status is still delivered, but no name chain starts from it; a new status read follows,
/// and only its answer starts the chains.
#[tokio::test]
async fn d10_d12_a_write_during_a_pending_status_merges_and_is_not_consumed_by_it() {
    let mut rig = connectors_rig(plan(&format!(
        r#"{{"match":{{"method":"GET","path":"{STATUS}"}},"when":{{"nth":1}},"fault":{{"delay_ms":800}}}}"#
    )))
    .await;
    let first = rig.dispatched(&ConnectorsSlot::Status).await;
    written(&mut rig).await;
    rig.observed_ticket(&first).await;
    let second = rig.dispatched(&ConnectorsSlot::Status).await;
    assert!(second.generation > first.generation);
    // Nothing of the name work started between the old answer and the new read.
    let seen = &rig.log.seen;
    let old_at = seen
        .iter()
        .position(|m| matches!(m, ViewMsg::Slot(SlotEvent::Observed(t, _)) if *t == first))
        .unwrap();
    let new_at = seen
        .iter()
        .position(|m| matches!(m, ViewMsg::Slot(SlotEvent::Dispatched(t)) if *t == second))
        .unwrap();
    assert!(
        !seen[..new_at].iter().any(is_names_dispatch),
        "names started from the old status"
    );
    assert!(old_at < new_at);
    rig.observed_ticket(&second).await;
    rig.wait(is_names_dispatch).await;
    assert_eq!(rig.server.request_count("GET", STATUS), 2);
    rig.finish().await;
}

/// D-11: a write while names are being read withdraws only the name observation at once
/// (its reads are retired without waiting for the slow pages); the status is read again and
/// its answer starts fresh chains.
#[tokio::test]
async fn d11_a_write_during_name_reading_withdraws_only_the_names() {
    let mut rig = connectors_rig(plan(&format!(
        r#"{{"match":{{"method":"GET","path":"{NAMES}"}},"when":{{"first":6}},"fault":{{"delay_ms":3000}}}}"#
    )))
    .await;
    let status = rig.dispatched(&ConnectorsSlot::Status).await;
    rig.observed_ticket(&status).await;
    let names = match rig.wait(is_names_dispatch).await {
        ViewMsg::Slot(SlotEvent::Dispatched(t)) => t,
        _ => unreachable!(),
    };
    written(&mut rig).await;
    rig.retired(&names).await;
    let names_stages = rig.stage_names(&names);
    assert!(
        names_stages.contains(&"retire".to_string()),
        "{names_stages:?}"
    );
    assert!(
        !names_stages.contains(&"observe".to_string()),
        "{names_stages:?}"
    );
    let again = rig.dispatched(&ConnectorsSlot::Status).await;
    assert!(again.generation > status.generation);
    rig.observed_ticket(&again).await;
    // The status slot itself was never retired by the write.
    assert!(!rig.stage_names(&status).contains(&"retire".to_string()));
    rig.finish().await;
}

/// D-14, D-12: a failed follow-up status read keeps the demand without looping (no new
/// status read until the next demand); the next cadence read serves it and starts the chains.
#[tokio::test]
async fn d14_a_failed_follow_up_keeps_the_demand_without_looping() {
    let mut rig = connectors_rig(plan(&format!(
        r#"{{"match":{{"method":"GET","path":"{STATUS}"}},"when":{{"nth":2}},"fault":{{"status":500,"body":{{"error":"gate busy"}}}}}}"#
    )))
    .await;
    let first = rig.dispatched(&ConnectorsSlot::Status).await;
    rig.observed_ticket(&first).await;
    written(&mut rig).await;
    let follow = rig.dispatched(&ConnectorsSlot::Status).await;
    let failed = rig.observed_ticket(&follow).await;
    assert!(matches!(failed, ConnectorsObservation::Status(Err(_))));
    // No loop: nothing more is dispatched by itself. A round trip through the source's
    // mailbox (a cadence demand) shows what it does next.
    assert_eq!(rig.dispatches_of(&ConnectorsSlot::Status), 2);
    assert!(
        rig.handle(CONNECTORS)
            .await
            .send_control(SourceControl::Demand(DemandKind::Cadence))
    );
    let third = rig.dispatched(&ConnectorsSlot::Status).await;
    rig.observed_ticket(&third).await;
    rig.wait(is_names_dispatch).await;
    assert_eq!(rig.server.request_count("GET", STATUS), 3);
    rig.finish().await;
}
