//! The trace file: one JSON object per line (architecture.md §3).
//!
//! Line kinds:
//! - `{"kind":"process","pid":…,"ts_us":0,"started_unix_ms":…}` first, once per process;
//! - stage events (target `masc_tui::stage`): `ts_us`, `pid`, `stage`, `source`, `generation`,
//!   `epoch`, and `reason` / `outcome` / `attempt` where they apply;
//! - other events at INFO and above: `ts_us`, `pid`, `level`, `target`, `message`, `fields`.
//!
//! `ts_us` is monotonic, measured from one process-wide `Instant` ([`super::record::trace_origin`]).

use super::record::{JsonFields, now_us, trace_origin};
use super::stage::TARGET;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use tracing_subscriber::Layer;
use tracing_subscriber::filter::LevelFilter;
use tracing_subscriber::layer::{Context, SubscriberExt};

#[derive(Debug, thiserror::Error)]
pub enum TracingInitError {
    #[error("no state directory: neither XDG_STATE_HOME nor HOME is set")]
    NoStateDir,
    #[error("cannot open the trace file: {0}")]
    Open(#[from] std::io::Error),
    #[error("a global tracing subscriber is already installed")]
    AlreadyInstalled,
    #[error(transparent)]
    Otlp(#[from] super::otlp::OtlpError),
}

/// `$XDG_STATE_HOME/masc-tui/trace-<pid>.jsonl`, else `~/.local/state/masc-tui/trace-<pid>.jsonl`.
pub fn default_trace_path() -> Result<PathBuf, TracingInitError> {
    let file = format!("trace-{}.jsonl", std::process::id());
    if let Some(state) = std::env::var_os("XDG_STATE_HOME").filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(state).join("masc-tui").join(file));
    }
    let home = std::env::var_os("HOME")
        .filter(|v| !v.is_empty())
        .ok_or(TracingInitError::NoStateDir)?;
    Ok(PathBuf::from(home).join(".local/state/masc-tui").join(file))
}

/// Writes every stage event (and other INFO+ events) as JSON lines to one file.
#[derive(Clone)]
pub struct TimelineLayer {
    out: Arc<Mutex<File>>,
    pid: u32,
}

impl TimelineLayer {
    /// Creates (truncating) `path` and its parent directories, and writes the process line.
    pub fn create(path: &Path) -> Result<Self, std::io::Error> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)?;
        }
        // Traces name server objects and errors: owner-only (0600), like the stores.
        let mut file = crate::private_file::open_private(path, true)?;
        let origin = trace_origin();
        let started_unix_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis())
            .unwrap_or(0);
        let pid = std::process::id();
        let header = serde_json::json!({
            "kind": "process",
            "pid": pid,
            "ts_us": u64::try_from(origin.elapsed().as_micros()).unwrap_or(u64::MAX),
            "started_unix_ms": u64::try_from(started_unix_ms).unwrap_or(u64::MAX),
        });
        writeln!(file, "{header}")?;
        Ok(Self {
            out: Arc::new(Mutex::new(file)),
            pid,
        })
    }

    fn write_line(&self, value: &serde_json::Value) {
        let mut line = value.to_string();
        line.push('\n');
        if let Ok(mut out) = self.out.lock() {
            // A full line per write keeps lines whole; a failed write cannot be reported
            // anywhere better than the trace itself, so it is dropped.
            let _ = out.write_all(line.as_bytes());
        }
    }
}

impl<S: tracing::Subscriber> Layer<S> for TimelineLayer {
    fn on_event(&self, event: &tracing::Event<'_>, _ctx: Context<'_, S>) {
        let meta = event.metadata();
        let mut fields = JsonFields::default();
        event.record(&mut fields);
        let mut line = serde_json::Map::new();
        line.insert("ts_us".into(), now_us().into());
        line.insert("pid".into(), self.pid.into());
        if meta.target() == TARGET {
            line.extend(fields.0);
        } else {
            line.insert("level".into(), meta.level().as_str().into());
            line.insert("target".into(), meta.target().into());
            let message = fields.0.remove("message").unwrap_or_default();
            line.insert("message".into(), message);
            if !fields.0.is_empty() {
                line.insert("fields".into(), serde_json::Value::Object(fields.0));
            }
        }
        self.write_line(&serde_json::Value::Object(line));
    }
}

/// Keeps the trace file's path (the file stays open for the process's life) and the OTLP
/// export, which is flushed and stopped when the guard is dropped.
pub struct TraceGuard {
    path: PathBuf,
    otlp: Option<super::otlp::OtlpExport>,
}

impl std::fmt::Debug for TraceGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TraceGuard")
            .field("path", &self.path)
            .field("otlp", &self.otlp.is_some())
            .finish()
    }
}

impl TraceGuard {
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Installs the global subscriber writing to `path` (or [`default_trace_path`]) and, with an
/// `otlp` URL, exporting every ticket as a span to that collector ([`super::otlp`]); the live
/// Sources view's aggregation ([`super::live`]) always.
pub fn init_tracing(
    path: Option<PathBuf>,
    otlp: Option<&str>,
) -> Result<TraceGuard, TracingInitError> {
    init_tracing_with(path, otlp, LiveAggregation::On)
}

/// Whether the live Sources view's aggregation runs in the subscriber.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LiveAggregation {
    On,
    /// Only to measure what it costs (`benches/key_to_paint.rs`): the Sources view then shows
    /// no source.
    Off,
}

/// [`init_tracing`], choosing whether the live aggregation runs.
pub fn init_tracing_with(
    path: Option<PathBuf>,
    otlp: Option<&str>,
    live: LiveAggregation,
) -> Result<TraceGuard, TracingInitError> {
    let path = match path {
        Some(p) => p,
        None => default_trace_path()?,
    };
    let layer = TimelineLayer::create(&path)?;
    let (otlp_layer, otlp) = match otlp {
        Some(url) => {
            let (layer, export) = super::otlp::start(url, super::otlp::trace_file_reporter())?;
            (Some(layer), Some(export))
        }
        None => (None, None),
    };
    // Stage events only reach the export: every other callsite stays disabled for it, so
    // debug events cost nothing more than they did without `--otlp`.
    let otlp_layer = otlp_layer.map(|l| {
        l.with_filter(tracing_subscriber::filter::filter_fn(|meta| {
            meta.target() == TARGET
        }))
    });
    // The live Sources view's aggregation takes stage events only, like the export.
    let live_layer = (live == LiveAggregation::On).then(|| {
        super::live::layer().with_filter(tracing_subscriber::filter::filter_fn(|meta| {
            meta.target() == TARGET
        }))
    });
    let subscriber = tracing_subscriber::registry()
        .with(layer.with_filter(LevelFilter::INFO))
        .with(otlp_layer)
        .with(live_layer);
    tracing::subscriber::set_global_default(subscriber)
        .map_err(|_| TracingInitError::AlreadyInstalled)?;
    Ok(TraceGuard { path, otlp })
}

/// A subscriber writing to `layer`, for tests (`tracing::subscriber::set_default`; feature
/// `test-support`).
#[cfg(feature = "test-support")]
pub fn file_subscriber(layer: TimelineLayer) -> impl tracing::Subscriber + Send + Sync + 'static {
    tracing_subscriber::registry().with(layer.with_filter(LevelFilter::INFO))
}
