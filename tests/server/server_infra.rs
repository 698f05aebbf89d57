//! Embedded server infrastructure through plain reqwest: receipts (§2.2), ETag/304 (§2.5),
//! auth (§1.3), warming (§1.4), /health (§3) and the common fault actions (§13).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use masc_tui::protocol::admission::{decode_root_header, encode_root_header};
use masc_tui::server::faults::{
    DropPoint, Fault, FaultPlan, FaultRule, ReceiptFault, RuleMatch, When,
};
use masc_tui::server::{AuthMode, RunningServer, ServeOptions, ServerError, start};
use reqwest::StatusCode;
use serde_json::Value;

const ROSTER: &str = "/api/v1/gate/keepers";

async fn server() -> RunningServer {
    start(ServeOptions::default()).await.unwrap()
}

fn client() -> reqwest::Client {
    reqwest::Client::new()
}

fn get(s: &RunningServer, path: &str) -> reqwest::RequestBuilder {
    let mut rb = client().get(format!("{}{}", s.base_url(), path));
    if let Some(t) = s.token() {
        rb = rb.bearer_auth(t);
    }
    rb.header("X-MASC-Agent", "masc-tui")
}

fn receipts(resp: &reqwest::Response) -> Vec<String> {
    resp.headers()
        .get_all("x-masc-workspace-receipt")
        .iter()
        .map(|v| decode_root_header(v.as_bytes()).unwrap())
        .collect()
}

fn rule(method: &str, path: &str, when: When, fault: Fault) -> FaultPlan {
    FaultPlan::single(FaultRule::new(method, path, when, fault))
}

#[tokio::test]
async fn health_serves_identity_boot_and_receipt_advert_s3() {
    let s = start(ServeOptions {
        boot_delay_reads: 2,
        ..ServeOptions::default()
    })
    .await
    .unwrap();
    let mut ready = Vec::new();
    for _ in 0..3 {
        let h: Value = client()
            .get(format!("{}/health", s.base_url()))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(h["paths"]["effective_base_path"], s.base_path().as_str());
        assert_eq!(h["paths"]["effective_masc_root"], s.masc_root().as_str());
        assert_eq!(s.masc_root(), format!("{}/.masc", s.base_path()));
        assert_eq!(h["admission"]["receipts"], true);
        assert_eq!(h["status"], "ok");
        assert!(h["version"].is_string() && h["uptime"].is_string());
        ready.push(h["startup"]["state_ready"].as_bool().unwrap());
    }
    assert_eq!(ready, vec![false, false, true]);
    s.shutdown().await;
}

#[tokio::test]
async fn warming_while_booting_dashboard_200_other_503_s1_4() {
    let s = start(ServeOptions {
        boot_delay_reads: 1,
        ..ServeOptions::default()
    })
    .await
    .unwrap();
    let r = get(&s, "/api/v1/dashboard/planning").send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(receipts(&r), vec![s.masc_root()]);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["status"], "initializing");
    assert_eq!(body["message"], "Server is warming up");
    let r = get(&s, ROSTER).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(r.json::<Value>().await.unwrap()["error"], "not initialized");
    // The one boot read of /health ends the boot phase.
    client()
        .get(format!("{}/health", s.base_url()))
        .send()
        .await
        .unwrap();
    let r = get(&s, ROSTER).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    s.shutdown().await;
}

#[tokio::test]
async fn every_2xx_and_304_carries_exactly_one_receipt_s2_2() {
    let s = server().await;
    let r = get(&s, ROSTER)
        .header("X-MASC-Expected-Root", encode_root_header(&s.masc_root()))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(receipts(&r), vec![s.masc_root()]);
    let tag = r.headers()["etag"].to_str().unwrap().to_string();
    // Without the expected-root header (another client): still served with the receipt.
    let r = get(&s, ROSTER).send().await.unwrap();
    assert_eq!(receipts(&r), vec![s.masc_root()]);
    let r = get(&s, ROSTER)
        .header("If-None-Match", &tag)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NOT_MODIFIED);
    assert_eq!(receipts(&r), vec![s.masc_root()]);
    // /health is not a workspace read: no receipt.
    let r = client()
        .get(format!("{}/health", s.base_url()))
        .send()
        .await
        .unwrap();
    assert!(receipts(&r).is_empty());
    s.shutdown().await;
}

