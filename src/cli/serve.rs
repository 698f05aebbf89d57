//! `masc-tui serve` — run the embedded MASC-compatible workspace server on loopback.

use crate::server::faults::FaultPlan;
use crate::server::{AuthMode, ServeOptions, start};
use anyhow::Context;
use std::io::Write;
use std::net::IpAddr;
use std::path::PathBuf;

/// Arguments of this subcommand.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Loopback host to bind (non-loopback hosts are refused).
    #[arg(long, env = "MASC_HOST", default_value = "127.0.0.1")]
    pub host: IpAddr,
    /// Port to bind (0 = ephemeral).
    #[arg(long, env = "MASC_HTTP_PORT", default_value_t = 8935)]
    pub port: u16,
    /// Workspace directory holding `.masc/` and the store (default: a temporary directory).
    #[arg(long = "data", value_name = "DIR")]
    pub data: Option<PathBuf>,
    /// Fault plan JSON file (format: docs/fault-plans.md).
    #[arg(long, value_name = "FILE")]
    pub faults: Option<PathBuf>,
    /// Enable the loopback admin routes (`/__admin/faults`, `/__admin/requests`, …).
    #[arg(long)]
    pub test_mode: bool,
    /// Accept every request without a token.
    #[arg(long, conflicts_with = "token")]
    pub no_auth: bool,
    /// Bearer token to require (default: a generated one). Printed at start and written to
    /// `<data>/.masc/auth/masc-tui.token` (0600) for clients given that base path.
    #[arg(long)]
    pub token: Option<String>,
    /// `/health` answers `state_ready:false` this many times first.
    #[arg(long, default_value_t = 0)]
    pub boot_delay_reads: u32,
    /// Play an older MASC without workspace receipts (reads are admitted in health mode).
    #[arg(long)]
    pub legacy_no_receipts: bool,
    /// Play a whole older MASC release: its route set (newer and masc-tui extension routes
    /// answer MASC's unknown-route 404), its shapes, no receipts. Known: v0.24.0.
    #[arg(long, value_name = "RELEASE", value_parser = crate::server::compat::parse_release)]
    pub compat: Option<crate::server::compat::MascRelease>,
    /// Also answer requests whose `Host` is NAME (with the listening port); repeatable. By
    /// default only the listening address and `localhost` are answered (docs/security.md).
    #[arg(long = "allow-host", value_name = "NAME")]
    pub allow_host: Vec<String>,
    /// Add a workspace at scale to the seed: 5,000 Keepers, 20,000 Tasks with their history
    /// (one with 10,000 events), a 100,000-message chat (Keeper `k-00001`). Once per data
    /// directory; the figures of docs/performance.md are measured on it.
    #[arg(long)]
    pub scale: bool,
    /// Seed a calm workspace: no Keeper in error, no pending approval, no held tool call
    /// (the workspaces after the first of `demo --workspaces N`).
    #[arg(long)]
    pub calm: bool,
}

pub fn shell_word(s: &str) -> String {
    if s.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"/._-:".contains(&b))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// The line `serve` prints: `MASC_URL=… MASC_TOKEN=… MASC_BASE_PATH=…`, each value a shell
/// word. The token (`--token`) and the base path (`--data`) are the operator's, but a control
/// in either would reach the terminal: each value passes the one sanitiser first (a path
/// holding a control prints escaped, so it is shown, never obeyed).
pub fn serve_line(server: &crate::server::RunningServer) -> String {
    use crate::sanitize::sanitize;
    format!(
        "MASC_URL={} MASC_TOKEN={} MASC_BASE_PATH={}",
        server.base_url(),
        shell_word(&sanitize(&server.token().unwrap_or_default())),
        shell_word(&sanitize(&server.base_path())),
    )
}

