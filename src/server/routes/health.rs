//! `GET /health` (protocol.md §3): identity, scripted boot phase, receipt advert.
//!
//! The current embedded server tags `/health` by its identity fields (the body
//! without the volatile `uptime`), so a conditional probe of an unchanged identity earns a
//! 304; and a conditional probe asking `Prefer: wait=N` (RFC 7240) is held until the identity
//! or the fault plan changes or `N` seconds (at most [`MAX_HOLD`]) pass, answered with
//! `Preference-Applied: wait=N`. Never while booting (each read advances the boot script),
//! never when a fault fired on the request or the plan has a rule for `/health`, never when
//! playing an older MASC or without receipts.

use crate::server::http::{Faults, json_ok};
pub use crate::server::middleware::HEALTH_TAG_HEADER;
use crate::server::middleware::{PREFERENCE_APPLIED, weak_etag};
use crate::server::state::AppState;
use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::Response;
use axum::routing::get;
use serde_json::{Value, json};
use std::time::Duration;

/// The longest hold a probe can ask for.
pub const MAX_HOLD: Duration = Duration::from_secs(30);

pub fn router() -> Router<AppState> {
    Router::new().route("/health", get(health))
}

fn uptime_text(secs: u64) -> String {
    let (h, m, s) = (secs / 3600, (secs / 60) % 60, secs % 60);
    if h > 0 {
        format!("{h}h {m}m {s}s")
    } else {
        format!("{m}m {s}s")
    }
}

fn body(state: &AppState, booting: bool) -> Value {
    let id = state.identity();
    let mut body = json!({
        "status": "ok",
        "server": "masc",
        "version": env!("CARGO_PKG_VERSION"),
        "build": {"commit": "masc-tui-embedded", "commit_source": "embedded"},
        "paths": {
            "effective_base_path": id.base_path,
            "effective_masc_root": id.masc_root,
        },
        "startup": {
            "phase": if booting { "replaying_stores" } else { "ready" },
            "state_ready": !booting,
        },
        "uptime": uptime_text(state.uptime_secs()),
        "admission": {"receipts": true},
    });
    if state.legacy_no_receipts()
        && let Some(fields) = body.as_object_mut()
    {
        // An older MASC has no admission advert at all (not `receipts: false`).
        fields.remove("admission");
    }
    body
}

/// The identity tag of a `/health` body: the weak ETag of the body without `uptime`.
pub fn identity_tag(body: &Value) -> String {
    let mut fixed = body.clone();
    if let Some(fields) = fixed.as_object_mut() {
        fields.remove("uptime");
    }
    weak_etag(fixed.to_string().as_bytes())
}

/// `Prefer: wait=N` (seconds, clamped to [`MAX_HOLD`]); `None` without a usable one.
fn wait_preference(headers: &HeaderMap) -> Option<Duration> {
    headers
        .get_all("prefer")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .find_map(|p| {
            let (name, value) = p.split_once('=')?;
            (name.trim().eq_ignore_ascii_case("wait"))
                .then(|| value.trim().parse::<u64>().ok())
                .flatten()
        })
        .filter(|&secs| secs > 0)
        .map(|secs| Duration::from_secs(secs).min(MAX_HOLD))
}

/// The answer with its identity tag; `advertised` says so in [`HEALTH_TAG_HEADER`] (the
/// current embedded server only: an older release or a server without receipts keeps MASC's
/// body-digest tag, which the middleware puts in place of this one).
fn tagged(body: Value, tag: &str, advertised: bool) -> Response {
    let mut resp = json_ok(body);
    if let Ok(v) = HeaderValue::from_str(tag) {
        resp.headers_mut().insert(header::ETAG, v);
    }
    if advertised {
        resp.headers_mut()
            .insert(HEALTH_TAG_HEADER, HeaderValue::from_static("identity"));
    }
    resp
}

async fn health(
    State(state): State<AppState>,
    headers: HeaderMap,
    Faults(faults): Faults,
) -> Response {
    // Subscribe before reading the identity, so a change in between still wakes the hold.
    let mut changes = state.watch_changes();
    changes.borrow_and_update();
    let booting = state.consume_boot_read();
    let first = body(&state, booting);
    let tag = identity_tag(&first);
    let plain = state.release().is_none() && !state.legacy_no_receipts();
    let unchanged = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim() == tag);
    // A plan with a rule for `/health` scripts its probes (counted, delayed, failed): those
    // are answered at once, as without a hold, so the script runs at the client's cadence.
    let scripted = state
        .fault_plan()
        .rules
        .iter()
        .any(|r| r.matcher.matches("GET", "/health", ""));
    let hold = wait_preference(&headers)
        .filter(|_| plain && unchanged && !booting && !faults.any && !scripted);
    let Some(wait) = hold else {
        return tagged(first, &tag, plain);
    };
    tokio::select! {
        _ = changes.changed() => {}
        () = tokio::time::sleep(wait) => {}
    }
    // What holds now (the middleware answers 304 when the tag is still the client's). The
    // boot script only advances, so a server that was not booting is not booting now.
    let now = body(&state, false);
    let tag = identity_tag(&now);
    let mut resp = tagged(now, &tag, plain);
    if let Ok(v) = HeaderValue::from_str(&format!("wait={}", wait.as_secs())) {
        resp.headers_mut().insert(PREFERENCE_APPLIED, v);
    }
    resp
}
