//! Keeper operations (§14.1–§14.4, as in MASC): directive (pause, wakeup, resume), boot,
//! shutdown, purge and the per-Keeper tool approval mode. Statuses and bodies as protocol.md
//! describes MASC's; the store is the keepers table the roster reads.

use super::keeper_config::object_body;
use crate::server::http::{
    Admin, ApiResult, Guard, Operator, Read, gate_error, json_ok, json_status,
};
use crate::server::state::AppState;
use crate::server::store::keeper_ops::{self as store, BootOutcome, PurgeOutcome, ResumeOutcome};
use crate::server::store::now_unix;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use serde_json::{Map, Value, json};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/keepers/{name}/directive", post(directive))
        .route("/api/v1/keepers/{name}/boot", post(boot))
        .route("/api/v1/keepers/{name}/shutdown", post(shutdown))
        .route("/api/v1/dashboard/agents/purge", post(purge))
        .route(
            "/api/v1/keepers/tool-approval-mode",
            get(tool_modes).post(set_tool_mode),
        )
}

fn bad_request(msg: &str) -> axum::response::Response {
    gate_error(StatusCode::BAD_REQUEST, msg)
}

async fn directive(
    _: Guard<Admin>,
    State(state): State<AppState>,
    Path(name): Path<String>,
    body: Bytes,
) -> ApiResult {
    let m = object_body(&body, bad_request)?;
    let action = m.get("action").and_then(Value::as_str).unwrap_or_default();
    match action {
        "pause" => {
            let n = name.clone();
            let found = state.store().write(move |tx| store::pause(tx, &n)).await?;
            Ok(if found {
                json_ok(json!({"ok": true, "action": "pause", "name": name}))
            } else {
                json_status(
                    StatusCode::NOT_FOUND,
                    json!({"ok": false, "action": "pause", "name": name,
                           "error": "keeper meta not found"}),
                )
            })
        }
        // Wake signals the fiber without reading metadata: its 200 proves nothing else.
        "wakeup" => Ok(json_ok(
            json!({"ok": true, "action": "wakeup", "name": name}),
        )),
        "resume" => resume(state, name, &m).await,
        "" => Ok(bad_request("missing action")),
        other => Ok(bad_request(&format!("unknown action: {other}"))),
    }
}

fn resume_failure(status: StatusCode, name: &str, error: &str) -> axum::response::Response {
    json_status(
        status,
        json!({"ok": false, "action": "resume", "operation": "resume_owner", "name": name,
               "committed": false, "error": error}),
    )
}

async fn resume(state: AppState, name: String, m: &Map<String, Value>) -> ApiResult {
    let nonce = m.get("owner_nonce").and_then(Value::as_u64);
    let op = m
        .get("operator_operation_id")
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
        .map(str::to_string);
    let (Some(nonce), Some(op)) = (nonce, op) else {
        return Ok(resume_failure(
            StatusCode::BAD_REQUEST,
            &name,
            "resume requires owner_nonce and operator_operation_id",
        ));
    };
    let (n, o) = (name.clone(), op.clone());
    let outcome = state
        .store()
        .write(move |tx| store::resume(tx, &n, &o, nonce))
        .await?;
    let status = match outcome {
        ResumeOutcome::NotFound => {
            return Ok(resume_failure(
                StatusCode::NOT_FOUND,
                &name,
                "keeper meta not found",
            ));
        }
        ResumeOutcome::NotPaused => {
            return Ok(resume_failure(
                StatusCode::CONFLICT,
                &name,
                "keeper is not paused",
            ));
        }
        ResumeOutcome::OtherInput => {
            return Ok(resume_failure(
                StatusCode::CONFLICT,
                &name,
                "operation id names a receipt for other input",
            ));
        }
        ResumeOutcome::GenerationChanged => {
            return Ok(resume_failure(
                StatusCode::CONFLICT,
                &name,
                "keeper generation changed",
            ));
        }
        ResumeOutcome::Committed => "committed",
        ResumeOutcome::AlreadyCommitted => "already_committed",
    };
    Ok(json_ok(json!({
        "ok": true, "action": "resume", "operation": "resume_owner", "name": name,
        "committed": true, "commit_status": status, "projection": "resumed",
        "receipt": {"keeper_name": name, "expected_trace_id": format!("trace-{name}"),
                    "expected_generation": nonce, "operator_operation_id": op,
                    "requested_at": now_unix(), "operation": "resume_owner"},
    })))
}

