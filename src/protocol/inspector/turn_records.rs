//! `GET /api/v1/keepers/{name}/turn-records?limit=` (protocol.md §14.11; sources.md K-14,
//! K-15).
//!
//! Shapes from MASC's encoders: the envelope at lib/server/server_dashboard_http_keeper_api.ml
//! (the `/turn-records` branch, d541eb0750 "Aug"), health words from
//! lib/keeper/keeper_status_runtime.ml `keeper_turn_record_source_health` (same commit), the
//! record from lib/types/turn_record.ml `to_json` (d541eb0750; newer 0fc111e339 drops
//! `generation` and adds `usage_scope`, `turn_output_tokens`, `provider_context_window`,
//! `tool_surface_ref`).
//!
//! - The envelope is open (MASC also sends `source`, `producer`, `durable_store`,
//!   `memory_os`, freshness fields masc-tui does not read). `keeper` must echo the request;
//!   `count` must equal the entries (MASC computes both from one list); `health` is a closed
//!   set; `skipped_rows` counts rows MASC's strict decode refused — counted, never shown.
//! - A record is tolerant of optional fields (absent = not reported, never 0) and of fields it
//!   does not know; its identity is strict: it names the requested Keeper and its `turn_ref`
//!   is `<trace_id>#<absolute_turn>`. An entry that breaks this fails the page (MASC already
//!   refused the rows it could not decode: one it served broken is a protocol fault).

use crate::protocol::decode::{
    DecodeError, DecodeErrorKind, decode_json_object, decode_object, present_nullable,
    required_nullable,
};
use serde::Deserialize;

/// `limit` when none is given, and MASC's clamp (`trajectory_max_limit`).
pub const DEFAULT_LIMIT: u32 = 50;
pub const MAX_LIMIT: u32 = 500;

/// The pages the turn inspector widens through when its pinned turn is older than the page
/// (MASC has no cursor on this route, only `limit`): 50 → 200 → 500, MASC's maximum.
pub const LIMIT_STEPS: [u32; 3] = [DEFAULT_LIMIT, 200, MAX_LIMIT];

/// The next wider `limit` after `limit`, or `None` at MASC's maximum.
pub fn wider_limit(limit: u32) -> Option<u32> {
    LIMIT_STEPS.into_iter().find(|step| *step > limit)
}

/// `limit` as MASC clamps it (1–500).
pub fn clamp_limit(limit: u32) -> u32 {
    limit.clamp(1, MAX_LIMIT)
}

/// `health` (closed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RecordsHealth {
    Ok,
    Empty,
    Stale,
    Incompatible,
    /// Newer MASC: a turn is running, so the newest record's age says nothing about the
    /// Keeper's freshness (MASC #28720).
    Live,
}

impl RecordsHealth {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::Empty => "empty",
            Self::Stale => "stale",
            Self::Incompatible => "incompatible",
            Self::Live => "live",
        }
    }
}

/// `turn_kind` (closed in MASC's own decoder).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnKind {
    Autonomous,
    Direct,
}

/// One `blocks` row: a prompt block the turn assembled, with its producer digest.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct PromptBlock {
    pub block: String,
    pub bytes: u64,
    pub digest: String,
}

/// Which producer a recorded input component comes from (MASC's own inspector groups them
/// so: bin/masc_tui_context_inspector.ml `input_source`, 00a3bd5d).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ComponentSource {
    /// `prompt.<block>`: the prompt the turn assembled (the system prompt).
    PromptAssembly,
    /// `tool_schemas`: the tool surface it was given.
    ToolSurface,
    /// `message_*`: the conversation handed to the provider.
    MessageList,
    /// A component name this version does not know (kept, marked).
    Unknown,
}

impl ComponentSource {
    pub fn label(self) -> &'static str {
        match self {
            Self::PromptAssembly => "turn prompt assembly",
            Self::ToolSurface => "effective tool surface",
            Self::MessageList => "provider message list",
            Self::Unknown => "unknown component",
        }
    }
}

