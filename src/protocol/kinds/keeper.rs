//! Manifest kinds of the Keeper reads outside the roster and chat — metadata (§14.7), Live
//! Context (§14.8), a metrics line (§14.9), the turn census (§4.2), held tool calls (§14.5),
//! turn records and serialized input (§14.11), the provider probe (§9.1) and the waiting
//! inventory (§15.8): decode a payload and summarise it in one line of typed facts.
//!
//! A read that echoes what was asked (a Keeper's name, a turn) is decoded as asked for the
//! identity the body names: the decode command reads a body alone, so the echo cannot differ,
//! while every check inside the body (a row of another Keeper, a `turn_ref` that is not its
//! trace and turn) still runs.

use super::KindSummary;
use crate::protocol::decode::{DecodeError, WireDecode, decode_object};
use crate::protocol::held_calls::HeldToolCalls;
use crate::protocol::inspector::turn_records::ComponentSource;
use crate::protocol::inspector::{ProviderInput, TurnRecordsPage};
use crate::protocol::keeper_detail::metrics::{MetricsEntry, decode_record};
use crate::protocol::keeper_detail::{ContextObservation, KeeperStatus, LiveContext};
use crate::protocol::runtime::RuntimeProbe;
use crate::protocol::turns::{KeeperTurnState, KeeperTurns};
use crate::protocol::waiting::{KeeperSlot, TOOLS_KEY, WaitingInventory, WaitingInventoryRead};
use serde_json::Value;

/// Kind dispatcher of this family (registered in `kinds::decode_kind`).
pub fn decode(kind: &str, bytes: &[u8]) -> Option<Result<KindSummary, DecodeError>> {
    Some(match kind {
        "keeper_waiting_inventory" => waiting_inventory(bytes),
        "keeper_status" => keeper_status(bytes),
        "keeper_context" => keeper_context(bytes),
        "keeper_metrics_line" => metrics_line(bytes),
        "keeper_turns" => keeper_turns(bytes),
        "held_tool_calls" => HeldToolCalls::decode(bytes)
            .map(|h| format!("held tool calls: {} held", h.pending.len())),
        "turn_records" => turn_records(bytes),
        "provider_input" => provider_input(bytes),
        "runtime_probe" => runtime_probe(bytes),
        _ => return None,
    })
}

/// The string at `key` of the body's top object, or `""` (a body without it fails its own
/// decode at that key).
fn named(bytes: &[u8], key: &str) -> Result<String, DecodeError> {
    let obj = decode_object(bytes)?;
    Ok(obj
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string())
}

fn keeper_status(bytes: &[u8]) -> Result<KindSummary, DecodeError> {
    let s = KeeperStatus::decode_for(bytes, &named(bytes, "name")?)?;
    let (trace, generation) = s.context_owner();
    Ok(format!(
        "keeper status: trace {} chars, generation {generation}",
        trace.chars().count()
    ))
}

fn keeper_context(bytes: &[u8]) -> Result<KindSummary, DecodeError> {
    let c = LiveContext::decode_for(bytes, &named(bytes, "keeper")?)?;
    Ok(match c.context {
        ContextObservation::Observed { tokens, max, .. } => format!(
            "live context observed: {tokens} tokens of {}",
            max.map_or("an unknown window".to_string(), |m| m.to_string())
        ),
        ContextObservation::NotObserved { reason, .. } => {
            format!("live context unavailable: {}", reason.as_str())
        }
    })
}

fn metrics_line(bytes: &[u8]) -> Result<KindSummary, DecodeError> {
    let obj = decode_object(bytes)?;
    let r = decode_record(&obj)?;
    Ok(match r.entry {
        MetricsEntry::Turn {
            usage,
            usage_trusted,
            turn_mode,
            ..
        } => format!(
            "metrics turn ({}): {}, work {}",
            r.channel.short(),
            match (usage, usage_trusted) {
                (None, _) => "usage not reported".to_string(),
                (Some(u), true) => format!("{} in, {} out", u.input_tokens, u.output_tokens),
                (Some(u), false) => format!(
                    "untrusted usage {} in, {} out",
                    u.input_tokens, u.output_tokens
                ),
            },
            turn_mode.work()
        ),
        MetricsEntry::Heartbeat { message_count } => format!(
            "metrics heartbeat: {}",
            message_count.map_or("message count not reported".to_string(), |n| format!(
                "{n} messages"
            ))
        ),
    })
}

