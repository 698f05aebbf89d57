//! `GET /api/v1/gate/keeper-status?name=` — Keeper metadata (protocol.md §14.7; MASC
//! lib/keeper/keeper_status_detail.ml, `meta` from lib/keeper/keeper_meta_json.ml).
//!
//! The body is open: masc-tui reads the identity that owns Live Context (`meta.trace_id`,
//! `meta.generation`, L-2), the usage counters Runtime Stats shows, the current task and last
//! blocker (Current Work), the instructions (Instructions tab) and the sandbox fields. Only the
//! echo and the owner fields are required; a field a release does not send is absent, never 0.
//! A 404 `unknown keeper: <name>` is "not registered", not a failed read ([`not_registered`]).

use crate::protocol::client::{ClientError, QueryString};
use crate::protocol::decode::{
    DecodeError, DecodeErrorKind, SinceRelease, decode_json_object, present_nullable,
};
use serde::Deserialize;

pub const KEEPER_STATUS_PATH: &str = "/api/v1/gate/keeper-status";

/// The read of one Keeper's metadata.
pub fn keeper_status_path(name: &str) -> String {
    QueryString::new()
        .pair("name", name)
        .append_to(KEEPER_STATUS_PATH)
}

/// `last_blocker`: `klass` is a class name, or `{"name": …, "reason": …}` for a runtime
/// exhaustion (lib/keeper/keeper_meta_contract.ml `blocker_info_to_json`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Blocker {
    pub klass: serde_json::Value,
    #[serde(default)]
    pub detail: Option<String>,
}

impl Blocker {
    /// The blocker's class name (`runtime_exhausted` for the object form); `None` when the
    /// class is neither a string nor an object with a string `name`.
    pub fn class_name(&self) -> Option<&str> {
        match &self.klass {
            serde_json::Value::String(s) => Some(s),
            serde_json::Value::Object(o) => o.get("name").and_then(|v| v.as_str()),
            _ => None,
        }
    }
}

/// The Keeper metadata record (`masc.keeper_meta.v1`), the fields masc-tui shows.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct KeeperMeta {
    #[serde(default)]
    pub schema: Option<String>,
    pub name: String,
    #[serde(default)]
    pub agent_name: Option<String>,
    /// Owns Live Context with `generation` (L-2).
    pub trace_id: String,
    /// The Keeper generation (MASC's `rt.nonce`); §14.1's `owner_nonce`.
    pub generation: u64,
    #[serde(default)]
    pub created_at: Option<String>,
    #[serde(default)]
    pub updated_at: Option<String>,
    #[serde(default)]
    pub total_turns: Option<u64>,
    #[serde(default)]
    pub total_input_tokens: Option<u64>,
    #[serde(default)]
    pub total_output_tokens: Option<u64>,
    #[serde(default)]
    pub total_tokens: Option<u64>,
    #[serde(default)]
    pub total_cost_usd: Option<f64>,
    /// Unix seconds; 0 = never.
    #[serde(default)]
    pub last_turn_ts: Option<f64>,
    #[serde(default)]
    pub compaction_count: Option<u64>,
    /// `None`: not sent; `Some(None)`: no current task.
    #[serde(default, deserialize_with = "present_nullable")]
    pub current_task_id: Option<Option<String>>,
    /// `None`: not sent; `Some(None)`: no blocker recorded.
    #[serde(default, deserialize_with = "present_nullable")]
    pub last_blocker: Option<Option<Blocker>>,
    #[serde(default)]
    pub autonomous_turn_count: Option<u64>,
    #[serde(default)]
    pub noop_turn_count: Option<u64>,
}

/// `lifecycle` of the status body.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Lifecycle {
    #[serde(default)]
    pub created_at: Option<String>,
    #[serde(default)]
    pub updated_at: Option<String>,
    #[serde(default)]
    pub uptime_hours: Option<f64>,
}

/// The §14.7 body (open).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct KeeperStatus {
    /// Echo of the requested name.
    pub name: String,
    pub meta: KeeperMeta,
    /// The Keeper's instructions: `Sent(None)` when the server says there are none, absent
    /// when this release does not send them.
    #[serde(default)]
    pub instructions: SinceRelease<Option<String>>,
    #[serde(default)]
    pub paused: Option<bool>,
    #[serde(default)]
    pub keepalive_running: Option<bool>,
    #[serde(default)]
    pub keeper_age_s: Option<f64>,
    #[serde(default)]
    pub last_turn_ago_s: Option<f64>,
    #[serde(default)]
    pub lifecycle: Option<Lifecycle>,
    #[serde(default)]
    pub sandbox_profile: Option<String>,
    #[serde(default)]
    pub network_mode: Option<String>,
    #[serde(default)]
    pub sandbox_last_error: Option<String>,
}

