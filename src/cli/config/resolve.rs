//! A session's values from flags, the environment and the config file, each with where it
//! came from (see the module above for the order and its one exception).

use super::origin::{Origin, Sourced};
use super::{ConfigError, ConfigFile, ConfigLocation, Lang, TokenSpec, readable_by_others};
use crate::actors::fleet::{FleetName, WatchTarget};
use crate::cli::args::{Args, StartSurface, ThemeName};
use crate::protocol::client::{ClientConfig, TokenSource, fetch_token};
use ratatui::style::Color;
use std::path::PathBuf;

/// Everything a session starts from, resolved.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// Where the file was looked for, and what it held (`None`: no file there).
    pub location: ConfigLocation,
    pub file: Option<ConfigFile>,
    /// The named workspace, `None` for an unnamed one (`--url`, `MASC_HOST`, the default).
    pub workspace: Option<Sourced<String>>,
    pub url: Sourced<String>,
    pub token: Sourced<TokenSource>,
    pub base_path: Option<Sourced<PathBuf>>,
    pub colour: Option<Sourced<Color>>,
    pub theme: Sourced<ThemeName>,
    pub lang: Sourced<Lang>,
    pub start: Sourced<StartSurface>,
    /// What the operator should know: ignored variables, an inline token.
    pub notes: Vec<String>,
}

impl Resolved {
    /// The client configuration of the resolved workspace.
    pub fn client_config(&self, strict_receipts: bool) -> ClientConfig {
        let mut cfg = ClientConfig::new(self.url.value.clone());
        cfg.strict_receipts = strict_receipts;
        cfg.token = self.token.value.clone();
        cfg
    }

    /// One watch per configured workspace, in file order. The session's own workspace takes
    /// what was resolved for it (a flag may override its URL or token); the others their
    /// tables. A token file others may read is refused for its watch (nothing is sent).
    pub fn fleet_targets(&self, strict_receipts: bool) -> Vec<WatchTarget> {
        let Some(file) = &self.file else {
            return Vec::new();
        };
        file.workspaces
            .iter()
            .map(|entry| {
                let active = self
                    .workspace
                    .as_ref()
                    .is_some_and(|w| w.value == entry.name);
                let (url, token, base) = if active {
                    (
                        self.url.value.clone(),
                        self.token.value.clone(),
                        self.base_path.as_ref().map(|b| b.value.clone()),
                    )
                } else {
                    (
                        entry.url.value.clone(),
                        entry
                            .token
                            .as_ref()
                            .map_or(TokenSource::None, |t| token_source_of(&t.value)),
                        entry.base_path.as_ref().map(|b| b.value.clone()),
                    )
                };
                let refused = match &token {
                    TokenSource::File(path) => readable_by_others(path).map(|(readers, mode)| {
                        format!(
                            "token file readable by {readers} (mode {mode:03o}): chmod 600 {}",
                            path.display()
                        )
                    }),
                    _ => None,
                };
                let mut client = ClientConfig::new(url);
                client.strict_receipts = strict_receipts;
                client.token = token;
                WatchTarget {
                    name: FleetName(entry.name.clone()),
                    client,
                    expected_base: base.map(|b| b.to_string_lossy().into_owned()),
                    colour: entry.colour.as_ref().map(|c| c.value),
                    refused,
                }
            })
            .collect()
    }

    /// Before a session starts: the named workspace's token source must give a token, and a
    /// token file must be owner-only. An unnamed workspace keeps the client's own search
    /// (`MASC_TOKEN`, then the workspace's token file, none found is no token).
    pub async fn ensure_token(&self) -> Result<(), ConfigError> {
        if let Some(name) = &self.workspace {
            probe_token(&name.value, &self.token.value).await?;
        }
        Ok(())
    }
}

/// The client's token source for a configured one.
pub fn token_source_of(spec: &TokenSpec) -> TokenSource {
    match spec {
        TokenSpec::File(path) => TokenSource::File(path.clone()),
        TokenSpec::Env(name) => TokenSource::Env(name.clone()),
        TokenSpec::Command(argv) => TokenSource::Command(argv.clone()),
        TokenSpec::Inline(token) => TokenSource::Fixed(token.clone()),
    }
}

