//! Older MASC releases the embedded server can play, so the client's tolerance is tested:
//! `masc-tui serve --compat <release>` and `masc-tui demo --compat <release>`.
//!
//! A played release has that release's route set and shapes, from MASC's own source at the
//! release's tag (jeong-sik/masc):
//!
//! - **No workspace receipts** and no `admission` advert on `/health` (every MASC release).
//! - **Routes**: families of the client's contract whose origin is "newer MASC" or "masc-tui
//!   extension" ([`crate::protocol::routes`]) answer as that MASC answers a route it does not
//!   have: under `/api/v1/keepers/` the prefix handler's `404 {"error":"not found"}`
//!   (`handle_keeper_get_subroutes`), anywhere else the router's `text/plain` `404 Not Found`
//!   (`Router.dispatch`, lib/http_server_eio.ml).
//! - **Shapes**: 200 JSON bodies are rewritten to the release's encoders (see [`reshape`]):
//!   `/health` `build` as `Build_identity.to_yojson` writes it; runtime rows without
//!   `provider_id` and quota fields, lanes without `declared`, no `media_failover` and no usage
//!   windows (lib/server/server_dashboard_runtime_resolved_json.ml); the tools inventory
//!   without `effective_keeper_surface` / `skill_activations`
//!   (`dashboard_tools_http_json`); the roster without Candle and the newer row fields; planning
//!   without the newer counts. A `Failed` chat operation already carries `outcome_ref: null`
//!   exactly as `Keeper_chat_operation.to_json` writes it.

use crate::protocol::routes::{Method, RouteFamily, RouteOrigin};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

/// A MASC the embedded server can play, named after its tag or snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MascRelease {
    /// MASC v0.24.0 (tag 2026-08-22, commit e2bb55f793). Its routes and encoders for
    /// everything masc-tui reads equal the snapshot d541eb07 (2026-08-23) the shared fixtures
    /// and protocol.md cite as "Aug"; v0.22.0 and v0.23.0 serve the same route set.
    V0_24_0,
    /// MASC main of 2026-08-23 (`d541eb0750`, "Aug" in protocol-15): v0.24.0's route set and
    /// shapes under its own commit (its `dune-project` still says 0.24.0).
    Aug,
    /// The newer MASC of protocol-15/16's index versions (Sep–Oct 2026, no tag read): the newer
    /// chat store (`system` Gate rows, delivery pairs, autonomous rows), `/chat/events`,
    /// `/keepers/{name}/up`, the held-call stream events, the newer route set; still no
    /// workspace receipts. Its version string is this server's label, not a MASC tag.
    Newer,
}

impl MascRelease {
    pub const ALL: &'static [MascRelease] =
        &[MascRelease::V0_24_0, MascRelease::Aug, MascRelease::Newer];

    /// The name `--compat` takes.
    pub fn name(self) -> &'static str {
        match self {
            Self::V0_24_0 => "v0.24.0",
            Self::Aug => "aug",
            Self::Newer => "newer",
        }
    }

    /// The release version `/health` reports.
    pub fn version(self) -> &'static str {
        match self {
            Self::V0_24_0 | Self::Aug => "0.24.0",
            Self::Newer => "0.24.0+newer",
        }
    }

    /// The commit `build.commit` reports (the tag's or the snapshot's).
    pub fn commit(self) -> &'static str {
        match self {
            Self::V0_24_0 => "e2bb55f793",
            Self::Aug => "d541eb0750",
            Self::Newer => "newer-index",
        }
    }

    /// The August releases: routes of origin "MASC" only, rows in the August store's shape.
    pub fn is_august(self) -> bool {
        matches!(self, Self::V0_24_0 | Self::Aug)
    }

    /// Newer MASC journals each chat turn (`id:` lines, `since_seq`, `/chat/events`) and batches
    /// queued inputs (`KEEPER_CHAT_BATCH_BOUND`).
    pub fn journals_chat(self) -> bool {
        self == Self::Newer
    }

    /// Parse a `--compat` value: `v0.24.0` (`0.24.0`, `masc-v0.24.0`), `aug` (`d541eb07`,
    /// `main-2026-08-23`) or `newer`.
    pub fn parse(value: &str) -> Result<Self, String> {
        let v = value.trim().to_ascii_lowercase();
        match v.as_str() {
            "aug" | "august" | "d541eb07" | "d541eb0750" | "main-2026-08-23" => {
                return Ok(Self::Aug);
            }
            "newer" => return Ok(Self::Newer),
            _ => {}
        }
        let v = v.strip_prefix("masc-").unwrap_or(&v);
        let v = v.strip_prefix('v').unwrap_or(v);
        Self::ALL
            .iter()
            .copied()
            .filter(|r| *r == Self::V0_24_0)
            .find(|r| r.version() == v)
            .ok_or_else(|| {
                let known: Vec<&str> = Self::ALL.iter().map(|r| r.name()).collect();
                format!(
                    "unknown MASC release {value:?} (known: {})",
                    known.join(", ")
                )
            })
    }

    /// Whether this release serves `method path`. Paths outside the client's contract (the
    /// test-mode admin routes, other MASC routes) are left to the router.
    pub fn serves(self, method: &axum::http::Method, path: &str) -> bool {
        let method = match *method {
            axum::http::Method::GET | axum::http::Method::HEAD => Method::Get,
            axum::http::Method::POST => Method::Post,
            _ => return true,
        };
        match RouteFamily::of_target(method, path) {
            Some(family) => matches!(
                (self, family.spec().origin),
                (_, RouteOrigin::Masc) | (Self::Newer, RouteOrigin::NewerMasc)
            ),
            None => true,
        }
    }
}

