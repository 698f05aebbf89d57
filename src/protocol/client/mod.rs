//! The admitted workspace client (protocol.md §1–§2, §11).
//!
//! PUBLIC CONTRACT (other modules code against these names; the implementation may grow):
//! - `WorkspaceClient::new(ClientConfig)`; one `reqwest::Client` inside; cheap to clone (Arc).
//! - `health()` — `GET /health`, never conditional, no receipt check; `health_watch()` — the
//!   cadence probe, conditional and held only where the server advertises it (issue 15).
//! - `get::<T: WireDecode>(&ReadAuthority, path_and_query)` — workspace JSON read with
//!   `X-MASC-Expected-Root`, receipt check, ETag cache keyed by (expected root, path+query),
//!   warming detection, 401 → re-acquire token → retry once.
//! - `post_json(&ReadAuthority, path, &Value)` — a write; returns the raw `WriteExchange`
//!   (status + body, or a transport outcome) that each save kind classifies (§11).
//! - `post_sse` / `get_sse` — SSE streams (chat, ask follow-up).
//!
//! The admission contract this module implements is written down, line by line with the test
//! that proves it, in `docs/audits/admission.md`.

mod cache;
mod encoding;
mod probe;
mod read;
mod stream;
mod write;

pub use encoding::{QueryString, cut_body, loggable_target, path_segment};
pub use probe::{ProbeCredentials, ProbeResponse};
pub(crate) use read::{check_receipt, is_warming_body};
pub use stream::{SseEnd, SseOpenFailure, SseStream};

use super::admission::AdmissionMode;
use super::decode::{DecodeError, DecodeErrorKind, WireDecode};
use super::health::Health;
use super::routes::{
    Capability, CapabilityTable, Method, NotFoundMeaning, RouteFamily, classify_404,
};
use cache::ReadCache;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::time::Instant;

/// `X-MASC-Expected-Root` (§1.2, §2.2).
pub const EXPECTED_ROOT_HEADER: &str = "x-masc-expected-root";
/// `X-MASC-Workspace-Receipt` (§2.2).
pub const RECEIPT_HEADER: &str = "x-masc-workspace-receipt";
/// `X-MASC-Agent` (§1.2).
pub const AGENT_HEADER: &str = "x-masc-agent";
/// The agent name sent on every request.
pub const AGENT_NAME: &str = "masc-tui";
/// Error bodies kept in `ClientError::Status` are cut to this many bytes.
pub const ERROR_BODY_LIMIT: usize = 2048;
/// Bodies larger than this are decoded on the blocking pool, off the caller (G-8). Since
/// issue 15 that is every body: decode never runs on the caller's task.
pub const OFFLOAD_DECODE_ABOVE: usize = 0;

/// The tracing target of the one event per HTTP read (`route`, `status`, `bytes`,
/// `conditional`, and for a decoded 200 `decode_wait_us` / `decode_us`); the timeline report
/// counts requests per minute per route from it.
pub const REQUEST_TARGET: &str = "masc_tui::request";

/// Where the bearer token comes from; re-read on 401 (§1.3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenSource {
    /// No token configured (`--no-auth` servers, or none found).
    None,
    /// A fixed token (flag); re-acquisition returns the same value.
    Fixed(String),
    /// `MASC_TOKEN`, then `<base>/.masc/auth/masc-tui.token`.
    EnvThenFile { base_path: std::path::PathBuf },
}

#[derive(Debug, Clone)]
pub struct ClientConfig {
    /// e.g. `http://127.0.0.1:8935` (no trailing slash).
    pub base_url: String,
    pub token: TokenSource,
    /// Refuse health-admission mode (§2.3 strict option).
    pub strict_receipts: bool,
    pub connect_timeout: Duration,
    pub request_timeout: Duration,
    /// SSE streams have no total limit; they end when no byte arrives for this long (§1.5).
    pub sse_idle_timeout: Duration,
    /// How long the `/health` cadence probe asks a server to hold an unchanged answer
    /// (`Prefer: wait`, issue 15); `None` never asks. Servers that cannot hold answer at once.
    pub health_hold: Option<Duration>,
}

