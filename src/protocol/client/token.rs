//! The bearer token (§1.1–§1.3): read from its source on first use (`MASC_TOKEN`, then the
//! token file), sanitised as it goes on the wire, held by the client and re-read after a 401.
//! A token that cannot be a header value is refused before sending, never dropped silently.

use super::{TokenSource, WorkspaceClient};
use reqwest::header::HeaderValue;

/// The token as it can be sent.
#[derive(Clone)]
pub(crate) enum TokenState {
    /// No token configured or found: requests go without `Authorization`.
    Absent,
    /// `Authorization: Bearer <token>`, marked sensitive.
    Usable(HeaderValue),
    /// A token exists but cannot be a header value (control bytes, non-UTF-8 file): refused
    /// before sending rather than silently sent without credentials.
    Unusable,
}

/// `MASC_TOKEN` / token-file text as it goes on the wire: CR and LF become spaces, then the
/// whole is trimmed (§1.2). Empty means no token.
pub fn sanitise_token(raw: &str) -> String {
    raw.replace(['\r', '\n'], " ").trim().to_string()
}

/// The token file of a workspace: `<base>/.masc/auth/masc-tui.token` (§1.1), read when no
/// token is given; `masc-tui serve` writes the token it requires there.
pub fn token_file(base_path: &std::path::Path) -> std::path::PathBuf {
    base_path.join(".masc").join("auth").join("masc-tui.token")
}

fn token_state_from(raw: &str) -> TokenState {
    let token = sanitise_token(raw);
    if token.is_empty() {
        return TokenState::Absent;
    }
    match HeaderValue::from_str(&format!("Bearer {token}")) {
        Ok(mut value) => {
            value.set_sensitive(true);
            TokenState::Usable(value)
        }
        Err(_) => TokenState::Unusable,
    }
}

/// Why a configured token source gave no token.
#[derive(Debug, thiserror::Error)]
pub enum TokenFetchError {
    #[error("token file {path}: {source}")]
    File {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error("token file {0} is not UTF-8")]
    NotUtf8(std::path::PathBuf),
    #[error("environment variable {0} is not set")]
    EnvUnset(String),
    #[error("token command is empty")]
    EmptyCommand,
    #[error("token command {program}: {reason}")]
    Command { program: String, reason: String },
    #[error("{0} gave an empty token")]
    Empty(String),
}

/// The token text of `source` (sanitised, §1.2): `Ok(None)` when none is configured, or the
/// default search (`MASC_TOKEN`, then the workspace's token file) finds none; an explicitly
/// configured source (file, variable, command) that gives nothing is an error.
pub async fn fetch_token(source: &TokenSource) -> Result<Option<String>, TokenFetchError> {
    let nonempty = |raw: &str, what: String| {
        let token = sanitise_token(raw);
        if token.is_empty() {
            Err(TokenFetchError::Empty(what))
        } else {
            Ok(Some(token))
        }
    };
    match source {
        TokenSource::None => Ok(None),
        TokenSource::Fixed(raw) => Ok(Some(sanitise_token(raw)).filter(|t| !t.is_empty())),
        TokenSource::EnvThenFile { base_path } => {
            if let Ok(raw) = std::env::var("MASC_TOKEN")
                && !sanitise_token(&raw).is_empty()
            {
                return Ok(Some(sanitise_token(&raw)));
            }
            let file = token_file(base_path);
            match tokio::fs::read(&file).await {
                Ok(bytes) => match String::from_utf8(bytes) {
                    Ok(raw) => Ok(Some(sanitise_token(&raw)).filter(|t| !t.is_empty())),
                    Err(_) => Err(TokenFetchError::NotUtf8(file)),
                },
                Err(_) => Ok(None),
            }
        }
        TokenSource::File(path) => match tokio::fs::read(path).await {
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(raw) => nonempty(&raw, format!("token file {}", path.display())),
                Err(_) => Err(TokenFetchError::NotUtf8(path.clone())),
            },
            Err(source) => Err(TokenFetchError::File {
                path: path.clone(),
                source,
            }),
        },
        TokenSource::Env(name) => match std::env::var(name) {
            Ok(raw) => nonempty(&raw, format!("environment variable {name}")),
            Err(_) => Err(TokenFetchError::EnvUnset(name.clone())),
        },
        TokenSource::Command(argv) => {
            let raw = run_token_command(argv).await?;
            nonempty(&raw, format!("token command {}", argv.join(" ")))
        }
    }
}

