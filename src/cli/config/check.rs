//! `masc-tui config check`: validate the config file and print what a session started with the
//! same flags would resolve — each value with where it came from, tokens masked (their length
//! and a short SHA-256 fingerprint, to compare with a known token without showing it) — then
//! every configured workspace with whether its token source gives a token.
//!
//! Exit: 0 everything resolves; 1 some workspace's token source fails (a token file others may
//! read, a variable not set, a command that fails); 2 the file itself is unusable (malformed,
//! unknown workspace, a token written in a file others may read).

use super::origin::{Origin, Origins, Sourced};
use super::resolve::{Resolved, probe_token, resolve};
use super::{ConfigError, token_source_of};
use crate::cli::tui;
use crate::protocol::client::TokenSource;
use anyhow::Context as _;
use sha2::Digest as _;
use std::fmt::Write as _;

/// `masc-tui config …`.
#[derive(Debug, Clone, clap::Args)]
pub struct ConfigArgs {
    #[command(subcommand)]
    pub command: ConfigCommand,
}

impl ConfigArgs {
    /// Records which session arguments came from the command line or the environment.
    pub fn set_origins(&mut self, origins: Origins) {
        match &mut self.command {
            ConfigCommand::Check(check) => check.session.origins = origins,
        }
    }
}

#[derive(Debug, Clone, clap::Subcommand)]
pub enum ConfigCommand {
    /// Validate the config file and print what a session with these flags would resolve
    /// (tokens masked, where each value came from); exit 0 clean, 1 a workspace's token source
    /// fails, 2 the file is unusable.
    Check(CheckArgs),
}

/// The session's own flags, so the check resolves exactly what that session would.
#[derive(Debug, Clone, clap::Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub session: tui::Args,
}

/// One workspace's token, probed.
enum TokenProbe {
    Found(String),
    NoneConfigured,
    Failed(ConfigError),
}

/// Runs the subcommand; returns the process exit code.
pub fn run(args: ConfigArgs) -> anyhow::Result<i32> {
    let ConfigCommand::Check(check) = args.command;
    let resolved = resolve(&check.session)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("tokio runtime")?;
    let (report, findings) = runtime.block_on(render(&resolved));
    crate::cli::out::text(&mut crate::cli::out::stdout(), &report)?;
    Ok(if findings == 0 { 0 } else { 1 })
}

async fn probe(workspace: &str, source: &TokenSource) -> TokenProbe {
    match probe_token(workspace, source).await {
        Ok(Some(token)) => TokenProbe::Found(token),
        Ok(None) => TokenProbe::NoneConfigured,
        Err(err) => TokenProbe::Failed(err),
    }
}

/// The report and the number of findings.
async fn render(resolved: &Resolved) -> (String, usize) {
    let mut out = String::new();
    let mut findings = 0;
    let file_line = match &resolved.file {
        Some(file) => file.path.display().to_string(),
        None => format!(
            "none ({} does not exist)",
            resolved.location.path().display()
        ),
    };
    row(&mut out, "config file", &file_line, None);
    let workspace_name = resolved
        .workspace
        .as_ref()
        .map_or("(unnamed)", |w| w.value.as_str());
    row(
        &mut out,
        "workspace",
        workspace_name,
        resolved.workspace.as_ref().map(|w| &w.origin),
    );
    shown(&mut out, "url", &resolved.url, |u| u.clone());
    let token = probe(workspace_name, &resolved.token.value).await;
    // A named workspace's failing source is counted once, on its line of the list below.
    let token_text = token_line(&resolved.token.value, &token);
    row(&mut out, "token", &token_text, Some(&resolved.token.origin));
    match &resolved.base_path {
        Some(base) => shown(&mut out, "base path", base, |p| p.display().to_string()),
        None => row(
            &mut out,
            "base path",
            "(none: not compared with the server's)",
            None,
        ),
    }
    if let Some(colour) = &resolved.colour {
        shown(&mut out, "colour", colour, |c| c.to_string());
    }
    shown(&mut out, "theme", &resolved.theme, |t| t.name().to_string());
    shown(&mut out, "lang", &resolved.lang, |l| l.name().to_string());
    shown(&mut out, "start", &resolved.start, |s| s.name().to_string());
    for note in &resolved.notes {
        let _ = writeln!(out, "note: {note}");
    }
    if let Some(file) = &resolved.file {
        let _ = writeln!(out, "\nworkspaces in the file ({}):", file.workspaces.len());
        let width = file
            .workspaces
            .iter()
            .map(|w| w.name.chars().count())
            .max()
            .unwrap_or(0);
        for entry in &file.workspaces {
            let (text, failed) = match &entry.token {
                None => ("no token configured".to_string(), false),
                Some(spec) => {
                    let source = token_source_of(&spec.value);
                    let probed = probe(&entry.name, &source).await;
                    let failed = matches!(probed, TokenProbe::Failed(_));
                    (token_line(&source, &probed), failed)
                }
            };
            findings += usize::from(failed);
            let _ = writeln!(
                out,
                "  {:<width$}  {}  token: {text}{}",
                entry.name,
                entry.url.value,
                if failed { "  [finding]" } else { "" },
            );
        }
    }
    let _ = writeln!(
        out,
        "\n{}",
        match findings {
            0 => "ok".to_string(),
            1 => "1 finding".to_string(),
            n => format!("{n} findings"),
        }
    );
    (out, findings)
}

fn row(out: &mut String, label: &str, value: &str, origin: Option<&Origin>) {
    match origin {
        Some(origin) => {
            let _ = writeln!(out, "{label:<12} {value}  ({origin})");
        }
        None => {
            let _ = writeln!(out, "{label:<12} {value}");
        }
    }
}

fn shown<T>(out: &mut String, label: &str, value: &Sourced<T>, text: impl Fn(&T) -> String) {
    row(out, label, &text(&value.value), Some(&value.origin));
}

/// Where a token comes from, in the file's words (never the token).
fn source_text(source: &TokenSource) -> String {
    match source {
        TokenSource::None => "none".into(),
        TokenSource::Fixed(_) => "given".into(),
        TokenSource::EnvThenFile { base_path } => format!(
            "MASC_TOKEN, then {}",
            crate::protocol::client::token_file(base_path).display()
        ),
        TokenSource::File(path) => format!("token_file {}", path.display()),
        TokenSource::Env(name) => format!("token_env {name}"),
        TokenSource::Command(argv) => format!("token_command {}", argv.join(" ")),
    }
}

fn token_line(source: &TokenSource, probed: &TokenProbe) -> String {
    let source = source_text(source);
    match probed {
        TokenProbe::Found(token) => format!("{source}: {}", masked(token)),
        TokenProbe::NoneConfigured => format!("{source}: no token"),
        TokenProbe::Failed(err) => format!("{source}: {err}"),
    }
}

/// A token as `config check` shows it: its length and the first 8 hex digits of its SHA-256.
pub fn masked(token: &str) -> String {
    let digest = sha2::Sha256::digest(token.as_bytes());
    format!(
        "hidden ({} chars, sha256 {})",
        token.chars().count(),
        &hex::encode(digest)[..8]
    )
}
