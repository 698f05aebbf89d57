//! `masc-tui doctor` — check a live MASC server endpoint by endpoint against the client's
//! contract, without writing anything, so an operator learns what this MASC serves before
//! relying on it.
//!
//! Only GETs are sent: `/health` (reachability, identity, base path, admission mode), then
//! every read route the TUI uses, each with the client's token (and once without, to show the
//! route's auth class as the server enforces it), the expected root of the served workspace,
//! and — when the answer carries an ETag — once more with `If-None-Match` (304 behaviour). Each
//! route is judged with the client's own decoders: served and decodes, served and fails to
//! decode (with the JSON path of the first failure), not served by this MASC (MASC's
//! unknown-route 404, `protocol::routes::classify_404`), a 404 naming a missing object, warming,
//! or failed (timeout, status, receipt). Routes that need an id from an earlier read (a Keeper,
//! a Task, a post, a connector) use the first one listed.
//!
//! Exit: 0 every served route decodes; 1 some route fails (or the identity is not a match);
//! 2 the server is unreachable (or `/health` does not decode) or refuses the credentials.
//!
//! Everything printed that the server controls is sanitised: each string of the report when it
//! is built (`crate::sanitize::sanitize`, T.7 plus bidi controls), and the output once more on
//! the way out through the CLI's one writer (`cli::out::text` / `cli::out::json`).
//!
//! Files: this one reads the arguments, `/health` and the identity verdict and drives the probe;
//! `report` holds the report's types and its exit-code rule; `probe` sends the GETs of every route
//! and judges each answer; `render` writes the human report.

mod probe;
mod render;
mod report;
#[cfg(test)]
mod tests;

pub use render::render_text;
pub use report::{
    DecodeFailure, HealthReport, IdentityReport, Report, RouteReport, RouteResult, Summary,
};

use crate::protocol::admission::{AdmissionMode, ReadAuthority, ReadScope, WorkspaceId};
use crate::protocol::client::{ClientConfig, ProbeCredentials, TokenSource, WorkspaceClient};
use crate::protocol::decode::WireDecode;
use crate::protocol::health::{CommitField, Health, IdentityVerdict, judge_identity};
use anyhow::Context;
use probe::Prober;
use report::{clean, ms};
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

/// Arguments of this subcommand.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Check this named workspace of the config file (its url, token source and base path;
    /// `--url`, `--token` and `--base-path` given as flags still win).
    #[arg(long, value_name = "NAME")]
    pub workspace: Option<String>,
    /// The config file `--workspace` reads (default `$XDG_CONFIG_HOME/masc-tui/config.toml`,
    /// else `~/.config/masc-tui/config.toml`).
    #[arg(long, env = "MASC_TUI_CONFIG", value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Server URL; default `http://$MASC_HOST:$MASC_HTTP_PORT` (127.0.0.1:8935).
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// Bearer token. Without it: `MASC_TOKEN`, then `<base>/.masc/auth/masc-tui.token`.
    #[arg(long, value_name = "TOKEN")]
    pub token: Option<String>,
    /// The workspace base path you expect the server to serve (compared with `/health`).
    #[arg(long, env = "MASC_BASE_PATH", value_name = "DIR")]
    pub base_path: Option<PathBuf>,
    /// Print the report as one JSON document.
    #[arg(long)]
    pub json: bool,
    /// Per-request timeout in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 10.0)]
    pub timeout: f64,
    /// Which arguments came from the command line and which from the environment (filled by
    /// `command::parse`): a named workspace's base path is not replaced by `MASC_BASE_PATH`.
    #[arg(skip)]
    pub origins: crate::cli::config::Origins,
}

/// What `diagnose` needs.
#[derive(Debug, Clone)]
pub struct DoctorConfig {
    pub base_url: String,
    pub token: TokenSource,
    /// `None`: the served base is accepted (and reported).
    pub expected_base: Option<String>,
    pub timeout: Duration,
}

