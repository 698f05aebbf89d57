//! Keeper configuration: per-keeper manifests (stored bytes; revision = their SHA-256), the
//! composite `config_revision` (§9.5), settings patches with CAS (§9.6, §9.7) and create-only
//! keeper declarations (§9.9), which also register the keeper in the keepers family's table.

use super::runtime::{self, Parsed};
use super::{Family, Migration, StoreError, rfc3339};
use rusqlite::{Connection, OptionalExtension, Transaction, params};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

pub const FAMILY: Family = Family {
    name: "keeper_config",
    migrations: MIGRATIONS,
    seed,
};

const MIGRATIONS: &[Migration] = &[Migration {
    version: 1,
    name: "keeper manifests",
    sql: "CREATE TABLE keeper_manifests (
        name TEXT PRIMARY KEY,
        manifest_text TEXT
    );",
}];

/// (keeper, sandbox, network, remote endpoint, mention targets, instructions, skills).
type SeedManifest = (
    &'static str,
    &'static str,
    &'static str,
    Option<&'static str>,
    &'static [&'static str],
    &'static str,
    Option<&'static [&'static str]>,
);

const SEED: &[SeedManifest] = &[
    (
        "rondo",
        "docker",
        "none",
        None,
        &["@rondo", "@decoders"],
        "Keep the decoder suite green; report on the board.",
        Some(&["rust-review", "nightly-verification"]),
    ),
    (
        "sangsu",
        "docker",
        "none",
        None,
        &["@sangsu"],
        "태스크 접수와 분배를 담당합니다. 모호하면 물어보세요.",
        None,
    ),
    (
        "하늘",
        "microvm",
        "none",
        None,
        &["@하늘", "@sky"],
        "디자인 리뷰와 문서 번역을 맡습니다.",
        Some(&["release-notes", "work-intake"]),
    ),
    (
        "mira",
        "docker",
        "none",
        None,
        &["@mira"],
        "Release notes and changelog curation.",
        Some(&["release-notes"]),
    ),
    (
        "ops-bot",
        "remote_ssh",
        "inherit",
        Some("ops@build-02.internal:22"),
        &["@ops"],
        "Rotate logs, watch disks, page a human when unsure.",
        Some(&["nightly-verification"]),
    ),
    (
        "scout",
        "docker",
        "none",
        None,
        &["@scout"],
        "Watch the nightly board.",
        None,
    ),
    (
        "juno",
        "docker",
        "none",
        None,
        &["@juno"],
        "Incident follow-up.",
        None,
    ),
];

fn seed(tx: &Transaction<'_>) -> Result<(), StoreError> {
    let mut stmt = tx.prepare(
        "SELECT name, activation_mode, autoboot_enabled, proactive_enabled FROM keepers ORDER BY sort_key",
    )?;
    let keepers: Vec<(String, String, bool, bool)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
        .collect::<Result<_, _>>()?;
    drop(stmt);
    for (name, activation, autoboot, proactive) in keepers {
        // A keeper without a row here (beacon) has no manifest file: `{"state":"missing"}`.
        let Some((_, sandbox, network, endpoint, mentions, instructions, skills)) =
            SEED.iter().find(|s| s.0 == name)
        else {
            tx.execute(
                "INSERT INTO keeper_manifests (name, manifest_text) VALUES (?1, NULL)",
                params![name],
            )?;
            continue;
        };
        let manifest = json!({
            "name": name,
            "activation_mode": activation,
            "autoboot_enabled": autoboot,
            "proactive_enabled": proactive,
            "max_context_override": if name == "rondo" { json!(180_000) } else { Value::Null },
            "sandbox_profile": sandbox,
            "network_mode": network,
            "remote_endpoint": endpoint,
            "instructions": instructions,
            "mention_targets": mentions,
            "skills": skills,
        });
        tx.execute(
            "INSERT INTO keeper_manifests (name, manifest_text) VALUES (?1, ?2)",
            params![name, manifest_bytes(&manifest)?],
        )?;
    }
    Ok(())
}

fn manifest_bytes(v: &Value) -> Result<String, StoreError> {
    let mut s = serde_json::to_string_pretty(v)?;
    s.push('\n');
    Ok(s)
}

