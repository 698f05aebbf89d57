//! `POST /api/v1/keepers/{name}/up` (protocol-15 §15.11): MASC's create-or-update of a Keeper's
//! declaration (newer MASC; v0.24.0 and August main answer 404). masc-tui creates through it
//! only where the create-only route (§9.9) is not served, after the safe procedure (a fresh
//! existence read; refuse an existing or unconfirmable name; the race window said before
//! sending), and classifies the reply by its shape (§15.12 "Keeper up"):
//!
//! - the create result (`{name, agent_name, trace_id, generation, …}`, no `schema`): created;
//! - the full metadata record (`schema: masc.keeper_meta.v1`): an existing Keeper was
//!   reconfigured and its lane restarted — a conflict, never "created";
//! - "keeper metadata was created but lane launch failed: …": created, not started;
//! - `keeper_turn_in_flight` with `metadata_committed: true`: the metadata was written and the
//!   lane not restarted — outcome unknown;
//! - a 400 refusal or the route's 404: not applied; anything else: unknown.
//!
//! The route's envelope is unverified (§15.16): a bare tool result, or one wrapped in `result`
//! or `detail`, is read the same.

use super::client::path_segment;
use super::keeper_config::{KeeperCreateRequest, KeeperCreated, KeeperCreatedDetail, LaneStart};
use super::outcome::{KeeperCreateOutcome, KeeperExists, SaveOutcome};
use super::routes::{NotFoundMeaning, RouteFamily, classify_404};
use serde_json::{Map, Value};

/// The path of `name`'s `/up`.
pub fn keeper_up_path(name: &str) -> String {
    format!("/api/v1/keepers/{}/up", path_segment(name))
}

/// The schema of the full metadata record (the update result).
pub const KEEPER_META_SCHEMA: &str = "masc.keeper_meta.v1";

/// The refusal reason of a create whose route this MASC does not serve (closed vocabulary:
/// the view says it in words and knows what to offer next).
pub const CREATE_ONLY_NOT_SERVED: &str = "create_only_route_not_served";
/// The refusal reason of a create through `/up` on a MASC that does not serve `/up` either.
pub const KEEPER_UP_NOT_SERVED: &str = "keeper_up_route_not_served";

/// What the lane-start failure's error begins with (`keeper_turn_up_create.ml`).
const LANE_FAILED: &str = "keeper metadata was created but lane launch failed";

/// The tool result inside the reply: the object itself, or its `result` / `detail` object.
fn tool_result(obj: &Map<String, Value>) -> &Map<String, Value> {
    if obj.contains_key("generation") || obj.contains_key("schema") {
        return obj;
    }
    ["result", "detail"]
        .iter()
        .find_map(|k| obj.get(*k).and_then(Value::as_object))
        .unwrap_or(obj)
}

fn error_text(obj: &Map<String, Value>) -> Option<&str> {
    match obj.get("error") {
        Some(Value::String(s)) => Some(s),
        Some(Value::Object(e)) => e.get("message").and_then(Value::as_str),
        _ => None,
    }
}

