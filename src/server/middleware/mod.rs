//! The one layer every request passes: request counts, fault injection (§13), the boot
//! warming answers (§1.4), receipts (§2.2) and weak ETags / 304 (§2.5).
//!
//! Auth and the expected-root check live in the [`Guard`](super::http::Guard) extractor, so
//! they run after routing but before the handler reads or writes anything.
//!
//! Files: this one is the layer itself (origin check, counts, faults fired, the cache lookup,
//! the handler, receipts and the ETag of the answer); `revalidation` holds the ETag, the 304 and
//! the stored answer of a cacheable read; `envelope` the answers the layer writes itself (error
//! envelopes, boot warming); `fault_answers` what an injected fault sends instead.

mod envelope;
mod fault_answers;
mod revalidation;

pub use fault_answers::wrong_echo;
pub use revalidation::weak_etag;

use super::cache::{self, CachedResponse};
use super::compat;
use super::conn::ConnKill;
use super::faults::{DropPoint, FaultEngine, FiredFaults, ReceiptFault};
use super::http::{
    AuthClass, EchoFields, GuardSeen, NextCursor, RECEIPT_HEADER, RequestFaults, receipt_value,
};
use super::state::AppState;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use envelope::{json_error_envelope, warming};
use fault_answers::{
    MALFORMED_BODY, cut_sse, drop_connection, injected_status, rewrite_json, truncated_body,
};
use revalidation::{CacheSlot, cached_answer, not_modified};
use serde_json::json;
use std::sync::atomic::Ordering;

/// `Preference-Applied` (RFC 7240), set by a `/health` the server held.
pub const PREFERENCE_APPLIED: &str = "preference-applied";

/// `x-masc-health-tag: identity`: this `/health` ETag covers the identity fields only, so a
/// client may probe conditionally (a masc-tui extension; MASC's `/health` is never conditional,
/// protocol.md §3).
pub const HEALTH_TAG_HEADER: &str = "x-masc-health-tag";

/// Largest body the layer buffers to compute an ETag.
const BODY_LIMIT: usize = 64 * 1024 * 1024;

/// The receipt a `{"receipt":"wrong"}` fault sends.
const WRONG_ROOT: &str = "/srv/another-workspace/.masc";

struct Ctx {
    method: Method,
    path: String,
    is_get: bool,
    is_api: bool,
    is_admin: bool,
    if_none_match: Option<String>,
    faults: FiredFaults,
}

pub async fn workspace_layer(State(state): State<AppState>, req: Request, next: Next) -> Response {
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

    let arrived = Arrived {
        method,
        path,
        query,
        is_admin,
        is_get,
        kill,
        faults,
    };
    let late = arrived.faults.apply_late_ms;
    if late > 0 && !is_get {
        // A hop that does not cancel upstream requests: the write is held, then handled
        // whether or not its client still waits (the client may have timed out long ago).
        let (tx, rx) = tokio::sync::oneshot::channel();
        tokio::spawn(async move {
            tokio::time::sleep(std::time::Duration::from_millis(late)).await;
            let _ = tx.send(handle(state, req, next, arrived).await);
        });
        return rx
            .await
            .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response());
    }
    handle(state, req, next, arrived).await
}

/// What the layer learned of a request before its faults run.
struct Arrived {
    method: Method,
    path: String,
    query: String,
    is_admin: bool,
    is_get: bool,
    kill: Option<ConnKill>,
    faults: FiredFaults,
}

/// The request after its origin check, count and fault decision: delay, drops, the handler
/// (or what answers instead), receipts and ETags.
async fn handle(state: AppState, mut req: Request, next: Next, arrived: Arrived) -> Response {
    let Arrived {
        method,
        path,
        query,
        is_admin,
        is_get,
        kill,
        faults,
    } = arrived;
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
        batch_bound: ctx.faults.batch_bound,
        keeper_up: ctx.faults.keeper_up,
        any: !ctx.faults.is_empty(),
    });
    let seen = GuardSeen::default();
    req.extensions_mut().insert(seen.clone());
    // A read route's answer per (path with query, data revision), served without
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
        // An older MASC release: a route it does not have.
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

    // A write whose handler ran (no status fault answered for it) answers the injected reply.
    let resp = match ctx.faults.answer_after_apply.clone() {
        Some(answer) if !is_get && ctx.faults.status.is_none() => {
            drop(resp);
            injected_status(answer.status, answer.body)
        }
        _ => resp,
    };
    if ctx.faults.drop == Some(DropPoint::AfterApply) && !is_get {
        drop(resp);
        return drop_connection(kill).await;
    }
    finish(&state, resp, ctx, cache).await
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
        // `/health` of the current embedded server tags its identity fields itself (`uptime`
        // is volatile, so a body digest would never repeat); a fault that
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
