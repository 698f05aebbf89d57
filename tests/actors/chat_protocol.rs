#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! Chat stream protocol faults the embedded server has no plan for (protocol.md §4.3, §11, §13
//! "chat stream: two acceptances; RUN_ERROR before acceptance"), against a scripted MASC-like
//! server: the send actor validates the stream, surfaces the protocol error as a typed outcome,
//! and never resends.

use crate::chat_support::{Rig, rig};
use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use masc_tui::actors::chat::{Reconciliation, SendOutcome, UnknownCause};
use masc_tui::outbox::SaveRowState;
use masc_tui::protocol::outcome::SaveClass;
use masc_tui::view::screens::chat::{HistoryState, SendPhase};
use masc_tui::view::transcript::{EntryKind, FailureOrigin};
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

const ROOT: &str = "/srv/mock-workspace/.masc";

#[derive(Clone, Default)]
struct Mock {
    posts: Arc<AtomicUsize>,
    operation_gets: Arc<AtomicUsize>,
}

fn acceptance(id: &str) -> Value {
    json!({"type":"CUSTOM","threadId":"default","timestamp":1.0,
           "name":"KEEPER_CHAT_OPERATION_ACCEPTED",
           "value":{"operation_id":id,"state":"Queued","queued_count":0}})
}

fn sse(events: &[Value]) -> Response {
    let body: String = events.iter().map(|e| format!("data: {e}\n\n")).collect();
    (
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        Body::from(body),
    )
        .into_response()
}

async fn stream(State(mock): State<Mock>, body: Bytes) -> Response {
    mock.posts.fetch_add(1, Ordering::SeqCst);
    let req: Value = serde_json::from_slice(&body).unwrap();
    let id = req["request_id"].as_str().unwrap().to_string();
    match req["message"].as_str().unwrap() {
        // §13: two acceptances in one stream.
        "twice" => sse(&[
            acceptance(&id),
            json!({"type":"RUN_STARTED","threadId":"keeper:alpha","timestamp":1.1,
                   "runId":format!("keeper-operation-run-{id}")}),
            acceptance(&id),
        ]),
        // §13: RUN_ERROR before the acceptance with a listed code (§11: not applied).
        _ => sse(&[
            json!({"type":"RUN_ERROR","timestamp":1.0,"message":"owner is stopping",
                          "code":"owner_stopping"}),
        ]),
    }
}

async fn health() -> Response {
    axum::Json(json!({"status":"ok","server":"masc","version":"0.22.0",
        "paths":{"effective_base_path":"/srv/mock-workspace","effective_masc_root":ROOT},
        "startup":{"phase":"ready","state_ready":true}}))
    .into_response()
}

async fn history() -> Response {
    axum::Json(
        json!({"schema":"masc.keeper_chat_history.page.v1","messages":[],
        "has_more":false,"next_before":null}),
    )
    .into_response()
}

async fn operation(
    State(mock): State<Mock>,
    Path((_name, id)): Path<(String, String)>,
) -> Response {
    mock.operation_gets.fetch_add(1, Ordering::SeqCst);
    (
        StatusCode::NOT_FOUND,
        axum::Json(json!({"error": format!("unknown operation: {id}")})),
    )
        .into_response()
}

