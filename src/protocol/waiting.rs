//! The waiting inventory (protocol-15-operator.md §15.8): what each Keeper waits on, what
//! would wake it and what to do next. MASC attaches it to the Tools body
//! (`keeper_waiting_inventory` of `GET /api/v1/dashboard/tools`, §6.1) and serves the same
//! body per Keeper (`GET /api/v1/keepers/{name}/waiting-inventory`); projection
//! `lib/server_keeper_waiting_inventory.ml` (d541eb07).
//!
//! Tolerant where MASC's releases differ, typed where they agree:
//! - the key absent is [`WaitingInventoryRead::NotSent`] (a MASC that does not attach it), never
//!   "nothing waiting";
//! - `what` (the operator sentence) is newer than v0.24.0: a row without it is shown by its
//!   technical words;
//! - a `source`, `state` or `next_action` this build does not know is kept raw, never folded
//!   into a known one;
//! - a row or Keeper entry that does not decode is kept in its place as undecodable and counted
//!   (one bad row never hides the others), and a row filed under one Keeper that names another
//!   is refused (its wait is never shown as this Keeper's);
//! - `keeper_count_known: false` and any truncation make the counts "not exact";
//! - a present `schema` other than v3 refuses the whole inventory (its shape is unknown).

use super::decode::{DecodeError, DecodeErrorKind, SinceRelease, WireDecode, decode_value};
use serde::Deserialize;
use serde_json::{Map, Value};

pub const WAITING_INVENTORY_SCHEMA: &str = "masc.dashboard.keeper_waiting_inventory.v3";
/// The key of the Tools body (§6.1) that carries the inventory.
pub const TOOLS_KEY: &str = "keeper_waiting_inventory";

/// What a row waits on (`source`, MASC's closed vocabulary of Aug); another word is kept raw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WaitingSource {
    EventQueuePending,
    ChatOperationQueued,
    ChatOperationRunning,
    HitlPending,
    ExternalAttention,
    FusionRunning,
    ScheduleWaiting,
    OwnerShutdown,
    OperatorPendingConfirm,
    /// A store this projection could not read: a failure of that source, never hidden.
    ReadError,
    Unknown(String),
}

const SOURCES: &[(&str, WaitingSource)] = &[
    ("event_queue_pending", WaitingSource::EventQueuePending),
    ("chat_operation_queued", WaitingSource::ChatOperationQueued),
    (
        "chat_operation_running",
        WaitingSource::ChatOperationRunning,
    ),
    ("hitl_pending", WaitingSource::HitlPending),
    ("external_attention", WaitingSource::ExternalAttention),
    ("fusion_running", WaitingSource::FusionRunning),
    ("schedule_waiting", WaitingSource::ScheduleWaiting),
    ("owner_shutdown", WaitingSource::OwnerShutdown),
    (
        "operator_pending_confirm",
        WaitingSource::OperatorPendingConfirm,
    ),
    ("read_error", WaitingSource::ReadError),
];

impl WaitingSource {
    pub fn from_wire(word: &str) -> Self {
        SOURCES
            .iter()
            .find(|(w, _)| *w == word)
            .map(|(_, s)| s.clone())
            .unwrap_or_else(|| Self::Unknown(word.to_string()))
    }

    /// The wire word (the raw word for an unknown source).
    pub fn as_str(&self) -> &str {
        match self {
            Self::Unknown(word) => word,
            known => SOURCES
                .iter()
                .find(|(_, s)| s == known)
                .map(|(w, _)| *w)
                .unwrap_or(""),
        }
    }

    /// A short name for the roster's "waits on" line.
    pub fn label(&self) -> &str {
        match self {
            Self::EventQueuePending => "event queue",
            Self::ChatOperationQueued => "chat queued",
            Self::ChatOperationRunning => "chat running",
            Self::HitlPending => "approval",
            Self::ExternalAttention => "external message",
            Self::FusionRunning => "fusion",
            Self::ScheduleWaiting => "schedule",
            Self::OwnerShutdown => "shutdown",
            Self::OperatorPendingConfirm => "operator confirm",
            Self::ReadError => "read error",
            Self::Unknown(word) => word,
        }
    }

