//! The one layer every request passes: request counts, fault injection (§13), the boot
//! warming answers (§1.4), receipts (§2.2) and weak ETags / 304 (§2.5).
//!
//! Auth and the expected-root check live in the [`Guard`](super::http::Guard) extractor, so
//! they run after routing but before the handler reads or writes anything.

use super::cache::{self, CachedResponse};
use super::compat;
use super::conn::ConnKill;
use super::faults::{DropPoint, FaultEngine, FiredFaults, ReceiptFault};
use super::http::{
    AuthClass, EchoFields, GuardSeen, NextCursor, RECEIPT_HEADER, RequestFaults, check_auth,
    check_expected_root, receipt_value,
};
use super::state::AppState;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use futures::StreamExt;
use md5::{Digest, Md5};
use serde_json::{Value, json};
use std::sync::atomic::Ordering;

/// `Preference-Applied` (RFC 7240), set by a `/health` the server held (issue 15).
pub const PREFERENCE_APPLIED: &str = "preference-applied";

/// `x-masc-health-tag: identity`: this `/health` ETag covers the identity fields only, so a
/// client may probe conditionally (a masc-tui extension; MASC's `/health` is never conditional,
/// protocol.md §3).
pub const HEALTH_TAG_HEADER: &str = "x-masc-health-tag";

/// Largest body the layer buffers to compute an ETag.
const BODY_LIMIT: usize = 64 * 1024 * 1024;

/// What the `{"malformed":true}` fault sends instead of the body: not JSON.
const MALFORMED_BODY: &[u8] = b"{\"malformed\": tru";

/// The receipt a `{"receipt":"wrong"}` fault sends.
const WRONG_ROOT: &str = "/srv/another-workspace/.masc";

/// Weak ETag of a body: `W/"<first 12 hex of md5>"` (§2.5).
pub fn weak_etag(body: &[u8]) -> String {
    let digest = Md5::digest(body);
    let hex = hex::encode(digest);
    format!("W/\"{}\"", &hex[..12])
}

struct Ctx {
    method: Method,
    path: String,
    is_get: bool,
    is_api: bool,
    is_admin: bool,
    if_none_match: Option<String>,
    faults: FiredFaults,
}

