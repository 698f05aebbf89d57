//! Turn records and serialized provider inputs (§14.11): what the turn inspector (`O`) and the
//! context inspector (`/context`) read.
//!
//! Seeded for the seeded Keepers' newest turns (up to 12 each; `sangsu`, a long-lived Keeper,
//! every one of its 180 turns, so an older pinned turn is reached only by a wider page than
//! the default 50; `keeper_detail::seeded_turns`: the same traces, turn numbers and times as
//! their Live Context and metrics), written as
//! MASC writes them (lib/types/turn_record.ml `to_json`, d541eb0750; the resolved provider
//! input of newer MASC). The newest turn of an observed Keeper carries the Live Context's
//! figures (its `input_tokens` and `request_body_bytes`), so `/context` reads one story.
//!
//! On purpose: `하늘`'s records carry no per-component attribution (`input_components: null`);
//! `ops-bot` has no serialized input for any turn, every other Keeper none beyond its ten
//! newest recorded turns (404, no snapshot); `rondo` has one row MASC's strict decode refuses
//! (counted as `skipped_rows`, never served as a record).

use super::keeper_detail::{SeededTurns, seeded_turns};
use super::{Family, Migration, StoreError};
use crate::protocol::inspector::provider_input::sha256_hex;
use rusqlite::{Connection, OptionalExtension, Transaction, params};
use serde_json::{Value, json};

pub const FAMILY: Family = Family {
    name: "turn_records",
    migrations: MIGRATIONS,
    seed,
};

const MIGRATIONS: &[Migration] = &[Migration {
    version: 1,
    name: "turn records and provider inputs",
    sql: "CREATE TABLE turn_records (
        keeper TEXT NOT NULL,
        seq INTEGER NOT NULL,
        line TEXT NOT NULL,
        PRIMARY KEY (keeper, seq)
    );
    CREATE TABLE provider_inputs (
        keeper TEXT NOT NULL,
        turn_ref TEXT NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (keeper, turn_ref)
    );",
}];

/// Recorded turns per Keeper in the seed (but [`WHOLE_HISTORY`]).
const SEEDED_TURNS: u64 = 12;

/// The Keeper whose every turn is recorded: 180 rows, more than MASC's default page of 50,
/// fewer than the inspector's first wider page of 200 (its Ask's origin, turn 17, is only on
/// that wider page).
const WHOLE_HISTORY: &str = "sangsu";

/// Seconds between two seeded turns.
const TURN_GAP: i64 = 420;

/// The JSON envelope around the parts of a serialized request (bytes not in any part).
fn framing(items: usize) -> u64 {
    96 + 24 * items as u64
}

fn tool_schemas() -> Vec<(String, Value)> {
    [
        ("masc_status", "Read the workspace status."),
        ("masc_task_list", "List the Tasks of this workspace."),
        ("read_file", "Read one file of the workspace, by path."),
    ]
    .into_iter()
    .map(|(name, description)| {
        (
            name.to_string(),
            json!({"name": name, "description": description,
                   "input_schema": {"type": "object", "properties": {}}}),
        )
    })
    .collect()
}

