//! Chat reads: operation reconciliation (§4.4) and the history page (§4.5).

use crate::server::http::{
    ApiResult, Guard, Public, Read, clamp_limit, error_body, json_ok, parse_query, query_get,
    with_echo, with_next_cursor,
};
use crate::server::state::AppState;
use crate::server::store::{chat, keepers};
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use serde_json::json;

pub(super) async fn operation(
    _: Guard<Read>,
    State(state): State<AppState>,
    Path((name, request_id)): Path<(String, String)>,
) -> ApiResult {
    let id = request_id.clone();
    let op = state.store().read(move |c| chat::operation(c, &id)).await?;
    match op {
        Some(op) if op.keeper == name => Ok(with_echo(json_ok(op.to_json()), &["operation_id"])),
        // MASC's `error_json` of lib/server/server_dashboard_http_keeper_chat_operations.ml:
        // a 404 that names a missing operation, told apart from an unknown route.
        _ => Ok(crate::server::http::json_status(
            StatusCode::NOT_FOUND,
            json!({
                "schema": "masc.keeper_chat_operation.error.v1",
                "error": "unknown_operation",
                "message": format!("unknown Keeper chat operation {request_id}"),
            }),
        )),
    }
}

pub(super) async fn history_page(
    _: Guard<Public>,
    State(state): State<AppState>,
    Path(name): Path<String>,
    RawQuery(raw): RawQuery,
) -> ApiResult {
    let q = parse_query(raw.as_deref());
    let before = match query_get(&q, "before") {
        None => None,
        Some(text) => match text.trim().parse::<f64>() {
            Ok(v) if v.is_finite() => Some(v),
            _ => {
                return Ok(error_body(
                    StatusCode::BAD_REQUEST,
                    "before must be a unix-seconds float",
                ));
            }
        },
    };
    let limit = clamp_limit(query_get(&q, "limit"), 50, 1, 200);
    let keeper = name.clone();
    let page = state
        .store()
        .read(move |c| {
            if !keepers::exists(c, &keeper)? {
                return Ok(None);
            }
            chat::history_page(c, &keeper, before, limit).map(Some)
        })
        .await?;
    let Some((messages, has_more)) = page else {
        return Ok(error_body(
            StatusCode::NOT_FOUND,
            &format!("unknown keeper: {name}"),
        ));
    };
    let next_before = messages.first().map(|m| m["ts"].clone());
    let resp = json_ok(json!({
        "schema": "masc.keeper_chat_history.page.v1",
        "messages": messages,
        "has_more": has_more,
        "next_before": next_before,
    }));
    Ok(with_next_cursor(
        resp,
        "next_before",
        before.map(|b| json!(b)),
    ))
}

/// `GET /api/v1/keepers/{name}/chat/history` (§15.9): the bare array — the newest window of
/// direct rows, then the autonomous turns. An unknown Keeper answers `[]` (as MASC does).
pub(super) async fn history_array(
    _: Guard<Public>,
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> ApiResult {
    let rows = state
        .store()
        .read(move |c| {
            if !keepers::exists(c, &name)? {
                return Ok(Vec::new());
            }
            chat::history_array(c, &name, 50)
        })
        .await?;
    Ok(json_ok(serde_json::Value::Array(rows)))
}