pub async fn workspace_layer(
    State(state): State<AppState>,
    mut req: Request,
    next: Next,
) -> Response {
    let method = req.method().clone();
    let path = req.uri().path().to_string();
    // Who may talk to this server at all comes before anything else (docs/security.md):
    // a refused request is not counted, faulted, authenticated or routed.
    if let Err(refusal) = state
        .origin_policy()
        .check(&method, req.uri(), req.headers())
    {
        tracing::warn!(
            target: "masc_tui::server::refused",
            method = %method,
            path = %path,
            reason = refusal.as_str(),
            "request refused"
        );
        return refusal.response();
    }
    let query = req.uri().query().unwrap_or("").to_string();
    state.count_request(method.as_str(), &path);
    let is_admin = path.starts_with("/__admin/");
    let fired = if is_admin {
        Vec::new()
    } else {
        state.decide_faults(method.as_str(), &path, &query)
    };
    for f in &fired {
        tracing::info!(
            target: "masc_tui::server::fault",
            rule = f.index,
            nth_match = f.nth_match,
            method = %method,
            path = %path,
            query = %query,
            fault = ?f.fault,
            "fault injected"
        );
    }
    let faults = FaultEngine::merge(&fired);
    let is_get = method == Method::GET || method == Method::HEAD;
    let kill = req.extensions().get::<ConnKill>().cloned();

    if faults.delay_ms > 0 {
        tokio::time::sleep(std::time::Duration::from_millis(faults.delay_ms)).await;
    }
    // Reads drop as soon as the request arrived; writes drop before or after the handler.
    if let Some(point) = faults.drop
        && (is_get || point == DropPoint::BeforeApply)
    {
        return drop_connection(kill).await;
    }

    let ctx = Ctx {
        method: method.clone(),
        path: path.clone(),
        is_get,
        is_api: path.starts_with("/api/v1/"),
        is_admin,
        if_none_match: req
            .headers()
            .get(header::IF_NONE_MATCH)
            .and_then(|v| v.to_str().ok())
            .map(|s| s.trim().to_string()),
        faults,
    };
    req.extensions_mut().insert(RequestFaults {
        echo_wrong: ctx.faults.echo_wrong,
        repeat_cursor: ctx.faults.repeat_cursor,
        chat_turn: ctx.faults.chat_turn,
        resume_overlap: ctx.faults.resume_overlap,
        any: !ctx.faults.is_empty(),
    });
    let seen = GuardSeen::default();
    req.extensions_mut().insert(seen.clone());
    // Issue 15: a read route's answer per (path with query, data revision), served without
    // the handler while the data is unchanged. Never with a fault or an older release.
    let cache = (ctx.is_get
        && method == Method::GET
        && ctx.faults.is_empty()
        && state.release().is_none()
        && cache::cacheable(&path))
    .then(|| CacheSlot {
        key: if query.is_empty() {
            path.clone()
        } else {
            format!("{path}?{query}")
        },
        revision: state.revision(),
        guard: seen.clone(),
    });

    let resp = if let Some((status, body)) = ctx.faults.status.clone() {
        injected_status(status, body)
    } else if state.booting() && path.starts_with("/api/") {
        warming(&path)
    } else if let Some(release) = state.release()
        && !is_admin
        && !release.serves(&method, &path)
    {
        // An older MASC release: a route it does not have (issue 13).
        compat::route_miss(&path)
    } else if let Some(hit) = cache
        .as_ref()
        .and_then(|slot| cached_answer(&state, slot, req.headers(), &ctx))
    {
        return hit;
    } else {
        let resp = next.run(req).await;
        if ctx.is_api && !seen.seen.load(Ordering::SeqCst) && resp.status() != StatusCode::NOT_FOUND
        {
            tracing::error!(path = %path, "route answered without running its Guard");
        }
        json_error_envelope(&path, resp).await
    };

    if ctx.faults.drop == Some(DropPoint::AfterApply) && !is_get {
        drop(resp);
        return drop_connection(kill).await;
    }
    finish(&state, resp, ctx, cache).await
}

/// Where a cacheable read's answer goes: its key, the revision seen before the handler ran,
/// and the guard that records the route's auth class.
struct CacheSlot {
    key: String,
    revision: cache::Revision,
    guard: GuardSeen,
}

/// The stored answer of `slot`, if the data is unchanged and this request passes the checks
/// the route's guard makes (auth class, expected root): a 304 when the client holds its tag,
/// else the stored 200. `None` runs the handler (which also gives any refusal its answer).
fn cached_answer(
    state: &AppState,
    slot: &CacheSlot,
    headers: &axum::http::HeaderMap,
    ctx: &Ctx,
) -> Option<Response> {
    let entry = state.responses().get(&slot.key, slot.revision)?;
    check_auth(entry.class, headers, state).ok()?;
    if ctx.is_api {
        check_expected_root(headers, state).ok()?;
    }
    if ctx.if_none_match.as_deref() == Some(entry.tag.as_str()) {
        return Some(not_modified(state, &entry.tag, ctx.is_api, None, None));
    }
    let mut resp = Response::new(Body::from(entry.body.clone()));
    *resp.headers_mut() = entry.headers.clone();
    if ctx.is_api {
        add_receipts(state, &mut resp, None);
    }
    Some(resp)
}

/// The 304 of §2.5: empty body, `content-length: 0`, the tag, `cache-control: no-cache`, and
/// the receipt when due; `preference-applied` kept from a held `/health`.
fn not_modified(
    state: &AppState,
    tag: &str,
    receipt_due: bool,
    receipt_fault: Option<ReceiptFault>,
    preference: Option<HeaderValue>,
) -> Response {
    let mut r = Response::new(empty_with_length());
    *r.status_mut() = StatusCode::NOT_MODIFIED;
    let h = r.headers_mut();
    if let Ok(v) = HeaderValue::from_str(tag) {
        h.insert(header::ETAG, v);
    }
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert(header::CONTENT_LENGTH, HeaderValue::from_static("0"));
    if let Some(p) = preference {
        h.insert(PREFERENCE_APPLIED, p);
    }
    if receipt_due {
        add_receipts(state, &mut r, receipt_fault);
    }
    r
}

