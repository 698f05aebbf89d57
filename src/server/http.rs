//! Helpers every route family uses: the auth/admission [`Guard`] extractor, JSON and error
//! responses, and the response markers the fault layer reads (echo fields, page cursors).

use super::state::AppState;
use super::store::StoreError;
use crate::protocol::admission::{decode_root_header, encode_root_header};
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use std::marker::PhantomData;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

pub const EXPECTED_ROOT_HEADER: &str = "x-masc-expected-root";
pub const RECEIPT_HEADER: &str = "x-masc-workspace-receipt";

pub use super::auth_class::AuthClass;

/// Type-level auth class, so a handler states its class in its signature: `_: Guard<Read>`.
pub trait ClassMarker: Send + Sync + 'static {
    const CLASS: AuthClass;
}

/// No token needed (loopback servers never run strict auth).
pub struct Public;
/// Token with read permission.
pub struct Read;
/// Token allowed to call the route's tool (`channel_gate`, `masc_keeper_delegate`, …).
pub struct Operator;
/// Token with admin permission.
pub struct Admin;

impl ClassMarker for Public {
    const CLASS: AuthClass = AuthClass::Public;
}
impl ClassMarker for Read {
    const CLASS: AuthClass = AuthClass::Read;
}
impl ClassMarker for Operator {
    const CLASS: AuthClass = AuthClass::Operator;
}
impl ClassMarker for Admin {
    const CLASS: AuthClass = AuthClass::Admin;
}

/// Set by the middleware, flipped by [`Guard`]: lets the middleware log an `/api/v1` route
/// that forgot its guard, and tells the response cache which auth class the route checks.
#[derive(Clone, Default)]
pub(crate) struct GuardSeen {
    pub seen: Arc<AtomicBool>,
    /// [`AuthClass::code`] of the guard that ran (0: none yet).
    pub class: Arc<std::sync::atomic::AtomicU8>,
}

/// Per-request fault flags a handler may need to apply itself (SSE routes build their stream
/// before the middleware sees it). Read with [`request_faults`].
#[derive(Debug, Clone, Copy, Default)]
pub struct RequestFaults {
    pub echo_wrong: bool,
    pub repeat_cursor: bool,
    /// A scripted chat turn that ends without a reply (chat stream only).
    pub chat_turn: Option<super::faults::ChatTurnFault>,
    /// A resumed chat stream replays its turn from the first event (chat stream only).
    pub resume_overlap: bool,
    /// A wrong batch binding on a newer-MASC chat stream (chat stream only; C-37).
    pub batch_bound: Option<super::faults::BatchBoundFault>,
    /// What a newer MASC's `/up` does beyond its plain create or update (§15.11).
    pub keeper_up: Option<super::faults::KeeperUpFault>,
    /// Any fault fired on this request (a handler that could hold its answer does not).
    pub any: bool,
}

/// The fault flags of this request (default when none fired).
pub fn request_faults(parts: &axum::http::Extensions) -> RequestFaults {
    parts.get::<RequestFaults>().copied().unwrap_or_default()
}

/// Extractor for this request's [`RequestFaults`] (never rejects).
pub struct Faults(pub RequestFaults);

impl<S: Send + Sync> FromRequestParts<S> for Faults {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(Faults(request_faults(&parts.extensions)))
    }
}

/// Checks the route's auth class (401 first, §2.2 step 1), then for `/api/v1/…` the
/// `X-MASC-Expected-Root` header (409 `workspace_mismatch` before any read or effect).
/// Every `/api/v1` handler takes one as its first argument.
pub struct Guard<C: ClassMarker>(PhantomData<C>);

impl<C: ClassMarker> FromRequestParts<AppState> for Guard<C> {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Response> {
        if let Some(seen) = parts.extensions.get::<GuardSeen>() {
            seen.seen.store(true, Ordering::SeqCst);
            seen.class.store(C::CLASS.code(), Ordering::SeqCst);
        }
        check_auth(C::CLASS, &parts.headers, state).map_err(|e| *e.0)?;
        if parts.uri.path().starts_with("/api/v1/") {
            check_expected_root(&parts.headers, state).map_err(|e| *e.0)?;
        }
        Ok(Guard(PhantomData))
    }
}