/// Runs the subcommand; returns the process exit code.
pub fn run(args: Args) -> anyhow::Result<i32> {
    if let Some(name) = &args.workspace {
        return run_named(&args, name);
    }
    let base_url = match &args.url {
        Some(url) => url.trim_end_matches('/').to_string(),
        None => {
            let host = std::env::var("MASC_HOST").unwrap_or_else(|_| "127.0.0.1".into());
            let port = std::env::var("MASC_HTTP_PORT").unwrap_or_else(|_| "8935".into());
            format!("http://{host}:{port}")
        }
    };
    let token = match &args.token {
        Some(t) => TokenSource::Fixed(t.clone()),
        None => TokenSource::EnvThenFile {
            base_path: match &args.base_path {
                Some(p) => p.clone(),
                None => std::env::current_dir().context("current directory")?,
            },
        },
    };
    let config = DoctorConfig {
        base_url,
        token,
        expected_base: args
            .base_path
            .as_ref()
            .map(|p| p.to_string_lossy().into_owned()),
        timeout: timeout_of(&args)?,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("tokio runtime")?;
    let report = runtime.block_on(diagnose(config));
    print_report(&args, &report)
}

fn timeout_of(args: &Args) -> anyhow::Result<Duration> {
    if !(args.timeout.is_finite() && args.timeout > 0.0) {
        anyhow::bail!("--timeout must be a positive number of seconds");
    }
    Ok(Duration::from_secs_f64(args.timeout))
}

/// `doctor --workspace NAME`: the named workspace's url, token source and base path (flags
/// win; `MASC_BASE_PATH` does not replace its base path); its token source must give a token
/// (a token file owner-only) before anything is sent — a refusal exits 2.
fn run_named(args: &Args, name: &str) -> anyhow::Result<i32> {
    use crate::cli::config::{ConfigLocation, probe_token, token_source_of};
    let location = match &args.config {
        Some(path) => ConfigLocation::Given(path.clone()),
        None => ConfigLocation::standard()?,
    };
    let entry = location.named(name, "flag --workspace")?;
    let token = match &args.token {
        Some(t) => TokenSource::Fixed(t.clone()),
        None => entry
            .token
            .as_ref()
            .map_or(TokenSource::None, |spec| token_source_of(&spec.value)),
    };
    let base_flag = args
        .base_path
        .clone()
        .filter(|_| !args.origins.from_env("base_path"));
    let config = DoctorConfig {
        base_url: args.url.as_ref().map_or_else(
            || entry.url.value.clone(),
            |u| u.trim_end_matches('/').to_string(),
        ),
        token,
        expected_base: base_flag
            .or_else(|| entry.base_path.as_ref().map(|b| b.value.clone()))
            .map(|p| p.to_string_lossy().into_owned()),
        timeout: timeout_of(args)?,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("tokio runtime")?;
    let report = runtime.block_on(async {
        probe_token(name, &config.token).await?;
        Ok::<_, crate::cli::config::ConfigError>(diagnose(config).await)
    })?;
    print_report(args, &report)
}

fn print_report(args: &Args, report: &Report) -> anyhow::Result<i32> {
    // Through the CLI's one output path (nothing raw reaches the terminal): server strings are
    // already cleaned, and
    // anything else (the URL given, a detail built from an error) is escaped here.
    let mut out = super::out::stdout();
    if args.json {
        super::out::json(&mut out, report).context("writing the report")?;
    } else {
        super::out::text(&mut out, &render_text(report)).context("writing the report")?;
    }
    out.flush()?;
    Ok(report.exit_code)
}

/// Probe the server and judge every route.
pub async fn diagnose(config: DoctorConfig) -> Report {
    let mut client_config = ClientConfig::new(config.base_url.clone());
    client_config.token = config.token.clone();
    client_config.request_timeout = config.timeout;
    client_config.connect_timeout = config.timeout.min(Duration::from_secs(3));
    let mut report = Report {
        url: clean(&config.base_url),
        health: HealthReport {
            reachable: false,
            status: None,
            latency_ms: None,
            error: None,
            server: None,
            version: None,
            commit: None,
            commit_field: None,
            base_path: None,
            masc_root: None,
            startup: None,
        },
        identity: None,
        admission: None,
        release: String::new(),
        routes: Vec::new(),
        summary: Summary::default(),
        exit_code: 2,
    };
    let client = match WorkspaceClient::new(client_config) {
        Ok(c) => c,
        Err(e) => {
            report.health.error = Some(clean(&e.to_string()));
            return report.finish();
        }
    };
    let Some(health) = read_health(&client, &mut report.health).await else {
        return report.finish();
    };
    report.release = release_words(&report.health);
    let verdict = judge_identity(config.expected_base.as_deref(), &health);
    report.identity = Some(identity_report(&verdict, config.expected_base.as_deref()));
    let mode = health.admission_mode();
    report.admission = Some(match mode {
        AdmissionMode::Receipt => "receipts",
        AdmissionMode::Health => "health",
    });
    // The doctor reads the served workspace whatever the verdict (it is a diagnosis), with
    // the served root as the expected root.
    let root = health.paths.effective_masc_root.clone();
    let auth = ReadAuthority {
        scope: ReadScope {
            workspace: WorkspaceId(root.clone()),
            epoch: 0,
        },
        expected_root: root,
        mode,
    };
    report.routes = Prober::new(client, auth).all_routes().await;
    report.finish()
}

/// The release `/health` names: the tags and snapshots masc-tui knows by their commit (and the
/// embedded server's profiles by their labels); any other version is judged route by route.
fn release_words(h: &HealthReport) -> String {
    let commit = h.commit.as_deref().unwrap_or_default();
    match h.version.as_deref() {
        _ if commit == "masc-tui-embedded" => {
            "the embedded server (current protocol: every route, extensions included)".into()
        }
        Some("0.24.0") if commit.starts_with("e2bb55f7") => {
            "MASC v0.24.0 (tag 2026-08-22): the August route set and shapes".into()
        }
        Some("0.24.0") if commit.starts_with("d541eb07") => {
            "MASC main of 2026-08-23 (Aug): the August route set and shapes".into()
        }
        Some(v) if v.contains("+newer") => {
            "newer MASC (the embedded server's newer profile): newer chat store, /up, /chat/events"
                .into()
        }
        Some(v) if ["0.22.", "0.23.", "0.24."].iter().any(|p| v.starts_with(p)) => {
            format!("an August MASC release ({v}): judged route by route below")
        }
        Some(v) => format!("MASC {v}: judged route by route below"),
        None => "unknown (no version): judged route by route below".into(),
    }
}

async fn read_health(client: &WorkspaceClient, out: &mut HealthReport) -> Option<Health> {
    let resp = match client
        .probe_get("/health", None, None, ProbeCredentials::Token)
        .await
    {
        Ok(r) => r,
        Err(e) => {
            out.error = Some(clean(&e.to_string()));
            return None;
        }
    };
    out.status = Some(resp.status);
    out.latency_ms = Some(ms(resp.elapsed));
    if !(200..300).contains(&resp.status) {
        out.error = Some(format!("/health answered HTTP {}", resp.status));
        return None;
    }
    let health = match Health::decode(&resp.body) {
        Ok(h) => h,
        Err(e) => {
            out.error = Some(clean(&format!("/health does not decode: {e}")));
            return None;
        }
    };
    out.reachable = true;
    out.server = health.server.as_deref().map(clean);
    out.version = health.version.as_deref().map(clean);
    if let Some((commit, field)) = health.build.as_ref().and_then(|b| b.commit()) {
        out.commit = Some(clean(commit));
        out.commit_field = Some(match field {
            CommitField::Commit => "build.commit",
            CommitField::BinaryCommit => "build.binary_commit",
        });
    }
    out.base_path = Some(clean(&health.paths.effective_base_path));
    out.masc_root = Some(clean(&health.paths.effective_masc_root));
    out.startup = Some(match &health.startup {
        None => "no startup block (older server)".to_string(),
        Some(s) if s.state_ready => "ready".to_string(),
        Some(_) => "booting (state_ready false)".to_string(),
    });
    Some(health)
}

fn identity_report(verdict: &IdentityVerdict, expected: Option<&str>) -> IdentityReport {
    let (name, detail) = match verdict {
        IdentityVerdict::Match { base_path, .. } => (
            "match",
            match expected {
                Some(_) => format!("serves {} as expected", clean(base_path)),
                None => format!(
                    "serves {} (no --base-path / MASC_BASE_PATH given: accepted as served)",
                    clean(base_path)
                ),
            },
        ),
        IdentityVerdict::Mismatch { expected, served } => (
            "mismatch",
            format!(
                "expected {} but the server serves {}",
                clean(expected),
                clean(served)
            ),
        ),
        IdentityVerdict::Booting => (
            "booting",
            "state_ready is false: stores are replaying; reads may answer warming".to_string(),
        ),
        IdentityVerdict::Unread { reason } => ("unread", clean(reason)),
    };
    IdentityReport {
        verdict: name,
        expected_base: expected.map(clean),
        detail,
    }
}
