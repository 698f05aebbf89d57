//! Turn control (§14.13 interrupt with exact targets, as newer MASC; §14.14 run-next and
//! steer): over the scripted chat turns the chat stream runs (`routes::chat`) and the §4.2
//! census of the keepers table. An interrupt sets the named turn's stop flag; the script then
//! ends it as MASC ends a stopped turn (`Failed`/`Turn_cancelled`, then `RUN_ERROR`). A turn in
//! the census that no script runs (a seeded autonomous turn) is cleared from the census.

use crate::server::http::{ApiResult, Guard, Operator, json_ok, json_status};
use crate::server::state::{AppState, ChatTurns};
use crate::server::store::{chat, keepers};
use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::post;
use serde_json::{Map, Value, json};
use std::sync::atomic::Ordering;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/keepers/turn/interrupt", post(interrupt))
        .route("/api/v1/keepers/turn/run-next", post(run_next))
}

fn message_error(status: StatusCode, message: &str) -> Response {
    json_status(status, json!({"error": {"message": message}}))
}

/// The body as a JSON object, or the 400 message.
fn object(body: &[u8]) -> Result<Map<String, Value>, String> {
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err("JSON object body required".into()),
        Err(e) => Err(format!("invalid json: {e}")),
    }
}

/// A present, non-empty string field; `Err` for a null, empty or non-string value.
fn token_field(m: &Map<String, Value>, key: &str) -> Result<Option<String>, ()> {
    match m.get(key) {
        None => Ok(None),
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(Some(s.clone())),
        Some(_) => Err(()),
    }
}

/// The census row of `name` (§4.2): its control token and the running turn's interrupt token.
pub(super) async fn census(
    state: &AppState,
    name: &str,
) -> Result<Option<(String, Option<String>)>, crate::server::store::StoreError> {
    let name = name.to_string();
    let rows = state.store().read(keepers::turns).await?;
    Ok(rows
        .into_iter()
        .find(|r| r["keeper_name"] == json!(name))
        .map(|r| {
            (
                r["chat_control_token"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                r["turn"]["interrupt_token"].as_str().map(str::to_string),
            )
        }))
}

/// The running scripted turn of `keeper`, if any (request id).
fn running(turns: &ChatTurns, keeper: &str) -> Option<String> {
    turns
        .iter()
        .find(|(_, t)| t.keeper == keeper && t.started)
        .map(|(id, _)| id.clone())
}

/// Signals the running turn of `keeper` to stop; `Some(turn_id)` when a script holds it.
fn stop_running(state: &AppState, keeper: &str) -> Option<i64> {
    state.chat_turns(|turns| {
        let id = running(turns, keeper)?;
        let turn = turns.get(&id)?;
        turn.stop.store(true, Ordering::SeqCst);
        super::chat_batch::stop_execution(turns, &id);
        Some(turn.turn_id)
    })
}

enum Target {
    Request(String),
    Token(String),
}

async fn interrupt(_: Guard<Operator>, State(state): State<AppState>, body: Bytes) -> ApiResult {
    let m = match object(&body) {
        Ok(m) => m,
        Err(msg) => return Ok(message_error(StatusCode::BAD_REQUEST, &msg)),
    };
    let name = match m.get("name") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.trim().to_string(),
        _ => {
            return Ok(message_error(
                StatusCode::BAD_REQUEST,
                "name (string) is required",
            ));
        }
    };
    let target = match (
        token_field(&m, "request_id"),
        token_field(&m, "interrupt_token"),
    ) {
        (Ok(Some(id)), Ok(None)) => Target::Request(id),
        (Ok(None), Ok(Some(token))) => Target::Token(token),
        _ => {
            return Ok(message_error(
                StatusCode::BAD_REQUEST,
                "exactly one of request_id or interrupt_token (non-empty string) is required",
            ));
        }
    };
    if token_field(&m, "expected_control_token").is_err() {
        return Ok(message_error(
            StatusCode::BAD_REQUEST,
            "expected_control_token must be a non-empty string",
        ));
    }
    let Some((control, census_token)) = census(&state, &name).await? else {
        return Ok(message_error(
            StatusCode::NOT_FOUND,
            "keeper not registered",
        ));
    };
    let mut reply = match &target {
        Target::Request(id) => {
            let signalled = state.chat_turns(|turns| match turns.get(id) {
                Some(t) if t.keeper == name && t.started => {
                    t.stop.store(true, Ordering::SeqCst);
                    super::chat_batch::stop_execution(turns, id);
                    Ok(t.turn_id)
                }
                _ => Err(running(turns, &name)),
            });
            match signalled {
                Ok(turn_id) => json!({"signalled": true, "turn_id": turn_id, "paused": false}),
                Err(Some(current)) => json!({
                    "signalled": false,
                    "reason": "operation_not_current",
                    "detail": "another turn of this keeper is running",
                    "current_request_id": current,
                }),
                Err(None) => json!({"signalled": false, "reason": "no_in_flight_turn"}),
            }
        }
        Target::Token(token) => match census_token {
            None => json!({"signalled": false, "reason": "no_in_flight_turn"}),
            Some(current) if current != *token => {
                return Ok(json_status(
                    StatusCode::CONFLICT,
                    json!({"error": "target is no longer current", "signalled": false,
                           "paused": false, "chat_control_token": control}),
                ));
            }
            Some(_) => match stop_running(&state, &name) {
                Some(turn_id) => json!({"signalled": true, "turn_id": turn_id, "paused": false}),
                None => {
                    // A census turn no script runs (seeded): it stops at once.
                    let n = name.clone();
                    state
                        .store()
                        .write(move |tx| keepers::set_chat_turn(tx, &n, None, None))
                        .await?;
                    json!({"signalled": true, "paused": false})
                }
            },
        },
    };
    if let Some(obj) = reply.as_object_mut() {
        match target {
            Target::Request(id) => obj.insert("request_id".into(), json!(id)),
            Target::Token(token) => obj.insert("interrupt_token".into(), json!(token)),
        };
        obj.insert("chat_control_token".into(), json!(control));
    }
    Ok(json_ok(reply))
}

