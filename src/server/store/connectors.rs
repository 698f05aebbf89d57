//! Connectors: status with channel bindings (§7.1), id → name directories (§7.2), and the
//! bind/unbind writes (§7.3, §7.4).

use super::{Family, Migration, SEED_EPOCH, StoreError, rfc3339, seed_rng};
use crate::server::seeded::SeededRng;
use rusqlite::{Connection, OptionalExtension, Transaction, params};
use serde_json::{Value, json};

pub const FAMILY: Family = Family {
    name: "connectors",
    migrations: MIGRATIONS,
    seed,
};

const MIGRATIONS: &[Migration] = &[Migration {
    version: 1,
    name: "connectors, bindings, audit, names",
    sql: "CREATE TABLE connectors (
        connector_id TEXT PRIMARY KEY,
        sort_key INTEGER NOT NULL,
        display_name TEXT NOT NULL,
        status TEXT NOT NULL,
        available INTEGER NOT NULL,
        connected INTEGER NOT NULL,
        error TEXT,
        gateway_state TEXT,
        poll_state TEXT
    );
    CREATE TABLE connector_bindings (
        connector_id TEXT NOT NULL,
        channel_id TEXT NOT NULL,
        keeper_name TEXT NOT NULL,
        PRIMARY KEY (connector_id, channel_id)
    );
    CREATE TABLE connector_audit (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        connector_id TEXT NOT NULL,
        timestamp INTEGER NOT NULL,
        action TEXT NOT NULL,
        channel_id TEXT NOT NULL,
        keeper_name TEXT,
        previous_keeper TEXT
    );
    CREATE TABLE connector_names (
        connector_id TEXT NOT NULL,
        scope TEXT NOT NULL,
        id TEXT NOT NULL,
        name TEXT NOT NULL,
        PRIMARY KEY (connector_id, scope, id)
    );
    CREATE TABLE connectors_state (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        updated_at INTEGER NOT NULL
    );",
}];

/// Keepers channels are bound to (the keepers family seed).
const KEEPERS: &[&str] = &[
    "rondo", "sangsu", "하늘", "mira", "ops-bot", "scout", "juno", "beacon",
];

const CHANNEL_WORDS: &[&str] = &[
    "general",
    "ops",
    "build",
    "deploy",
    "release",
    "incident",
    "design",
    "frontend",
    "backend",
    "infra",
    "qa",
    "data",
    "ml",
    "docs",
    "support",
    "random",
    "알림",
    "빌드",
    "배포",
    "장애",
    "디자인",
    "리뷰",
    "회의",
    "공지",
    "질문",
    "온보딩",
];
const CHANNEL_SUFFIXES: &[&str] = &[
    "",
    "-alerts",
    "-team",
    "-kr",
    "-eu",
    "-night",
    "-archive",
    "-bot",
    "-lab",
    "-핫픽스",
];
const PEOPLE: &[&str] = &[
    "김민준",
    "이서연",
    "박지호",
    "최하은",
    "정우진",
    "강수아",
    "윤도윤",
    "임채원",
    "alex.kim",
    "jordan",
    "priya",
    "sam.lee",
    "mateo",
    "hana.park",
    "chris_ops",
    "dana",
];
const SERVERS: &[&str] = &[
    "MASC 본부",
    "Keeper Lab",
    "Release Train",
    "Design Guild",
    "On-call 야간조",
    "Community",
];

/// (connector, scope) → how many names the directory seeds.
pub const DIRECTORY_SIZES: &[(&str, &str, usize)] = &[
    ("discord", "channel", 1_234),
    ("discord", "person", 640),
    ("discord", "server", 6),
    ("slack", "channel", 148),
    ("slack", "person", 0),
    ("slack", "server", 1),
];

