//! Keeper operations (protocol.md §14.1–§14.4): the bodies
//! masc-tui sends and the reply shapes it reads. Classification into §11 outcomes is
//! `protocol::outcome::keeper_ops`.

use super::client::path_segment;
use super::decode::{DecodeError, WireDecode, closed_keys, decode_json, decode_object};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// `GET` and `POST /api/v1/keepers/{name}/config` (§9.5, §9.6, §9.7).
pub fn keeper_config_path(keeper: &str) -> String {
    format!("/api/v1/keepers/{}/config", path_segment(keeper))
}

/// `POST /api/v1/runtime/config/assignment` (§9.8).
pub const ASSIGNMENT_PATH: &str = "/api/v1/runtime/config/assignment";

/// `POST /api/v1/keepers/{name}/directive` (§14.1).
pub fn directive_path(keeper: &str) -> String {
    format!("/api/v1/keepers/{}/directive", path_segment(keeper))
}

/// `POST /api/v1/keepers/{name}/boot` or `/shutdown` (§14.2).
pub fn power_path(keeper: &str, action: PowerAction) -> String {
    format!(
        "/api/v1/keepers/{}/{}",
        path_segment(keeper),
        action.as_str()
    )
}

/// `POST /api/v1/dashboard/agents/purge` (§14.3; the Keeper is named in the body).
pub const PURGE_PATH: &str = "/api/v1/dashboard/agents/purge";

/// `GET` and `POST /api/v1/keepers/tool-approval-mode` (§14.4).
pub const TOOL_APPROVAL_MODE_PATH: &str = "/api/v1/keepers/tool-approval-mode";

// ---- §14.1 directive ----

/// What a directive asks (the wire `action`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DirectiveAction {
    Pause,
    Wakeup,
    Resume,
}

impl DirectiveAction {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pause => "pause",
            Self::Wakeup => "wakeup",
            Self::Resume => "resume",
        }
    }
}

/// The resume's extra fields: the Keeper generation read from §14.7 and the operation id
/// minted once per press (`tui-resume-<uuidv7>`, reused only by an explicit retry).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResumeArgs {
    pub owner_nonce: u64,
    pub operator_operation_id: String,
}

/// The request a directive reply answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirectiveRequest {
    pub keeper: String,
    pub action: DirectiveAction,
    /// `Some` exactly for a resume.
    pub resume: Option<ResumeArgs>,
}

impl DirectiveRequest {
    pub fn body(&self) -> Value {
        match &self.resume {
            Some(r) => json!({
                "action": self.action.as_str(),
                "owner_nonce": r.owner_nonce,
                "operator_operation_id": r.operator_operation_id,
            }),
            None => json!({"action": self.action.as_str()}),
        }
    }
}

/// The 200 of a pause or wake: exactly `{ok:true, action, name}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirectiveEcho {
    pub action: String,
    pub name: String,
}

impl WireDecode for DirectiveEcho {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let obj = decode_object(bytes)?;
        closed_keys(&obj, &["ok", "action", "name"], "")?;
        #[derive(Deserialize)]
        struct Wire {
            #[allow(dead_code)]
            ok: super::runtime::OkTrue,
            action: String,
            name: String,
        }
        let w: Wire = decode_json(bytes)?;
        Ok(Self {
            action: w.action,
            name: w.name,
        })
    }
}

/// `commit_status` of a resume reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CommitStatus {
    Committed,
    AlreadyCommitted,
}

/// A resume reply (200, 202 and the failures share the shape, §14.1).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ResumeReply {
    #[serde(default)]
    pub ok: Option<bool>,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub committed: Option<bool>,
    #[serde(default)]
    pub commit_status: Option<CommitStatus>,
    #[serde(default)]
    pub projection: Option<String>,
    #[serde(default)]
    pub error: Option<Value>,
}

impl WireDecode for ResumeReply {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        decode_json(bytes)
    }
}

// ---- §14.2 boot and shutdown ----

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PowerAction {
    Boot,
    Shutdown,
}

impl PowerAction {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Boot => "boot",
            Self::Shutdown => "shutdown",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PowerRequest {
    pub keeper: String,
    pub action: PowerAction,
}

/// A 200 of boot or shutdown: `ok:true` with the echoes; boot may say `already_live`.
#[derive(Debug, Clone, PartialEq)]
pub struct PowerReply {
    pub action: String,
    pub name: String,
    pub already_live: bool,
}

impl WireDecode for PowerReply {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        #[derive(Deserialize)]
        struct Wire {
            #[allow(dead_code)]
            ok: super::runtime::OkTrue,
            action: String,
            name: String,
            #[serde(default)]
            already_live: Option<bool>,
        }
        let w: Wire = decode_json(bytes)?;
        Ok(Self {
            action: w.action,
            name: w.name,
            already_live: w.already_live == Some(true),
        })
    }
}

// ---- §14.3 purge ----

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PurgeRequest {
    pub keeper: String,
}

impl PurgeRequest {
    pub fn body(&self) -> Value {
        json!({"agent_name": self.keeper})
    }
}

