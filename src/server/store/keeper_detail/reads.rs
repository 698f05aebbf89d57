//! The Keeper detail reads: a Keeper's lineage and roster facts, and the bodies of §14.7
//! (metadata), §14.8 (Live Context) and §14.9 (the metrics tail) built from them.

use super::trace_of;
use crate::server::store::StoreError;
use rusqlite::{Connection, OptionalExtension, params};
use serde_json::{Value, json};

/// A Keeper's lineage, defaults for one created after seeding.
struct Lineage {
    generation: u64,
    metrics_readable: bool,
    context: Value,
}

fn lineage(conn: &Connection, keeper: &str) -> Result<Lineage, StoreError> {
    let row = conn
        .query_row(
            "SELECT generation, metrics_readable, context_json
             FROM keeper_lineage WHERE keeper = ?1",
            params![keeper],
            |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, bool>(1)?,
                    r.get::<_, String>(2)?,
                ))
            },
        )
        .optional()?;
    Ok(match row {
        Some((generation, metrics_readable, context)) => Lineage {
            generation: generation.max(0) as u64,
            metrics_readable,
            context: serde_json::from_str(&context)?,
        },
        None => Lineage {
            generation: 1,
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
    // The settings routes' record (§9.5): one truth for instructions, sandbox and network.
    let Some(declared) = crate::server::store::keeper_config::declared(conn, keeper)? else {
        return Ok(DetailRead::Unknown);
    };
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
        "instructions": (!declared.instructions.is_empty()).then_some(declared.instructions),
        "paused": f.paused,
        "keepalive_running": f.keepalive_running,
        "keeper_age_s": created.map(|c| (now - c).max(0.0)),
        "last_turn_ago_s": last_turn_ago,
        "lifecycle": {
            "created_at": f.created_at,
            "updated_at": f.updated_at,
            "uptime_hours": updated.map(|u| ((now - u).max(0.0) / 3600.0 * 10.0).round() / 10.0),
        },
        "sandbox_profile": declared.sandbox_profile,
        "network_mode": declared.network_mode,
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
