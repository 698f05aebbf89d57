//! Keeper detail: metadata (§14.7), Live Context (§14.8) and the metrics store behind the
//! Keeper logs (§14.9).
//!
//! Per Keeper a lineage row (generation, instructions, whether its metrics store is
//! readable), one Live Context observation (the `context` object of §14.8, stored as written)
//! and its metrics store as physical lines, stored verbatim — a malformed line and a line
//! naming another Keeper are seeded on purpose and served as they are (§14.9 repairs nothing).
//! A Keeper without a lineage row (created after seeding) is generation 1 with an empty
//! metrics store and an unobserved context.

use super::{Family, Migration, SEED_EPOCH, StoreError, rfc3339};
use rusqlite::{Connection, OptionalExtension, Transaction, params};
use serde_json::{Value, json};

pub const FAMILY: Family = Family {
    name: "keeper_detail",
    migrations: MIGRATIONS,
    seed,
};

const MIGRATIONS: &[Migration] = &[Migration {
    version: 1,
    name: "keeper lineage, context and metrics store",
    sql: "CREATE TABLE keeper_lineage (
        keeper TEXT PRIMARY KEY,
        generation INTEGER NOT NULL,
        instructions TEXT,
        metrics_readable INTEGER NOT NULL,
        context_json TEXT NOT NULL
    );
    CREATE TABLE keeper_metrics (
        keeper TEXT NOT NULL,
        seq INTEGER NOT NULL,
        line TEXT NOT NULL,
        PRIMARY KEY (keeper, seq)
    );",
}];

/// What the seed gives one Keeper.
struct SeedDetail {
    keeper: &'static str,
    generation: u64,
    /// (tokens, max) of the newest turn; `None` max = no window resolved.
    context: SeedContext,
    /// Physical lines of its metrics store.
    turns: usize,
    heartbeat_every: usize,
    scheduled: bool,
    /// Seed a malformed line and a line naming another Keeper.
    diagnostics: bool,
    metrics_readable: bool,
    instructions: Option<&'static str>,
}

