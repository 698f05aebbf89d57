//! The admitted workspace client (protocol.md §1–§2, §11).
//!
//! PUBLIC CONTRACT (other modules code against these names; the implementation may grow):
//! - `WorkspaceClient::new(ClientConfig)`; one `reqwest::Client` inside; cheap to clone (Arc).
//! - `health()` — `GET /health`, never conditional, no receipt check; `health_watch()` — the
//!   cadence probe, conditional and held only where the server advertises it.
//! - `get::<T: WireDecode>(&ReadAuthority, path_and_query)` — workspace JSON read with
//!   `X-MASC-Expected-Root`, receipt check, ETag cache keyed by (expected root, path+query),
//!   warming detection, 401 → re-acquire token → retry once.
//! - `post_json(&ReadAuthority, path, &Value)` — a write; returns the raw `WriteExchange`
//!   (status + body, or a transport outcome) that each save kind classifies (§11).
//! - `post_sse` / `get_sse` — SSE streams (chat, ask follow-up).
//!
//! The admission contract this module implements is written down, line by line with the test
//! that proves it, in `docs/audits/admission.md`.
//!
//! Files: this one holds the configuration, the client and the sending of one read with the
//! 401 rule; `token` the bearer token; `error` the typed failures; `body` reading, decoding off
//! the caller and tracing a body; `health_read` `/health`; `read` admitted JSON reads; `write`
//! POSTs; `stream` SSE; `probe` the doctor's raw GETs; `cache` the ETag cache; `encoding` paths
//! and queries.

mod body;
mod cache;
mod encoding;
mod error;
mod health_read;
mod observer;
mod probe;
mod read;
mod stream;
mod token;
mod write;

pub use body::DecodeTiming;
pub(crate) use body::{decode_off_caller_with, note_request, read_body};
pub use encoding::{QueryString, cut_body, loggable_target, path_segment};
pub use error::{ClientError, ErrorClass};
pub(crate) use error::{describe_transport, read_transport_error};
pub use health_read::{HEALTH_TAG_HEADER, HealthAnswer, PREFERENCE_APPLIED};
pub use observer::{OBSERVER_IDLE, ObserverOpenError};
pub use probe::{ProbeCredentials, ProbeResponse};
pub(crate) use read::{check_receipt, is_warming_body};
pub use stream::{SseEnd, SseOpenFailure, SseStream};
pub(crate) use token::TokenState;
pub use token::{TokenFetchError, fetch_token, sanitise_token, token_file};

use super::admission::AdmissionMode;
use super::health::Health;
use super::routes::{
    Capability, CapabilityTable, Method, NotFoundMeaning, RouteFamily, classify_404,
};
use cache::ReadCache;
use error::auth_error_code;
use health_read::ServerMark;
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
/// Bodies larger than this are decoded on the blocking pool, off the caller (G-8). Zero: every
/// body, so decode never runs on the caller's task.
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
    /// A named workspace's token file (config `token_file`); missing or unreadable is
    /// unusable, never "no token": the operator configured one.
    File(std::path::PathBuf),
    /// A named workspace's environment variable (config `token_env`); unset is unusable.
    Env(String),
    /// A named workspace's token command (config `token_command`): its standard output, run
    /// without a shell, stdin closed, bounded by [`TOKEN_COMMAND_TIMEOUT`]; a failure is
    /// unusable.
    Command(Vec<String>),
}

/// How long a token command may take before it is killed and its token counted unusable.
pub const TOKEN_COMMAND_TIMEOUT: Duration = Duration::from_secs(10);

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
    /// (`Prefer: wait`); `None` never asks. Servers that cannot hold answer at once.
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

/// A read the client admitted.
#[derive(Debug, Clone)]
pub struct Admitted<T> {
    pub value: Arc<T>,
    pub mode: AdmissionMode,
    /// `true` when this is the cached value re-admitted by a 304.
    pub from_cache: bool,
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
    /// What this server serves, per route family (older releases lack some routes).
    capabilities: CapabilityTable,
    /// The server identity and build the capability table was learned from.
    server: Mutex<Option<ServerMark>>,
    /// The tag and value of the last admitted `/health` 200 ([`WorkspaceClient::health_watch`]).
    health: Mutex<Option<(String, Arc<Health>)>>,
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
