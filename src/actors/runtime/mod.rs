//! The Runtime surface's sources and types (protocol.md §9.1–§9.4; sources.md F-1…F-7,
//! I-1…I-5, J-1…J-5):
//!
//! - [`catalogue`]: the Runtime catalogue source — one shared slot filled by a joined load (the
//!   catalogue, whose catalogue and usage sections decode independently, F-3, F-4, and the
//!   provider reachability probe, F-7); an explicit demand coalesces into one follow-up (F-2).
//! - [`config`]: the raw `runtime.toml` the forms open on (§9.2), read on demand only.
//! - [`form`], [`raw`]: the model/account form save and the raw config save (§9.3, §9.4), both
//!   through the server's preview first ([`save`]).

pub mod catalogue;
pub mod config;
pub mod form;
pub mod raw;
pub mod save;

pub use catalogue::{
    LoadOutcome, LoadPart, PartOutcome, RUNTIME_PROBE_PATH, RUNTIME_RESOLVED_PATH,
    RuntimeCatalogueSpawner, RuntimeLoad,
};
pub use config::{RUNTIME_CONFIG_RAW_PATH, RuntimeConfigSpawner};

use crate::actors::contract::{Payload, ReadResult, SlotKey, SourceKey, read_outcome};
use crate::actors::saves::{SAVES, SaveEvent, SaveId, SaveKind};
use crate::protocol::runtime::RuntimeConfigRaw;
use form::RuntimeForm;
use raw::RuntimeRaw;

/// The Runtime catalogue source (supervision key).
pub const RUNTIME: SourceKey = SourceKey("runtime_catalogue");
/// The raw runtime config source (supervision key): read on demand only.
pub const RUNTIME_CONFIG: SourceKey = SourceKey("runtime_config");

/// The slots of the Runtime surface.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RuntimeSlot {
    /// `GET /api/v1/runtime/resolved` (§9.1) joined with `GET /api/v1/dashboard/runtime-probe`:
    /// the shared Runtime catalogue, usage and reachability (F).
    Catalogue,
    /// `GET /api/v1/runtime/config/raw` (§9.2): the source the forms open on.
    Config,
    /// One model/account form save (§9.3, §9.4): its own slot per save.
    Form(SaveId),
    /// One raw config save (`runtime.toml` from `$EDITOR`, §9.3, §9.4): its own slot per save.
    Raw(SaveId),
}

impl SlotKey for RuntimeSlot {
    fn trace_name(&self) -> String {
        match self {
            Self::Catalogue => "runtime_catalogue".to_string(),
            Self::Config => "runtime_config".to_string(),
            Self::Form(_) => format!("save:{}", RuntimeForm::KIND),
            Self::Raw(_) => format!("save:{}", RuntimeRaw::KIND),
        }
    }

    fn source(&self) -> SourceKey {
        match self {
            Self::Catalogue => RUNTIME,
            Self::Config => RUNTIME_CONFIG,
            Self::Form(_) | Self::Raw(_) => SAVES,
        }
    }
}

/// What the Runtime sources observe, one variant per slot kind.
#[derive(Debug, Clone)]
pub enum RuntimeObservation {
    /// One joined load: catalogue + usage + probe (F-7, P-1).
    Catalogue(Box<RuntimeLoad>),
    Config(ReadResult<RuntimeConfigRaw>),
    /// A step or the receipt of a model/account form save.
    Form(Box<SaveEvent<RuntimeForm>>),
    /// A step or the receipt of a raw config save.
    Raw(Box<SaveEvent<RuntimeRaw>>),
}

impl Payload for RuntimeObservation {
    fn outcome(&self) -> String {
        match self {
            Self::Catalogue(load) => load.trace_outcome(),
            Self::Config(r) => read_outcome(r),
            Self::Form(e) => e.step.trace_outcome(),
            Self::Raw(e) => e.step.trace_outcome(),
        }
    }
}