enum SeedContext {
    Observed { tokens: u64, max: Option<u64> },
    NotObserved(&'static str),
}

const SEED: &[SeedDetail] = &[
    SeedDetail {
        keeper: "rondo",
        generation: 7,
        context: SeedContext::Observed {
            tokens: 100_887,
            max: Some(200_000),
        },
        turns: 48,
        heartbeat_every: 4,
        scheduled: true,
        diagnostics: true,
        metrics_readable: true,
        instructions: Some("디코더와 프로토콜 테스트를 맡는다. 실패는 보드에 남긴다."),
    },
    SeedDetail {
        keeper: "sangsu",
        generation: 4,
        context: SeedContext::Observed {
            tokens: 151_204,
            max: Some(200_000),
        },
        turns: 180,
        heartbeat_every: 3,
        scheduled: false,
        diagnostics: false,
        metrics_readable: true,
        instructions: Some("Review pull requests; keep the Task board current."),
    },
    SeedDetail {
        keeper: "하늘",
        generation: 2,
        context: SeedContext::Observed {
            tokens: 48_210,
            max: None,
        },
        turns: 9,
        heartbeat_every: 0,
        scheduled: false,
        diagnostics: false,
        metrics_readable: true,
        instructions: None,
    },
    SeedDetail {
        keeper: "mira",
        generation: 3,
        context: SeedContext::NotObserved("turn_record_without_usage"),
        turns: 0,
        heartbeat_every: 0,
        scheduled: false,
        diagnostics: false,
        metrics_readable: true,
        instructions: Some("Paused by the operator while the release is cut."),
    },
    SeedDetail {
        keeper: "ops-bot",
        generation: 12,
        context: SeedContext::Observed {
            tokens: 30_512,
            max: Some(32_768),
        },
        turns: 30,
        heartbeat_every: 2,
        scheduled: true,
        diagnostics: false,
        metrics_readable: true,
        instructions: Some("Rotate logs, watch disks, page on-call on red."),
    },
    SeedDetail {
        keeper: "scout",
        generation: 1,
        context: SeedContext::NotObserved("context_measurement_missing"),
        turns: 3,
        heartbeat_every: 0,
        scheduled: false,
        diagnostics: false,
        metrics_readable: true,
        instructions: None,
    },
    SeedDetail {
        keeper: "juno",
        generation: 5,
        context: SeedContext::NotObserved("turn_record_undecodable"),
        turns: 0,
        heartbeat_every: 0,
        scheduled: false,
        diagnostics: false,
        metrics_readable: false,
        instructions: None,
    },
    SeedDetail {
        keeper: "beacon",
        generation: 2,
        context: SeedContext::NotObserved("turn_record_read_failed"),
        turns: 2,
        heartbeat_every: 1,
        scheduled: false,
        diagnostics: false,
        metrics_readable: true,
        instructions: None,
    },
];

/// What the seed gives one Keeper's turn records (§14.11, `store::turn_records`): the same
/// Keepers, traces, turn counts, instructions and newest observation as its Live Context and
/// metrics store, so the inspectors and `/context` agree with each other.
pub struct SeededTurns {
    pub keeper: &'static str,
    pub generation: u64,
    pub trace_id: String,
    /// Absolute turns 1..=turns were recorded (0: none).
    pub turns: u64,
    pub instructions: Option<&'static str>,
    /// (context tokens, window) of the newest turn, when observed.
    pub context: Option<(u64, Option<u64>)>,
    /// When the newest turn was recorded (unix seconds).
    pub newest_ts: i64,
    /// Seed a row MASC's strict decode refuses (counted as `skipped_rows`).
    pub diagnostics: bool,
}

/// The seeded Keepers' turn facts.
pub fn seeded_turns() -> Vec<SeededTurns> {
    SEED.iter()
        .map(|d| SeededTurns {
            keeper: d.keeper,
            generation: d.generation,
            trace_id: trace_of(d.keeper),
            turns: d.turns as u64,
            instructions: d.instructions,
            context: match d.context {
                SeedContext::Observed { tokens, max } => Some((tokens, max)),
                SeedContext::NotObserved(_) => None,
            },
            newest_ts: metrics_lines(d).1,
            diagnostics: d.diagnostics,
        })
        .collect()
}

fn trace_of(keeper: &str) -> String {
    format!("trace-{keeper}")
}

fn context_json(d: &SeedDetail, newest_turn_ts: i64) -> Value {
    match d.context {
        SeedContext::Observed { tokens, max } => {
            let turn = d.turns.max(1) as u64;
            json!({
                "source": "turn_record",
                "context_tokens": tokens,
                "context_max": max,
                "context_ratio": max.filter(|m| *m > 0).map(|m| tokens as f64 / m as f64),
                "observed_at": rfc3339(newest_turn_ts),
                "turn_ref": format!("{}#{turn}", trace_of(d.keeper)),
                "absolute_turn": turn,
                "request_body_bytes": tokens * 4 + 1_337,
                "metrics_unavailable": null,
            })
        }
        SeedContext::NotObserved(reason) => json!({
            "source": null,
            "context_tokens": null,
            "context_max": null,
            "context_ratio": null,
            "metrics_unavailable": {"kind": "not_observed", "reason": reason},
        }),
    }
}

/// One `keeper.metrics.v1` turn line (§14.9).
fn turn_line(d: &SeedDetail, n: usize, ts: i64) -> Value {
    let mode = match n % 5 {
        0 | 3 => "tool_use",
        1 => "text_response",
        2 => "skip_text",
        _ => "noop",
    };
    let tools: Vec<&str> = if mode == "tool_use" {
        ["read_file", "grep", "run_tests"][..1 + n % 3].to_vec()
    } else {
        Vec::new()
    };
    let channel = if d.scheduled && n % 7 == 6 {
        "scheduled_autonomous"
    } else {
        "turn"
    };
    let unreported = n % 11 == 10;
    let input = 2_000 + (n as u64 * 7_919) % 40_000;
    let output = 150 + (n as u64 * 613) % 3_000;
    let usage = if unreported {
        json!({"input_tokens": null, "output_tokens": null, "cache_creation_tokens": null,
               "cache_read_tokens": null, "total_tokens": null, "usage_trust": "unreported",
               "usage_anomaly": false, "usage_anomaly_reasons": []})
    } else {
        json!({"input_tokens": input, "output_tokens": output, "cache_creation_tokens": 0,
               "cache_read_tokens": input / 2, "total_tokens": input + output,
               "usage_trust": "reported", "usage_anomaly": false, "usage_anomaly_reasons": []})
    };
    let trust = if unreported { "unreported" } else { "reported" };
    json!({
        "schema": "keeper.metrics.v1",
        "record_kind": "turn",
        "ts": rfc3339(ts),
        "ts_unix": ts as f64,
        "channel": channel,
        "name": d.keeper,
        "agent_name": d.keeper,
        "trace_id": trace_of(d.keeper),
        "generation": d.generation,
        "message_count": 2 + n % 9,
        "usage": usage,
        "usage_trust": trust,
        "usage_anomaly_reasons": [],
        "latency_ms": 800 + (n as u64 * 337) % 9_000,
        "cost_usd": if unreported { Value::Null } else { json!((input + output) as f64 * 3e-6) },
        "turn_mode": mode,
        "tool_call_count": tools.len(),
        "tools_used": tools,
    })
}

fn heartbeat_line(d: &SeedDetail, ts: i64, messages: usize) -> Value {
    json!({
        "schema": "keeper.metrics.v1",
        "record_kind": "heartbeat",
        "ts": rfc3339(ts),
        "ts_unix": ts as f64,
        "channel": "heartbeat",
        "name": d.keeper,
        "agent_name": d.keeper,
        "trace_id": trace_of(d.keeper),
        "generation": d.generation,
        "message_count": messages,
    })
}

/// The physical lines of one Keeper's store, oldest first, and the newest turn's time.
fn metrics_lines(d: &SeedDetail) -> (Vec<String>, i64) {
    let mut lines = Vec::new();
    let start = SEED_EPOCH - 420 * d.turns as i64 - 600;
    let mut newest = SEED_EPOCH - 3_600;
    for n in 0..d.turns {
        let ts = start + 420 * n as i64;
        lines.push(turn_line(d, n, ts).to_string());
        newest = ts;
        if d.heartbeat_every > 0 && n.is_multiple_of(d.heartbeat_every) {
            lines.push(heartbeat_line(d, ts + 60, 2 + n).to_string());
        }
        if d.diagnostics && n == d.turns / 2 {
            // A line cut by a crash mid-write, and one another Keeper's writer put here.
            lines.push(
                r#"{"schema":"keeper.metrics.v1","record_kind":"turn","ts":"2026-11-2"#.into(),
            );
            let mut other = turn_line(d, n, ts + 30);
            other["name"] = json!("sangsu");
            lines.push(other.to_string());
        }
    }
    (lines, newest)
}

fn seed(tx: &Transaction<'_>) -> Result<(), StoreError> {
    for d in SEED {
        let (lines, newest) = metrics_lines(d);
        tx.execute(
            "INSERT INTO keeper_lineage (keeper, generation, instructions, metrics_readable,
                context_json) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                d.keeper,
                d.generation as i64,
                d.instructions,
                d.metrics_readable,
                context_json(d, newest).to_string()
            ],
        )?;
        for (seq, line) in lines.iter().enumerate() {
            tx.execute(
                "INSERT INTO keeper_metrics (keeper, seq, line) VALUES (?1, ?2, ?3)",
                params![d.keeper, seq as i64 + 1, line],
            )?;
        }
    }
    Ok(())
}

