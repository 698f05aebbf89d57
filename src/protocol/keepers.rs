//! `GET /api/v1/gate/keepers?detailed=true` — the Keepers roster (protocol.md §4.1).

use super::decode::{DecodeError, DecodeErrorKind, WireDecode, decode_value};
use serde::{Deserialize, Serialize};

/// `surface_status` vocabulary of a roster row. Anything else refuses that row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum KeeperStatus {
    Active,
    Busy,
    Listening,
    Inactive,
    Offline,
    Idle,
    Error,
}

impl KeeperStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Active => "active",
            Self::Busy => "busy",
            Self::Listening => "listening",
            Self::Inactive => "inactive",
            Self::Offline => "offline",
            Self::Idle => "idle",
            Self::Error => "error",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActivationMode {
    Manual,
    OnDemand,
    Autonomous,
}

impl ActivationMode {
    /// The wire name (`on_demand`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Manual => "manual",
            Self::OnDemand => "on_demand",
            Self::Autonomous => "autonomous",
        }
    }
}

/// `effective_meta_error` of an error row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetaError {
    #[serde(default)]
    pub keeper: Option<String>,
    #[serde(default)]
    pub message: Option<String>,
    #[serde(default)]
    pub terminal_reason: Option<String>,
    #[serde(default)]
    pub severity: Option<String>,
    #[serde(default)]
    pub operator_action_required: Option<bool>,
    #[serde(default)]
    pub next_action: Option<String>,
}

/// One roster row. Only `name` and `status` are required: servers of different ages send
/// different subsets, and an absent field is shown as absent, never as false or 0.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KeeperRow {
    pub name: String,
    pub status: KeeperStatus,
    #[serde(default)]
    pub runtime_class: Option<String>,
    #[serde(default)]
    pub agent_name: Option<String>,
    #[serde(default)]
    pub keepalive_running: Option<bool>,
    #[serde(default)]
    pub autoboot_enabled: Option<bool>,
    #[serde(default)]
    pub proactive_enabled: Option<bool>,
    #[serde(default)]
    pub runtime_id: Option<String>,
    #[serde(default)]
    pub meta: Option<serde_json::Map<String, serde_json::Value>>,
    #[serde(default)]
    pub created_at: Option<String>,
    #[serde(default)]
    pub updated_at: Option<String>,
    #[serde(default)]
    pub health: Option<String>,
    #[serde(default)]
    pub paused: Option<bool>,
    #[serde(default)]
    pub phase: Option<String>,
    #[serde(default)]
    pub activation_mode: Option<ActivationMode>,
    /// Millicandles as a decimal string; may exceed 64 bits, so never parsed to a number.
    #[serde(default)]
    pub candle_balance_milli: Option<String>,
    #[serde(default)]
    pub effective_meta_error: Option<MetaError>,
    /// masc-tui demo extension: the task the keeper is working on, when the server says.
    #[serde(default)]
    pub current_task: Option<String>,
    /// masc-tui demo extension: unix seconds when the current turn started.
    #[serde(default)]
    pub turn_started_at: Option<f64>,
}

impl KeeperRow {
    /// A row whose metadata or error envelope names another Keeper than the row: its facts are
    /// never shown as this Keeper's (MASC's dashboard refuses it too).
    fn identity_error(&self, at: &str) -> Option<DecodeError> {
        let meta_name = self
            .meta
            .as_ref()
            .and_then(|m| m.get("name"))
            .and_then(|v| v.as_str());
        if let Some(other) = meta_name.filter(|n| *n != self.name) {
            return Some(DecodeError::new(
                DecodeErrorKind::IdentityMismatch,
                format!("{at}.meta.name"),
                format!("metadata of {other:?} in the row of {:?}", self.name),
            ));
        }
        let error_keeper = self
            .effective_meta_error
            .as_ref()
            .and_then(|e| e.keeper.as_deref());
        error_keeper.filter(|k| *k != self.name).map(|other| {
            DecodeError::new(
                DecodeErrorKind::IdentityMismatch,
                format!("{at}.effective_meta_error.keeper"),
                format!("the error of {other:?} in the row of {:?}", self.name),
            )
        })
    }

    /// `meta.sandbox_profile` when present and a string.
    pub fn sandbox_profile(&self) -> Option<&str> {
        self.meta
            .as_ref()
            .and_then(|m| m.get("sandbox_profile"))
            .and_then(|v| v.as_str())
    }
}

/// A row slot: a decoded row, or a refused one kept visible as undecodable (masc-tui rule:
/// one bad row never hides the others).
#[derive(Debug, Clone, PartialEq)]
pub enum KeeperRowSlot {
    Row(Box<KeeperRow>),
    Undecodable {
        name: Option<String>,
        error: DecodeError,
    },
}

/// The closed Candle status (newer MASC).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "lowercase", deny_unknown_fields)]
pub enum Candle {
    Off {},
    Disabled {
        reason: String,
    },
    Ready {
        issued_milli: String,
        burned_milli: String,
        circulating_milli: String,
    },
}

/// The roster envelope.
#[derive(Debug, Clone, PartialEq)]
pub struct KeeperRoster {
    pub count: u64,
    pub total: u64,
    pub limit: Option<u64>,
    pub truncated: bool,
    /// `None`: the server sent no candle key (older server), not "off".
    pub candle: Option<Candle>,
    pub rows: Vec<KeeperRowSlot>,
}

impl KeeperRoster {
    pub fn keepers(&self) -> impl Iterator<Item = &KeeperRow> {
        self.rows.iter().filter_map(|s| match s {
            KeeperRowSlot::Row(r) => Some(r.as_ref()),
            KeeperRowSlot::Undecodable { .. } => None,
        })
    }

