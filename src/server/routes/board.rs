//! Board family: post list (§8.1), detail (§8.2, with the voter's own vote on `voter=`,
//! §15.6), hearth census (§8.3) and the `masc_board_post` and `masc_board_vote` tool routes
//! (§8.4, §15.6; tool envelope `{"ok","message"}`).

use crate::server::http::{
    ApiResult, Faults, Guard, Operator, Public, clamp_limit, error_body, json_ok, json_status,
    parse_query, query_get, with_echo,
};
use crate::server::routes::tools::{request_actor, tool_actor};
use crate::server::state::AppState;
use crate::server::store::board::{self as store, Post};
use crate::server::store::{now_unix, tools as tool_store};
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::{get, post};
use serde_json::{Map, Value, json};
use std::cmp::Ordering;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/board", get(list))
        .route("/api/v1/board/hearths", get(hearths))
        .route("/api/v1/board/{post_id}", get(detail))
        .route("/api/v1/tools/masc_board_post", post(create))
        .route("/api/v1/tools/masc_board_vote", post(vote))
}

fn flag(q: &[(String, String)], key: &str) -> bool {
    matches!(query_get(q, key).map(str::trim), Some("true" | "1" | "yes"))
}

/// Posts left after the system/automation filters.
fn filtered(posts: Vec<Post>, q: &[(String, String)]) -> Vec<Post> {
    let (no_system, no_automation) = (flag(q, "exclude_system"), flag(q, "exclude_automation"));
    posts
        .into_iter()
        .filter(|p| !(no_system && p.post_kind == "system"))
        .filter(|p| !(no_automation && p.post_kind == "automation"))
        .collect()
}

fn desc(a: f64, b: f64) -> Ordering {
    b.partial_cmp(&a).unwrap_or(Ordering::Equal)
}

fn sort_posts(posts: &mut [Post], sort_by: &str) {
    let newest = posts.iter().map(|p| p.created_at).fold(0.0_f64, f64::max);
    let trending = |p: &Post| {
        let hours = ((newest - p.created_at) / 3_600.0).max(0.0);
        (p.votes + 2 * p.comment_count) as f64 / (hours + 2.0).powf(1.5)
    };
    posts.sort_by(|a, b| {
        let primary = match sort_by {
            "recent" => desc(a.created_at, b.created_at),
            "updated" => desc(a.updated_at, b.updated_at),
            "discussed" => b
                .comment_count
                .cmp(&a.comment_count)
                .then(desc(a.updated_at, b.updated_at)),
            "trending" => desc(trending(a), trending(b)),
            _ => b.pinned.cmp(&a.pinned).then(desc(a.hot(), b.hot())),
        };
        primary.then(a.id.cmp(&b.id))
    });
}

async fn list(
    _: Guard<Public>,
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
) -> ApiResult {
    let q = parse_query(raw.as_deref());
    let sort_by = match query_get(&q, "sort_by").map(str::trim) {
        Some(s @ ("trending" | "recent" | "updated" | "discussed")) => s.to_string(),
        _ => "hot".to_string(),
    };
    let hearth = query_get(&q, "hearth")
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string);
    let limit = clamp_limit(query_get(&q, "limit"), 50, 1, 200);
    let offset = clamp_limit(query_get(&q, "offset"), 0, 0, 5_000);
    let mut posts = filtered(state.store().read(store::all_posts).await?, &q);
    if let Some(h) = &hearth {
        posts.retain(|p| p.hearth.as_deref() == Some(h.as_str()));
    }
    sort_posts(&mut posts, &sort_by);
    let page: Vec<Value> = posts
        .iter()
        .skip(offset as usize)
        .take(limit as usize)
        .map(|p| p.to_json(true))
        .collect();
    Ok(json_ok(json!({
        "posts": page,
        "count": page.len(),
        "limit": limit,
        "offset": offset,
        "sort_by": sort_by,
    })))
}

async fn detail(
    _: Guard<Public>,
    State(state): State<AppState>,
    Path(post_id): Path<String>,
    RawQuery(raw): RawQuery,
) -> ApiResult {
    let q = parse_query(raw.as_deref());
    let flat = query_get(&q, "format") == Some("flat");
    let voter = query_get(&q, "voter")
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(str::to_string);
    let id = post_id.clone();
    let found = state
        .store()
        .read(move |c| {
            let Some(p) = store::post(c, &id)? else {
                return Ok(None);
            };
            let mut post = p.to_json(true);
            let mut comments = store::comments(c, &id)?;
            // §15.6: with `voter=`, the voter's own vote on the post and on every comment
            // (comments take no votes here, so theirs is always none).
            if let Some(voter) = &voter {
                let own = store::vote_of(c, voter, &id)?;
                if let Some(obj) = post.as_object_mut() {
                    obj.insert("has_voted".into(), json!(own.is_some()));
                    obj.insert("current_vote".into(), json!(own));
                }
                for comment in comments.iter_mut().filter_map(Value::as_object_mut) {
                    comment.insert("has_voted".into(), json!(false));
                    comment.insert("current_vote".into(), Value::Null);
                }
            }
            Ok(Some((post, comments)))
        })
        .await?;
    let Some((post, comments)) = found else {
        return Ok(error_body(
            StatusCode::NOT_FOUND,
            &format!("Post not found: {post_id}"),
        ));
    };
    if flat {
        let mut obj: Map<String, Value> = post.as_object().cloned().unwrap_or_default();
        obj.insert("comments".into(), Value::Array(comments));
        return Ok(with_echo(json_ok(Value::Object(obj)), &["id"]));
    }
    Ok(json_ok(json!({"post": post, "comments": comments})))
}

