//! Create-only keeper declarations (§9.9): the manifest here, the roster row in the keepers
//! family's table, and an explicit runtime as the keeper's assignment.

use super::manifest_bytes;
use crate::server::store::runtime;
use crate::server::store::{StoreError, rfc3339};
use rusqlite::{OptionalExtension, Transaction, params};
use serde_json::{Map, Value, json};

/// Keys a create-only declaration (§9.9) may carry.
pub const DECLARATION_KEYS: &[&str] = &[
    "name",
    "sandbox_profile",
    "network_mode",
    "instructions",
    "sandbox_image",
    "microvm_backend",
    "remote_endpoint",
    "mention_targets",
    "skills",
    "max_context_override",
    "activation_mode",
    "runtime_id",
    "autoboot_enabled",
    "proactive_enabled",
];

/// Outcome of a create.
pub enum CreateOutcome {
    Exists,
    /// Created; `lane_error` is why the lane did not start (the declaration is kept).
    Created {
        lane_error: Option<String>,
    },
}

/// Register a new keeper: its manifest here, its roster row in the keepers table.
pub fn create(
    tx: &Transaction<'_>,
    decl: &Map<String, Value>,
    now: i64,
) -> Result<CreateOutcome, StoreError> {
    let name = decl
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .trim()
        .to_string();
    let exists: Option<i64> = tx
        .query_row(
            "SELECT 1 FROM keepers WHERE name = ?1",
            params![name],
            |r| r.get(0),
        )
        .optional()?;
    if exists.is_some() {
        return Ok(CreateOutcome::Exists);
    }
    let parsed = runtime::current_parsed(tx)?.map(|(_, p)| p);
    let requested = decl
        .get("runtime_id")
        .and_then(Value::as_str)
        .map(str::to_string);
    let runtime_id = requested
        .clone()
        .or_else(|| parsed.as_ref().and_then(|p| p.default.clone()))
        .unwrap_or_else(|| "unassigned".into());
    let lane_error = match (&requested, &parsed) {
        (Some(r), Some(p)) if p.model(r).is_none() => Some(format!(
            "runtime {r} is not in the catalogue; lane not started"
        )),
        (Some(_), None) => Some("runtime config missing; lane not started".to_string()),
        _ => None,
    };
    let activation = decl
        .get("activation_mode")
        .and_then(Value::as_str)
        .unwrap_or("on_demand")
        .to_string();
    let autoboot = decl
        .get("autoboot_enabled")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let proactive = decl
        .get("proactive_enabled")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let running = lane_error.is_none();
    let created = rfc3339(now);
    let sort_key: i64 = tx.query_row(
        "SELECT COALESCE(MAX(sort_key), 0) + 1 FROM keepers",
        [],
        |r| r.get(0),
    )?;
    // The sandbox lives in the manifest written below, the one record every route reads.
    let meta = json!({"name": name, "trace_id": format!("trace-{name}"), "created_at": created,
                      "updated_at": created})
    .to_string();
    tx.execute(
        "INSERT INTO keepers (name, sort_key, agent_name, status, keepalive_running,
            autoboot_enabled, proactive_enabled, runtime_id, meta_json, meta_error_json, health,
            paused, phase, activation_mode, created_at, updated_at, current_task, turn_lane,
            turn_started_at, turn_preview_json, census_detail, chat_control_token)
         VALUES (?1, ?2, ?1, ?3, ?4, ?5, ?6, ?7, ?8, NULL, ?9, 0, ?10, ?11, ?12, ?12, NULL, NULL,
            NULL, NULL, NULL, ?13)",
        params![
            name,
            sort_key,
            if running { "active" } else { "inactive" },
            running,
            autoboot,
            proactive,
            runtime_id,
            meta,
            if running { "healthy" } else { "stopped" },
            if running { "running" } else { "failed" },
            activation,
            created,
            format!("control-{name}"),
        ],
    )?;
    let mut manifest = Map::new();
    manifest.insert("name".into(), json!(name));
    manifest.insert("activation_mode".into(), json!(activation));
    manifest.insert("autoboot_enabled".into(), json!(autoboot));
    manifest.insert("proactive_enabled".into(), json!(proactive));
    for key in [
        "max_context_override",
        "sandbox_profile",
        "network_mode",
        "remote_endpoint",
        "instructions",
        "mention_targets",
        "sandbox_image",
        "microvm_backend",
    ] {
        if let Some(v) = decl.get(key) {
            manifest.insert(key.into(), v.clone());
        }
    }
    let skills = decl
        .get("skills")
        .map(|s| s.get("names").cloned().unwrap_or_else(|| s.clone()));
    manifest.insert(
        "skills".into(),
        skills.filter(Value::is_array).unwrap_or(Value::Null),
    );
    tx.execute(
        "INSERT INTO keeper_manifests (name, manifest_text) VALUES (?1, ?2)",
        params![name, manifest_bytes(&Value::Object(manifest))?],
    )?;
    // An explicit runtime becomes the keeper's assignment in runtime.toml.
    if let Some(r) = requested.as_deref().filter(|_| lane_error.is_none())
        && let Some((text, _)) = runtime::current_parsed(tx)?
    {
        let new_text =
            runtime::set_assignment(&text, &name, Some(r)).map_err(StoreError::Invalid)?;
        runtime::store_text(tx, &new_text, now)?;
    }
    Ok(CreateOutcome::Created { lane_error })
}
