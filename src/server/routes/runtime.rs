//! Runtime family: resolved catalogue and usage (§9.1), raw config read (§9.2), preview
//! (§9.3), save with CAS (§9.4) and keeper runtime assignment with CAS (§9.8).

use crate::server::http::{
    Admin, ApiError, ApiResult, Guard, Public, error_body, json_ok, json_status,
};
use crate::server::state::AppState;
use crate::server::store::runtime::{self as store, Parsed};
use crate::server::store::{StoreError, keepers, now_unix, rfc3339};
use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, post};
use rusqlite::Connection;
use serde_json::{Map, Value, json};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/runtime/resolved", get(resolved))
        .route("/api/v1/runtime/config/raw", get(raw).post(save))
        .route("/api/v1/runtime/config/raw/preview", post(preview))
        .route("/api/v1/runtime/config/assignment", post(assignment))
}

fn model_json(p: &Parsed, m: &store::Model, quota: &[store::Quota]) -> Value {
    let q = quota.iter().find(|q| q.runtime_id == m.runtime_id);
    json!({
        "id": m.runtime_id,
        "provider": m.provider,
        "provider_id": m.provider_id,
        "model": m.model_id,
        "effective_max_context": m.effective_max_context(),
        "max_context_source": if m.max_context_override.is_some() { "override" } else { "capability" },
        "max_output_tokens": m.max_output_tokens,
        "is_local": m.is_local,
        "is_default": p.default.as_deref() == Some(m.runtime_id.as_str()),
        "quota_exhausted": q.is_some_and(|q| q.exhausted),
        "rate_limited": q.is_some_and(|q| q.rate_limited),
        "quota_scope": m.quota_scope,
        "quota_resets_at": q.and_then(|q| q.quota_resets_at),
        "rate_limit_resets_at": q.and_then(|q| q.rate_limit_resets_at),
    })
}

fn resolved_body(conn: &Connection, base: &str) -> Result<Value, StoreError> {
    let (text, _, updated) = store::current(conn)?;
    let parsed = text
        .as_deref()
        .and_then(|t| store::parse(t).ok())
        .unwrap_or_default();
    let quota = store::quota(conn)?;
    let runtimes: Vec<Value> = parsed
        .models
        .iter()
        .map(|m| model_json(&parsed, m, &quota))
        .collect();
    let mut lanes: Vec<Value> = parsed
        .lanes
        .iter()
        .map(|(id, ids)| json!({"id": id, "runtime_ids": ids, "declared": true}))
        .collect();
    if let Some(d) = &parsed.default {
        lanes.push(json!({"id": "default", "runtime_ids": [d], "declared": false}));
    }
    let names = keepers::names(conn)?;
    let exhausted = |rt: &str| {
        quota
            .iter()
            .find(|q| q.runtime_id == rt && q.exhausted)
            .map(|q| q.quota_resets_at)
    };
    let assignments: Vec<Value> = names
        .iter()
        .map(|k| {
            let (source, resolved) = match parsed.assignment(k) {
                Some(rt) => {
                    let lane = parsed
                        .lanes
                        .iter()
                        .find(|(_, ids)| ids.iter().any(|i| i == rt));
                    let r = match (exhausted(rt), lane) {
                        (Some(resets), _) => json!({"kind": "unavailable", "id": rt,
                            "reason": {"code": "quota_exhausted", "resets_at": resets}}),
                        (None, Some((lane, _))) => json!({"kind": "lane", "id": lane}),
                        (None, None) => json!({"kind": "unavailable", "id": rt,
                            "reason": {"code": "runtime_not_in_lane",
                                       "detail": format!("{rt} is in no declared lane")}}),
                    };
                    ("explicit", r)
                }
                None => match &parsed.default {
                    Some(_) => ("default", json!({"kind": "lane", "id": "default"})),
                    None => ("default", json!({"kind": "missing", "id": null})),
                },
            };
            json!({"keeper": k, "assignment_source": source, "resolved": resolved})
        })
        .collect();
    let default_runtime = parsed
        .default
        .as_deref()
        .and_then(|d| parsed.model(d))
        .map(|m| model_json(&parsed, m, &quota))
        .unwrap_or(Value::Null);
    let (since, accounts) = store::usage(conn)?;
    Ok(json!({
        "generated_at_iso": rfc3339(updated),
        "source": "/api/v1/runtime/resolved",
        "config_path": text.as_ref().map(|_| store::config_path(base)),
        "default_runtime": default_runtime,
        "runtimes": runtimes,
        "lanes": lanes,
        "assignments": assignments,
        "media_failover": parsed.media_failover,
        "provider_usage_windows_since": since,
        "provider_usage_windows": accounts,
    }))
}