    /// The decoded row of the Keeper named `name`, if listed.
    pub fn keeper(&self, name: &str) -> Option<&KeeperRow> {
        self.keepers().find(|r| r.name == name)
    }

    pub fn undecodable_count(&self) -> usize {
        self.rows
            .iter()
            .filter(|s| matches!(s, KeeperRowSlot::Undecodable { .. }))
            .count()
    }
    /// Strict view for `decode --as gate_keepers`: the first refused row, if any.
    pub fn first_refused_row(&self) -> Option<&DecodeError> {
        self.rows.iter().find_map(|s| match s {
            KeeperRowSlot::Undecodable { error, .. } => Some(error),
            KeeperRowSlot::Row(_) => None,
        })
    }
}

#[derive(Deserialize)]
struct RosterWire<R> {
    count: u64,
    total: u64,
    #[serde(default)]
    limit: Option<u64>,
    truncated: bool,
    #[serde(default)]
    candle: Option<Candle>,
    keepers: Vec<R>,
}

impl WireDecode for KeeperRoster {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        // Fast path, one parse for the common all-valid body: every row typed straight from the
        // body. When it succeeds each row is exactly what the per-row decode below gives it; a body
        // with any refused row (or any other failure) takes the per-row path, which says which row
        // and why.
        if let Ok(wire) = serde_json::from_slice::<RosterWire<KeeperRow>>(bytes)
            && wire.count == wire.keepers.len() as u64
            && wire.keepers.iter().all(|r| r.identity_error("").is_none())
        {
            let candle_ready = matches!(wire.candle, Some(Candle::Ready { .. }));
            if !candle_ready
                || wire
                    .keepers
                    .iter()
                    .all(|r| r.candle_balance_milli.is_some())
            {
                return Ok(Self {
                    count: wire.count,
                    total: wire.total,
                    limit: wire.limit,
                    truncated: wire.truncated,
                    candle: wire.candle,
                    rows: wire
                        .keepers
                        .into_iter()
                        .map(|row| KeeperRowSlot::Row(Box::new(row)))
                        .collect(),
                });
            }
        }
        let wire: RosterWire<serde_json::Value> = super::decode::decode_json(bytes)?;
        if wire.count != wire.keepers.len() as u64 {
            return Err(DecodeError::new(
                DecodeErrorKind::CountMismatch,
                ".count",
                format!("count {} but {} rows", wire.count, wire.keepers.len()),
            ));
        }
        let candle_ready = matches!(wire.candle, Some(Candle::Ready { .. }));
        let rows = wire
            .keepers
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let name = v.get("name").and_then(|n| n.as_str()).map(str::to_string);
                match decode_value::<KeeperRow>(v) {
                    Ok(row) if candle_ready && row.candle_balance_milli.is_none() => {
                        KeeperRowSlot::Undecodable {
                            name,
                            error: DecodeError::new(
                                DecodeErrorKind::InvalidValue,
                                format!(".keepers[{i}].candle_balance_milli"),
                                "candle is ready but the balance is null",
                            ),
                        }
                    }
                    Ok(row) => match row.identity_error(&format!(".keepers[{i}]")) {
                        Some(error) => KeeperRowSlot::Undecodable { name, error },
                        None => KeeperRowSlot::Row(Box::new(row)),
                    },
                    Err(mut e) => {
                        let inner = if e.path == "." { "" } else { e.path.as_str() };
                        e.path = format!(".keepers[{i}]{inner}");
                        KeeperRowSlot::Undecodable { name, error: e }
                    }
                }
            })
            .collect();
        Ok(Self {
            count: wire.count,
            total: wire.total,
            limit: wire.limit,
            truncated: wire.truncated,
            candle: wire.candle,
            rows,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_status_refuses_only_that_row() {
        let body = br#"{"count":2,"total":2,"truncated":false,"keepers":[
            {"name":"a","status":"active"},{"name":"b","status":"running"}]}"#;
        let r = KeeperRoster::decode(body).unwrap();
        assert_eq!(r.keepers().count(), 1);
        let e = r.first_refused_row().unwrap();
        assert_eq!(e.kind, DecodeErrorKind::UnknownVariant);
        assert_eq!(e.path, ".keepers[1].status");
    }

    #[test]
    fn count_must_match_rows() {
        let body =
            br#"{"count":2,"total":2,"truncated":false,"keepers":[{"name":"a","status":"idle"}]}"#;
        assert_eq!(
            KeeperRoster::decode(body).unwrap_err().kind,
            DecodeErrorKind::CountMismatch
        );
    }

    #[test]
    fn ready_candle_needs_a_balance_and_keeps_big_numbers_as_text() {
        let body = br#"{"count":2,"total":2,"truncated":false,
            "candle":{"status":"ready","issued_milli":"1","burned_milli":"0","circulating_milli":"1"},
            "keepers":[{"name":"a","status":"idle","candle_balance_milli":"123456789012345678901234567890"},
                       {"name":"b","status":"idle","candle_balance_milli":null}]}"#;
        let r = KeeperRoster::decode(body).unwrap();
        let first = r.keepers().next().unwrap();
        assert_eq!(
            first.candle_balance_milli.as_deref(),
            Some("123456789012345678901234567890")
        );
        assert_eq!(r.undecodable_count(), 1);
    }
}

#[cfg(test)]
mod candle_tests {
    use super::*;

    #[test]
    fn candle_is_closed_even_when_off() {
        let body = br#"{"count":0,"total":0,"truncated":false,"candle":{"status":"off","x":1},"keepers":[]}"#;
        assert_eq!(
            KeeperRoster::decode(body).unwrap_err().kind,
            DecodeErrorKind::UnknownField
        );
    }
}
