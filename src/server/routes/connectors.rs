//! Connectors family: status (§7.1), name pages (§7.2), bind (§7.3) and conditional unbind
//! (§7.4). Gate routes answer errors as `{"ok":false,"error"}`.

use crate::server::http::{
    ApiError, ApiResult, Guard, Operator, Public, Read, clamp_limit, gate_error, json_ok,
    parse_query, query_get, with_echo, with_next_cursor,
};
use crate::server::state::AppState;
use crate::server::store::connectors::{self as store, Unbind};
use crate::server::store::{keepers, now_unix};
use axum::Router;
use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use serde_json::{Value, json};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/gate/connectors", get(status))
        .route("/api/v1/gate/connector/names", get(names))
        .route("/api/v1/gate/connector/bind", post(bind))
        .route("/api/v1/gate/connector/unbind", post(unbind))
}

const DEFAULT_AUDIT: i64 = 10;

async fn status(
    _: Guard<Public>,
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
) -> ApiResult {
    let q = parse_query(raw.as_deref());
    let audit = clamp_limit(query_get(&q, "audit_limit"), DEFAULT_AUDIT, 1, 50);
    Ok(json_ok(
        state.store().read(move |c| store::status(c, audit)).await?,
    ))
}

fn non_blank(q: &[(String, String)], key: &str) -> Option<String> {
    query_get(q, key)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

async fn names(
    _: Guard<Read>,
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
) -> ApiResult {
    let q = parse_query(raw.as_deref());
    let Some(connector) = non_blank(&q, "name") else {
        return Ok(gate_error(StatusCode::BAD_REQUEST, "name is required"));
    };
    let Some(scope) = non_blank(&q, "scope") else {
        return Ok(gate_error(StatusCode::BAD_REQUEST, "scope is required"));
    };
    if !matches!(scope.as_str(), "channel" | "person" | "server") {
        return Ok(gate_error(
            StatusCode::BAD_REQUEST,
            &format!("unknown scope: {scope}"),
        ));
    }
    let limit = clamp_limit(query_get(&q, "limit"), 100, 1, 500);
    let offset = clamp_limit(query_get(&q, "offset"), 0, 0, i64::MAX);
    let after_id = query_get(&q, "after_id").map(str::to_string);
    let (c, s, a) = (connector.clone(), scope.clone(), after_id.clone());
    let page = state
        .store()
        .read(move |conn| {
            if !store::exists(conn, &c)? {
                return Ok(None);
            }
            store::names_page(conn, &c, &s, a.as_deref(), offset, limit).map(Some)
        })
        .await?;
    let Some((total, rows)) = page else {
        return Ok(gate_error(
            StatusCode::NOT_FOUND,
            &format!("unknown connector: {connector}"),
        ));
    };
    let next = rows.last().map(|(id, _)| id.clone());
    let has_more = total > offset.saturating_add(rows.len() as i64);
    let mappings: Vec<Value> = rows
        .into_iter()
        .map(|(id, name)| json!({"id": id, "name": name}))
        .collect();
    let body = json!({
        "connector_id": connector,
        "kind": scope,
        "mapping_scope": "unscoped_historical",
        "current_workspace_id": null,
        "path": format!("connector_names/{connector}/{scope}"),
        "offset": offset,
        "limit": limit,
        "total": total,
        "after_id": after_id,
        "next_after_id": next,
        "has_more": has_more,
        "mappings": mappings,
    });
    let resp = with_echo(json_ok(body), &["connector_id", "kind", "after_id"]);
    Ok(with_next_cursor(
        resp,
        "next_after_id",
        after_id.map(Value::String),
    ))
}

/// The parts of a bind/unbind request, or the 400 to answer.
fn bad(message: &str) -> ApiError {
    ApiError::from(gate_error(StatusCode::BAD_REQUEST, message))
}

struct BindRequest {
    connector: String,
    channel_id: String,
    keeper_name: Option<String>,
}

fn bind_request(
    raw: Option<&str>,
    body: &[u8],
    keeper_required: bool,
) -> Result<BindRequest, ApiError> {
    let q = parse_query(raw);
    let connector = non_blank(&q, "name").ok_or_else(|| bad("name is required"))?;
    let v: Value = serde_json::from_slice(body).map_err(|_| bad("invalid json"))?;
    if !v.is_object() {
        return Err(bad("invalid json"));
    }
    let text = |k: &str| {
        v.get(k)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let channel_id = text("channel_id").ok_or_else(|| bad("channel_id is required"))?;
    let keeper_name = text("keeper_name");
    if keeper_required && keeper_name.is_none() {
        return Err(bad("keeper_name is required"));
    }
    Ok(BindRequest {
        connector,
        channel_id,
        keeper_name,
    })
}

enum BindOutcome {
    Row(Value),
    UnknownConnector,
    UnknownKeeper,
}

async fn bind(
    _: Guard<Operator>,
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
    body: Bytes,
) -> ApiResult {
    let req = bind_request(raw.as_deref(), &body, true)?;
    let keeper = req.keeper_name.clone().unwrap_or_default();
    let (connector, channel, k) = (req.connector.clone(), req.channel_id, keeper.clone());
    let outcome = state
        .store()
        .write(move |tx| {
            if !store::exists(tx, &connector)? {
                return Ok(BindOutcome::UnknownConnector);
            }
            if !keepers::exists(tx, &k)? {
                return Ok(BindOutcome::UnknownKeeper);
            }
            store::bind(tx, &connector, &channel, &k, now_unix() as i64)?;
            Ok(store::status_row(tx, &connector, DEFAULT_AUDIT)?
                .map_or(BindOutcome::UnknownConnector, BindOutcome::Row))
        })
        .await?;
    Ok(match outcome {
        BindOutcome::Row(row) => json_ok(row),
        BindOutcome::UnknownConnector => gate_error(
            StatusCode::NOT_FOUND,
            &format!("unknown connector: {}", req.connector),
        ),
        BindOutcome::UnknownKeeper => {
            gate_error(StatusCode::NOT_FOUND, &format!("unknown keeper: {keeper}"))
        }
    })
}

async fn unbind(
    _: Guard<Operator>,
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
    body: Bytes,
) -> ApiResult {
    let req = bind_request(raw.as_deref(), &body, false)?;
    let (connector, channel, expected) = (req.connector.clone(), req.channel_id, req.keeper_name);
    let outcome = state
        .store()
        .write(move |tx| {
            if !store::exists(tx, &connector)? {
                return Ok(None);
            }
            let result = store::unbind(
                tx,
                &connector,
                &channel,
                expected.as_deref(),
                now_unix() as i64,
            )?;
            Ok(Some((
                result,
                store::status_row(tx, &connector, DEFAULT_AUDIT)?,
            )))
        })
        .await?;
    Ok(match outcome {
        None => gate_error(
            StatusCode::NOT_FOUND,
            &format!("unknown connector: {}", req.connector),
        ),
        Some((Unbind::NotFound, _)) => gate_error(StatusCode::NOT_FOUND, "binding not found"),
        Some((Unbind::Changed, _)) => gate_error(StatusCode::CONFLICT, "binding changed"),
        Some((Unbind::Removed, row)) => json_ok(row.unwrap_or(Value::Null)),
    })
}