fn directory_id(connector: &str, scope: &str, i: usize, rng: &mut SeededRng) -> String {
    let step = 1_000 + rng.gen_range(0..997u64);
    match (connector, scope) {
        // Fixed-width snowflakes: byte order equals numeric order.
        ("discord", "channel") => format!(
            "{}",
            1_180_000_000_000_000_000u64 + i as u64 * 4_099_000 + step
        ),
        ("discord", "person") => format!(
            "{}",
            4_200_000_000_000_000_000u64 + i as u64 * 7_001_000 + step
        ),
        ("discord", _) => format!(
            "{}",
            9_000_000_000_000_000_000u64 + i as u64 * 100_000 + step
        ),
        ("slack", "channel") => format!("C0{:07}", i * 1_013 + 11),
        ("slack", "person") => format!("U0{:07}", i * 977 + 3),
        _ => format!("T0{:07}", i * 31 + 7),
    }
}

fn directory_name(scope: &str, i: usize, rng: &mut SeededRng) -> String {
    match scope {
        "channel" => {
            let w = CHANNEL_WORDS[rng.gen_range(0..CHANNEL_WORDS.len())];
            let s = CHANNEL_SUFFIXES[rng.gen_range(0..CHANNEL_SUFFIXES.len())];
            if i < CHANNEL_WORDS.len() {
                CHANNEL_WORDS[i].to_string()
            } else {
                format!("{w}{s}-{}", i / CHANNEL_WORDS.len())
            }
        }
        "person" => {
            let p = PEOPLE[i % PEOPLE.len()];
            if i < PEOPLE.len() {
                p.to_string()
            } else {
                format!("{p}{}", i / PEOPLE.len())
            }
        }
        _ => SERVERS[i % SERVERS.len()].to_string(),
    }
}

fn seed(tx: &Transaction<'_>) -> Result<(), StoreError> {
    let mut rng = seed_rng("connectors");
    tx.execute(
        "INSERT INTO connectors VALUES ('discord', 0, 'Discord', 'connected', 1, 1, NULL, 'ready', NULL)",
        [],
    )?;
    tx.execute(
        "INSERT INTO connectors VALUES ('slack', 1, 'Slack', 'stale', 1, 0,
            'no socket-mode heartbeat for 42m; events may be delayed', 'reconnecting', 'stale')",
        [],
    )?;
    let mut channel_ids: Vec<(String, String)> = Vec::new();
    for (connector, scope, size) in DIRECTORY_SIZES {
        for i in 0..*size {
            let id = directory_id(connector, scope, i, &mut rng);
            let name = directory_name(scope, i, &mut rng);
            if *scope == "channel" {
                channel_ids.push((connector.to_string(), id.clone()));
            }
            tx.execute(
                "INSERT INTO connector_names (connector_id, scope, id, name) VALUES (?1, ?2, ?3, ?4)",
                params![connector, scope, id, name],
            )?;
        }
    }
    let discord: Vec<&String> = channel_ids
        .iter()
        .filter(|(c, _)| c == "discord")
        .map(|(_, id)| id)
        .collect();
    let slack: Vec<&String> = channel_ids
        .iter()
        .filter(|(c, _)| c == "slack")
        .map(|(_, id)| id)
        .collect();
    // 30 Discord bindings spread over the directory; 3 Slack ones.
    for k in 0..30usize {
        let id = discord
            .get(k * 37 + 1)
            .copied()
            .cloned()
            .unwrap_or_default();
        let keeper = KEEPERS[k % KEEPERS.len()];
        tx.execute(
            "INSERT INTO connector_bindings (connector_id, channel_id, keeper_name) VALUES ('discord', ?1, ?2)",
            params![id, keeper],
        )?;
    }
    for (k, keeper) in ["하늘", "rondo", "mira"].iter().enumerate() {
        let id = slack.get(k * 5 + 2).copied().cloned().unwrap_or_default();
        tx.execute(
            "INSERT INTO connector_bindings (connector_id, channel_id, keeper_name) VALUES ('slack', ?1, ?2)",
            params![id, keeper],
        )?;
    }
    for k in 0..14i64 {
        let connector = if k % 4 == 3 { "slack" } else { "discord" };
        let pool = if connector == "slack" {
            &slack
        } else {
            &discord
        };
        let idx = (k as usize * 37 + 1) % pool.len().max(1);
        let channel = pool.get(idx).copied().cloned().unwrap_or_default();
        let (action, keeper, previous) = match k % 3 {
            0 => ("bind", Some(KEEPERS[k as usize % KEEPERS.len()]), None),
            1 => (
                "bind",
                Some(KEEPERS[(k as usize + 1) % KEEPERS.len()]),
                Some(KEEPERS[k as usize % KEEPERS.len()]),
            ),
            _ => ("unbind", None, Some(KEEPERS[k as usize % KEEPERS.len()])),
        };
        tx.execute(
            "INSERT INTO connector_audit (connector_id, timestamp, action, channel_id, keeper_name, previous_keeper)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![connector, SEED_EPOCH - 86_400 + k * 3_600, action, channel, keeper, previous],
        )?;
    }
    tx.execute(
        "INSERT INTO connectors_state (id, updated_at) VALUES (1, ?1)",
        params![SEED_EPOCH],
    )?;
    Ok(())
}