/// 401 body and header of §1.3.
pub fn unauthorized(code: &str, message: &str) -> Response {
    let mut resp = (
        StatusCode::UNAUTHORIZED,
        axum::Json(json!({"error": message, "auth_error_code": code})),
    )
        .into_response();
    resp.headers_mut()
        .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    resp
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

pub(crate) fn check_auth(
    class: AuthClass,
    headers: &HeaderMap,
    state: &AppState,
) -> Result<(), ApiError> {
    if class == AuthClass::Public {
        return Ok(());
    }
    let Some(token) = state.auth().token.as_deref() else {
        return Ok(());
    };
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Err(ApiError::from(unauthorized(
            "missing_token",
            "missing bearer token",
        )));
    };
    let Some(presented) = value.to_str().ok().and_then(bearer_credentials) else {
        return Err(ApiError::from(unauthorized(
            "invalid_token",
            "authorization must be a Bearer token",
        )));
    };
    if constant_time_eq(presented.as_bytes(), token.as_bytes()) {
        Ok(())
    } else {
        Err(ApiError::from(unauthorized(
            "invalid_token",
            "invalid bearer token",
        )))
    }
}

/// The credentials of a `Bearer` authorization value; the scheme is case-insensitive
/// (RFC 9110 §11.1) and separated from the token by one or more spaces.
pub(crate) fn bearer_credentials(value: &str) -> Option<&str> {
    let value = value.trim_start();
    let (scheme, rest) = value.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("bearer") {
        return None;
    }
    let token = rest.trim();
    (!token.is_empty()).then_some(token)
}

pub(crate) fn check_expected_root(headers: &HeaderMap, state: &AppState) -> Result<(), ApiError> {
    let Some(value) = headers.get(EXPECTED_ROOT_HEADER) else {
        return Ok(());
    };
    let served = state.identity().masc_root;
    let expected = decode_root_header(value.as_bytes())
        .unwrap_or_else(|| String::from_utf8_lossy(value.as_bytes()).into_owned());
    if expected == served {
        return Ok(());
    }
    Err(ApiError::from(json_status(
        StatusCode::CONFLICT,
        json!({
            "error": "workspace_mismatch",
            "expected_root": expected,
            "served_root": served,
        }),
    )))
}

/// The receipt header value of a root (§2.2 point 5).
pub fn receipt_value(root: &str) -> HeaderValue {
    HeaderValue::from_str(&encode_root_header(root)).unwrap_or(HeaderValue::from_static("%3F"))
}

/// 200 with a JSON body.
pub fn json_ok(value: Value) -> Response {
    (StatusCode::OK, axum::Json(value)).into_response()
}

/// 200 with a body already serialized as JSON (what [`json_ok`] sends for the same value: the
/// same bytes and `content-type`), for large answers built without a `Value` (a `Value` per
/// row of a large answer costs many times the body's size).
pub fn json_bytes_ok(body: Vec<u8>) -> Response {
    (
        StatusCode::OK,
        [(
            axum::http::header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body,
    )
        .into_response()
}

/// Any status with a JSON body.
pub fn json_status(status: StatusCode, value: Value) -> Response {
    (status, axum::Json(value)).into_response()
}

/// Dashboard/runtime/keeper error envelope `{"error": msg}` (§1.4).
pub fn error_body(status: StatusCode, message: &str) -> Response {
    json_status(status, json!({ "error": message }))
}

/// Gate error envelope `{"ok": false, "error": msg}` (§1.4).
pub fn gate_error(status: StatusCode, message: &str) -> Response {
    json_status(status, json!({ "ok": false, "error": message }))
}

/// Top-level keys of a JSON response that echo the request (task_id, cursor, operation_id…).
/// The `{"echo":"wrong"}` fault alters exactly these.
#[derive(Debug, Clone)]
pub struct EchoFields(pub Vec<&'static str>);

/// Marks a paged response: `{"repeat_cursor":true}` replaces `field` by the request's cursor.
#[derive(Debug, Clone)]
pub struct NextCursor {
    pub field: &'static str,
    pub request: Option<Value>,
}

/// Attach the echo marker to a response.
pub fn with_echo(mut resp: Response, fields: &[&'static str]) -> Response {
    resp.extensions_mut().insert(EchoFields(fields.to_vec()));
    resp
}

/// Attach the page-cursor marker to a response.
pub fn with_next_cursor(
    mut resp: Response,
    field: &'static str,
    request: Option<Value>,
) -> Response {
    resp.extensions_mut().insert(NextCursor { field, request });
    resp
}

/// A handler error that is already a response (store failures become 500 `{"error"}`).
pub struct ApiError(pub Box<Response>);

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        *self.0
    }
}

impl From<StoreError> for ApiError {
    fn from(err: StoreError) -> Self {
        tracing::error!(error = %err, "store failure");
        ApiError(Box::new(error_body(
            StatusCode::INTERNAL_SERVER_ERROR,
            &format!("store error: {err}"),
        )))
    }
}

impl From<Response> for ApiError {
    fn from(resp: Response) -> Self {
        ApiError(Box::new(resp))
    }
}

pub type ApiResult = Result<Response, ApiError>;

/// Parse a query string into ordered (key, value) pairs, percent-decoded. Repeated keys keep
/// the first value when read through [`query_get`].
pub fn parse_query(raw: Option<&str>) -> Vec<(String, String)> {
    let Some(raw) = raw else { return Vec::new() };
    raw.split('&')
        .filter(|s| !s.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (pct_decode(k), pct_decode(v))
        })
        .collect()
}

fn pct_decode(s: &str) -> String {
    let plus = s.replace('+', " ");
    percent_encoding::percent_decode_str(&plus)
        .decode_utf8_lossy()
        .into_owned()
}

pub fn query_get<'a>(q: &'a [(String, String)], key: &str) -> Option<&'a str> {
    q.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
}

