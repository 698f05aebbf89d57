//! The embedded server's side of a quiet idle: `/health` tagged by its identity
//! (a 304 while it holds, a held conditional probe woken by a change), and the response cache
//! of read routes (a conditional GET of unchanged data answered without the handler), which
//! never outlives a write, an identity change or a fault plan, and never skips a check the
//! route's guard makes (§1.3 auth, §2.2 expected root and receipts, §2.5 ETag/304).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use masc_tui::protocol::admission::{decode_root_header, encode_root_header};
use masc_tui::server::faults::FaultPlan;
use masc_tui::server::{RunningServer, ServeOptions, start};
use reqwest::StatusCode;
use serde_json::Value;
use std::time::Duration;

const ROSTER: &str = "/api/v1/gate/keepers";
const BOARD: &str = "/api/v1/board?limit=200&sort_by=recent";
const BOARD_POST: &str = "/api/v1/tools/masc_board_post";

async fn server() -> RunningServer {
    start(ServeOptions::default()).await.unwrap()
}

fn get(s: &RunningServer, path: &str) -> reqwest::RequestBuilder {
    let mut rb = reqwest::Client::new().get(format!("{}{}", s.base_url(), path));
    if let Some(t) = s.token() {
        rb = rb.bearer_auth(t);
    }
    rb.header("X-MASC-Agent", "masc-tui")
}

fn plan(rule: &str) -> FaultPlan {
    FaultPlan::from_json(&format!(r#"{{"rules":[{rule}]}}"#)).unwrap()
}

fn tag_of(r: &reqwest::Response) -> String {
    r.headers()["etag"].to_str().unwrap().to_string()
}

fn receipts(resp: &reqwest::Response) -> Vec<String> {
    resp.headers()
        .get_all("x-masc-workspace-receipt")
        .iter()
        .map(|v| decode_root_header(v.as_bytes()).unwrap())
        .collect()
}

/// §3: `/health` is tagged by its identity fields, not by the volatile `uptime`: a
/// conditional probe of an unchanged identity is a 304 (no body), and another identity is a
/// 200 with another tag and the new paths.
#[tokio::test]
async fn s3_health_is_tagged_by_identity_and_answers_304_while_it_holds() {
    let s = server().await;
    let r = get(&s, "/health").send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["x-masc-health-tag"], "identity");
    let tag = tag_of(&r);
    for _ in 0..3 {
        let r = get(&s, "/health")
            .header("If-None-Match", &tag)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::NOT_MODIFIED);
        assert_eq!(tag_of(&r), tag);
        assert!(r.bytes().await.unwrap().is_empty());
    }
    s.switch_workspace("/srv/other", "/srv/other/.masc");
    let r = get(&s, "/health")
        .header("If-None-Match", &tag)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_ne!(tag_of(&r), tag);
    let h: Value = r.json().await.unwrap();
    assert_eq!(h["paths"]["effective_base_path"], "/srv/other");
    s.shutdown().await;
}

/// §3: a conditional probe asking `Prefer: wait` is held while the identity holds,
/// and answered as soon as it changes: a 200 with the new identity, its tag and
/// `Preference-Applied`. (The timeout is a failsafe far below the 30 s the probe asked for:
/// without the wake-up the answer would come only when the hold ran out.)
#[tokio::test]
async fn s3_a_held_health_probe_answers_when_the_identity_changes() {
    let s = server().await;
    let tag = tag_of(&get(&s, "/health").send().await.unwrap());
    let before = s.request_count("GET", "/health");
    let held = tokio::spawn(
        get(&s, "/health")
            .header("If-None-Match", &tag)
            .header("Prefer", "wait=30")
            .send(),
    );
    // The server has the probe (it is counted on arrival) and holds it.
    while s.request_count("GET", "/health") == before {
        tokio::task::yield_now().await;
    }
    assert!(!held.is_finished(), "an unchanged identity is held");
    s.switch_workspace("/srv/other", "/srv/other/.masc");
    let r = tokio::time::timeout(Duration::from_secs(20), held)
        .await
        .expect("woken by the identity change (failsafe)")
        .unwrap()
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["preference-applied"], "wait=30");
    assert_ne!(tag_of(&r), tag);
    let h: Value = r.json().await.unwrap();
    assert_eq!(h["paths"]["effective_base_path"], "/srv/other");
    s.shutdown().await;
}

