//! Admitted workspace reads against a scripted server (protocol.md §1.2, §1.3, §2.2, §2.3,
//! §2.5; sources.md G-5, G-8, G-9).

use crate::support::mock::{MockServer, Reply, Tail, refused_base_url};
use crate::support::*;
use masc_tui::protocol::admission::{AdmissionMode, decode_root_header};
use masc_tui::protocol::client::{ClientError, QueryString, TokenSource, path_segment};
use masc_tui::protocol::decode::DecodeErrorKind;
use std::sync::Arc;
use std::time::Duration;

const PATH: &str = "/api/v1/doc";

fn good(body: &str) -> Reply {
    Reply::json(200, body).receipt(ROOT)
}

#[tokio::test]
async fn g9_receipt_mode_admits_one_matching_receipt_and_sends_request_headers() {
    let mock = MockServer::start().await;
    mock.route("GET", PATH, |_, _| {
        good(r#"{"n":7}"#).etag("W/\"0123456789ab\"")
    });
    let client = client_with(&mock.base_url, |c| {
        c.token = fixed_token("  tok\r\nen \n");
    });
    let admitted = client
        .get::<Doc>(&receipt_authority(), "/api/v1/doc?x=1")
        .await
        .unwrap();
    assert_eq!(admitted.value.n, 7);
    assert_eq!(admitted.mode, AdmissionMode::Receipt);
    assert!(!admitted.from_cache);

    let seen = &mock.seen(PATH)[0];
    assert_eq!(seen.target, "/api/v1/doc?x=1");
    assert_eq!(seen.header("x-masc-agent").as_deref(), Some("masc-tui"));
    // §1.2: CR/LF become spaces, then trimmed.
    assert_eq!(
        seen.header("authorization").as_deref(),
        Some("Bearer tok  en")
    );
    let sent_root = seen.header("x-masc-expected-root").unwrap();
    assert!(sent_root.bytes().all(|b| (0x21..=0x7E).contains(&b)));
    assert_eq!(
        decode_root_header(sent_root.as_bytes()).as_deref(),
        Some(ROOT)
    );
    // §1.2: no compression asked for; first read of a key is unconditional.
    assert_eq!(seen.header("accept-encoding"), None);
    assert_eq!(seen.header("if-none-match"), None);
}

#[tokio::test]
async fn s2_2_missing_receipt_fails_the_read() {
    let mock = MockServer::start().await;
    mock.route("GET", PATH, |_, _| Reply::json(200, r#"{"n":1}"#));
    let err = client(&mock.base_url)
        .get::<Doc>(&receipt_authority(), PATH)
        .await
        .unwrap_err();
    assert_eq!(err, ClientError::ReceiptMissing);
}

#[tokio::test]
async fn s2_2_two_receipts_fail_even_when_equal() {
    let mock = MockServer::start().await;
    mock.route("GET", PATH, |_, _| good(r#"{"n":1}"#).receipt(ROOT));
    let client = client(&mock.base_url);
    let err = client
        .get::<Doc>(&receipt_authority(), PATH)
        .await
        .unwrap_err();
    assert_eq!(err, ClientError::ReceiptDuplicated);
    assert_eq!(client.cached_reads(), 0);
}

#[tokio::test]
async fn g9_response_from_a_server_serving_another_root_is_never_admitted() {
    let mock = MockServer::start().await;
    // A server that ignores the expected-root header and serves its own root.
    mock.route("GET", PATH, |_, _| {
        Reply::json(200, r#"{"n":1}"#)
            .receipt(OTHER_ROOT)
            .etag("W/\"aaaaaaaaaaaa\"")
    });
    // A server that honours it (§2.2 point 2).
    mock.route("GET", "/api/v1/honours", |seen, _| {
        let expected =
            decode_root_header(seen.header("x-masc-expected-root").unwrap().as_bytes()).unwrap();
        let body = serde_json::json!({
            "error": "workspace_mismatch", "expected_root": expected, "served_root": OTHER_ROOT
        });
        Reply::json(409, &body.to_string())
    });
    let client = client(&mock.base_url);
    for mode in [AdmissionMode::Receipt, AdmissionMode::Health] {
        let err = client
            .get::<Doc>(&authority(ROOT, mode), PATH)
            .await
            .unwrap_err();
        assert_eq!(
            err,
            ClientError::ReceiptMismatch {
                expected: ROOT.into(),
                got: OTHER_ROOT.into()
            },
            "mode {mode:?}"
        );
        let err = client
            .get::<Doc>(&authority(ROOT, mode), "/api/v1/honours")
            .await
            .unwrap_err();
        assert_eq!(
            err,
            ClientError::WorkspaceMismatch {
                expected: ROOT.into(),
                served: OTHER_ROOT.into()
            }
        );
    }
    assert_eq!(
        client.cached_reads(),
        0,
        "nothing of the other root is cached"
    );
}

#[tokio::test]
async fn s2_2_undecodable_receipt_is_a_mismatch() {
    let mock = MockServer::start().await;
    mock.route("GET", PATH, |_, _| {
        Reply::json(200, r#"{"n":1}"#).header("x-masc-workspace-receipt", "%ZZ")
    });
    let err = client(&mock.base_url)
        .get::<Doc>(&receipt_authority(), PATH)
        .await
        .unwrap_err();
    assert!(
        matches!(err, ClientError::ReceiptMismatch { .. }),
        "{err:?}"
    );
}

/// §2.2: a refused 2xx/304 is never cached and leaves the stored entry untouched.
#[tokio::test]
async fn s2_5_refused_responses_do_not_touch_the_cache() {
    let mock = MockServer::start().await;
    let tag = "W/\"aaaaaaaaaaaa\"";
    mock.route("GET", PATH, move |_, n| match n {
        0 => good(r#"{"n":1}"#).etag(tag),
        // A different body under a wrong receipt: must not replace value or tag.
        1 => Reply::json(200, r#"{"n":2}"#)
            .receipt(OTHER_ROOT)
            .etag("W/\"bbbbbbbbbbbb\""),
        2 => Reply::status(304).receipt(OTHER_ROOT).etag(tag),
        3 => Reply::status(304).etag(tag),
        4 => Reply::status(304).receipt(ROOT).receipt(ROOT).etag(tag),
        _ => Reply::status(304).receipt(ROOT).etag(tag),
    });
    let client = client(&mock.base_url);
    let auth = receipt_authority();
    let first = client.get::<Doc>(&auth, PATH).await.unwrap();
    assert_eq!(first.value.n, 1);
    assert!(matches!(
        client.get::<Doc>(&auth, PATH).await,
        Err(ClientError::ReceiptMismatch { .. })
    ));
    assert!(matches!(
        client.get::<Doc>(&auth, PATH).await,
        Err(ClientError::ReceiptMismatch { .. })
    ));
    assert_eq!(
        client.get::<Doc>(&auth, PATH).await.unwrap_err(),
        ClientError::ReceiptMissing
    );
    assert_eq!(
        client.get::<Doc>(&auth, PATH).await.unwrap_err(),
        ClientError::ReceiptDuplicated
    );
    let again = client.get::<Doc>(&auth, PATH).await.unwrap();
    assert!(again.from_cache);
    assert_eq!(
        again.value.n, 1,
        "the original value survives every refusal"
    );
    assert!(Arc::ptr_eq(&first.value, &again.value));
    let tags: Vec<Option<String>> = mock
        .seen(PATH)
        .iter()
        .map(|s| s.header("if-none-match"))
        .collect();
    assert_eq!(tags[0], None);
    for sent in &tags[1..] {
        assert_eq!(
            sent.as_deref(),
            Some(tag),
            "the stored tag was never replaced"
        );
    }
}

#[tokio::test]
async fn s2_5_fresh_200_replaces_the_entry() {
    let mock = MockServer::start().await;
    mock.route("GET", PATH, |seen, n| {
        match (n, seen.header("if-none-match")) {
            (0, None) => good(r#"{"n":1}"#).etag("W/\"aaaaaaaaaaaa\""),
            (1, Some(_)) => good(r#"{"n":2}"#).etag("W/\"bbbbbbbbbbbb\""),
            (_, Some(t)) if t == "W/\"bbbbbbbbbbbb\"" => Reply::status(304).receipt(ROOT),
            _ => Reply::json(500, "{}"),
        }
    });
    let client = client(&mock.base_url);
    let auth = receipt_authority();
    assert_eq!(client.get::<Doc>(&auth, PATH).await.unwrap().value.n, 1);
    let second = client.get::<Doc>(&auth, PATH).await.unwrap();
    assert_eq!((second.value.n, second.from_cache), (2, false));
    let third = client.get::<Doc>(&auth, PATH).await.unwrap();
    assert_eq!((third.value.n, third.from_cache), (2, true));
}

#[tokio::test]
async fn s2_5_not_modified_without_an_entry_fails() {
    let mock = MockServer::start().await;
    mock.route("GET", PATH, |_, _| Reply::status(304).receipt(ROOT));
    let err = client(&mock.base_url)
        .get::<Doc>(&receipt_authority(), PATH)
        .await
        .unwrap_err();
    assert_eq!(err, ClientError::NotModifiedWithoutEntry);
}

/// G-6/G-9: the cache key includes the expected root.
#[tokio::test]
async fn g9_cache_key_includes_the_expected_root() {
    let mock = MockServer::start().await;
    mock.route("GET", PATH, |seen, _| {
        let root =
            decode_root_header(seen.header("x-masc-expected-root").unwrap().as_bytes()).unwrap();
        Reply::json(200, r#"{"n":1}"#)
            .receipt(&root)
            .etag("W/\"aaaaaaaaaaaa\"")
    });
    let client = client(&mock.base_url);
    client.get::<Doc>(&receipt_authority(), PATH).await.unwrap();
    client
        .get::<Doc>(&authority(OTHER_ROOT, AdmissionMode::Receipt), PATH)
        .await
        .unwrap();
    client.get::<Doc>(&receipt_authority(), PATH).await.unwrap();
    let tags: Vec<Option<String>> = mock
        .seen(PATH)
        .iter()
        .map(|s| s.header("if-none-match"))
        .collect();
    assert_eq!(tags[0], None);
    assert_eq!(tags[1], None, "another root never sees this root's tag");
    assert!(tags[2].is_some());
    assert_eq!(client.cached_reads(), 2);
    client.forget_root(ROOT);
    assert_eq!(client.cached_reads(), 1);
}

#[tokio::test]
async fn s2_5_cache_entries_unread_for_two_ticks_are_dropped() {
    let mock = MockServer::start().await;
    mock.route("GET", PATH, |_, _| {
        good(r#"{"n":1}"#).etag("W/\"aaaaaaaaaaaa\"")
    });
    let client = client(&mock.base_url);
    client.get::<Doc>(&receipt_authority(), PATH).await.unwrap();
    assert_eq!(client.sweep_cache(), 0);
    assert_eq!(client.cached_reads(), 1);
    assert_eq!(client.sweep_cache(), 1);
    assert_eq!(client.cached_reads(), 0);
}

#[tokio::test]
async fn s2_3_health_mode_admits_without_receipt_and_flags_it() {
    let mock = MockServer::start().await;
    mock.route("GET", PATH, |_, _| Reply::json(200, r#"{"n":3}"#));
    let admitted = client(&mock.base_url)
        .get::<Doc>(&authority(ROOT, AdmissionMode::Health), PATH)
        .await
        .unwrap();
    assert_eq!(admitted.value.n, 3);
    assert_eq!(admitted.mode, AdmissionMode::Health);
    // The expected root is sent in health mode too.
    assert!(mock.seen(PATH)[0].header("x-masc-expected-root").is_some());
}

#[tokio::test]
async fn s2_3_strict_client_refuses_health_mode_without_sending() {
    let mock = MockServer::start().await;
    mock.route("GET", PATH, |_, _| Reply::json(200, r#"{"n":3}"#));
    let client = client_with(&mock.base_url, |c| c.strict_receipts = true);
    let err = client
        .get::<Doc>(&authority(ROOT, AdmissionMode::Health), PATH)
        .await
        .unwrap_err();
    assert_eq!(err, ClientError::HealthModeRefused);
    assert_eq!(mock.hits(PATH), 0);
    // Receipt mode is unaffected by the strict option.
    mock.route("GET", PATH, |_, _| good(r#"{"n":3}"#));
    assert!(client.get::<Doc>(&receipt_authority(), PATH).await.is_ok());
}

/// §1.4, G-5: warming is neither data nor a decode error.
#[tokio::test]
async fn s1_4_warming_variants_are_warming() {
    let mock = MockServer::start().await;
    let variants: Vec<Reply> = vec![
        good(r#"{"status":"initializing","message":"Server is warming up"}"#),
        good(r#"{"error":"not initialized"}"#),
        Reply::json(503, r#"{"error":"not initialized"}"#),
        Reply::json(500, r#"{"error":"not initialized"}"#),
    ];
    let count = variants.len();
    mock.route("GET", PATH, move |_, n| variants[n].clone());
    let client = client(&mock.base_url);
    for i in 0..count {
        let err = client
            .get::<Doc>(&receipt_authority(), PATH)
            .await
            .unwrap_err();
        assert_eq!(err, ClientError::Warming, "variant {i}");
    }
    assert_eq!(client.cached_reads(), 0);
}

/// §1.4: warming is defined by its body; a 503 with another body (a proxy, an
/// overloaded server) or none is a failed read, never "warming".
#[tokio::test]
async fn issue16_503_without_the_warming_body_is_a_failed_read_s1_4() {
    let mock = MockServer::start().await;
    let variants: Vec<Reply> = vec![
        Reply::json(503, r#"{"error":"something else"}"#),
        Reply::status(503),
        Reply::status(503)
            .header("content-type", "text/plain")
            .body("Service Unavailable"),
    ];
    let count = variants.len();
    mock.route("GET", PATH, move |_, n| variants[n].clone());
    let client = client(&mock.base_url);
    for i in 0..count {
        let err = client
            .get::<Doc>(&receipt_authority(), PATH)
            .await
            .unwrap_err();
        assert!(
            matches!(err, ClientError::Status { status: 503, .. }),
            "variant {i}: {err:?}"
        );
        assert_eq!(
            err.class(),
            masc_tui::protocol::client::ErrorClass::Status(503),
            "variant {i}"
        );
    }
    assert_eq!(client.cached_reads(), 0);
}

#[tokio::test]
async fn s1_3_401_then_200_takes_exactly_two_requests() {
    let mock = MockServer::start().await;
    mock.route("GET", PATH, |seen, n| {
        assert_eq!(seen.header("authorization").as_deref(), Some("Bearer t1"));
        if n == 0 {
            Reply::json(
                401,
                r#"{"error":"expired","auth_error_code":"token_expired"}"#,
            )
            .header("www-authenticate", "Bearer")
        } else {
            good(r#"{"n":5}"#)
        }
    });
    let client = client_with(&mock.base_url, |c| c.token = fixed_token("t1"));
    let admitted = client
        .get::<Doc>(&receipt_authority(), "/api/v1/doc?k=v")
        .await
        .unwrap();
    assert_eq!(admitted.value.n, 5);
    let seen = mock.seen(PATH);
    assert_eq!(seen.len(), 2);
    assert_eq!(
        seen[0].target, seen[1].target,
        "the identical request is repeated"
    );
    assert_eq!(
        seen[0].header("x-masc-expected-root"),
        seen[1].header("x-masc-expected-root")
    );
}

#[tokio::test]
async fn s1_3_second_401_is_unauthorized_and_not_retried_again() {
    let mock = MockServer::start().await;
    mock.route("GET", PATH, |_, _| {
        Reply::json(401, r#"{"error":"bad","auth_error_code":"invalid_token"}"#)
    });
    let client = client_with(&mock.base_url, |c| c.token = fixed_token("t1"));
    let err = client
        .get::<Doc>(&receipt_authority(), PATH)
        .await
        .unwrap_err();
    assert_eq!(
        err,
        ClientError::Unauthorized {
            status: 401,
            code: Some("invalid_token".into())
        }
    );
    assert_eq!(mock.hits(PATH), 2);
}

#[tokio::test]
async fn s1_3_403_is_never_retried() {
    let mock = MockServer::start().await;
    mock.route("GET", PATH, |_, _| {
        Reply::json(
            403,
            r#"{"error":"no","auth_error_code":"insufficient_role"}"#,
        )
    });
    let client = client_with(&mock.base_url, |c| c.token = fixed_token("t1"));
    let err = client
        .get::<Doc>(&receipt_authority(), PATH)
        .await
        .unwrap_err();
    assert_eq!(
        err,
        ClientError::Unauthorized {
            status: 403,
            code: Some("insufficient_role".into())
        }
    );
    assert_eq!(mock.hits(PATH), 1);
}

#[tokio::test]
async fn s1_3_no_token_when_the_server_demands_one() {
    let mock = MockServer::start().await;
    mock.route("GET", PATH, |seen, _| {
        assert_eq!(seen.header("authorization"), None);
        Reply::json(
            401,
            r#"{"error":"missing","auth_error_code":"missing_token"}"#,
        )
    });
    let err = client(&mock.base_url)
        .get::<Doc>(&receipt_authority(), PATH)
        .await
        .unwrap_err();
    assert_eq!(err, ClientError::NoToken);
    assert_eq!(mock.hits(PATH), 1, "nothing to retry with");
}

#[tokio::test]
async fn s1_3_unusable_token_is_no_token_and_nothing_is_sent() {
    let mock = MockServer::start().await;
    mock.route("GET", PATH, |_, _| good(r#"{"n":1}"#));
    let client = client_with(&mock.base_url, |c| c.token = fixed_token("bad\u{0}token"));
    let err = client
        .get::<Doc>(&receipt_authority(), PATH)
        .await
        .unwrap_err();
    assert_eq!(err, ClientError::NoToken);
    assert_eq!(mock.hits(PATH), 0);
}

/// §1.1/§1.3: the token file is re-read on 401 (here it appears after the first request).
#[tokio::test]
async fn s1_3_token_file_is_reacquired_on_401() {
    if std::env::var("MASC_TOKEN").is_ok_and(|v| !v.trim().is_empty()) {
        eprintln!("MASC_TOKEN is set in this environment; token-file test skipped");
        return;
    }
    let base = tempfile::tempdir().unwrap();
    let auth_dir = base.path().join(".masc").join("auth");
    std::fs::create_dir_all(&auth_dir).unwrap();
    let token_file = auth_dir.join("masc-tui.token");
    let mock = MockServer::start().await;
    let file_for_route = token_file.clone();
    mock.route("GET", PATH, move |seen, _| {
        match seen.header("authorization").as_deref() {
            Some("Bearer from-file") => good(r#"{"n":9}"#),
            _ => {
                std::fs::write(&file_for_route, "from-file\n").unwrap();
                Reply::json(
                    401,
                    r#"{"error":"missing","auth_error_code":"missing_token"}"#,
                )
            }
        }
    });
    let client = client_with(&mock.base_url, |c| {
        c.token = TokenSource::EnvThenFile {
            base_path: base.path().to_path_buf(),
        };
    });
    let admitted = client.get::<Doc>(&receipt_authority(), PATH).await.unwrap();
    assert_eq!(admitted.value.n, 9);
    assert_eq!(mock.hits(PATH), 2);
}

#[tokio::test]
async fn decode_errors_keep_the_field_path_and_are_not_cached() {
    let mock = MockServer::start().await;
    mock.route("GET", PATH, |_, _| {
        good(r#"{"n":1,"rows":[{"n":1},{"n":"x"}]}"#).etag("W/\"aaaaaaaaaaaa\"")
    });
    let client = client(&mock.base_url);
    let err = client
        .get::<Doc>(&receipt_authority(), PATH)
        .await
        .unwrap_err();
    let ClientError::Decode(decode) = &err else {
        panic!("expected a decode error, got {err:?}");
    };
    assert_eq!(decode.path, ".rows[1].n");
    assert_eq!(decode.kind, DecodeErrorKind::WrongType);
    assert_eq!(
        err.class(),
        masc_tui::protocol::client::ErrorClass::Decode(
            masc_tui::protocol::decode::DecodeErrorKind::WrongType
        )
    );
    assert_eq!(client.cached_reads(), 0);
}

/// G-8: bodies over the offload threshold take the blocking-pool path and decode the same.
#[tokio::test]
async fn g8_large_bodies_decode_off_the_caller() {
    let rows: Vec<String> = (0..20_000).map(|i| format!(r#"{{"n":{i}}}"#)).collect();
    let body = format!(r#"{{"n":1,"rows":[{}]}}"#, rows.join(","));
    assert!(body.len() > masc_tui::protocol::client::OFFLOAD_DECODE_ABOVE);
    let mock = MockServer::start().await;
    mock.route("GET", PATH, move |_, _| good(&body));
    let admitted = client(&mock.base_url)
        .get::<Doc>(&receipt_authority(), PATH)
        .await
        .unwrap();
    assert_eq!(admitted.value.rows.len(), 20_000);
    assert_eq!(admitted.value.rows[19_999].n, 19_999);
}

#[tokio::test]
async fn s1_5_a_stalled_read_times_out() {
    let mock = MockServer::start().await;
    mock.route("GET", PATH, |_, _| Reply::stall());
    mock.route("GET", "/api/v1/slow-body", |_, _| {
        good(r#"{"n":"#).tail(Tail::Stall)
    });
    let client = client_with(&mock.base_url, |c| {
        c.request_timeout = Duration::from_millis(200);
    });
    let auth = receipt_authority();
    assert_eq!(
        client.get::<Doc>(&auth, PATH).await.unwrap_err(),
        ClientError::Timeout
    );
    assert_eq!(
        client
            .get::<Doc>(&auth, "/api/v1/slow-body")
            .await
            .unwrap_err(),
        ClientError::Timeout
    );
}

#[tokio::test]
async fn non_2xx_is_status_with_the_body_cut_to_2_kib() {
    let mock = MockServer::start().await;
    let long = format!(r#"{{"error":"{}"}}"#, "e".repeat(5000));
    mock.route("GET", PATH, move |_, _| Reply::json(500, &long));
    mock.route("GET", "/api/v1/conflict", |_, _| {
        Reply::json(409, r#"{"error":"something_else"}"#)
    });
    let client = client(&mock.base_url);
    let err = client
        .get::<Doc>(&receipt_authority(), PATH)
        .await
        .unwrap_err();
    let ClientError::Status { status, body } = &err else {
        panic!("expected status, got {err:?}");
    };
    assert_eq!(*status, 500);
    assert_eq!(body.len(), 2048);
    assert_eq!(
        err.class(),
        masc_tui::protocol::client::ErrorClass::Status(500)
    );
    // A 409 that is not the workspace_mismatch envelope stays a plain status.
    assert!(matches!(
        client
            .get::<Doc>(&receipt_authority(), "/api/v1/conflict")
            .await,
        Err(ClientError::Status { status: 409, .. })
    ));
}

#[tokio::test]
async fn transport_failures_are_transport() {
    let client = client(&refused_base_url().await);
    let err = client
        .get::<Doc>(&receipt_authority(), PATH)
        .await
        .unwrap_err();
    assert!(matches!(err, ClientError::Transport(_)), "{err:?}");

    let mock = MockServer::start().await;
    mock.route("GET", PATH, |_, _| {
        good(r#"{"n":1,"rows":[{"n":1},"#).tail(Tail::Abort)
    });
    let err = client_with(&mock.base_url, |_| {})
        .get::<Doc>(&receipt_authority(), PATH)
        .await
        .unwrap_err();
    // The head arrived; the body was cut.
    assert!(
        matches!(&err, ClientError::Transport(reason) if reason.starts_with("body")),
        "{err:?}"
    );
}

#[tokio::test]
async fn malformed_targets_and_rootless_authorities_are_refused_before_sending() {
    let mock = MockServer::start().await;
    let client = client(&mock.base_url);
    assert!(matches!(
        client.get::<Doc>(&receipt_authority(), "api/v1/doc").await,
        Err(ClientError::InvalidRequest(_))
    ));
    assert!(matches!(
        client
            .get::<Doc>(&authority("", AdmissionMode::Receipt), PATH)
            .await,
        Err(ClientError::InvalidRequest(_))
    ));
}

#[tokio::test]
async fn s1_2_segments_and_query_values_are_percent_encoded_on_the_wire() {
    let mock = MockServer::start().await;
    let target = QueryString::new()
        .pair("before", "a b&c")
        .append_to(&format!("/api/v1/keepers/{}/x", path_segment("키 퍼/1")));
    mock.route(
        "GET",
        "/api/v1/keepers/%ED%82%A4%20%ED%8D%BC%2F1/x",
        |_, _| good(r#"{"n":1}"#),
    );
    client(&mock.base_url)
        .get::<Doc>(&receipt_authority(), &target)
        .await
        .unwrap();
    let seen = mock.seen("/api/v1/keepers/%ED%82%A4%20%ED%8D%BC%2F1/x");
    assert_eq!(seen.len(), 1);
    assert!(seen[0].target.ends_with("?before=a%20b%26c"));
}

#[tokio::test]
async fn s3_health_is_decoded_and_never_conditional() {
    let mock = MockServer::start().await;
    mock.route("GET", "/health", |_, _| {
        Reply::json(
            200,
            r#"{"status":"ok","server":"masc","version":"0.22.0","build":{"binary_commit":"341791ff6f"},
               "paths":{"effective_base_path":"/home/op/demo","effective_masc_root":"/home/op/demo/.masc"},
               "startup":{"phase":"ready","state_ready":true},"uptime":"18m 44s","admission":{"receipts":true}}"#,
        )
        .etag("W/\"aaaaaaaaaaaa\"")
    });
    let client = client(&mock.base_url);
    let health = client.health().await.unwrap();
    assert_eq!(health.paths.effective_masc_root, "/home/op/demo/.masc");
    assert_eq!(health.admission_mode(), AdmissionMode::Receipt);
    client.health().await.unwrap();
    for seen in mock.seen("/health") {
        assert_eq!(seen.header("if-none-match"), None);
        assert_eq!(seen.header("x-masc-expected-root"), None);
        assert_eq!(seen.header("x-masc-agent").as_deref(), Some("masc-tui"));
    }

    mock.route("GET", "/health", |_, _| Reply::json(502, "bad gateway"));
    assert!(matches!(
        client.health().await,
        Err(ClientError::Status { status: 502, .. })
    ));
    mock.route("GET", "/health", |_, _| {
        Reply::json(200, r#"{"paths":{"effective_base_path":"/x"}}"#)
    });
    let Err(ClientError::Decode(e)) = client.health().await else {
        panic!("expected a decode error");
    };
    assert_eq!(e.kind, DecodeErrorKind::MissingField);
    assert_eq!(e.path, ".paths");
}