fn keeper_turns(bytes: &[u8]) -> Result<KindSummary, DecodeError> {
    let t = KeeperTurns::decode(bytes)?;
    let count = |f: fn(&KeeperTurnState) -> bool| t.keepers.iter().filter(|r| f(&r.state)).count();
    Ok(format!(
        "keeper turns: {} running, {} idle, {} unavailable",
        count(|s| matches!(s, KeeperTurnState::InTurn(_))),
        count(|s| matches!(s, KeeperTurnState::Idle)),
        count(|s| matches!(s, KeeperTurnState::Unavailable { .. }))
    ))
}

fn turn_records(bytes: &[u8]) -> Result<KindSummary, DecodeError> {
    let p = TurnRecordsPage::decode_for(bytes, &named(bytes, "keeper")?)?;
    let unattributed = p
        .records
        .iter()
        .filter(|r| r.input_components.is_none())
        .count();
    let unknown = p
        .records
        .iter()
        .flat_map(|r| r.input_components.iter().flatten())
        .filter(|c| c.source() == ComponentSource::Unknown)
        .count();
    Ok(format!(
        "turn records: {} records, {} skipped, health {}{}, {unattributed} with composition not recorded, {unknown} unknown components",
        p.records.len(),
        p.skipped_rows,
        p.health.as_str(),
        if p.live_turn_in_progress {
            ", live turn"
        } else {
            ""
        }
    ))
}

fn provider_input(bytes: &[u8]) -> Result<KindSummary, DecodeError> {
    let p = ProviderInput::decode_for(bytes, &named(bytes, "keeper")?, &named(bytes, "turn_ref")?)?;
    Ok(format!(
        "provider input: {} messages, {} tool schemas",
        p.messages.len(),
        p.tool_schemas.len()
    ))
}

fn runtime_probe(bytes: &[u8]) -> Result<KindSummary, DecodeError> {
    let p = RuntimeProbe::decode(bytes)?;
    let freshness = match p.freshness.sent() {
        Some(f) => format!("{f:?}"),
        None => "no envelope".to_string(),
    };
    Ok(format!(
        "runtime probe: {freshness} ({}), status {:?}, {} providers",
        p.badge().unwrap_or("no badge"),
        p.body.status,
        p.body.providers.len()
    ))
}

/// §15.8: a Tools body (its `keeper_waiting_inventory` key, absent = not sent) or the
/// inventory body itself (the per-Keeper route).
fn waiting_inventory(bytes: &[u8]) -> Result<KindSummary, DecodeError> {
    let obj = decode_object(bytes)?;
    let tools_body = obj.contains_key(TOOLS_KEY) || obj.contains_key("tool_inventory");
    let inv = if tools_body {
        match WaitingInventoryRead::decode(bytes)? {
            WaitingInventoryRead::NotSent => {
                return Ok("waiting inventory: not sent by this MASC".into());
            }
            WaitingInventoryRead::Sent(inv) => inv,
        }
    } else {
        WaitingInventory::decode_value(&Value::Object(obj))?
    };
    let keepers = inv
        .keepers
        .iter()
        .filter(|k| matches!(k, KeeperSlot::Keeper(_)))
        .count();
    let rows: usize = inv
        .keepers
        .iter()
        .map(|k| match k {
            KeeperSlot::Keeper(k) => k.decoded_rows().count(),
            KeeperSlot::Undecodable { .. } => 0,
        })
        .sum();
    let unknown = inv
        .keepers
        .iter()
        .filter_map(|k| match k {
            KeeperSlot::Keeper(k) => Some(k),
            KeeperSlot::Undecodable { .. } => None,
        })
        .flat_map(|k| k.decoded_rows())
        .chain(inv.global_rows().iter().filter_map(|r| r.row()))
        .filter(|r| !r.source.is_known())
        .count();
    Ok(format!(
        "waiting inventory: {keepers} keepers, {rows} rows, {} global, {} read errors, {} undecodable, {unknown} unknown sources, counts {}",
        inv.global_rows().len(),
        inv.global_read_errors().count(),
        inv.undecodable(),
        if inv.counts_exact() {
            "exact"
        } else {
            "not exact"
        }
    ))
}
