#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! The Connectors source against the embedded server with fault plans (protocol.md §7.1,
//! §7.2; sources.md D-1, D-4, D-5, D-6). Assertions are on typed payloads and the stage trace;
//! synchronisation is by view messages and stage records only.

use crate::actor_support::{Rig, plan, rig_with};
use masc_tui::actors::connectors::NamesChain;
use masc_tui::actors::connectors::{ConnectorsObservation, ConnectorsSlot};
use masc_tui::actors::contract::SlotEvent;
use masc_tui::protocol::client::ClientError;
use masc_tui::server::faults::FaultPlan;
use std::sync::Arc;

type Event = SlotEvent<ConnectorsSlot, ConnectorsObservation>;

fn key(connector: &str, scope: &str) -> ConnectorsSlot {
    ConnectorsSlot::Names {
        connector: connector.into(),
        scope: scope.into(),
    }
}

/// Every admitted page of one chain so far, in arrival order (`Ok` chains and `Err` pages).
fn pages(rig: &mut Rig, k: &ConnectorsSlot) -> Vec<Result<Arc<NamesChain>, ClientError>> {
    rig.view
        .slot_events::<ConnectorsSlot, ConnectorsObservation>()
        .iter()
        .filter_map(|e| match e {
            SlotEvent::Observed(t, ConnectorsObservation::Names(read)) if t.slot == *k => {
                Some(read.result.clone().map(|a| a.value))
            }
            _ => None,
        })
        .collect()
}

/// Waits until the chain of `k` is complete or has failed.
async fn chain_settled(rig: &mut Rig, k: &ConnectorsSlot) {
    if pages(rig, k)
        .last()
        .is_some_and(|p| p.as_ref().map_or(true, |c| c.complete))
    {
        return;
    }
    let k2 = k.clone();
    rig.view
        .wait_slot(move |e: &Event| match e {
            SlotEvent::Observed(t, ConnectorsObservation::Names(read)) if t.slot == k2 => {
                read.result.as_ref().map_or(true, |a| a.value.complete)
            }
            _ => false,
        })
        .await
        .expect("chain settles");
}

/// D-5, D-1, D-4: the status list is delivered before any name page is even dispatched; each
/// chain follows the cursor its previous page returned, one page at a time, until
/// `has_more: false` (1,234 Discord channel names in three pages of 500).
#[tokio::test]
async fn d1_d5_status_first_then_each_chain_follows_its_cursor() {
    let mut rig = rig_with(FaultPlan::none()).await;
    let channel = key("discord", "channel");
    chain_settled(&mut rig, &channel).await;
    let status_observed = rig
        .recorder
        .records_where(|r| r.source == "connectors_status" && r.stage == "observe");
    let first_names_dispatch = rig
        .recorder
        .records_where(|r| r.source.starts_with("connector_names") && r.stage == "dispatch");
    assert!(
        status_observed[0].ts_us <= first_names_dispatch[0].ts_us,
        "D-5: status first"
    );
    let chain: Vec<Arc<NamesChain>> = pages(&mut rig, &channel)
        .into_iter()
        .map(|p| p.unwrap())
        .collect();
    assert_eq!(chain.len(), 3, "three pages of 500");
    assert_eq!(
        chain.iter().map(|c| c.pages_read).collect::<Vec<_>>(),
        [1, 2, 3]
    );
    let last = chain.last().unwrap();
    assert!(last.complete);
    assert_eq!(last.mappings.len(), 1234);
    assert!(
        last.mappings.windows(2).all(|w| w[0].id < w[1].id),
        "ids in order, no page merged twice"
    );
    // One page in flight per chain at a time: each page's dispatch follows the previous
    // page's observation.
    let stages = rig
        .recorder
        .records_where(|r| r.source == "connector_names:discord:channel");
    let order: Vec<&str> = stages
        .iter()
        .filter(|r| r.stage == "dispatch" || r.stage == "observe")
        .map(|r| r.stage.as_str())
        .collect();
    assert!(
        order.chunks(2).all(|p| p == ["dispatch", "observe"]),
        "{order:?}"
    );
    rig.finish().await;
}

/// D-6: a failed page ends only its chain and keeps the pages before it; sibling chains and
/// the status are untouched.
#[tokio::test]
async fn d6_a_failed_page_keeps_the_earlier_pages_and_the_siblings() {
    let mut rig = rig_with(plan(
        r#"{"match":{"method":"GET","path":"/api/v1/gate/connector/names","query":"scope=channel&limit=500&after_id="},"when":{"every":true},"fault":{"status":500,"body":{"error":"names store locked"}}}"#,
    ))
    .await;
    let channel = key("discord", "channel");
    let person = key("discord", "person");
    chain_settled(&mut rig, &channel).await;
    chain_settled(&mut rig, &person).await;
    let got = pages(&mut rig, &channel);
    assert_eq!(got.len(), 2, "page 1 admitted, page 2 failed");
    let first = got[0].as_ref().unwrap();
    assert_eq!((first.pages_read, first.mappings.len()), (1, 500));
    assert!(matches!(
        got[1],
        Err(ClientError::Status { status: 500, .. })
    ));
    let person_last = pages(&mut rig, &person).last().unwrap().clone().unwrap();
    assert!(person_last.complete && person_last.mappings.len() == 640);
    assert!(
        rig.view
            .slot_events::<ConnectorsSlot, ConnectorsObservation>()
            .iter()
            .any(|e| matches!(
                e,
                SlotEvent::Observed(_, ConnectorsObservation::Status(Ok(_)))
            ))
    );
    rig.finish().await;
}

/// The number of name-page dispatches recorded so far (every chain).
fn names_dispatches(rig: &Rig) -> usize {
    rig.recorder
        .records_where(|r| r.source.starts_with("connector_names") && r.stage == "dispatch")
        .len()
}

/// Waits for the next admitted status list no earlier wait looked at.
async fn next_status(rig: &mut Rig) {
    rig.view
        .wait_slot(|e: &Event| {
            matches!(
                e,
                SlotEvent::Observed(_, ConnectorsObservation::Status(Ok(_)))
            )
        })
        .await
        .expect("a status list");
}

/// D-5, D-14 (a quiet idle): a cadence status read of an unchanged status (same
/// connectors, same bindings) leaves the admitted name chains standing — no name page is read
/// again — while the operator's explicit refresh reads the names again.
#[tokio::test]
async fn d5_an_unchanged_status_does_not_reread_the_names_but_a_refresh_does() {
    use masc_tui::actors::contract::{DemandKind, SourceControl};
    let mut rig = rig_with(FaultPlan::none()).await;
    for scope in ["server", "channel", "person"] {
        chain_settled(&mut rig, &key("discord", scope)).await;
    }
    let settled = names_dispatches(&rig);
    assert!(settled >= 3, "every chain read: {settled}");
    let handle = rig
        .source_handle(masc_tui::actors::connectors::CONNECTORS)
        .await;
    for _ in 0..2 {
        handle.send_control(SourceControl::Demand(DemandKind::Cadence));
        next_status(&mut rig).await;
    }
    // Dispatches follow a status in the same turn of the source, before its next status
    // read: two more statuses were observed and no name page was dispatched.
    assert_eq!(names_dispatches(&rig), settled, "names not re-read");
    handle.send_control(SourceControl::Demand(DemandKind::Explicit));
    next_status(&mut rig).await;
    rig.dispatched_of::<ConnectorsSlot, ConnectorsObservation>(&key("discord", "channel"))
        .await;
    assert!(
        names_dispatches(&rig) > settled,
        "a refresh reads the names again"
    );
    rig.finish().await;
}
