//! Manifest kinds of the Keeper reads outside the roster and chat (waiting inventory, §15.8):
//! decode a payload and summarise it in one line of typed facts.

use super::KindSummary;
use crate::protocol::decode::{DecodeError, WireDecode, decode_object};
use crate::protocol::waiting::{KeeperSlot, TOOLS_KEY, WaitingInventory, WaitingInventoryRead};
use serde_json::Value;

/// Kind dispatcher of this family (registered in `kinds::decode_kind`).
pub fn decode(kind: &str, bytes: &[u8]) -> Option<Result<KindSummary, DecodeError>> {
    Some(match kind {
        "keeper_waiting_inventory" => waiting_inventory(bytes),
        _ => return None,
    })
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
