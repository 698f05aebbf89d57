//! Writes at the transport level (protocol.md §1.3, §1.5, §2.4, §11 common part).

use crate::support::mock::{DropAfterBody, MockServer, Reply, Tail, refused_base_url};
use crate::support::*;
use masc_tui::protocol::admission::{AdmissionMode, decode_root_header};
use masc_tui::protocol::client::WriteExchange;
use std::sync::atomic::Ordering;
use std::time::Duration;

const PATH: &str = "/api/v1/keepers";

fn body() -> serde_json::Value {
    serde_json::json!({"name": "alpha", "note": "héllo"})
}

#[tokio::test]
async fn s2_4_post_sends_json_expected_root_and_token_and_returns_the_response() {
    let mock = MockServer::start().await;
    mock.route("POST", PATH, |_, _| {
        Reply::json(201, r#"{"action":"created","name":"alpha"}"#)
    });
    let client = client_with(&mock.base_url, |c| c.token = fixed_token("t1"));
    let exchange = client.post_json(&receipt_authority(), PATH, &body()).await;
    let WriteExchange::Responded { status, body: got } = exchange else {
        panic!("expected a response, got {exchange:?}");
    };
    assert_eq!(status, 201);
    assert_eq!(&got[..], br#"{"action":"created","name":"alpha"}"#);

    let seen = &mock.seen(PATH)[0];
    assert_eq!(seen.method, "POST");
    assert_eq!(
        seen.header("content-type").as_deref(),
        Some("application/json")
    );
    assert_eq!(seen.header("x-masc-agent").as_deref(), Some("masc-tui"));
    assert_eq!(seen.header("authorization").as_deref(), Some("Bearer t1"));
    let root = seen.header("x-masc-expected-root").unwrap();
    assert_eq!(decode_root_header(root.as_bytes()).as_deref(), Some(ROOT));
    let sent: serde_json::Value = serde_json::from_slice(&seen.body).unwrap();
    assert_eq!(sent, body());
}

#[tokio::test]
async fn s11_connection_refused_is_not_sent() {
    let client = client(&refused_base_url().await);
    let exchange = client.post_json(&receipt_authority(), PATH, &body()).await;
    assert!(
        matches!(exchange, WriteExchange::NotSent { .. }),
        "{exchange:?}"
    );
}

#[tokio::test]
async fn s11_drop_after_the_server_read_the_body_is_outcome_unknown() {
    let server = DropAfterBody::start().await;
    let client = client(&server.base_url);
    let exchange = client.post_json(&receipt_authority(), PATH, &body()).await;
    assert!(
        matches!(exchange, WriteExchange::OutcomeUnknown { .. }),
        "{exchange:?}"
    );
    // The request provably left, and it was not resent.
    assert_eq!(server.bodies_read.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn s11_timeout_is_outcome_unknown_and_never_resent() {
    let mock = MockServer::start().await;
    mock.route("POST", PATH, |_, _| Reply::stall());
    let client = client_with(&mock.base_url, |c| {
        c.request_timeout = Duration::from_millis(200);
    });
    let exchange = client.post_json(&receipt_authority(), PATH, &body()).await;
    assert!(
        matches!(exchange, WriteExchange::OutcomeUnknown { .. }),
        "{exchange:?}"
    );
    assert_eq!(mock.hits(PATH), 1);
}

#[tokio::test]
async fn s11_incomplete_response_body_is_outcome_unknown() {
    let mock = MockServer::start().await;
    mock.route("POST", PATH, |_, _| {
        Reply::json(200, r#"{"ok":true,"sta"#).tail(Tail::Abort)
    });
    let exchange = client(&mock.base_url)
        .post_json(&receipt_authority(), PATH, &body())
        .await;
    assert!(
        matches!(&exchange, WriteExchange::OutcomeUnknown { reason } if reason.starts_with("incomplete response body")),
        "{exchange:?}"
    );
}

/// §1.3: a 401 on a write is "not applied" and is not retried.
#[tokio::test]
async fn s1_3_write_401_is_responded_and_not_retried() {
    let mock = MockServer::start().await;
    mock.route("POST", PATH, |_, _| {
        Reply::json(401, r#"{"error":"bad","auth_error_code":"invalid_token"}"#)
    });
    let client = client_with(&mock.base_url, |c| c.token = fixed_token("t1"));
    let exchange = client.post_json(&receipt_authority(), PATH, &body()).await;
    assert!(
        matches!(exchange, WriteExchange::Responded { status: 401, .. }),
        "{exchange:?}"
    );
    assert_eq!(mock.hits(PATH), 1);
}

#[tokio::test]
async fn s11_error_statuses_are_responded_with_their_body() {
    let mock = MockServer::start().await;
    mock.route("POST", PATH, |_, _| {
        Reply::json(
            409,
            r#"{"error":"workspace_mismatch","expected_root":"a","served_root":"b"}"#,
        )
    });
    let exchange = client(&mock.base_url)
        .post_json(&authority(ROOT, AdmissionMode::Health), PATH, &body())
        .await;
    let WriteExchange::Responded { status, body } = exchange else {
        panic!("expected a response");
    };
    assert_eq!(status, 409);
    assert!(body.starts_with(b"{\"error\":\"workspace_mismatch\""));
}

#[tokio::test]
async fn s11_unusable_token_or_rootless_authority_is_not_sent() {
    let mock = MockServer::start().await;
    mock.route("POST", PATH, |_, _| Reply::json(200, "{}"));
    let client = client_with(&mock.base_url, |c| c.token = fixed_token("a\u{7f}b"));
    assert!(matches!(
        client.post_json(&receipt_authority(), PATH, &body()).await,
        WriteExchange::NotSent { .. }
    ));
    let client = client_with(&mock.base_url, |_| {});
    assert!(matches!(
        client
            .post_json(&authority("", AdmissionMode::Receipt), PATH, &body())
            .await,
        WriteExchange::NotSent { .. }
    ));
    assert_eq!(mock.hits(PATH), 0);
}