impl KeeperStatus {
    /// Decodes the body of the read for `name`: the `name` echo and `meta.name` must both be
    /// that Keeper (an answer about another Keeper is never shown as this one's).
    pub fn decode_for(bytes: &[u8], name: &str) -> Result<Self, DecodeError> {
        let status: Self = decode_json_object(bytes)?;
        if status.name != name {
            return Err(DecodeError::new(
                DecodeErrorKind::EchoMismatch,
                ".name",
                format!("asked for {name:?}, the answer names {:?}", status.name),
            ));
        }
        if status.meta.name != name {
            return Err(DecodeError::new(
                DecodeErrorKind::IdentityMismatch,
                ".meta.name",
                format!(
                    "metadata of {:?} in the answer for {name:?}",
                    status.meta.name
                ),
            ));
        }
        Ok(status)
    }

    /// The owner of Live Context: (`meta.trace_id`, `meta.generation`) (L-2).
    pub fn context_owner(&self) -> (&str, u64) {
        (&self.meta.trace_id, self.meta.generation)
    }
}

/// The §14.7 404 for a Keeper that is not registered (`{"ok":false,"error":"unknown keeper:
/// <name>"}`): the server's message, or `None` for any other failure.
pub fn not_registered(err: &ClientError) -> Option<String> {
    let ClientError::Status { status: 404, body } = err else {
        return None;
    };
    let value: serde_json::Value = serde_json::from_str(body).ok()?;
    let message = value.get("error")?.as_str()?;
    (value.get("ok") == Some(&serde_json::Value::Bool(false))
        && message.starts_with("unknown keeper"))
    .then(|| message.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const BODY: &str = r#"{"name":"rondo","meta":{"schema":"masc.keeper_meta.v1","name":"rondo",
        "agent_name":"rondo","trace_id":"trace-rondo","generation":7,"total_turns":41,
        "current_task_id":null,"last_blocker":{"klass":{"name":"runtime_exhausted","reason":"x"},
        "detail":"quota"},"unknown_future_key":1},"instructions":null,"paused":false,
        "keepalive_running":true,"sandbox_profile":"docker","network_mode":"bridge",
        "context":{"ignored":true}}"#;

    #[test]
    fn s14_7_decodes_the_owner_and_keeps_absent_apart_from_null() {
        let s = KeeperStatus::decode_for(BODY.as_bytes(), "rondo").unwrap();
        assert_eq!(s.context_owner(), ("trace-rondo", 7));
        assert_eq!(s.meta.current_task_id, Some(None));
        assert_eq!(s.meta.total_tokens, None, "absent, not 0");
        assert_eq!(s.instructions, SinceRelease::Sent(None));
        let blocker = s.meta.last_blocker.clone().flatten().unwrap();
        assert_eq!(blocker.class_name(), Some("runtime_exhausted"));
        let without: serde_json::Value = serde_json::from_str(BODY).unwrap();
        let mut without = without.as_object().unwrap().clone();
        without.remove("instructions");
        let bytes = serde_json::to_vec(&without).unwrap();
        let s = KeeperStatus::decode_for(&bytes, "rondo").unwrap();
        assert_eq!(s.instructions, SinceRelease::NotInRelease);
    }

    #[test]
    fn s14_7_another_keeper_or_a_missing_owner_is_refused() {
        let e = KeeperStatus::decode_for(BODY.as_bytes(), "mira").unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::EchoMismatch);
        let other = BODY.replacen(
            r#""masc.keeper_meta.v1","name":"rondo""#,
            r#""masc.keeper_meta.v1","name":"mira""#,
            1,
        );
        assert_ne!(other, BODY);
        let e = KeeperStatus::decode_for(other.as_bytes(), "rondo").unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::IdentityMismatch);
        let no_gen = BODY.replace(r#""generation":7,"#, "");
        let e = KeeperStatus::decode_for(no_gen.as_bytes(), "rondo").unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::MissingField);
        assert!(e.path.starts_with(".meta"), "{}", e.path);
        assert!(e.detail.contains("generation"), "{}", e.detail);
    }

    #[test]
    fn s14_7_only_the_unknown_keeper_404_is_not_registered() {
        let unknown = ClientError::Status {
            status: 404,
            body: r#"{"ok":false,"error":"unknown keeper: ghost"}"#.into(),
        };
        assert_eq!(
            not_registered(&unknown).as_deref(),
            Some("unknown keeper: ghost")
        );
        for other in [
            ClientError::Status {
                status: 503,
                body: r#"{"ok":false,"error":"unknown keeper: ghost"}"#.into(),
            },
            ClientError::Status {
                status: 404,
                body: r#"{"error":"not found"}"#.into(),
            },
            ClientError::Timeout,
        ] {
            assert_eq!(not_registered(&other), None, "{other:?}");
        }
    }

    #[test]
    fn the_path_encodes_the_name() {
        assert_eq!(
            keeper_status_path("하늘"),
            "/api/v1/gate/keeper-status?name=%ED%95%98%EB%8A%98"
        );
    }
}
