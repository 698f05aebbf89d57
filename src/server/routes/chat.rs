//! Chat family: the chat stream (§4.3, scripted SSE replies), operation reconciliation (§4.4)
//! and the history page (§4.5).

use super::chat_journal::frame;
use super::chat_script::{Script, acceptance};
use crate::server::http::{ApiResult, Faults, Guard, Operator, error_body, json_status};
use crate::server::state::{AppState, ChatTurn};
use crate::server::store::chat::{self, NewMessage};
use crate::server::store::{keepers, now_unix};
use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use axum::routing::{get, post};
use serde::Deserialize;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use tokio::sync::mpsc;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/keepers/chat/stream", post(stream))
        .route(
            "/api/v1/keepers/{name}/chat/operations/{request_id}",
            get(super::chat_reads::operation),
        )
        .route(
            "/api/v1/keepers/{name}/chat/history/page",
            get(super::chat_reads::history_page),
        )
        .route(
            "/api/v1/keepers/{name}/chat/history",
            get(super::chat_reads::history_array),
        )
        .route(
            "/api/v1/keepers/{name}/chat/events",
            get(super::chat_reads::events),
        )
}

/// §4.3 body. Unknown keys and duplicate keys are refused by serde (400).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ChatRequest {
    request_id: String,
    name: String,
    message: String,
    #[serde(default)]
    attachments: Option<Value>,
    #[serde(default)]
    user_blocks: Option<Value>,
    /// Newer MASC: resume a cut stream of the same `request_id` after this journal sequence.
    #[serde(default)]
    since_seq: Option<u64>,
    /// Newer MASC (§14.15): `{"kind":"interactive","control_token":str}`.
    #[serde(default)]
    admission_intent: Option<Value>,
}

/// The fields MASC v0.24.0 declares for this body (lib/server/server_routes_http_keeper_stream.ml
/// `parse_keeper_chat_stream_request`); any other is refused with its 400.
const AUG_FIELDS: &[&str] = &[
    "request_id",
    "name",
    "message",
    "user_blocks",
    "turn_instructions",
    "surface_context",
    "channel",
    "channel_user_id",
    "channel_user_name",
    "channel_workspace_id",
    "attachments",
];

fn bad_request(message: &str) -> Response {
    json_status(
        StatusCode::BAD_REQUEST,
        json!({"error": {"message": message}}),
    )
}

fn sse_response(rx: mpsc::Receiver<Bytes>) -> Response {
    let mut rx = rx;
    let body = async_stream::stream! {
        while let Some(chunk) = rx.recv().await {
            yield Ok::<Bytes, std::io::Error>(chunk);
        }
    };
    let mut resp = Response::new(Body::from_stream(body));
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    resp
}