    pub fn is_known(&self) -> bool {
        !matches!(self, Self::Unknown(_))
    }
}

/// A Keeper's state in the inventory (`supported_states`); another word is kept raw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WaitState {
    /// Nothing waiting.
    Idle,
    /// A turn is running.
    Busy,
    /// At least one row.
    Waiting,
    /// A fusion run or an owner shutdown holds it.
    Deferred,
    Unknown(String),
}

impl WaitState {
    pub fn from_wire(word: &str) -> Self {
        match word {
            "idle" => Self::Idle,
            "busy" => Self::Busy,
            "waiting" => Self::Waiting,
            "deferred" => Self::Deferred,
            other => Self::Unknown(other.to_string()),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            Self::Idle => "idle",
            Self::Busy => "busy",
            Self::Waiting => "waiting",
            Self::Deferred => "deferred",
            Self::Unknown(word) => word,
        }
    }
}

/// One thing a Keeper (or the workspace) waits on.
#[derive(Debug, Clone, PartialEq)]
pub struct WaitingRow {
    /// `None`: a workspace-wide row (or the release sent none).
    pub keeper_name: Option<String>,
    pub source: WaitingSource,
    /// The technical name of what is waited on (a payload kind, a tool, a store).
    pub waiting_on: String,
    /// The operator sentence MASC draws by default; `None` on a release that does not write it
    /// (v0.24.0), and then the technical words are shown instead.
    pub what: Option<String>,
    pub wake_producer: Option<String>,
    /// Unix seconds.
    pub since: Option<f64>,
    /// Unix seconds.
    pub due_at: Option<f64>,
    /// MASC's next-action word (an unknown one is shown raw).
    pub next_action: String,
}

impl WaitingRow {
    /// What the row says by default: the sentence, else the technical name.
    pub fn sentence(&self) -> &str {
        self.what.as_deref().unwrap_or(&self.waiting_on)
    }
}

/// A row in its place: decoded, or refused and kept (counted, never dropped).
#[derive(Debug, Clone, PartialEq)]
pub enum RowSlot {
    Row(WaitingRow),
    Undecodable(DecodeError),
}

impl RowSlot {
    pub fn row(&self) -> Option<&WaitingRow> {
        match self {
            Self::Row(r) => Some(r),
            Self::Undecodable(_) => None,
        }
    }
}

/// One Keeper's entry.
#[derive(Debug, Clone, PartialEq)]
pub struct WaitingKeeper {
    pub keeper_name: String,
    pub state: WaitState,
    pub rows: Vec<RowSlot>,
    /// `waiting_count` as sent (the rows kept after truncation).
    pub waiting_count: Option<u64>,
    /// Sources whose rows MASC cut (`truncated_sources`; `external_attention` at 64).
    pub truncated_sources: Vec<String>,
    /// `waiting_count_truncated`.
    pub count_truncated: bool,
    /// The earliest `since` and `due_at` over its rows (unix seconds).
    pub since: Option<f64>,
    pub due_at: Option<f64>,
}

impl WaitingKeeper {
    pub fn decoded_rows(&self) -> impl Iterator<Item = &WaitingRow> {
        self.rows.iter().filter_map(RowSlot::row)
    }

    pub fn undecodable_rows(&self) -> usize {
        self.rows.iter().filter(|r| r.row().is_none()).count()
    }

    /// Whether the rows shown are all the Keeper waits on.
    pub fn is_truncated(&self) -> bool {
        self.count_truncated || !self.truncated_sources.is_empty()
    }