/// One seeded turn: its record (as MASC's `Turn_record.to_json`) and, unless left out on
/// purpose, its resolved provider input (without `dashboard_surface`, added when served).
fn turn(s: &SeededTurns, t: u64) -> (Value, Option<Value>) {
    let turn_ref = format!("{}#{t}", s.trace_id);
    let ts = s.newest_ts - TURN_GAP * (s.turns - t) as i64;
    let prompt = s.instructions.map_or_else(
        || format!("You are {}, a Keeper of this workspace.", s.keeper),
        str::to_string,
    );
    let tools = tool_schemas();
    let mut messages: Vec<(&str, Value)> = vec![
        (
            "user",
            json!({"role": "user", "content": format!("Turn {t}: check the board and the Task list.")}),
        ),
        (
            "assistant",
            json!({"role": "assistant", "content": format!("Reading the Task list for turn {t}.")}),
        ),
    ];
    if t.is_multiple_of(2) {
        messages.push((
            "tool",
            json!({"role": "tool", "content": format!("masc_task_list: {} open Tasks", 3 + t % 5)}),
        ));
    }
    let sized = |v: &Value| v.to_string().len() as u64;
    let mut total = prompt.len() as u64
        + tools.iter().map(|(_, v)| sized(v)).sum::<u64>()
        + messages.iter().map(|(_, v)| sized(v)).sum::<u64>();
    let newest_context = s.context.filter(|_| t == s.turns);
    if let Some((tokens, _)) = newest_context {
        // The newest turn carries the Live Context's body size: the history the turn carried
        // is one large tool result (a build log).
        let target = tokens * 4 + 1_337;
        let items = 1 + tools.len() + messages.len() + 1;
        let empty = sized(&json!({"role": "tool", "content": ""}));
        let need = target.saturating_sub(total + framing(items) + empty);
        let mut log = String::with_capacity(need as usize);
        let mut i = 0u64;
        while (log.len() as u64) < need {
            log.push_str(&format!("cargo test · line {i:06}: ok | "));
            i += 1;
        }
        log.truncate(need as usize);
        let history = json!({"role": "tool", "content": log});
        total += sized(&history);
        messages.push(("tool", history));
    }
    let body_bytes = total + framing(1 + tools.len() + messages.len());
    let input_tokens = newest_context.map_or(body_bytes / 4, |(tokens, _)| tokens);
    let by_role = |role: &str| -> u64 {
        messages
            .iter()
            .filter(|(r, _)| *r == role)
            .map(|(_, v)| sized(v))
            .sum()
    };
    let components = if s.keeper == "하늘" {
        Value::Null
    } else {
        let mut c = vec![
            json!({"component": "prompt.keeper_instructions", "bytes": prompt.len()}),
            json!({"component": "tool_schemas", "bytes": tools.iter().map(|(_, v)| sized(v)).sum::<u64>()}),
            json!({"component": "message_user", "bytes": by_role("user")}),
            json!({"component": "message_assistant_text", "bytes": by_role("assistant")}),
        ];
        if by_role("tool") > 0 {
            c.push(json!({"component": "message_tool_result", "bytes": by_role("tool")}));
        }
        Value::Array(c)
    };
    let record = json!({
        "execution_ids": [format!("exec-{}-{t}", s.keeper)],
        "keeper": s.keeper,
        "agent_name": s.keeper,
        "generation": s.generation,
        "turn_kind": if t.is_multiple_of(2) { "autonomous" } else { "direct" },
        "trace_id": s.trace_id,
        "absolute_turn": t,
        "turn_ref": turn_ref,
        "blocks": [{"block": "keeper_instructions", "bytes": prompt.len(),
                    "digest": sha256_hex(prompt.as_bytes())}],
        "input_components": components,
        "runtime_profile": "claude-sonnet",
        "request_runtime_profile": "claude-sonnet",
        "request_body_bytes": body_bytes,
        "transmitted_atoms": messages.len(),
        "total_atoms": messages.len(),
        "model_input_measurement": "wire_shape",
        "raw_trace_run_ref": null,
        "selected_model": "claude-sonnet-4",
        "finish_reason": "stop",
        "context_window": s.context.and_then(|(_, max)| max),
        "request_latency_ms": 900 + (t * 337) % 4_000,
        "ttfrc_ms": 120.5,
        "input_tokens": input_tokens,
        "cache_read_input_tokens": input_tokens / 2,
        "output_tokens": 150 + (t * 37) % 900,
        "usage_scope": "per_request",
        "ts": ts as f64,
    });
    let retained = s.keeper != "ops-bot" && t >= newest_turns(s) + 2;
    let input = retained.then(|| {
        let item = |i: usize, label_key: &str, label: &str, v: &Value| {
            let text = v.to_string();
            json!({"index": i, label_key: label, "bytes": text.len(),
                   "sha256": sha256_hex(text.as_bytes()), "content": v})
        };
        json!({
            "schema": "masc.resolved-provider-input.v1",
            "keeper": s.keeper,
            "trace_id": s.trace_id,
            "absolute_turn": t,
            "turn_ref": turn_ref,
            "runtime_profile": "claude-sonnet",
            "captured_at": ts as f64 - 2.5,
            "wire": {
                "phase": "Pre_dispatch_serialization",
                "capture_id": format!("capture-{}-{t}", s.keeper),
                "provider": "anthropic",
                "model": "claude-sonnet-4",
                "http_codec": "anthropic_messages",
                "stream": true,
                "body_bytes": body_bytes,
                "body_sha256": sha256_hex(format!("body:{turn_ref}:{body_bytes}").as_bytes()),
            },
            "system_prompt": {"bytes": prompt.len(), "sha256": sha256_hex(prompt.as_bytes()),
                              "text": prompt},
            "messages": messages.iter().enumerate()
                .map(|(i, (role, v))| item(i, "role", role, v)).collect::<Vec<_>>(),
            "tool_schemas": tools.iter().enumerate()
                .map(|(i, (name, v))| item(i, "name", name, v)).collect::<Vec<_>>(),
        })
    });
    (record, input)
}