/// Runs the subcommand; returns the process exit code.
pub fn run(args: Args) -> anyhow::Result<i32> {
    let _ = tracing_subscriber::fmt()
        .with_writer(|| super::out::SafeStderr)
        .with_ansi(false)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .try_init();
    let faults = match &args.faults {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading fault plan {}", path.display()))?;
            FaultPlan::from_json(&text)
                .with_context(|| format!("parsing fault plan {}", path.display()))?
        }
        None => FaultPlan::none(),
    };
    let auth = match (&args.token, args.no_auth) {
        (_, true) => AuthMode::NoAuth,
        (Some(t), false) => AuthMode::Token(t.clone()),
        (None, false) => AuthMode::GeneratedToken,
    };
    let opts = ServeOptions {
        host: args.host,
        port: args.port,
        data_dir: args.data.clone(),
        faults,
        test_mode: args.test_mode,
        auth,
        boot_delay_reads: args.boot_delay_reads,
        legacy_no_receipts: args.legacy_no_receipts,
        compat: args.compat,
        allowed_hosts: args.allow_host.clone(),
        scale: args
            .scale
            .then_some(crate::server::store::scale::Scale::STANDARD),
        calm: args.calm,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("building the tokio runtime")?;
    runtime.block_on(async move {
        let stop = stop_signal()?;
        let server = start(opts).await.context("starting the workspace server")?;
        let token_file = match server.token() {
            Some(token) => Some(write_token_file(&server.base_path(), &token)?),
            None => None,
        };
        let mut out = super::out::stdout();
        let printed = super::out::text(&mut out, &serve_line(&server)).and_then(|()| out.flush());
        drop(out);
        if let Err(err) = printed {
            // Nobody can learn the token from the line: the file must not outlive the server.
            server.shutdown().await;
            if let Some(file) = token_file {
                file.remove_if_unchanged();
            }
            return Err(err.into());
        }
        stop.await;
        tracing::info!("shutting down");
        server.shutdown().await;
        if let Some(file) = token_file {
            file.remove_if_unchanged();
        }
        Ok::<i32, anyhow::Error>(0)
    })
}

/// The token file `serve` wrote, removed at a clean stop: the token dies with the server.
#[derive(Debug)]
pub struct WrittenToken {
    pub path: PathBuf,
    token: String,
}

impl WrittenToken {
    /// Removes the file unless it no longer holds this server's token (another server on the
    /// same directory wrote its own since).
    pub fn remove_if_unchanged(self) {
        let ours = std::fs::read_to_string(&self.path)
            .is_ok_and(|text| text.trim_end_matches('\n') == self.token);
        if ours {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Writes `token` to the workspace's token file (`<base>/.masc/auth/masc-tui.token`, the file
/// the client reads when no token is given; §1.1) before the `MASC_TOKEN=…` line is printed: a
/// TUI or `doctor` pointed at the same base path then needs no copied secret. The file is
/// 0600 in a 0700 directory.
pub fn write_token_file(base: &str, token: &str) -> anyhow::Result<WrittenToken> {
    let path = crate::protocol::client::token_file(std::path::Path::new(base));
    if let Some(dir) = path.parent() {
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::DirBuilderExt;
            builder.mode(0o700);
        }
        builder
            .create(dir)
            .with_context(|| format!("creating {}", dir.display()))?;
    }
    let mut file = crate::private_file::open_private(&path, true)
        .with_context(|| format!("writing the token file {}", path.display()))?;
    writeln!(file, "{token}").with_context(|| format!("writing {}", path.display()))?;
    Ok(WrittenToken {
        path,
        token: token.to_string(),
    })
}

/// Installs the SIGINT/SIGTERM handlers at once and returns the future that waits for
/// either: the handlers must exist before the `MASC_URL=…` line is printed, so a script that
/// reads the line and signals at once gets a clean shutdown, not the default action.
fn stop_signal() -> anyhow::Result<impl std::future::Future<Output = ()>> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut term = signal(SignalKind::terminate()).context("installing SIGTERM handler")?;
        let mut int = signal(SignalKind::interrupt()).context("installing SIGINT handler")?;
        Ok(async move {
            tokio::select! {
                _ = int.recv() => {}
                _ = term.recv() => {}
            }
        })
    }
    #[cfg(not(unix))]
    {
        Ok(async {
            let _ = tokio::signal::ctrl_c().await;
        })
    }
}