/// Reads a workspace's token once (a token file must be owner-only): the token, or `None`
/// when none is configured.
pub async fn probe_token(
    workspace: &str,
    source: &TokenSource,
) -> Result<Option<String>, ConfigError> {
    if let TokenSource::File(path) = source
        && let Some((readers, mode)) = readable_by_others(path)
    {
        return Err(ConfigError::ExposedTokenFile {
            workspace: workspace.to_string(),
            path: path.clone(),
            readers,
            mode,
        });
    }
    fetch_token(source)
        .await
        .map_err(|source| ConfigError::Token {
            workspace: workspace.to_string(),
            source,
        })
}

/// The MASC connection variables a named workspace does not take.
const CONNECTION_VARS: &[(&str, &str)] = &[
    ("host", "MASC_HOST"),
    ("http_port", "MASC_HTTP_PORT"),
    ("base_path", "MASC_BASE_PATH"),
];

/// Resolves `args` against the config file (read from `--config`, `MASC_TUI_CONFIG` or the
/// standard place).
pub fn resolve(args: &Args) -> Result<Resolved, ConfigError> {
    let origins = &args.origins;
    let location = match &args.config {
        Some(path) => ConfigLocation::Given(path.clone()),
        None => ConfigLocation::standard()?,
    };
    let file = location.load()?;
    let mut notes = Vec::new();

    let from_env = |id: &str| origins.from_env(id);
    let given = |id: &str, present: bool| present && !from_env(id);
    let url_flag = given("url", args.url.is_some())
        || given("host", args.host.is_some())
        || given("http_port", args.http_port.is_some());
    let host_env = from_env("host") || from_env("http_port");

    // Which workspace: a flag beats the environment beats the file (module docs).
    let asked = args.workspace.as_ref().map(|name| {
        Sourced::new(
            name.clone(),
            origins.of_arg("workspace", "--workspace", "MASC_TUI_WORKSPACE"),
        )
    });
    let named = match asked {
        Some(ws) if matches!(ws.origin, Origin::Flag(_)) => Some(ws),
        _ if url_flag => None,
        Some(ws) => Some(ws),
        None if host_env => {
            if let Some(picked) = file.as_ref().and_then(|f| f.defaults.workspace.as_ref()) {
                notes.push(format!(
                    "defaults.workspace = {:?} not used: MASC_HOST or MASC_HTTP_PORT is set",
                    picked.value
                ));
            }
            None
        }
        None => file
            .as_ref()
            .and_then(|f| f.defaults.workspace.as_ref())
            .map(Sourced::from_file),
    };

    let entry = match &named {
        None => None,
        Some(name) => {
            let Some(config) = &file else {
                return Err(ConfigError::NoConfigFile {
                    name: name.value.clone(),
                    origin: name.origin.to_string(),
                    path: location.path().to_path_buf(),
                });
            };
            Some(super::lookup(config, &name.value)?)
        }
    };

    let flag_url = || -> Option<Sourced<String>> {
        if let Some(url) = &args.url {
            return Some(Sourced::new(
                url.trim_end_matches('/').to_string(),
                origins.of_arg("url", "--url", "--url"),
            ));
        }
        None
    };
    let host_port = |only_flags: bool| -> Option<Sourced<String>> {
        let host_given = args.host.is_some() && !(only_flags && from_env("host"));
        let port_given = args.http_port.is_some() && !(only_flags && from_env("http_port"));
        if !host_given && !port_given {
            return None;
        }
        let host = args
            .host
            .clone()
            .filter(|_| host_given)
            .unwrap_or_else(|| crate::cli::args::DEFAULT_HOST.to_string());
        let port = args
            .http_port
            .filter(|_| port_given)
            .unwrap_or(crate::cli::args::DEFAULT_HTTP_PORT);
        let from_flag = (host_given && !from_env("host")) || (port_given && !from_env("http_port"));
        let origin = if from_flag {
            Origin::Flag("--host/--http-port")
        } else {
            Origin::Env("MASC_HOST/MASC_HTTP_PORT")
        };
        Some(Sourced::new(format!("http://{host}:{port}"), origin))
    };

    let (url, token, base_path, colour) = match entry {
        Some(entry) => {
            let name = &entry.name;
            for (id, var) in CONNECTION_VARS {
                if from_env(id) {
                    notes.push(format!(
                        "{var} is set but not used: workspace {name} takes it from its own table"
                    ));
                }
            }
            let url = flag_url()
                .or_else(|| host_port(true))
                .unwrap_or_else(|| Sourced::from_file(&entry.url));
            let token = match (&args.token, &entry.token) {
                (Some(token), _) => {
                    Sourced::new(TokenSource::Fixed(token.clone()), Origin::Flag("--token"))
                }
                (None, Some(spec)) => {
                    if matches!(spec.value, TokenSpec::Inline(_)) {
                        notes.push(format!(
                            "{} (line {}) is a token written in the config file: prefer token_file, \
                             token_env or token_command",
                            spec.key, spec.line
                        ));
                    }
                    Sourced::new(
                        token_source_of(&spec.value),
                        Origin::File {
                            line: spec.line,
                            key: spec.key.clone(),
                        },
                    )
                }
                (None, None) => {
                    notes.push(format!(
                        "workspace {name} configures no token: requests go without one"
                    ));
                    Sourced::new(TokenSource::None, Origin::Default)
                }
            };
            if std::env::var_os("MASC_TOKEN").is_some() && args.token.is_none() {
                notes.push(format!(
                    "MASC_TOKEN is set but not used: workspace {name} has its own token source \
                     (a token is only sent to the server it is configured for)"
                ));
            }
            let base_path = match &args.base_path {
                Some(path) if !from_env("base_path") => {
                    Some(Sourced::new(path.clone(), Origin::Flag("--base-path")))
                }
                _ => entry.base_path.as_ref().map(Sourced::from_file),
            };
            let colour = entry.colour.as_ref().map(Sourced::from_file);
            (url, token, base_path, colour)
        }
        None => {
            let url = flag_url().or_else(|| host_port(false)).unwrap_or_else(|| {
                Sourced::new(
                    format!(
                        "http://{}:{}",
                        crate::cli::args::DEFAULT_HOST,
                        crate::cli::args::DEFAULT_HTTP_PORT
                    ),
                    Origin::Default,
                )
            });
            let base_path = args.base_path.as_ref().map(|path| {
                Sourced::new(
                    path.clone(),
                    origins.of_arg("base_path", "--base-path", "MASC_BASE_PATH"),
                )
            });
            let token = match &args.token {
                Some(token) => {
                    Sourced::new(TokenSource::Fixed(token.clone()), Origin::Flag("--token"))
                }
                None => {
                    let search_base = match &base_path {
                        Some(p) => p.value.clone(),
                        None => std::env::current_dir().map_err(|source| ConfigError::Read {
                            path: PathBuf::from("."),
                            source,
                        })?,
                    };
                    Sourced::new(
                        TokenSource::EnvThenFile {
                            base_path: search_base,
                        },
                        Origin::Default,
                    )
                }
            };
            (url, token, base_path, None)
        }
    };

    let defaults = file
        .as_ref()
        .map(|f| f.defaults.clone())
        .unwrap_or_default();
    let theme = match args.look.theme {
        Some(theme) => Sourced::new(theme, origins.of_arg("theme", "--theme", "MASC_TUI_THEME")),
        None => defaults.theme.as_ref().map_or_else(
            || Sourced::new(ThemeName::default(), Origin::Default),
            Sourced::from_file,
        ),
    };
    let start = match args.start {
        Some(start) => Sourced::new(start, origins.of_arg("start", "--start", "MASC_TUI_START")),
        None => defaults.start.as_ref().map_or_else(
            || Sourced::new(StartSurface::default(), Origin::Default),
            Sourced::from_file,
        ),
    };
    let lang = defaults.lang.as_ref().map_or_else(
        || Sourced::new(Lang::default(), Origin::Default),
        Sourced::from_file,
    );

    Ok(Resolved {
        location,
        file,
        workspace: named,
        url,
        token,
        base_path,
        colour,
        theme,
        lang,
        start,
        notes,
    })
}