    /// The row the roster line shows: the earliest due, else the oldest waiting, else the first.
    pub fn headline(&self) -> Option<&WaitingRow> {
        let rows: Vec<&WaitingRow> = self.decoded_rows().collect();
        let earliest_due = rows
            .iter()
            .filter(|r| r.due_at.is_some_and(f64::is_finite))
            .min_by(|a, b| a.due_at.unwrap_or(0.0).total_cmp(&b.due_at.unwrap_or(0.0)));
        let oldest = || {
            rows.iter()
                .filter(|r| r.since.is_some_and(f64::is_finite))
                .min_by(|a, b| a.since.unwrap_or(0.0).total_cmp(&b.since.unwrap_or(0.0)))
        };
        earliest_due.or_else(oldest).or(rows.first()).copied()
    }
}

/// A Keeper entry in its place.
#[derive(Debug, Clone, PartialEq)]
pub enum KeeperSlot {
    Keeper(WaitingKeeper),
    Undecodable {
        keeper_name: Option<String>,
        error: DecodeError,
    },
}

/// The inventory body.
#[derive(Debug, Clone, PartialEq)]
pub struct WaitingInventory {
    pub schema: Option<String>,
    pub generated_at: Option<String>,
    /// `false`: the Keeper list did not read (a `read_error` global row says why).
    pub keeper_count_known: Option<bool>,
    pub keeper_count: Option<u64>,
    pub waiting_keeper_count: Option<u64>,
    pub row_count: Option<u64>,
    pub row_count_truncated: Option<bool>,
    pub external_attention_row_limit: Option<u64>,
    pub keepers: Vec<KeeperSlot>,
    /// Rows with no Keeper (read errors, workspace-wide approvals and schedules);
    /// `NotInRelease` when the body has no such list.
    pub global: SinceRelease<Vec<RowSlot>>,
}

impl WaitingInventory {
    /// The entry of `keeper`, when the inventory has one that decoded.
    pub fn of(&self, keeper: &str) -> Option<&WaitingKeeper> {
        self.keepers.iter().find_map(|k| match k {
            KeeperSlot::Keeper(k) if k.keeper_name == keeper => Some(k),
            _ => None,
        })
    }

    /// Whether a Keeper entry named `keeper` is present but undecodable.
    pub fn undecodable_for(&self, keeper: &str) -> Option<&DecodeError> {
        self.keepers.iter().find_map(|k| match k {
            KeeperSlot::Undecodable {
                keeper_name: Some(n),
                error,
            } if n == keeper => Some(error),
            _ => None,
        })
    }

    /// The counts are exact: the Keeper list read and nothing was cut.
    pub fn counts_exact(&self) -> bool {
        self.keeper_count_known != Some(false)
            && self.row_count_truncated != Some(true)
            && !self.keepers.iter().any(|k| match k {
                KeeperSlot::Keeper(k) => k.is_truncated(),
                KeeperSlot::Undecodable { .. } => false,
            })
    }

    pub fn global_rows(&self) -> &[RowSlot] {
        match &self.global {
            SinceRelease::Sent(rows) => rows,
            SinceRelease::NotInRelease => &[],
        }
    }

    /// The workspace-wide read failures (`read_error` rows with no Keeper).
    pub fn global_read_errors(&self) -> impl Iterator<Item = &WaitingRow> {
        self.global_rows()
            .iter()
            .filter_map(RowSlot::row)
            .filter(|r| r.source == WaitingSource::ReadError)
    }

    /// Rows and Keeper entries that did not decode.
    pub fn undecodable(&self) -> usize {
        let keepers: usize = self
            .keepers
            .iter()
            .map(|k| match k {
                KeeperSlot::Keeper(k) => k.undecodable_rows(),
                KeeperSlot::Undecodable { .. } => 1,
            })
            .sum();
        keepers
            + self
                .global_rows()
                .iter()
                .filter(|r| r.row().is_none())
                .count()
    }

