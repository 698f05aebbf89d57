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
