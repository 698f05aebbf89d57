//! `GET /health` (protocol.md §3): identity, scripted boot phase, receipt advert.

use crate::server::state::AppState;
use axum::Router;
use axum::extract::State;
use axum::response::Response;
use axum::routing::get;
use serde_json::json;

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

async fn health(State(state): State<AppState>) -> Response {
    let booting = state.consume_boot_read();
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
    crate::server::http::json_ok(body)
}
