//! Operator family (§10.5): the approval list scoped to the request actor and
//! `POST /api/v1/operator/confirm`, which removes the approval before running its scripted
//! action (MASC's order), so a failing action still consumes it.

use crate::server::http::{ApiResult, Guard, Operator, Public, json_ok, json_status, parse_query};
use crate::server::routes::tools::request_actor;
use crate::server::state::AppState;
use crate::server::store::operator::{self as store, ACTIONS, Approval};
use crate::server::store::{StoreError, now_unix, rfc3339};
use axum::Router;
use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::{get, post};
use rusqlite::{OptionalExtension, Transaction, params};
use serde_json::{Value, json};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/operator", get(summary))
        .route("/api/v1/operator/confirm", post(confirm))
}

async fn summary(
    _: Guard<Public>,
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> ApiResult {
    let q: serde_json::Map<String, Value> = parse_query(raw.as_deref())
        .into_iter()
        .map(|(k, v)| (k, Value::String(v)))
        .collect();
    let actor = request_actor(&headers);
    let base = state.identity().base_path;
    let body = state
        .store()
        .read(move |c| {
            let approvals = store::all(c)?;
            let (paused, updated) = store::workspace_state(c)?;
            let (visible, hidden): (Vec<&Approval>, Vec<&Approval>) = match &actor {
                Some(a) => approvals.iter().partition(|x| x.actor == *a),
                // No actor: MASC answers the unscoped list (which masc-tui refuses).
                None => (approvals.iter().collect(), Vec::new()),
            };
            let mut hidden_actors: Vec<String> = hidden.iter().map(|a| a.actor.clone()).collect();
            hidden_actors.sort();
            hidden_actors.dedup();
            let confirm_required: Vec<Value> = ACTIONS
                .iter()
                .map(|(kind, tool, target, desc)| {
                    json!({"action_type": kind, "tool_name": tool, "target_type": target,
                           "description": desc, "confirm_required": true})
                })
                .collect();
            Ok(json!({
                "trace_id": format!("ops_summary_{updated:x}"),
                "generated_at_iso": rfc3339(updated),
                "query": q,
                "workspace": {"base_path": base, "paused": paused},
                "keepers": [],
                "messages": [],
                "available_actions": ACTIONS.iter().map(|a| a.0).collect::<Vec<_>>(),
                "pending_confirm_envelope": {
                    "items": visible.iter().map(|a| a.to_json()).collect::<Vec<_>>(),
                    "summary": {
                        "actor_filter": actor,
                        "filter_active": actor.is_some(),
                        "visible_count": visible.len(),
                        "hidden_count": hidden.len(),
                        "total_count": visible.len() + hidden.len(),
                        "hidden_actors": hidden_actors,
                        "confirm_required_actions": confirm_required,
                    },
                },
            }))
        })
        .await?;
    Ok(json_ok(body))
}

fn refuse(message: &str) -> Response {
    json_status(
        StatusCode::BAD_REQUEST,
        json!({"status": "error", "message": message}),
    )
}

/// What a decision led to.
enum Decision {
    Refused(String),
    Replied(Value),
}

/// (reply status, result, message) of an action that ran.
type ActionReply = (String, Value, Option<String>);

/// Run the scripted action of a confirmed approval (already removed). `Err(message)` is a
/// failure reported as 400 after the removal.
fn run_action(
    tx: &Transaction<'_>,
    a: &Approval,
    actor: &str,
    now: i64,
) -> Result<Result<ActionReply, String>, StoreError> {
    let keeper = a.target_id.clone().unwrap_or_default();
    let keeper_row: Option<(String, String, bool)> = if a.target_type == "keeper" {
        tx.query_row(
            "SELECT status, health, meta_error_json IS NOT NULL FROM keepers WHERE name = ?1",
            params![keeper],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()?
    } else {
        None
    };
    if a.target_type == "keeper" && keeper_row.is_none() {
        return Ok(Err(format!(
            "{} failed: unknown keeper {keeper}",
            a.delegated_tool
        )));
    }
    let ok = |v: Value| Ok(Ok(("ok".to_string(), v, None)));
    match a.action_type.as_str() {
        "namespace_pause" => {
            store::set_paused(tx, true, now)?;
            ok(json!({"paused": true}))
        }
        "namespace_resume" => {
            store::set_paused(tx, false, now)?;
            ok(json!({"paused": false}))
        }
        "broadcast" => {
            let mut stmt = tx.prepare(
                "SELECT name FROM keepers WHERE status IN ('offline', 'inactive') ORDER BY name",
            )?;
            let pending: Vec<String> = stmt
                .query_map([], |r| r.get(0))?
                .collect::<Result<_, _>>()?;
            Ok(Ok((
                "deferred".into(),
                json!({"delivered_to": "online keepers", "pending_recipients": pending}),
                None,
            )))
        }
        "task_inject" => {
            let id = store::next_injected_task(tx)?;
            ok(json!({"task_id": id, "title": a.payload.get("title")}))
        }
        "keeper_probe" => {
            let (status, health, _) = keeper_row.unwrap_or_default();
            ok(json!({"keeper": keeper, "status": status, "health": health}))
        }
        "keeper_recover" => {
            let (_, _, broken) = keeper_row.unwrap_or_default();
            if broken {
                let msg =
                    format!("keeper {keeper}: meta.json still unreadable; lane not restarted");
                return Ok(Ok((
                    "error".into(),
                    json!({"keeper": keeper, "restarted": false}),
                    Some(msg),
                )));
            }
            ok(json!({"keeper": keeper, "restarted": true}))
        }
        "keeper_message" => {
            let request_id = format!("kmsg-op{:x}", now);
            tx.execute(
                "INSERT INTO async_requests (request_id, keeper_name, submitted_by, status,
                    submitted_at, elapsed_sec, worker_ownership, logical_owner)
                 VALUES (?1, ?2, ?3, 'queued', ?4, 0.0, 'runtime_owned', ?2)",
                params![request_id, keeper, actor, now as f64],
            )?;
            ok(json!({"request_id": request_id, "queued": true}))
        }
        other => Ok(Err(format!("unsupported action {other}"))),
    }
}

fn decide(
    tx: &Transaction<'_>,
    token: &str,
    actor: &str,
    deny: bool,
    now: i64,
) -> Result<Decision, StoreError> {
    let Some(a) = store::find(tx, token)? else {
        return Ok(Decision::Refused("pending confirmation not found".into()));
    };
    if a.expires_at.is_some_and(|e| e <= now) {
        store::remove(tx, token, now)?;
        return Ok(Decision::Refused("pending confirmation expired".into()));
    }
    if a.actor != actor {
        return Ok(Decision::Refused(
            "actor is not allowed to confirm this action".into(),
        ));
    }
    store::remove(tx, token, now)?;
    let base = |status: &str| {
        json!({"status": status, "trace_id": a.trace_id, "decision": if deny { "deny" } else { "confirm" },
               "tool_name": a.delegated_tool, "executed_action": a.to_json()})
    };
    if deny {
        let mut v = base("ok");
        if let Some(o) = v.as_object_mut() {
            o.insert("result_status".into(), json!("not_executed"));
        }
        return Ok(Decision::Replied(v));
    }
    match run_action(tx, &a, actor, now)? {
        Err(message) => Ok(Decision::Refused(message)),
        Ok((status, result, message)) => {
            let mut v = base(&status);
            if let Some(o) = v.as_object_mut() {
                o.insert("result".into(), result);
                if let Some(m) = message {
                    o.insert("message".into(), json!(m));
                }
            }
            Ok(Decision::Replied(v))
        }
    }
}

async fn confirm(
    _: Guard<Operator>,
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult {
    let v: Value = match serde_json::from_slice(&body) {
        Ok(v @ Value::Object(_)) => v,
        Ok(_) => return Ok(refuse("invalid json: expected an object")),
        Err(e) => return Ok(refuse(&format!("invalid json: {e}"))),
    };
    let text = |k: &str| {
        v.get(k)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let Some(token) = text("confirm_token") else {
        return Ok(refuse("confirm_token is required"));
    };
    let Some(actor) = request_actor(&headers).or_else(|| text("actor")) else {
        return Ok(refuse("operator request actor is required"));
    };
    // MASC: anything but "deny" confirms.
    let deny = text("decision").as_deref() == Some("deny");
    let now = now_unix() as i64;
    let decision = state
        .store()
        .write(move |tx| decide(tx, &token, &actor, deny, now))
        .await?;
    Ok(match decision {
        Decision::Refused(message) => refuse(&message),
        Decision::Replied(v) => json_ok(v),
    })
}