async fn stream(
    _: Guard<Operator>,
    State(state): State<AppState>,
    Faults(faults): Faults,
    body: Bytes,
) -> ApiResult {
    // An August MASC (a played release) declares no `since_seq` / `admission_intent` and
    // writes no `id:` lines: a stream it cut cannot be resumed. The newer one journals.
    let journaled = state.release().is_none_or(|r| r.journals_chat());
    if !journaled
        && let Ok(Value::Object(fields)) = serde_json::from_slice::<Value>(&body)
        && let Some(key) = fields.keys().find(|k| !AUG_FIELDS.contains(&k.as_str()))
    {
        return Ok(bad_request(&format!(
            "request body field {key} is undeclared; accepted fields: {}",
            AUG_FIELDS.join(", ")
        )));
    }
    let req: ChatRequest = match serde_json::from_slice(&body) {
        Ok(r) => r,
        Err(err) => return Ok(bad_request(&format!("invalid request body: {err}"))),
    };
    let _ = (&req.attachments, &req.user_blocks);
    // §14.15 (newer MASC): `{"kind":"interactive","control_token":str}`; its answer rides the
    // acceptance as the `interactive` block.
    let intent_token = match &req.admission_intent {
        None => None,
        Some(intent) => match (
            intent.get("kind").and_then(Value::as_str),
            intent.get("control_token").and_then(Value::as_str),
        ) {
            (Some("interactive"), Some(token)) if !token.trim().is_empty() => {
                Some(token.to_string())
            }
            _ => {
                return Ok(bad_request(
                    "admission_intent must be {\"kind\":\"interactive\",\"control_token\":str}",
                ));
            }
        },
    };
    if req.request_id.trim().is_empty() {
        return Ok(bad_request("request_id is required"));
    }
    if req.name.trim().is_empty() {
        return Ok(bad_request("name is required"));
    }
    if req.message.trim().is_empty() && req.attachments.is_none() && req.user_blocks.is_none() {
        return Ok(bad_request("message is required"));
    }
    let name = req.name.clone();
    if !state
        .store()
        .read(move |c| keepers::exists(c, &name))
        .await?
    {
        return Ok(error_body(
            StatusCode::NOT_FOUND,
            &format!("unknown keeper: {}", req.name),
        ));
    }

    // The embedded server holds no pause after a stop: an admission with the current token is
    // `applied` (it signals and resumes nothing), another token `stale_control`.
    let interactive = match intent_token {
        None => None,
        Some(token) => {
            let current = super::turn_control::census(&state, &req.name)
                .await?
                .map(|(control, _)| control)
                .unwrap_or_default();
            Some(json!({
                "outcome": if token == current { "applied" } else { "stale_control" },
                "chat_control_token": current,
                "signalled": false,
                "resumed": false,
                "interrupt_error": null,
            }))
        }
    };
    let now = now_unix();
    let digest = hex::encode(Sha256::digest(
        format!("{}\n{}\n{}", req.request_id, req.name, req.message).as_bytes(),
    ))[..16]
        .to_string();
    let digest_again = digest.clone();
    let input = json!({"name": req.name, "message": req.message});
    let (id, keeper, message) = (
        req.request_id.clone(),
        req.name.clone(),
        req.message.clone(),
    );
    // One operation per request_id: the insert and the user row commit together, or an
    // existing operation is replayed.
    let created = state
        .store()
        .write(move |tx| {
            if !chat::insert_operation(tx, &id, &keeper, now, &digest, &input)? {
                return Ok(None);
            }
            let ts = chat::next_ts(tx, &keeper, now)?;
            chat::insert_message(
                tx,
                &NewMessage {
                    id: format!("m-{id}-user"),
                    keeper: keeper.clone(),
                    role: "user".into(),
                    content: message,
                    ts,
                    kind: None,
                    turn_ref: None,
                    tool_call_id: None,
                    tool_call_name: None,
                    extra: Some(chat::delivery(&id, json!({"kind": "accepted_user"}))),
                },
            )?;
            Ok(Some(chat::turn_count(tx, &keeper)? + 1))
        })
        .await?;

    let (tx, rx) = mpsc::channel::<Bytes>(64);
    match created {
        None => {
            let id = req.request_id.clone();
            let op = state.store().read(move |c| chat::operation(c, &id)).await?;
            // A re-post replays the acceptance only when it is the same send: same Keeper,
            // same message (the digest covers id, Keeper and message). Anything else reusing
            // the id is refused before any effect: nothing was stored for it.
            let Some(op) =
                op.filter(|o| o.keeper == req.name && o.execution_digest == digest_again)
            else {
                return Ok(json_status(
                    StatusCode::CONFLICT,
                    json!({
                        "error": "request_id_conflict: this request_id belongs to another Keeper or message",
                        "request_id": req.request_id,
                    }),
                ));
            };
            let mut event = acceptance(&req.request_id, &op.state, faults.echo_wrong);
            if let Some(mut block) = interactive.clone() {
                // A re-POST of the same request id admits nothing new.
                block["outcome"] = json!("replayed");
                event["value"]["interactive"] = block;
            }
            let journal = state.chat_journals(|j| j.get(&req.request_id));
            match (req.since_seq, journal) {
                // A resume (newer MASC): this stream's own acceptance, then the turn's events
                // after `since_seq`, the ones still to come included.
                (Some(since), Some(journal)) if journaled => {
                    let _ = tx.send(frame(None, &event)).await;
                    let after = if faults.resume_overlap { 0 } else { since };
                    journal.follow(after, tx, journaled);
                }
                _ => {
                    let _ = tx.send(frame(journaled.then_some(1), &event)).await;
                }
            }
        }
        Some(turn_no) => {
            let stop = Arc::new(AtomicBool::new(false));
            let ahead = state.chat_turns(|turns| {
                let ahead = turns.values().filter(|t| t.keeper == req.name).count();
                turns.insert(
                    req.request_id.clone(),
                    ChatTurn {
                        keeper: req.name.clone(),
                        turn_id: turn_no,
                        started: false,
                        prioritized: false,
                        stop: stop.clone(),
                        execution: None,
                    },
                );
                ahead
            });
            let journal = state.chat_journals(|j| j.open(&req.request_id));
            journal.follow(0, tx, journaled);
            let script = Script {
                stop,
                queued_count: ahead,
                state: state.clone(),
                request_id: req.request_id.clone(),
                keeper: req.name.clone(),
                message: req.message.clone(),
                turn_ref: format!("trace-{}#{turn_no}", req.name),
                echo_wrong: faults.echo_wrong,
                ends: faults.chat_turn,
                journal: journal.clone(),
                interactive,
                batching: journaled,
                batch_fault: faults.batch_bound.filter(|_| journaled),
            };
            tokio::spawn(async move {
                let id = script.request_id.clone();
                let state = script.state.clone();
                if let Err(err) = script.run().await {
                    tracing::error!(request_id = %id, error = %err, "chat script failed");
                }
                journal.end();
                state.chat_turns(|turns| turns.remove(&id));
            });
        }
    }
    Ok(sse_response(rx))
}