/// Largest framework error text kept in an envelope.
const FRAMEWORK_TEXT_LIMIT: usize = 16 * 1024;

/// Every error a route answers is a §1.4 JSON envelope: errors the framework writes itself
/// (405 without a body, extractor rejections in plain text, 413, …) are rewrapped in the
/// envelope of the path's family — gate `{"ok":false,"error"}`, tool `{"ok":false,"message"}`,
/// else `{"error"}` — with the framework's text (or the status reason) as the message.
/// Injected fault statuses never pass here: their bodies are the plan's, verbatim.
async fn json_error_envelope(path: &str, resp: Response) -> Response {
    let status = resp.status();
    if !(status.is_client_error() || status.is_server_error()) {
        return resp;
    }
    let is_json = resp
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.split(';')
                .next()
                .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"))
        });
    if is_json || is_sse(&resp) {
        return resp;
    }
    let (parts, body) = resp.into_parts();
    let text = match axum::body::to_bytes(body, FRAMEWORK_TEXT_LIMIT).await {
        Ok(bytes) => String::from_utf8_lossy(&bytes).trim().to_string(),
        Err(_) => String::new(),
    };
    let message = if text.is_empty() {
        status
            .canonical_reason()
            .unwrap_or("request failed")
            .to_ascii_lowercase()
    } else {
        text
    };
    let body = if path.starts_with("/api/v1/gate/") {
        json!({"ok": false, "error": message})
    } else if path.starts_with("/api/v1/tools/") {
        json!({"ok": false, "message": message})
    } else {
        json!({"error": message})
    };
    let mut out = (status, axum::Json(body)).into_response();
    // Keep what the framework said besides the body (e.g. `allow` on a 405).
    for (name, value) in &parts.headers {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
            out.headers_mut().append(name.clone(), value.clone());
        }
    }
    out
}

/// Close the connection with no response. With the per-connection kill switch the connection
/// task drops the socket; otherwise a body that errors at once makes hyper abort.
async fn drop_connection(kill: Option<ConnKill>) -> Response {
    match kill {
        Some(k) => {
            k.0.cancel();
            std::future::pending::<Response>().await
        }
        None => {
            let stream = futures::stream::once(async {
                Err::<Bytes, std::io::Error>(std::io::Error::other("fault: connection dropped"))
            });
            Response::new(Body::from_stream(stream))
        }
    }
}

fn injected_status(status: u16, body: Option<Value>) -> Response {
    let code = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    match body {
        None => code.into_response(),
        Some(Value::String(s)) => {
            let ct = if serde_json::from_str::<Value>(&s).is_ok() {
                "application/json"
            } else {
                "text/plain; charset=utf-8"
            };
            let mut r = (code, s).into_response();
            r.headers_mut()
                .insert(header::CONTENT_TYPE, HeaderValue::from_static(ct));
            r
        }
        Some(v) => (code, axum::Json(v)).into_response(),
    }
}

/// §1.4 warming: dashboard paths 200 with the initializing body, other paths 503.
fn warming(path: &str) -> Response {
    if path.starts_with("/api/v1/dashboard/") {
        (
            StatusCode::OK,
            axum::Json(json!({"status":"initializing","message":"Server is warming up"})),
        )
            .into_response()
    } else {
        (
            StatusCode::SERVICE_UNAVAILABLE,
            axum::Json(json!({"error":"not initialized"})),
        )
            .into_response()
    }
}

fn add_receipts(state: &AppState, resp: &mut Response, fault: Option<ReceiptFault>) {
    if state.legacy_no_receipts() {
        return;
    }
    let root = state.identity().masc_root;
    let headers = resp.headers_mut();
    match fault {
        None => {
            headers.insert(RECEIPT_HEADER, receipt_value(&root));
        }
        Some(ReceiptFault::Missing) => {
            headers.remove(RECEIPT_HEADER);
        }
        Some(ReceiptFault::Duplicate) => {
            headers.insert(RECEIPT_HEADER, receipt_value(&root));
            headers.append(RECEIPT_HEADER, receipt_value(&root));
        }
        Some(ReceiptFault::Wrong) => {
            headers.insert(RECEIPT_HEADER, receipt_value(WRONG_ROOT));
        }
    }
}