/// Runs a token command without a shell (stdin closed, output captured, killed when it
/// outlasts [`super::TOKEN_COMMAND_TIMEOUT`]); its standard output is the token.
async fn run_token_command(argv: &[String]) -> Result<String, TokenFetchError> {
    let Some((program, args)) = argv.split_first() else {
        return Err(TokenFetchError::EmptyCommand);
    };
    let failed = |reason: String| TokenFetchError::Command {
        program: program.clone(),
        reason,
    };
    let child = tokio::process::Command::new(program)
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .output();
    let output = match tokio::time::timeout(super::TOKEN_COMMAND_TIMEOUT, child).await {
        Err(_) => {
            return Err(failed(format!(
                "no answer within {}s",
                super::TOKEN_COMMAND_TIMEOUT.as_secs()
            )));
        }
        Ok(Err(err)) => return Err(failed(err.to_string())),
        Ok(Ok(output)) => output,
    };
    if !output.status.success() {
        // Its own words, first line only and bounded: they may quote what it was asked for,
        // never the token (that is stdout).
        let stderr = String::from_utf8_lossy(&output.stderr);
        let first = crate::sanitize::sanitize(stderr.lines().next().unwrap_or("").trim());
        let first: String = first.chars().take(200).collect();
        return Err(failed(format!("{}: {first}", output.status)));
    }
    String::from_utf8(output.stdout).map_err(|_| failed("its output is not UTF-8".into()))
}

/// Acquire the token from its source (§1.1: `MASC_TOKEN`, then the token file; or the named
/// workspace's file, variable or command). A configured source that fails is traced (its
/// reason names the source, never the token) and the token is unusable.
async fn load_token(source: &TokenSource) -> TokenState {
    match fetch_token(source).await {
        Ok(None) => TokenState::Absent,
        Ok(Some(token)) => token_state_from(&token),
        Err(err) => {
            tracing::warn!(target: "masc_tui::token", error = %err, "token unusable");
            TokenState::Unusable
        }
    }
}

impl WorkspaceClient {
    /// The held token, loading it on first use.
    pub(super) async fn token(&self) -> TokenState {
        if let Some(held) = self.lock_token().clone() {
            return held;
        }
        let loaded = load_token(&self.inner.config.token).await;
        *self.lock_token() = Some(loaded.clone());
        loaded
    }

    /// Re-acquire the token from its source after a 401 (§1.3).
    pub(super) async fn reacquire_token(&self) -> TokenState {
        let loaded = load_token(&self.inner.config.token).await;
        *self.lock_token() = Some(loaded.clone());
        loaded
    }

    fn lock_token(&self) -> std::sync::MutexGuard<'_, Option<TokenState>> {
        // The slot holds a plain value; a poisoned lock still holds a whole one.
        self.inner.token.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fetch(source: &TokenSource) -> Result<Option<String>, TokenFetchError> {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(fetch_token(source))
    }

    /// §1.1/§1.3: a named workspace's configured source that gives nothing is an error naming
    /// the source (the client then refuses to send, never sends without credentials); the
    /// default search finding nothing is no token.
    #[test]
    fn a_configured_token_source_that_gives_nothing_is_an_error_not_no_token() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("t.token");
        assert!(matches!(
            fetch(&TokenSource::File(file.clone())),
            Err(TokenFetchError::File { .. })
        ));
        std::fs::write(&file, "  tok-1\r\n").unwrap();
        assert_eq!(
            fetch(&TokenSource::File(file.clone())).unwrap(),
            Some("tok-1".into())
        );
        std::fs::write(&file, "\n").unwrap();
        assert!(matches!(
            fetch(&TokenSource::File(file)),
            Err(TokenFetchError::Empty(_))
        ));
        assert!(matches!(
            fetch(&TokenSource::Env("MASC_TUI_TEST_SURELY_UNSET_VAR".into())),
            Err(TokenFetchError::EnvUnset(_))
        ));
        let argv = |args: &[&str]| args.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            fetch(&TokenSource::Command(argv(&["printf", "cmd-token\n"]))).unwrap(),
            Some("cmd-token".into())
        );
        let failed = fetch(&TokenSource::Command(argv(&[
            "sh",
            "-c",
            "echo denied >&2; exit 4",
        ])))
        .unwrap_err();
        assert!(failed.to_string().contains("denied"), "{failed}");
        assert!(matches!(
            fetch(&TokenSource::Command(Vec::new())),
            Err(TokenFetchError::EmptyCommand)
        ));
        let empty_base = dir.path().join("no-such-base");
        if std::env::var_os("MASC_TOKEN").is_none() {
            assert_eq!(
                fetch(&TokenSource::EnvThenFile {
                    base_path: empty_base
                })
                .unwrap(),
                None
            );
        }
    }
}
