//! Keeper configuration family: settings snapshot (§9.5), settings/sandbox patch with CAS
//! (§9.6, §9.7) and the create-only `POST /api/v1/keepers` (§9.9).

use crate::server::http::{
    Admin, ApiError, ApiResult, Faults, Guard, Read, error_body, json_ok, json_status,
};
use crate::server::state::AppState;
use crate::server::store::keeper_config::{self as store, CreateOutcome, PatchError, PatchOutcome};
use crate::server::store::now_unix;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use serde_json::{Map, Value, json};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/keepers/{name}/config", get(snapshot).post(patch))
        .route("/api/v1/keepers", post(create))
        .route("/api/v1/keepers/{name}/up", post(up))
}

fn not_found(name: &str) -> axum::response::Response {
    error_body(
        StatusCode::NOT_FOUND,
        &format!("keeper \"{name}\" not found"),
    )
}

async fn snapshot(
    _: Guard<Read>,
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> ApiResult {
    let n = name.clone();
    let body = state
        .store()
        .read(move |c| match store::load(c, &n)? {
            Some(k) => store::snapshot(c, &k).map(Some),
            None => Ok(None),
        })
        .await?;
    Ok(match body {
        Some(b) => json_ok(b),
        None => not_found(&name),
    })
}

/// A POST body that must be a JSON object; `make_error` builds the family's 400.
pub(crate) fn object_body(
    body: &[u8],
    make_error: fn(&str) -> axum::response::Response,
) -> Result<Map<String, Value>, ApiError> {
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(ApiError::from(make_error(
            "invalid json: expected an object",
        ))),
        Err(e) => Err(ApiError::from(make_error(&format!("invalid json: {e}")))),
    }
}

fn plain_400(msg: &str) -> axum::response::Response {
    error_body(StatusCode::BAD_REQUEST, msg)
}

async fn patch(
    _: Guard<Admin>,
    State(state): State<AppState>,
    Path(name): Path<String>,
    body: Bytes,
) -> ApiResult {
    let m = object_body(&body, plain_400)?;
    if let Err(PatchError::Invalid(msg)) = store::check_patch(&m) {
        return Ok(plain_400(&msg));
    }
    let n = name.clone();
    let outcome = state
        .store()
        .write(move |tx| store::apply_patch(tx, &n, &m, now_unix() as i64))
        .await?;
    Ok(match outcome {
        PatchOutcome::NotFound => not_found(&name),
        PatchOutcome::Invalid(msg) => plain_400(&msg),
        PatchOutcome::Conflict { expected, observed } => json_status(
            StatusCode::CONFLICT,
            json!({
                "ok": false, "keeper": name, "config_applied": false, "runtime_sync": false,
                "error": {"code": "keeper_config_revision_conflict",
                          "expected": expected, "observed": observed},
            }),
        ),
        PatchOutcome::Done {
            mut snapshot,
            revision,
            applied,
            warnings,
        } => {
            if let Some(obj) = snapshot.as_object_mut() {
                obj.insert(
                    "config_write".into(),
                    json!({"revision": revision, "applied": applied, "warnings": warnings}),
                );
            }
            json_ok(snapshot)
        }
    })
}

fn gate_400(msg: &str) -> axum::response::Response {
    json_status(StatusCode::BAD_REQUEST, json!({"ok": false, "error": msg}))
}

/// Checks of a declaration before the store is touched.
fn check_declaration(m: &Map<String, Value>) -> Result<(), String> {
    if let Some(k) = m
        .keys()
        .find(|k| !store::DECLARATION_KEYS.contains(&k.as_str()))
    {
        return Err(format!("unknown key: {k}"));
    }
    let text = |k: &str| {
        m.get(k)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
    };
    for key in ["name", "sandbox_profile", "network_mode"] {
        if text(key).is_none() {
            return Err(format!("{key} is required"));
        }
    }
    let name = text("name").unwrap_or_default();
    if name.contains('/') || name.chars().count() > 64 || name.chars().any(char::is_control) {
        return Err(format!("invalid keeper name: {name}"));
    }
    if !m.get("instructions").is_some_and(Value::is_string) {
        return Err("instructions is required".into());
    }
    if !matches!(
        text("sandbox_profile"),
        Some("docker" | "microvm" | "remote_ssh")
    ) {
        return Err("sandbox_profile must be docker, microvm or remote_ssh".into());
    }
    if !matches!(text("network_mode"), Some("none" | "inherit")) {
        return Err("network_mode must be none or inherit".into());
    }
    if text("sandbox_profile") == Some("remote_ssh") && text("remote_endpoint").is_none() {
        return Err("remote_ssh requires remote_endpoint".into());
    }
    for key in ["autoboot_enabled", "proactive_enabled"] {
        if m.get(key).is_some_and(|v| !v.is_boolean()) {
            return Err(format!("{key} must be a bool"));
        }
    }
    if m.get("max_context_override")
        .is_some_and(|v| !(v.is_null() || v.as_i64().is_some_and(|n| n > 0)))
    {
        return Err("max_context_override must be a positive int or null".into());
    }
    if m.get("runtime_id")
        .is_some_and(|v| !(v.is_null() || v.is_string()))
    {
        return Err("runtime_id must be a string".into());
    }
    if m.get("activation_mode")
        .is_some_and(|v| !matches!(v.as_str(), Some("autonomous" | "on_demand" | "manual")))
    {
        return Err("activation_mode must be autonomous, on_demand or manual".into());
    }
    Ok(())
}