impl std::fmt::Display for MascRelease {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "MASC {} ({})", self.name(), self.commit())
    }
}

/// clap value parser for `--compat`.
pub fn parse_release(value: &str) -> Result<MascRelease, String> {
    MascRelease::parse(value)
}

/// How the embedded server presents itself: the current protocol (receipts, every route), an
/// older MASC without receipts only (`--legacy-no-receipts`), or a whole MASC release.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Played {
    pub no_receipts: bool,
    pub release: Option<MascRelease>,
}

impl Played {
    /// No receipts and no admission advert: asked for, or implied by a MASC release.
    pub fn without_receipts(self) -> bool {
        self.no_receipts || self.release.is_some()
    }
}

/// MASC's answer to a route it does not have (see the module doc).
pub fn route_miss(path: &str) -> Response {
    if path.starts_with("/api/v1/keepers/") {
        return (
            StatusCode::NOT_FOUND,
            axum::Json(json!({"error": "not found"})),
        )
            .into_response();
    }
    let mut resp = (StatusCode::NOT_FOUND, "404 Not Found").into_response();
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    resp
}

/// Rewrite a 200 JSON body of `method path` to `release`'s shape. `None`: nothing to change.
pub fn reshape(
    release: MascRelease,
    method: &axum::http::Method,
    path: &str,
    body: &[u8],
    uptime_secs: u64,
) -> Option<Vec<u8>> {
    if *method != axum::http::Method::GET {
        return None;
    }
    let family = RouteFamily::of_target(Method::Get, path)?;
    let mut value: Value = serde_json::from_slice(body).ok()?;
    if family == RouteFamily::Health {
        health(release, value.as_object_mut()?, uptime_secs);
        return serde_json::to_vec(&value).ok();
    }
    if !release.is_august() {
        // Newer MASC sends the newer parts this server writes.
        return None;
    }
    match family {
        RouteFamily::RuntimeResolved => runtime_resolved(value.as_object_mut()?),
        RouteFamily::ToolsInventory => tools_inventory(value.as_object_mut()?),
        RouteFamily::Roster => roster(value.as_object_mut()?),
        RouteFamily::Planning => planning(value.as_object_mut()?),
        RouteFamily::ChatHistoryPage => {
            august_chat_rows(value.get_mut("messages")?.as_array_mut()?)
        }
        RouteFamily::ChatHistoryArray => august_chat_rows(value.as_array_mut()?),
        _ => return None,
    }
    serde_json::to_vec(&value).ok()
}

/// The August store's rows (`Keeper_chat_store.to_json_array` at d541eb07): roles `user`,
/// `assistant`, `tool` only (no `system` Gate rows), no `execution_id`, no
/// `approval_lifecycle`, the three delivery keys and slots it knows, authorities `owner` and
/// `external`, no channel names.
fn august_chat_rows(rows: &mut Vec<Value>) {
    rows.retain(|r| {
        matches!(
            r.get("role").and_then(Value::as_str),
            Some("user" | "assistant" | "tool")
        )
    });
    for row in rows.iter_mut().filter_map(Value::as_object_mut) {
        row.remove("approval_lifecycle");
        row.remove("execution_id");
        if row.get("speaker_authority").and_then(Value::as_str) == Some("keeper") {
            row.insert("speaker_authority".into(), json!("external"));
        }
        if let Some(Value::Object(surface)) = row.get_mut("surface") {
            surface.remove("channel_name");
        }
        let key_known = matches!(
            row.get("delivery_key")
                .and_then(|k| k.get("kind"))
                .and_then(Value::as_str),
            Some("operation" | "fusion_run" | "workspace_message")
        );
        let slot_known = matches!(
            row.get("transcript_slot")
                .and_then(|k| k.get("kind"))
                .and_then(Value::as_str),
            Some("accepted_user" | "tool_call" | "terminal_assistant")
        );
        // The August store writes the pair whole or not at all.
        if !(key_known && slot_known) {
            row.remove("delivery_key");
            row.remove("transcript_slot");
        }
    }
}