/// A Keeper's lineage, defaults for one created after seeding.
struct Lineage {
    generation: u64,
    instructions: Option<String>,
    metrics_readable: bool,
    context: Value,
}

fn lineage(conn: &Connection, keeper: &str) -> Result<Lineage, StoreError> {
    let row = conn
        .query_row(
            "SELECT generation, instructions, metrics_readable, context_json
             FROM keeper_lineage WHERE keeper = ?1",
            params![keeper],
            |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, Option<String>>(1)?,
                    r.get::<_, bool>(2)?,
                    r.get::<_, String>(3)?,
                ))
            },
        )
        .optional()?;
    Ok(match row {
        Some((generation, instructions, metrics_readable, context)) => Lineage {
            generation: generation.max(0) as u64,
            instructions,
            metrics_readable,
            context: serde_json::from_str(&context)?,
        },
        None => Lineage {
            generation: 1,
            instructions: None,
            metrics_readable: true,
            context: json!({
                "source": null, "context_tokens": null, "context_max": null,
                "context_ratio": null,
                "metrics_unavailable": {"kind": "not_observed",
                                        "reason": "context_measurement_missing"},
            }),
        },
    })
}

/// The Keeper generation §14.7 serves as `meta.generation` (§14.1's `owner_nonce`).
pub fn generation_of(conn: &Connection, keeper: &str) -> Result<u64, StoreError> {
    Ok(lineage(conn, keeper)?.generation)
}