    /// Decodes the inventory object (the Tools key's value or the per-Keeper route's body).
    pub fn decode_value(value: &Value) -> Result<Self, DecodeError> {
        let Some(obj) = value.as_object() else {
            return Err(DecodeError::new(
                DecodeErrorKind::WrongType,
                ".",
                "the waiting inventory is not an object",
            ));
        };
        let env: Envelope = decode_value(value)?;
        if let Some(schema) = env.schema.as_deref()
            && schema != WAITING_INVENTORY_SCHEMA
        {
            return Err(DecodeError::new(
                DecodeErrorKind::Other("unknown_schema"),
                ".schema",
                format!("not {WAITING_INVENTORY_SCHEMA}"),
            ));
        }
        let keepers = array_at(obj, "keepers", true)?
            .map(Vec::as_slice)
            .unwrap_or(&[])
            .iter()
            .enumerate()
            .map(|(i, v)| keeper_slot(v, &format!(".keepers[{i}]")))
            .collect();
        let global = match array_at(obj, "global_waiting_on", false)? {
            Some(rows) => SinceRelease::Sent(
                rows.iter()
                    .enumerate()
                    .map(|(i, v)| row_slot(v, &format!(".global_waiting_on[{i}]"), None))
                    .collect(),
            ),
            None => SinceRelease::NotInRelease,
        };
        Ok(Self {
            schema: env.schema,
            generated_at: env.generated_at,
            keeper_count_known: env.keeper_count_known,
            keeper_count: env.keeper_count,
            waiting_keeper_count: env.waiting_keeper_count,
            row_count: env.row_count,
            row_count_truncated: env.row_count_truncated,
            external_attention_row_limit: env.external_attention_row_limit,
            keepers,
            global,
        })
    }
}

/// The waiting inventory as the Tools read carries it.
#[derive(Debug, Clone, PartialEq)]
pub enum WaitingInventoryRead {
    /// The Tools body has no `keeper_waiting_inventory` key: this MASC does not attach it.
    NotSent,
    Sent(WaitingInventory),
}

impl WaitingInventoryRead {
    pub fn inventory(&self) -> Option<&WaitingInventory> {
        match self {
            Self::Sent(inv) => Some(inv),
            Self::NotSent => None,
        }
    }
}

/// Decodes the Tools body (§6.1) for its waiting inventory only. A warming Tools body still
/// carries a live inventory (MASC attaches it to the cached placeholder too).
impl WireDecode for WaitingInventoryRead {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let wire: ToolsWaitingWire = super::decode::decode_json_object(bytes)?;
        match wire.keeper_waiting_inventory {
            None => Ok(Self::NotSent),
            Some(v) => WaitingInventory::decode_value(&v)
                .map(Self::Sent)
                .map_err(|e| e.under(".keeper_waiting_inventory")),
        }
    }
}

/// Only the key this read needs; serde skips the rest of the Tools body.
#[derive(Deserialize)]
struct ToolsWaitingWire {
    #[serde(default)]
    keeper_waiting_inventory: Option<Value>,
}

#[derive(Deserialize)]
struct Envelope {
    #[serde(default)]
    schema: Option<String>,
    #[serde(default)]
    generated_at: Option<String>,
    #[serde(default)]
    keeper_count_known: Option<bool>,
    #[serde(default)]
    keeper_count: Option<u64>,
    #[serde(default)]
    waiting_keeper_count: Option<u64>,
    #[serde(default)]
    row_count: Option<u64>,
    #[serde(default)]
    row_count_truncated: Option<bool>,
    #[serde(default)]
    external_attention_row_limit: Option<u64>,
}

#[derive(Deserialize)]
struct RowWire {
    #[serde(default)]
    keeper_name: Option<String>,
    source: String,
    waiting_on: String,
    #[serde(default)]
    what: Option<String>,
    #[serde(default)]
    wake_producer: Option<String>,
    #[serde(default)]
    since: Option<f64>,
    #[serde(default)]
    due_at: Option<f64>,
    next_action: String,
}