fn is_sse(resp: &Response) -> bool {
    resp.headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"))
}

async fn finish(state: &AppState, resp: Response, ctx: Ctx, cache: Option<CacheSlot>) -> Response {
    let status = resp.status();
    let receipt_due =
        ctx.is_api && ctx.is_get && (status.is_success() || status == StatusCode::NOT_MODIFIED);

    if is_sse(&resp) {
        let mut resp = match ctx.faults.sse_cut_after {
            Some(n) => cut_sse(resp, n),
            None => resp,
        };
        if receipt_due {
            add_receipts(state, &mut resp, ctx.faults.receipt);
        }
        return resp;
    }

    let (mut parts, body) = resp.into_parts();
    let mut bytes = match axum::body::to_bytes(body, BODY_LIMIT).await {
        Ok(b) => b,
        Err(err) => {
            tracing::error!(error = %err, "response body unreadable");
            return (
                StatusCode::INTERNAL_SERVER_ERROR,
                axum::Json(json!({"error": "response body unreadable"})),
            )
                .into_response();
        }
    };
    let mut rewritten = false;
    if status == StatusCode::OK
        && !ctx.is_admin
        && let Some(release) = state.release()
        && let Some(older) =
            compat::reshape(release, &ctx.method, &ctx.path, &bytes, state.uptime_secs())
    {
        bytes = Bytes::from(older);
        rewritten = true;
    }
    if status.is_success() && (ctx.faults.echo_wrong || ctx.faults.repeat_cursor) {
        let echo = parts.extensions.get::<EchoFields>().cloned();
        let cursor = parts.extensions.get::<NextCursor>().cloned();
        if let Some(changed) = rewrite_json(&bytes, &ctx.faults, echo, cursor) {
            bytes = changed;
            rewritten = true;
        }
    }
    if ctx.faults.malformed {
        bytes = Bytes::from_static(MALFORMED_BODY);
        rewritten = true;
    }
    parts.headers.remove(header::CONTENT_LENGTH);

    if ctx.is_get && status == StatusCode::OK && !ctx.is_admin {
        // `/health` of the current embedded server tags its identity fields itself (issue
        // 15: `uptime` is volatile, so a body digest would never repeat); a fault that
        // rewrote the body, an older release and every other route: the body digest.
        let own_tag = (ctx.path == "/health"
            && !rewritten
            && state.release().is_none()
            && !state.legacy_no_receipts())
        .then(|| parts.headers.get(header::ETAG))
        .flatten()
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
        if own_tag.is_none() {
            // A rewritten body is tagged by its digest: the identity advert no longer holds.
            parts.headers.remove(HEALTH_TAG_HEADER);
        }
        let tag = own_tag.unwrap_or_else(|| weak_etag(&bytes));
        if let Ok(v) = HeaderValue::from_str(&tag) {
            parts.headers.insert(header::ETAG, v);
        }
        parts
            .headers
            .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
        if let Some(slot) = cache
            && let Some(class) = AuthClass::from_code(slot.guard.class.load(Ordering::SeqCst))
            && state.revision() == slot.revision
        {
            let mut headers = parts.headers.clone();
            headers.remove(RECEIPT_HEADER);
            headers.insert(header::CONTENT_LENGTH, HeaderValue::from(bytes.len()));
            state.responses().put(
                slot.key,
                CachedResponse {
                    revision: slot.revision,
                    class,
                    tag: tag.clone(),
                    headers,
                    body: bytes.clone(),
                },
            );
        }
        let stale = ctx.faults.stale_304 && ctx.if_none_match.is_some();
        let fresh = ctx.if_none_match.as_deref() == Some(tag.as_str());
        if stale || fresh {
            let sent_tag = if stale {
                ctx.if_none_match.clone().unwrap_or(tag)
            } else {
                tag
            };
            let preference = parts.headers.get(PREFERENCE_APPLIED).cloned();
            return not_modified(
                state,
                &sent_tag,
                receipt_due,
                ctx.faults.receipt,
                preference,
            );
        }
    }

    let body = match ctx.faults.truncate_at {
        Some(n) if n < bytes.len() => truncated_body(bytes.slice(..n)),
        Some(_) | None => Body::from(bytes),
    };
    let mut resp = Response::from_parts(parts, body);
    if receipt_due {
        add_receipts(state, &mut resp, ctx.faults.receipt);
    }
    resp
}

