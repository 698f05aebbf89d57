//! Async request family: `GET /api/v1/async-requests` (§6.3) and the single-request view
//! `GET /api/v1/async-requests/{request_id}` (§6.4).

use crate::server::http::{Admin, ApiResult, Guard, json_ok, json_status, with_echo};
use crate::server::state::AppState;
use crate::server::store::async_requests as store;
use axum::Router;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::get;
use serde_json::json;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/async-requests", get(list))
        .route("/api/v1/async-requests/{request_id}", get(single))
}

async fn list(_: Guard<Admin>, State(state): State<AppState>) -> ApiResult {
    Ok(json_ok(state.store().read(store::observation).await?))
}

async fn single(
    _: Guard<Admin>,
    State(state): State<AppState>,
    Path(request_id): Path<String>,
) -> ApiResult {
    let id = request_id.clone();
    let found = state.store().read(move |c| store::single(c, &id)).await?;
    Ok(match found {
        Some(body) => with_echo(
            json_ok(body),
            &["request_id", "submitted_by", "target_keeper"],
        ),
        None => json_status(
            StatusCode::NOT_FOUND,
            json!({"error": "unknown_request", "request_id": request_id}),
        ),
    })
}