#[tokio::test]
async fn receipt_encoding_escapes_non_ascii_roots_s2_2_5() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("작업 공간");
    let s = start(ServeOptions {
        data_dir: Some(ws),
        ..ServeOptions::default()
    })
    .await
    .unwrap();
    assert!(s.masc_root().contains("작업 공간"));
    let r = get(&s, ROSTER)
        .header("X-MASC-Expected-Root", encode_root_header(&s.masc_root()))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let raw = r.headers()["x-masc-workspace-receipt"].as_bytes();
    assert!(raw.iter().all(|b| (0x21..=0x7E).contains(b)));
    assert_eq!(decode_root_header(raw).unwrap(), s.masc_root());
    s.shutdown().await;
}

#[tokio::test]
async fn expected_root_mismatch_is_409_without_receipt_or_etag_s2_2() {
    let s = server().await;
    let r = get(&s, ROSTER)
        .header(
            "X-MASC-Expected-Root",
            encode_root_header("/elsewhere/.masc"),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CONFLICT);
    assert!(receipts(&r).is_empty());
    assert!(r.headers().get("etag").is_none());
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["error"], "workspace_mismatch");
    assert_eq!(body["expected_root"], "/elsewhere/.masc");
    assert_eq!(body["served_root"], s.masc_root().as_str());
    s.shutdown().await;
}

#[tokio::test]
async fn switch_workspace_changes_health_and_receipts_s13_health() {
    let s = server().await;
    let old = s.masc_root();
    s.switch_workspace("/srv/other", "/srv/other/.masc");
    let h: Value = client()
        .get(format!("{}/health", s.base_url()))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(h["paths"]["effective_base_path"], "/srv/other");
    let r = get(&s, ROSTER)
        .header("X-MASC-Expected-Root", encode_root_header(&old))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CONFLICT);
    let r = get(&s, ROSTER).send().await.unwrap();
    assert_eq!(receipts(&r), vec!["/srv/other/.masc".to_string()]);
    s.shutdown().await;
}

#[tokio::test]
async fn etag_is_weak_md5_of_body_and_304_needs_exact_match_s2_5() {
    let s = server().await;
    let r = get(&s, ROSTER).send().await.unwrap();
    let tag = r.headers()["etag"].to_str().unwrap().to_string();
    assert_eq!(r.headers()["cache-control"], "no-cache");
    let body = r.bytes().await.unwrap();
    let digest = {
        use md5::Digest;
        hex::encode(md5::Md5::digest(&body))
    };
    assert_eq!(tag, format!("W/\"{}\"", &digest[..12]));

    let r = get(&s, ROSTER)
        .header("If-None-Match", format!("  {tag} "))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NOT_MODIFIED, "trimmed exact match");
    assert_eq!(r.headers()["etag"].to_str().unwrap(), tag);
    assert_eq!(r.headers()["cache-control"], "no-cache");
    assert_eq!(r.headers()["content-length"], "0");
    assert!(r.bytes().await.unwrap().is_empty());

    for not_exact in [
        format!("{tag}, W/\"000000000000\""),
        "*".to_string(),
        tag.trim_start_matches("W/").to_string(),
    ] {
        let r = get(&s, ROSTER)
            .header("If-None-Match", not_exact.as_str())
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::OK, "{not_exact}");
    }
    s.shutdown().await;
}