/// Classifies the reply of `/up` for the create `req`; `declaration` is what was sent (its
/// sandbox and network say what the created Keeper runs with; MASC's create result does not).
pub fn classify_keeper_up(
    status: u16,
    body: &[u8],
    req: &KeeperCreateRequest,
    declaration: &Map<String, Value>,
) -> KeeperCreateOutcome {
    if let Some(o) = super::outcome::common_case(status, body) {
        return o;
    }
    if status == 404 || status == 405 {
        return match (status, classify_404(RouteFamily::KeeperUp, body)) {
            (405, _) | (_, NotFoundMeaning::NotServed) => {
                SaveOutcome::not_applied(KEEPER_UP_NOT_SERVED)
            }
            (_, NotFoundMeaning::ObjectNotFound) => {
                SaveOutcome::not_applied(super::outcome::refusal(status, body))
            }
        };
    }
    let obj = serde_json::from_slice::<Value>(body)
        .ok()
        .and_then(|v| v.as_object().cloned())
        .unwrap_or_default();
    let error = error_text(&obj);
    if error == Some("keeper_turn_in_flight")
        || obj.get("metadata_committed") == Some(&Value::Bool(true))
    {
        return SaveOutcome::unknown(
            "keeper_turn_in_flight: the metadata was written, the lane not restarted",
        );
    }
    let created = |lane: LaneStart| KeeperCreated {
        name: req.name.clone(),
        detail: KeeperCreatedDetail {
            name: req.name.clone(),
            sandbox_profile: text(declaration, "sandbox_profile"),
            network_mode: text(declaration, "network_mode"),
            lane,
        },
    };
    if let Some(cause) = error.and_then(|e| e.strip_prefix(LANE_FAILED)) {
        let cause = cause.trim_start_matches([':', ' ']).to_string();
        return SaveOutcome::Applied {
            detail: created(LaneStart::Failed {
                reason: cause.clone(),
            }),
            warning: Some(format!(
                "{} was created but did not start: {cause}",
                req.name
            )),
        };
    }
    if status == 400 || status == 422 {
        return SaveOutcome::not_applied(super::outcome::refusal(status, body));
    }
    if !(200..300).contains(&status) {
        return super::outcome::unlisted(status);
    }
    let result = tool_result(&obj);
    let named = result.get("name").and_then(Value::as_str);
    if named.is_some_and(|n| n != req.name) {
        return SaveOutcome::unknown(format!("{status} naming another keeper"));
    }
    match (
        result.get("schema").and_then(Value::as_str),
        result.get("generation"),
    ) {
        (Some(KEEPER_META_SCHEMA), _) if named.is_some() => SaveOutcome::Conflict {
            current: KeeperExists {
                name: Some(req.name.clone()),
            },
        },
        (None, Some(g)) if g.is_u64() && named.is_some() => SaveOutcome::Applied {
            detail: created(LaneStart::Running),
            warning: None,
        },
        _ => SaveOutcome::unknown(format!("{status} of an unknown /up shape")),
    }
}

fn text(obj: &Map<String, Value>, key: &str) -> String {
    obj.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn classify(status: u16, body: Value) -> KeeperCreateOutcome {
        let decl = json!({"name": "nova", "sandbox_profile": "docker", "network_mode": "none"});
        classify_keeper_up(
            status,
            body.to_string().as_bytes(),
            &KeeperCreateRequest {
                name: "nova".into(),
            },
            decl.as_object().unwrap(),
        )
    }

    /// §15.11 step 5, §15.12 "Keeper up": the create shape is created; the update shape is an
    /// existing Keeper reconfigured (conflict, never "created"); a lane-start failure is created
    /// and not started; `keeper_turn_in_flight` is unknown; 400 is not applied; an unknown shape
    /// or another Keeper's result is unknown; a route 404 says the route is not served.
    #[test]
    fn s15_12_keeper_up_replies_are_classified_by_shape() {
        let create = json!({"name": "nova", "agent_name": "nova", "trace_id": "trace-nova",
            "generation": 1, "instructions": "", "proactive_enabled": false,
            "max_context_override": null, "agent_core_env": {}});
        assert!(matches!(
            classify(200, create.clone()),
            SaveOutcome::Applied { warning: None, .. }
        ));
        assert!(matches!(
            classify(200, json!({"ok": true, "result": create})),
            SaveOutcome::Applied { .. }
        ));
        let update = json!({"schema": "masc.keeper_meta.v1", "name": "nova",
            "created_at": "2026-11-01T00:00:00Z", "runtime": {}});
        assert!(matches!(
            classify(200, update),
            SaveOutcome::Conflict { .. }
        ));
        let SaveOutcome::Applied {
            warning: Some(w),
            detail,
        } = classify(
            500,
            json!({"error": "keeper metadata was created but lane launch failed: docker missing"}),
        )
        else {
            panic!()
        };
        assert_eq!(w, "nova was created but did not start: docker missing");
        assert_eq!(
            detail.detail.lane,
            LaneStart::Failed {
                reason: "docker missing".into()
            }
        );
        assert!(matches!(
            classify(
                409,
                json!({"error": "keeper_turn_in_flight", "metadata_committed": true})
            ),
            SaveOutcome::OutcomeUnknown { .. }
        ));
        assert!(matches!(
            classify(400, json!({"error": "instructions required"})),
            SaveOutcome::NotApplied { .. }
        ));
        assert!(matches!(
            classify(200, json!({"hello": "world"})),
            SaveOutcome::OutcomeUnknown { .. }
        ));
        assert!(matches!(
            classify(200, json!({"name": "other", "generation": 1})),
            SaveOutcome::OutcomeUnknown { .. }
        ));
        assert_eq!(
            classify(404, json!({"error": "not found"})),
            SaveOutcome::NotApplied {
                reason: KEEPER_UP_NOT_SERVED.into()
            }
        );
    }
}
