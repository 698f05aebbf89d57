//! Revalidation (§2.5) and the read cache: the weak ETag of a body, the 304 with its
//! headers, and the stored answer of a cacheable read served without its handler while the data
//! is unchanged and the request passes the route's checks.

use super::{Ctx, PREFERENCE_APPLIED, add_receipts};
use crate::server::cache;
use crate::server::faults::ReceiptFault;
use crate::server::http::{GuardSeen, check_auth, check_expected_root};
use crate::server::state::AppState;
use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use bytes::Bytes;
use md5::{Digest, Md5};

/// Weak ETag of a body: `W/"<first 12 hex of md5>"` (§2.5).
pub fn weak_etag(body: &[u8]) -> String {
    let digest = Md5::digest(body);
    let hex = hex::encode(digest);
    format!("W/\"{}\"", &hex[..12])
}

/// Where a cacheable read's answer goes: its key, the revision seen before the handler ran,
/// and the guard that records the route's auth class.
pub(super) struct CacheSlot {
    pub(super) key: String,
    pub(super) revision: cache::Revision,
    pub(super) guard: GuardSeen,
}

/// The stored answer of `slot`, if the data is unchanged and this request passes the checks
/// the route's guard makes (auth class, expected root): a 304 when the client holds its tag,
/// else the stored 200. `None` runs the handler (which also gives any refusal its answer).
pub(super) fn cached_answer(
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
pub(super) fn not_modified(
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

/// An empty body hyper does not see as ended up front, so it keeps our explicit
/// `content-length: 0` on a 304 (§2.5).
fn empty_with_length() -> Body {
    Body::from_stream(futures::stream::empty::<Result<Bytes, std::io::Error>>())
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
}