#[tokio::test]
async fn auth_401_flow_with_token_and_no_auth_mode_s1_3() {
    let s = start(ServeOptions {
        auth: AuthMode::Token("sekret".into()),
        ..ServeOptions::default()
    })
    .await
    .unwrap();
    let url = format!("{}{}", s.base_url(), ROSTER);
    let r = client().get(&url).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(r.headers()["www-authenticate"], "Bearer");
    assert!(receipts(&r).is_empty());
    let b: Value = r.json().await.unwrap();
    assert_eq!(b["auth_error_code"], "missing_token");
    assert!(b["error"].is_string());
    let r = client()
        .get(&url)
        .bearer_auth("wrong")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(
        r.json::<Value>().await.unwrap()["auth_error_code"],
        "invalid_token"
    );
    let r = client()
        .get(&url)
        .header("Authorization", "Basic c2VrcmV0")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED, "non-Bearer is 401");
    // Auth first: a wrong root with a missing token is 401, not 409.
    let r = client()
        .get(&url)
        .header("X-MASC-Expected-Root", "/nope")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    let r = client()
        .get(&url)
        .bearer_auth("sekret")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    // Public routes need no token.
    let r = client()
        .get(format!("{}/health", s.base_url()))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    s.shutdown().await;

    let open = start(ServeOptions {
        auth: AuthMode::NoAuth,
        ..ServeOptions::default()
    })
    .await
    .unwrap();
    assert_eq!(open.token(), None);
    let r = client()
        .get(format!("{}{}", open.base_url(), ROSTER))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    open.shutdown().await;
}

#[tokio::test]
async fn non_loopback_host_is_refused() {
    let err = start(ServeOptions {
        host: "0.0.0.0".parse().unwrap(),
        ..ServeOptions::default()
    })
    .await
    .err()
    .unwrap();
    assert!(matches!(err, ServerError::NonLoopback(_)));
}

#[tokio::test]
async fn fault_status_and_malformed_and_receipt_variants_s13() {
    let s = server().await;
    s.set_faults(rule(
        "GET",
        ROSTER,
        When::Nth { nth: 1 },
        Fault::Status {
            status: 502,
            body: Some(serde_json::json!({"error": "upstream"})),
        },
    ));
    let r = get(&s, ROSTER).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::BAD_GATEWAY);
    assert_eq!(r.json::<Value>().await.unwrap()["error"], "upstream");
    assert_eq!(
        get(&s, ROSTER).send().await.unwrap().status(),
        StatusCode::OK
    );

    s.set_faults(rule(
        "GET",
        ROSTER,
        When::Every { every: true },
        Fault::Malformed { malformed: true },
    ));
    let r = get(&s, ROSTER).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(receipts(&r), vec![s.masc_root()]);
    assert!(serde_json::from_slice::<Value>(&r.bytes().await.unwrap()).is_err());

    for (fault, expect) in [
        (ReceiptFault::Missing, vec![]),
        (ReceiptFault::Duplicate, vec![s.masc_root(), s.masc_root()]),
    ] {
        s.set_faults(rule(
            "GET",
            ROSTER,
            When::Every { every: true },
            Fault::Receipt { receipt: fault },
        ));
        let r = get(&s, ROSTER).send().await.unwrap();
        assert_eq!(receipts(&r), expect, "{fault:?} on 200");
        let tag = r.headers()["etag"].to_str().unwrap().to_string();
        let r = get(&s, ROSTER)
            .header("If-None-Match", tag)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::NOT_MODIFIED);
        assert_eq!(receipts(&r), expect, "{fault:?} on 304");
    }
    s.set_faults(rule(
        "GET",
        ROSTER,
        When::Every { every: true },
        Fault::Receipt {
            receipt: ReceiptFault::Wrong,
        },
    ));
    let r = get(&s, ROSTER).send().await.unwrap();
    let got = receipts(&r);
    assert_eq!(got.len(), 1);
    assert_ne!(got[0], s.masc_root());
    s.shutdown().await;
}