const MESSAGE_COMPONENTS: &[&str] = &[
    "message_user",
    "message_system",
    "message_assistant_text",
    "message_thinking",
    "message_redacted_thinking",
    "message_tool_use",
    "message_tool_result",
    "message_image",
    "message_document",
    "message_audio",
];

/// One `input_components` row: how many bytes of the request one component took.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct InputComponent {
    pub component: String,
    pub bytes: u64,
}

impl InputComponent {
    pub fn source(&self) -> ComponentSource {
        let c = self.component.as_str();
        if c.strip_prefix("prompt.").is_some_and(|b| !b.is_empty()) {
            ComponentSource::PromptAssembly
        } else if c == "tool_schemas" {
            ComponentSource::ToolSurface
        } else if MESSAGE_COMPONENTS.contains(&c) {
            ComponentSource::MessageList
        } else {
            ComponentSource::Unknown
        }
    }

    /// The prompt block this component measures (`prompt.keeper_instructions` →
    /// `keeper_instructions`).
    pub fn prompt_block(&self) -> Option<&str> {
        self.component.strip_prefix("prompt.")
    }
}

/// One turn record (open: fields this version does not read are ignored).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct TurnRecord {
    pub keeper: String,
    pub agent_name: String,
    /// Aug MASC only (newer MASC no longer writes it).
    #[serde(default)]
    pub generation: Option<u64>,
    pub turn_kind: TurnKind,
    pub trace_id: String,
    pub absolute_turn: u64,
    pub turn_ref: String,
    pub runtime_profile: String,
    pub execution_ids: Vec<String>,
    pub blocks: Vec<PromptBlock>,
    /// `null`: the turn recorded no per-component attribution (not an empty list).
    #[serde(deserialize_with = "required_nullable")]
    pub input_components: Option<Vec<InputComponent>>,
    /// The serialized request body's size; `null` when no wire observation was recorded.
    #[serde(deserialize_with = "required_nullable")]
    pub request_body_bytes: Option<u64>,
    /// The runtime that observed the request wire: set exactly when `request_body_bytes` is
    /// (one observation); absent on a MASC older than the field.
    #[serde(default, deserialize_with = "present_nullable")]
    pub request_runtime_profile: Option<Option<String>>,
    #[serde(default)]
    pub selected_model: Option<String>,
    #[serde(default)]
    pub finish_reason: Option<String>,
    #[serde(default)]
    pub context_window: Option<u64>,
    #[serde(default)]
    pub provider_context_window: Option<u64>,
    #[serde(default)]
    pub input_tokens: Option<u64>,
    #[serde(default)]
    pub output_tokens: Option<u64>,
    #[serde(default)]
    pub cache_creation_input_tokens: Option<u64>,
    #[serde(default)]
    pub cache_read_input_tokens: Option<u64>,
    /// Newer MASC: what `input_tokens` counts (`per_request`, `turn_total`, …).
    #[serde(default)]
    pub usage_scope: Option<String>,
    #[serde(default)]
    pub turn_output_tokens: Option<u64>,
    #[serde(default)]
    pub request_latency_ms: Option<u64>,
    #[serde(default)]
    pub ttfrc_ms: Option<f64>,
    pub ts: f64,
}

impl TurnRecord {
    /// Sum of the recorded component bytes (`None` when not attributed).
    pub fn component_bytes(&self) -> Option<u64> {
        self.input_components
            .as_ref()
            .map(|c| c.iter().map(|c| c.bytes).sum())
    }
}

#[derive(Deserialize)]
struct EntryWire {
    record: TurnRecord,
}

#[derive(Deserialize)]
struct PageWire {
    keeper: String,
    count: u64,
    skipped_rows: u64,
    health: RecordsHealth,
    #[serde(deserialize_with = "required_nullable")]
    stale_reason: Option<String>,
    live_turn_in_progress: bool,
    /// Newer MASC writes both beside the flag: set exactly while a turn runs.
    #[serde(default, deserialize_with = "present_nullable")]
    live_turn_started_at_unix: Option<Option<f64>>,
    #[serde(default)]
    latest_ts_unix: Option<f64>,
    #[serde(default)]
    latest_age_s: Option<f64>,
    entries: Vec<EntryWire>,
}