/// What a purge reply says it targeted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PurgeTarget {
    Keeper,
    Agent,
}

/// A 2xx purge reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PurgeReply {
    pub accepted: bool,
    pub target_kind: PurgeTarget,
    pub keeper_name: Option<String>,
    pub operation_id: Option<String>,
}

impl WireDecode for PurgeReply {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        #[derive(Deserialize)]
        struct Wire {
            #[allow(dead_code)]
            ok: super::runtime::OkTrue,
            accepted: bool,
            target_kind: PurgeTarget,
            #[serde(default)]
            keeper_name: Option<String>,
            #[serde(default)]
            operation_id: Option<String>,
        }
        let w: Wire = decode_json(bytes)?;
        Ok(Self {
            accepted: w.accepted,
            target_kind: w.target_kind,
            keeper_name: w.keeper_name,
            operation_id: w.operation_id.filter(|s| !s.trim().is_empty()),
        })
    }
}

// ---- §14.4 tool approval mode ----

/// The per-Keeper tool approval stance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolApprovalMode {
    Auto,
    Yolo,
}

impl ToolApprovalMode {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Yolo => "yolo",
        }
    }
}

/// `GET /api/v1/keepers/tool-approval-mode`: overrides plus the default (absent = auto).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolApprovalModes {
    pub overrides: Vec<(String, ToolApprovalMode)>,
    pub default: ToolApprovalMode,
}

impl ToolApprovalModes {
    /// A Keeper absent from the overrides has the default.
    pub fn mode_of(&self, keeper: &str) -> ToolApprovalMode {
        self.overrides
            .iter()
            .find(|(k, _)| k == keeper)
            .map_or(self.default, |(_, m)| *m)
    }
}

impl WireDecode for ToolApprovalModes {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        #[derive(Deserialize)]
        struct Row {
            keeper: String,
            mode: ToolApprovalMode,
        }
        #[derive(Deserialize)]
        struct Wire {
            overrides: Vec<Row>,
            #[serde(default)]
            default: Option<ToolApprovalMode>,
        }
        let w: Wire = decode_json(bytes)?;
        Ok(Self {
            overrides: w
                .overrides
                .into_iter()
                .map(|r| (r.keeper, r.mode))
                .collect(),
            default: w.default.unwrap_or(ToolApprovalMode::Auto),
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolApprovalModeRequest {
    pub keeper: String,
    pub mode: ToolApprovalMode,
}

impl ToolApprovalModeRequest {
    pub fn body(&self) -> Value {
        json!({"name": self.keeper, "mode": self.mode.as_str()})
    }
}

/// The 200 of a mode change: `{keeper, mode}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolApprovalModeReply {
    pub keeper: String,
    pub mode: ToolApprovalMode,
}

impl WireDecode for ToolApprovalModeReply {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        #[derive(Deserialize)]
        struct Wire {
            keeper: String,
            mode: ToolApprovalMode,
        }
        let w: Wire = decode_json(bytes)?;
        Ok(Self {
            keeper: w.keeper,
            mode: w.mode,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_encode_the_keeper_name_s14() {
        assert_eq!(
            directive_path("하늘"),
            "/api/v1/keepers/%ED%95%98%EB%8A%98/directive"
        );
        assert_eq!(
            power_path("a b", PowerAction::Shutdown),
            "/api/v1/keepers/a%20b/shutdown"
        );
    }

    #[test]
    fn directive_bodies_s14_1() {
        let pause = DirectiveRequest {
            keeper: "a".into(),
            action: DirectiveAction::Pause,
            resume: None,
        };
        assert_eq!(pause.body(), json!({"action":"pause"}));
        let resume = DirectiveRequest {
            keeper: "a".into(),
            action: DirectiveAction::Resume,
            resume: Some(ResumeArgs {
                owner_nonce: 7,
                operator_operation_id: "tui-resume-1".into(),
            }),
        };
        assert_eq!(
            resume.body(),
            json!({"action":"resume","owner_nonce":7,"operator_operation_id":"tui-resume-1"})
        );
    }

    #[test]
    fn directive_echo_is_closed_s14_1() {
        assert!(DirectiveEcho::decode(br#"{"ok":true,"action":"pause","name":"a"}"#).is_ok());
        assert!(
            DirectiveEcho::decode(br#"{"ok":true,"action":"pause","name":"a","x":1}"#).is_err()
        );
        assert!(DirectiveEcho::decode(br#"{"ok":false,"action":"pause","name":"a"}"#).is_err());
    }

    #[test]
    fn tool_modes_default_to_auto_and_refuse_other_modes_s14_4() {
        let m =
            ToolApprovalModes::decode(br#"{"overrides":[{"keeper":"a","mode":"yolo"}]}"#).unwrap();
        assert_eq!(m.mode_of("a"), ToolApprovalMode::Yolo);
        assert_eq!(m.mode_of("b"), ToolApprovalMode::Auto);
        assert!(
            ToolApprovalModes::decode(br#"{"overrides":[{"keeper":"a","mode":"ask"}]}"#).is_err()
        );
    }
}
