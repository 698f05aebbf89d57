//! Tools family: inventory `GET /api/v1/dashboard/tools` (§6.1) with its warming placeholder,
//! and the test-mode switch for that placeholder. Also the request-actor helper the other
//! families of this branch share.

use crate::protocol::waiting::TOOLS_KEY as TOOLS_WAITING_KEY;
use crate::server::http::{
    Admin, ApiResult, Guard, Public, error_body, json_ok, parse_query, query_get,
};
use crate::server::routes::keeper_read::KeeperName;
use crate::server::state::AppState;
use crate::server::store::StoreError;
use crate::server::store::now_unix;
use crate::server::store::skills as skill_store;
use crate::server::store::tools::{self as store, ToolsWarming};
use crate::server::store::waiting::{self, WaitingScript};
use axum::Router;
use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::{get, post};
use rusqlite::{Connection, OptionalExtension, params};
use serde_json::{Map, Value, json};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/dashboard/tools", get(inventory))
        .route("/__admin/tools-warming", post(set_warming_route))
        .route(
            "/api/v1/keepers/{name}/waiting-inventory",
            get(keeper_waiting_inventory),
        )
        .route("/__admin/waiting-inventory", post(set_waiting_script_route))
}

/// `GET /api/v1/keepers/{name}/waiting-inventory` (§15.8): the inventory of one name,
/// computed per request. Like MASC it does not check that the Keeper exists: an unknown name
/// answers a body whose one Keeper is idle with no rows.
async fn keeper_waiting_inventory(
    _: Guard<Public>,
    State(state): State<AppState>,
    keeper: KeeperName,
) -> ApiResult {
    let name = keeper.0;
    let body = state
        .store()
        .read(move |c| waiting::inventory(c, Some(&name), now_unix()))
        .await?;
    Ok(json_ok(body.unwrap_or(Value::Null)))
}

/// Choose what the waiting inventory answers next (tests and fault scripts, §15.8).
pub async fn set_waiting_script(state: &AppState, script: WaitingScript) -> Result<(), StoreError> {
    state
        .store()
        .write(move |tx| waiting::set_script(tx, &script))
        .await
}

/// `POST /__admin/waiting-inventory` with a [`WaitingScript`] (test mode only): what the
/// waiting inventory answers next (§15.8 faults).
async fn set_waiting_script_route(
    _: Guard<Admin>,
    State(state): State<AppState>,
    body: Bytes,
) -> ApiResult {
    if !state.test_mode() {
        return Ok(error_body(StatusCode::NOT_FOUND, "not found"));
    }
    let script: WaitingScript = match serde_json::from_slice(&body) {
        Ok(s) => s,
        Err(e) => {
            return Ok(error_body(
                StatusCode::BAD_REQUEST,
                &format!("invalid script: {e}"),
            ));
        }
    };
    set_waiting_script(&state, script).await?;
    Ok(json_ok(json!({"ok": true})))
}

/// Attaches the live waiting inventory (§15.8) to a Tools body, as MASC does to the settled
/// body and to its warming placeholder alike; the script can leave the key out.
fn with_waiting_inventory(conn: &Connection, mut body: Value) -> Result<Value, StoreError> {
    if let (Some(obj), Some(inv)) = (
        body.as_object_mut(),
        waiting::inventory(conn, None, now_unix())?,
    ) {
        obj.insert(TOOLS_WAITING_KEY.into(), inv);
    }
    Ok(body)
}

