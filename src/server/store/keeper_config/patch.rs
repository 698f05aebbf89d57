//! Settings patches with CAS (§9.6) and the sandbox rules (§9.7).

use super::{config_revision, load, manifest_bytes, snapshot};
use crate::server::store::StoreError;
use crate::server::store::runtime::{self, Parsed};
use rusqlite::{Transaction, params};
use serde_json::{Map, Value, json};

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

/// Mirror roster-visible settings into the keepers table (autoboot, proactive).
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
    // The sandbox is not mirrored: the roster reads it from the manifest itself.
    Ok(())
}
