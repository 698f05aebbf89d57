//! Runtime configuration: the stored `runtime.toml` text with its revision (§9.2–§9.4),
//! its parse into the catalogue, lanes, accounts and keeper assignments (§9.1, §9.8), and
//! quota/usage state.

use super::{Family, Migration, SEED_EPOCH, StoreError};
use rusqlite::{Connection, Transaction, params};
use serde_json::{Value, json};
mod config;

pub use config::*;

pub const FAMILY: Family = Family {
    name: "runtime",
    migrations: MIGRATIONS,
    seed,
};

const MIGRATIONS: &[Migration] = &[Migration {
    version: 1,
    name: "runtime config, quota status, usage windows",
    sql: "CREATE TABLE runtime_config (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        source_text TEXT,
        commit_order INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
    );
    CREATE TABLE runtime_status (
        runtime_id TEXT PRIMARY KEY,
        quota_exhausted INTEGER NOT NULL,
        rate_limited INTEGER NOT NULL,
        quota_resets_at REAL,
        rate_limit_resets_at REAL
    );
    CREATE TABLE runtime_usage (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        since REAL NOT NULL,
        accounts_json TEXT NOT NULL
    );",
}];

pub const FILE_NAME: &str = "runtime.toml";

pub const SEED_CONFIG: &str = r#"# MASC runtime configuration (demo workspace)
# 런타임 설정: 모델, 레인, 계정, 키퍼 배정

[runtime]
default = "anthropic.claude-sonnet-4"
media_failover = ["openai.gpt-5", "google.gemini-2.5-pro"]

[[models]]
runtime_id = "anthropic.claude-opus-5"
provider = "Anthropic"
provider_id = "anthropic"
model_id = "claude-opus-5"
max_context = 200000
max_output_tokens = 32000
quota_scope = "account:anthropic-team"

[[models]]
runtime_id = "anthropic.claude-sonnet-4"
provider = "Anthropic"
provider_id = "anthropic"
model_id = "claude-sonnet-4"
max_context = 200000
max_context_override = 160000
max_output_tokens = 16000
quota_scope = "account:anthropic-team"

[[models]]
runtime_id = "openai.gpt-5"
provider = "OpenAI"
provider_id = "openai"
model_id = "gpt-5"
max_context = 400000
max_output_tokens = 128000
quota_scope = "account:openai-ops"

[[models]]
runtime_id = "google.gemini-2.5-pro"
provider = "Google"
provider_id = "google"
model_id = "gemini-2.5-pro"
max_context = 1000000
max_output_tokens = 65536
quota_scope = "project:gemini-lab"

[[models]]
runtime_id = "local.qwen3-32b"
provider = "Local (llama.cpp)"
provider_id = "local"
model_id = "qwen3-32b"
max_context = 32768
max_output_tokens = 8192
is_local = true

[[models]]
runtime_id = "local.llama-4-scout"
provider = "Local (llama.cpp)"
provider_id = "local"
model_id = "llama-4-scout"
max_context = 131072
is_local = true

[lanes.primary]
runtimes = ["anthropic.claude-opus-5", "anthropic.claude-sonnet-4"]

[lanes.research]
runtimes = ["openai.gpt-5", "google.gemini-2.5-pro"]

[lanes.local]
runtimes = ["local.qwen3-32b", "local.llama-4-scout"]

[[accounts]]
integration_id = "anthropic-team"
group = "anthropic"
email = "ops@masc.example"

[[accounts]]
integration_id = "anthropic-backup"
group = "anthropic"

[[accounts]]
integration_id = "openai-ops"
email = "platform@masc.example"

[keepers.rondo]
runtime = "anthropic.claude-opus-5"

[keepers."하늘"]
runtime = "openai.gpt-5"

[keepers.ops-bot]
runtime = "local.qwen3-32b"

[keepers.scout]
runtime = "google.gemini-2.5-pro"

[keepers.juno]
runtime = "anthropic.claude-opus-5"

[keepers.beacon]
runtime = "local.llama-4-scout"
"#;

