//! Keepers family: roster (§4.1) and keeper turns (§4.2).

use crate::server::http::{
    ApiResult, Guard, Operator, Read, clamp_limit, json_ok, parse_query, query_get,
};
use crate::server::state::AppState;
use crate::server::store::keepers;
use axum::Router;
use axum::extract::{RawQuery, State};
use axum::routing::get;
use serde_json::{Value, json};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/gate/keepers", get(roster))
        .route("/api/v1/keepers/turns", get(turns))
}

/// §4.1: `limit` default and max 200, min 1; `count`/`total`/`truncated`; Candle off. Only the
/// rows sent are built, and moved into the body (not cloned by `json!`).
async fn roster(
    _: Guard<Operator>,
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
) -> ApiResult {
    let q = parse_query(raw.as_deref());
    let limit = clamp_limit(query_get(&q, "limit"), 200, 1, 200);
    let (total, shown) = state
        .store()
        .read(move |c| keepers::roster_page(c, limit))
        .await?;
    let mut body = json!({
        "count": shown.len(),
        "total": total,
        "limit": limit,
        "truncated": total > shown.len(),
        "candle": {"status": "off"},
    });
    if let Some(fields) = body.as_object_mut() {
        fields.insert("keepers".into(), Value::Array(shown));
    }
    Ok(json_ok(body))
}

/// §4.2: one row per registered keeper, sorted by name.
async fn turns(_: Guard<Read>, State(state): State<AppState>) -> ApiResult {
    let rows = state.store().read(keepers::turns).await?;
    Ok(json_ok(json!({
        "schema": "masc.keeper_turns.v1",
        "keepers": rows,
    })))
}
