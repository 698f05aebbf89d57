//! Stage tracing and the timeline report (architecture.md §3 stage events).
//!
//! - [`stage`]: one emitter per stage; every actor and the view emit through these so the
//!   fields are always the same (`stage`, `source`, `generation`, `epoch`, `reason`/`outcome`).
//! - [`layer`]: the tracing `Layer` writing one JSON object per event to the trace file.
//! - `capture`: an in-memory recorder of stage events for tests (unit tests and the
//!   `test-support` feature only; not in the shipped binary).
//! - [`report`]: `masc-tui timeline FILE` — per-source counts and latencies.
//! - [`trace_lines`]: the one reader of trace files; [`tickets`]: stage events folded into one
//!   interval per ticket, which [`chrome`] writes as a Chrome trace (Perfetto) and [`svg`] draws
//!   as a swimlane picture.
//! - [`otlp`]: `--otlp URL`, every ticket an OpenTelemetry span sent to a collector.
//! - [`live`]: the same stage events aggregated per source while the TUI runs (the System
//!   `sources` pane).
//!
//! Stage events are evidence of *reading*, never of Task progress or paint (G-1), and carry no
//! body text, paths or declarations (G-10).

#[cfg(any(test, feature = "test-support"))]
pub mod capture;
pub mod chrome;
pub mod layer;
pub mod live;
pub mod otlp;
pub mod record;
pub mod report;
pub mod stage;
pub mod svg;
pub mod tickets;
pub mod trace_lines;

pub use layer::{
    LiveAggregation, TraceGuard, TracingInitError, default_trace_path, init_tracing,
    init_tracing_with,
};
pub use record::StageRecord;