/// The roster fields §14.7 and §14.8 need of one Keeper.
struct KeeperFacts {
    meta: Option<Value>,
    agent_name: Option<String>,
    paused: bool,
    keepalive_running: bool,
    created_at: String,
    updated_at: String,
    current_task: Option<String>,
}

fn facts(conn: &Connection, keeper: &str) -> Result<Option<KeeperFacts>, StoreError> {
    let row = conn
        .query_row(
            "SELECT meta_json, agent_name, paused, keepalive_running, created_at, updated_at,
                    current_task
             FROM keepers WHERE name = ?1",
            params![keeper],
            |r| {
                Ok((
                    r.get::<_, Option<String>>(0)?,
                    r.get::<_, Option<String>>(1)?,
                    r.get::<_, bool>(2)?,
                    r.get::<_, bool>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, String>(5)?,
                    r.get::<_, Option<String>>(6)?,
                ))
            },
        )
        .optional()?;
    let Some((meta, agent_name, paused, keepalive_running, created_at, updated_at, task)) = row
    else {
        return Ok(None);
    };
    Ok(Some(KeeperFacts {
        meta: meta.map(|m| serde_json::from_str(&m)).transpose()?,
        agent_name,
        paused,
        keepalive_running,
        created_at,
        updated_at,
        current_task: task,
    }))
}

/// What a detail read found.
#[derive(Debug)]
pub enum DetailRead {
    Found(Value),
    /// No Keeper of that name.
    Unknown,
    /// The Keeper's metadata is unreadable (its message).
    MetaUnreadable(String),
    /// The metrics store cannot be read (its detail).
    StoreUnreadable(String),
}

const META_UNREADABLE: &str = "meta.json unreadable: expected value at line 1 column 1";

fn trace_in(meta: &Value, keeper: &str) -> String {
    meta.get("trace_id")
        .and_then(Value::as_str)
        .map_or_else(|| trace_of(keeper), str::to_string)
}

/// The §14.7 body.
pub fn keeper_status(conn: &Connection, keeper: &str, now: f64) -> Result<DetailRead, StoreError> {
    let Some(f) = facts(conn, keeper)? else {
        return Ok(DetailRead::Unknown);
    };
    let Some(meta) = f.meta else {
        return Ok(DetailRead::MetaUnreadable(META_UNREADABLE.into()));
    };
    let l = lineage(conn, keeper)?;
    let mut totals = Totals::default();
    if l.metrics_readable {
        for line in metrics_of(conn, keeper)? {
            totals.add(&line);
        }
    }
    let created = parse_time(&f.created_at);
    let updated = parse_time(&f.updated_at);
    let last_turn_ago = totals.last_turn_ts.map(|t| (now - t).max(0.0));
    Ok(DetailRead::Found(json!({
        "name": keeper,
        "meta": {
            "schema": "masc.keeper_meta.v1",
            "name": keeper,
            "agent_name": f.agent_name,
            "trace_id": trace_in(&meta, keeper),
            "generation": l.generation,
            "created_at": f.created_at,
            "updated_at": f.updated_at,
            "total_turns": totals.turns,
            "total_input_tokens": totals.input,
            "total_output_tokens": totals.output,
            "total_tokens": totals.input + totals.output,
            "total_cost_usd": totals.cost,
            "last_turn_ts": totals.last_turn_ts.unwrap_or(0.0),
            "compaction_count": l.generation.saturating_sub(1),
            "current_task_id": f.current_task,
            "last_blocker": null,
            "autonomous_turn_count": totals.scheduled,
            "noop_turn_count": totals.noop,
        },
        "instructions": l.instructions,
        "paused": f.paused,
        "keepalive_running": f.keepalive_running,
        "keeper_age_s": created.map(|c| (now - c).max(0.0)),
        "last_turn_ago_s": last_turn_ago,
        "lifecycle": {
            "created_at": f.created_at,
            "updated_at": f.updated_at,
            "uptime_hours": updated.map(|u| ((now - u).max(0.0) / 3600.0 * 10.0).round() / 10.0),
        },
        "sandbox_profile": meta.get("sandbox_profile").cloned().unwrap_or(json!("none")),
        "network_mode": "bridge",
        "context_budget": {"policy": "compact_at_ratio", "compact_at": 0.85},
    })))
}

