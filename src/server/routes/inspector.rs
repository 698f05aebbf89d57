//! The §14.11 reads behind the turn and context inspectors: a Keeper's turn records (as in
//! MASC: lib/server/server_dashboard_http_keeper_api.ml, the `/turn-records` branch,
//! d541eb0750) and one turn's resolved provider input (newer MASC).
//!
//! - Turn records: auth read; `limit` default 50, clamped 1–500; 400 for an invalid name
//!   (MASC reads the store of any valid name: an unknown Keeper is an empty page, `health:
//!   "empty"`). Health as MASC's `keeper_turn_record_source_health`: `incompatible` when rows
//!   were refused and none decoded, `ok` while a turn runs, `empty` with no record, `stale`
//!   past the freshness target, else `ok`. The embedded server tracks no live turn here
//!   (`live_turn_in_progress: false`).
//! - Provider input: auth read; `turn_ref` required (400), of the form `<trace>#<turn>`
//!   (400 otherwise); a turn without a kept snapshot is 404 `no provider-input snapshot for
//!   <turn_ref>` (an object 404: the route is served). On a played older MASC the route is
//!   absent (its unknown-route 404; `compat`).

use crate::server::http::{
    ApiResult, Guard, Read, clamp_limit, error_body, json_ok, parse_query, query_get, with_echo,
};
use crate::server::routes::keeper_read::{KeeperName, keeper_ok};
use crate::server::state::AppState;
use crate::server::store::now_unix;
use crate::server::store::turn_records as store;
use axum::Router;
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::routing::get;
use serde_json::{Value, json};

/// MASC's freshness target for turn records (its default keepalive interval's).
const FRESHNESS_SLO_S: f64 = 900.0;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/keepers/{name}/turn-records", get(turn_records))
        .route("/api/v1/keepers/{name}/provider-input", get(provider_input))
}

/// MASC's `keeper_turn_record_source_health`.
fn health(
    skipped: u64,
    live: bool,
    latest_age_s: Option<f64>,
) -> (&'static str, Option<&'static str>) {
    match (latest_age_s, live) {
        (None, _) if skipped > 0 => ("incompatible", Some("incompatible_rows")),
        (_, true) => ("ok", None),
        (None, false) => ("empty", Some("no_entries")),
        (Some(age), false) if age > FRESHNESS_SLO_S => ("stale", Some("freshness_slo_exceeded")),
        (Some(_), false) => ("ok", None),
    }
}

async fn turn_records(
    _: Guard<Read>,
    State(state): State<AppState>,
    keeper: KeeperName,
    RawQuery(raw): RawQuery,
) -> ApiResult {
    let q = parse_query(raw.as_deref());
    let limit = clamp_limit(query_get(&q, "limit"), 50, 1, 500);
    let (records, skipped) = keeper
        .read(&state, move |c, n| store::recent(c, n, limit))
        .await?;
    let latest_ts = records
        .iter()
        .filter_map(|r| r["ts"].as_f64())
        .fold(None, |acc: Option<f64>, ts| {
            Some(acc.map_or(ts, |a| a.max(ts)))
        });
    let latest_age_s = latest_ts.map(|ts| (now_unix() - ts).max(0.0));
    let live = false;
    let (health, stale_reason) = health(skipped, live, latest_age_s);
    let entries: Vec<Value> = records
        .into_iter()
        .map(|r| json!({"record": r, "diff_vs_prev": null}))
        .collect();
    let body = json!({
        "keeper": keeper.0,
        "count": entries.len(),
        "skipped_rows": skipped,
        "source": "turn_record",
        "producer": "keeper_agent_run.run_turn|keeper_turn_record_writer",
        "dashboard_surface": "/api/v1/keepers/:name/turn-records",
        "freshness_slo_s": FRESHNESS_SLO_S,
        "live_turn_in_progress": live,
        "live_turn_started_at_unix": null,
        "live_turn_last_progress_at_unix": null,
        "latest_ts_unix": latest_ts,
        "latest_age_s": latest_age_s,
        "health": health,
        "stale_reason": stale_reason,
        "entries": entries,
    });
    Ok(keeper_ok(body))
}

/// `<trace>#<turn>` with a non-empty trace and an integer turn (MASC `Ids.Turn_ref.of_string`:
/// split at the last `#`).
fn valid_turn_ref(turn_ref: &str) -> bool {
    turn_ref
        .rsplit_once('#')
        .is_some_and(|(trace, turn)| !trace.is_empty() && turn.parse::<u64>().is_ok())
}

async fn provider_input(
    _: Guard<Read>,
    State(state): State<AppState>,
    keeper: KeeperName,
    RawQuery(raw): RawQuery,
) -> ApiResult {
    let q = parse_query(raw.as_deref());
    let Some(turn_ref) = query_get(&q, "turn_ref").map(str::to_string) else {
        return Ok(error_body(StatusCode::BAD_REQUEST, "turn_ref is required"));
    };
    if !valid_turn_ref(&turn_ref) {
        return Ok(error_body(
            StatusCode::BAD_REQUEST,
            &format!("invalid turn_ref: {turn_ref}"),
        ));
    }
    let t = turn_ref.clone();
    let found = keeper
        .read(&state, move |c, n| store::provider_input(c, n, &t))
        .await?;
    Ok(match found {
        Some(Value::Object(mut body)) => {
            body.insert(
                "dashboard_surface".into(),
                json!("/api/v1/keepers/:name/provider-input"),
            );
            with_echo(json_ok(Value::Object(body)), &["keeper", "turn_ref"])
        }
        _ => error_body(
            StatusCode::NOT_FOUND,
            &format!("no provider-input snapshot for {turn_ref}"),
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s14_11_health_follows_masc_rules() {
        assert_eq!(
            health(2, false, None),
            ("incompatible", Some("incompatible_rows"))
        );
        assert_eq!(health(0, true, None), ("ok", None));
        assert_eq!(health(0, false, None), ("empty", Some("no_entries")));
        assert_eq!(
            health(1, false, Some(901.0)),
            ("stale", Some("freshness_slo_exceeded"))
        );
        assert_eq!(health(0, false, Some(10.0)), ("ok", None));
        assert!(valid_turn_ref("trace-a#3") && valid_turn_ref("a#b#3"));
        assert!(!valid_turn_ref("#3") && !valid_turn_ref("trace") && !valid_turn_ref("t#x"));
    }
}
