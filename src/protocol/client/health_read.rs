//! `GET /health` (§3) as the client reads it: the plain read (write pre-check, doctor) and the
//! cadence probe, conditional only on a tag the server says covers the identity
//! fields, and held when the server can hold. Every admitted answer is checked for another
//! server or build, which forgets the capability table.

use super::{
    ClientError, ERROR_BODY_LIMIT, ReadRequest, WorkspaceClient, cut_body, decode_off_caller_with,
    note_request, read_body,
};
use crate::protocol::decode::WireDecode;
use crate::protocol::health::Health;
use std::sync::Arc;
use std::time::Duration;

/// `x-masc-health-tag: identity` (a masc-tui extension): the `/health` ETag covers the
/// identity fields only, so the cadence probe may be conditional on it.
pub const HEALTH_TAG_HEADER: &str = "x-masc-health-tag";

/// `Preference-Applied` (RFC 7240): a server that held a conditional `/health` says so.
pub const PREFERENCE_APPLIED: &str = "preference-applied";

/// One answer of [`WorkspaceClient::health_watch`].
#[derive(Debug, Clone)]
pub struct HealthAnswer {
    pub health: Arc<Health>,
    /// A 304: the identity fields are those of the stored answer.
    pub not_modified: bool,
    /// The server held the request (`Preference-Applied: wait`): the next probe may follow at
    /// once, the hold already spaced it.
    pub held: bool,
}

/// What, in a `/health` answer, changes when the server is another one or was upgraded: the
/// capability table is forgotten when it changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ServerMark {
    base: String,
    root: String,
    version: Option<String>,
    commit: Option<String>,
}

impl ServerMark {
    fn of(health: &Health) -> Self {
        Self {
            base: health.paths.effective_base_path.clone(),
            root: health.paths.effective_masc_root.clone(),
            version: health.version.clone(),
            commit: health
                .build
                .as_ref()
                .and_then(|b| b.commit())
                .map(|(c, _)| c.to_string()),
        }
    }
}

impl WorkspaceClient {
    /// `GET /health` (§3): unconditional, no expected root, no receipt check (the write
    /// pre-check of §2.4 and `doctor` use this one).
    pub async fn health(&self) -> Result<Health, ClientError> {
        let request = ReadRequest {
            target: "/health",
            expected_root: None,
            if_none_match: None,
            event_stream: false,
            hold: None,
        };
        let (response, deadline) = self.send_read(&request).await?;
        let status = response.status().as_u16();
        let body = read_body(response, deadline).await?;
        if !(200..300).contains(&status) {
            note_request("/health", status, body.len(), false, None);
            return Err(ClientError::Status {
                status,
                body: cut_body(&body, ERROR_BODY_LIMIT),
            });
        }
        let bytes = body.len();
        let (decoded, timing) = decode_off_caller_with(body, Health::decode).await;
        note_request("/health", status, bytes, false, Some(timing));
        let health = decoded?;
        self.note_server(&health);
        Ok(health)
    }

    /// The `/health` cadence probe (cheap when nothing changed): conditional on the tag of the
    /// last answer this
    /// client admitted when the server advertised it as an identity tag
    /// ([`HEALTH_TAG_HEADER`]), and with `hold` it asks the server to hold an unchanged answer
    /// that long (`Prefer: wait`, RFC 7240). The embedded server tags `/health` by its identity
    /// fields (not `uptime`) and holds; MASC advertises no such tag, so its probes stay plain
    /// and unconditional (§3) and read exactly like [`health`](Self::health). A 304 re-admits
    /// the stored answer: the identity fields are unchanged, so the judgement is the same.
    pub async fn health_watch(&self, hold: Option<Duration>) -> Result<HealthAnswer, ClientError> {
        let stored = self.lock_health().clone();
        let request = ReadRequest {
            target: "/health",
            expected_root: None,
            if_none_match: stored.as_ref().map(|(tag, _)| tag.clone()),
            event_stream: false,
            hold: stored.as_ref().and(hold),
        };
        let conditional = request.if_none_match.is_some();
        let (response, deadline) = self.send_read(&request).await?;
        let status = response.status().as_u16();
        let held = response
            .headers()
            .get(PREFERENCE_APPLIED)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.trim_start().starts_with("wait"));
        if status == 304 {
            note_request("/health", status, 0, conditional, None);
            let (_, health) = stored.ok_or(ClientError::NotModifiedWithoutEntry)?;
            return Ok(HealthAnswer {
                health,
                not_modified: true,
                held,
            });
        }
        // Only a tag the server says covers the identity alone is kept for the next probe:
        // MASC's `/health` is never conditional (§3).
        let identity_tagged = response
            .headers()
            .get(HEALTH_TAG_HEADER)
            .is_some_and(|v| v.as_bytes() == b"identity");
        let etag = response
            .headers()
            .get(reqwest::header::ETAG)
            .and_then(|v| v.to_str().ok())
            .filter(|_| identity_tagged)
            .map(str::to_string);
        let body = read_body(response, deadline).await?;
        if !(200..300).contains(&status) {
            note_request("/health", status, body.len(), conditional, None);
            return Err(ClientError::Status {
                status,
                body: cut_body(&body, ERROR_BODY_LIMIT),
            });
        }
        let bytes = body.len();
        let (decoded, timing) = decode_off_caller_with(body, Health::decode).await;
        note_request("/health", status, bytes, conditional, Some(timing));
        let health = Arc::new(decoded?);
        self.note_server(&health);
        *self.lock_health() = etag.map(|tag| (tag, health.clone()));
        Ok(HealthAnswer {
            health,
            not_modified: false,
            held,
        })
    }

    fn lock_health(&self) -> std::sync::MutexGuard<'_, Option<(String, Arc<Health>)>> {
        // The slot holds a plain value; a poisoned lock still holds a whole one.
        self.inner.health.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Forget the capability table when `/health` shows another server or another build.
    fn note_server(&self, health: &Health) {
        let mark = ServerMark::of(health);
        let mut held = self.inner.server.lock().unwrap_or_else(|e| e.into_inner());
        if held.as_ref() != Some(&mark) {
            if held.is_some() {
                tracing::info!("server identity or build changed: route capabilities forgotten");
            }
            self.inner.capabilities.reset();
            *held = Some(mark);
        }
    }
}
