//! Every way a request of the client can fail, each a typed value ([`ClientError`]) with a
//! closed class for traces and the view ([`ErrorClass`]), and the transport reasons and auth
//! codes they carry (without URLs, G-10).

use crate::protocol::decode::{DecodeError, DecodeErrorKind};
use crate::protocol::routes::RouteFamily;

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
    /// answered from the table without a request until the server changes (an older MASC is
    /// not asked again and again for what it lacks).
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
    /// This MASC does not serve the route (its unknown-route 404).
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

pub(crate) fn read_transport_error(err: &reqwest::Error) -> ClientError {
    if err.is_timeout() {
        ClientError::Timeout
    } else if err.is_builder() {
        ClientError::InvalidRequest(describe_transport(err))
    } else {
        ClientError::Transport(describe_transport(err))
    }
}

/// The `auth_error_code` of a 401/403 body, if it has one (§1.3).
pub(super) fn auth_error_code(body: &[u8]) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct AuthBody {
        auth_error_code: Option<String>,
    }
    serde_json::from_slice::<AuthBody>(body)
        .ok()
        .and_then(|b| b.auth_error_code)
}
