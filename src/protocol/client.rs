//! The admitted workspace client (protocol.md §1–§2, §11).
//!
//! PUBLIC CONTRACT (other modules code against these names; the implementation may grow):
//! - `WorkspaceClient::new(ClientConfig)`; one `reqwest::Client` inside; cheap to clone (Arc).
//! - `health()` — `GET /health`, never conditional, no receipt check.
//! - `get::<T: WireDecode>(&ReadAuthority, path_and_query)` — workspace JSON read with
//!   `X-MASC-Expected-Root`, receipt check, ETag cache keyed by (expected root, path+query),
//!   warming detection, 401 → re-acquire token → retry once.
//! - `post_json(&ReadAuthority, path, &Value)` — a write; returns the raw `WriteExchange`
//!   (status + body, or a transport outcome) that each save kind classifies (§11).
//! - `post_sse` / `get_sse` — SSE streams (chat, ask follow-up).

use super::admission::{AdmissionMode, ReadAuthority};
use super::decode::{DecodeError, WireDecode};
use std::sync::Arc;
use std::time::Duration;

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
    pub sse_idle_timeout: Duration,
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
        }
    }
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
}

impl ClientError {
    /// Stable snake_case class for traces and the view (`timeout`, `status_500`, ...).
    pub fn class(&self) -> String {
        match self {
            Self::Transport(_) => "transport".into(),
            Self::Timeout => "timeout".into(),
            Self::Status { status, .. } => format!("status_{status}"),
            Self::Decode(e) => format!("decode_{}", e.reason()),
            Self::ReceiptMissing => "receipt_missing".into(),
            Self::ReceiptDuplicated => "receipt_duplicated".into(),
            Self::ReceiptMismatch { .. } => "receipt_mismatch".into(),
            Self::WorkspaceMismatch { .. } => "workspace_mismatch".into(),
            Self::Warming => "warming".into(),
            Self::NoToken => "no_token".into(),
            Self::Unauthorized { status, .. } => format!("unauthorized_{status}"),
            Self::NotModifiedWithoutEntry => "not_modified_without_entry".into(),
            Self::HealthModeRefused => "health_mode_refused".into(),
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

/// Cheap-to-clone admitted client.
#[derive(Clone)]
pub struct WorkspaceClient {
    #[allow(dead_code)]
    inner: Arc<ClientInner>,
}

struct ClientInner {
    #[allow(dead_code)]
    config: ClientConfig,
}

impl WorkspaceClient {
    pub fn new(config: ClientConfig) -> Result<Self, ClientError> {
        Ok(Self {
            inner: Arc::new(ClientInner { config }),
        })
    }

    /// `GET /health` (never conditional, no receipt).
    pub async fn health(&self) -> Result<super::health::Health, ClientError> {
        Err(ClientError::Transport("client not built yet".into()))
    }

    /// An admitted workspace JSON read.
    pub async fn get<T: WireDecode + Send + Sync + 'static>(
        &self,
        _auth: &ReadAuthority,
        _path_and_query: &str,
    ) -> Result<Admitted<T>, ClientError> {
        Err(ClientError::Transport("client not built yet".into()))
    }

    /// A write; classification into §11 outcomes is the save kind's job.
    pub async fn post_json(
        &self,
        _auth: &ReadAuthority,
        _path_and_query: &str,
        _body: &serde_json::Value,
    ) -> WriteExchange {
        WriteExchange::NotSent {
            reason: "client not built yet".into(),
        }
    }
}