async fn resolved(_: Guard<Public>, State(state): State<AppState>) -> ApiResult {
    let base = state.identity().base_path;
    Ok(json_ok(
        state.store().read(move |c| resolved_body(c, &base)).await?,
    ))
}

async fn raw(_: Guard<Admin>, State(state): State<AppState>) -> ApiResult {
    let path = store::config_path(&state.identity().base_path);
    let p = path.clone();
    let body = state
        .store()
        .read(move |c| {
            let (text, _, updated) = store::current(c)?;
            Ok(text.map(|t| store::raw_fields(&t, &p, "read", updated)))
        })
        .await?;
    Ok(match body {
        Some(b) => json_ok(b),
        None => error_body(
            StatusCode::NOT_FOUND,
            &format!("runtime config not found: {path}"),
        ),
    })
}

fn object_body(body: &[u8]) -> Result<Map<String, Value>, ApiError> {
    crate::server::routes::keeper_config::object_body(body, |m| {
        error_body(StatusCode::BAD_REQUEST, m)
    })
}

fn source_text(m: &Map<String, Value>) -> Option<String> {
    m.get("source_text")
        .and_then(Value::as_str)
        .map(str::to_string)
}

async fn preview(_: Guard<Admin>, body: Bytes) -> ApiResult {
    let m = object_body(&body)?;
    let Some(text) = source_text(&m) else {
        return Ok(error_body(StatusCode::BAD_REQUEST, "source_text required"));
    };
    let parsed = match store::parse(&text) {
        Ok(p) => p,
        Err(e) => {
            return Ok(error_body(
                StatusCode::BAD_REQUEST,
                &format!("runtime config parse failed: {e}"),
            ));
        }
    };
    let errors: Vec<String> = parsed
        .issues()
        .iter()
        .filter(|i| i["severity"] == "error")
        .filter_map(|i| i["detail"].as_str().map(str::to_string))
        .collect();
    Ok(json_ok(json!({
        "ok": true,
        "can_save": errors.is_empty(),
        "validation": parsed.validation(),
        "runtime_validation": (!errors.is_empty()).then(|| errors.join("; ")),
    })))
}

fn commit_receipt(fields: Value, order: i64, operation: &str) -> Value {
    let mut out = fields;
    let revision = out["source_revision"].clone();
    if let Some(obj) = out.as_object_mut() {
        obj.insert("state".into(), json!("committed"));
        obj.insert(
            "commit".into(),
            json!({"source_revision": revision, "order": order.to_string(),
                   "durability": "durable", "warnings": []}),
        );
        if let Some(app) = obj.get_mut("application").and_then(Value::as_object_mut) {
            app.insert("operation".into(), json!(operation));
        }
    }
    out
}

enum SaveOutcome {
    Committed(Value),
    Conflict(Value),
    Missing,
}

