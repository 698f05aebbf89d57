//! The waiting inventory of the embedded server (protocol-15-operator.md §15.8): the
//! `keeper_waiting_inventory` key of `GET /api/v1/dashboard/tools` and the per-Keeper route,
//! computed from the seeded queues, and the scripted answers a real MASC can give (key absent,
//! Keeper list unreadable, a workspace read error, truncation at 64, an unknown source). Every
//! body is also read with the client's decoder.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code

use crate::server_support::{get, server};
use masc_tui::protocol::decode::WireDecode;
use masc_tui::protocol::waiting::{
    WaitState, WaitingInventory, WaitingInventoryRead, WaitingSource,
};
use masc_tui::server::compat::MascRelease;
use masc_tui::server::routes::tools::set_waiting_script;
use masc_tui::server::store::waiting::WaitingScript;
use masc_tui::server::{RunningServer, ServeOptions, start};
use serde_json::Value;

const TOOLS: &str = "/api/v1/dashboard/tools";

async fn inventory_of(s: &RunningServer) -> (Value, WaitingInventoryRead) {
    let (status, body) = get(s, TOOLS).await;
    assert_eq!(status, 200);
    let read = WaitingInventoryRead::decode(&serde_json::to_vec(&body).unwrap()).unwrap();
    (body, read)
}

fn sources(inv: &WaitingInventory, keeper: &str) -> Vec<WaitingSource> {
    inv.of(keeper)
        .unwrap()
        .decoded_rows()
        .map(|r| r.source.clone())
        .collect()
}

/// The seeded queues: Rondo's held calls wait for the operator, Scout's fusion holds it
/// (deferred), Sangsu's scheduled wake is due in the future, Mira's pending operator approval
/// waits on a confirm; the warming placeholder carries the same live inventory.
#[tokio::test]
async fn s15_8_the_inventory_is_computed_from_the_seeded_queues() {
    let s = server().await;
    let (warm, read) = inventory_of(&s).await;
    assert_eq!(
        warm["is_warming"], true,
        "the first read is the placeholder"
    );
    let inv = read
        .inventory()
        .expect("the warming body carries the inventory")
        .clone();
    let (settled, read) = inventory_of(&s).await;
    assert!(settled.get("is_warming").is_none());
    let settled_inv = read.inventory().unwrap();
    assert_eq!(inv.keepers.len(), settled_inv.keepers.len());
    assert_eq!(
        inv.schema.as_deref(),
        Some("masc.dashboard.keeper_waiting_inventory.v3")
    );
    assert!(inv.counts_exact());
    assert_eq!(inv.undecodable(), 0);
    let rondo_sources = sources(&inv, "rondo");
    assert_eq!(
        rondo_sources
            .iter()
            .filter(|s| **s == WaitingSource::HitlPending)
            .count(),
        2,
        "{rondo_sources:?}"
    );
    let rondo = inv.of("rondo").unwrap();
    assert_eq!(
        rondo.headline().unwrap().next_action,
        "operator_resolve_hitl"
    );
    assert!(
        rondo
            .headline()
            .unwrap()
            .what
            .as_deref()
            .unwrap()
            .contains("bash")
    );
    assert_eq!(inv.of("scout").unwrap().state, WaitState::Deferred);
    assert_eq!(sources(&inv, "scout"), vec![WaitingSource::FusionRunning]);
    let sangsu = inv.of("sangsu").unwrap();
    let wake = sangsu.headline().unwrap();
    assert_eq!(wake.source, WaitingSource::ScheduleWaiting);
    assert_eq!(wake.next_action, "wait_until_due");
    assert!(wake.due_at.unwrap() > wake.since.unwrap());
    assert!(sources(&inv, "mira").contains(&WaitingSource::OperatorPendingConfirm));
    // Keepers with nothing waiting are idle, never left out.
    assert_eq!(inv.of("beacon").unwrap().state, WaitState::Idle);
    assert!(inv.of("beacon").unwrap().rows.is_empty());
    // Approvals aimed at no Keeper are workspace-wide rows.
    assert!(
        inv.global_rows()
            .iter()
            .filter_map(|r| r.row())
            .all(|r| r.keeper_name.is_none())
    );
    let total: usize = inv
        .keepers
        .iter()
        .filter_map(|k| match k {
            masc_tui::protocol::waiting::KeeperSlot::Keeper(k) => Some(k.rows.len()),
            _ => None,
        })
        .sum();
    assert_eq!(inv.row_count, Some(total as u64));
    s.shutdown().await;
}

