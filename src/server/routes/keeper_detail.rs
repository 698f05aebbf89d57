//! Keeper detail family: metadata (§14.7, as in MASC), Live Context (§14.8) and the metrics
//! tail (§14.9), the last two masc-tui extensions (docs/protocol-extensions.md).

use crate::server::http::{
    ApiResult, Guard, Operator, Public, Read, clamp_limit, error_body, gate_error, json_ok,
    json_status, parse_query, query_get, with_echo,
};
use crate::server::state::AppState;
use crate::server::store::keeper_detail::{self as store, DetailRead};
use crate::server::store::now_unix;
use axum::Router;
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::get;
use serde_json::json;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/gate/keeper-status", get(keeper_status))
        .route("/api/v1/keepers/{name}/context", get(context))
        .route("/api/v1/keepers/{name}/metrics-tail", get(metrics_tail))
        .route("/api/v1/dashboard/gate", get(dashboard_gate))
}

/// MASC's keeper-name check, as far as the demo needs it: non-empty, no path or control
/// characters (names are otherwise Unicode, e.g. `하늘`).
pub(crate) fn valid_name(name: &str) -> bool {
    !name.trim().is_empty()
        && name.len() <= 128
        && !name
            .chars()
            .any(|c| c.is_control() || matches!(c, '/' | '\\'))
        && name != "."
        && name != ".."
}

pub(crate) fn invalid_name(name: &str) -> Response {
    error_body(
        StatusCode::BAD_REQUEST,
        &format!("invalid keeper name: {name}"),
    )
}

fn not_found(name: &str) -> Response {
    error_body(
        StatusCode::NOT_FOUND,
        &format!("keeper \"{name}\" not found"),
    )
}

/// §14.7: gate envelope errors; 404 `unknown keeper: <name>`; 502 when the status tool fails
/// (the Keeper's metadata is unreadable).
async fn keeper_status(
    _: Guard<Operator>,
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
) -> ApiResult {
    let q = parse_query(raw.as_deref());
    let Some(name) = query_get(&q, "name")
        .filter(|n| !n.trim().is_empty())
        .map(str::to_string)
    else {
        return Ok(gate_error(StatusCode::BAD_REQUEST, "name is required"));
    };
    let n = name.clone();
    let read = state
        .store()
        .read(move |c| store::keeper_status(c, &n, now_unix()))
        .await?;
    Ok(match read {
        DetailRead::Found(body) => with_echo(json_ok(body), &["name"]),
        DetailRead::Unknown => {
            gate_error(StatusCode::NOT_FOUND, &format!("unknown keeper: {name}"))
        }
        DetailRead::MetaUnreadable(why) | DetailRead::StoreUnreadable(why) => gate_error(
            StatusCode::BAD_GATEWAY,
            &format!("keeper status failed: {why}"),
        ),
    })
}

/// §14.8: 400 invalid name, 404 unknown Keeper, 500 metadata unreadable.
async fn context(
    _: Guard<Read>,
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> ApiResult {
    if !valid_name(&name) {
        return Ok(invalid_name(&name));
    }
    let n = name.clone();
    let read = state
        .store()
        .read(move |c| store::keeper_context(c, &n))
        .await?;
    Ok(match read {
        DetailRead::Found(body) => with_echo(json_ok(body), &["keeper"]),
        DetailRead::Unknown => not_found(&name),
        DetailRead::MetaUnreadable(why) | DetailRead::StoreUnreadable(why) => {
            error_body(StatusCode::INTERNAL_SERVER_ERROR, &why)
        }
    })
}

/// §14.9: `limit` default 200, clamped 1–200; 500 `metrics_read_failed` when the store cannot
/// be read (a failed read, never "no records").
async fn metrics_tail(
    _: Guard<Read>,
    State(state): State<AppState>,
    Path(name): Path<String>,
    RawQuery(raw): RawQuery,
) -> ApiResult {
    if !valid_name(&name) {
        return Ok(invalid_name(&name));
    }
    let q = parse_query(raw.as_deref());
    let limit = clamp_limit(query_get(&q, "limit"), 200, 1, 200);
    let n = name.clone();
    let read = state
        .store()
        .read(move |c| store::keeper_metrics_tail(c, &n, limit))
        .await?;
    Ok(match read {
        DetailRead::Found(body) => with_echo(json_ok(body), &["keeper"]),
        DetailRead::Unknown => not_found(&name),
        DetailRead::MetaUnreadable(why) | DetailRead::StoreUnreadable(why) => json_status(
            StatusCode::INTERNAL_SERVER_ERROR,
            json!({"error": "metrics_read_failed", "detail": why}),
        ),
    })
}

/// §14.4: the workspace Gate mode (the demo workspace runs Auto Judge, configured).
async fn dashboard_gate(_: Guard<Public>) -> ApiResult {
    Ok(json_ok(json!({
        "hitl": {
            "gate_mode": {"mode": "auto_judge", "configured": true, "state": "ready"},
        },
    })))
}