/// One page of a Keeper's turn records, oldest first.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnRecordsPage {
    pub keeper: String,
    /// The `limit` this page was asked with (not on the wire; clamped as MASC clamps it):
    /// MASC reads at most this many of the newest rows.
    pub limit: u32,
    pub skipped_rows: u64,
    pub health: RecordsHealth,
    pub stale_reason: Option<String>,
    pub live_turn_in_progress: bool,
    pub latest_ts_unix: Option<f64>,
    pub latest_age_s: Option<f64>,
    pub records: Vec<TurnRecord>,
}

impl TurnRecordsPage {
    /// Decode the page asked for `keeper` with the default `limit` (50).
    pub fn decode_for(bytes: &[u8], keeper: &str) -> Result<Self, DecodeError> {
        Self::decode_with_limit(bytes, keeper, DEFAULT_LIMIT)
    }

    /// Decode the page asked for `keeper` with `limit` (the echo is checked first: a body
    /// naming another Keeper is an echo mismatch whatever its entries say).
    pub fn decode_with_limit(bytes: &[u8], keeper: &str, limit: u32) -> Result<Self, DecodeError> {
        if let Ok(top) = decode_object(bytes)
            && let Some(echo) = top.get("keeper").and_then(serde_json::Value::as_str)
            && echo != keeper
        {
            return Err(DecodeError::new(
                DecodeErrorKind::EchoMismatch,
                ".keeper",
                "keeper is not the requested keeper",
            ));
        }
        let w: PageWire = decode_json_object(bytes)?;
        if w.keeper != keeper {
            return Err(DecodeError::new(
                DecodeErrorKind::EchoMismatch,
                ".keeper",
                "keeper is not the requested keeper",
            ));
        }
        if w.count != w.entries.len() as u64 {
            return Err(DecodeError::new(
                DecodeErrorKind::CountMismatch,
                ".count",
                format!("count {} but {} entries", w.count, w.entries.len()),
            ));
        }
        if let Some(started) = w.live_turn_started_at_unix
            && started.is_some() != w.live_turn_in_progress
        {
            return Err(DecodeError::new(
                DecodeErrorKind::InvalidValue,
                ".live_turn_started_at_unix",
                "set exactly while a live turn is in progress",
            ));
        }
        if w.health == RecordsHealth::Live && !w.live_turn_in_progress {
            return Err(DecodeError::new(
                DecodeErrorKind::InvalidValue,
                ".health",
                "live without a turn in progress",
            ));
        }
        for (i, e) in w.entries.iter().enumerate() {
            let r = &e.record;
            if r.keeper != keeper {
                return Err(DecodeError::new(
                    DecodeErrorKind::IdentityMismatch,
                    format!(".entries[{i}].record.keeper"),
                    "record of another keeper",
                ));
            }
            if r.turn_ref != turn_ref_of(&r.trace_id, r.absolute_turn) {
                return Err(DecodeError::new(
                    DecodeErrorKind::IdentityMismatch,
                    format!(".entries[{i}].record.turn_ref"),
                    "turn_ref is not <trace_id>#<absolute_turn>",
                ));
            }
            check_record(r, &format!(".entries[{i}].record"))?;
        }
        Ok(Self {
            keeper: w.keeper,
            limit: clamp_limit(limit),
            skipped_rows: w.skipped_rows,
            health: w.health,
            stale_reason: w.stale_reason,
            live_turn_in_progress: w.live_turn_in_progress,
            latest_ts_unix: w.latest_ts_unix,
            latest_age_s: w.latest_age_s,
            records: w.entries.into_iter().map(|e| e.record).collect(),
        })
    }

    /// K-14: the record of exactly this turn, or `None` ("not on this page") — never another
    /// turn's record.
    pub fn record_of(&self, turn_ref: &str) -> Option<&TurnRecord> {
        self.records.iter().find(|r| r.turn_ref == turn_ref)
    }

