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

/// Acquire the token from its source (§1.1: `MASC_TOKEN`, then the token file).
async fn load_token(source: &TokenSource) -> TokenState {
    match source {
        TokenSource::None => TokenState::Absent,
        TokenSource::Fixed(raw) => token_state_from(raw),
        TokenSource::EnvThenFile { base_path } => {
            if let Ok(raw) = std::env::var("MASC_TOKEN")
                && !sanitise_token(&raw).is_empty()
            {
                return token_state_from(&raw);
            }
            let file = token_file(base_path);
            match tokio::fs::read(&file).await {
                Ok(bytes) => match String::from_utf8(bytes) {
                    Ok(raw) => token_state_from(&raw),
                    Err(_) => TokenState::Unusable,
                },
                Err(_) => TokenState::Absent,
            }
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
