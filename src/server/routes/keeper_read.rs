//! The shape the Keeper-named reads share (the turn inspector's §14.11 routes, Live Context
//! §14.8, the metrics tail §14.9): MASC's Keeper-name check, answered 400 before anything is
//! read; one store read of that Keeper; a body that echoes `keeper`. Written once here so the
//! families differ only in what they read and how they answer a miss.

use crate::server::http::{error_body, json_ok, with_echo};
use crate::server::state::AppState;
use crate::server::store::StoreError;
use axum::extract::{FromRequestParts, Path};
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use rusqlite::Connection;
use serde_json::Value;

/// MASC's keeper-name check, as far as the demo needs it: non-empty, no path or control
/// characters (names are otherwise Unicode, e.g. `하늘`).
pub(crate) fn valid_name(name: &str) -> bool {
    !name.trim().is_empty()
        && name.len() <= 128
        && !name
            .chars()
            .any(|c| c.is_control() || matches!(c, '/' | '\\'))
        && name != "."
        && name != ".."
}

pub(crate) fn invalid_name(name: &str) -> Response {
    error_body(
        StatusCode::BAD_REQUEST,
        &format!("invalid keeper name: {name}"),
    )
}

/// The `{name}` of a `/api/v1/keepers/{name}/…` read that passed [`valid_name`]. As an
/// extractor it stands after the handler's `Guard` (auth and root are answered first) and
/// rejects an invalid name with [`invalid_name`]'s 400.
pub(crate) struct KeeperName(pub String);

impl<S: Send + Sync> FromRequestParts<S> for KeeperName {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Response> {
        let Path(name) = Path::<String>::from_request_parts(parts, state)
            .await
            .map_err(IntoResponse::into_response)?;
        if !valid_name(&name) {
            return Err(invalid_name(&name));
        }
        Ok(Self(name))
    }
}

impl KeeperName {
    /// Reads this Keeper from the store (on the store's thread, never the request's).
    pub(crate) async fn read<T, F>(&self, state: &AppState, read: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection, &str) -> Result<T, StoreError> + Send + 'static,
    {
        let name = self.0.clone();
        state.store().read(move |c| read(c, &name)).await
    }
}

/// 200 with `body`, whose `keeper` echoes the request (the `{"echo":"wrong"}` fault alters it).
pub(crate) fn keeper_ok(body: Value) -> Response {
    with_echo(json_ok(body), &["keeper"])
}