#[tokio::test]
async fn fault_truncate_gives_a_transport_error_mid_body_s13() {
    let s = server().await;
    s.set_faults(rule(
        "GET",
        ROSTER,
        When::Every { every: true },
        Fault::Truncate { truncate_at: 20 },
    ));
    let r = get(&s, ROSTER).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert!(r.bytes().await.is_err(), "body must fail, not end cleanly");
    s.shutdown().await;
}

#[tokio::test]
async fn fault_drop_on_read_closes_without_response_s13() {
    let s = server().await;
    s.set_faults(rule(
        "GET",
        ROSTER,
        When::Nth { nth: 1 },
        Fault::Drop {
            drop: DropPoint::AfterApply,
        },
    ));
    let err = get(&s, ROSTER).send().await.err().unwrap();
    assert!(!err.is_status() && err.status().is_none(), "{err:?}");
    // The next request is served again.
    assert_eq!(
        get(&s, ROSTER).send().await.unwrap().status(),
        StatusCode::OK
    );
    assert_eq!(s.request_count("GET", ROSTER), 2);
    s.shutdown().await;
}

#[tokio::test]
async fn fault_delay_holds_the_response_s13() {
    let s = server().await;
    s.set_faults(rule(
        "GET",
        ROSTER,
        When::Nth { nth: 1 },
        Fault::Delay { delay_ms: 3_000 },
    ));
    // A client giving up long before the delay ends sees a timeout, not an answer.
    let err = get(&s, ROSTER)
        .timeout(std::time::Duration::from_millis(150))
        .send()
        .await
        .err()
        .unwrap();
    assert!(err.is_timeout(), "{err:?}");
    s.shutdown().await;
}

#[tokio::test]
async fn fault_stale_304_answers_304_for_any_tag_s13() {
    let s = server().await;
    s.set_faults(rule(
        "GET",
        ROSTER,
        When::Every { every: true },
        Fault::Stale304 { stale_304: true },
    ));
    let r = get(&s, ROSTER)
        .header("If-None-Match", "W/\"000000000000\"")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NOT_MODIFIED);
    assert_eq!(receipts(&r), vec![s.masc_root()]);
    // Without a tag there is nothing to be stale against.
    assert_eq!(
        get(&s, ROSTER).send().await.unwrap().status(),
        StatusCode::OK
    );
    s.shutdown().await;
}

#[tokio::test]
async fn nth_every_probability_are_deterministic_over_http() {
    let s = server().await;
    let fault = Fault::Status {
        status: 500,
        body: None,
    };
    let pattern = |s: &RunningServer, when: When| {
        s.set_faults(rule("GET", ROSTER, when, fault.clone()));
        let s_url = format!("{}{}", s.base_url(), ROSTER);
        let token = s.token();
        async move {
            let mut out = Vec::new();
            for _ in 0..20 {
                let mut rb = client().get(&s_url);
                if let Some(t) = &token {
                    rb = rb.bearer_auth(t);
                }
                out.push(rb.send().await.unwrap().status() == StatusCode::INTERNAL_SERVER_ERROR);
            }
            out
        }
    };
    let nth = pattern(&s, When::Nth { nth: 3 }).await;
    assert_eq!(
        nth.iter()
            .enumerate()
            .filter(|(_, b)| **b)
            .map(|(i, _)| i)
            .collect::<Vec<_>>(),
        vec![2]
    );
    assert!(
        pattern(&s, When::Every { every: true })
            .await
            .iter()
            .all(|b| *b)
    );
    let p = When::Probability {
        probability: 0.5,
        seed: 11,
    };
    let a = pattern(&s, p.clone()).await;
    let b = pattern(&s, p).await;
    assert_eq!(a, b, "set_faults restarts the seeded RNG");
    assert!(a.iter().any(|x| *x) && a.iter().any(|x| !*x));
    s.shutdown().await;
}

