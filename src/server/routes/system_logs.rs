//! `GET /api/v1/dashboard/logs` (§15.1, as in MASC): the System Logs ring. The embedded server
//! seeds a deterministic ring of 260 entries into a window of 200 (so the oldest 60 are
//! evicted and `ring.dropped_before` is true, as on a long-running MASC) covering every level,
//! every source, rows with and without a category and `keeper_name: "system"`; every filter
//! MASC takes; newest first as Aug answers. Oldest-first answers, gaps and the other §15.1
//! faults are played by fault plans.

use crate::server::http::{ApiResult, Guard, Public, json_ok, json_status, parse_query, query_get};
use crate::server::store::rfc3339;
use axum::Router;
use axum::extract::RawQuery;
use axum::http::StatusCode;
use axum::routing::get;
use serde_json::{Value, json};

/// Entries the seeded ring has handed out.
pub const SEEDED: u64 = 260;
/// The window the route answers from (MASC's is 50,000; small here so eviction shows).
pub const CAPACITY: u64 = 200;
/// The seeded entries' clock: entry `seq` was written `seq * 7` s after this.
const BASE_UNIX: i64 = 1_796_630_400;

const LEVELS: [&str; 7] = ["INFO", "DEBUG", "INFO", "WARN", "DEBUG", "ERROR", "INFO"];
const SOURCES: [&str; 4] = [
    "structured",
    "legacy_stderr",
    "legacy_traceln",
    "client_tool_host",
];
const CATEGORIES: [Option<&str>; 11] = [
    Some("fsm"),
    Some("lifecycle"),
    None,
    Some("heartbeat"),
    Some("tool"),
    Some("routine"),
    None,
    Some("boundary"),
    Some("turn"),
    Some("broadcast"),
    Some("directive"),
];
const KEEPERS: [&str; 5] = ["rondo", "sangsu", "system", "하늘", "mira"];

pub fn router() -> Router<crate::server::state::AppState> {
    Router::new().route("/api/v1/dashboard/logs", get(logs))
}

fn level_rank(level: &str) -> u8 {
    match level {
        "DEBUG" => 0,
        "INFO" => 1,
        "WARN" => 2,
        _ => 3,
    }
}

/// Seeded entry `seq`.
pub fn entry(seq: u64) -> Value {
    let i = seq as usize;
    let level = LEVELS[i % LEVELS.len()];
    let category = CATEGORIES[i % CATEGORIES.len()];
    let keeper = KEEPERS[i % KEEPERS.len()];
    let module = match category {
        Some("tool") => "keeper_tools",
        Some("heartbeat") => "keeper_heartbeat",
        Some("turn") => "keeper_turn",
        Some(_) => "keeper_lifecycle",
        None => "server",
    };
    let message = match (level, category) {
        ("ERROR", _) => format!("turn {seq} failed: provider answered 529 overloaded"),
        ("WARN", _) => format!("heartbeat late by {} ms", 1200 + seq),
        (_, Some(c)) => format!("{c} event {seq}"),
        (_, None) => format!("request served in {} ms", seq % 90),
    };
    let details = if level == "ERROR" {
        json!({"status": 529, "attempt": seq % 3 + 1, "provider": "anthropic"})
    } else {
        Value::Null
    };
    json!({
        "seq": seq,
        "ts": rfc3339(BASE_UNIX + seq as i64 * 7),
        "level": level,
        "source": SOURCES[i % SOURCES.len()],
        "module": module,
        "keeper_name": keeper,
        "turn_id": if keeper == "system" { Value::Null } else { json!(seq / 4) },
        "message": message,
        "details": details,
        "category": category,
    })
}

fn parse_seq(q: &[(String, String)], key: &str) -> Option<u64> {
    query_get(q, key).and_then(|v| v.trim().parse::<u64>().ok())
}

async fn logs(_: Guard<Public>, RawQuery(raw): RawQuery) -> ApiResult {
    let q = parse_query(raw.as_deref());
    let limit = query_get(&q, "limit")
        .and_then(|v| v.trim().parse::<i64>().ok())
        .map_or(200, |l| l.clamp(1, 3000)) as usize;
    let sent_level = query_get(&q, "level").map(str::to_string);
    let (applied, min) = match sent_level
        .as_deref()
        .map(|l| l.trim().to_ascii_lowercase())
        .as_deref()
    {
        None | Some("debug") => ("DEBUG", 0),
        Some("info") => ("INFO", 1),
        Some("warn") | Some("warning") => ("WARN", 2),
        Some("error") => ("ERROR", 3),
        Some(_) => {
            return Ok(json_status(
                StatusCode::BAD_REQUEST,
                json!({"error": "invalid_log_level",
                       "message": "level must be one of debug, info, warn, warning, error",
                       "level": sent_level}),
            ));
        }
    };
    let since = parse_seq(&q, "since_seq");
    let before = parse_seq(&q, "before_seq");
    let module = query_get(&q, "module").map(str::to_ascii_lowercase);
    let category = query_get(&q, "category").map(str::to_string);
    let excluded: Option<Vec<String>> = query_get(&q, "exclude_category")
        .map(|v| v.split(',').map(|s| s.trim().to_string()).collect());
    let start = SEEDED.saturating_sub(CAPACITY) + 1;
    let entries: Vec<Value> = (start..=SEEDED)
        .rev()
        .map(entry)
        .filter(|e| {
            let seq = e["seq"].as_u64().unwrap_or(0);
            let cat = e["category"].as_str();
            level_rank(e["level"].as_str().unwrap_or("")) >= min
                && since.is_none_or(|s| seq > s)
                && before.is_none_or(|b| seq < b)
                && module
                    .as_deref()
                    .is_none_or(|m| e["module"].as_str() == Some(m))
                && match category.as_deref() {
                    None => true,
                    Some("uncategorized") => cat.is_none(),
                    Some(c) => cat == Some(c),
                }
                && excluded
                    .as_ref()
                    .is_none_or(|x| cat.is_none_or(|c| !x.iter().any(|e| e == c)))
        })
        .take(limit)
        .collect();
    let first = entries.first();
    let last = entries.last();
    Ok(json_ok(json!({
        "generated_at_iso": rfc3339(crate::server::store::now_unix() as i64),
        "dashboard_surface": "/api/v1/dashboard/logs",
        "source": "masc_log_ring",
        "retention": {"scope": "dashboard_logs", "buffer": "ring", "capacity": CAPACITY,
                      "keep_days": 7, "file_pattern": "system_log_YYYY-MM-DD.jsonl",
                      "cache_policy": "uncached"},
        "query": {"limit": limit, "level": sent_level, "applied_level": applied, "min_level": min,
                  "module": module, "since_seq": since, "before_seq": before,
                  "category": category, "exclude_category": excluded},
        "returned": entries.len(),
        "latest_seq": first.map(|e| e["seq"].clone()),
        "oldest_seq": last.map(|e| e["seq"].clone()),
        "latest_ts_iso": first.map(|e| e["ts"].clone()),
        "ring": {"start_seq": start, "total": SEEDED, "dropped_before": start > 1},
        "total": SEEDED,
        "entries": entries,
    })))
}
