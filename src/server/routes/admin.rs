//! Test-mode admin routes (`--test-mode` only; loopback like the whole server): replace the
//! fault plan, read request counts, replace a task's event log (for `cursor_invalidated`).

use crate::server::faults::FaultPlan;
use crate::server::http::{Admin, ApiResult, Guard, error_body, json_ok, parse_query, query_get};
use crate::server::state::AppState;
use crate::server::store::tasks;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use serde_json::json;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/__admin/faults", post(replace_faults).get(read_faults))
        .route("/__admin/requests", get(requests))
        .route("/__admin/tasks/event-log", post(replace_event_log))
}

/// Replace a task's event log (new generation): older cursors answer `cursor_invalidated`.
async fn replace_event_log(
    _: Guard<Admin>,
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
    body: Bytes,
) -> ApiResult {
    let q = parse_query(raw.as_deref());
    let Some(task_id) = query_get(&q, "task_id").map(str::to_string) else {
        return Ok(error_body(StatusCode::BAD_REQUEST, "task_id is required"));
    };
    let events = if body.iter().all(u8::is_ascii_whitespace) {
        None
    } else {
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Replace {
            events: Vec<serde_json::Value>,
        }
        match serde_json::from_slice::<Replace>(&body) {
            Ok(r) => Some(r.events),
            Err(err) => {
                return Ok(error_body(
                    StatusCode::BAD_REQUEST,
                    &format!("invalid body: {err}"),
                ));
            }
        }
    };
    let id = task_id.clone();
    let generation = state
        .store()
        .write(move |tx| tasks::replace_log(tx, &id, events))
        .await?;
    tracing::info!(target: "masc_tui::server::fault", task_id = %task_id, generation, "task event log replaced");
    Ok(json_ok(
        json!({"ok": true, "task_id": task_id, "generation": generation}),
    ))
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