pub fn exists(conn: &Connection, connector: &str) -> Result<bool, StoreError> {
    Ok(conn
        .query_row(
            "SELECT 1 FROM connectors WHERE connector_id = ?1",
            params![connector],
            |_| Ok(()),
        )
        .optional()?
        .is_some())
}

/// One §7.1 row, `None` for an unknown connector.
pub fn status_row(
    conn: &Connection,
    connector: &str,
    audit_limit: i64,
) -> Result<Option<Value>, StoreError> {
    let row = conn
        .query_row(
            "SELECT display_name, status, available, connected, error, gateway_state, poll_state
             FROM connectors WHERE connector_id = ?1",
            params![connector],
            |r| {
                Ok(json!({
                    "connector_id": connector,
                    "display_name": r.get::<_, String>(0)?,
                    "status": r.get::<_, String>(1)?,
                    "available": r.get::<_, bool>(2)?,
                    "connected": r.get::<_, bool>(3)?,
                    "error": r.get::<_, Option<String>>(4)?,
                    "gateway_state": r.get::<_, Option<String>>(5)?,
                    "poll_state": r.get::<_, Option<String>>(6)?,
                }))
            },
        )
        .optional()?;
    let Some(mut row) = row else { return Ok(None) };
    let mut stmt = conn.prepare(
        "SELECT channel_id, keeper_name FROM connector_bindings WHERE connector_id = ?1
         ORDER BY channel_id",
    )?;
    let bindings: Vec<Value> = stmt
        .query_map(params![connector], |r| {
            Ok(json!({"channel_id": r.get::<_, String>(0)?, "keeper_name": r.get::<_, String>(1)?}))
        })?
        .collect::<Result<_, _>>()?;
    let mut stmt = conn.prepare(
        "SELECT timestamp, action, channel_id, keeper_name, previous_keeper FROM connector_audit
         WHERE connector_id = ?1 ORDER BY seq DESC LIMIT ?2",
    )?;
    let audit: Vec<Value> = stmt
        .query_map(params![connector, audit_limit], |r| {
            Ok(json!({
                "timestamp": rfc3339(r.get::<_, i64>(0)?),
                "action": r.get::<_, String>(1)?,
                "channel_id": r.get::<_, String>(2)?,
                "keeper_name": r.get::<_, Option<String>>(3)?,
                "previous_keeper": r.get::<_, Option<String>>(4)?,
            }))
        })?
        .collect::<Result<_, _>>()?;
    if let Some(obj) = row.as_object_mut() {
        obj.insert("configured_bindings".into(), Value::Array(bindings));
        obj.insert("recent_audit".into(), Value::Array(audit));
    }
    Ok(Some(row))
}

/// The §7.1 body.
pub fn status(conn: &Connection, audit_limit: i64) -> Result<Value, StoreError> {
    let mut stmt = conn.prepare("SELECT connector_id FROM connectors ORDER BY sort_key")?;
    let ids: Vec<String> = stmt
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let mut rows = Vec::new();
    for id in &ids {
        if let Some(r) = status_row(conn, id, audit_limit)? {
            rows.push(r);
        }
    }
    let active = rows.iter().filter(|r| r["status"] == "connected").count();
    let updated: i64 = conn.query_row(
        "SELECT updated_at FROM connectors_state WHERE id = 1",
        [],
        |r| r.get(0),
    )?;
    Ok(json!({
        "connectors": rows,
        "total": ids.len(),
        "active_count": active,
        "generated_at": rfc3339(updated),
    }))
}

