//! `masc-tui demo` — start the embedded workspace server on an ephemeral loopback port with
//! seeded data (in a temp dir unless `--data`), open the TUI on it, and stop both together.
//!
//! Without `--data` the whole demo is throwaway: the workspace, the session's state directory
//! (its outbox could only hold saves for that workspace) and the exit log inside the workspace
//! are removed at exit; the trace file stays.

use super::tui::{TuiOptions, init_tracing, write_exit_line};
use crate::protocol::client::{ClientConfig, TokenSource};
use crate::server::faults::FaultPlan;
use crate::server::{AuthMode, ServeOptions, start};
use anyhow::Context;
use std::path::PathBuf;

/// Arguments of this subcommand.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Workspace directory for the server's store (default: a temporary directory removed at
    /// exit). Reusing a directory keeps what you changed in the previous demo.
    #[arg(long = "data", value_name = "DIR")]
    pub data: Option<PathBuf>,
    /// Port for the embedded server (default: an ephemeral one).
    #[arg(long, default_value_t = 0)]
    pub port: u16,
    /// Fault plan for the embedded server (format: docs/fault-plans.md).
    #[arg(long, value_name = "FILE")]
    pub faults: Option<PathBuf>,
    /// Write stage traces (JSON lines) here (default: `$XDG_STATE_HOME/masc-tui/`).
    #[arg(long, value_name = "FILE")]
    pub trace_file: Option<PathBuf>,
    /// `/health` answers `state_ready:false` this many times first (shows the booting state).
    #[arg(long, default_value_t = 0)]
    pub boot_delay_reads: u32,
    /// Play an older MASC without workspace receipts (reads are admitted in health mode).
    #[arg(long)]
    pub legacy_no_receipts: bool,
    /// Play a whole older MASC release: its route set (newer and masc-tui extension routes
    /// answer MASC's unknown-route 404), its shapes, no receipts. Known: v0.24.0.
    #[arg(long, value_name = "RELEASE", value_parser = crate::server::compat::parse_release)]
    pub compat: Option<crate::server::compat::MascRelease>,
    /// Add a workspace at scale to the seed: 5,000 Keepers, 20,000 Tasks with their history
    /// (one with 10,000 events), a 100,000-message chat (Keeper `k-00001`). Once per data
    /// directory; the figures of docs/performance.md are measured on it.
    #[arg(long)]
    pub scale: bool,
    /// The TUI's state directory (outbox and its lock; one masc-tui at a time). Default: with
    /// `--data`, `$XDG_STATE_HOME/masc-tui` (else `~/.local/state/masc-tui`); without, a
    /// temporary one removed at exit.
    #[arg(long, env = "MASC_TUI_STATE_DIR", value_name = "DIR")]
    pub state_dir: Option<PathBuf>,
    /// When another masc-tui holds the state directory, look without saving instead of
    /// exiting 4 (no outbox opened, every write refused, a banner says so).
    #[arg(long)]
    pub read_only: bool,
    /// Export every read and save ticket as an OpenTelemetry span to this OTLP/HTTP collector
    /// (e.g. `http://localhost:4318`, Jaeger's or Tempo's receiver; docs/timeline.md). Off by
    /// default; an unreachable collector only drops spans and is reported once in the trace.
    #[arg(long, value_name = "URL")]
    pub otlp: Option<String>,
    #[command(flatten)]
    pub look: super::tui::Look,
}

/// Runs the subcommand; returns the process exit code.
pub fn run(args: Args) -> anyhow::Result<i32> {
    let state = match (&args.state_dir, &args.data) {
        (Some(dir), _) => super::state::claim_as(Some(dir), args.read_only)?,
        (None, Some(_)) => super::state::claim_as(None, args.read_only)?,
        (None, None) => super::state::claim_temporary()?,
    };
    let trace_file = super::state::ClaimedState::trace_file(
        args.trace_file.as_deref(),
        args.state_dir.as_deref(),
    );
    let trace = init_tracing(trace_file.as_deref(), args.otlp.as_deref())?;
    state.trace_unlocked();
    let faults = match &args.faults {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading fault plan {}", path.display()))?;
            FaultPlan::from_json(&text).with_context(|| format!("fault plan {}", path.display()))?
        }
        None => FaultPlan::none(),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("tokio runtime")?;
    let outbox = state.outbox.clone();
    let read_only = state.read_only.clone();
    let cause = runtime.block_on(async move {
        let server = start(ServeOptions {
            port: args.port,
            data_dir: args.data.clone(),
            faults,
            auth: AuthMode::GeneratedToken,
            boot_delay_reads: args.boot_delay_reads,
            legacy_no_receipts: args.legacy_no_receipts,
            compat: args.compat,
            scale: args
                .scale
                .then_some(crate::server::store::scale::Scale::STANDARD),
            ..ServeOptions::default()
        })
        .await
        .context("starting the embedded workspace server")?;
        tracing::info!(
            target: "masc_tui::demo",
            url = %server.base_url(),
            trace = %trace.path().display(),
            "embedded server started"
        );
        let mut cfg = ClientConfig::new(server.base_url());
        cfg.token = match server.token() {
            Some(token) => TokenSource::Fixed(token),
            None => TokenSource::None,
        };
        let base = PathBuf::from(server.base_path());
        let options = TuiOptions {
            look: args.look,
            expected_base_path: Some(base.clone()),
            fault_drills: false,
            outbox,
            read_only,
            start: super::tui::StartSurface::default(),
        };
        let outcome = super::tui::run_tui(cfg, options).await;
        // Before the server goes: a temporary workspace is removed with it, and the line must
        // not re-create the directory afterwards.
        if let Ok(cause) = &outcome {
            write_exit_line(Some(&base), cause);
        }
        server.shutdown().await;
        outcome
    })?;
    drop(state);
    Ok(super::tui::exit_code(&cause))
}