impl ClientConfig {
    pub fn new(base_url: impl Into<String>) -> Self {
        Self {
            base_url: base_url.into(),
            token: TokenSource::None,
            strict_receipts: false,
            connect_timeout: Duration::from_secs(3),
            request_timeout: Duration::from_secs(10),
            sse_idle_timeout: Duration::from_secs(180),
            health_hold: Some(DEFAULT_HEALTH_HOLD),
        }
    }
}

/// The default [`ClientConfig::health_hold`].
pub const DEFAULT_HEALTH_HOLD: Duration = Duration::from_secs(20);

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

/// A read the client admitted.
#[derive(Debug, Clone)]
pub struct Admitted<T> {
    pub value: Arc<T>,
    pub mode: AdmissionMode,
    /// `true` when this is the cached value re-admitted by a 304.
    pub from_cache: bool,
}

/// Every way a read can fail, each distinguishable by the caller.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ClientError {
    #[error("transport: {0}")]
    Transport(String),
    #[error("timed out")]
    Timeout,
    #[error("HTTP {status}")]
    Status { status: u16, body: String },
    #[error("decode: {0}")]
    Decode(DecodeError),
    #[error("workspace receipt missing")]
    ReceiptMissing,
    #[error("workspace receipt duplicated")]
    ReceiptDuplicated,
    #[error("workspace receipt for another root")]
    ReceiptMismatch { expected: String, got: String },
    #[error("server serves another workspace")]
    WorkspaceMismatch { expected: String, served: String },
    #[error("server is warming up")]
    Warming,
    #[error("no token")]
    NoToken,
    #[error("credential refused")]
    Unauthorized { status: u16, code: Option<String> },
    #[error("304 without a cached entry")]
    NotModifiedWithoutEntry,
    #[error("server sends no workspace receipts")]
    HealthModeRefused,
    /// A 200 on an SSE endpoint whose content type is not `text/event-stream`.
    #[error("response is not an event stream")]
    NotEventStream { content_type: Option<String> },
    /// The request could not be formed (a target not starting with `/`, an empty expected
    /// root); nothing was sent.
    #[error("invalid request: {0}")]
    InvalidRequest(String),
    /// This server answered the route with MASC's unknown-route 404 (or 405): it does not serve
    /// it. Recorded in the client's [`CapabilityTable`]; later reads of the same family are
    /// answered from the table without a request until the server changes (issue 13).
    #[error("not served by this MASC: {route}")]
    NotServed { route: RouteFamily },
}

impl ClientError {
    /// The typed failure class for traces and the view (`timeout`, `status_500`, ...).
    pub fn class(&self) -> ErrorClass {
        match self {
            Self::Transport(_) => ErrorClass::Transport,
            Self::Timeout => ErrorClass::Timeout,
            Self::Status { status, .. } => ErrorClass::Status(*status),
            Self::Decode(e) => ErrorClass::Decode(e.kind),
            Self::ReceiptMissing => ErrorClass::ReceiptMissing,
            Self::ReceiptDuplicated => ErrorClass::ReceiptDuplicated,
            Self::ReceiptMismatch { .. } => ErrorClass::ReceiptMismatch,
            Self::WorkspaceMismatch { .. } => ErrorClass::WorkspaceMismatch,
            Self::Warming => ErrorClass::Warming,
            Self::NoToken => ErrorClass::NoToken,
            Self::Unauthorized { status, .. } => ErrorClass::Unauthorized(*status),
            Self::NotModifiedWithoutEntry => ErrorClass::NotModifiedWithoutEntry,
            Self::HealthModeRefused => ErrorClass::HealthModeRefused,
            Self::NotEventStream { .. } => ErrorClass::NotEventStream,
            Self::InvalidRequest(_) => ErrorClass::InvalidRequest,
            Self::NotServed { .. } => ErrorClass::NotServed,
        }
    }
}

