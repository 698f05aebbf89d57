//! `GET /api/v1/dashboard/runtime-probe[?force=1]` (newer MASC; docs/protocol-extensions.md):
//! provider reachability per configured runtime, served from a cache the route never waits on,
//! with MASC's envelope (`server_dashboard_http_runtime_info.ml`): a TTL-fresh hit is `fresh`;
//! `force=1` inside the force rate-limit window answers the `recent` value without probing; a
//! value older than the TTL is `served_stale` (and refreshed behind it). A cold start's
//! `warming_up` placeholder is played by a fault plan (a 200 `status` fault with that body).
//!
//! The demo "probe" is deterministic: a runtime's reachability follows from its provider, so
//! tests and the demo see the same rows.

use crate::server::http::{ApiResult, Guard, Read, json_ok};
use crate::server::state::AppState;
use crate::server::store::runtime as store;
use crate::server::store::{now_unix, rfc3339};
use axum::Router;
use axum::extract::{RawQuery, State};
use axum::routing::get;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

pub const CACHE_TTL: Duration = Duration::from_secs(30);
/// `force=1` within this long of the last probe answers `recent` (MASC's rate limit).
pub const FORCE_WINDOW: Duration = Duration::from_secs(5);

pub fn router() -> Router<AppState> {
    Router::new().route("/api/v1/dashboard/runtime-probe", get(probe))
}

/// One runtime's row: reachability follows from its provider (demo data).
fn row(m: &store::Model) -> Value {
    let (status, reachable, http, latency, error): (&str, Value, Value, Value, Value) =
        match m.provider_id.as_str() {
            "google" => (
                "missing_auth",
                json!(false),
                Value::Null,
                Value::Null,
                json!("no credentials for provider google"),
            ),
            "local" if m.model_id.contains("llama") => (
                "network_error",
                json!(false),
                Value::Null,
                Value::Null,
                json!("connection refused on 127.0.0.1:8081"),
            ),
            "local" => (
                "reachable",
                json!(true),
                json!(200),
                json!(4.0),
                Value::Null,
            ),
            _ => (
                "reachable",
                json!(true),
                json!(200),
                json!(120.0 + m.runtime_id.len() as f64),
                Value::Null,
            ),
        };
    json!({
        "runtime_id": m.runtime_id,
        "provider_id": m.provider_id,
        "status": status,
        "reachable": reachable,
        "http_status": http,
        "latency_ms": latency,
        "error": error,
    })
}

fn probe_body(models: &[store::Model], checked_at: i64) -> Value {
    let providers: Vec<Value> = models.iter().map(row).collect();
    let reachable = providers
        .iter()
        .filter(|p| p["reachable"] == json!(true))
        .count();
    let failed = providers
        .iter()
        .filter(|p| p["reachable"] == json!(false))
        .count();
    let status = match (reachable, failed) {
        (0, 0) => "no_http_runtimes",
        (_, 0) => "reachable",
        (0, _) => "unreachable",
        _ => "degraded",
    };
    json!({
        "source": "runtime.toml",
        "status": status,
        "probe_ok": failed == 0,
        "checked_at": rfc3339(checked_at),
        "summary": {"runtimes": models.len(), "probed": models.len(), "reachable": reachable,
                    "failed": failed, "skipped": 0},
        "providers": providers,
        "errors": [],
    })
}

async fn probe(_: Guard<Read>, State(state): State<AppState>, RawQuery(q): RawQuery) -> ApiResult {
    let force = q
        .as_deref()
        .unwrap_or("")
        .split('&')
        .any(|kv| kv == "force=1" || kv == "force=true");
    let now = Instant::now();
    let (refresh_state, age, cache_hit) = state.probe_cache(|last| {
        let age = last.map(|at| now.saturating_duration_since(at));
        match age {
            None => {
                *last = Some(now);
                ("fresh", Duration::ZERO, false)
            }
            Some(a) if force && a < FORCE_WINDOW => ("recent", a, true),
            Some(_) if force => {
                *last = Some(now);
                ("fresh", Duration::ZERO, false)
            }
            Some(a) if a <= CACHE_TTL => ("fresh", a, true),
            Some(a) => {
                // Served stale; the "background refresh" lands for the next request.
                *last = Some(now);
                ("served_stale", a, true)
            }
        }
    });
    let models = state
        .store()
        .read(|c| Ok(store::current_parsed(c)?.map(|(_, p)| p.models)))
        .await?
        .unwrap_or_default();
    let now_s = now_unix();
    let checked = now_s - age.as_secs_f64();
    Ok(json_ok(json!({
        "generated_at": rfc3339(now_s as i64),
        "refreshed_at_unix": checked,
        "cache_ttl_sec": CACHE_TTL.as_secs_f64(),
        "cache_age_sec": age.as_secs_f64(),
        "cache_hit": cache_hit,
        "refresh_state": refresh_state,
        "probe": probe_body(&models, checked as i64),
    })))
}