/// One §7.2 page: entries with id byte-wise after `after_id`, sorted by id.
pub fn names_page(
    conn: &Connection,
    connector: &str,
    scope: &str,
    after_id: Option<&str>,
    offset: i64,
    limit: i64,
) -> Result<(i64, Vec<(String, String)>), StoreError> {
    let after = after_id.unwrap_or("");
    let total: i64 = conn.query_row(
        "SELECT COUNT(*) FROM connector_names WHERE connector_id = ?1 AND scope = ?2 AND id > ?3",
        params![connector, scope, after],
        |r| r.get(0),
    )?;
    let mut stmt = conn.prepare(
        "SELECT id, name FROM connector_names WHERE connector_id = ?1 AND scope = ?2 AND id > ?3
         ORDER BY id LIMIT ?4 OFFSET ?5",
    )?;
    let rows = stmt
        .query_map(params![connector, scope, after, limit, offset], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?
        .collect::<Result<_, _>>()?;
    Ok((total, rows))
}

fn touch(tx: &Transaction<'_>, now: i64) -> Result<(), StoreError> {
    tx.execute(
        "UPDATE connectors_state SET updated_at = MAX(updated_at + 1, ?1) WHERE id = 1",
        params![now],
    )?;
    Ok(())
}

/// Upsert a binding and audit it.
pub fn bind(
    tx: &Transaction<'_>,
    connector: &str,
    channel: &str,
    keeper: &str,
    now: i64,
) -> Result<(), StoreError> {
    let previous: Option<String> = tx
        .query_row(
            "SELECT keeper_name FROM connector_bindings WHERE connector_id = ?1 AND channel_id = ?2",
            params![connector, channel],
            |r| r.get(0),
        )
        .optional()?;
    tx.execute(
        "INSERT INTO connector_bindings (connector_id, channel_id, keeper_name) VALUES (?1, ?2, ?3)
         ON CONFLICT(connector_id, channel_id) DO UPDATE SET keeper_name = excluded.keeper_name",
        params![connector, channel, keeper],
    )?;
    tx.execute(
        "INSERT INTO connector_audit (connector_id, timestamp, action, channel_id, keeper_name, previous_keeper)
         VALUES (?1, ?2, 'bind', ?3, ?4, ?5)",
        params![connector, now, channel, keeper, previous],
    )?;
    touch(tx, now)
}

/// Result of a conditional unbind.
#[derive(Debug, PartialEq, Eq)]
pub enum Unbind {
    Removed,
    NotFound,
    Changed,
}

pub fn unbind(
    tx: &Transaction<'_>,
    connector: &str,
    channel: &str,
    expected_keeper: Option<&str>,
    now: i64,
) -> Result<Unbind, StoreError> {
    let current: Option<String> = tx
        .query_row(
            "SELECT keeper_name FROM connector_bindings WHERE connector_id = ?1 AND channel_id = ?2",
            params![connector, channel],
            |r| r.get(0),
        )
        .optional()?;
    let Some(current) = current else {
        return Ok(Unbind::NotFound);
    };
    if expected_keeper.is_some_and(|k| k != current) {
        return Ok(Unbind::Changed);
    }
    tx.execute(
        "DELETE FROM connector_bindings WHERE connector_id = ?1 AND channel_id = ?2",
        params![connector, channel],
    )?;
    tx.execute(
        "INSERT INTO connector_audit (connector_id, timestamp, action, channel_id, keeper_name, previous_keeper)
         VALUES (?1, ?2, 'unbind', ?3, NULL, ?4)",
        params![connector, now, channel, current],
    )?;
    touch(tx, now)?;
    Ok(Unbind::Removed)
}
