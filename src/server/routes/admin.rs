//! Test-mode admin routes (`--test-mode` only; loopback like the whole server): replace the
//! fault plan, read request counts, replace a task's event log (for `cursor_invalidated`).

use crate::server::faults::FaultPlan;
use crate::server::http::{Admin, ApiResult, Guard, error_body, json_ok};
use crate::server::state::AppState;
use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, post};
use serde_json::json;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/__admin/faults", post(replace_faults).get(read_faults))
        .route("/__admin/requests", get(requests))
}

async fn replace_faults(_: Guard<Admin>, State(state): State<AppState>, body: Bytes) -> ApiResult {
    let text = String::from_utf8_lossy(&body);
    match FaultPlan::from_json(&text) {
        Ok(plan) => {
            let rules = plan.rules.len();
            tracing::info!(target: "masc_tui::server::fault", rules, "fault plan replaced");
            state.set_faults(plan);
            Ok(json_ok(json!({"ok": true, "rules": rules})))
        }
        Err(err) => Ok(error_body(
            StatusCode::BAD_REQUEST,
            &format!("invalid fault plan: {err}"),
        )),
    }
}

async fn read_faults(_: Guard<Admin>, State(state): State<AppState>) -> ApiResult {
    let plan = serde_json::to_value(state.fault_plan()).unwrap_or(json!(null));
    Ok(json_ok(plan))
}

async fn requests(_: Guard<Admin>, State(state): State<AppState>) -> ApiResult {
    let rows: Vec<_> = state
        .request_counts()
        .into_iter()
        .map(|(method, path, count)| json!({"method": method, "path": path, "count": count}))
        .collect();
    Ok(json_ok(json!({ "requests": rows })))
}