/// The class of a [`ClientError`]: a closed set, shown and traced by its stable snake_case
/// name (`Display`), compared as a value (never as text).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorClass {
    Transport,
    Timeout,
    Status(u16),
    Decode(DecodeErrorKind),
    ReceiptMissing,
    ReceiptDuplicated,
    ReceiptMismatch,
    WorkspaceMismatch,
    Warming,
    NoToken,
    Unauthorized(u16),
    NotModifiedWithoutEntry,
    HealthModeRefused,
    NotEventStream,
    InvalidRequest,
    /// This MASC does not serve the route (its unknown-route 404, issue 13).
    NotServed,
}

impl std::fmt::Display for ErrorClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Transport => f.write_str("transport"),
            Self::Timeout => f.write_str("timeout"),
            Self::Status(status) => write!(f, "status_{status}"),
            Self::Decode(kind) => write!(f, "decode_{}", kind.reason()),
            Self::ReceiptMissing => f.write_str("receipt_missing"),
            Self::ReceiptDuplicated => f.write_str("receipt_duplicated"),
            Self::ReceiptMismatch => f.write_str("receipt_mismatch"),
            Self::WorkspaceMismatch => f.write_str("workspace_mismatch"),
            Self::Warming => f.write_str("warming"),
            Self::NoToken => f.write_str("no_token"),
            Self::Unauthorized(status) => write!(f, "unauthorized_{status}"),
            Self::NotModifiedWithoutEntry => f.write_str("not_modified_without_entry"),
            Self::HealthModeRefused => f.write_str("health_mode_refused"),
            Self::NotEventStream => f.write_str("not_event_stream"),
            Self::InvalidRequest => f.write_str("invalid_request"),
            Self::NotServed => f.write_str("not_served"),
        }
    }
}

/// What happened to a POST at the transport level, before a save kind classifies it (§11).
#[derive(Debug, Clone, PartialEq)]
pub enum WriteExchange {
    /// Refused before anything left the machine (connection refused, no token...).
    NotSent { reason: String },
    /// The request may have left the machine and no complete response came back.
    OutcomeUnknown { reason: String },
    /// A complete response.
    Responded { status: u16, body: bytes::Bytes },
}

/// Cheap-to-clone admitted client: one `reqwest::Client`, one token slot, one read cache.
#[derive(Clone)]
pub struct WorkspaceClient {
    inner: Arc<ClientInner>,
}

struct ClientInner {
    config: ClientConfig,
    http: reqwest::Client,
    /// `None` until first needed; replaced on a 401 (§1.3).
    token: Mutex<Option<TokenState>>,
    cache: ReadCache,
    /// What this server serves, per route family (issue 13).
    capabilities: CapabilityTable,
    /// The server identity and build the capability table was learned from.
    server: Mutex<Option<ServerMark>>,
    /// The tag and value of the last admitted `/health` 200 ([`WorkspaceClient::health_watch`]).
    health: Mutex<Option<(String, Arc<Health>)>>,
}

/// What, in a `/health` answer, changes when the server is another one or was upgraded: the
/// capability table is forgotten when it changes.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ServerMark {
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
            let file = base_path.join(".masc").join("auth").join("masc-tui.token");
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

/// A short transport reason without the URL (G-10: no query values in diagnostics).
pub(crate) fn describe_transport(err: &reqwest::Error) -> String {
    let kind = if err.is_connect() {
        "connect"
    } else if err.is_timeout() {
        "timeout"
    } else if err.is_body() || err.is_decode() {
        "body"
    } else if err.is_request() {
        "request"
    } else if err.is_builder() {
        "builder"
    } else {
        "transport"
    };
    let mut out = kind.to_string();
    let mut source = std::error::Error::source(err);
    while let Some(cause) = source {
        out.push_str(": ");
        out.push_str(&cause.to_string());
        source = cause.source();
    }
    out
}