    /// K-14 with the page's extent: the pinned turn's record, or why it is absent — the page
    /// was full (older rows may exist: a wider page may hold it), it was MASC's maximum (no
    /// wider page exists), or MASC returned fewer rows than asked (it holds no older row).
    pub fn lookup(&self, turn_ref: &str) -> PinnedLookup<'_> {
        if let Some(record) = self.record_of(turn_ref) {
            return PinnedLookup::Found(record);
        }
        // MASC reads the newest `limit` rows and refuses the ones it cannot decode: the rows
        // it read are the records plus the refused ones.
        let rows = self.records.len() as u64 + self.skipped_rows;
        if rows < u64::from(self.limit) {
            return PinnedLookup::AllRead { rows };
        }
        match wider_limit(self.limit) {
            Some(wider) => PinnedLookup::NotOnPage {
                read: self.limit,
                wider,
            },
            None => PinnedLookup::NotInMaximum { read: self.limit },
        }
    }

    /// The newest record (entries are oldest first).
    pub fn latest(&self) -> Option<&TurnRecord> {
        self.records.last()
    }

    /// The newest record that carries a per-component attribution, and how many turns it is
    /// behind the newest record (MASC's inspector: `newest_attributed`).
    pub fn latest_attributed(&self) -> Option<(&TurnRecord, u64)> {
        let latest = self.latest()?;
        self.records
            .iter()
            .rev()
            .find(|r| r.input_components.is_some())
            .map(|r| (r, latest.absolute_turn.saturating_sub(r.absolute_turn)))
    }
}

/// Where a pinned turn stands on a records page (K-14: never another turn's record).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PinnedLookup<'a> {
    /// Its own record.
    Found(&'a TurnRecord),
    /// Not among the newest `read` rows, and MASC may hold older ones: `wider` may have it.
    NotOnPage { read: u32, wider: u32 },
    /// Not among the newest `read` rows at MASC's maximum `limit`: no wider page exists.
    NotInMaximum { read: u32 },
    /// MASC returned fewer rows than asked (`rows`): it holds no older row to read.
    AllRead { rows: u64 },
}

/// `<trace_id>#<absolute_turn>` (MASC `Ids.Turn_ref.to_string`).
pub fn turn_ref_of(trace_id: &str, absolute_turn: u64) -> String {
    format!("{trace_id}#{absolute_turn}")
}

/// What the record writer guarantees beyond the types (MASC `Turn_record.to_json`): a named
/// agent, one request-wire observation (runtime and size set together), and each block and
/// input component once (a repeated one would be counted twice in the byte accounting).
fn check_record(r: &TurnRecord, at: &str) -> Result<(), DecodeError> {
    if r.agent_name.trim().is_empty() {
        return Err(DecodeError::new(
            DecodeErrorKind::InvalidValue,
            format!("{at}.agent_name"),
            "blank",
        ));
    }
    if let Some(profile) = &r.request_runtime_profile
        && profile.is_some() != r.request_body_bytes.is_some()
    {
        return Err(DecodeError::new(
            DecodeErrorKind::InvalidValue,
            format!("{at}.request_runtime_profile"),
            "the request wire's runtime and size are one observation",
        ));
    }
    let mut blocks = std::collections::BTreeSet::new();
    if let Some(b) = r.blocks.iter().find(|b| !blocks.insert(b.block.as_str())) {
        return Err(DecodeError::new(
            DecodeErrorKind::Other("duplicate_item"),
            format!("{at}.blocks"),
            format!("block {:?} twice", b.block),
        ));
    }
    let mut components = std::collections::BTreeSet::new();
    if let Some(c) = r
        .input_components
        .iter()
        .flatten()
        .find(|c| !components.insert(c.component.as_str()))
    {
        return Err(DecodeError::new(
            DecodeErrorKind::Other("duplicate_item"),
            format!("{at}.input_components"),
            format!("component {:?} twice", c.component),
        ));
    }
    Ok(())
}

#[cfg(test)]
#[path = "turn_records_tests.rs"]
mod tests;