fn sha256_hex(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

/// What the store knows about one keeper's configuration.
pub struct KeeperConfig {
    pub name: String,
    pub manifest_text: Option<String>,
    pub manifest: Map<String, Value>,
    pub meta_broken: bool,
    pub roster_activation: String,
    pub roster_autoboot: bool,
    pub roster_proactive: bool,
}

/// `None` when the keeper is not registered.
pub fn load(conn: &Connection, name: &str) -> Result<Option<KeeperConfig>, StoreError> {
    let row: Option<(String, bool, bool, bool)> = conn
        .query_row(
            "SELECT activation_mode, autoboot_enabled, proactive_enabled, meta_error_json IS NOT NULL
             FROM keepers WHERE name = ?1",
            params![name],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .optional()?;
    let Some((activation, autoboot, proactive, meta_broken)) = row else {
        return Ok(None);
    };
    let text: Option<String> = conn
        .query_row(
            "SELECT manifest_text FROM keeper_manifests WHERE name = ?1",
            params![name],
            |r| r.get(0),
        )
        .optional()?
        .flatten();
    let manifest = match &text {
        Some(t) => match serde_json::from_str::<Value>(t)? {
            Value::Object(m) => m,
            _ => {
                return Err(StoreError::Invalid(format!(
                    "manifest of {name} is not an object"
                )));
            }
        },
        None => Map::new(),
    };
    Ok(Some(KeeperConfig {
        name: name.to_string(),
        manifest_text: text,
        manifest,
        meta_broken,
        roster_activation: activation,
        roster_autoboot: autoboot,
        roster_proactive: proactive,
    }))
}

/// The composite `config_revision` (§9.5).
pub fn config_revision(conn: &Connection, k: &KeeperConfig) -> Result<Value, StoreError> {
    if k.meta_broken {
        return Ok(json!({"state": "unavailable",
                         "detail": "keeper meta.json is unreadable; settings cannot be revised"}));
    }
    let manifest = match &k.manifest_text {
        Some(t) => json!({"state": "sha256", "value": sha256_hex(t)}),
        None => json!({"state": "missing"}),
    };
    Ok(
        json!({"manifest": manifest, "runtime_assignment": runtime::assignment_revision(conn, &k.name)?}),
    )
}

fn field<'a>(k: &'a KeeperConfig, key: &str) -> Option<&'a Value> {
    k.manifest.get(key).filter(|v| !v.is_null())
}

/// The §9.5 snapshot.
pub fn snapshot(conn: &Connection, k: &KeeperConfig) -> Result<Value, StoreError> {
    let parsed = runtime::current_parsed(conn)?.map(|(_, p)| p);
    let selected = parsed.as_ref().and_then(|p| p.effective_runtime(&k.name));
    let source = match parsed.as_ref().and_then(|p| p.assignment(&k.name)) {
        Some(_) => "explicit",
        None => "default",
    };
    let bool_or = |key: &str, d: bool| field(k, key).and_then(Value::as_bool).unwrap_or(d);
    let text_or = |key: &str, d: &str| {
        field(k, key)
            .and_then(Value::as_str)
            .unwrap_or(d)
            .to_string()
    };
    Ok(json!({
        "name": k.name,
        "config_revision": config_revision(conn, k)?,
        "activation_mode": text_or("activation_mode", &k.roster_activation),
        "autoboot_enabled": bool_or("autoboot_enabled", k.roster_autoboot),
        "max_context_override": field(k, "max_context_override").cloned().unwrap_or(Value::Null),
        "sandbox_profile": text_or("sandbox_profile", "docker"),
        "network_mode": text_or("network_mode", "none"),
        "remote_endpoint": field(k, "remote_endpoint").cloned().unwrap_or(Value::Null),
        "prompt": {"instructions": text_or("instructions", "")},
        "proactive": {"enabled": bool_or("proactive_enabled", k.roster_proactive)},
        "execution": {"selected_runtime_id": selected, "assignment_source": source},
        "skills": {"names": field(k, "skills").cloned().unwrap_or(Value::Null)},
        "workspace": {
            "mention_targets": field(k, "mention_targets").cloned().unwrap_or(json!([])),
            "board_interests": [],
        },
    }))
}

/// Why a patch is refused before any write.
#[derive(Debug)]
pub enum PatchError {
    /// 400 with this message.
    Invalid(String),
}

/// Outcome of a CAS'd settings patch.
pub enum PatchOutcome {
    NotFound,
    Conflict {
        expected: Value,
        observed: Value,
    },
    Done {
        snapshot: Value,
        revision: Value,
        applied: bool,
        warnings: Vec<Value>,
    },
    Invalid(String),
}

const PATCH_KEYS: &[&str] = &[
    "expected_config_revision",
    "runtime_id",
    "mention_targets",
    "autoboot_enabled",
    "max_context_override",
    "sandbox_profile",
    "network_mode",
    "remote_endpoint",
    "instructions",
    "proactive_enabled",
    "skills",
    "confirm_context_shrink",
];

fn skills_ok(v: &Value) -> bool {
    v.as_object().is_some_and(|o| {
        o.is_empty()
            || (o.len() == 1
                && o.get("names")
                    .and_then(Value::as_array)
                    .is_some_and(|a| a.iter().all(Value::is_string)))
    })
}