/// The request actor: `X-MASC-Agent` (trimmed, non-blank). The embedded server has one shared
/// token without an agent, so the header names the actor (§1.2, §10.5).
pub(crate) fn request_actor(headers: &HeaderMap) -> Option<String> {
    headers
        .get("x-masc-agent")
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// The actor a MASC tool route records (§15.6, §15.4): `X-Gate-Agent`, then `X-MASC-Agent`,
/// else `dashboard`; never the body.
pub(crate) fn tool_actor(headers: &HeaderMap) -> String {
    headers
        .get("x-gate-agent")
        .and_then(|h| h.to_str().ok())
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .or_else(|| request_actor(headers))
        .unwrap_or_else(|| "dashboard".into())
}

/// Choose when the inventory answers the warming placeholder (tests and fault scripts).
pub async fn set_tools_warming(state: &AppState, mode: ToolsWarming) -> Result<(), StoreError> {
    state
        .store()
        .write(move |tx| store::set_warming(tx, mode))
        .await
}

/// `POST /__admin/tools-warming` `{"mode":"off"|"first_read"|"per_actor","reads":n}`
/// (test mode only).
async fn set_warming_route(
    _: Guard<Admin>,
    State(state): State<AppState>,
    body: Bytes,
) -> ApiResult {
    if !state.test_mode() {
        return Ok(error_body(StatusCode::NOT_FOUND, "not found"));
    }
    let parsed: Value = match serde_json::from_slice(&body) {
        Ok(v) => v,
        Err(e) => {
            return Ok(error_body(
                StatusCode::BAD_REQUEST,
                &format!("invalid json: {e}"),
            ));
        }
    };
    let reads = parsed
        .get("reads")
        .and_then(Value::as_u64)
        .and_then(|n| u32::try_from(n).ok())
        .unwrap_or(1);
    let mode = match parsed.get("mode").and_then(Value::as_str) {
        Some("off") => ToolsWarming::Off,
        Some("first_read") => ToolsWarming::FirstRead,
        Some("per_actor") => ToolsWarming::PerActor { reads },
        _ => {
            return Ok(error_body(
                StatusCode::BAD_REQUEST,
                "mode must be off, first_read or per_actor",
            ));
        }
    };
    set_tools_warming(&state, mode).await?;
    Ok(json_ok(json!({"ok": true})))
}

async fn inventory(
    _: Guard<Public>,
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> ApiResult {
    let q = parse_query(raw.as_deref());
    let keeper = query_get(&q, "keeper")
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string);
    let actor = request_actor(&headers).unwrap_or_else(|| "anonymous".into());
    let body = state
        .store()
        .write(move |tx| {
            let generated_at = store::generated_at(tx)?;
            if store::take_warming_read(tx, &actor)? {
                return with_waiting_inventory(tx, json!({
                    "generated_at": generated_at,
                    "is_warming": true,
                    "status": "warming",
                    "stale_reason": "warming",
                    "tool_inventory": {"count": 0, "tools": [], "surface_summary": {}},
                    "tool_usage": {},
                    "effective_keeper_surface": keeper.as_ref().map(|_| json!({"status": "warming"})),
                    "skill_activations": null,
                }));
            }
            let body = settled(tx, &generated_at, keeper.as_deref())?;
            with_waiting_inventory(tx, body)
        })
        .await?;
    Ok(json_ok(body))
}

fn settled(
    conn: &Connection,
    generated_at: &str,
    keeper: Option<&str>,
) -> Result<Value, StoreError> {
    let tools = store::inventory(conn)?;
    let mut summary: Map<String, Value> = Map::new();
    for t in &tools {
        for s in &t.surfaces {
            let n = summary.get(s).and_then(Value::as_u64).unwrap_or(0) + 1;
            summary.insert(s.clone(), json!(n));
        }
    }
    let mut used: Vec<&store::ToolRow> = tools.iter().filter(|t| t.calls > 0).collect();
    used.sort_by(|a, b| b.calls.cmp(&a.calls).then(a.name.cmp(&b.name)));
    let top: Vec<Value> = used
        .iter()
        .take(20)
        .map(|t| {
            json!({"name": t.name, "calls": t.calls, "failures": t.failures,
                   "last_called_at": t.last_called_at.map(crate::server::store::rfc3339)})
        })
        .collect();
    let usage = json!({
        "total_calls": tools.iter().map(|t| t.calls).sum::<i64>(),
        "distinct_tools_called": used.len(),
        "top_20": top,
        "never_called_count": tools.len() - used.len(),
        "registered_count": tools.len(),
        "source": "tool_usage",
        "health": "ok",
    });
    let (surface, activations) = match keeper {
        None => (Value::Null, Value::Null),
        Some(k) => keeper_surface(conn, k, &tools)?,
    };
    Ok(json!({
        "generated_at": generated_at,
        "tool_inventory": {
            "count": tools.len(),
            "tools": tools.iter().map(|t| t.row.clone()).collect::<Vec<_>>(),
            "surface_summary": summary,
        },
        "tool_usage": usage,
        "effective_keeper_surface": surface,
        "skill_activations": activations,
    }))
}

/// The effective turn surface of one keeper and its activation ledger.
fn keeper_surface(
    conn: &Connection,
    keeper: &str,
    tools: &[store::ToolRow],
) -> Result<(Value, Value), StoreError> {
    let row: Option<(String, String, bool)> = conn
        .query_row(
            "SELECT status, runtime_id, meta_error_json IS NOT NULL FROM keepers WHERE name = ?1",
            params![keeper],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()?;
    let unavailable = |reason: &str, detail: String| json!({"status": "unavailable", "keeper_name": keeper, "reason": reason, "detail": detail});
    let Some((status, runtime_id, meta_broken)) = row else {
        let u = unavailable(
            "unknown_keeper",
            format!("keeper \"{keeper}\" is not registered"),
        );
        return Ok((u.clone(), u));
    };
    if meta_broken {
        let u = unavailable(
            "keeper_meta_unreadable",
            "meta.json could not be decoded; surface not computed".into(),
        );
        return Ok((
            u,
            json!({"status": "unavailable", "reason": "keeper_meta_unreadable",
                             "detail": "activation ledger not read"}),
        ));
    }
    let ledger = json!({"status": "available", "ledger": skill_store::activations(conn, keeper)?});
    if matches!(status.as_str(), "inactive" | "offline") {
        let u = unavailable("keeper_not_running", format!("keeper status is {status}"));
        return Ok((u, ledger));
    }
    let surface_tools: Vec<Value> = tools
        .iter()
        .filter(|t| t.surfaces.iter().any(|s| s == "keeper"))
        .map(|t| {
            let origin = match t.category.as_str() {
                "skill" => json!({"kind": "composition_skill",
                                  "skill_source": "skills/nightly-verification/SKILL.md"}),
                "builtin" => json!({"kind": "builtin"}),
                _ => json!({"kind": "masc_tool"}),
            };
            json!({"name": t.name, "origin": origin})
        })
        .collect();
    let mut instruction = Vec::new();
    let mut composition = Vec::new();
    let mut left_out = Vec::new();
    for s in skill_store::list(conn)? {
        let reference = skill_store::reference(&s.name, &s.source_id);
        match s.kind.as_str() {
            "instruction" => instruction.push(reference),
            "composition" => composition.push(reference),
            _ => left_out.push(json!({"reference": reference, "reason": "unavailable",
                                      "detail": s.error})),
        }
    }
    Ok((
        json!({
            "status": "available",
            "keeper_name": keeper,
            "runtime_id": runtime_id,
            "tool_delivery": {"status": "delivered"},
            "count": surface_tools.len(),
            "tools": surface_tools,
            "instruction_skills": instruction,
            "composition_skills": composition,
            "skills_left_out": left_out,
        }),
        ledger,
    ))
}
