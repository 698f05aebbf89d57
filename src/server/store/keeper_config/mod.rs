//! Keeper configuration: per-keeper manifests (stored bytes; revision = their SHA-256), the
//! composite `config_revision` (§9.5), settings patches with CAS (§9.6, §9.7) and create-only
//! keeper declarations (§9.9), which also register the keeper in the keepers family's table.

use super::runtime;
use super::{Family, Migration, StoreError};
use rusqlite::{Connection, OptionalExtension, Transaction, params};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

mod create;
mod patch;

pub use create::{CreateOutcome, DECLARATION_KEYS, create};
pub use patch::{PatchError, PatchOutcome, apply_patch, check_patch};

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

/// The instructions a seeded Keeper's manifest declares (its seeded turn records were prompted
/// with them, so the inspectors and the settings agree).
pub fn seeded_instructions(keeper: &str) -> Option<&'static str> {
    SEED.iter().find(|s| s.0 == keeper).map(|s| s.5)
}

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

/// The sandbox profile a Keeper's manifest leaves unsaid (§9.5's default).
pub const DEFAULT_SANDBOX: &str = "docker";
/// The network mode a Keeper's manifest leaves unsaid (§9.5's default).
pub const DEFAULT_NETWORK: &str = "none";

/// What a Keeper declares about its instructions, sandbox and network, as every route that
/// reports them serves it: §4.1 (`meta.sandbox_profile`), §9.5 and §14.7 read this one record —
/// the Keeper's manifest, with §9.5's defaults where it is silent — so no screen can show a
/// value another route contradicts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declared {
    pub sandbox_profile: String,
    pub network_mode: String,
    /// Empty when the manifest sets none.
    pub instructions: String,
}

impl Declared {
    fn of(k: &KeeperConfig) -> Self {
        let text_or = |key: &str, d: &str| {
            field(k, key)
                .and_then(Value::as_str)
                .unwrap_or(d)
                .to_string()
        };
        Self {
            sandbox_profile: text_or("sandbox_profile", DEFAULT_SANDBOX),
            network_mode: text_or("network_mode", DEFAULT_NETWORK),
            instructions: text_or("instructions", ""),
        }
    }
}

/// The declared settings of `name`; `None` when no such Keeper is registered.
pub fn declared(conn: &Connection, name: &str) -> Result<Option<Declared>, StoreError> {
    Ok(load(conn, name)?.as_ref().map(Declared::of))
}

/// The sandbox profile a manifest's text declares (the roster reads it per row without
/// loading each Keeper); §9.5's default when it declares none or there is no manifest.
pub fn declared_sandbox(manifest_text: Option<&str>) -> String {
    manifest_text
        .and_then(|t| serde_json::from_str::<Value>(t).ok())
        .and_then(|m| m.get("sandbox_profile")?.as_str().map(str::to_string))
        .unwrap_or_else(|| DEFAULT_SANDBOX.to_string())
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
    let declared = Declared::of(k);
    Ok(json!({
        "name": k.name,
        "config_revision": config_revision(conn, k)?,
        "activation_mode": text_or("activation_mode", &k.roster_activation),
        "autoboot_enabled": bool_or("autoboot_enabled", k.roster_autoboot),
        "max_context_override": field(k, "max_context_override").cloned().unwrap_or(Value::Null),
        "sandbox_profile": declared.sandbox_profile,
        "network_mode": declared.network_mode,
        "remote_endpoint": field(k, "remote_endpoint").cloned().unwrap_or(Value::Null),
        "prompt": {"instructions": declared.instructions},
        "proactive": {"enabled": bool_or("proactive_enabled", k.roster_proactive)},
        "execution": {"selected_runtime_id": selected, "assignment_source": source},
        "skills": {"names": field(k, "skills").cloned().unwrap_or(Value::Null)},
        "workspace": {
            "mention_targets": field(k, "mention_targets").cloned().unwrap_or(json!([])),
            "board_interests": [],
        },
    }))
}