/// (key, type check, message when the check fails).
type KindCheck = (&'static str, fn(&Value) -> bool, &'static str);

/// Check a patch body's shape (before the store is touched).
pub fn check_patch(body: &Map<String, Value>) -> Result<(), PatchError> {
    let bad = |m: String| Err(PatchError::Invalid(m));
    if let Some(k) = body.keys().find(|k| !PATCH_KEYS.contains(&k.as_str())) {
        return bad(format!("unknown key: {k}"));
    }
    if !body.contains_key("expected_config_revision") {
        return bad("expected_config_revision is required".into());
    }
    if body
        .keys()
        .all(|k| k == "expected_config_revision" || k == "confirm_context_shrink")
    {
        return bad("patch has no settings to change".into());
    }
    let kind_ok = |key: &str, ok: fn(&Value) -> bool| body.get(key).is_none_or(ok);
    let checks: &[KindCheck] = &[
        (
            "runtime_id",
            |v| v.is_string() || v.is_null(),
            "runtime_id must be a string or null",
        ),
        (
            "mention_targets",
            |v| v.as_array().is_some_and(|a| a.iter().all(Value::is_string)),
            "mention_targets must be a list of strings",
        ),
        (
            "autoboot_enabled",
            Value::is_boolean,
            "autoboot_enabled must be a bool",
        ),
        (
            "proactive_enabled",
            Value::is_boolean,
            "proactive_enabled must be a bool",
        ),
        (
            "max_context_override",
            |v| v.is_null() || v.as_i64().is_some_and(|n| n > 0),
            "max_context_override must be a positive int or null",
        ),
        (
            "sandbox_profile",
            |v| matches!(v.as_str(), Some("docker" | "microvm" | "remote_ssh")),
            "sandbox_profile must be docker, microvm or remote_ssh",
        ),
        (
            "network_mode",
            |v| matches!(v.as_str(), Some("none" | "inherit")),
            "network_mode must be none or inherit",
        ),
        (
            "remote_endpoint",
            |v| v.is_null() || v.as_str().is_some_and(|s| !s.trim().is_empty()),
            "remote_endpoint must be a non-blank string or null",
        ),
        (
            "instructions",
            Value::is_string,
            "instructions must be a string",
        ),
        (
            "confirm_context_shrink",
            Value::is_boolean,
            "confirm_context_shrink must be a bool",
        ),
        ("skills", skills_ok, "skills must be {} or {\"names\":[…]}"),
    ];
    for (key, ok, msg) in checks {
        if !kind_ok(key, *ok) {
            return bad((*msg).to_string());
        }
    }
    Ok(())
}