/// The `auth_error_code` of a 401/403 body, if it has one (§1.3).
fn auth_error_code(body: &[u8]) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct AuthBody {
        auth_error_code: Option<String>,
    }
    serde_json::from_slice::<AuthBody>(body)
        .ok()
        .and_then(|b| b.auth_error_code)
}

/// What a read request carries besides the token.
pub(crate) struct ReadRequest<'a> {
    pub target: &'a str,
    pub expected_root: Option<&'a str>,
    pub if_none_match: Option<String>,
    pub event_stream: bool,
    /// `Prefer: wait=<secs>` (RFC 7240) on a conditional `/health`: the server may hold the
    /// answer this long; the request's deadline grows by as much.
    pub hold: Option<Duration>,
}

impl WorkspaceClient {
    pub fn new(config: ClientConfig) -> Result<Self, ClientError> {
        let mut defaults = HeaderMap::new();
        defaults.insert(
            HeaderName::from_static(AGENT_HEADER),
            HeaderValue::from_static(AGENT_NAME),
        );
        // No total timeout on the client: plain requests get a per-request deadline, streams
        // get an idle limit instead (§1.5). No compression features are enabled, so no
        // `Accept-Encoding` is sent (§1.2).
        let http = reqwest::Client::builder()
            .connect_timeout(config.connect_timeout)
            .default_headers(defaults)
            .build()
            .map_err(|e| ClientError::Transport(describe_transport(&e)))?;
        Ok(Self {
            inner: Arc::new(ClientInner {
                config,
                http,
                token: Mutex::new(None),
                cache: ReadCache::default(),
                capabilities: CapabilityTable::default(),
                server: Mutex::new(None),
                health: Mutex::new(None),
            }),
        })
    }

    pub fn config(&self) -> &ClientConfig {
        &self.inner.config
    }

    /// One refresh tick of the read cache: entries unread for two ticks are dropped (§2.5).
    /// Returns how many were dropped.
    pub fn sweep_cache(&self) -> usize {
        self.inner.cache.sweep()
    }

    /// Forget every cached read of a root whose epoch was withdrawn, and what the server was
    /// known to serve (a withdrawn epoch may be a restart into another release).
    pub fn forget_root(&self, root: &str) {
        self.inner.cache.forget_root(root);
        self.inner.capabilities.reset();
    }

    /// The shared per-route capability table of this client's server (served / not served /
    /// unknown per route family). Clones share the table.
    pub fn capabilities(&self) -> CapabilityTable {
        self.inner.capabilities.clone()
    }

    /// A read of a family already known not to be served: answered from the table, no request
    /// (never retried in a loop; the table is forgotten when the server changes).
    pub(crate) fn known_not_served(&self, method: Method, target: &str) -> Option<RouteFamily> {
        let family = RouteFamily::of_target(method, target)?;
        (self.inner.capabilities.get(family) == Capability::NotServed).then_some(family)
    }

    /// Learn from one answer of `target`: MASC's unknown-route 404 (or a 405) marks the family
    /// not served and returns it; any other answer a route handler gives marks it served.
    /// 401/403/429, 5xx and transport failures say nothing about the route.
    pub(crate) fn observe_route(
        &self,
        method: Method,
        target: &str,
        status: u16,
        body: &[u8],
    ) -> Option<RouteFamily> {
        let family = RouteFamily::of_target(method, target)?;
        let learned = match status {
            404 => match classify_404(family, body) {
                NotFoundMeaning::NotServed => Capability::NotServed,
                NotFoundMeaning::ObjectNotFound => Capability::Served,
            },
            405 => Capability::NotServed,
            401 | 403 | 429 => return None,
            s if (200..500).contains(&s) => Capability::Served,
            _ => return None,
        };
        let before = self.inner.capabilities.record(family, learned);
        if before != learned {
            tracing::info!(
                route = family.as_str(),
                capability = learned.as_str(),
                status,
                "route capability learned"
            );
        }
        (learned == Capability::NotServed).then_some(family)
    }

    /// Number of cached reads (diagnostics and tests).
    pub fn cached_reads(&self) -> usize {
        self.inner.cache.len()
    }

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

