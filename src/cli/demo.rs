//! `masc-tui demo` — start the embedded workspace server on an ephemeral loopback port with
//! seeded data (in a temp dir unless `--data`), open the TUI on it, and stop both together.
//!
//! Without `--data` the whole demo is throwaway: the workspace, the session's state directory
//! (its outbox could only hold saves for that workspace) and the exit log inside the workspace
//! are removed at exit; the trace file stays.
//!
//! `--workspaces N` starts N servers: the first with the ordinary seed (a Keeper in error,
//! pending approvals, held tool calls) and the demo's other options, the rest calm
//! (`server::store::calm`) on ephemeral ports. Their config file — one named workspace each,
//! its token in the token file the demo writes — is printed before the TUI opens on the
//! first, so another masc-tui (or `config check`) can open any of them while the demo runs.

use super::serve::{WrittenToken, write_token_file};
use super::tui::{TuiOptions, init_tracing, write_exit_line};
use crate::actors::fleet::{FleetName, WatchTarget};
use crate::protocol::client::{ClientConfig, TokenSource};
use crate::server::faults::FaultPlan;
use crate::server::{AuthMode, RunningServer, ServeOptions, start};
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
    /// Start this many workspaces (1-10), each its own embedded server: the first seeded with a
    /// Keeper in error and pending approvals (and the options above), the others calm, on
    /// ephemeral ports. Their config file is printed before the TUI opens on the first; with
    /// `--data DIR` each lives in `DIR/demo-<i>`.
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u8).range(1..=10))]
    pub workspaces: u8,
    #[command(flatten)]
    pub look: super::tui::Look,
}

/// The name of the demo's `i`-th workspace (1-based) in the printed config.
pub fn workspace_name(i: usize) -> String {
    format!("demo-{i}")
}

/// The colours of the printed config's workspaces: the one needing attention red, the calm
/// ones each their own.
const COLOURS: &[&str] = &[
    "red",
    "green",
    "blue",
    "magenta",
    "cyan",
    "yellow",
    "light-blue",
    "light-green",
    "light-magenta",
    "light-cyan",
];

/// One started workspace of a fleet demo.
struct Started {
    name: String,
    server: RunningServer,
    token_file: Option<WrittenToken>,
}

/// The config file of a fleet demo's workspaces (TOML, every string quoted as TOML quotes it).
fn fleet_config(started: &[Started]) -> String {
    use crate::protocol::runtime::form::toml_string;
    let mut text = format!(
        "# masc-tui demo --workspaces {n}: save as ~/.config/masc-tui/config.toml (or pass\n\
         # --config FILE) to open any of these from another terminal while this demo runs, e.g.\n\
         #   masc-tui --config FILE --workspace {last} --state-dir DIR\n\
         # (each masc-tui needs its own state directory). They stop when this demo quits.\n\
         [defaults]\nworkspace = {first}\n",
        n = started.len(),
        first = toml_string(&workspace_name(1)),
        last = workspace_name(started.len()),
    );
    for (i, ws) in started.iter().enumerate() {
        let what = if i == 0 {
            "a Keeper in error (juno), pending approvals, held tool calls"
        } else {
            "calm: nothing waits on an operator"
        };
        text.push_str(&format!(
            "\n# {}: {what}\n[workspaces.{}]\nurl = {}\n",
            ws.name,
            ws.name,
            toml_string(&ws.server.base_url())
        ));
        if let Some(token) = &ws.token_file {
            text.push_str(&format!(
                "token_file = {}\n",
                toml_string(&token.path.to_string_lossy())
            ));
        }
        text.push_str(&format!(
            "base_path = {}\ncolour = {}\n",
            toml_string(&ws.server.base_path()),
            toml_string(COLOURS[i % COLOURS.len()])
        ));
    }
    text
}