async fn create(_: Guard<Admin>, State(state): State<AppState>, body: Bytes) -> ApiResult {
    let mut m = object_body(&body, gate_400)?;
    if let Err(msg) = check_declaration(&m) {
        return Ok(gate_400(&msg));
    }
    let name = m
        .get("name")
        .and_then(Value::as_str)
        .map(|s| s.trim().to_string())
        .unwrap_or_default();
    m.insert("name".into(), json!(name));
    let decl = m.clone();
    let outcome = state
        .store()
        .write(move |tx| store::create(tx, &decl, now_unix() as i64))
        .await?;
    Ok(match outcome {
        CreateOutcome::Exists => json_status(
            StatusCode::CONFLICT,
            json!({"ok": false, "error": "keeper_exists", "name": name}),
        ),
        CreateOutcome::Created { lane_error } => {
            let lane = match lane_error {
                None => json!({"state": "running"}),
                Some(reason) => json!({"state": "failed", "reason": reason}),
            };
            json_status(
                StatusCode::CREATED,
                json!({
                    "ok": true, "action": "created", "name": name,
                    "detail": {"name": name, "sandbox_profile": m.get("sandbox_profile"),
                               "network_mode": m.get("network_mode"), "lane": lane},
                }),
            )
        }
    })
}

/// `POST /api/v1/keepers/{name}/up` (protocol-15 §15.11): MASC's create-or-update, served only
/// when this server plays the newer MASC (every other mode answers MASC's unknown-route 404).
/// None → the create result (`{name, agent_name, trace_id, generation, …}`); present → the full
/// metadata record (`schema: masc.keeper_meta.v1`), refused with `keeper_turn_in_flight`
/// (`metadata_committed: true`) while a turn holds the Keeper. Faults: `{"keeper_up": "race"}`
/// creates the name just before (someone else's create in the race window), `"turn_in_flight"`,
/// `"lane_fails"`.
async fn up(
    _: Guard<Admin>,
    State(state): State<AppState>,
    Faults(faults): Faults,
    Path(name): Path<String>,
    body: Bytes,
) -> ApiResult {
    use crate::server::compat::{MascRelease, route_miss};
    use crate::server::faults::KeeperUpFault;
    if state.release() != Some(MascRelease::Newer) {
        return Ok(route_miss(&format!("/api/v1/keepers/{name}/up")));
    }
    let mut m = object_body(&body, gate_400)?;
    m.insert("name".into(), json!(name));
    if let Err(msg) = check_declaration(&m) {
        return Ok(gate_400(&msg));
    }
    let decl = m.clone();
    let fault = faults.keeper_up;
    let now = now_unix() as i64;
    let outcome = state
        .store()
        .write(move |tx| {
            if fault == Some(KeeperUpFault::Race) {
                // Another client's create lands first: this request becomes an update.
                store::create(tx, &decl, now - 1)?;
            }
            let exists = crate::server::store::keepers::exists(tx, &name)?;
            if !exists {
                return store::create(tx, &decl, now).map(|o| (false, Some(o)));
            }
            Ok((true, None))
        })
        .await?;
    let name = m
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    Ok(match outcome {
        (true, _) if fault == Some(KeeperUpFault::TurnInFlight) => json_status(
            StatusCode::CONFLICT,
            json!({"ok": false, "error": "keeper_turn_in_flight", "metadata_committed": true}),
        ),
        (true, _) => json_ok(json!({
            "schema": "masc.keeper_meta.v1",
            "name": name,
            "agent_name": name,
            "trace_id": format!("trace-{name}"),
            "generation": 2,
            "created_at": crate::server::store::rfc3339(now - 3600),
            "runtime": {"runtime_id": m.get("runtime_id")},
            "instructions": m.get("instructions"),
            "sandbox_profile": m.get("sandbox_profile"),
            "network_mode": m.get("network_mode"),
        })),
        (false, Some(CreateOutcome::Created { lane_error }))
            if lane_error.is_some() || fault == Some(KeeperUpFault::LaneFails) =>
        {
            let cause = lane_error.unwrap_or_else(|| "sandbox did not start".into());
            json_status(
                StatusCode::INTERNAL_SERVER_ERROR,
                json!({"ok": false, "error": format!(
                    "keeper metadata was created but lane launch failed: {cause}"
                )}),
            )
        }
        (false, _) => json_ok(json!({
            "name": name,
            "agent_name": name,
            "trace_id": format!("trace-{name}"),
            "generation": 1,
            "instructions": m.get("instructions"),
            "proactive_enabled": m.get("proactive_enabled").cloned().unwrap_or(json!(false)),
            "max_context_override": m.get("max_context_override").cloned().unwrap_or(Value::Null),
            "agent_core_env": {},
        })),
    })
}
