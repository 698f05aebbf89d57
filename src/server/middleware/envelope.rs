//! The answers the layer writes itself (§1.4): every error a route answers rewrapped in the
//! JSON envelope of its path's family, and the warming answers while the server boots.

use super::is_sse;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

/// Largest framework error text kept in an envelope.
const FRAMEWORK_TEXT_LIMIT: usize = 16 * 1024;

/// Every error a route answers is a §1.4 JSON envelope: errors the framework writes itself
/// (405 without a body, extractor rejections in plain text, 413, …) are rewrapped in the
/// envelope of the path's family — gate `{"ok":false,"error"}`, tool `{"ok":false,"message"}`,
/// else `{"error"}` — with the framework's text (or the status reason) as the message.
/// Injected fault statuses never pass here: their bodies are the plan's, verbatim.
pub(super) async fn json_error_envelope(path: &str, resp: Response) -> Response {
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

/// §1.4 warming: dashboard paths 200 with the initializing body, other paths 503.
pub(super) fn warming(path: &str) -> Response {
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
