//! Keepers: the roster (§4.1) and who is mid-turn (§4.2).

use super::{Family, Migration, SEED_EPOCH, StoreError, rfc3339};
use rusqlite::{Connection, OptionalExtension, Transaction, params};
use serde_json::{Value, json};

pub const FAMILY: Family = Family {
    name: "keepers",
    migrations: MIGRATIONS,
    seed,
};

const MIGRATIONS: &[Migration] = &[Migration {
    version: 1,
    name: "keepers table",
    sql: "CREATE TABLE keepers (
        name TEXT PRIMARY KEY,
        sort_key INTEGER NOT NULL,
        agent_name TEXT,
        status TEXT NOT NULL,
        keepalive_running INTEGER NOT NULL,
        autoboot_enabled INTEGER NOT NULL,
        proactive_enabled INTEGER NOT NULL,
        runtime_id TEXT NOT NULL,
        meta_json TEXT,
        meta_error_json TEXT,
        health TEXT NOT NULL,
        paused INTEGER NOT NULL,
        phase TEXT NOT NULL,
        activation_mode TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        current_task TEXT,
        turn_lane TEXT,
        turn_started_at REAL,
        turn_preview_json TEXT,
        census_detail TEXT,
        chat_control_token TEXT NOT NULL
    );",
}];

struct SeedKeeper {
    name: &'static str,
    status: &'static str,
    runtime: &'static str,
    activation: &'static str,
    phase: &'static str,
    health: &'static str,
    paused: bool,
    current_task: Option<&'static str>,
    turn: Option<(&'static str, i64, &'static str)>,
}

const SEED: &[SeedKeeper] = &[
    SeedKeeper {
        name: "rondo",
        status: "busy",
        runtime: "anthropic.claude-opus-5",
        activation: "autonomous",
        phase: "running",
        health: "healthy",
        paused: false,
        current_task: Some("task-1013"),
        turn: Some(("autonomous", 420, "디코더 테스트 돌리는 중…")),
    },
    SeedKeeper {
        name: "sangsu",
        status: "active",
        runtime: "anthropic.claude-sonnet-4",
        activation: "on_demand",
        phase: "running",
        health: "healthy",
        paused: false,
        current_task: Some("task-1021"),
        turn: None,
    },
    SeedKeeper {
        name: "하늘",
        status: "listening",
        runtime: "openai.gpt-5",
        activation: "on_demand",
        phase: "running",
        health: "healthy",
        paused: false,
        current_task: None,
        turn: None,
    },
    SeedKeeper {
        name: "mira",
        status: "idle",
        runtime: "anthropic.claude-sonnet-4",
        activation: "manual",
        phase: "paused",
        health: "idle",
        paused: true,
        current_task: None,
        turn: None,
    },
    SeedKeeper {
        name: "ops-bot",
        status: "active",
        runtime: "local.qwen3-32b",
        activation: "autonomous",
        phase: "running",
        health: "healthy",
        paused: false,
        current_task: Some("task-1030"),
        turn: Some(("maintenance", 95, "rotating logs on build-02")),
    },
    SeedKeeper {
        name: "scout",
        status: "inactive",
        runtime: "google.gemini-2.5-pro",
        activation: "on_demand",
        phase: "stopped",
        health: "stopped",
        paused: false,
        current_task: None,
        turn: None,
    },
    SeedKeeper {
        name: "juno",
        status: "error",
        runtime: "anthropic.claude-opus-5",
        activation: "autonomous",
        phase: "failed",
        health: "unhealthy",
        paused: false,
        current_task: None,
        turn: None,
    },
    SeedKeeper {
        name: "beacon",
        status: "offline",
        runtime: "local.llama-4-scout",
        activation: "manual",
        phase: "stopped",
        health: "stopped",
        paused: false,
        current_task: None,
        turn: None,
    },
];