/// Apply a checked patch with CAS, inside one transaction.
pub fn apply_patch(
    tx: &Transaction<'_>,
    name: &str,
    body: &Map<String, Value>,
    now: i64,
) -> Result<PatchOutcome, StoreError> {
    let Some(k) = load(tx, name)? else {
        return Ok(PatchOutcome::NotFound);
    };
    let observed = config_revision(tx, &k)?;
    let expected = body
        .get("expected_config_revision")
        .cloned()
        .unwrap_or(Value::Null);
    if expected != observed || observed.get("state").is_some() {
        return Ok(PatchOutcome::Conflict { expected, observed });
    }
    let before = snapshot(tx, &k)?;
    let mut manifest = if k.manifest_text.is_some() {
        k.manifest.clone()
    } else {
        // First write creates the manifest from the effective settings.
        let mut m = Map::new();
        m.insert("name".into(), json!(name));
        m.insert("activation_mode".into(), before["activation_mode"].clone());
        m.insert(
            "autoboot_enabled".into(),
            before["autoboot_enabled"].clone(),
        );
        m.insert(
            "proactive_enabled".into(),
            before["proactive"]["enabled"].clone(),
        );
        m.insert("max_context_override".into(), Value::Null);
        m.insert("sandbox_profile".into(), before["sandbox_profile"].clone());
        m.insert("network_mode".into(), before["network_mode"].clone());
        m.insert("remote_endpoint".into(), Value::Null);
        m.insert(
            "instructions".into(),
            before["prompt"]["instructions"].clone(),
        );
        m.insert(
            "mention_targets".into(),
            before["workspace"]["mention_targets"].clone(),
        );
        m.insert("skills".into(), Value::Null);
        m
    };
    let parsed: Option<(String, Parsed)> = runtime::current_parsed(tx)?;
    let mut warnings = Vec::new();

    // Context shrink guard: lowering below the effective window needs confirmation.
    if let Some(new) = body.get("max_context_override") {
        let current = manifest
            .get("max_context_override")
            .and_then(Value::as_i64)
            .or_else(|| {
                let rt = before["execution"]["selected_runtime_id"].as_str()?;
                parsed
                    .as_ref()?
                    .1
                    .model(rt)
                    .map(|m| m.effective_max_context())
            });
        if let (Some(n), Some(cur)) = (new.as_i64(), current)
            && n < cur
            && body.get("confirm_context_shrink") != Some(&json!(true))
        {
            return Ok(PatchOutcome::Invalid(format!(
                "lowering max_context_override from {cur} to {n} requires confirm_context_shrink: true"
            )));
        }
    }
    // Sandbox rules (§9.7).
    let old_profile = manifest
        .get("sandbox_profile")
        .and_then(Value::as_str)
        .unwrap_or("docker")
        .to_string();
    if let Some(profile) = body.get("sandbox_profile").and_then(Value::as_str) {
        if old_profile == "remote_ssh"
            && profile != "remote_ssh"
            && body.get("remote_endpoint") != Some(&Value::Null)
        {
            return Ok(PatchOutcome::Invalid(
                "leaving remote_ssh requires \"remote_endpoint\": null".into(),
            ));
        }
        if profile == "remote_ssh"
            && body
                .get("remote_endpoint")
                .and_then(Value::as_str)
                .is_none()
            && manifest
                .get("remote_endpoint")
                .and_then(Value::as_str)
                .is_none()
        {
            return Ok(PatchOutcome::Invalid(
                "remote_ssh requires remote_endpoint".into(),
            ));
        }
        if !body.contains_key("network_mode") {
            let default = if profile == "remote_ssh" {
                "inherit"
            } else {
                "none"
            };
            manifest.insert("network_mode".into(), json!(default));
        }
    }
    for (key, value) in body {
        match key.as_str() {
            "expected_config_revision" | "confirm_context_shrink" | "runtime_id" => {}
            "skills" => {
                let names = value.get("names").cloned().unwrap_or(Value::Null);
                manifest.insert("skills".into(), names);
            }
            _ => {
                manifest.insert(key.clone(), value.clone());
            }
        }
    }
    // Runtime assignment lives in runtime.toml.
    let mut runtime_changed = false;
    if let Some(rt) = body.get("runtime_id") {
        let Some((text, p)) = &parsed else {
            return Ok(PatchOutcome::Invalid(
                "runtime config is missing; cannot assign a runtime".into(),
            ));
        };
        let wanted = rt.as_str();
        if let Some(w) = wanted
            && p.model(w).is_none()
        {
            return Ok(PatchOutcome::Invalid(format!("unknown runtime: {w}")));
        }
        if p.assignment(name) != wanted {
            let new_text =
                runtime::set_assignment(text, name, wanted).map_err(StoreError::Invalid)?;
            runtime::store_text(tx, &new_text, now)?;
            runtime_changed = true;
        }
    }
    let manifest_changed = k.manifest_text.is_none() || manifest != k.manifest;
    let new_text = manifest_bytes(&Value::Object(manifest))?;
    if manifest_changed {
        tx.execute(
            "INSERT INTO keeper_manifests (name, manifest_text) VALUES (?1, ?2)
             ON CONFLICT(name) DO UPDATE SET manifest_text = excluded.manifest_text",
            params![name, new_text],
        )?;
        sync_roster(tx, name, &new_text)?;
    }
    let applied = manifest_changed || runtime_changed;
    if !applied {
        warnings
            .push(json!({"code": "no_change", "detail": "the patch equals the stored settings"}));
    }
    let k2 =
        load(tx, name)?.ok_or_else(|| StoreError::Invalid(format!("keeper {name} vanished")))?;
    let snapshot = snapshot(tx, &k2)?;
    let revision = snapshot["config_revision"].clone();
    Ok(PatchOutcome::Done {
        snapshot,
        revision,
        applied,
        warnings,
    })
}

/// Mirror roster-visible settings into the keepers table (autoboot, proactive, sandbox).
fn sync_roster(tx: &Transaction<'_>, name: &str, manifest_text: &str) -> Result<(), StoreError> {
    let m: Value = serde_json::from_str(manifest_text)?;
    if let Some(b) = m.get("autoboot_enabled").and_then(Value::as_bool) {
        tx.execute(
            "UPDATE keepers SET autoboot_enabled = ?2 WHERE name = ?1",
            params![name, b],
        )?;
    }
    if let Some(b) = m.get("proactive_enabled").and_then(Value::as_bool) {
        tx.execute(
            "UPDATE keepers SET proactive_enabled = ?2 WHERE name = ?1",
            params![name, b],
        )?;
    }
    Ok(())
}

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
    let sandbox = decl
        .get("sandbox_profile")
        .and_then(Value::as_str)
        .unwrap_or("docker")
        .to_string();
    let meta = json!({"name": name, "trace_id": format!("trace-{name}"), "created_at": created,
                      "updated_at": created, "sandbox_profile": sandbox})
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