async fn mock_server() -> (String, Mock) {
    let mock = Mock::default();
    let app = Router::new()
        .route("/health", get(health))
        .route("/api/v1/keepers/chat/stream", post(stream))
        .route("/api/v1/keepers/{name}/chat/history/page", get(history))
        .route(
            "/api/v1/keepers/{name}/chat/operations/{id}",
            get(operation),
        )
        .with_state(mock.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (format!("http://{addr}"), mock)
}

async fn ready(dir: &tempfile::TempDir) -> (Rig, Mock) {
    let (url, mock) = mock_server().await;
    let mut rig = rig(&url, None, dir.path().join("outbox.sqlite3")).await;
    rig.open("alpha");
    rig.pump_until(|m| {
        m.chat
            .pane
            .as_ref()
            .is_some_and(|p| p.history == HistoryState::Ready)
    })
    .await;
    (rig, mock)
}

async fn until_ended(rig: &mut Rig, id: &str) -> SendOutcome {
    loop {
        if let Some(SendPhase::Ended(o)) = rig.pane().send(id).map(|s| s.phase.clone()) {
            return o;
        }
        rig.pump_one().await;
    }
}

/// §4.3 "acceptance first and exactly once": a second acceptance is a protocol error,
/// surfaced as a typed outcome (unknown: the server did take the request), shown as an error
/// row, written to the outbox, reconciled by the exact id, never resent.
#[tokio::test]
async fn duplicate_acceptance_is_a_surfaced_protocol_error() {
    let dir = tempfile::tempdir().unwrap();
    let (mut rig, mock) = ready(&dir).await;
    let id = rig.send("alpha", "twice");
    let outcome = until_ended(&mut rig, &id).await;
    assert_eq!(
        outcome,
        SendOutcome::OutcomeUnknown {
            cause: UnknownCause::ProtocolError {
                reason: "duplicate_acceptance".into()
            },
            accepted: true,
        }
    );
    {
        let view = rig.pane().view();
        let row = view.transcript().get(&format!("{id}:protocol")).unwrap();
        assert!(matches!(
            row.kind,
            EntryKind::Failure(FailureOrigin::Other(_))
        ));
    }
    // Reconciliation by exact id: the mock holds no record (404 → not yet recorded, then
    // Absent after the rig's unknown window), not resent.
    rig.pump_until(|m| {
        m.chat
            .pane
            .as_ref()
            .and_then(|p| p.send(&id))
            .is_some_and(|s| matches!(s.reconciliation, Some(Reconciliation::Absent { .. })))
    })
    .await;
    assert!(rig.pane().send(&id).unwrap().outcome_unknown());
    // Reconciled as not recorded, it is no longer "reconciling" (C-44).
    assert_eq!(
        rig.pane().progress(),
        masc_tui::view::chat::Progress::Unconfirmed(masc_tui::view::chat::Unconfirmed {
            reconciling: 0,
            not_recorded: 1,
            unreconcilable: 0,
        })
    );
    // Read again while the POST might still land (the unknown window), then not any more.
    let gets = mock.operation_gets.load(Ordering::SeqCst);
    assert!(gets >= 2, "{gets}");
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    assert_eq!(mock.operation_gets.load(Ordering::SeqCst), gets);
    assert_eq!(mock.posts.load(Ordering::SeqCst), 1);
    assert_eq!(
        rig.outbox().save_row(&id).unwrap().unwrap().state,
        SaveRowState::Settled(SaveClass::OutcomeUnknown)
    );
    rig.stop().await;
}

/// §11: `RUN_ERROR` before the acceptance with a listed code is a verified "not applied";
/// the draft is kept.
#[tokio::test]
async fn run_error_before_acceptance_with_a_listed_code_is_not_applied() {
    let dir = tempfile::tempdir().unwrap();
    let (mut rig, mock) = ready(&dir).await;
    let id = rig.send("alpha", "stop-me");
    let outcome = until_ended(&mut rig, &id).await;
    assert_eq!(
        outcome,
        SendOutcome::NotApplied {
            cause: "run_error_owner_stopping".into(),
            detail: Some("owner is stopping".into()),
        }
    );
    assert!(outcome.keeps_draft());
    assert_eq!(
        rig.outbox().save_row(&id).unwrap().unwrap().state,
        SaveRowState::Settled(SaveClass::NotApplied)
    );
    assert_eq!(mock.posts.load(Ordering::SeqCst), 1);
    assert_eq!(
        mock.operation_gets.load(Ordering::SeqCst),
        0,
        "nothing to reconcile"
    );
    rig.stop().await;
}