fn seed(tx: &Transaction<'_>) -> Result<(), StoreError> {
    for (i, k) in SEED.iter().enumerate() {
        let created = rfc3339(SEED_EPOCH - 86_400 * (60 - i as i64 * 5));
        let updated = rfc3339(SEED_EPOCH - 3_600 * (i as i64 + 1));
        let is_error = k.status == "error";
        let meta = (!is_error).then(|| {
            json!({
                "name": k.name,
                "trace_id": format!("trace-{}", k.name),
                "created_at": created,
                "updated_at": updated,
            })
            .to_string()
        });
        let meta_error = is_error.then(|| {
            json!({
                "keeper": k.name,
                "message": "meta.json unreadable: expected value at line 1 column 1",
                "terminal_reason": "meta_decode_failed",
                "severity": "error",
                "operator_action_required": true,
                "next_action": "restore .masc/keepers/juno/meta.json from backup, then restart",
            })
            .to_string()
        });
        let (lane, started, preview) = match k.turn {
            Some((lane, ago, text)) => {
                let started = (SEED_EPOCH - ago) as f64;
                let preview = json!({
                    "status_text": "working",
                    "text_tail": text,
                    "updated_at_unix": started + 30.0,
                })
                .to_string();
                (Some(lane), Some(started), Some(preview))
            }
            None => (None, None, None),
        };
        tx.execute(
            "INSERT INTO keepers (name, sort_key, agent_name, status, keepalive_running,
                autoboot_enabled, proactive_enabled, runtime_id, meta_json, meta_error_json,
                health, paused, phase, activation_mode, created_at, updated_at, current_task,
                turn_lane, turn_started_at, turn_preview_json, census_detail, chat_control_token)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,
                ?18, ?19, ?20, ?21, ?22)",
            params![
                k.name,
                i as i64,
                (!is_error).then_some(k.name),
                k.status,
                matches!(k.status, "active" | "busy" | "listening" | "idle"),
                k.activation == "autonomous",
                k.activation == "autonomous",
                k.runtime,
                meta,
                meta_error,
                k.health,
                k.paused,
                k.phase,
                k.activation,
                created,
                updated,
                k.current_task,
                lane,
                started,
                preview,
                is_error.then_some("keeper meta unreadable; turn census skipped"),
                format!("control-{}", k.name),
            ],
        )?;
    }
    Ok(())
}

fn parse_json(text: Option<String>) -> Result<Value, StoreError> {
    match text {
        Some(t) => Ok(serde_json::from_str(&t)?),
        None => Ok(Value::Null),
    }
}

/// Roster rows (§4.1) in display order, plus demo extension fields.
pub fn roster(conn: &Connection) -> Result<Vec<Value>, StoreError> {
    roster_rows(conn, -1)
}

/// The first `limit` roster rows in display order and how many there are in all (§4.1's
/// `total`): at 5,000 Keepers the route builds 200 rows, not 5,000.
pub fn roster_page(conn: &Connection, limit: i64) -> Result<(usize, Vec<Value>), StoreError> {
    let total: i64 = conn.query_row("SELECT COUNT(*) FROM keepers", [], |r| r.get(0))?;
    Ok((
        usize::try_from(total).unwrap_or(0),
        roster_rows(conn, limit)?,
    ))
}

/// Every Keeper's name in display order (what the roster lists, without building its rows).
pub fn names(conn: &Connection) -> Result<Vec<String>, StoreError> {
    let mut stmt = conn.prepare("SELECT name FROM keepers ORDER BY sort_key, name")?;
    let names = stmt
        .query_map([], |r| r.get::<_, String>(0))?
        .collect::<Result<_, _>>()?;
    Ok(names)
}