/// A fleet demo after its first server started: that server's token file, the calm
/// workspaces 2..=`count` (ephemeral ports; under `data/demo-<i>` with `--data`, each with its
/// token file), then their config printed — before the terminal is taken, so it stays in the
/// scrollback. What started is in `started` (the caller stops it all on an error).
async fn start_fleet(
    started: &mut Vec<Started>,
    count: usize,
    data: Option<&std::path::Path>,
) -> anyhow::Result<()> {
    if let Some(first) = started.first_mut()
        && let Some(token) = first.server.token()
    {
        first.token_file = Some(write_token_file(&first.server.base_path(), &token)?);
    }
    for i in 2..=count {
        let name = workspace_name(i);
        let server = start(ServeOptions {
            data_dir: data.map(|d| d.join(&name)),
            auth: AuthMode::GeneratedToken,
            calm: true,
            ..ServeOptions::default()
        })
        .await
        .with_context(|| format!("starting workspace {name}"))?;
        tracing::info!(
            target: "masc_tui::demo",
            workspace = %name,
            url = %server.base_url(),
            "calm workspace started"
        );
        let token = server.token();
        started.push(Started {
            name,
            server,
            token_file: None,
        });
        if let (Some(token), Some(ws)) = (token, started.last_mut()) {
            ws.token_file = Some(write_token_file(&ws.server.base_path(), &token)?);
        }
    }
    let mut out = super::out::stdout();
    super::out::text(&mut out, &fleet_config(started))?;
    std::io::Write::flush(&mut out)?;
    Ok(())
}

/// The background watch of one of the demo's workspaces (as its printed config names it).
fn watch_target((i, ws): (usize, &Started)) -> WatchTarget {
    let mut client = ClientConfig::new(ws.server.base_url());
    client.token = ws
        .server
        .token()
        .map_or(TokenSource::None, TokenSource::Fixed);
    WatchTarget {
        name: FleetName(ws.name.clone()),
        client,
        expected_base: Some(ws.server.base_path()),
        colour: COLOURS[i % COLOURS.len()].parse().ok(),
        refused: None,
    }
}

/// Stops every server and removes the token file each was given.
async fn stop_all(started: Vec<Started>) {
    for ws in started {
        ws.server.shutdown().await;
        if let Some(file) = ws.token_file {
            file.remove_if_unchanged();
        }
    }
}

/// Runs the subcommand; returns the process exit code.
pub fn run(args: Args) -> anyhow::Result<i32> {
    let fleet = usize::from(args.workspaces);
    if fleet > 1 && args.port != 0 {
        anyhow::bail!(
            "--port gives one server its port; with --workspaces {fleet} every server takes an \
             ephemeral one"
        );
    }
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
        let first_data = match (&args.data, fleet) {
            (Some(data), 2..) => Some(data.join(workspace_name(1))),
            (data, _) => data.clone(),
        };
        let server = start(ServeOptions {
            port: args.port,
            data_dir: first_data,
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
        let mut fleet_started = vec![Started {
            name: workspace_name(1),
            server,
            token_file: None,
        }];
        if fleet > 1 {
            let started = start_fleet(&mut fleet_started, fleet, args.data.as_deref()).await;
            if let Err(err) = started {
                stop_all(fleet_started).await;
                return Err(err);
            }
        }
        let watched = if fleet > 1 {
            fleet_started.iter().enumerate().map(watch_target).collect()
        } else {
            Vec::new()
        };
        let options = TuiOptions {
            look: args.look,
            expected_base_path: Some(base.clone()),
            fault_drills: false,
            outbox,
            read_only,
            start: super::tui::StartSurface::default(),
            active: (fleet > 1).then(|| FleetName(workspace_name(1))),
            fleet: watched,
        };
        let outcome = super::tui::run_tui(cfg, options).await;
        // Before the servers go: a temporary workspace is removed with its server, and the
        // line must not re-create the directory afterwards.
        if let Ok(cause) = &outcome {
            write_exit_line(Some(&base), cause);
        }
        stop_all(fleet_started).await;
        outcome
    })?;
    drop(state);
    Ok(super::tui::exit_code(&cause))
}
