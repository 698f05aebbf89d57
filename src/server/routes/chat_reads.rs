//! Chat reads: operation reconciliation (§4.4) and the history page (§4.5).

use crate::server::http::{
    Admin, ApiResult, Guard, Public, Read, clamp_limit, error_body, json_ok, parse_query,
    query_get, with_echo, with_next_cursor,
};
use crate::server::state::AppState;
use crate::server::store::{chat, keepers};
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use serde_json::json;

pub(super) async fn operation(
    _: Guard<Read>,
    State(state): State<AppState>,
    Path((name, request_id)): Path<(String, String)>,
) -> ApiResult {
    let id = request_id.clone();
    let op = state.store().read(move |c| chat::operation(c, &id)).await?;
    match op {
        Some(op) if op.keeper == name => Ok(with_echo(json_ok(op.to_json()), &["operation_id"])),
        // MASC's `error_json` of lib/server/server_dashboard_http_keeper_chat_operations.ml:
        // a 404 that names a missing operation, told apart from an unknown route.
        _ => Ok(crate::server::http::json_status(
            StatusCode::NOT_FOUND,
            json!({
                "schema": "masc.keeper_chat_operation.error.v1",
                "error": "unknown_operation",
                "message": format!("unknown Keeper chat operation {request_id}"),
            }),
        )),
    }
}

pub(super) async fn history_page(
    _: Guard<Public>,
    State(state): State<AppState>,
    Path(name): Path<String>,
    RawQuery(raw): RawQuery,
) -> ApiResult {
    let q = parse_query(raw.as_deref());
    let before = match query_get(&q, "before") {
        None => None,
        Some(text) => match text.trim().parse::<f64>() {
            Ok(v) if v.is_finite() => Some(v),
            _ => {
                return Ok(error_body(
                    StatusCode::BAD_REQUEST,
                    "before must be a unix-seconds float",
                ));
            }
        },
    };
    let limit = clamp_limit(query_get(&q, "limit"), 50, 1, 200);
    let keeper = name.clone();
    let page = state
        .store()
        .read(move |c| {
            if !keepers::exists(c, &keeper)? {
                return Ok(None);
            }
            chat::history_page(c, &keeper, before, limit).map(Some)
        })
        .await?;
    let Some((messages, has_more)) = page else {
        return Ok(error_body(
            StatusCode::NOT_FOUND,
            &format!("unknown keeper: {name}"),
        ));
    };
    let next_before = messages.first().map(|m| m["ts"].clone());
    let resp = json_ok(json!({
        "schema": "masc.keeper_chat_history.page.v1",
        "messages": messages,
        "has_more": has_more,
        "next_before": next_before,
    }));
    Ok(with_next_cursor(
        resp,
        "next_before",
        before.map(|b| json!(b)),
    ))
}