/// At most `limit` roster rows (`-1`: all of them, SQLite's "no limit").
fn roster_rows(conn: &Connection, limit: i64) -> Result<Vec<Value>, StoreError> {
    let mut stmt = conn.prepare(
        "SELECT k.name, k.agent_name, k.status, k.keepalive_running, k.autoboot_enabled,
                k.proactive_enabled, k.runtime_id, k.meta_json, k.meta_error_json, k.health,
                k.paused, k.phase, k.activation_mode, k.created_at, k.updated_at,
                k.current_task, k.turn_started_at, m.manifest_text
         FROM keepers k LEFT JOIN keeper_manifests m ON m.name = k.name
         ORDER BY k.sort_key, k.name LIMIT ?1",
    )?;
    let rows = stmt.query_map(params![limit], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, Option<String>>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, bool>(3)?,
            r.get::<_, bool>(4)?,
            r.get::<_, bool>(5)?,
            r.get::<_, String>(6)?,
            r.get::<_, Option<String>>(7)?,
            r.get::<_, Option<String>>(8)?,
            r.get::<_, String>(9)?,
            r.get::<_, bool>(10)?,
            r.get::<_, String>(11)?,
            r.get::<_, String>(12)?,
            (
                r.get::<_, String>(13)?,
                r.get::<_, String>(14)?,
                r.get::<_, Option<String>>(15)?,
                r.get::<_, Option<f64>>(16)?,
                r.get::<_, Option<String>>(17)?,
            ),
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (
            name,
            agent,
            status,
            keepalive,
            autoboot,
            proactive,
            runtime,
            meta,
            meta_err,
            health,
            paused,
            phase,
            activation,
            (created, updated, current_task, turn_started, manifest),
        ) = row?;
        let mut meta = parse_json(meta)?;
        if let Some(m) = meta.as_object_mut() {
            // One record (§9.5's manifest) for every route that reports the sandbox.
            m.insert(
                "sandbox_profile".into(),
                json!(super::keeper_config::declared_sandbox(manifest.as_deref())),
            );
        }
        let mut v = json!({
            "runtime_class": "keeper",
            "name": name,
            "agent_name": agent,
            "status": status,
            "keepalive_running": keepalive,
            "autoboot_enabled": autoboot,
            "proactive_enabled": proactive,
            "runtime_id": runtime,
            "meta": meta,
            "health": health,
            "paused": paused,
            "phase": phase,
            "activation_mode": activation,
            "candle_balance_milli": null,
            "created_at": created,
            "updated_at": updated,
            "current_task": current_task,
            "turn_started_at": turn_started,
        });
        let err = parse_json(meta_err)?;
        if !err.is_null()
            && let Some(obj) = v.as_object_mut()
        {
            obj.insert("effective_meta_error".into(), err);
        }
        out.push(v);
    }
    Ok(out)
}

/// §4.2 rows, sorted by name.
pub fn turns(conn: &Connection) -> Result<Vec<Value>, StoreError> {
    let mut stmt = conn.prepare(
        "SELECT name, chat_control_token, turn_lane, turn_started_at, turn_preview_json,
                census_detail
         FROM keepers ORDER BY name",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, Option<String>>(2)?,
            r.get::<_, Option<f64>>(3)?,
            r.get::<_, Option<String>>(4)?,
            r.get::<_, Option<String>>(5)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (name, token, lane, started, preview, census_detail) = row?;
        if let Some(detail) = census_detail {
            out.push(json!({
                "keeper_name": name,
                "status": "unavailable",
                "detail": detail,
                "chat_control_token": token,
                "turn": null,
            }));
            continue;
        }
        let turn = match (lane, started) {
            (Some(lane), Some(started)) => json!({
                "lane": lane,
                "started_at_unix": started,
                "interrupt_token": format!("interrupt-{name}-{}", started as i64),
                "preview": parse_json(preview)?,
            }),
            _ => Value::Null,
        };
        out.push(json!({
            "keeper_name": name,
            "status": "ok",
            "chat_control_token": token,
            "turn": turn,
        }));
    }
    Ok(out)
}

/// Whether a keeper of that name exists.
pub fn exists(conn: &Connection, name: &str) -> Result<bool, StoreError> {
    Ok(conn
        .query_row(
            "SELECT 1 FROM keepers WHERE name = ?1",
            params![name],
            |_| Ok(()),
        )
        .optional()?
        .is_some())
}

/// Mark a keeper mid-turn on the chat lane (or idle again with `None`).
pub fn set_chat_turn(
    tx: &Transaction<'_>,
    name: &str,
    started: Option<f64>,
    preview: Option<&str>,
) -> Result<(), StoreError> {
    let preview_json = preview.map(|p| {
        json!({"status_text": "replying", "text_tail": p, "updated_at_unix": started}).to_string()
    });
    tx.execute(
        "UPDATE keepers SET turn_lane = CASE WHEN ?2 IS NULL THEN NULL ELSE 'chat_operation' END,
                turn_started_at = ?2, turn_preview_json = ?3
         WHERE name = ?1",
        params![name, started, preview_json],
    )?;
    Ok(())
}
