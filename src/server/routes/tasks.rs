//! Tasks family: task list (§5.1), task detail (§5.2), history page with opaque cursors
//! (§5.3) and the legacy history array (§5.4).

use crate::server::http::{
    ApiResult, Guard, Public, clamp_limit, error_body, json_bytes_ok, json_ok, json_status,
    parse_query, query_get, with_echo, with_next_cursor,
};
use crate::server::state::AppState;
use crate::server::store::{StoreError, tasks};
use axum::Router;
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::routing::get;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/dashboard/tasks", get(list))
        .route("/api/v1/dashboard/tasks/detail", get(detail))
        .route("/api/v1/dashboard/tasks/history/page", get(history_page))
        .route("/api/v1/dashboard/tasks/history", get(legacy_history))
}

/// The list's envelope around its rows, keys in the order they are sent.
#[derive(serde::Serialize)]
struct ListBody<'a> {
    schema: &'static str,
    sources: Value,
    tasks: &'a [tasks::ListRow],
}

/// §5.1. The body is serialized from the rows on the store's thread, without a `Value` per row
/// (a `Value` per row of 20,000 Tasks held ≈ 50 MB); the bytes are those a `Value` per row
/// would give.
async fn list(_: Guard<Public>, State(state): State<AppState>) -> ApiResult {
    let body = state.store().read(list_body).await?;
    Ok(json_bytes_ok(body))
}

/// The task list's body.
fn list_body(conn: &rusqlite::Connection) -> Result<Vec<u8>, StoreError> {
    let rows = tasks::list(conn)?;
    let body = ListBody {
        schema: "masc.task_list.v1",
        sources: json!({
            "backlog": {"state": "read"},
            "archive": {"state": "read"},
            "goal_links": {"state": "read"},
        }),
        tasks: &rows,
    };
    // ≈ 230 bytes a row: one allocation, and no doubling slack kept by the response cache.
    let mut out = Vec::with_capacity(256 + rows.len() * 240);
    serde_json::to_writer(&mut out, &body)?;
    out.shrink_to_fit();
    Ok(out)
}

/// The parsed query and its non-blank `task_id`, or `None` (answer [`task_id_required`]).
fn required_task_id(raw: Option<&str>) -> Option<(Vec<(String, String)>, String)> {
    let q = parse_query(raw);
    let id = query_get(&q, "task_id")
        .map(str::trim)
        .filter(|s| !s.is_empty())?
        .to_string();
    Some((q, id))
}

fn task_id_required() -> axum::response::Response {
    error_body(StatusCode::BAD_REQUEST, "task_id is required")
}

async fn detail(
    _: Guard<Public>,
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
) -> ApiResult {
    let Some((_, task_id)) = required_task_id(raw.as_deref()) else {
        return Ok(task_id_required());
    };
    let id = task_id.clone();
    let found = state
        .store()
        .read(move |c| {
            let task = tasks::task(c, &id)?;
            let goals = tasks::goal_ids(c, &id)?;
            Ok((task, goals))
        })
        .await?;
    let (Some(task), goal_ids) = found else {
        return Ok(json_status(
            StatusCode::NOT_FOUND,
            json!({"error": "task_not_found", "task_id": task_id}),
        ));
    };
    let goal = if goal_ids.is_empty() {
        json!({"state": "unlinked"})
    } else {
        json!({"state": "linked", "goal_ids": goal_ids})
    };
    Ok(with_echo(
        json_ok(json!({
            "schema": "masc.task_detail.v1",
            "task_id": task_id,
            "task": task,
            "goal": goal,
        })),
        &["task_id"],
    ))
}

/// Binds a cursor to its task without revealing anything useful.
fn task_tag(task_id: &str) -> String {
    hex::encode(Sha256::digest(task_id.as_bytes()))[..8].to_string()
}

fn encode_cursor(task_id: &str, generation: i64, seq: i64) -> String {
    format!("c1.{}.{generation}.{seq}", task_tag(task_id))
}

