//! Keeper detail routes of the embedded server (protocol.md §14.7 metadata, §14.8 Live
//! Context, §14.9 metrics tail) through plain reqwest: shapes, errors per section, the limit
//! clamp, and the seeded diagnostics (a malformed line and another Keeper's line, N-7).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::server_support::{get, server};
use masc_tui::protocol::keeper_detail::{KeeperStatus, LiveContext, MetricsRowKind, MetricsTail};
use reqwest::StatusCode;

#[tokio::test]
async fn s14_7_metadata_owns_the_context_and_errors_use_the_gate_envelope() {
    let s = server().await;
    let (st, body) = get(&s, "/api/v1/gate/keeper-status?name=rondo").await;
    assert_eq!(st, StatusCode::OK);
    let status = KeeperStatus::decode_for(&serde_json::to_vec(&body).unwrap(), "rondo").unwrap();
    let (st, body) = get(&s, "/api/v1/keepers/rondo/context").await;
    assert_eq!(st, StatusCode::OK);
    let live = LiveContext::decode_for(&serde_json::to_vec(&body).unwrap(), "rondo").unwrap();
    assert_eq!(status.context_owner(), live.owner(), "L-2");
    let (st, body) = get(&s, "/api/v1/gate/keeper-status?name=ghost").await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    assert_eq!(body["ok"], false);
    assert_eq!(body["error"], "unknown keeper: ghost");
    let (st, body) = get(&s, "/api/v1/gate/keeper-status").await;
    assert_eq!(
        (st, body["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("name is required"))
    );
    // juno's metadata is unreadable: the status tool fails (502), the context route 500.
    let (st, _) = get(&s, "/api/v1/gate/keeper-status?name=juno").await;
    assert_eq!(st, StatusCode::BAD_GATEWAY);
    let (st, _) = get(&s, "/api/v1/keepers/juno/context").await;
    assert_eq!(st, StatusCode::INTERNAL_SERVER_ERROR);
    s.shutdown().await;
}

#[tokio::test]
async fn s14_8_s14_9_unknown_keeper_404_and_an_unreadable_store_is_metrics_read_failed() {
    let s = server().await;
    for path in [
        "/api/v1/keepers/ghost/context",
        "/api/v1/keepers/ghost/metrics-tail",
    ] {
        let (st, body) = get(&s, path).await;
        assert_eq!(st, StatusCode::NOT_FOUND, "{path}");
        assert_eq!(body["error"], "keeper \"ghost\" not found");
    }
    let (st, body) = get(&s, "/api/v1/keepers/juno/metrics-tail").await;
    assert_eq!(st, StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(body["error"], "metrics_read_failed");
    assert!(body["detail"].is_string());
    let (st, body) = get(&s, "/api/v1/keepers/%20/context").await;
    assert_eq!(st, StatusCode::BAD_REQUEST);
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .starts_with("invalid keeper name")
    );
    s.shutdown().await;
}

#[tokio::test]
async fn s14_9_the_limit_clamps_and_rows_keep_their_window_slots() {
    let s = server().await;
    let (st, body) = get(&s, "/api/v1/keepers/sangsu/metrics-tail?limit=999").await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(body["limit"], 200);
    assert_eq!(body["rows"].as_array().unwrap().len(), 200);
    let (_, body) = get(&s, "/api/v1/keepers/sangsu/metrics-tail?limit=0").await;
    assert_eq!(body["limit"], 1);
    let (_, body) = get(&s, "/api/v1/keepers/rondo/metrics-tail").await;
    let tail = MetricsTail::decode_for(&serde_json::to_vec(&body).unwrap(), "rondo").unwrap();
    assert!(
        tail.rows
            .iter()
            .any(|r| matches!(r.kind, MetricsRowKind::Malformed(_)))
    );
    assert!(
        tail.rows
            .iter()
            .any(|r| matches!(r.kind, MetricsRowKind::OtherKeeper(_)))
    );
    let (_, body) = get(&s, "/api/v1/keepers/mira/metrics-tail").await;
    assert_eq!(
        body["rows"],
        serde_json::json!([]),
        "a real no-records store"
    );
    let (_, body) = get(
        &s,
        "/api/v1/keepers/%ED%95%98%EB%8A%98/metrics-tail?limit=3",
    )
    .await;
    assert_eq!(body["keeper"], "하늘");
    assert_eq!(body["rows"].as_array().unwrap().len(), 3);
    s.shutdown().await;
}

#[tokio::test]
async fn s14_4_the_dashboard_gate_decodes() {
    use masc_tui::protocol::decode::WireDecode;
    use masc_tui::protocol::keeper_detail::DashboardGate;
    let s = server().await;
    let (st, body) = get(&s, "/api/v1/dashboard/gate").await;
    assert_eq!(st, StatusCode::OK);
    let gate = DashboardGate::decode(&serde_json::to_vec(&body).unwrap()).unwrap();
    assert_eq!(gate.status_words(), "gate: Auto Judge");
    s.shutdown().await;
}