/// Send `head`, then fail the body so hyper closes the connection mid-response.
fn truncated_body(head: Bytes) -> Body {
    let stream = async_stream::stream! {
        yield Ok::<Bytes, std::io::Error>(head);
        // Let hyper flush the head and the first bytes before the body fails; an error in the
        // same poll would abort before anything reached the socket.
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        yield Err(std::io::Error::other("fault: body truncated"));
    };
    Body::from_stream(stream)
}

/// An empty body hyper does not see as ended up front, so it keeps our explicit
/// `content-length: 0` on a 304 (§2.5).
fn empty_with_length() -> Body {
    Body::from_stream(futures::stream::empty::<Result<Bytes, std::io::Error>>())
}

fn rewrite_json(
    bytes: &[u8],
    faults: &FiredFaults,
    echo: Option<EchoFields>,
    cursor: Option<NextCursor>,
) -> Option<Bytes> {
    let mut value: Value = serde_json::from_slice(bytes).ok()?;
    let obj = value.as_object_mut()?;
    if faults.echo_wrong {
        for field in echo.map(|e| e.0).unwrap_or_default() {
            if let Some(v) = obj.get_mut(field) {
                *v = wrong_echo(v);
            }
        }
    }
    if faults.repeat_cursor
        && let Some(NextCursor {
            field,
            request: Some(req),
        }) = cursor
    {
        obj.insert(field.to_string(), req);
        if obj.contains_key("has_more") {
            obj.insert("has_more".into(), Value::Bool(true));
        }
    }
    serde_json::to_vec(&value).ok().map(Bytes::from)
}

/// The altered value an echo-wrong fault sends.
pub fn wrong_echo(v: &Value) -> Value {
    match v {
        Value::String(s) => Value::String(format!("{s}-wrong-echo")),
        Value::Number(n) => n
            .as_f64()
            .and_then(|f| serde_json::Number::from_f64(f + 1.0))
            .map(Value::Number)
            .unwrap_or(Value::String("wrong-echo".into())),
        _ => Value::String("wrong-echo".into()),
    }
}

/// Pass SSE chunks through until `n` events (blank-line terminators) went out, then end.
fn cut_sse(resp: Response, n: usize) -> Response {
    let (parts, body) = resp.into_parts();
    let mut upstream = body.into_data_stream();
    let stream = async_stream::stream! {
        let mut sent = 0usize;
        let mut prev_newline = false;
        if n == 0 {
            return;
        }
        while let Some(chunk) = upstream.next().await {
            let chunk = match chunk {
                Ok(c) => c,
                Err(e) => {
                    yield Err(std::io::Error::other(e.to_string()));
                    return;
                }
            };
            let mut cut_at = None;
            for (i, b) in chunk.iter().enumerate() {
                if *b == b'\n' {
                    if prev_newline {
                        sent += 1;
                        prev_newline = false;
                        if sent >= n {
                            cut_at = Some(i + 1);
                            break;
                        }
                        continue;
                    }
                    prev_newline = true;
                } else if *b != b'\r' {
                    prev_newline = false;
                }
            }
            match cut_at {
                Some(end) => {
                    yield Ok::<Bytes, std::io::Error>(chunk.slice(..end));
                    tracing::info!(target: "masc_tui::server::fault", events = sent, "sse stream cut");
                    return;
                }
                None => yield Ok(chunk),
            }
        }
    };
    Response::from_parts(parts, Body::from_stream(stream))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn etag_is_weak_md5_prefix() {
        // md5("") = d41d8cd98f00b204e9800998ecf8427e
        assert_eq!(weak_etag(b""), "W/\"d41d8cd98f00\"");
        assert_ne!(weak_etag(b"{}"), weak_etag(b"[]"));
    }

    #[test]
    fn wrong_echo_changes_every_kind() {
        assert_eq!(wrong_echo(&json!("t-1")), json!("t-1-wrong-echo"));
        assert_eq!(wrong_echo(&json!(null)), json!("wrong-echo"));
        assert_ne!(wrong_echo(&json!(3)), json!(3));
    }
}