/// `(generation, seq)` of a cursor issued for this task, or `None` when it is not one.
fn decode_cursor(task_id: &str, cursor: &str) -> Option<(i64, i64)> {
    let mut parts = cursor.split('.');
    let (v, tag, generation, seq) = (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    if v != "c1" || parts.next().is_some() || tag != task_tag(task_id) {
        return None;
    }
    let generation = generation.parse().ok()?;
    let seq: i64 = seq.parse().ok()?;
    (seq > 0).then_some((generation, seq))
}

async fn history_page(
    _: Guard<Public>,
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
) -> ApiResult {
    let Some((q, task_id)) = required_task_id(raw.as_deref()) else {
        return Ok(task_id_required());
    };
    let limit = clamp_limit(query_get(&q, "limit"), 50, 1, 200);
    let cursor = query_get(&q, "cursor")
        .filter(|c| !c.is_empty())
        .map(str::to_string);
    let boundary = match &cursor {
        None => None,
        Some(c) => match decode_cursor(&task_id, c) {
            Some(b) => Some(b),
            None => return Ok(error_body(StatusCode::BAD_REQUEST, "invalid_cursor")),
        },
    };
    let id = task_id.clone();
    let page = state
        .store()
        .read(move |c| {
            let generation = tasks::log_generation(c, &id)?;
            match (generation, boundary) {
                (Some(g), Some((cg, _))) if g != cg => Ok(Err(())),
                (None, Some(_)) => Ok(Err(())),
                (None, None) => Ok(Ok((0, Vec::new(), false))),
                (Some(g), b) => {
                    let (rows, more) = tasks::events_page(c, &id, b.map(|b| b.1), limit)?;
                    Ok(Ok((g, rows, more)))
                }
            }
        })
        .await?;
    let Ok((generation, rows, more)) = page else {
        return Ok(json_status(
            StatusCode::CONFLICT,
            json!({"error": "cursor_invalidated", "task_id": task_id}),
        ));
    };
    let next_cursor = match (more, rows.last()) {
        (true, Some((seq, _))) => Some(encode_cursor(&task_id, generation, *seq)),
        _ => None,
    };
    let rows: Vec<Value> = rows
        .into_iter()
        .map(|(_, mut line)| {
            if let Some(obj) = line.as_object_mut() {
                obj.entry("task_id")
                    .or_insert_with(|| Value::String(task_id.clone()));
            }
            line
        })
        .collect();
    let request_cursor = cursor.clone().map(Value::String);
    let resp = json_ok(json!({
        "schema": "masc.task_history_page.v1",
        "task_id": task_id,
        "cursor": cursor,
        "rows": rows,
        "has_more": next_cursor.is_some(),
        "next_cursor": next_cursor,
    }));
    Ok(with_next_cursor(
        with_echo(resp, &["task_id", "cursor"]),
        "next_cursor",
        request_cursor,
    ))
}

async fn legacy_history(
    _: Guard<Public>,
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
) -> ApiResult {
    let Some((q, task_id)) = required_task_id(raw.as_deref()) else {
        return Ok(task_id_required());
    };
    let limit = clamp_limit(query_get(&q, "limit"), 50, 1, 200);
    let (rows, _) = state
        .store()
        .read(move |c| tasks::events_page(c, &task_id, None, limit))
        .await?;
    Ok(json_ok(Value::Array(
        rows.into_iter().map(|(_, line)| line).collect(),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_are_bound_to_their_task() {
        let c = encode_cursor("task-1", 3, 42);
        assert_eq!(decode_cursor("task-1", &c), Some((3, 42)));
        assert_eq!(decode_cursor("task-2", &c), None);
        assert_eq!(decode_cursor("task-1", "garbage"), None);
        assert_eq!(decode_cursor("task-1", &format!("{c}.1")), None);
    }

    /// The task list serialized from typed rows is byte for byte the body `json!`
    /// built from a `Value` per row (same keys, order, nulls and goal ids), so its ETag and
    /// every client's decode are unchanged — over the seed and a small scale (tasks with
    /// statuses done/cancelled/todo, null assignees and completion times, linked goals).
    #[tokio::test]
    async fn issue15_task_list_body_is_the_bytes_json_built() {
        let store = crate::server::store::Store::open_in_memory().unwrap();
        let small = crate::server::store::scale::Scale {
            keepers: 20,
            tasks: 60,
            history_events: 10,
            chat_messages: 3,
        };
        store.apply_scale(&small).unwrap();
        let (before, after) = store
            .read(|conn| {
                let mut stmt = conn.prepare(
                    "SELECT id, title, status, priority, assignee, created_at, completed_at,
                        archived
                     FROM tasks ORDER BY sort_key",
                )?;
                let mut rows = Vec::new();
                for row in stmt.query_map([], |r| {
                    Ok(json!({
                        "id": r.get::<_, String>(0)?,
                        "title": r.get::<_, String>(1)?,
                        "status": r.get::<_, String>(2)?,
                        "priority": r.get::<_, i64>(3)?,
                        "assignee": r.get::<_, Option<String>>(4)?,
                        "created_at": r.get::<_, String>(5)?,
                        "completed_at": r.get::<_, Option<String>>(6)?,
                        "archived": r.get::<_, bool>(7)?,
                    }))
                })? {
                    let mut row = row?;
                    let id = row["id"].as_str().unwrap_or_default().to_string();
                    row["goal_ids"] = json!(tasks::goal_ids(conn, &id)?);
                    rows.push(row);
                }
                assert!(rows.len() > 60, "the seed's Tasks and the scaled ones");
                assert!(rows.iter().any(|r| r["assignee"].is_null()));
                assert!(rows.iter().any(|r| !r["completed_at"].is_null()));
                assert!(rows.iter().any(|r| r["goal_ids"] != json!([])));
                let before = serde_json::to_vec(&json!({
                    "schema": "masc.task_list.v1",
                    "sources": {
                        "backlog": {"state": "read"},
                        "archive": {"state": "read"},
                        "goal_links": {"state": "read"},
                    },
                    "tasks": rows,
                }))?;
                Ok((before, list_body(conn)?))
            })
            .await
            .unwrap();
        assert_eq!(
            String::from_utf8(after).unwrap(),
            String::from_utf8(before).unwrap()
        );
    }
}