/// The per-Keeper route: one Keeper's body; an unknown name answers an idle Keeper with no rows
/// (MASC does not check the name exists); an invalid name is 400.
#[tokio::test]
async fn s15_8_the_per_keeper_route_answers_one_name() {
    let s = server().await;
    let (status, body) = get(&s, "/api/v1/keepers/rondo/waiting-inventory").await;
    assert_eq!(status, 200);
    let inv = WaitingInventory::decode_value(&body).unwrap();
    assert_eq!(inv.keepers.len(), 1);
    assert_eq!(
        sources(&inv, "rondo").len(),
        inv.of("rondo").unwrap().waiting_count.unwrap() as usize
    );
    let (status, body) = get(&s, "/api/v1/keepers/nobody/waiting-inventory").await;
    assert_eq!(status, 200);
    let inv = WaitingInventory::decode_value(&body).unwrap();
    assert_eq!(inv.of("nobody").unwrap().state, WaitState::Idle);
    let (status, _) = get(&s, "/api/v1/keepers/a%01b/waiting-inventory").await;
    assert_eq!(status, 400);
    s.shutdown().await;
}

/// §15.8 faults: the key absent (an older server: not sent, not "nothing waiting"); the Keeper
/// list unreadable; a workspace read error; truncation at 64; an unknown source.
#[tokio::test]
async fn s15_8_scripted_answers_decode_to_their_typed_values() {
    let s = server().await;
    let _ = inventory_of(&s).await;
    set_waiting_script(
        s.state(),
        WaitingScript {
            absent: true,
            ..WaitingScript::default()
        },
    )
    .await
    .unwrap();
    let (body, read) = inventory_of(&s).await;
    assert!(body.get("keeper_waiting_inventory").is_none());
    assert_eq!(read, WaitingInventoryRead::NotSent);

    set_waiting_script(
        s.state(),
        WaitingScript {
            keeper_list_unreadable: true,
            global_read_error: true,
            ..WaitingScript::default()
        },
    )
    .await
    .unwrap();
    let (_, read) = inventory_of(&s).await;
    let inv = read.inventory().unwrap();
    assert_eq!(inv.keeper_count_known, Some(false));
    assert!(inv.keepers.is_empty());
    assert!(!inv.counts_exact());
    let failed: Vec<&str> = inv
        .global_read_errors()
        .map(|r| r.waiting_on.as_str())
        .collect();
    assert_eq!(failed, vec!["keeper_meta_store", "schedule_store"]);

    set_waiting_script(
        s.state(),
        WaitingScript {
            truncate_keeper: Some("juno".into()),
            unknown_source_keeper: Some("beacon".into()),
            ..WaitingScript::default()
        },
    )
    .await
    .unwrap();
    let (_, read) = inventory_of(&s).await;
    let inv = read.inventory().unwrap();
    let juno = inv.of("juno").unwrap();
    let outside = juno
        .decoded_rows()
        .filter(|r| r.source == WaitingSource::ExternalAttention)
        .count();
    assert_eq!(outside, 64);
    assert_eq!(
        juno.truncated_sources,
        vec!["external_attention".to_string()]
    );
    assert!(!inv.counts_exact());
    assert_eq!(
        sources(inv, "beacon"),
        vec![WaitingSource::Unknown("teleport_queue".into())]
    );
    assert_eq!(inv.of("beacon").unwrap().state, WaitState::Waiting);
    s.shutdown().await;
}

/// MASC v0.24.0 writes the rows without the operator sentence `what` (MASC #29541 came after
/// the tag): the rows decode and read by their technical name.
#[tokio::test]
async fn s15_8_v0_24_0_rows_have_no_sentence() {
    let s = start(ServeOptions {
        compat: Some(MascRelease::V0_24_0),
        ..ServeOptions::default()
    })
    .await
    .unwrap();
    let _ = inventory_of(&s).await;
    let (_, read) = inventory_of(&s).await;
    let inv = read.inventory().unwrap();
    let row = inv.of("rondo").unwrap().headline().unwrap();
    assert_eq!(row.what, None);
    assert_eq!(row.sentence(), "bash");
    s.shutdown().await;
}