    /// The `/health` cadence probe (issue 15): conditional on the tag of the last answer this
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

    fn url(&self, target: &str) -> Result<String, ClientError> {
        if !target.starts_with('/') {
            return Err(ClientError::InvalidRequest(
                "request target must start with '/'".into(),
            ));
        }
        Ok(format!(
            "{}{target}",
            self.inner.config.base_url.trim_end_matches('/')
        ))
    }

    /// The held token, loading it on first use.
    async fn token(&self) -> TokenState {
        if let Some(held) = self.lock_token().clone() {
            return held;
        }
        let loaded = load_token(&self.inner.config.token).await;
        *self.lock_token() = Some(loaded.clone());
        loaded
    }

    /// Re-acquire the token from its source after a 401 (§1.3).
    async fn reacquire_token(&self) -> TokenState {
        let loaded = load_token(&self.inner.config.token).await;
        *self.lock_token() = Some(loaded.clone());
        loaded
    }

    fn lock_token(&self) -> std::sync::MutexGuard<'_, Option<TokenState>> {
        // The slot holds a plain value; a poisoned lock still holds a whole one.
        self.inner.token.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn build_read(
        &self,
        url: &str,
        request: &ReadRequest<'_>,
        token: &TokenState,
    ) -> reqwest::RequestBuilder {
        let mut builder = self.inner.http.get(url);
        if let TokenState::Usable(value) = token {
            builder = builder.header(reqwest::header::AUTHORIZATION, value.clone());
        }
        if let Some(root) = request.expected_root {
            builder = builder.header(
                EXPECTED_ROOT_HEADER,
                super::admission::encode_root_header(root),
            );
        }
        if let Some(tag) = &request.if_none_match {
            builder = builder.header(reqwest::header::IF_NONE_MATCH, tag.as_str());
        }
        if let Some(hold) = request.hold {
            builder = builder.header("prefer", format!("wait={}", hold.as_secs().max(1)));
        }
        if request.event_stream {
            builder = builder.header(reqwest::header::ACCEPT, "text/event-stream");
        }
        builder
    }

    /// Send one read until its response head, applying the 401 rule (§1.3): on 401 the token
    /// is re-acquired and the identical request repeated exactly once; a second 401 is
    /// `Unauthorized`; no token after a 401 is `NoToken`; 403 is never retried. The returned
    /// deadline bounds the body read of plain requests.
    pub(crate) async fn send_read(
        &self,
        request: &ReadRequest<'_>,
    ) -> Result<(reqwest::Response, Instant), ClientError> {
        let url = self.url(request.target)?;
        let token = self.token().await;
        if matches!(token, TokenState::Unusable) {
            return Err(ClientError::NoToken);
        }
        let (first, deadline) = self.send_read_once(&url, request, &token, 1).await?;
        let response = if first.status() == reqwest::StatusCode::UNAUTHORIZED {
            // Drain the refused answer so the connection can be reused; its content is moot.
            let _ = read_body(first, deadline).await;
            match self.reacquire_token().await {
                TokenState::Absent | TokenState::Unusable => return Err(ClientError::NoToken),
                fresh @ TokenState::Usable(_) => {
                    let (second, deadline) = self.send_read_once(&url, request, &fresh, 2).await?;
                    if second.status() == reqwest::StatusCode::UNAUTHORIZED {
                        let body = read_body(second, deadline).await.unwrap_or_default();
                        return Err(ClientError::Unauthorized {
                            status: 401,
                            code: auth_error_code(&body),
                        });
                    }
                    (second, deadline)
                }
            }
        } else {
            (first, deadline)
        };
        let (response, deadline) = response;
        if response.status() == reqwest::StatusCode::FORBIDDEN {
            let body = read_body(response, deadline).await.unwrap_or_default();
            return Err(ClientError::Unauthorized {
                status: 403,
                code: auth_error_code(&body),
            });
        }
        Ok((response, deadline))
    }