async fn save(_: Guard<Admin>, State(state): State<AppState>, body: Bytes) -> ApiResult {
    let m = object_body(&body)?;
    let Some(text) = source_text(&m) else {
        return Ok(error_body(StatusCode::BAD_REQUEST, "source_text required"));
    };
    let parsed = match store::parse(&text) {
        Ok(p) => p,
        Err(e) => {
            return Ok(error_body(
                StatusCode::BAD_REQUEST,
                &format!("runtime config parse failed: {e}"),
            ));
        }
    };
    if !parsed.is_valid() {
        return Ok(json_status(
            StatusCode::BAD_REQUEST,
            json!({"ok": false, "error": "runtime config validation failed",
                   "validation": parsed.validation()}),
        ));
    }
    let expected_rev = m
        .get("expected_source_revision")
        .and_then(Value::as_str)
        .map(str::to_string);
    let expected_path = m
        .get("expected_source_path")
        .and_then(Value::as_str)
        .map(str::to_string);
    let path = store::config_path(&state.identity().base_path);
    let outcome = state
        .store()
        .write(move |tx| {
            let (current, _, _) = store::current(tx)?;
            let Some(current) = current else {
                return Ok(SaveOutcome::Missing);
            };
            let current_rev = store::source_revision(&current);
            let stale_rev = expected_rev.as_ref().is_some_and(|e| *e != current_rev);
            let stale_path = expected_path.as_ref().is_some_and(|p| *p != path);
            if stale_rev || stale_path {
                return Ok(SaveOutcome::Conflict(json!({
                    "error": "runtime config changed since it was read",
                    "code": "revision_conflict",
                    "current": {"source_path": path, "source_text": current,
                                "source_revision": current_rev},
                })));
            }
            let now = now_unix() as i64;
            let order = store::store_text(tx, &text, now)?;
            let (_, _, updated) = store::current(tx)?;
            Ok(SaveOutcome::Committed(commit_receipt(
                store::raw_fields(&text, &path, "raw_save", updated),
                order,
                "raw_save",
            )))
        })
        .await?;
    Ok(match outcome {
        SaveOutcome::Committed(v) => json_ok(v),
        SaveOutcome::Conflict(v) => json_status(StatusCode::CONFLICT, v),
        SaveOutcome::Missing => error_body(StatusCode::NOT_FOUND, "runtime config not found"),
    })
}

enum AssignOutcome {
    Committed(Value),
    Unchanged(Value),
    Conflict { expected: Value, observed: Value },
    Invalid(String),
}

async fn assignment(_: Guard<Admin>, State(state): State<AppState>, body: Bytes) -> ApiResult {
    let m = object_body(&body)?;
    let Some(keeper) = m
        .get("keeper_name")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
    else {
        return Ok(error_body(
            StatusCode::BAD_REQUEST,
            "keeper_name is required",
        ));
    };
    let runtime_id = match m.get("runtime_id") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.clone()),
        Some(_) => {
            return Ok(error_body(
                StatusCode::BAD_REQUEST,
                "runtime_id must be a string or null",
            ));
        }
    };
    let Some(expected) = m.get("expected_assignment_revision").cloned() else {
        return Ok(error_body(
            StatusCode::BAD_REQUEST,
            "expected_assignment_revision is required",
        ));
    };
    let path = store::config_path(&state.identity().base_path);
    let outcome = state
        .store()
        .write(move |tx| {
            if !keepers::exists(tx, &keeper)? {
                return Ok(AssignOutcome::Invalid(format!("unknown keeper: {keeper}")));
            }
            let observed = store::assignment_revision(tx, &keeper)?;
            if observed != expected {
                return Ok(AssignOutcome::Conflict { expected, observed });
            }
            let Some((text, parsed)) = store::current_parsed(tx)? else {
                return Ok(AssignOutcome::Invalid(
                    "runtime config is missing or unreadable".into(),
                ));
            };
            if let Some(r) = &runtime_id
                && parsed.model(r).is_none()
            {
                return Ok(AssignOutcome::Invalid(format!("unknown runtime: {r}")));
            }
            if parsed.assignment(&keeper) == runtime_id.as_deref() {
                return Ok(AssignOutcome::Unchanged(observed));
            }
            let new_text = store::set_assignment(&text, &keeper, runtime_id.as_deref())
                .map_err(StoreError::Invalid)?;
            let order = store::store_text(tx, &new_text, now_unix() as i64)?;
            let (_, _, updated) = store::current(tx)?;
            let mut receipt = commit_receipt(
                store::raw_fields(&new_text, &path, "assignment", updated),
                order,
                "assignment",
            );
            if let Some(obj) = receipt.as_object_mut() {
                obj.insert(
                    "assignment_revision".into(),
                    store::assignment_revision(tx, &keeper)?,
                );
            }
            Ok(AssignOutcome::Committed(receipt))
        })
        .await?;
    Ok(match outcome {
        AssignOutcome::Committed(v) => json_ok(v),
        AssignOutcome::Unchanged(rev) => json_ok(json!({
            "ok": true, "applied": false, "assignment_revision": rev, "warnings": [],
        })),
        AssignOutcome::Conflict { expected, observed } => json_status(
            StatusCode::CONFLICT,
            json!({"ok": false, "error": {"code": "runtime_assignment_revision_conflict",
                                          "expected": expected, "observed": observed}}),
        ),
        AssignOutcome::Invalid(msg) => error_body(StatusCode::BAD_REQUEST, &msg),
    })
}