/// The oldest of a Keeper's newest [`SEEDED_TURNS`] turns.
fn newest_turns(s: &SeededTurns) -> u64 {
    s.turns.saturating_sub(SEEDED_TURNS - 1).max(1)
}

/// The oldest recorded turn of a Keeper.
fn first_turn(s: &SeededTurns) -> u64 {
    if s.keeper == WHOLE_HISTORY {
        1
    } else {
        newest_turns(s)
    }
}

fn seed(tx: &Transaction<'_>) -> Result<(), StoreError> {
    for s in seeded_turns().iter().filter(|s| s.turns > 0) {
        let first = first_turn(s);
        let mut seq = 0i64;
        for t in first..=s.turns {
            let (record, input) = turn(s, t);
            seq += 1;
            tx.execute(
                "INSERT INTO turn_records (keeper, seq, line) VALUES (?1, ?2, ?3)",
                params![s.keeper, seq, record.to_string()],
            )?;
            if s.diagnostics && t == first + 1 {
                // A row cut by a crash mid-write: MASC's strict decode refuses it.
                seq += 1;
                tx.execute(
                    "INSERT INTO turn_records (keeper, seq, line) VALUES (?1, ?2, ?3)",
                    params![s.keeper, seq, r#"{"keeper":"rondo","absolute_turn":"#],
                )?;
            }
            if let Some(input) = input {
                tx.execute(
                    "INSERT INTO provider_inputs (keeper, turn_ref, body) VALUES (?1, ?2, ?3)",
                    params![s.keeper, format!("{}#{t}", s.trace_id), input.to_string()],
                )?;
            }
        }
    }
    Ok(())
}

/// The newest `limit` rows of a Keeper's store, oldest first: the records that decode, and
/// how many rows did not (MASC's strict decode; never repaired, never shown).
pub fn recent(
    conn: &Connection,
    keeper: &str,
    limit: i64,
) -> Result<(Vec<Value>, u64), StoreError> {
    let mut stmt = conn.prepare(
        "SELECT line FROM (SELECT seq, line FROM turn_records WHERE keeper = ?1
            ORDER BY seq DESC LIMIT ?2) ORDER BY seq ASC",
    )?;
    let lines = stmt
        .query_map(params![keeper, limit], |r| r.get::<_, String>(0))?
        .collect::<Result<Vec<_>, _>>()?;
    let mut records = Vec::new();
    let mut skipped = 0;
    for line in lines {
        match serde_json::from_str::<Value>(&line) {
            Ok(v @ Value::Object(_)) if v["keeper"] == keeper && v["turn_ref"].is_string() => {
                records.push(v)
            }
            _ => skipped += 1,
        }
    }
    Ok((records, skipped))
}

/// The resolved provider input of one turn, if a snapshot was kept.
pub fn provider_input(
    conn: &Connection,
    keeper: &str,
    turn_ref: &str,
) -> Result<Option<Value>, StoreError> {
    let body: Option<String> = conn
        .query_row(
            "SELECT body FROM provider_inputs WHERE keeper = ?1 AND turn_ref = ?2",
            params![keeper, turn_ref],
            |r| r.get(0),
        )
        .optional()?;
    Ok(match body {
        Some(text) => Some(serde_json::from_str(&text)?),
        None => None,
    })
}
