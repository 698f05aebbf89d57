//! Held tool calls (§14.5; newer MASC): `GET /api/v1/keepers/tool-approvals` lists every call
//! a Keeper's turn waits on, oldest first; `POST /api/v1/keepers/tool-approval` answers one.
//! Errors as §14.4 (`{"error":{"message":…}}`).

use super::keeper_config::object_body;
use crate::server::http::{ApiResult, Guard, Operator, Read, json_ok, json_status};
use crate::server::state::AppState;
use crate::server::store::held_calls::{self as store, Answered};
use crate::server::store::keepers;
use crate::server::store::now_unix;
use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, post};
use serde_json::{Value, json};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/keepers/tool-approvals", get(list))
        .route("/api/v1/keepers/tool-approval", post(answer))
}

fn message_error(status: StatusCode, message: &str) -> axum::response::Response {
    json_status(status, json!({"error": {"message": message}}))
}

async fn list(_: Guard<Read>, State(state): State<AppState>) -> ApiResult {
    let now = now_unix();
    let calls = state.store().read(move |c| store::waiting(c, now)).await?;
    let pending: Vec<Value> = calls.iter().map(store::HeldCall::to_json).collect();
    Ok(json_ok(json!({ "pending": pending })))
}

async fn answer(_: Guard<Operator>, State(state): State<AppState>, body: Bytes) -> ApiResult {
    let m = object_body(&body, |msg| message_error(StatusCode::BAD_REQUEST, msg))?;
    let text = |key: &str| {
        m.get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty())
            .map(str::to_string)
    };
    let Some(name) = text("name") else {
        return Ok(message_error(
            StatusCode::BAD_REQUEST,
            "name (string) is required",
        ));
    };
    let Some(call_id) = text("tool_call_id") else {
        return Ok(message_error(
            StatusCode::BAD_REQUEST,
            "tool_call_id (string) is required",
        ));
    };
    let decision = match m.get("decision") {
        Some(Value::String(s)) if s == "approve" || s == "deny" => s.clone(),
        other => {
            let got = other.map_or_else(|| "null".to_string(), Value::to_string);
            return Ok(message_error(
                StatusCode::BAD_REQUEST,
                &format!("decision must be approve or deny, got {got}"),
            ));
        }
    };
    let n = name.clone();
    if !state.store().read(move |c| keepers::exists(c, &n)).await? {
        return Ok(message_error(
            StatusCode::NOT_FOUND,
            "keeper not registered",
        ));
    }
    let (n, id, d) = (name, call_id, decision.clone());
    let now = now_unix();
    let answered = state
        .store()
        .write(move |tx| store::answer(tx, &n, &id, &d, now))
        .await?;
    let (settled, remembered) = match answered {
        Answered::Settled => (true, false),
        Answered::Remembered => (false, true),
        Answered::Nothing => (false, false),
    };
    Ok(json_ok(json!({
        "settled": settled,
        "remembered": remembered,
        "decision": decision,
    })))
}
