//! The config file (`$XDG_CONFIG_HOME/masc-tui/config.toml`, else `~/.config/…`, or
//! `--config PATH`): named workspaces and the session's defaults, and how a session's values
//! are resolved from flags, the environment and that file — flags beat the environment, the
//! environment beats the file, the file beats the built-in defaults.
//!
//! One exception keeps a credential with its server: the MASC connection variables
//! (`MASC_HOST`, `MASC_HTTP_PORT`, `MASC_TOKEN`, `MASC_BASE_PATH`) describe one unnamed
//! workspace. A named workspace picked by `--workspace` (or `MASC_TUI_WORKSPACE`, or the file's
//! `defaults.workspace`) takes its URL, token and base path from its own table (flags still
//! win); those variables are then ignored with a note, so a token exported for one server is
//! never sent to another.
//!
//! A malformed file is an error naming its line and key; nothing starts half-configured. A
//! file holding a token inline, or a token file, that its group or others may read is refused
//! with the `chmod` that fixes it. `file` parses, [`resolve`] picks, `check` is
//! `masc-tui config check`.

pub mod check;
pub mod file;
pub mod origin;
mod resolve;

pub use file::{At, ConfigFile, Defaults, Lang, TokenSpec, WorkspaceEntry};
pub use origin::{Origin, Origins, Sourced};
pub use resolve::{Resolved, probe_token, resolve, token_source_of};

use crate::protocol::client::TokenFetchError;
use std::path::{Path, PathBuf};

/// The file's name under the config directory.
pub const CONFIG_FILE: &str = "config.toml";

/// Why the configuration cannot be used (the session does not start; exit 2).
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("config file {}: {source}", .path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("config file {}, line {line}: {message}", .path.display())]
    Syntax {
        path: PathBuf,
        line: usize,
        message: String,
    },
    #[error("config file {}, line {line}, key {key}: {problem}", .path.display())]
    Invalid {
        path: PathBuf,
        line: usize,
        key: String,
        problem: String,
    },
    #[error(
        "config file {} holds a token ({key}, line {line}) and is readable by {readers} (mode \
         {mode:03o}); refused. Run: chmod 600 {}",
        .path.display(), .path.display()
    )]
    ExposedConfig {
        path: PathBuf,
        key: String,
        line: usize,
        readers: &'static str,
        mode: u32,
    },
    #[error(
        "token file {} of workspace {workspace} is readable by {readers} (mode {mode:03o}); \
         refused. Run: chmod 600 {}",
        .path.display(), .path.display()
    )]
    ExposedTokenFile {
        workspace: String,
        path: PathBuf,
        readers: &'static str,
        mode: u32,
    },
    #[error("no workspace named {name:?} in config file {} (configured: {known})", .path.display())]
    UnknownWorkspace {
        name: String,
        path: PathBuf,
        known: String,
    },
    #[error(
        "workspace {name:?} asked for ({origin}), but there is no config file at {}",
        .path.display()
    )]
    NoConfigFile {
        name: String,
        origin: String,
        path: PathBuf,
    },
    #[error("workspace {workspace}: {source}")]
    Token {
        workspace: String,
        source: TokenFetchError,
    },
    #[error("no config directory: neither XDG_CONFIG_HOME (absolute) nor HOME is set")]
    NoConfigDir,
}

/// Where the config file is looked for: `--config PATH` / `MASC_TUI_CONFIG` (which must
/// exist), else `$XDG_CONFIG_HOME/masc-tui/config.toml` (an absolute XDG_CONFIG_HOME only, as
/// the XDG spec says), else `~/.config/masc-tui/config.toml` (these two may be absent).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigLocation {
    /// Named explicitly: a missing file is an error.
    Given(PathBuf),
    /// The standard place: a missing file is no configuration.
    Standard(PathBuf),
}

impl ConfigLocation {
    pub fn path(&self) -> &Path {
        match self {
            Self::Given(p) | Self::Standard(p) => p,
        }
    }

    /// The standard place, from `XDG_CONFIG_HOME` then `HOME`.
    pub fn standard() -> Result<Self, ConfigError> {
        let var = |name: &str| {
            std::env::var_os(name)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        let dir = match var("XDG_CONFIG_HOME").filter(|p| p.is_absolute()) {
            Some(dir) => dir,
            None => var("HOME").ok_or(ConfigError::NoConfigDir)?.join(".config"),
        };
        Ok(Self::Standard(dir.join("masc-tui").join(CONFIG_FILE)))
    }

    /// Reads and validates the file: `Ok(None)` when a standard-place file does not exist.
    /// A file holding an inline token must be owner-only.
    pub fn load(&self) -> Result<Option<ConfigFile>, ConfigError> {
        let path = self.path();
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(err)
                if err.kind() == std::io::ErrorKind::NotFound
                    && matches!(self, Self::Standard(_)) =>
            {
                return Ok(None);
            }
            Err(source) => {
                return Err(ConfigError::Read {
                    path: path.to_path_buf(),
                    source,
                });
            }
        };
        let config = file::parse(path, &text)?;
        if let Some(token) = config.inline_token()
            && let Some((readers, mode)) = readable_by_others(path)
        {
            return Err(ConfigError::ExposedConfig {
                path: path.to_path_buf(),
                key: token.key.clone(),
                line: token.line,
                readers,
                mode,
            });
        }
        Ok(Some(config))
    }
}

impl ConfigLocation {
    /// The named workspace's table: the file must exist and configure it (`origin` says who
    /// asked, for the refusal).
    pub fn named(&self, name: &str, origin: &str) -> Result<WorkspaceEntry, ConfigError> {
        let Some(config) = self.load()? else {
            return Err(ConfigError::NoConfigFile {
                name: name.to_string(),
                origin: origin.to_string(),
                path: self.path().to_path_buf(),
            });
        };
        lookup(&config, name).cloned()
    }
}

/// `name`'s table in `config`, or the refusal naming what is configured.
pub fn lookup<'a>(config: &'a ConfigFile, name: &str) -> Result<&'a WorkspaceEntry, ConfigError> {
    config
        .workspace(name)
        .ok_or_else(|| ConfigError::UnknownWorkspace {
            name: name.to_string(),
            path: config.path.clone(),
            known: config.names(),
        })
}

/// Who besides the owner may read `path` (`None`: only its owner, or it cannot be read at
/// all — the read itself then reports why), and its permission bits.
pub fn readable_by_others(path: &Path) -> Option<(&'static str, u32)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path).ok()?.permissions().mode() & 0o777;
        match (mode & 0o040 != 0, mode & 0o004 != 0) {
            (true, true) => Some(("its group and others", mode)),
            (true, false) => Some(("its group", mode)),
            (false, true) => Some(("others", mode)),
            (false, false) => None,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}
