//! Keeper detail: metadata (§14.7), Live Context (§14.8) and the metrics store behind the
//! Keeper logs (§14.9).
//!
//! Per Keeper a lineage row (generation, whether its metrics store is readable), one Live Context observation (the `context` object of §14.8, stored as written)
//! and its metrics store as physical lines, stored verbatim — a malformed line and a line
//! naming another Keeper are seeded on purpose and served as they are (§14.9 repairs nothing).
//! A Keeper without a lineage row (created after seeding) is generation 1 with an empty
//! metrics store and an unobserved context.
//!
//! This file holds the family and its seed; the reads serving §14.7–§14.9 from it are in
//! `reads`.

mod reads;

pub use reads::{DetailRead, generation_of, keeper_context, keeper_metrics_tail, keeper_status};

use super::{Family, Migration, SEED_EPOCH, StoreError, rfc3339};
use rusqlite::{Transaction, params};
use serde_json::{Value, json};

pub const FAMILY: Family = Family {
    name: "keeper_detail",
    migrations: MIGRATIONS,
    seed,
};

const MIGRATIONS: &[Migration] = &[
    Migration {
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
    },
    // A Keeper's instructions live in its manifest only (`keeper_config`): §9.5 and §14.7
    // serve one record.
    Migration {
        version: 2,
        name: "instructions only in the manifest",
        sql: "ALTER TABLE keeper_lineage DROP COLUMN instructions;",
    },
];

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
            instructions: super::keeper_config::seeded_instructions(d.keeper),
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
               "cache_read_tokens": null, "total_tokens": null, "usage_trust": "missing",
               "usage_anomaly": false, "usage_anomaly_reasons": []})
    } else {
        json!({"input_tokens": input, "output_tokens": output, "cache_creation_tokens": 0,
               "cache_read_tokens": input / 2, "total_tokens": input + output,
               "usage_trust": "trusted", "usage_anomaly": false, "usage_anomaly_reasons": []})
    };
    // MASC's `Keeper_usage_trust` words.
    let trust = if unreported { "missing" } else { "trusted" };
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
            "INSERT INTO keeper_lineage (keeper, generation, metrics_readable, context_json)
             VALUES (?1, ?2, ?3, ?4)",
            params![
                d.keeper,
                d.generation as i64,
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
