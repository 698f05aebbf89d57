//! The Gate family (§14.4, §15.3, as in MASC): `GET /api/v1/dashboard/gate` (the pending
//! queue, the resolved history, the exact rules and the workspace mode), `POST …/gate/resolve`
//! (approve or reject a pending row) and `POST …/gate/retry` (re-arm a blocked Auto Judge row
//! when the five identity fields equal the row). Errors `{"status":"error","message":…}` as
//! MASC's dashboard handlers answer them. The demo workspace runs Auto Judge, configured.

use super::keeper_config::object_body;
use crate::server::http::{
    Admin, ApiResult, Guard, Public, json_ok, json_status, parse_query, query_get,
};
use crate::server::routes::tools::request_actor;
use crate::server::state::AppState;
use crate::server::store::gate_queue::{self as store, Resolved, Retried};
use crate::server::store::now_unix;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::{get, post};
use serde_json::{Value, json};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/dashboard/gate", get(dashboard_gate))
        .route("/api/v1/dashboard/gate/resolve", post(resolve))
        .route("/api/v1/dashboard/gate/retry", post(retry))
}

/// The workspace Gate mode (§14.4): the demo runs Auto Judge, so blocked rows offer `R`.
const GATE_MODE: &str = "auto_judge";

fn error(status: StatusCode, message: &str) -> Response {
    json_status(status, json!({"status": "error", "message": message}))
}

fn bad_request(message: &str) -> Response {
    error(StatusCode::BAD_REQUEST, message)
}

/// §15.3 `GET`: `limit` resolved rows (default 20, clamped 1–200).
async fn dashboard_gate(
    _: Guard<Public>,
    State(state): State<AppState>,
    RawQuery(query): RawQuery,
) -> ApiResult {
    let q = parse_query(query.as_deref());
    let limit = query_get(&q, "limit")
        .and_then(|l| l.parse::<usize>().ok())
        .unwrap_or(20)
        .clamp(1, 200);
    let now = now_unix();
    let (queue, resolved, rules) = state
        .store()
        .read(move |c| {
            Ok((
                store::pending(c, now)?,
                store::resolved(c, limit)?,
                store::rules(c)?,
            ))
        })
        .await?;
    let generated = crate::server::store::rfc3339(now as i64);
    Ok(json_ok(json!({
        "generated_at": generated,
        "note": "",
        "approval_queue": queue,
        "approval_queue_state": {"state": "ready"},
        "recent_resolved_page": {
            "returned": resolved.len(), "matched": resolved.len(), "limit": limit,
            "window_minutes": 1440, "truncated": false, "scan_exhausted": true,
        },
        "recent_resolved": resolved,
        "recent_resolved_state": {"state": "ready"},
        "approval_rules": rules,
        "approval_rules_state": {"state": "ready"},
        "hitl": {
            "gate_mode": {"mode": GATE_MODE, "configured": true, "state": "ready"},
            "judge_lane": {"status": "unavailable", "lane_id": "judge", "reason": "no free slot"},
        },
    })))
}

/// §15.3 `POST …/resolve`: `id` and `decision` required (an absent decision is never an
/// approval); 404 `already resolved` / `not found`.
async fn resolve(
    _: Guard<Admin>,
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult {
    let m = object_body(&body, bad_request)?;
    let Some(id) = m
        .get("id")
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
        .map(str::to_string)
    else {
        return Ok(bad_request("id is required"));
    };
    let decision = match m.get("decision").and_then(Value::as_str) {
        None => return Ok(bad_request("decision is required")),
        Some(d) => d.trim().to_ascii_lowercase(),
    };
    if decision != "approve" && decision != "reject" {
        return Ok(bad_request("decision must be 'approve' or 'reject'"));
    }
    let reason = m.get("reason").and_then(Value::as_str).map(str::to_string);
    let actor = request_actor(&headers).unwrap_or_else(|| "operator".into());
    let (i, d) = (id.clone(), decision.clone());
    let now = now_unix();
    let resolved = state
        .store()
        .write(move |tx| store::resolve(tx, &i, &d, reason.as_deref(), &actor, now))
        .await?;
    Ok(match resolved {
        Resolved::Done => json_ok(json!({
            "ok": true, "id": id, "decision": decision, "rule_id": Value::Null,
            "audit_receipts": [{"recorded": true, "event": "resolved"}],
        })),
        Resolved::AlreadyResolved => error(
            StatusCode::NOT_FOUND,
            &format!("approval {id} already resolved"),
        ),
        Resolved::NotFound => error(StatusCode::NOT_FOUND, &format!("approval {id} not found")),
    })
}

/// The keys a retry body may carry: exactly these.
const RETRY_FIELDS: [&str; 5] = [
    "id",
    "input_hash",
    "sequence",
    "exact_attempt",
    "summary_attempt_disposition",
];

/// §15.3 `POST …/retry`: exactly the five identity fields, under Auto Judge, on a blocked row
/// that has not changed since it was read.
async fn retry(_: Guard<Admin>, State(state): State<AppState>, body: Bytes) -> ApiResult {
    let m = object_body(&body, |_| bad_request("retry request must be an object"))?;
    if let Some(extra) = m.keys().find(|k| !RETRY_FIELDS.contains(&k.as_str())) {
        return Ok(bad_request(&format!(
            "retry request contains unsupported field {extra}"
        )));
    }
    if let Some(missing) = RETRY_FIELDS.iter().find(|k| !m.contains_key(**k)) {
        return Ok(bad_request(&format!("retry request.{missing} is required")));
    }
    if GATE_MODE != "auto_judge" {
        return Ok(bad_request("Auto Judge retry requires auto_judge mode"));
    }
    let asked = Value::Object(m);
    let id = asked
        .get("id")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let retried = state
        .store()
        .write(move |tx| store::retry(tx, &asked))
        .await?;
    Ok(match retried {
        Retried::Rearmed => json_ok(json!({"ok": true, "id": id})),
        Retried::NotFound => bad_request(&format!("pending approval not found: {id}")),
        Retried::NotBlocked => bad_request(&format!(
            "approval summary is not blocked or is already active: {id}"
        )),
        Retried::Mismatch(field) => bad_request(&format!(
            "retry request.{field} does not match pending approval {id}"
        )),
    })
}
