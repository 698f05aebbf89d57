//! One record per Keeper (protocol.md §4.1, §9.5, §9.6, §14.7): the roster's
//! `meta.sandbox_profile`, the settings snapshot and the Keeper metadata report the same
//! instructions, sandbox, network and runtime — before and after a settings patch — so no
//! screen reading one of them can contradict another.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::server_support::*;

use reqwest::StatusCode;
use serde_json::{Value, json};

fn enc(name: &str) -> String {
    percent_encoding::utf8_percent_encode(name, percent_encoding::NON_ALPHANUMERIC).to_string()
}

/// What each route says about `keeper`: (roster sandbox, roster runtime) and the §9.5 and
/// §14.7 bodies.
async fn reports(s: &masc_tui::server::RunningServer, keeper: &str) -> (Value, Value, Value) {
    let (st, roster) = get(s, "/api/v1/gate/keepers?detailed=true").await;
    assert_eq!(st, StatusCode::OK);
    let row = roster["keepers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == keeper)
        .cloned()
        .unwrap();
    let (st, config) = get(s, &format!("/api/v1/keepers/{}/config", enc(keeper))).await;
    assert_eq!(st, StatusCode::OK, "{keeper}: {config}");
    let (st, status) = get(
        s,
        &format!("/api/v1/gate/keeper-status?name={}", enc(keeper)),
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{keeper}: {status}");
    (row, config, status)
}

fn agree(keeper: &str, row: &Value, config: &Value, status: &Value) {
    assert_eq!(
        row["meta"]["sandbox_profile"], config["sandbox_profile"],
        "{keeper}: roster sandbox"
    );
    assert_eq!(
        status["sandbox_profile"], config["sandbox_profile"],
        "{keeper}: metadata sandbox"
    );
    assert_eq!(
        status["network_mode"], config["network_mode"],
        "{keeper}: metadata network"
    );
    let instructions = config["prompt"]["instructions"].as_str().unwrap();
    match status["instructions"].as_str() {
        Some(text) => assert_eq!(text, instructions, "{keeper}: instructions"),
        None => assert_eq!(instructions, "", "{keeper}: none set on both"),
    }
    assert_eq!(
        row["runtime_id"], config["execution"]["selected_runtime_id"],
        "{keeper}: runtime"
    );
}

/// Every seeded Keeper whose metadata reads: the three routes agree.
#[tokio::test]
async fn every_seeded_keeper_reports_one_record_on_every_route() {
    let s = server().await;
    let (_, roster) = get(&s, "/api/v1/gate/keepers?detailed=true").await;
    let names: Vec<String> = roster["keepers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| !r["meta"].is_null())
        .map(|r| r["name"].as_str().unwrap().to_string())
        .collect();
    assert!(names.len() >= 6, "{names:?}");
    for keeper in &names {
        let (row, config, status) = reports(&s, keeper).await;
        agree(keeper, &row, &config, &status);
    }
    // The seed's own values, so the agreement is not one of three defaults.
    let (row, _, status) = reports(&s, "하늘").await;
    assert_eq!(row["meta"]["sandbox_profile"], "microvm");
    assert_eq!(status["network_mode"], "none");
    let (row, _, status) = reports(&s, "ops-bot").await;
    assert_eq!(row["meta"]["sandbox_profile"], "remote_ssh");
    assert_eq!(status["network_mode"], "inherit");
}

/// A §9.6 patch of instructions, sandbox and network shows on every route after it.
#[tokio::test]
async fn a_settings_patch_shows_on_the_roster_the_snapshot_and_the_metadata() {
    let s = server().await;
    let (_, before, _) = reports(&s, "rondo").await;
    let (st, after) = post(
        &s,
        "/api/v1/keepers/rondo/config",
        json!({
            "expected_config_revision": before["config_revision"],
            "instructions": "Only the nightly suite, please.",
            "sandbox_profile": "microvm",
            "network_mode": "inherit",
        }),
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{after}");
    let (row, config, status) = reports(&s, "rondo").await;
    agree("rondo", &row, &config, &status);
    assert_eq!(row["meta"]["sandbox_profile"], "microvm");
    assert_eq!(status["network_mode"], "inherit");
    assert_eq!(status["instructions"], "Only the nightly suite, please.");
}