#[tokio::test]
async fn query_substring_narrows_a_rule() {
    let s = server().await;
    s.set_faults(FaultPlan::single(FaultRule {
        matcher: RuleMatch {
            method: Some("GET".into()),
            path: Some(ROSTER.into()),
            query: Some("limit=1".into()),
        },
        when: When::Every { every: true },
        fault: Fault::Status {
            status: 418,
            body: None,
        },
    }));
    assert_eq!(
        get(&s, ROSTER).send().await.unwrap().status(),
        StatusCode::OK
    );
    assert_eq!(
        get(&s, &format!("{ROSTER}?limit=1"))
            .send()
            .await
            .unwrap()
            .status(),
        StatusCode::IM_A_TEAPOT
    );
    s.shutdown().await;
}

#[tokio::test]
async fn admin_routes_replace_faults_and_count_requests_in_test_mode() {
    let s = start(ServeOptions {
        test_mode: true,
        ..ServeOptions::default()
    })
    .await
    .unwrap();
    let token = s.token().unwrap();
    let plan = r#"{"rules":[{"match":{"method":"GET","path":"/api/v1/gate/keepers"},"when":{"nth":1},"fault":{"status":503,"body":"{\"error\":\"down\"}"}}]}"#;
    let r = client()
        .post(format!("{}/__admin/faults", s.base_url()))
        .bearer_auth(&token)
        .header("Content-Type", "application/json")
        .body(plan)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(
        get(&s, ROSTER).send().await.unwrap().status(),
        StatusCode::SERVICE_UNAVAILABLE
    );
    let r = client()
        .post(format!("{}/__admin/faults", s.base_url()))
        .bearer_auth(&token)
        .header("Content-Type", "application/json")
        .body("{\"rules\":[{\"bogus\":1}]}")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    let counts: Value = client()
        .get(format!("{}/__admin/requests", s.base_url()))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let row = counts["requests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["path"] == ROSTER)
        .unwrap();
    assert_eq!(row["count"], 1);
    s.shutdown().await;

    let plain = server().await;
    let r = client()
        .post(format!("{}/__admin/faults", plain.base_url()))
        .bearer_auth(plain.token().unwrap())
        .header("Content-Type", "application/json")
        .body("{\"rules\":[]}")
        .send()
        .await
        .unwrap();
    assert_eq!(
        r.status(),
        StatusCode::NOT_FOUND,
        "admin routes need --test-mode"
    );
    plain.shutdown().await;
}

// ---------------------------------------------------------------------------------------
// No web page can drive the server (docs/security.md), in every mode.

const BOARD_POST: &str = "/api/v1/tools/masc_board_post";
const CHAT_STREAM: &str = "/api/v1/keepers/chat/stream";
const OPERATOR: &str = "/api/v1/operator?view=summary&include_messages=0&include_keepers=0";

async fn no_auth_server() -> RunningServer {
    start(ServeOptions {
        auth: AuthMode::NoAuth,
        test_mode: true,
        ..ServeOptions::default()
    })
    .await
    .unwrap()
}

fn raw(s: &RunningServer, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
    let mut rb = client()
        .request(method, format!("{}{}", s.base_url(), path))
        .header("X-MASC-Agent", "masc-tui");
    if let Some(t) = s.token() {
        rb = rb.bearer_auth(t);
    }
    rb
}

async fn board_count(s: &RunningServer) -> usize {
    let v: Value = raw(
        s,
        reqwest::Method::GET,
        "/api/v1/board?limit=200&sort_by=recent",
    )
    .send()
    .await
    .unwrap()
    .json()
    .await
    .unwrap();
    v["posts"].as_array().unwrap().len()
}

async fn pending_tokens(s: &RunningServer) -> Vec<Value> {
    let v: Value = raw(s, reqwest::Method::GET, OPERATOR)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    v["pending_confirm_envelope"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["confirm_token"].clone())
        .collect()
}

/// The cross-origin attack (docs/security.md): a `text/plain` POST from a page of another origin,
/// against `--no-auth`. Every state-changing route refuses it before any effect; a correct request
/// of our own client still works.
#[tokio::test]
async fn issue16_foreign_origin_and_text_plain_writes_have_no_effect_in_no_auth_mode() {
    let s = no_auth_server().await;
    let posts = board_count(&s).await;
    let tokens = pending_tokens(&s).await;
    assert!(!tokens.is_empty(), "the seed has pending approvals");
    let token = tokens[0].clone();
    let writes: Vec<(&str, Value)> = vec![
        (
            BOARD_POST,
            serde_json::json!({"title": "pwned", "body": "b"}),
        ),
        (
            CHAT_STREAM,
            serde_json::json!({"request_id": "tui-evil-1", "name": "rondo", "message": "rm -rf"}),
        ),
        (
            "/api/v1/gate/connector/bind?name=discord",
            serde_json::json!({"channel_id": "666", "keeper_name": "mira"}),
        ),
        (
            "/api/v1/operator/confirm",
            serde_json::json!({"confirm_token": token, "decision": "approve"}),
        ),
    ];
    for (path, body) in &writes {
        // A page of another origin, the simple-request content type.
        let r = raw(&s, reqwest::Method::POST, path)
            .header("Origin", "http://evil.example")
            .header("Content-Type", "text/plain")
            .body(body.to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::FORBIDDEN, "{path}");
        let v: Value = r.json().await.unwrap();
        assert_eq!(v["auth_error_code"], "same_origin_blocked", "{path}");
        // JSON from a foreign origin (after a preflight a browser would never pass).
        let r = raw(&s, reqwest::Method::POST, path)
            .header("Origin", "null")
            .json(body)
            .send()
            .await
            .unwrap();
        assert_eq!(
            r.status(),
            StatusCode::FORBIDDEN,
            "{path} with Origin: null"
        );
        // No Origin, but not JSON (a form, or a page whose browser omits Origin).
        for ct in ["text/plain", "application/x-www-form-urlencoded"] {
            let r = raw(&s, reqwest::Method::POST, path)
                .header("Content-Type", ct)
                .body(body.to_string())
                .send()
                .await
                .unwrap();
            assert_eq!(
                r.status(),
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "{path} {ct}"
            );
            let v: Value = r.json().await.unwrap();
            assert!(v["error"].as_str().unwrap().contains("application/json"));
        }
        let r = raw(&s, reqwest::Method::POST, path)
            .body(body.to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(
            r.status(),
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "{path} without a content type"
        );
    }
    assert_eq!(board_count(&s).await, posts, "no board post was created");
    assert_eq!(
        pending_tokens(&s).await,
        tokens,
        "no approval was confirmed"
    );
    let r = raw(
        &s,
        reqwest::Method::GET,
        "/api/v1/keepers/rondo/chat/operations/tui-evil-1",
    )
    .send()
    .await
    .unwrap();
    assert_eq!(
        r.status(),
        StatusCode::NOT_FOUND,
        "no chat message was sent"
    );
    for (path, _) in &writes {
        assert_eq!(s.request_count("POST", path.split('?').next().unwrap()), 0);
    }
    // Our own client's shape (JSON, no Origin, or our own origin) still writes.
    let r = raw(&s, reqwest::Method::POST, BOARD_POST)
        .header("Origin", s.base_url())
        .json(&serde_json::json!({"title": "ours", "body": "b"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    assert_eq!(board_count(&s).await, posts + 1);
    s.shutdown().await;
}

/// DNS rebinding: a request naming another host reaches the socket but is answered 421 on
/// every route, public ones included, in every auth mode; the listening address, `localhost`
/// and `--allow-host` names are served.
#[tokio::test]
async fn issue16_host_allow_list_refuses_rebinding_names_in_every_mode() {
    for auth in [
        AuthMode::NoAuth,
        AuthMode::GeneratedToken,
        AuthMode::Token("t".into()),
    ] {
        let s = start(ServeOptions {
            auth: auth.clone(),
            allowed_hosts: vec!["masc.test".into()],
            ..ServeOptions::default()
        })
        .await
        .unwrap();
        let port = s.addr().port();
        for path in [
            "/health",
            "/api/v1/keepers/rondo/chat/history/page",
            OPERATOR,
            "/api/v1/board",
            "/nowhere",
        ] {
            for host in [
                format!("evil.example:{port}"),
                format!("127.0.0.1:{}", port.wrapping_add(1)),
                "127.0.0.1".to_string(),
                format!("masc.test.evil.example:{port}"),
            ] {
                let r = raw(&s, reqwest::Method::GET, path)
                    .header("Host", &host)
                    .send()
                    .await
                    .unwrap();
                assert_eq!(
                    r.status(),
                    StatusCode::MISDIRECTED_REQUEST,
                    "{auth:?} {path} Host: {host}"
                );
                let v: Value = r.json().await.unwrap();
                assert!(v["error"].as_str().unwrap().starts_with("host_not_allowed"));
            }
        }
        for host in [
            format!("127.0.0.1:{port}"),
            format!("localhost:{port}"),
            format!("MASC.test:{port}"),
        ] {
            let r = raw(&s, reqwest::Method::GET, "/health")
                .header("Host", &host)
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), StatusCode::OK, "{auth:?} Host: {host}");
        }
        assert_eq!(
            s.request_count("GET", "/nowhere"),
            0,
            "refused before routing"
        );
        s.shutdown().await;
    }
}

/// A foreign `Origin` on a read is refused too (a cross-origin page learns nothing, not even
/// through a CORS misconfiguration later); the test-mode admin routes follow the same rules.
#[tokio::test]
async fn issue16_foreign_origin_reads_and_admin_writes_are_refused() {
    let s = no_auth_server().await;
    let r = raw(&s, reqwest::Method::GET, OPERATOR)
        .header("Origin", "http://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    let r = raw(&s, reqwest::Method::POST, "/__admin/faults")
        .header("Content-Type", "text/plain")
        .body(r#"{"rules":[]}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let r = raw(&s, reqwest::Method::OPTIONS, BOARD_POST)
        .header("Origin", "http://evil.example")
        .header("Access-Control-Request-Method", "POST")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::FORBIDDEN, "a preflight is refused");
    assert!(r.headers().get("access-control-allow-origin").is_none());
    s.shutdown().await;
}

/// Every error the framework writes is a §1.4 JSON envelope of the path's
/// family (405, body rejections, bad path segments, oversized bodies).
#[tokio::test]
async fn issue16_framework_errors_are_json_envelopes_s1_4() {
    let s = server().await;
    let cases: Vec<(reqwest::Method, &str, Option<&str>, &str)> = vec![
        (reqwest::Method::DELETE, "/health", None, "error"),
        (reqwest::Method::PUT, ROSTER, Some("{}"), "gate"),
        (reqwest::Method::GET, BOARD_POST, None, "tool"),
        (
            reqwest::Method::POST,
            "/api/v1/operator",
            Some("{}"),
            "error",
        ),
        (reqwest::Method::GET, CHAT_STREAM, None, "error"),
        (
            reqwest::Method::POST,
            "/api/v1/keepers/rondo/config",
            Some("{not json"),
            "error",
        ),
        (
            reqwest::Method::POST,
            "/api/v1/gate/connector/bind?name=discord",
            Some("[1,"),
            "gate",
        ),
        (
            reqwest::Method::POST,
            BOARD_POST,
            Some("\"a string\""),
            "tool",
        ),
        (
            reqwest::Method::GET,
            "/api/v1/keepers/%FF%FE/chat/history/page",
            None,
            "error",
        ),
    ];
    for (method, path, body, family) in cases {
        let mut rb = raw(&s, method.clone(), path);
        if let Some(b) = body {
            rb = rb
                .header("Content-Type", "application/json")
                .body(b.to_string());
        }
        let r = rb.send().await.unwrap();
        let status = r.status();
        assert!(
            status.is_client_error() || status.is_server_error(),
            "{method} {path}: {status}"
        );
        let ct = r
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        assert!(ct.starts_with("application/json"), "{method} {path}: {ct}");
        let v: Value = r.json().await.unwrap();
        match family {
            "gate" => {
                assert_eq!(v["ok"], false, "{method} {path}: {v}");
                assert!(v["error"].is_string(), "{method} {path}: {v}");
            }
            "tool" => {
                assert_eq!(v["ok"], false, "{method} {path}: {v}");
                assert!(v["message"].is_string(), "{method} {path}: {v}");
            }
            _ => assert!(
                v["error"].is_string() || v["error"]["message"].is_string(),
                "{method} {path}: {v}"
            ),
        }
    }
    // An oversized body (over the framework's 2 MB limit).
    let big = format!("{{\"title\":\"t\",\"body\":\"{}\"}}", "x".repeat(3 << 20));
    let r = raw(&s, reqwest::Method::POST, BOARD_POST)
        .header("Content-Type", "application/json")
        .body(big)
        .send()
        .await
        .unwrap();
    assert!(r.status().is_client_error(), "{}", r.status());
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["ok"], false);
    s.shutdown().await;
}

/// `bearer` in any case is the Bearer scheme (RFC 9110: schemes are
/// case-insensitive); another scheme stays 401.
#[tokio::test]
async fn issue16_bearer_scheme_in_any_case_s1_3() {
    let s = server().await;
    let token = s.token().unwrap();
    for scheme in ["bearer", "BEARER", "Bearer", "bEaReR"] {
        let r = client()
            .get(format!("{}{}", s.base_url(), ROSTER))
            .header("Authorization", format!("{scheme} {token}"))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::OK, "{scheme}");
    }
    let r = client()
        .get(format!("{}{}", s.base_url(), ROSTER))
        .header("Authorization", format!("Token {token}"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    s.shutdown().await;
}

/// An `offset` beyond any integer is past the end (clamped to the maximum,
/// an empty page), never a silent 0 that makes an offset-paging client loop (§8.1).
#[tokio::test]
async fn issue16_oversized_offset_is_not_zero_s8_1() {
    let s = server().await;
    let huge = "99999999999999999999999";
    let v: Value = raw(
        &s,
        reqwest::Method::GET,
        &format!("/api/v1/board?offset={huge}"),
    )
    .send()
    .await
    .unwrap()
    .json()
    .await
    .unwrap();
    assert_eq!(v["offset"], 5000);
    assert_eq!(v["count"], 0);
    let v: Value = raw(
        &s,
        reqwest::Method::GET,
        &format!("/api/v1/gate/connector/names?name=discord&scope=channel&offset={huge}"),
    )
    .send()
    .await
    .unwrap()
    .json()
    .await
    .unwrap();
    assert_eq!(v["offset"], i64::MAX);
    assert_eq!(v["mappings"], serde_json::json!([]));
    assert_eq!(v["has_more"], false);
    s.shutdown().await;
}

/// The store and its WAL are owner-only (0600).
#[cfg(unix)]
#[tokio::test]
async fn issue16_store_files_are_0600() {
    let dir = tempfile::tempdir().unwrap();
    let s = start(ServeOptions {
        data_dir: Some(dir.path().to_path_buf()),
        ..ServeOptions::default()
    })
    .await
    .unwrap();
    let posted = raw(&s, reqwest::Method::POST, BOARD_POST)
        .json(&serde_json::json!({"title": "t", "body": "b"}))
        .send()
        .await
        .unwrap();
    assert_eq!(posted.status(), StatusCode::CREATED);
    let root = dir.path().join(".masc");
    let mut checked = 0;
    for entry in std::fs::read_dir(&root).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with("masc-tui-server.sqlite3") {
            let mode = masc_tui::private_file::mode_of(&path).unwrap();
            assert_eq!(mode, 0o600, "{name}: {mode:o}");
            checked += 1;
        }
    }
    assert!(
        checked >= 2,
        "the store and its WAL were checked ({checked})"
    );
    s.shutdown().await;
}
