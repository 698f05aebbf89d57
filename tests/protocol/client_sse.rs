//! SSE streams (protocol.md §1.5, §4.3 framing, §10.3, §11 chat send).

use crate::support::mock::{MockServer, Reply, Tail, refused_base_url};
use crate::support::*;
use masc_tui::protocol::admission::{AdmissionMode, decode_root_header};
use masc_tui::protocol::client::{ClientError, SseEnd, SseOpenFailure, SseStream};
use masc_tui::protocol::sse::SseFrame;
use std::time::Duration;

const CHAT: &str = "/api/v1/keepers/chat/stream";
const FOLLOW: &str = "/api/v1/keepers/asks/follow-up";

fn chat_body() -> serde_json::Value {
    serde_json::json!({"request_id": "tui-01", "name": "alpha", "message": "hi"})
}

/// Drain a stream: its frames and its single end; checks that `None` follows the end.
#[allow(clippy::panic)] // test helper: a missing end must fail the calling test
async fn drain(mut stream: SseStream) -> (Vec<SseFrame>, SseEnd) {
    let mut frames = Vec::new();
    loop {
        match stream.next().await {
            Some(Ok(frame)) => frames.push(frame),
            Some(Err(end)) => {
                assert!(stream.next().await.is_none(), "nothing after the end");
                return (frames, end);
            }
            None => panic!("stream ended without reporting how"),
        }
    }
}

