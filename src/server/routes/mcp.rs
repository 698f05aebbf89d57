//! The MCP observer feed (§15.2, as in MASC): `POST /mcp` answers `initialize` with a fresh
//! `Mcp-Session-Id`; `GET /mcp?sse_kind=observer` streams the workspace's runtime events to a
//! known session holding a token (a token is required even where the other routes need none):
//! `retry: 3000` first, then `id:` / `event: message` / one `data:` line per event, a `: ping`
//! comment every 30 s, `Last-Event-ID` replaying the bounded buffer. A refused session is a 404
//! with a JSON-RPC error and a new, uninitialised session id that must not be reused.
//!
//! What the demo's Keepers do is played by a scripted emitter: one event every half second,
//! cycling through every type of §15.2's table (tool calls and returns, turn boundaries and
//! settlements, heartbeats, chat, the Gate signals, snapshots), ids counting up from 1.

use crate::server::state::AppState;
use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Extension, RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};
use std::collections::{HashSet, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;
use tokio::sync::broadcast;

/// How many events a reconnect can replay.
const REPLAY: usize = 256;
/// One scripted event this often.
const EMIT_EVERY: Duration = Duration::from_millis(500);
const PING_EVERY: Duration = Duration::from_secs(30);

/// Sessions, the replay buffer and the live feed of one server.
pub struct ObserverHub {
    sessions: Mutex<HashSet<String>>,
    next_session: AtomicU64,
    buffer: Mutex<VecDeque<(u64, String)>>,
    live: broadcast::Sender<(u64, String)>,
    started: std::sync::Once,
}

impl ObserverHub {
    fn new() -> Arc<Self> {
        let (live, _) = broadcast::channel(REPLAY);
        Arc::new(Self {
            sessions: Mutex::new(HashSet::new()),
            next_session: AtomicU64::new(1),
            buffer: Mutex::new(VecDeque::new()),
            live,
            started: std::sync::Once::new(),
        })
    }

    fn publish(&self, id: u64, event: &Value) {
        let data = event.to_string();
        if let Ok(mut b) = self.buffer.lock() {
            if b.len() == REPLAY {
                b.pop_front();
            }
            b.push_back((id, data.clone()));
        }
        let _ = self.live.send((id, data));
    }

    /// Starts the scripted emitter once; it ends with the server (it holds the hub weakly).
    fn start(self: &Arc<Self>) {
        let weak: Weak<Self> = Arc::downgrade(self);
        self.started.call_once(move || {
            tokio::spawn(async move {
                let mut n: u64 = 0;
                loop {
                    tokio::time::sleep(EMIT_EVERY).await;
                    let Some(hub) = weak.upgrade() else { return };
                    n += 1;
                    hub.publish(n, &scripted(n));
                }
            });
        });
    }
}

fn now() -> f64 {
    crate::server::store::now_unix()
}

/// The `n`th scripted event: every §15.2 type in turn, about the demo's Keepers.
pub fn scripted(n: u64) -> Value {
    let ts = now();
    let turn = n / 12 + 1;
    let agent = |kind: &str, keeper: &str, tool: Option<&str>, payload: Value| {
        json!({"type": format!("agent_core:{kind}"), "event_type": kind, "ts_unix": ts,
               "correlation_id": format!("trace-{keeper}"), "run_id": null, "caused_by": null,
               "agent_name": keeper, "task_id": null, "turn": turn, "tool_name": tool,
               "payload": payload})
    };
    match n % 12 {
        1 => agent("turn_started", "rondo", None, json!({"turn": turn})),
        2 => agent(
            "tool_called",
            "rondo",
            Some("web_fetch"),
            json!({"turn": turn, "tool_use_id": format!("tu-{n}"), "batch_index": 0, "batch_size": 1}),
        ),
        3 => agent(
            "tool_completed",
            "rondo",
            Some("web_fetch"),
            json!({"turn": turn, "duration_ms": 840}),
        ),
        4 => json!({"type": "keeper_tool_call", "name": "rondo", "tool_name": "web_fetch",
                    "duration_ms": 840, "disposition": "completed", "ts_unix": ts}),
        5 => json!({"type": "keeper_turn_complete", "name": "rondo", "generation": 1, "turn": turn,
                    "model_used": null, "input_tokens": 1200 + n, "output_tokens": 310,
                    "cost_usd": 0.0042, "tool_calls_made": 1, "cache_read_tokens": null,
                    "cache_n": 0, "prompt_n": null, "total_turns": turn, "ts_unix": ts}),
        6 => json!({"type": "keeper_heartbeat", "name": "mira", "generation": 1, "ts_unix": ts,
                    "phase": "turn_running", "in_turn": true, "in_flight_elapsed_ms": 4200,
                    "since_last_progress_ms": 900}),
        7 => {
            json!({"type": "keeper_chat_appended", "name": "mira", "connector": "tui", "ts_unix": ts})
        }
        8 => json!({"type": "keeper_chat_operation_event", "name": "mira", "operation_id": "op-1",
                    "ag_ui_event": {"type": "TEXT_MESSAGE_CONTENT"}, "ts_unix": ts}),
        9 => json!({"type": "keeper_waiting_inventory_changed", "keeper_name": "sangsu",
                    "queue_kind": "event_queue", "ts_unix": ts}),
        10 => json!({"type": "approval:pending", "payload": {"id": "gate-101",
                    "keeper_name": "rondo", "tool_name": "github_push"}}),
        11 => json!({"type": "keeper_composite_changed", "name": "sangsu", "ts_unix": ts}),
        _ => json!({"type": "operator_snapshot"}),
    }
}

pub fn router() -> Router<AppState> {
    let hub = ObserverHub::new();
    Router::new()
        .route("/mcp", post(initialize).get(observe))
        .layer(Extension(hub))
}

fn jsonrpc_error(status: StatusCode, code: i64, message: &str, session: Option<&str>) -> Response {
    let mut resp = (
        status,
        axum::Json(json!({"jsonrpc": "2.0", "id": null,
                          "error": {"code": code, "message": message}})),
    )
        .into_response();
    if let Some(s) = session.and_then(|s| HeaderValue::from_str(s).ok()) {
        resp.headers_mut().insert("mcp-session-id", s);
    }
    resp
}

fn fresh_session(hub: &ObserverHub) -> String {
    format!(
        "mcp-sess-{}",
        hub.next_session.fetch_add(1, Ordering::SeqCst)
    )
}

fn bearer(headers: &HeaderMap) -> bool {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("Bearer ") && v.len() > "Bearer ".len())
}