#[derive(Deserialize)]
struct KeeperWire {
    keeper_name: String,
    state: String,
    #[serde(default)]
    waiting_count: Option<u64>,
    #[serde(default)]
    waiting_count_truncated: Option<bool>,
    #[serde(default)]
    truncated_sources: Option<Map<String, Value>>,
    #[serde(default)]
    since: Option<f64>,
    #[serde(default)]
    due_at: Option<f64>,
}

/// The array at `key`: `None` when absent (an error when `required`), a type error otherwise.
fn array_at<'a>(
    obj: &'a Map<String, Value>,
    key: &str,
    required: bool,
) -> Result<Option<&'a Vec<Value>>, DecodeError> {
    match obj.get(key) {
        None if required => Err(DecodeError::new(
            DecodeErrorKind::MissingField,
            ".",
            format!("missing field `{key}`"),
        )),
        None => Ok(None),
        Some(Value::Array(rows)) => Ok(Some(rows)),
        Some(_) => Err(DecodeError::new(
            DecodeErrorKind::WrongType,
            format!(".{key}"),
            "not a list",
        )),
    }
}

fn keeper_slot(value: &Value, at: &str) -> KeeperSlot {
    let keeper_name = value
        .get("keeper_name")
        .and_then(Value::as_str)
        .map(str::to_string);
    let decoded = decode_value::<KeeperWire>(value)
        .map_err(|e| e.under(at))
        .and_then(|w| {
            let rows = match value.get("waiting_on") {
                Some(Value::Array(rows)) => rows,
                Some(_) => {
                    return Err(DecodeError::new(
                        DecodeErrorKind::WrongType,
                        format!("{at}.waiting_on"),
                        "not a list",
                    ));
                }
                None => {
                    return Err(DecodeError::new(
                        DecodeErrorKind::MissingField,
                        at.to_string(),
                        "missing field `waiting_on`",
                    ));
                }
            };
            let owner = w.keeper_name.clone();
            Ok(WaitingKeeper {
                rows: rows
                    .iter()
                    .enumerate()
                    .map(|(i, v)| row_slot(v, &format!("{at}.waiting_on[{i}]"), Some(&owner)))
                    .collect(),
                keeper_name: w.keeper_name,
                state: WaitState::from_wire(&w.state),
                waiting_count: w.waiting_count,
                truncated_sources: w
                    .truncated_sources
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|(_, v)| v.as_bool() == Some(true))
                    .map(|(k, _)| k)
                    .collect(),
                count_truncated: w.waiting_count_truncated == Some(true),
                since: w.since,
                due_at: w.due_at,
            })
        });
    match decoded {
        Ok(k) => KeeperSlot::Keeper(k),
        Err(error) => KeeperSlot::Undecodable { keeper_name, error },
    }
}

fn row_slot(value: &Value, at: &str, owner: Option<&str>) -> RowSlot {
    let decoded = decode_value::<RowWire>(value)
        .map_err(|e| e.under(at))
        .and_then(|w| {
            if let (Some(owner), Some(named)) = (owner, w.keeper_name.as_deref())
                && owner != named
            {
                return Err(DecodeError::new(
                    DecodeErrorKind::IdentityMismatch,
                    format!("{at}.keeper_name"),
                    format!("a row of {named:?} filed under {owner:?}"),
                ));
            }
            Ok(WaitingRow {
                keeper_name: w.keeper_name,
                source: WaitingSource::from_wire(&w.source),
                waiting_on: w.waiting_on,
                what: w.what,
                wake_producer: w.wake_producer,
                since: w.since,
                due_at: w.due_at,
                next_action: w.next_action,
            })
        });
    match decoded {
        Ok(r) => RowSlot::Row(r),
        Err(e) => RowSlot::Undecodable(e),
    }
}

#[cfg(test)]
mod tests;