/// `GET /api/v1/keepers/{name}/chat/history` (§15.9): the bare array — the newest window of
/// direct rows, then the autonomous turns. An unknown Keeper answers `[]` (as MASC does).
pub(super) async fn history_array(
    _: Guard<Public>,
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> ApiResult {
    let rows = state
        .store()
        .read(move |c| {
            if !keepers::exists(c, &name)? {
                return Ok(Vec::new());
            }
            chat::history_array(c, &name, 50)
        })
        .await?;
    Ok(json_ok(serde_json::Value::Array(rows)))
}

/// `GET /api/v1/keepers/{name}/chat/events?operation_id=&since_seq=&limit=` (§15.9, newer MASC):
/// one page of an operation's turn journal, each line `{v: 1, seq, ts, event}` with the event in
/// MASC's journal codec (snake-case `type`); the seqs are the stream's `id:` lines. 404
/// `unknown_operation` (no such operation of this Keeper), 410 `journal_pruned` (an operation
/// whose journal this server no longer keeps, e.g. a seeded one). August releases answer MASC's
/// unknown-route 404 (the middleware).
pub(super) async fn events(
    _: Guard<Admin>,
    State(state): State<AppState>,
    Path(name): Path<String>,
    RawQuery(raw): RawQuery,
) -> ApiResult {
    let q = parse_query(raw.as_deref());
    let Some(operation_id) = query_get(&q, "operation_id").map(str::to_string) else {
        return Ok(error_body(
            StatusCode::BAD_REQUEST,
            "operation_id query parameter is required",
        ));
    };
    let since_seq = match query_get(&q, "since_seq").map(|s| s.trim().parse::<u64>()) {
        None => 0,
        Some(Ok(n)) => n,
        Some(Err(_)) => {
            return Ok(error_body(
                StatusCode::BAD_REQUEST,
                "since_seq must be a non-negative integer",
            ));
        }
    };
    let limit = usize::try_from(clamp_limit(query_get(&q, "limit"), 500, 1, 2000)).unwrap_or(500);
    let id = operation_id.clone();
    let op = state.store().read(move |c| chat::operation(c, &id)).await?;
    if op.as_ref().is_none_or(|op| op.keeper != name) {
        return Ok(crate::server::http::json_status(
            StatusCode::NOT_FOUND,
            json!({"error": "unknown_operation"}),
        ));
    }
    let Some(journal) = state.chat_journals(|j| j.get(&operation_id)) else {
        return Ok(crate::server::http::json_status(
            StatusCode::GONE,
            json!({"error": "journal_pruned"}),
        ));
    };
    let all = journal.snapshot();
    let after: Vec<(u64, &serde_json::Value)> = all
        .iter()
        .enumerate()
        .map(|(i, e)| (i as u64 + 1, e))
        .filter(|(seq, _)| *seq > since_seq)
        .collect();
    let has_more = after.len() > limit;
    let lines: Vec<serde_json::Value> = after
        .iter()
        .take(limit)
        .map(|(seq, e)| {
            json!({
                "v": 1,
                "seq": seq,
                "ts": e.get("timestamp").cloned().unwrap_or(json!(0.0)),
                "event": journal_event(e),
            })
        })
        .collect();
    let next_since_seq = after
        .get(limit.min(after.len()).saturating_sub(1))
        .map_or(since_seq, |(seq, _)| *seq);
    Ok(with_echo(
        json_ok(json!({
            "schema": "masc.keeper_chat_events.v2",
            "operation_id": operation_id,
            "events": lines,
            "has_more": has_more,
            "next_since_seq": next_since_seq,
        })),
        &["operation_id"],
    ))
}

/// One stream event (AG-UI) in MASC's journal codec (`Keeper_chat_events_journal`).
fn journal_event(e: &serde_json::Value) -> serde_json::Value {
    let s = |k: &str| e.get(k).cloned().unwrap_or(serde_json::Value::Null);
    let occurrence = json!({"stream_scope": 0, "block_index": 0});
    match e.get("type").and_then(serde_json::Value::as_str) {
        Some("RUN_STARTED") => {
            json!({"type": "run_started", "run_id": s("runId"), "thread_id": s("threadId")})
        }
        Some("TEXT_MESSAGE_START") => {
            json!({"type": "text_message_start", "message_id": s("messageId"), "role": "assistant"})
        }
        Some("TEXT_MESSAGE_CONTENT") => json!({"type": "text_delta", "delta": s("delta")}),
        Some("TEXT_MESSAGE_END") => json!({"type": "text_message_end"}),
        Some("TOOL_CALL_START") => json!({"type": "tool_call_start", "occurrence": occurrence,
            "tool_call_id": s("toolCallId"), "tool_call_name": s("toolCallName")}),
        Some("TOOL_CALL_ARGS") => json!({"type": "tool_call_args", "occurrence": occurrence,
            "tool_call_id": s("toolCallId"), "delta": s("delta")}),
        Some("TOOL_CALL_END") => {
            json!({"type": "tool_call_end", "occurrence": occurrence, "tool_call_id": s("toolCallId")})
        }
        Some("RUN_FINISHED") => json!({"type": "run_finished", "run_id": s("runId")}),
        Some("RUN_ERROR") => json!({"type": "event_error", "message": s("message")}),
        Some("CUSTOM") => {
            let value = s("value");
            let mut out = match e.get("name").and_then(serde_json::Value::as_str) {
                Some("KEEPER_REPLY_DETAILS") => json!({"type": "reply_details"}),
                Some("KEEPER_CHAT_BATCH_BOUND") => json!({"type": "batch_bound"}),
                Some("KEEPER_TOOL_APPROVAL_REQUESTED") => {
                    json!({"type": "tool_approval_requested"})
                }
                Some("KEEPER_TOOL_APPROVAL_SETTLED") => json!({"type": "tool_approval_settled"}),
                Some("KEEPER_TOOL_RESULT_READY") => json!({"type": "tool_result_ready",
                    "occurrence": occurrence, "execution_id": value.get("tool_call_id")}),
                Some("KEEPER_THINKING_DELTA") => json!({"type": "agent_core_thinking_delta",
                    "index": 0, "delta": value.get("delta")}),
                // The acceptance is the stream's, not a journal event MASC names; it keeps its
                // sequence (the `id:` lines count it).
                _ => json!({"type": "operation_accepted"}),
            };
            if let (Some(o), Some(v)) = (out.as_object_mut(), value.as_object())
                && o.get("type") != Some(&json!("tool_result_ready"))
                && o.get("type") != Some(&json!("agent_core_thinking_delta"))
            {
                for (k, val) in v {
                    o.entry(k.clone()).or_insert(val.clone());
                }
            }
            out
        }
        _ => json!({"type": "unknown"}),
    }
}
