//! The parsed form of one stage event, shared by the file layer, the in-memory recorder and the
//! report; and the field visitor that turns a tracing event into JSON.

use serde::{Deserialize, Serialize};
use std::sync::OnceLock;
use std::time::Instant;

/// One stage event. `generation`/`epoch`/`workspace` are absent for per-source events (restart, refused).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StageRecord {
    /// Microseconds since the process-wide trace origin ([`trace_origin`]); monotonic.
    pub ts_us: u64,
    /// The process that wrote the record; latencies are only computed within one pid.
    #[serde(default)]
    pub pid: Option<u32>,
    pub stage: String,
    pub source: String,
    #[serde(default)]
    pub generation: Option<u64>,
    #[serde(default)]
    pub epoch: Option<u64>,
    /// The digest of the workspace the ticket was scoped to ([`super::stage::workspace_digest`]);
    /// absent for per-source events and for traces written before it was recorded.
    #[serde(default)]
    pub workspace: Option<String>,
    #[serde(default)]
    pub reason: Option<String>,
    #[serde(default)]
    pub outcome: Option<String>,
}

impl StageRecord {
    /// Builds a record from the JSON fields of a stage event; `None` without `stage`/`source`.
    pub fn from_fields(
        ts_us: u64,
        pid: Option<u32>,
        fields: &serde_json::Map<String, serde_json::Value>,
    ) -> Option<Self> {
        let text = |k: &str| fields.get(k).and_then(|v| v.as_str()).map(str::to_string);
        let number = |k: &str| fields.get(k).and_then(serde_json::Value::as_u64);
        Some(Self {
            ts_us,
            pid,
            stage: text("stage")?,
            source: text("source")?,
            generation: number("generation"),
            epoch: number("epoch"),
            workspace: text("workspace"),
            reason: text("reason"),
            outcome: text("outcome"),
        })
    }
}

impl StageRecord {
    /// Builds a record straight from a stage event's fields, without JSON in between (the
    /// export path runs on every stage event).
    pub fn from_event(event: &tracing::Event<'_>, ts_us: u64, pid: Option<u32>) -> Option<Self> {
        let mut fields = StageFields::default();
        event.record(&mut fields);
        Some(Self {
            ts_us,
            pid,
            stage: fields.stage?,
            source: fields.source?,
            generation: fields.generation,
            epoch: fields.epoch,
            workspace: fields.workspace,
            reason: fields.reason,
            outcome: fields.outcome,
        })
    }
}

/// The fields of a stage event, as [`StageRecord::from_event`] collects them.
#[derive(Default)]
struct StageFields {
    stage: Option<String>,
    source: Option<String>,
    generation: Option<u64>,
    epoch: Option<u64>,
    workspace: Option<String>,
    reason: Option<String>,
    outcome: Option<String>,
}

impl StageFields {
    fn text(&mut self, name: &str, value: String) {
        let slot = match name {
            "stage" => &mut self.stage,
            "source" => &mut self.source,
            "workspace" => &mut self.workspace,
            "reason" => &mut self.reason,
            "outcome" => &mut self.outcome,
            _ => return,
        };
        *slot = Some(value);
    }
}

impl tracing::field::Visit for StageFields {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        // `source = %key` arrives here: Display through Debug.
        self.text(field.name(), format!("{value:?}"));
    }
    fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
        self.text(field.name(), value.to_string());
    }
    fn record_u64(&mut self, field: &tracing::field::Field, value: u64) {
        match field.name() {
            "generation" => self.generation = Some(value),
            "epoch" => self.epoch = Some(value),
            _ => {}
        }
    }
}

/// The one process-wide origin of `ts_us`; fixed the first time anything asks for it.
pub fn trace_origin() -> Instant {
    static ORIGIN: OnceLock<Instant> = OnceLock::new();
    *ORIGIN.get_or_init(Instant::now)
}

/// Microseconds since [`trace_origin`].
pub fn now_us() -> u64 {
    u64::try_from(trace_origin().elapsed().as_micros()).unwrap_or(u64::MAX)
}

/// Collects an event's fields as JSON values (`message` included).
#[derive(Default)]
pub struct JsonFields(pub serde_json::Map<String, serde_json::Value>);

impl tracing::field::Visit for JsonFields {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        self.0
            .insert(field.name().to_string(), format!("{value:?}").into());
    }
    fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
        self.0.insert(field.name().to_string(), value.into());
    }
    fn record_u64(&mut self, field: &tracing::field::Field, value: u64) {
        self.0.insert(field.name().to_string(), value.into());
    }
    fn record_i64(&mut self, field: &tracing::field::Field, value: i64) {
        self.0.insert(field.name().to_string(), value.into());
    }
    fn record_bool(&mut self, field: &tracing::field::Field, value: bool) {
        self.0.insert(field.name().to_string(), value.into());
    }
    fn record_f64(&mut self, field: &tracing::field::Field, value: f64) {
        self.0.insert(field.name().to_string(), value.into());
    }
}
