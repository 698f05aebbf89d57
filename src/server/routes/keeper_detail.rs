//! Keeper detail family: metadata (§14.7, as in MASC), Live Context (§14.8) and the metrics
//! tail (§14.9), the last two masc-tui extensions (docs/protocol-extensions.md).

use crate::server::http::{
    ApiResult, Guard, Operator, Read, clamp_limit, error_body, gate_error, json_ok, json_status,
    parse_query, query_get, with_echo,
};
use crate::server::routes::keeper_read::{KeeperName, keeper_ok};
use crate::server::state::AppState;
use crate::server::store::keeper_detail::{self as store, DetailRead};
use crate::server::store::now_unix;
use axum::Router;
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::get;
use serde_json::json;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/gate/keeper-status", get(keeper_status))
        .route("/api/v1/keepers/{name}/context", get(context))
        .route("/api/v1/keepers/{name}/metrics-tail", get(metrics_tail))
}

/// A §14.8/§14.9 read's answer: its body, 404 for an unknown Keeper, else `failed`'s answer
/// to why the Keeper could not be read.
fn answer(read: DetailRead, name: &str, failed: impl FnOnce(String) -> Response) -> Response {
    match read {
        DetailRead::Found(body) => keeper_ok(body),
        DetailRead::Unknown => error_body(
            StatusCode::NOT_FOUND,
            &format!("keeper \"{name}\" not found"),
        ),
        DetailRead::MetaUnreadable(why) | DetailRead::StoreUnreadable(why) => failed(why),
    }
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
async fn context(_: Guard<Read>, State(state): State<AppState>, keeper: KeeperName) -> ApiResult {
    let read = keeper.read(&state, store::keeper_context).await?;
    Ok(answer(read, &keeper.0, |why| {
        error_body(StatusCode::INTERNAL_SERVER_ERROR, &why)
    }))
}

/// §14.9: `limit` default 200, clamped 1–200; 500 `metrics_read_failed` when the store cannot
/// be read (a failed read, never "no records").
async fn metrics_tail(
    _: Guard<Read>,
    State(state): State<AppState>,
    keeper: KeeperName,
    RawQuery(raw): RawQuery,
) -> ApiResult {
    let q = parse_query(raw.as_deref());
    let limit = clamp_limit(query_get(&q, "limit"), 200, 1, 200);
    let read = keeper
        .read(&state, move |c, n| store::keeper_metrics_tail(c, n, limit))
        .await?;
    Ok(answer(read, &keeper.0, |why| {
        json_status(
            StatusCode::INTERNAL_SERVER_ERROR,
            json!({"error": "metrics_read_failed", "detail": why}),
        )
    }))
}