#[tokio::test]
async fn s4_3_frames_split_across_chunks_are_reassembled() {
    let mock = MockServer::start().await;
    mock.route("POST", CHAT, |_, _| {
        Reply::sse(&[
            "data: {\"type\":\"CUS",
            "TOM\"}\n",
            "\n: keepalive\nid: 2\r\nda",
            "ta: line1\ndata: line2\n\n",
        ])
        .chunk_gap(Duration::from_millis(10))
    });
    let client = client_with(&mock.base_url, |c| c.token = fixed_token("t1"));
    let stream = client
        .post_sse(&receipt_authority(), CHAT, &chat_body())
        .await
        .unwrap();
    assert_eq!(stream.admission_mode(), None);
    let (frames, end) = drain(stream).await;
    assert_eq!(end, SseEnd::Completed);
    assert_eq!(frames.len(), 2);
    assert_eq!(frames[0].data, r#"{"type":"CUSTOM"}"#);
    assert_eq!(frames[1].data, "line1\nline2");
    assert_eq!(frames[1].id.as_deref(), Some("2"));
    let seen = &mock.seen(CHAT)[0];
    assert_eq!(seen.header("accept").as_deref(), Some("text/event-stream"));
    assert_eq!(
        seen.header("content-type").as_deref(),
        Some("application/json")
    );
    assert!(seen.header("x-masc-expected-root").is_some());
}

#[tokio::test]
async fn s4_3_stream_cut_mid_event_is_reported_as_cut() {
    let mock = MockServer::start().await;
    // EOF with a partial event buffered, and a transport abort with one.
    mock.route("POST", CHAT, |_, n| {
        let reply = Reply::sse(&["data: one\n\n", "data: par"]);
        if n == 0 {
            reply
        } else {
            reply.tail(Tail::Abort)
        }
    });
    let client = client(&mock.base_url);
    for _ in 0..2 {
        let stream = client
            .post_sse(&receipt_authority(), CHAT, &chat_body())
            .await
            .unwrap();
        let (frames, end) = drain(stream).await;
        assert_eq!(frames.len(), 1);
        assert_eq!(frames[0].data, "one");
        assert_eq!(end, SseEnd::CutMidEvent);
    }
    // Fields without the closing blank line are a partial event too.
    mock.route("POST", CHAT, |_, _| Reply::sse(&["data: one\n"]));
    let (frames, end) = drain(
        client
            .post_sse(&receipt_authority(), CHAT, &chat_body())
            .await
            .unwrap(),
    )
    .await;
    assert!(frames.is_empty());
    assert_eq!(end, SseEnd::CutMidEvent);
}

#[tokio::test]
async fn s4_3_transport_loss_at_an_event_boundary_is_transport() {
    let mock = MockServer::start().await;
    mock.route("POST", CHAT, |_, _| {
        Reply::sse(&["data: one\n\n"]).tail(Tail::Abort)
    });
    let (frames, end) = drain(
        client(&mock.base_url)
            .post_sse(&receipt_authority(), CHAT, &chat_body())
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(frames.len(), 1);
    assert!(matches!(end, SseEnd::Transport(_)), "{end:?}");
}

#[tokio::test]
async fn s1_5_idle_stream_ends_with_idle_timeout() {
    let mock = MockServer::start().await;
    mock.route("POST", CHAT, |_, _| {
        Reply::sse(&["data: one\n\n"]).tail(Tail::Stall)
    });
    let client = client_with(&mock.base_url, |c| {
        c.sse_idle_timeout = Duration::from_millis(200);
    });
    let (frames, end) = drain(
        client
            .post_sse(&receipt_authority(), CHAT, &chat_body())
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(frames.len(), 1);
    assert_eq!(end, SseEnd::IdleTimeout);
}

#[tokio::test]
async fn s1_5_a_stream_outlives_the_plain_request_timeout() {
    let mock = MockServer::start().await;
    mock.route("POST", CHAT, |_, _| {
        Reply::sse(&["data: a\n\n", "data: b\n\n", "data: c\n\n"])
            .chunk_gap(Duration::from_millis(150))
    });
    // The whole stream takes longer than the plain request limit; only idleness ends it.
    let client = client_with(&mock.base_url, |c| {
        c.request_timeout = Duration::from_millis(200);
    });
    let (frames, end) = drain(
        client
            .post_sse(&receipt_authority(), CHAT, &chat_body())
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(frames.len(), 3);
    assert_eq!(end, SseEnd::Completed);
}

#[tokio::test]
async fn s11_post_sse_failures_before_the_stream() {
    let mock = MockServer::start().await;
    mock.route("POST", CHAT, |_, n| match n {
        0 => Reply::json(200, r#"{"ok":true}"#),
        _ => Reply::json(400, r#"{"error":{"message":"bad"}}"#),
    });
    let client = client(&mock.base_url);
    let err = client
        .post_sse(&receipt_authority(), CHAT, &chat_body())
        .await
        .unwrap_err();
    assert_eq!(
        err,
        SseOpenFailure::NotEventStream {
            status: 200,
            content_type: Some("application/json".into())
        }
    );
    assert!(matches!(
        err.into_write_exchange(),
        masc_tui::protocol::client::WriteExchange::OutcomeUnknown { .. }
    ));
    let err = client
        .post_sse(&receipt_authority(), CHAT, &chat_body())
        .await
        .unwrap_err();
    assert!(
        matches!(err, SseOpenFailure::Responded { status: 400, .. }),
        "{err:?}"
    );

    let refused = client_with(&refused_base_url().await, |_| {});
    assert!(matches!(
        refused
            .post_sse(&receipt_authority(), CHAT, &chat_body())
            .await,
        Err(SseOpenFailure::NotSent { .. })
    ));
}

#[tokio::test]
async fn s1_3_post_sse_401_is_not_retried() {
    let mock = MockServer::start().await;
    mock.route("POST", CHAT, |_, _| {
        Reply::json(401, r#"{"error":"x","auth_error_code":"invalid_token"}"#)
    });
    let client = client_with(&mock.base_url, |c| c.token = fixed_token("t1"));
    assert!(matches!(
        client
            .post_sse(&receipt_authority(), CHAT, &chat_body())
            .await,
        Err(SseOpenFailure::Responded { status: 401, .. })
    ));
    assert_eq!(mock.hits(CHAT), 1);
}

#[tokio::test]
async fn s10_3_get_sse_is_an_admitted_read() {
    let mock = MockServer::start().await;
    mock.route("GET", FOLLOW, |seen, n| {
        let root = decode_root_header(seen.header("x-masc-expected-root").unwrap().as_bytes())
            .unwrap();
        assert_eq!(root, ROOT);
        match n {
            0 => Reply::sse(&["data: {\"type\":\"STARTED\"}\n\n"]).receipt(ROOT),
            1 => Reply::sse(&["data: x\n\n"]),
            2 => Reply::sse(&["data: x\n\n"]).receipt(OTHER_ROOT),
            3 => Reply::json(200, r#"{"n":1}"#).receipt(ROOT),
            4 => Reply::json(503, r#"{"error":"not initialized"}"#),
            _ => Reply::json(
                409,
                &serde_json::json!({"error":"workspace_mismatch","expected_root":ROOT,"served_root":OTHER_ROOT}).to_string(),
            ),
        }
    });
    let client = client(&mock.base_url);
    let auth = receipt_authority();
    let target = "/api/v1/keepers/asks/follow-up?name=alpha&ask_id=a1";
    let stream = client.get_sse(&auth, target).await.unwrap();
    assert_eq!(stream.admission_mode(), Some(AdmissionMode::Receipt));
    let (frames, end) = drain(stream).await;
    assert_eq!(frames[0].data, r#"{"type":"STARTED"}"#);
    assert_eq!(end, SseEnd::Completed);
    assert_eq!(
        mock.seen(FOLLOW)[0].header("accept").as_deref(),
        Some("text/event-stream")
    );

    assert_eq!(
        client.get_sse(&auth, target).await.unwrap_err(),
        ClientError::ReceiptMissing
    );
    assert!(matches!(
        client.get_sse(&auth, target).await,
        Err(ClientError::ReceiptMismatch { .. })
    ));
    assert_eq!(
        client.get_sse(&auth, target).await.unwrap_err(),
        ClientError::NotEventStream {
            content_type: Some("application/json".into())
        }
    );
    assert_eq!(
        client.get_sse(&auth, target).await.unwrap_err(),
        ClientError::Warming
    );
    assert!(matches!(
        client.get_sse(&auth, target).await,
        Err(ClientError::WorkspaceMismatch { .. })
    ));
}

#[tokio::test]
async fn s10_3_get_sse_health_mode_and_strict() {
    let mock = MockServer::start().await;
    mock.route("GET", FOLLOW, |_, _| Reply::sse(&["data: x\n\n"]));
    let auth = authority(ROOT, AdmissionMode::Health);
    let stream = client(&mock.base_url).get_sse(&auth, FOLLOW).await.unwrap();
    assert_eq!(stream.admission_mode(), Some(AdmissionMode::Health));
    let strict = client_with(&mock.base_url, |c| c.strict_receipts = true);
    assert_eq!(
        strict.get_sse(&auth, FOLLOW).await.unwrap_err(),
        ClientError::HealthModeRefused
    );
    assert_eq!(mock.hits(FOLLOW), 1);
}