fn health(release: MascRelease, obj: &mut Map<String, Value>, uptime_secs: u64) {
    obj.remove("admission");
    obj.insert("version".into(), json!(release.version()));
    obj.insert("release_version".into(), json!(release.version()));
    obj.insert("health_detail".into(), json!("probe"));
    // `Build_identity.to_yojson`: optional fields equal to `None` are left out
    // (`[@default None]`), so an unstamped binary has `commit` and no `binary_commit`.
    obj.insert(
        "build".into(),
        json!({
            "release_version": release.version(),
            "binary_version": release.version(),
            "commit": release.commit(),
            "commit_source": "embedded",
            "executable_path": "",
            "executable_dir": "",
            "started_at": started_at(uptime_secs),
            "uptime_seconds": uptime_secs,
        }),
    );
}

/// RFC 3339 time the server started (now minus its uptime).
fn started_at(uptime_secs: u64) -> String {
    let secs = i64::try_from(uptime_secs).unwrap_or(i64::MAX);
    time::OffsetDateTime::now_utc()
        .checked_sub(time::Duration::seconds(secs))
        .and_then(|t| {
            t.format(&time::format_description::well_known::Rfc3339)
                .ok()
        })
        .unwrap_or_default()
}

/// `runtime_resolution_json` of the August encoder.
fn august_runtime(row: &mut Value) {
    let Some(r) = row.as_object_mut() else {
        return;
    };
    for key in [
        "provider_id",
        "quota_exhausted",
        "rate_limited",
        "quota_scope",
        "quota_resets_at",
        "rate_limit_resets_at",
    ] {
        r.remove(key);
    }
    r.insert("max_context_source".into(), json!("capability"));
    r.insert("keeper_dispatchable".into(), json!(true));
    r.insert("keeper_dispatch_blocked_reason".into(), Value::Null);
}

fn runtime_resolved(obj: &mut Map<String, Value>) {
    for key in [
        "media_failover",
        "provider_usage_windows_since",
        "provider_usage_windows",
    ] {
        obj.remove(key);
    }
    if let Some(default) = obj.get_mut("default_runtime") {
        august_runtime(default);
    }
    if let Some(Value::Array(rows)) = obj.get_mut("runtimes") {
        rows.iter_mut().for_each(august_runtime);
    }
    if let Some(Value::Array(lanes)) = obj.get_mut("lanes") {
        for lane in lanes.iter_mut().filter_map(Value::as_object_mut) {
            lane.remove("declared");
            lane.insert("preferred_candidate".into(), Value::Null);
            lane.insert("preferred_at_ts".into(), Value::Null);
        }
    }
    // `resolved_assignment_json` of August knows `lane` and `missing` only.
    if let Some(Value::Array(rows)) = obj.get_mut("assignments") {
        for resolved in rows
            .iter_mut()
            .filter_map(|a| a.get_mut("resolved"))
            .filter(|r| r.get("kind").and_then(Value::as_str) == Some("unavailable"))
        {
            *resolved = json!({"kind": "missing", "id": null});
        }
    }
}

fn tools_inventory(obj: &mut Map<String, Value>) {
    obj.remove("effective_keeper_surface");
    obj.remove("skill_activations");
    obj.entry("config_resolution").or_insert_with(|| json!({}));
    obj.entry("runtime_resolution").or_insert_with(|| json!({}));
    // v0.24.0 writes the waiting inventory's rows without the operator sentence `what`
    // (added by MASC #29541 after the tag).
    if let Some(inv) = obj
        .get_mut("keeper_waiting_inventory")
        .and_then(Value::as_object_mut)
    {
        let keeper_rows = inv
            .get_mut("keepers")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
            .filter_map(|k| k.get_mut("waiting_on").and_then(Value::as_array_mut))
            .flatten();
        for row in keeper_rows.filter_map(Value::as_object_mut) {
            row.remove("what");
        }
        if let Some(rows) = inv
            .get_mut("global_waiting_on")
            .and_then(Value::as_array_mut)
        {
            for row in rows.iter_mut().filter_map(Value::as_object_mut) {
                row.remove("what");
            }
        }
    }
}