fn seed(tx: &Transaction<'_>) -> Result<(), StoreError> {
    tx.execute(
        "INSERT INTO runtime_config (id, source_text, commit_order, updated_at) VALUES (1, ?1, 7, ?2)",
        params![SEED_CONFIG, SEED_EPOCH - 7_200],
    )?;
    // Opus is rate limited for a while; Gemini's project quota is spent for two days.
    tx.execute(
        "INSERT INTO runtime_status VALUES ('anthropic.claude-opus-5', 0, 1, NULL, ?1)",
        params![(SEED_EPOCH + 900) as f64],
    )?;
    tx.execute(
        "INSERT INTO runtime_status VALUES ('google.gemini-2.5-pro', 1, 0, ?1, NULL)",
        params![(SEED_EPOCH + 86_400 * 2) as f64],
    )?;
    let observed = (SEED_EPOCH - 300) as f64;
    let accounts = json!([
        {
            "scope": "account:anthropic-team", "scope_id": "anthropic-team",
            "providers": [{"id": "anthropic", "display_name": "Anthropic"}],
            "state": "reported",
            "windows": [
                {"limit_id": "five_hour", "window": {"kind": "five_hour"}, "role": "primary",
                 "utilization": {"unit": "fraction", "value": 0.91},
                 "resets_at": (SEED_EPOCH + 5_400) as f64, "observed_at": observed},
                {"limit_id": "seven_day", "window": {"kind": "seven_day"}, "role": "secondary",
                 "utilization": {"unit": "percent", "value": 48.0},
                 "resets_at": (SEED_EPOCH + 86_400 * 3) as f64, "observed_at": observed},
                {"limit_id": null, "window": {"kind": "provider_label", "label": "Opus 주간 한도"},
                 "role": "model", "utilization": {"unit": "percent", "value": 73.5},
                 "resets_at": null, "observed_at": observed}
            ]
        },
        {
            "scope": "account:openai-ops", "scope_id": "openai-ops",
            "providers": [{"id": "openai", "display_name": "OpenAI"}],
            "state": "reported",
            "windows": [
                {"limit_id": "requests", "window": {"kind": "duration_minutes", "minutes": 60},
                 "role": "primary", "utilization": {"unit": "fraction", "value": 0.12},
                 "resets_at": (SEED_EPOCH + 2_400) as f64, "observed_at": observed}
            ]
        },
        {
            "scope": "project:gemini-lab", "scope_id": "gemini-lab",
            "providers": [{"id": "google", "display_name": "Google"}],
            "state": "not_reported_since_start",
            "windows": []
        }
    ]);
    tx.execute(
        "INSERT INTO runtime_usage (id, since, accounts_json) VALUES (1, ?1, ?2)",
        params![(SEED_EPOCH - 3_600) as f64 + 0.25, accounts.to_string()],
    )?;
    Ok(())
}

/// The stored config: (text, order, updated_at). `None` text = file missing.
pub fn current(conn: &Connection) -> Result<(Option<String>, i64, i64), StoreError> {
    Ok(conn.query_row(
        "SELECT source_text, commit_order, updated_at FROM runtime_config WHERE id = 1",
        [],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )?)
}

/// The parsed current config (`None` when missing or unparseable).
pub fn current_parsed(conn: &Connection) -> Result<Option<(String, Parsed)>, StoreError> {
    let (text, _, _) = current(conn)?;
    Ok(text.and_then(|t| parse(&t).ok().map(|p| (t, p))))
}

/// Store new text: bumps the commit order; returns the new order.
pub fn store_text(tx: &Transaction<'_>, text: &str, now: i64) -> Result<i64, StoreError> {
    tx.execute(
        "UPDATE runtime_config SET source_text = ?1, commit_order = commit_order + 1,
            updated_at = MAX(updated_at + 1, ?2) WHERE id = 1",
        params![text, now],
    )?;
    let parsed = parse(text).map_err(StoreError::Invalid)?;
    sync_keeper_runtimes(tx, &parsed)?;
    let (_, order, _) = current(tx)?;
    Ok(order)
}

/// Keep the roster's `runtime_id` (keepers family table) in step with the assignments.
fn sync_keeper_runtimes(tx: &Transaction<'_>, parsed: &Parsed) -> Result<(), StoreError> {
    let mut stmt = tx.prepare("SELECT name FROM keepers")?;
    let names: Vec<String> = stmt
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    for name in names {
        if let Some(rt) = parsed.effective_runtime(&name) {
            tx.execute(
                "UPDATE keepers SET runtime_id = ?2 WHERE name = ?1",
                params![name, rt],
            )?;
        }
    }
    Ok(())
}

/// `config_revision.runtime_assignment` of a keeper (§9.5).
pub fn assignment_revision(conn: &Connection, keeper: &str) -> Result<Value, StoreError> {
    let (text, _, _) = current(conn)?;
    let Some(text) = text else {
        return Ok(json!({"state": "runtime_config_missing"}));
    };
    let rev = source_revision(&text);
    let assignment = match parse(&text)
        .ok()
        .and_then(|p| p.assignment(keeper).map(str::to_string))
    {
        Some(r) => json!({"state": "assigned", "runtime_id": r}),
        None => json!({"state": "missing"}),
    };
    Ok(json!({"state": "runtime_config_present", "source_revision": rev, "assignment": assignment}))
}

/// Quota flags of one runtime.
#[derive(Debug, Clone)]
pub struct Quota {
    pub runtime_id: String,
    pub exhausted: bool,
    pub rate_limited: bool,
    pub quota_resets_at: Option<f64>,
    pub rate_limit_resets_at: Option<f64>,
}

pub fn quota(conn: &Connection) -> Result<Vec<Quota>, StoreError> {
    let mut stmt = conn.prepare(
        "SELECT runtime_id, quota_exhausted, rate_limited, quota_resets_at, rate_limit_resets_at
         FROM runtime_status",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok(Quota {
            runtime_id: r.get(0)?,
            exhausted: r.get(1)?,
            rate_limited: r.get(2)?,
            quota_resets_at: r.get(3)?,
            rate_limit_resets_at: r.get(4)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// (since, accounts) of the provider usage windows.
pub fn usage(conn: &Connection) -> Result<(f64, Value), StoreError> {
    let (since, text): (f64, String) = conn.query_row(
        "SELECT since, accounts_json FROM runtime_usage WHERE id = 1",
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    Ok((since, serde_json::from_str(&text)?))
}