async fn hearths(
    _: Guard<Public>,
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
) -> ApiResult {
    let q = parse_query(raw.as_deref());
    let posts = filtered(state.store().read(store::all_posts).await?, &q);
    let mut counts: Vec<(String, i64)> = Vec::new();
    for p in posts {
        let Some(h) = p.hearth else { continue };
        match counts.iter_mut().find(|(n, _)| *n == h) {
            Some((_, c)) => *c += 1,
            None => counts.push((h, 1)),
        }
    }
    counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let rows: Vec<Value> = counts
        .into_iter()
        .map(|(name, count)| json!({"name": name, "count": count}))
        .collect();
    Ok(json_ok(json!({ "hearths": rows })))
}

fn tool_reply(status: StatusCode, ok: bool, message: &str) -> axum::response::Response {
    json_status(status, json!({"ok": ok, "message": message}))
}

/// §8.4: the author is the request actor (`X-Gate-Agent`, then `X-MASC-Agent`). Not idempotent.
async fn create(
    _: Guard<Operator>,
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult {
    let v: Value = match serde_json::from_slice(&body) {
        Ok(v @ Value::Object(_)) => v,
        Ok(_) => {
            return Ok(tool_reply(
                StatusCode::BAD_REQUEST,
                false,
                "invalid json: expected an object",
            ));
        }
        Err(e) => {
            return Ok(tool_reply(
                StatusCode::BAD_REQUEST,
                false,
                &format!("invalid json: {e}"),
            ));
        }
    };
    let text = |k: &str| {
        v.get(k)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let Some(title) = text("title") else {
        return Ok(tool_reply(
            StatusCode::BAD_REQUEST,
            false,
            "title is required",
        ));
    };
    let Some(content) = text("body").or_else(|| text("content")) else {
        return Ok(tool_reply(
            StatusCode::BAD_REQUEST,
            false,
            "body is required",
        ));
    };
    let hearth = text("hearth");
    let author = headers
        .get("x-gate-agent")
        .and_then(|h| h.to_str().ok())
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .or_else(|| request_actor(&headers))
        .unwrap_or_else(|| "anonymous".into());
    let now = now_unix();
    let post = state
        .store()
        .write(move |tx| {
            let post = store::create(tx, &author, &title, &content, hearth.as_deref(), now)?;
            tool_store::record_call(tx, "masc_board_post", now as i64)?;
            Ok(post)
        })
        .await?;
    let message = post.to_json(true).to_string();
    Ok(tool_reply(StatusCode::CREATED, true, &message))
}

/// `POST /api/v1/tools/masc_board_vote` (§15.6): one vote per (voter, post), the flip rule,
/// the idempotent same-direction answer (200). The `{"echo":"wrong"}` fault answers with the
/// other direction's arrow (a reply that does not match the request, §15.14).
async fn vote(
    _: Guard<Operator>,
    State(state): State<AppState>,
    Faults(faults): Faults,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult {
    let refuse = |message: String| Ok(tool_reply(StatusCode::BAD_REQUEST, false, &message));
    let v: Value = match serde_json::from_slice(&body) {
        Ok(v @ Value::Object(_)) => v,
        Ok(_) => return refuse("Invalid JSON: expected an object".into()),
        Err(e) => return refuse(format!("Invalid JSON: {e}")),
    };
    let direction = match v.get("direction").and_then(Value::as_str).map(str::trim) {
        None | Some("") => return refuse("vote direction required; expected up or down".into()),
        Some(d) => match d.to_ascii_lowercase().as_str() {
            "up" => "up",
            "down" => "down",
            _ => return refuse(format!("invalid vote direction {d:?}; expected up or down")),
        },
    };
    let Some(post_id) = v
        .get("post_id")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
    else {
        return refuse("Invalid ID: post_id is required".into());
    };
    let voter = tool_actor(&headers);
    let now = now_unix();
    let id = post_id.clone();
    let applied = state
        .store()
        .write(move |tx| {
            let applied = store::vote(tx, &voter, &id, direction)?;
            if applied != store::VoteApplied::PostNotFound {
                tool_store::record_call(tx, "masc_board_vote", now as i64)?;
            }
            Ok(applied)
        })
        .await?;
    let arrow = match (direction, faults.echo_wrong) {
        ("up", false) | ("down", true) => '↑',
        _ => '↓',
    };
    let message = match applied {
        store::VoteApplied::PostNotFound => return refuse(format!("Post not found: {post_id}")),
        store::VoteApplied::Recorded { score } => {
            format!("{arrow} Vote recorded. New score: {score:+}")
        }
        store::VoteApplied::Already { score } => {
            format!("{arrow} Already voted (idempotent). Score: {score:+}")
        }
    };
    Ok(tool_reply(StatusCode::OK, true, &message))
}
