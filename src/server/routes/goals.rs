//! Goals family: goals tree (§5.5), goal detail with timeline (§5.6), planning rollup (§5.7),
//! and the newer MASC goal action route (protocol-15-operator.md §15.4).

use crate::server::http::{
    ApiResult, Faults, Guard, Operator, Public, json_ok, json_status, parse_query, query_get,
};
use crate::server::middleware::wrong_echo;
use crate::server::routes::tools::tool_actor;
use crate::server::state::AppState;
use crate::server::store::goals::{self, GoalRow, Transitioned};
use crate::server::store::{StoreError, now_unix, tasks, tools as tool_store};
use axum::Router;
use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::{get, post};
use rusqlite::Connection;
use serde_json::{Map, Value, json};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/dashboard/goals", get(tree))
        .route("/api/v1/dashboard/goals/detail", get(detail))
        .route("/api/v1/dashboard/planning", get(planning))
        .route("/api/v1/tools/masc_goal_transition", post(transition))
}

/// A tree node: the goal row plus its tasks, counts and children (recursively).
fn node(conn: &Connection, row: &GoalRow, all: &[GoalRow]) -> Result<Value, StoreError> {
    let linked = tasks::tasks_of_goal(conn, &row.id)?;
    let done = linked.iter().filter(|t| t["status"] == "done").count();
    let mut children = Vec::new();
    for child in all
        .iter()
        .filter(|g| g.parent_id.as_deref() == Some(row.id.as_str()))
    {
        children.push(node(conn, child, all)?);
    }
    let mut obj: Map<String, Value> = row.body.as_object().cloned().unwrap_or_default();
    obj.insert("task_count".into(), json!(linked.len()));
    obj.insert("task_done_count".into(), json!(done));
    obj.insert("tasks".into(), Value::Array(linked));
    obj.insert("children".into(), Value::Array(children));
    Ok(Value::Object(obj))
}

async fn tree(_: Guard<Public>, State(state): State<AppState>) -> ApiResult {
    let body = state
        .store()
        .read(|c| {
            let all = goals::goals(c)?;
            let mut tree = Vec::new();
            for root in all.iter().filter(|g| g.parent_id.is_none()) {
                tree.push(node(c, root, &all)?);
            }
            let mut phase_counts = Map::new();
            for g in &all {
                let phase = g.body["phase"].as_str().unwrap_or("unknown").to_string();
                let n = phase_counts
                    .get(&phase)
                    .and_then(Value::as_i64)
                    .unwrap_or(0);
                phase_counts.insert(phase, json!(n + 1));
            }
            let counts = tasks::status_counts(c)?;
            let total_tasks: i64 = counts.iter().map(|(_, n)| n).sum();
            let done_tasks: i64 = counts
                .iter()
                .filter(|(s, _)| s == "done")
                .map(|(_, n)| n)
                .sum();
            Ok(json!({
                "generated_at": goals::generated_at(c)?,
                "approval_queue_state": {"state": "ready"},
                "tree": tree,
                "summary": {
                    "total_goals": all.len(),
                    "active_goals": all.iter().filter(|g| g.body["phase"] == "executing").count(),
                    "phase_counts": phase_counts,
                    "total_tasks": total_tasks,
                    "done_tasks": done_tasks,
                    "pending_approvals": 0,
                },
            }))
        })
        .await?;
    Ok(json_ok(body))
}

async fn detail(
    _: Guard<Public>,
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
) -> ApiResult {
    let q = parse_query(raw.as_deref());
    let Some(goal_id) = query_get(&q, "goal_id")
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
    else {
        return Ok(json_status(
            StatusCode::BAD_REQUEST,
            json!({"ok": false, "error": "goal_id query param is required"}),
        ));
    };
    let id = goal_id.clone();
    let body = state
        .store()
        .read(move |c| {
            if !goals::exists(c, &id)? {
                return Ok(None);
            }
            let all = goals::goals(c)?;
            let Some(row) = all.iter().find(|g| g.id == id) else {
                return Ok(None);
            };
            let goal = node(c, row, &all)?;
            let linked = tasks::tasks_of_goal(c, &id)?;
            let mut keepers: Vec<String> = linked
                .iter()
                .filter_map(|t| t["assignee"].as_str().map(str::to_string))
                .collect();
            keepers.sort();
            keepers.dedup();
            let linked_keepers: Vec<Value> = keepers
                .iter()
                .map(|k| json!({"name": k, "agent_name": k}))
                .collect();
            Ok(Some(json!({
                "generated_at": goals::generated_at(c)?,
                "approval_queue_state": {"state": "ready"},
                "goal": goal,
                "linked_tasks": linked,
                "linked_keepers": linked_keepers,
                "approvals": [],
                "execution_receipts": [],
                "timeline": goals::timeline(c, &id)?,
            })))
        })
        .await?;
    match body {
        Some(b) => Ok(json_ok(b)),
        // §5.6: an unknown goal is HTTP 200 with a typed "not found".
        None => Ok(json_ok(json!({
            "ok": false,
            "error": format!("Goal {goal_id} not found"),
            "goal_id": goal_id,
        }))),
    }
}