    async fn send_read_once(
        &self,
        url: &str,
        request: &ReadRequest<'_>,
        token: &TokenState,
        attempt: u8,
    ) -> Result<(reqwest::Response, Instant), ClientError> {
        let target = loggable_target(request.target);
        let deadline =
            Instant::now() + self.inner.config.request_timeout + request.hold.unwrap_or_default();
        tracing::debug!(
            method = "GET",
            route = %target,
            attempt,
            conditional = request.if_none_match.is_some(),
            "request sent"
        );
        let sent = tokio::time::timeout_at(deadline, self.build_read(url, request, token).send())
            .await
            .map_err(|_| ClientError::Timeout)?
            .map_err(|e| read_transport_error(&e))?;
        tracing::debug!(
            method = "GET",
            route = %target,
            attempt,
            status = sent.status().as_u16(),
            "response received"
        );
        Ok((sent, deadline))
    }
}

fn read_transport_error(err: &reqwest::Error) -> ClientError {
    if err.is_timeout() {
        ClientError::Timeout
    } else if err.is_builder() {
        ClientError::InvalidRequest(describe_transport(err))
    } else {
        ClientError::Transport(describe_transport(err))
    }
}

/// The whole body of a plain response, bounded by the request deadline.
pub(crate) async fn read_body(
    response: reqwest::Response,
    deadline: Instant,
) -> Result<bytes::Bytes, ClientError> {
    tokio::time::timeout_at(deadline, response.bytes())
        .await
        .map_err(|_| ClientError::Timeout)?
        .map_err(|e| read_transport_error(&e))
}

/// How long one decode took: `wait` from handing the body to the pool until the value was
/// back on the caller (pool wait, decode and return: the `decode_wait` of G-8), `run` the
/// decoder alone.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DecodeTiming {
    pub wait: std::time::Duration,
    pub run: std::time::Duration,
}

/// Decode a body with the caller's decoder on the blocking pool, so the caller's task never
/// runs a JSON decode or a projection (G-8). Returns the result and its [`DecodeTiming`].
pub(crate) async fn decode_off_caller_with<T, F>(
    body: bytes::Bytes,
    decode: F,
) -> (Result<T, ClientError>, DecodeTiming)
where
    T: Send + 'static,
    F: FnOnce(&[u8]) -> Result<T, DecodeError> + Send + 'static,
{
    let handed = std::time::Instant::now();
    let joined = tokio::task::spawn_blocking(move || {
        let started = std::time::Instant::now();
        let result = decode(&body);
        (result, started.elapsed())
    })
    .await;
    let wait = handed.elapsed();
    match joined {
        Ok((result, run)) => (
            result.map_err(ClientError::Decode),
            DecodeTiming { wait, run },
        ),
        Err(join) => (
            Err(ClientError::Decode(DecodeError::new(
                DecodeErrorKind::Other("decode_task_failed"),
                ".",
                if join.is_panic() {
                    "decoder panicked"
                } else {
                    "decoder cancelled"
                },
            ))),
            DecodeTiming {
                wait,
                run: std::time::Duration::ZERO,
            },
        ),
    }
}

/// The one event per HTTP read (target [`REQUEST_TARGET`]): which route family, what came
/// back and, for a decoded body, how long the decode took including the pool wait.
pub(crate) fn note_request(
    target: &str,
    status: u16,
    bytes: usize,
    conditional: bool,
    decoded: Option<DecodeTiming>,
) {
    let route = RouteFamily::of_target(Method::Get, target).map_or("unlisted", |f| f.as_str());
    let micros = |d: std::time::Duration| u64::try_from(d.as_micros()).unwrap_or(u64::MAX);
    match decoded {
        Some(t) => tracing::info!(
            target: "masc_tui::request",
            route,
            status,
            bytes = bytes as u64,
            conditional,
            decode_wait_us = micros(t.wait),
            decode_us = micros(t.run),
            "read"
        ),
        None => tracing::info!(
            target: "masc_tui::request",
            route,
            status,
            bytes = bytes as u64,
            conditional,
            "read"
        ),
    }
}