/// `limit` / `offset` clamp shared by paged routes: absent or unparseable = default; an
/// integer beyond `i64` clamps like any other out-of-range value (a huge `offset` is past the
/// end, never a silent restart at 0 that would make an offset-paging client loop).
pub fn clamp_limit(raw: Option<&str>, default: i64, min: i64, max: i64) -> i64 {
    let Some(text) = raw.map(str::trim) else {
        return default.clamp(min, max);
    };
    let value = match text.parse::<i64>() {
        Ok(v) => v,
        Err(_) => {
            let (negative, digits) = match text.as_bytes().first() {
                Some(b'-') => (true, &text[1..]),
                Some(b'+') => (false, &text[1..]),
                _ => (false, text),
            };
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                default
            } else if negative {
                i64::MIN
            } else {
                i64::MAX
            }
        }
    };
    value.clamp(min, max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_parsing_decodes_and_keeps_order() {
        let q = parse_query(Some("task_id=t%2D1&limit=5&name=%ED%95%98%EB%8A%98&x"));
        assert_eq!(query_get(&q, "task_id"), Some("t-1"));
        assert_eq!(query_get(&q, "name"), Some("하늘"));
        assert_eq!(query_get(&q, "x"), Some(""));
        assert_eq!(query_get(&q, "y"), None);
    }

    #[test]
    fn issue16_bearer_scheme_is_case_insensitive() {
        assert_eq!(bearer_credentials("Bearer abc"), Some("abc"));
        assert_eq!(bearer_credentials("bearer abc"), Some("abc"));
        assert_eq!(bearer_credentials("BEARER   abc "), Some("abc"));
        assert_eq!(bearer_credentials("Basic abc"), None);
        assert_eq!(bearer_credentials("Bearer"), None);
        assert_eq!(bearer_credentials("Bearer "), None);
        assert_eq!(bearer_credentials("Bearerabc"), None);
    }

    #[test]
    fn limit_clamps() {
        assert_eq!(clamp_limit(None, 50, 1, 200), 50);
        assert_eq!(clamp_limit(Some("0"), 50, 1, 200), 1);
        assert_eq!(clamp_limit(Some("999"), 50, 1, 200), 200);
        assert_eq!(clamp_limit(Some("abc"), 50, 1, 200), 50);
    }

    #[test]
    fn issue16_oversized_offset_clamps_to_the_maximum_not_zero() {
        let huge = "99999999999999999999999999";
        assert_eq!(clamp_limit(Some(huge), 0, 0, 5_000), 5_000);
        assert_eq!(clamp_limit(Some(&format!("+{huge}")), 0, 0, 5_000), 5_000);
        assert_eq!(clamp_limit(Some(&format!("-{huge}")), 0, 0, 5_000), 0);
        assert_eq!(clamp_limit(Some(huge), 50, 1, 200), 200);
        assert_eq!(clamp_limit(Some(huge), 0, 0, i64::MAX), i64::MAX);
        assert_eq!(clamp_limit(Some("12x"), 0, 0, 5_000), 0, "not a number");
        assert_eq!(clamp_limit(Some("-"), 7, 0, 5_000), 7);
    }
}