async fn planning(_: Guard<Public>, State(state): State<AppState>) -> ApiResult {
    let body = state
        .store()
        .read(|c| {
            let all = goals::goals(c)?;
            let phase_count = |phases: &[&str]| {
                all.iter()
                    .filter(|g| phases.iter().any(|p| g.body["phase"] == *p))
                    .count()
            };
            let counts = tasks::status_counts(c)?;
            let n = |s: &str| {
                counts
                    .iter()
                    .find(|(k, _)| k == s)
                    .map(|(_, n)| *n)
                    .unwrap_or(0)
            };
            let goal_rows: Vec<Value> = all
                .iter()
                .map(|g| {
                    let mut obj = g.body.as_object().cloned().unwrap_or_default();
                    obj.remove("last_activity_at");
                    Value::Object(obj)
                })
                .collect();
            Ok(json!({
                "generated_at": goals::generated_at(c)?,
                "goals": goal_rows,
                "rollup": {
                    "active_count": phase_count(&["executing"]),
                    "paused_count": phase_count(&["paused", "blocked"]),
                    "verifying_count": phase_count(&["verifying"]),
                    "done_count": phase_count(&["completed"]),
                    "dropped_count": phase_count(&["dropped"]),
                    "blocked_count": phase_count(&["blocked"]),
                    "awaiting_confirmation_count": phase_count(&["awaiting_confirmation"]),
                },
                "task_backlog": {
                    "todo": n("todo"),
                    "claimed": n("claimed"),
                    "in_progress": n("in_progress"),
                    "awaiting_verification": n("awaiting_verification"),
                    "done": n("done"),
                    "cancelled": n("cancelled"),
                },
            }))
        })
        .await?;
    Ok(json_ok(body))
}

/// The tool envelope with the tool's JSON as text in `message` (§15.4).
fn tool_answer(status: StatusCode, ok: bool, message: &Value) -> axum::response::Response {
    let text = match message {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    json_status(status, json!({"ok": ok, "message": text}))
}

fn tool_error(code: &str, message: &str) -> axum::response::Response {
    tool_answer(
        StatusCode::BAD_REQUEST,
        false,
        &json!({"status": "error", "error_code": code, "message": message}),
    )
}

fn field_error(field: &str, constraint: &str, message: &str, received: Option<&str>) -> Value {
    let mut e = json!({"field": field, "constraint": constraint, "message": message});
    if let (Some(r), Some(obj)) = (received, e.as_object_mut()) {
        obj.insert("received".into(), json!(r));
    }
    e
}

/// `POST /api/v1/tools/masc_goal_transition` (§15.4, newer MASC): the transition table over
/// the seeded goals, `noop` replies, `conflict` for an invalid transition. The
/// `{"echo":"wrong"}` fault names another goal in the reply (§15.14).
async fn transition(
    _: Guard<Operator>,
    State(state): State<AppState>,
    Faults(faults): Faults,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult {
    let v: Value = match serde_json::from_slice(&body) {
        Ok(v @ Value::Object(_)) => v,
        Ok(_) => {
            let text = Value::String("Invalid JSON: expected an object".into());
            return Ok(tool_answer(StatusCode::BAD_REQUEST, false, &text));
        }
        Err(e) => {
            let text = Value::String(format!("Invalid JSON: {e}"));
            return Ok(tool_answer(StatusCode::BAD_REQUEST, false, &text));
        }
    };
    let text = |k: &str| {
        v.get(k)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let goal_id = text("goal_id");
    let action = text("action");
    let mut errors = Vec::new();
    if goal_id.is_none() {
        errors.push(field_error(
            "goal_id",
            "required",
            "goal_id is required",
            None,
        ));
    }
    match action.as_deref() {
        None => errors.push(field_error(
            "action",
            "required",
            "action is required",
            None,
        )),
        Some("request_complete" | "drop" | "reopen") => {}
        Some(other) => errors.push(field_error(
            "action",
            "one_of",
            "action must be one of: request_complete, drop, reopen",
            Some(other),
        )),
    }
    let (Some(goal_id), Some(action), true) = (goal_id, action, errors.is_empty()) else {
        let n = errors.len();
        return Ok(tool_answer(
            StatusCode::BAD_REQUEST,
            false,
            &json!({"status": "error", "error_code": "validation_error",
                "field_errors": errors, "message": format!("{n} field error(s)")}),
        ));
    };
    let note = text("note");
    let actor = tool_actor(&headers);
    let now = now_unix() as i64;
    let (id, act) = (goal_id.clone(), action.clone());
    let done = state
        .store()
        .write(move |tx| {
            let done = goals::transition(tx, &id, &act, note.as_deref(), &actor, now)?;
            if matches!(done, Transitioned::Moved { .. }) {
                tool_store::record_call(tx, "masc_goal_transition", now)?;
            }
            Ok(done)
        })
        .await?;
    let echoed = if faults.echo_wrong {
        wrong_echo(&json!(goal_id))
    } else {
        json!(goal_id)
    };
    let mut reply = json!({"status": "ok", "goal_id": echoed, "action": action});
    let (goal, verification) = match done {
        Transitioned::NotFound => return Ok(tool_error("not_found", "goal not found")),
        Transitioned::Invalid { phase } => {
            return Ok(tool_error(
                "conflict",
                &format!("invalid goal transition: {phase} -> {action}"),
            ));
        }
        Transitioned::Moved { goal, verification } => (goal, verification),
        Transitioned::Already {
            phase,
            goal,
            verification,
        } => {
            if let Some(obj) = reply.as_object_mut() {
                obj.insert("noop".into(), json!(true));
                obj.insert("phase".into(), json!(phase));
            }
            (goal, verification)
        }
    };
    if let Some(obj) = reply.as_object_mut() {
        obj.insert("goal".into(), goal);
        if let Some(record) = verification {
            obj.insert("verification".into(), record);
        }
    }
    Ok(tool_answer(StatusCode::OK, true, &reply))
}
