//! §14.11 routes of the embedded server (turn records, provider input) through plain reqwest,
//! decoded by the client's decoders: the seeded Keepers' turns, the limit clamp, the object
//! 404 of a turn without a kept snapshot, 400s, auth, and the route absent on MASC v0.24.0.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::server_support::{get, server};
use masc_tui::protocol::inspector::turn_records::RecordsHealth;
use masc_tui::protocol::inspector::{ProviderInput, TurnRecordsPage};
use masc_tui::protocol::routes::{NotFoundMeaning, RouteFamily, classify_404};
use masc_tui::server::compat::MascRelease;
use masc_tui::server::{ServeOptions, start};
use reqwest::StatusCode;

fn bytes(v: &serde_json::Value) -> Vec<u8> {
    serde_json::to_vec(v).unwrap()
}

#[tokio::test]
async fn s14_11_k14_seeded_records_decode_and_match_the_live_context() {
    let s = server().await;
    let (st, body) = get(&s, "/api/v1/keepers/rondo/turn-records").await;
    assert_eq!(st, StatusCode::OK);
    let page = TurnRecordsPage::decode_for(&bytes(&body), "rondo").unwrap();
    assert_eq!(page.records.len(), 12);
    assert_eq!(
        page.skipped_rows, 1,
        "the row cut mid-write is counted, not shown"
    );
    assert_eq!(
        page.health,
        RecordsHealth::Stale,
        "seeded turns are older than 900 s"
    );
    let latest = page.latest().unwrap();
    assert_eq!(latest.turn_ref, "trace-rondo#48");
    let (_, ctx) = get(&s, "/api/v1/keepers/rondo/context").await;
    assert_eq!(ctx["context"]["turn_ref"], "trace-rondo#48");
    assert_eq!(
        latest.request_body_bytes,
        ctx["context"]["request_body_bytes"].as_u64(),
        "/context reads one story"
    );
    assert_eq!(latest.input_tokens, Some(100_887));
    // K-14: the pinned Ask turns.
    assert!(page.record_of("trace-rondo#41").is_some());
    let (_, sangsu) = get(&s, "/api/v1/keepers/sangsu/turn-records").await;
    let sangsu = TurnRecordsPage::decode_for(&bytes(&sangsu), "sangsu").unwrap();
    assert!(
        sangsu.record_of("trace-sangsu#17").is_none(),
        "not on this page"
    );
    // 하늘: records without attribution.
    let (_, sky) = get(&s, "/api/v1/keepers/%ED%95%98%EB%8A%98/turn-records").await;
    let sky = TurnRecordsPage::decode_for(&bytes(&sky), "하늘").unwrap();
    assert!(sky.records.iter().all(|r| r.input_components.is_none()));
    // An unknown Keeper is an empty page, as MASC reads the store of any valid name.
    let (st, ghost) = get(&s, "/api/v1/keepers/ghost/turn-records").await;
    assert_eq!(st, StatusCode::OK);
    let ghost = TurnRecordsPage::decode_for(&bytes(&ghost), "ghost").unwrap();
    assert_eq!(ghost.health, RecordsHealth::Empty);
    assert_eq!(ghost.stale_reason.as_deref(), Some("no_entries"));
    s.shutdown().await;
}

#[tokio::test]
async fn s14_11_limit_clamps_1_to_500() {
    let s = server().await;
    let (_, body) = get(&s, "/api/v1/keepers/sangsu/turn-records?limit=0").await;
    assert_eq!(body["count"], 1);
    assert_eq!(body["entries"][0]["record"]["absolute_turn"], 180);
    let (_, body) = get(&s, "/api/v1/keepers/sangsu/turn-records?limit=3").await;
    assert_eq!(body["count"], 3);
    assert_eq!(
        body["entries"][0]["record"]["absolute_turn"], 178,
        "oldest first"
    );
    let (_, body) = get(&s, "/api/v1/keepers/sangsu/turn-records?limit=9999").await;
    assert_eq!(body["count"], 180, "clamped to 500: sangsu's whole history");
    let (_, body) = get(&s, "/api/v1/keepers/rondo/turn-records?limit=9999").await;
    assert_eq!(body["count"], 12);
    s.shutdown().await;
}

#[tokio::test]
async fn s14_11_provider_input_of_a_turn_and_the_object_404() {
    let s = server().await;
    let (st, body) = get(
        &s,
        "/api/v1/keepers/rondo/provider-input?turn_ref=trace-rondo%2348",
    )
    .await;
    assert_eq!(st, StatusCode::OK);
    let input = ProviderInput::decode_for(&bytes(&body), "rondo", "trace-rondo#48").unwrap();
    assert!(input.system_prompt.as_ref().unwrap().sha256_matches_text);
    let (_, records) = get(&s, "/api/v1/keepers/rondo/turn-records").await;
    let page = TurnRecordsPage::decode_for(&bytes(&records), "rondo").unwrap();
    let record = page.record_of("trace-rondo#48").unwrap();
    assert_eq!(Some(input.wire.body_bytes), record.request_body_bytes);
    let (sys, msgs, tools) = input.item_bytes();
    let components = record.input_components.as_ref().unwrap();
    let sum = |name: &str| {
        components
            .iter()
            .filter(|c| c.component.starts_with(name))
            .map(|c| c.bytes)
            .sum::<u64>()
    };
    assert_eq!(sum("prompt."), sys);
    assert_eq!(sum("tool_schemas"), tools);
    assert_eq!(sum("message_"), msgs);
    // The oldest two recorded turns kept no snapshot: an object 404 (the route is served).
    let (st, body) = get(
        &s,
        "/api/v1/keepers/rondo/provider-input?turn_ref=trace-rondo%2337",
    )
    .await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    assert_eq!(
        body["error"],
        "no provider-input snapshot for trace-rondo#37"
    );
    assert_eq!(
        classify_404(RouteFamily::ProviderInput, &bytes(&body)),
        NotFoundMeaning::ObjectNotFound
    );
    let (st, _) = get(&s, "/api/v1/keepers/rondo/provider-input").await;
    assert_eq!(st, StatusCode::BAD_REQUEST);
    let (st, _) = get(&s, "/api/v1/keepers/rondo/provider-input?turn_ref=x").await;
    assert_eq!(st, StatusCode::BAD_REQUEST);
    s.shutdown().await;
}

#[tokio::test]
async fn s14_11_auth_read_is_required() {
    let s = server().await;
    if s.token().is_some() {
        for path in [
            "/api/v1/keepers/rondo/turn-records",
            "/api/v1/keepers/rondo/provider-input?turn_ref=trace-rondo%2348",
        ] {
            let r = reqwest::Client::new()
                .get(format!("{}{}", s.base_url(), path))
                .header("X-MASC-Agent", "masc-tui")
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), StatusCode::UNAUTHORIZED, "{path}");
        }
    }
    s.shutdown().await;
}

#[tokio::test]
async fn s14_11_v0_24_0_serves_turn_records_but_not_provider_input() {
    let s = start(ServeOptions {
        compat: Some(MascRelease::V0_24_0),
        ..ServeOptions::default()
    })
    .await
    .unwrap();
    let (st, _) = get(&s, "/api/v1/keepers/rondo/turn-records").await;
    assert_eq!(st, StatusCode::OK);
    let (st, body) = get(
        &s,
        "/api/v1/keepers/rondo/provider-input?turn_ref=trace-rondo%2348",
    )
    .await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    assert_eq!(
        classify_404(RouteFamily::ProviderInput, &bytes(&body)),
        NotFoundMeaning::NotServed
    );
    s.shutdown().await;
}