fn roster(obj: &mut Map<String, Value>) {
    obj.remove("candle");
    if let Some(Value::Array(rows)) = obj.get_mut("keepers") {
        for row in rows.iter_mut().filter_map(Value::as_object_mut) {
            for key in [
                "health",
                "paused",
                "phase",
                "activation_mode",
                "candle_balance_milli",
                // masc-tui demo extensions, never sent by MASC.
                "current_task",
                "turn_started_at",
            ] {
                row.remove(key);
            }
        }
    }
}

fn planning(obj: &mut Map<String, Value>) {
    obj.remove("goal_history");
    if let Some(Value::Object(backlog)) = obj.get_mut("task_backlog") {
        backlog.remove("awaiting_verification");
    }
    if let Some(Value::Object(rollup)) = obj.get_mut("rollup") {
        rollup.remove("awaiting_confirmation_count");
        rollup.remove("blocked_count");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn release_names_parse_in_every_spelling() {
        for name in ["v0.24.0", "0.24.0", "masc-v0.24.0", " v0.24.0 "] {
            assert_eq!(MascRelease::parse(name), Ok(MascRelease::V0_24_0), "{name}");
        }
        for name in ["aug", "AUG", "d541eb07", "main-2026-08-23"] {
            assert_eq!(MascRelease::parse(name), Ok(MascRelease::Aug), "{name}");
        }
        assert_eq!(MascRelease::parse("newer"), Ok(MascRelease::Newer));
        let err = MascRelease::parse("v9.9.9").unwrap_err();
        assert!(err.contains("known: v0.24.0, aug, newer"), "{err}");
    }

    /// `newer` serves MASC's and the newer routes, never a masc-tui
    /// extension; `aug` serves what v0.24.0 serves.
    #[test]
    fn newer_serves_the_newer_routes_and_aug_the_august_ones() {
        let get = axum::http::Method::GET;
        let post = axum::http::Method::POST;
        let newer = MascRelease::Newer;
        for path in [
            "/api/v1/skills",
            "/api/v1/keepers/asks",
            "/api/v1/keepers/ops-bot/chat/events",
            "/api/v1/keepers/ops-bot/chat/history",
            "/api/v1/keepers/ops-bot/turn-transcript",
        ] {
            assert!(newer.serves(&get, path), "{path}");
        }
        assert!(newer.serves(&post, "/api/v1/keepers/ops-bot/up"));
        for path in ["/api/v1/dashboard/tasks", "/api/v1/async-requests/kmsg-1"] {
            assert!(!newer.serves(&get, path), "{path}");
        }
        assert!(!newer.serves(&post, "/api/v1/keepers"));
        for r in [MascRelease::V0_24_0, MascRelease::Aug] {
            assert!(!r.serves(&post, "/api/v1/keepers/ops-bot/up"));
            assert!(!r.serves(&get, "/api/v1/keepers/ops-bot/chat/events"));
            assert!(r.serves(&get, "/api/v1/keepers/ops-bot/chat/history"));
            assert!(r.serves(&get, "/api/v1/keepers/ops-bot/turn-transcript"));
        }
    }

    /// §15.9: the August store has no `system` rows and no newer fields; a pair with a newer
    /// half is not written at all.
    #[test]
    fn august_rows_lose_the_newer_store() {
        let body = json!({"schema": "masc.keeper_chat_history.page.v1", "has_more": false,
            "next_before": null, "messages": [
            {"id": "1", "role": "user", "content": "x", "ts": 1.0, "speaker_authority": "keeper",
             "delivery_key": {"kind": "operation", "operation_id": "tui-1"},
             "transcript_slot": {"kind": "accepted_user"}},
            {"id": "2", "role": "system", "content": "", "ts": 2.0,
             "approval_lifecycle": {"approval_id": "a", "phase": "requested"}},
            {"id": "3", "role": "tool", "content": "{}", "ts": 3.0, "tool_call_name": "t",
             "execution_id": "e", "delivery_key": {"kind": "operation", "operation_id": "tui-1"},
             "transcript_slot": {"kind": "tool_delivery", "ordinal": 0}}]});
        for release in [MascRelease::V0_24_0, MascRelease::Aug] {
            let out = reshape(
                release,
                &axum::http::Method::GET,
                "/api/v1/keepers/ops-bot/chat/history/page",
                body.to_string().as_bytes(),
                0,
            )
            .unwrap();
            let v: Value = serde_json::from_slice(&out).unwrap();
            let rows = v["messages"].as_array().unwrap();
            assert_eq!(rows.len(), 2);
            assert_eq!(rows[0]["speaker_authority"], json!("external"));
            assert_eq!(rows[0]["transcript_slot"]["kind"], json!("accepted_user"));
            assert!(rows[1].get("execution_id").is_none());
            assert!(rows[1].get("delivery_key").is_none());
        }
        assert!(
            reshape(
                MascRelease::Newer,
                &axum::http::Method::GET,
                "/api/v1/keepers/ops-bot/chat/history/page",
                body.to_string().as_bytes(),
                0,
            )
            .is_none()
        );
    }

    /// docs/compatibility.md's route table is the contract's: one row per route of
    /// [`crate::protocol::routes::ROUTES`] with its section and origin, and for every release
    /// masc-tui plays a `404` cell exactly where that release does not serve the route.
    #[test]
    fn the_compatibility_table_agrees_with_the_route_contract() {
        use crate::protocol::routes::ROUTES;
        let doc = include_str!("../../docs/compatibility.md");
        let rows: Vec<Vec<&str>> = doc
            .lines()
            .filter(|l| l.starts_with("| `GET ") || l.starts_with("| `POST "))
            .map(|l| l.trim_matches('|').split(" | ").map(str::trim).collect())
            .collect();
        assert_eq!(rows.len(), ROUTES.len(), "one table row per route");
        for spec in ROUTES {
            let route = format!("`{} {}`", spec.method.as_str(), spec.template);
            let row = rows
                .iter()
                .find(|r| r[0] == route)
                .unwrap_or_else(|| panic!("{route} has no row"));
            assert_eq!(row.len(), 7, "{route}");
            assert_eq!(row[1], spec.section, "{route}");
            let origin = match spec.origin {
                RouteOrigin::Masc => "MASC",
                RouteOrigin::NewerMasc => "newer",
                RouteOrigin::Extension => "ext",
            };
            assert_eq!(row[2], origin, "{route}");
            let method = match spec.method {
                Method::Get => axum::http::Method::GET,
                Method::Post => axum::http::Method::POST,
            };
            let path = spec
                .template
                .split('/')
                .map(|seg| if seg.starts_with('{') { "k" } else { seg })
                .collect::<Vec<_>>()
                .join("/");
            for (release, cell) in [
                (MascRelease::V0_24_0, row[3]),
                (MascRelease::Aug, row[3]),
                (MascRelease::Newer, row[4]),
            ] {
                assert_eq!(
                    cell == "404",
                    !release.serves(&method, &path),
                    "{route} on {release:?}: {cell}"
                );
            }
        }
    }

    #[test]
    fn the_august_release_serves_masc_routes_only() {
        let r = MascRelease::V0_24_0;
        let get = axum::http::Method::GET;
        assert!(r.serves(&get, "/api/v1/gate/keepers"));
        assert!(r.serves(&get, "/api/v1/keepers/rondo/chat/operations/tui-1"));
        assert!(r.serves(&get, "/api/v1/dashboard/tasks/history"));
        assert!(r.serves(&get, "/__admin/requests"));
        for path in [
            "/api/v1/dashboard/tasks",
            "/api/v1/dashboard/tasks/detail",
            "/api/v1/dashboard/tasks/history/page",
            "/api/v1/skills",
            "/api/v1/async-requests",
            "/api/v1/async-requests/kmsg-1",
            "/api/v1/keepers/asks",
            "/api/v1/gate/connector/names",
            "/api/v1/keepers/turns",
        ] {
            assert!(!r.serves(&get, path), "{path}");
        }
        assert!(!r.serves(&axum::http::Method::POST, "/api/v1/keepers"));
    }

    #[test]
    fn reshaping_removes_the_newer_parts() {
        let body = br#"{"generated_at_iso":"x","runtimes":[{"id":"a.b","provider_id":"a","quota_exhausted":false}],"lanes":[{"id":"l","runtime_ids":[],"declared":true}],"assignments":[{"keeper":"k","assignment_source":"explicit","resolved":{"kind":"unavailable","id":"z","reason":{}}}],"media_failover":[],"provider_usage_windows_since":1.0,"provider_usage_windows":[]}"#;
        let out = reshape(
            MascRelease::V0_24_0,
            &axum::http::Method::GET,
            "/api/v1/runtime/resolved",
            body,
            0,
        )
        .unwrap();
        let v: Value = serde_json::from_slice(&out).unwrap();
        assert!(v.get("media_failover").is_none());
        assert!(v.get("provider_usage_windows").is_none());
        assert!(v["runtimes"][0].get("provider_id").is_none());
        assert_eq!(v["runtimes"][0]["keeper_dispatchable"], json!(true));
        assert!(v["lanes"][0].get("declared").is_none());
        assert_eq!(v["assignments"][0]["resolved"]["kind"], json!("missing"));
    }
}