/// §3: a probe is never held without the client's current tag, nor when a fault fired on it.
#[tokio::test]
async fn s3_a_probe_without_the_current_tag_or_with_a_fault_is_answered_at_once() {
    let s = server().await;
    // No tag, or another one: the current identity at once.
    for tag in [None, Some("W/\"000000000000\"")] {
        let mut rb = get(&s, "/health").header("Prefer", "wait=30");
        if let Some(t) = tag {
            rb = rb.header("If-None-Match", t);
        }
        let r = tokio::time::timeout(Duration::from_secs(20), rb.send())
            .await
            .expect("answered at once (failsafe)")
            .unwrap();
        assert_eq!(r.status(), StatusCode::OK);
        assert!(r.headers().get("preference-applied").is_none());
    }
    let tag = tag_of(&get(&s, "/health").send().await.unwrap());
    s.set_faults(plan(
        r#"{"match":{"method":"GET","path":"/health"},"fault":{"status":503,"body":"down"}}"#,
    ));
    let r = tokio::time::timeout(
        Duration::from_secs(20),
        get(&s, "/health")
            .header("If-None-Match", &tag)
            .header("Prefer", "wait=30")
            .send(),
    )
    .await
    .expect("answered at once (failsafe)")
    .unwrap();
    assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE);
    s.shutdown().await;
}

/// §2.5: a cached read never outlives a write: after a board post the same
/// conditional GET is a 200 with a new tag and the new post, not the stored 304.
#[tokio::test]
async fn s2_5_a_cached_answer_never_outlives_a_write() {
    let s = server().await;
    let r = get(&s, BOARD).send().await.unwrap();
    let tag = tag_of(&r);
    let posts = r.json::<Value>().await.unwrap()["posts"]
        .as_array()
        .unwrap()
        .len();
    let r = get(&s, BOARD)
        .header("If-None-Match", &tag)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NOT_MODIFIED);
    let mut post = reqwest::Client::new().post(format!("{}{}", s.base_url(), BOARD_POST));
    if let Some(t) = s.token() {
        post = post.bearer_auth(t);
    }
    let r = post
        .header("X-MASC-Agent", "masc-tui")
        .json(&serde_json::json!({"title": "cache", "body": "after the tag"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let r = get(&s, BOARD)
        .header("If-None-Match", &tag)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_ne!(tag_of(&r), tag);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["posts"].as_array().unwrap().len(), posts + 1);
    s.shutdown().await;
}

/// §1.3, §2.2: a stored answer is given only to a request that passes the route's
/// own checks: without the token it is a 401, with another expected root a 409 (no receipt,
/// no tag); a 304 or 200 from the cache carries exactly one receipt, like the handler's.
#[tokio::test]
async fn s2_2_a_cached_answer_keeps_auth_expected_root_and_receipts() {
    let s = server().await;
    let r = get(&s, ROSTER).send().await.unwrap();
    let tag = tag_of(&r);
    let body = r.bytes().await.unwrap();
    let r = reqwest::Client::new()
        .get(format!("{}{}", s.base_url(), ROSTER))
        .header("X-MASC-Agent", "masc-tui")
        .header("If-None-Match", &tag)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED, "no token, no answer");
    let r = get(&s, ROSTER)
        .header("If-None-Match", &tag)
        .header(
            "X-MASC-Expected-Root",
            encode_root_header("/elsewhere/.masc"),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CONFLICT);
    assert!(r.headers().get("etag").is_none());
    assert!(receipts(&r).is_empty());
    let r = get(&s, ROSTER)
        .header("If-None-Match", &tag)
        .header("X-MASC-Expected-Root", encode_root_header(&s.masc_root()))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NOT_MODIFIED);
    assert_eq!(receipts(&r), vec![s.masc_root()]);
    let r = get(&s, ROSTER).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(tag_of(&r), tag);
    assert_eq!(receipts(&r), vec![s.masc_root()]);
    assert_eq!(
        r.bytes().await.unwrap(),
        body,
        "the stored body, byte for byte"
    );
    s.shutdown().await;
}

/// §13: a fault plan set after an answer was stored still fires on that route.
#[tokio::test]
async fn s13_a_fault_plan_fires_on_a_cached_route() {
    let s = server().await;
    let tag = tag_of(&get(&s, ROSTER).send().await.unwrap());
    s.set_faults(plan(
        r#"{"match":{"method":"GET","path":"/api/v1/gate/keepers"},"fault":{"status":500,"body":"roster store locked"}}"#,
    ));
    let r = get(&s, ROSTER)
        .header("If-None-Match", &tag)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::INTERNAL_SERVER_ERROR);
    s.set_faults(FaultPlan::none());
    let r = get(&s, ROSTER)
        .header("If-None-Match", &tag)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NOT_MODIFIED);
    s.shutdown().await;
}

/// §3: a server playing MASC without receipts keeps MASC's `/health`: a body-digest tag, no
/// identity advert, so a client never probes it conditionally.
#[tokio::test]
async fn s3_without_receipts_health_keeps_the_body_digest_tag_and_no_advert() {
    let s = start(ServeOptions {
        legacy_no_receipts: true,
        ..ServeOptions::default()
    })
    .await
    .unwrap();
    let r = get(&s, "/health").send().await.unwrap();
    assert!(r.headers().get("x-masc-health-tag").is_none());
    let tag = tag_of(&r);
    let body = r.bytes().await.unwrap();
    let digest = {
        use md5::Digest;
        hex::encode(md5::Md5::digest(&body))
    };
    assert_eq!(tag, format!("W/\"{}\"", &digest[..12]));
    s.shutdown().await;
}