async fn boot(
    _: Guard<Admin>,
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> ApiResult {
    let n = name.clone();
    let outcome = state.store().write(move |tx| store::boot(tx, &n)).await?;
    Ok(match outcome {
        BootOutcome::NotFound => bad_request(&format!("unknown keeper: {name}")),
        BootOutcome::OperatorPaused => gate_error(
            StatusCode::CONFLICT,
            "keeper is operator-paused; commit Resume_owner through the directive endpoint",
        ),
        BootOutcome::AlreadyLive => json_ok(json!({
            "ok": true, "action": "boot", "name": name, "already_live": true,
            "detail": {"name": name},
        })),
        BootOutcome::Booted => json_ok(json!({
            "ok": true, "action": "boot", "name": name, "detail": {"message": "keeper up"},
        })),
    })
}

async fn shutdown(
    _: Guard<Admin>,
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> ApiResult {
    let n = name.clone();
    let found = state
        .store()
        .write(move |tx| store::shutdown(tx, &n))
        .await?;
    Ok(if found {
        json_ok(json!({"ok": true, "action": "shutdown", "name": name}))
    } else {
        bad_request(&format!("unknown keeper: {name}"))
    })
}

async fn purge(_: Guard<Admin>, State(state): State<AppState>, body: Bytes) -> ApiResult {
    const USAGE: &str = r#"invalid request: requires {"agent_name":"..."}"#;
    let m = object_body(&body, |_| bad_request(USAGE))?;
    let Some(name) = m
        .get("agent_name")
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
        .map(str::to_string)
    else {
        return Ok(bad_request(USAGE));
    };
    let fresh = format!("op-{}", uuid::Uuid::now_v7());
    let n = name.clone();
    let outcome = state
        .store()
        .write(move |tx| store::purge(tx, &n, &fresh))
        .await?;
    Ok(match outcome {
        PurgeOutcome::NotFound => gate_error(StatusCode::NOT_FOUND, "agent or keeper not found"),
        PurgeOutcome::LaneExecuting => gate_error(
            StatusCode::CONFLICT,
            "lane executing: shut the keeper down first",
        ),
        PurgeOutcome::Accepted { operation_id } => json_status(
            StatusCode::ACCEPTED,
            json!({"ok": true, "accepted": true, "target_kind": "keeper", "agent_name": name,
                   "keeper_name": name, "operation_id": operation_id}),
        ),
    })
}

fn message_error(status: StatusCode, message: &str) -> axum::response::Response {
    json_status(status, json!({"error": {"message": message}}))
}

async fn tool_modes(_: Guard<Read>, State(state): State<AppState>) -> ApiResult {
    let rows = state.store().read(store::tool_modes).await?;
    let overrides: Vec<Value> = rows
        .into_iter()
        .map(|(keeper, mode)| json!({"keeper": keeper, "mode": mode}))
        .collect();
    Ok(json_ok(json!({"overrides": overrides, "default": "auto"})))
}

async fn set_tool_mode(
    _: Guard<Operator>,
    State(state): State<AppState>,
    body: Bytes,
) -> ApiResult {
    let m = object_body(&body, |msg| message_error(StatusCode::BAD_REQUEST, msg))?;
    let Some(name) = m.get("name").and_then(Value::as_str).map(str::to_string) else {
        return Ok(message_error(
            StatusCode::BAD_REQUEST,
            "name (string) is required",
        ));
    };
    let mode = match m.get("mode") {
        Some(Value::String(s)) if s == "auto" || s == "yolo" => s.clone(),
        other => {
            let got = other.map_or_else(|| "null".to_string(), Value::to_string);
            return Ok(message_error(
                StatusCode::BAD_REQUEST,
                &format!("mode must be auto or yolo, got {got}"),
            ));
        }
    };
    let (n, md) = (name.clone(), mode.clone());
    let found = state
        .store()
        .write(move |tx| store::set_tool_mode(tx, &n, &md))
        .await?;
    Ok(if found {
        json_ok(json!({"keeper": name, "mode": mode}))
    } else {
        message_error(StatusCode::NOT_FOUND, "keeper not registered")
    })
}