/// `initialize`: a fresh session id in `Mcp-Session-Id` (and a cookie, as MASC sets one).
async fn initialize(
    Extension(hub): Extension<Arc<ObserverHub>>,
    State(_state): State<AppState>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let accept = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    if !(accept.contains("application/json") && accept.contains("text/event-stream")) {
        return jsonrpc_error(
            StatusCode::NOT_ACCEPTABLE,
            -32600,
            "Accept must list application/json and text/event-stream",
            None,
        );
    }
    let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    if request.get("method").and_then(Value::as_str) != Some("initialize") {
        return jsonrpc_error(StatusCode::BAD_REQUEST, -32600, "expected initialize", None);
    }
    let session = fresh_session(&hub);
    if let Ok(mut s) = hub.sessions.lock() {
        s.insert(session.clone());
    }
    let mut resp = axum::Json(json!({"jsonrpc": "2.0", "id": request.get("id"),
        "result": {"protocolVersion": request.pointer("/params/protocolVersion"),
                   "capabilities": {}, "serverInfo": {"name": "masc-tui embedded", "version": "0"}}}))
    .into_response();
    if let Ok(v) = HeaderValue::from_str(&session) {
        resp.headers_mut().insert("mcp-session-id", v);
    }
    resp
}

/// The observer stream of a known session with a token.
async fn observe(
    Extension(hub): Extension<Arc<ObserverHub>>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Response {
    if query.as_deref() != Some("sse_kind=observer") {
        return jsonrpc_error(
            StatusCode::BAD_REQUEST,
            -32600,
            "sse_kind=observer expected",
            None,
        );
    }
    if !bearer(&headers) {
        return jsonrpc_error(
            StatusCode::NOT_FOUND,
            -32001,
            "missing token",
            Some(&fresh_session(&hub)),
        );
    }
    let session = headers
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let known = hub.sessions.lock().is_ok_and(|s| s.contains(&session));
    if !known {
        return jsonrpc_error(
            StatusCode::NOT_FOUND,
            -32001,
            "unknown session",
            Some(&fresh_session(&hub)),
        );
    }
    let after = match headers.get("last-event-id").map(|v| v.to_str()) {
        None => None,
        Some(Ok(v)) => match v.trim().parse::<u64>() {
            Ok(n) => Some(n),
            Err(_) => {
                return jsonrpc_error(
                    StatusCode::BAD_REQUEST,
                    -32600,
                    "invalid Last-Event-ID",
                    None,
                );
            }
        },
        Some(Err(_)) => {
            return jsonrpc_error(
                StatusCode::BAD_REQUEST,
                -32600,
                "invalid Last-Event-ID",
                None,
            );
        }
    };
    hub.start();
    let mut live = hub.live.subscribe();
    let replay: Vec<(u64, String)> = match after {
        Some(n) => hub
            .buffer
            .lock()
            .map(|b| b.iter().filter(|(id, _)| *id > n).cloned().collect())
            .unwrap_or_default(),
        None => Vec::new(),
    };
    let stream = async_stream::stream! {
        yield Ok::<Bytes, std::io::Error>(Bytes::from_static(b"retry: 3000\n\n"));
        let mut last = after.unwrap_or(0);
        for (id, data) in replay {
            last = id;
            yield Ok(Bytes::from(format!("id: {id}\nevent: message\ndata: {data}\n\n")));
        }
        let mut ping = tokio::time::interval(PING_EVERY);
        ping.tick().await;
        loop {
            tokio::select! {
                got = live.recv() => match got {
                    Ok((id, data)) if id > last => {
                        last = id;
                        yield Ok(Bytes::from(format!("id: {id}\nevent: message\ndata: {data}\n\n")));
                    }
                    Ok(_) => {}
                    Err(broadcast::error::RecvError::Lagged(_)) => {}
                    Err(broadcast::error::RecvError::Closed) => return,
                },
                _ = ping.tick() => yield Ok(Bytes::from_static(b": ping\n\n")),
            }
        }
    };
    Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, "text/event-stream")
        .header(header::CACHE_CONTROL, "no-cache")
        .body(Body::from_stream(stream))
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}