fn parse_time(text: &str) -> Option<f64> {
    time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339)
        .ok()
        .map(|t| t.unix_timestamp() as f64)
}

#[derive(Default)]
struct Totals {
    turns: u64,
    scheduled: u64,
    noop: u64,
    input: u64,
    output: u64,
    cost: f64,
    last_turn_ts: Option<f64>,
}

impl Totals {
    /// Counts a well-formed turn line; every other line is left out of the totals.
    fn add(&mut self, line: &str) {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            return;
        };
        if v.get("record_kind").and_then(Value::as_str) != Some("turn") {
            return;
        }
        self.turns += 1;
        if v.get("channel").and_then(Value::as_str) == Some("scheduled_autonomous") {
            self.scheduled += 1;
        }
        if v.get("turn_mode").and_then(Value::as_str) == Some("noop") {
            self.noop += 1;
        }
        let usage = |k: &str| v["usage"].get(k).and_then(Value::as_u64).unwrap_or(0);
        self.input += usage("input_tokens");
        self.output += usage("output_tokens");
        self.cost += v.get("cost_usd").and_then(Value::as_f64).unwrap_or(0.0);
        self.last_turn_ts = v
            .get("ts_unix")
            .and_then(Value::as_f64)
            .or(self.last_turn_ts);
    }
}

/// The §14.8 body.
pub fn keeper_context(conn: &Connection, keeper: &str) -> Result<DetailRead, StoreError> {
    let Some(f) = facts(conn, keeper)? else {
        return Ok(DetailRead::Unknown);
    };
    let Some(meta) = f.meta else {
        return Ok(DetailRead::MetaUnreadable(META_UNREADABLE.into()));
    };
    let l = lineage(conn, keeper)?;
    Ok(DetailRead::Found(json!({
        "schema": "masc.keeper_context_observation.v1",
        "keeper": keeper,
        "trace_id": trace_in(&meta, keeper),
        "generation": l.generation,
        "context": l.context,
    })))
}

fn metrics_of(conn: &Connection, keeper: &str) -> Result<Vec<String>, StoreError> {
    let mut stmt =
        conn.prepare("SELECT line FROM keeper_metrics WHERE keeper = ?1 ORDER BY seq")?;
    let lines = stmt
        .query_map(params![keeper], |r| r.get::<_, String>(0))?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(lines)
}

/// The §14.9 body: the newest `limit` non-empty physical lines, oldest first, each either
/// its JSON object or the parser's message — nothing repaired, filtered or backfilled.
pub fn keeper_metrics_tail(
    conn: &Connection,
    keeper: &str,
    limit: i64,
) -> Result<DetailRead, StoreError> {
    if facts(conn, keeper)?.is_none() {
        return Ok(DetailRead::Unknown);
    }
    let l = lineage(conn, keeper)?;
    if !l.metrics_readable {
        return Ok(DetailRead::StoreUnreadable(format!(
            "open .masc/keepers/{keeper}/metrics: permission denied"
        )));
    }
    let lines: Vec<String> = metrics_of(conn, keeper)?
        .into_iter()
        .filter(|l| !l.trim().is_empty())
        .collect();
    let skip = lines.len().saturating_sub(limit.max(0) as usize);
    let rows: Vec<Value> = lines
        .iter()
        .skip(skip)
        .enumerate()
        .map(|(i, line)| match serde_json::from_str::<Value>(line) {
            Ok(v @ Value::Object(_)) => json!({"index": i + 1, "line": v}),
            Ok(_) => json!({"index": i + 1, "malformed": "not a JSON object"}),
            Err(e) => json!({"index": i + 1, "malformed": format!("invalid JSON: {e}")}),
        })
        .collect();
    Ok(DetailRead::Found(json!({
        "schema": "masc.keeper_metrics_tail.v1",
        "keeper": keeper,
        "limit": limit,
        "rows": rows,
    })))
}

#[cfg(test)]
mod tests;
