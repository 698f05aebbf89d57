//! `GET /api/v1/keepers/{name}/runtime-trace` (§14.12, as in MASC): a turn's stored
//! preparation record — manifest rows in MASC's public shape and its execution receipts. The
//! demo's records are derived from the request (no table): a Keeper's own trace
//! (`trace-<name>`) has rows for every turn; any other trace has none (`health:"empty"`). As
//! MASC: scout's turns miss `turn_finished` (`incomplete`), mira's have no receipt
//! (`partial`), and rondo's carry one event MASC's client does not know and one row of the
//! previous turn, so a client must keep rows apart (M-4). Every failure is 404 `{"error"}`.

use crate::server::http::{
    ApiResult, Guard, Public, clamp_limit, json_ok, json_status, parse_query, query_get, with_echo,
};
use crate::server::state::AppState;
use crate::server::store::keepers;
use axum::Router;
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::routing::get;
use serde_json::{Value, json};

pub fn router() -> Router<AppState> {
    Router::new().route("/api/v1/keepers/{name}/runtime-trace", get(trace))
}

fn not_found(error: &str) -> axum::response::Response {
    json_status(StatusCode::NOT_FOUND, json!({ "error": error }))
}

fn row(keeper: &str, trace: &str, turn: u64, seq: i64, event: &str, status: &str) -> Value {
    json!({
        "schema_version": 1,
        "ts": format!("2026-11-20T09:{:02}:{:02}Z", turn % 60, seq),
        "keeper_name": keeper,
        "agent_name": keeper,
        "trace_id": trace,
        "generation": 3,
        "keeper_turn_id": turn,
        "agent_core_turn_count": turn,
        "logical_seq": seq,
        "event": event,
        "runtime_id": "claude-sonnet",
        "status": status,
        "decision": {},
        "links": {"receipt_path": null, "checkpoint_path": null, "tool_call_log_path": null},
    })
}

async fn trace(
    _: Guard<Public>,
    State(state): State<AppState>,
    Path(name): Path<String>,
    RawQuery(raw): RawQuery,
) -> ApiResult {
    let q = parse_query(raw.as_deref());
    let valid = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '-' || c == '_');
    if !valid {
        return Ok(not_found(&format!("invalid keeper name: {name}")));
    }
    let n = name.clone();
    let known = state.store().read(move |c| keepers::exists(c, &n)).await?;
    let own_trace = format!("trace-{name}");
    let trace_id = match query_get(&q, "trace_id")
        .map(str::trim)
        .filter(|t| !t.is_empty())
    {
        Some(t) => t.to_string(),
        None if known => own_trace.clone(),
        None => {
            return Ok(not_found(&format!(
                "keeper {name:?} not found and trace_id query param was not supplied"
            )));
        }
    };
    let turn_id = query_get(&q, "turn_id").and_then(|t| t.trim().parse::<u64>().ok());
    let limit = clamp_limit(query_get(&q, "limit"), 200, 1, 500) as usize;
    let mut rows: Vec<Value> = Vec::new();
    let mut receipts: Vec<Value> = Vec::new();
    if known
        && trace_id == own_trace
        && let Some(turn) = turn_id.filter(|t| *t > 0)
    {
        if name == "rondo" && turn > 1 {
            rows.push(row(&name, &trace_id, turn - 1, 9, "turn_finished", "ok"));
        }
        let events = [
            ("turn_started", "ok"),
            ("context_injected", "ok"),
            ("provider_lane_resolved", "ok"),
            ("provider_attempt_started", "ok"),
            ("provider_attempt_finished", "ok"),
            ("receipt_appended", "ok"),
            ("turn_finished", "ok"),
        ];
        for (seq, (event, status)) in events.iter().enumerate() {
            if name == "scout" && *event == "turn_finished" {
                continue;
            }
            rows.push(row(&name, &trace_id, turn, seq as i64 + 1, event, status));
        }
        if name == "rondo" {
            rows.push(row(
                &name,
                &trace_id,
                turn,
                8,
                "preparation_scope_opened",
                "ok",
            ));
        }
        if name != "mira" {
            receipts.push(json!({
                "keeper_name": name, "agent_name": name, "trace_id": trace_id,
                "generation": 3, "turn_count": turn, "outcome": "ok",
                "terminal_reason_code": "success", "runtime_id": "claude-sonnet",
                "runtime_selected_model": "claude-sonnet", "error_kind": null,
                "started_at": "2026-11-20T09:00:00Z", "ended_at": "2026-11-20T09:00:04Z",
            }));
        }
    }
    let total = rows.len();
    rows.truncate(limit);
    let finished = rows
        .iter()
        .any(|r| r["event"] == "turn_finished" && r["keeper_turn_id"].as_u64() == turn_id);
    let (health, stale) = if total == 0 {
        ("empty", Some("no_manifest_rows"))
    } else if !finished {
        ("incomplete", Some("missing_turn_finished"))
    } else if receipts.is_empty() {
        ("partial", Some("no_matching_receipt_rows"))
    } else {
        ("ok", None)
    };
    let body = json!({
        "keeper": name,
        "trace_id": trace_id,
        "turn_id": turn_id,
        "manifest_path": format!(".masc/keepers/{name}/runtime-manifest.jsonl"),
        "manifest_path_present": total > 0,
        "manifest_total_rows": total,
        "manifest_total_rows_scope": "trace",
        "manifest_total_rows_exact": true,
        "manifest_scan_line_limit": 20000,
        "manifest_scanned_lines": total,
        "manifest_scan_diagnostics": {},
        "manifest_returned_rows": rows.len(),
        "receipt_returned_rows": receipts.len(),
        "turn_identity": {},
        "provider_attempts": {},
        "event_bus": {},
        "runtime_lens": {},
        "health": health,
        "stale_reason": stale,
        "linked_artifacts": {"receipts": [], "checkpoints": [], "tool_call_logs": []},
        "manifest_rows": rows,
        "receipts": receipts,
    });
    Ok(with_echo(json_ok(body), &["keeper", "trace_id"]))
}