async fn run_next(_: Guard<Operator>, State(state): State<AppState>, body: Bytes) -> ApiResult {
    let m = match object(&body) {
        Ok(m) => m,
        Err(msg) => return Ok(message_error(StatusCode::BAD_REQUEST, &msg)),
    };
    let (Some(Value::String(name)), Ok(Some(request_id))) =
        (m.get("name"), token_field(&m, "request_id"))
    else {
        return Ok(message_error(
            StatusCode::BAD_REQUEST,
            "name and request_id (strings) are required",
        ));
    };
    let token = match m.get("interrupt_token") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.clone()),
        Some(_) => {
            return Ok(message_error(
                StatusCode::BAD_REQUEST,
                "interrupt_token must be null or a non-empty string",
            ));
        }
    };
    let Some((_, census_token)) = census(&state, name).await? else {
        return Ok(message_error(
            StatusCode::NOT_FOUND,
            "keeper not registered",
        ));
    };
    let queued = state.chat_turns(|turns| match turns.get_mut(&request_id) {
        Some(t) if t.keeper == *name && !t.started => {
            t.prioritized = true;
            Some(true)
        }
        Some(_) => Some(false),
        None => None,
    });
    match queued {
        Some(true) => {}
        Some(false) => {
            return Ok(json_status(
                StatusCode::CONFLICT,
                json!({"error": "input already started or settled"}),
            ));
        }
        None => {
            let id = request_id.clone();
            let known = state.store().read(move |c| chat::operation(c, &id)).await?;
            return Ok(match known {
                Some(_) => json_status(
                    StatusCode::CONFLICT,
                    json!({"error": "input already started or settled"}),
                ),
                None => message_error(StatusCode::NOT_FOUND, "unknown chat operation"),
            });
        }
    }
    let signalled = match (token, census_token) {
        (Some(asked), Some(current)) if asked == current => stop_running(&state, name).is_some(),
        _ => false,
    };
    Ok(json_ok(json!({
        "request_id": request_id,
        "prioritized": true,
        "signalled": signalled,
        "detail": "",
    })))
}
