//! §15.2 the MCP observer stream: `POST /mcp` `initialize` for a session id, then
//! `GET /mcp?sse_kind=observer` with it. Outside `/api/v1`: no receipt (the workspace check is
//! the `/health` epoch the stream is opened under) and no expected root. A token is required
//! even where the server's other routes need none.

use super::stream::SseStream;
use super::{TokenState, WorkspaceClient, describe_transport, read_body};
use crate::protocol::observer::{MCP_PATH, OBSERVER_PATH, SESSION_HEADER, initialize_body};
use std::time::Duration;
use tokio::time::Instant;

/// Why the feed could not be opened (or reopened).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ObserverOpenError {
    /// No token is held: Activity "needs a token", never "no activity".
    NoToken,
    /// No answer (connection refused, reset, timed out).
    Transport(String),
    /// `initialize` answered 2xx without an `Mcp-Session-Id` header.
    NoSession,
    /// The route is not there (an unknown-route 404 on `POST /mcp`).
    NotServed,
    /// MASC refused the stream (404 with a JSON-RPC error: unknown or expired session, a
    /// token that does not resolve, owner mismatch): start again with a fresh `initialize`.
    SessionRefused(String),
    /// 429 or 503: come back after `retry_after` (`Retry-After`, when sent).
    Later {
        status: u16,
        retry_after: Option<Duration>,
    },
    /// Any other non-2xx.
    Status(u16, String),
    /// A 2xx that is not an event stream.
    NotEventStream,
}

impl ObserverOpenError {
    /// Stable class for traces and the screen.
    pub fn class(&self) -> String {
        match self {
            Self::NoToken => "no_token".into(),
            Self::Transport(_) => "transport".into(),
            Self::NoSession => "no_session_header".into(),
            Self::NotServed => "not_served".into(),
            Self::SessionRefused(_) => "session_refused".into(),
            Self::Later { status, .. } => format!("status_{status}"),
            Self::Status(s, _) => format!("status_{s}"),
            Self::NotEventStream => "not_event_stream".into(),
        }
    }
}

fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    headers
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map(Duration::from_secs)
}

fn message_of(body: &[u8]) -> String {
    serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .and_then(|v| {
            v.pointer("/error/message")
                .or_else(|| v.get("reason"))
                .or_else(|| v.get("error"))
                .and_then(|m| m.as_str().map(str::to_string))
        })
        .unwrap_or_else(|| String::from_utf8_lossy(&body[..body.len().min(200)]).into_owned())
}

impl WorkspaceClient {
    async fn bearer(&self) -> Result<reqwest::header::HeaderValue, ObserverOpenError> {
        match self.token().await {
            TokenState::Usable(value) => Ok(value),
            TokenState::Absent | TokenState::Unusable => Err(ObserverOpenError::NoToken),
        }
    }

    /// `initialize`: the session id of the `Mcp-Session-Id` header.
    pub async fn mcp_initialize(&self) -> Result<String, ObserverOpenError> {
        let token = self.bearer().await?;
        let url = self
            .url(MCP_PATH)
            .map_err(|e| ObserverOpenError::Transport(e.to_string()))?;
        let body = initialize_body(env!("CARGO_PKG_VERSION"));
        let deadline = Instant::now() + self.inner.config.request_timeout;
        let sent = tokio::time::timeout_at(
            deadline,
            self.inner
                .http
                .post(url)
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .header(
                    reqwest::header::ACCEPT,
                    "application/json, text/event-stream",
                )
                .header(reqwest::header::AUTHORIZATION, token)
                .body(body.to_string())
                .send(),
        )
        .await
        .map_err(|_| ObserverOpenError::Transport("timed out".into()))?
        .map_err(|e| ObserverOpenError::Transport(describe_transport(&e)))?;
        let status = sent.status().as_u16();
        let session = sent
            .headers()
            .get(SESSION_HEADER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let headers = sent.headers().clone();
        let body = read_body(sent, deadline).await.unwrap_or_default();
        match status {
            200..=299 => session
                .filter(|s| !s.is_empty())
                .ok_or(ObserverOpenError::NoSession),
            404 if crate::protocol::routes::is_route_miss_body(&body) => {
                Err(ObserverOpenError::NotServed)
            }
            429 | 503 => Err(ObserverOpenError::Later {
                status,
                retry_after: retry_after(&headers),
            }),
            _ => Err(ObserverOpenError::Status(status, message_of(&body))),
        }
    }

    /// The observer stream of `session`, replaying what came after `last_event_id`.
    pub async fn observer_stream(
        &self,
        session: &str,
        last_event_id: Option<u64>,
    ) -> Result<SseStream, ObserverOpenError> {
        let token = self.bearer().await?;
        let url = self
            .url(OBSERVER_PATH)
            .map_err(|e| ObserverOpenError::Transport(e.to_string()))?;
        let mut builder = self
            .inner
            .http
            .get(url)
            .header(reqwest::header::ACCEPT, "text/event-stream")
            .header(SESSION_HEADER, session)
            .header(reqwest::header::AUTHORIZATION, token);
        if let Some(id) = last_event_id {
            builder = builder.header("last-event-id", id.to_string());
        }
        let deadline = Instant::now() + self.inner.config.request_timeout;
        let sent = tokio::time::timeout_at(deadline, builder.send())
            .await
            .map_err(|_| ObserverOpenError::Transport("timed out".into()))?
            .map_err(|e| ObserverOpenError::Transport(describe_transport(&e)))?;
        let status = sent.status().as_u16();
        if !(200..300).contains(&status) {
            let headers = sent.headers().clone();
            let body = read_body(sent, deadline).await.unwrap_or_default();
            return Err(match status {
                404 => ObserverOpenError::SessionRefused(message_of(&body)),
                429 | 503 => ObserverOpenError::Later {
                    status,
                    retry_after: retry_after(&headers),
                },
                _ => ObserverOpenError::Status(status, message_of(&body)),
            });
        }
        let is_stream = sent
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        if !is_stream {
            return Err(ObserverOpenError::NotEventStream);
        }
        Ok(SseStream::new(
            sent,
            OBSERVER_IDLE,
            None,
            OBSERVER_PATH.to_string(),
        ))
    }
}

/// MASC's TUI treats 180 s without a byte (pings come every 30 s) as a dead feed.
pub const OBSERVER_IDLE: Duration = Duration::from_secs(180);
