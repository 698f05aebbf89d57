//! Keeper configuration: snapshot (protocol.md §9.5), settings save (§9.6, §9.7), runtime
//! assignment responses (§9.8) and keeper create (§9.9).

use super::decode::{
    DecodeError, DecodeErrorKind, WireDecode, closed_keys, decode_json, decode_object,
    decode_value_at, required_nullable,
};
use super::runtime::CommitReceipt;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// 64 lowercase hex digits (a SHA-256 revision).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Hex64(String);

impl Hex64 {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// `text` when it is a canonical revision (64 lowercase hex digits).
    pub fn parse(text: &str) -> Option<Self> {
        super::runtime::is_canonical_revision(text).then(|| Self(text.to_string()))
    }
}

impl<'de> Deserialize<'de> for Hex64 {
    fn deserialize<D: serde::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        let s = String::deserialize(de)?;
        if super::runtime::is_canonical_revision(&s) {
            Ok(Self(s))
        } else {
            Err(serde::de::Error::invalid_value(
                serde::de::Unexpected::Str(&s),
                &"64 lowercase hex digits",
            ))
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case", deny_unknown_fields)]
pub enum ManifestRevision {
    Sha256 { value: Hex64 },
    Missing {},
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case", deny_unknown_fields)]
pub enum AssignmentState {
    Missing {},
    Assigned { runtime_id: String },
}

/// `config_revision.runtime_assignment`; also the §9.8 `expected_assignment_revision`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case", deny_unknown_fields)]
pub enum RuntimeAssignmentRevision {
    RuntimeConfigMissing {},
    RuntimeConfigPresent {
        source_revision: Hex64,
        assignment: AssignmentState,
    },
}

/// The closed composite revision, sent back exactly as read (`expected_config_revision`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompositeRevision {
    pub manifest: ManifestRevision,
    pub runtime_assignment: RuntimeAssignmentRevision,
}

/// `config_revision`: editing is refused while unavailable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigRevision {
    Unavailable { detail: String },
    Composite(CompositeRevision),
}

impl<'de> Deserialize<'de> for ConfigRevision {
    fn deserialize<D: serde::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct UnavailableWire {
            #[allow(dead_code)]
            state: UnavailableTag,
            detail: String,
        }
        #[derive(Deserialize)]
        #[serde(rename_all = "snake_case")]
        enum UnavailableTag {
            Unavailable,
        }
        let v = Value::deserialize(de)?;
        let is_state_form = v.get("state").is_some();
        if is_state_form {
            let w: UnavailableWire = serde_json::from_value(v).map_err(serde::de::Error::custom)?;
            Ok(Self::Unavailable { detail: w.detail })
        } else {
            let c: CompositeRevision =
                serde_json::from_value(v).map_err(serde::de::Error::custom)?;
            Ok(Self::Composite(c))
        }
    }
}

impl ConfigRevision {
    pub fn composite(&self) -> Option<&CompositeRevision> {
        match self {
            Self::Composite(c) => Some(c),
            Self::Unavailable { .. } => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SandboxProfile {
    Docker,
    Microvm,
    RemoteSsh,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NetworkMode {
    None,
    Inherit,
}

impl NetworkMode {
    /// The wire word (§9.7).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Inherit => "inherit",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct ExecutionSettings {
    #[serde(default)]
    pub selected_runtime_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct WorkspaceSettings {
    #[serde(default)]
    pub mention_targets: Option<Vec<String>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct PromptSettings {
    #[serde(default)]
    pub instructions: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct ProactiveSettings {
    #[serde(default)]
    pub enabled: Option<bool>,
}

/// `skills.names`: `None` = all published skills.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct SkillSelection {
    #[serde(deserialize_with = "required_nullable")]
    pub names: Option<Vec<String>>,
}

/// MASC's wire contract for a context override: a positive integer a JSON reader holds
/// exactly (at most 2^53 − 1), or null.
const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

fn positive_or_null<'de, D: serde::Deserializer<'de>>(de: D) -> Result<Option<u64>, D::Error> {
    match Option::<u64>::deserialize(de)? {
        Some(n) if n == 0 || n > MAX_SAFE_INTEGER => Err(serde::de::Error::invalid_value(
            serde::de::Unexpected::Unsigned(n),
            &"a positive safe integer or null",
        )),
        other => Ok(other),
    }
}

/// `GET /api/v1/keepers/{name}/config`. No stringly-typed value is coerced.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct KeeperConfigSnapshot {
    #[serde(default)]
    pub name: Option<String>,
    pub config_revision: ConfigRevision,
    pub execution: ExecutionSettings,
    #[serde(default)]
    pub workspace: Option<WorkspaceSettings>,
    #[serde(default)]
    pub autoboot_enabled: Option<bool>,
    #[serde(deserialize_with = "positive_or_null")]
    pub max_context_override: Option<u64>,
    pub sandbox_profile: SandboxProfile,
    pub network_mode: NetworkMode,
    #[serde(default)]
    pub prompt: Option<PromptSettings>,
    #[serde(default)]
    pub proactive: Option<ProactiveSettings>,
    #[serde(default)]
    pub skills: Option<SkillSelection>,
}

impl WireDecode for KeeperConfigSnapshot {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        decode_json(bytes)
    }
}

impl KeeperConfigSnapshot {
    /// The snapshot of `keeper`: an answer naming another Keeper is refused (a `name` the
    /// server leaves out is not a mismatch: §9.5 makes it optional).
    pub fn decode_for(bytes: &[u8], keeper: &str) -> Result<Self, DecodeError> {
        let snapshot = Self::decode(bytes)?;
        match snapshot.name.as_deref() {
            Some(name) if name != keeper => Err(DecodeError::new(
                DecodeErrorKind::EchoMismatch,
                ".name",
                format!("asked for {keeper:?}, the answer names {name:?}"),
            )),
            _ => Ok(snapshot),
        }
    }

    /// The editable fields in §9.6 patch form (`instructions`, `sandbox_profile`, … as a patch
    /// names them); a key the server did not report is absent.
    pub fn patch_fields(&self) -> serde_json::Map<String, Value> {
        use serde_json::json;
        let mut m = serde_json::Map::new();
        if let Some(b) = self.autoboot_enabled {
            m.insert("autoboot_enabled".into(), json!(b));
        }
        if let Some(b) = self.proactive.as_ref().and_then(|p| p.enabled) {
            m.insert("proactive_enabled".into(), json!(b));
        }
        m.insert("sandbox_profile".into(), json!(self.sandbox_profile));
        m.insert("network_mode".into(), json!(self.network_mode));
        m.insert(
            "max_context_override".into(),
            json!(self.max_context_override),
        );
        if let Some(targets) = self
            .workspace
            .as_ref()
            .and_then(|w| w.mention_targets.as_ref())
        {
            m.insert("mention_targets".into(), json!(targets));
        }
        if let Some(skills) = &self.skills {
            let v = match &skills.names {
                None => json!({}),
                Some(names) => json!({ "names": names }),
            };
            m.insert("skills".into(), v);
        }
        if let Some(text) = self.prompt.as_ref().and_then(|p| p.instructions.as_ref()) {
            m.insert("instructions".into(), json!(text));
        }
        m
    }

    /// The declared instructions: `None` when the snapshot carries none or an empty text.
    pub fn instructions(&self) -> Option<&str> {
        self.prompt
            .as_ref()
            .and_then(|p| p.instructions.as_deref())
            .filter(|t| !t.is_empty())
    }
}

// ---- §9.6 settings save ----

/// The request a settings or sandbox save answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeeperConfigSaveRequest {
    pub keeper: String,
    pub expected: CompositeRevision,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ConfigWrite {
    pub revision: ConfigRevision,
    pub applied: bool,
    pub warnings: Vec<Value>,
    /// Not on the wire: what a sandbox save's own fresh read (H-8) found just before it
    /// wrote, so its undo puts back exactly that.
    #[serde(skip)]
    pub replaced: Option<ReplacedSandbox>,
}

/// The sandbox a save replaced, as its worker read it just before writing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplacedSandbox {
    pub profile: SandboxProfile,
    pub network: NetworkMode,
}

/// A 200 of §9.6: the snapshot fields are not needed to classify; `config_write` is.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct KeeperConfigSaveResponse {
    pub config_write: ConfigWrite,
    /// MASC sends a bool or a state string here; kept opaque.
    #[serde(default)]
    pub runtime_sync: Option<Value>,
}

impl WireDecode for KeeperConfigSaveResponse {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        decode_json(bytes)
    }
}

/// `expected` / `observed` of a revision conflict (§9.6, §9.8).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RevisionConflict<R> {
    pub expected: R,
    pub observed: R,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KeeperConfigErrorCode {
    KeeperConfigRevisionConflict,
    KeeperConfigPublicationRolledBack,
    KeeperRuntimeSyncFailed,
    KeeperManifestReconciliationRequired,
    KeeperConfigCompositeReconciliationRequired,
}

/// A typed §9.6 failure body (409 or 503).
#[derive(Debug, Clone, PartialEq)]
pub struct KeeperConfigFailure {
    pub code: KeeperConfigErrorCode,
    pub config_applied: Option<bool>,
    pub conflict: Option<RevisionConflict<ConfigRevision>>,
}

impl WireDecode for KeeperConfigFailure {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        #[derive(Deserialize)]
        struct ErrorWire {
            code: KeeperConfigErrorCode,
            #[serde(default)]
            expected: Option<ConfigRevision>,
            #[serde(default)]
            observed: Option<ConfigRevision>,
        }
        #[derive(Deserialize)]
        struct Wire {
            error: ErrorWire,
            #[serde(default)]
            config_applied: Option<bool>,
        }
        let w: Wire = decode_json(bytes)?;
        let conflict = match (w.error.code, w.error.expected, w.error.observed) {
            (
                KeeperConfigErrorCode::KeeperConfigRevisionConflict,
                Some(expected),
                Some(observed),
            ) => Some(RevisionConflict { expected, observed }),
            (KeeperConfigErrorCode::KeeperConfigRevisionConflict, _, _) => {
                return Err(DecodeError::new(
                    DecodeErrorKind::MissingField,
                    ".error",
                    "a revision conflict names expected and observed",
                ));
            }
            _ => None,
        };
        Ok(Self {
            code: w.error.code,
            config_applied: w.config_applied,
            conflict,
        })
    }
}

// ---- §9.8 runtime assignment ----

/// The request an assignment answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuntimeAssignmentRequest {
    pub keeper_name: String,
    pub runtime_id: Option<String>,
    pub expected: RuntimeAssignmentRevision,
}

/// A 200 to the assignment: a commit receipt, or exactly the unchanged shape.
#[derive(Debug, Clone, PartialEq)]
pub enum RuntimeAssignmentResponse {
    Committed(CommitReceipt),
    Unchanged {
        assignment_revision: RuntimeAssignmentRevision,
        warnings: Vec<Value>,
    },
}

impl WireDecode for RuntimeAssignmentResponse {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let obj = decode_object(bytes)?;
        if obj.contains_key("state") {
            let receipt = CommitReceipt::decode(bytes)?;
            if receipt.application.operation != "assignment" {
                return Err(DecodeError::new(
                    DecodeErrorKind::InvalidValue,
                    ".application.operation",
                    "not an assignment receipt",
                ));
            }
            return Ok(Self::Committed(receipt));
        }
        if obj.get("applied") == Some(&Value::Bool(false)) {
            closed_keys(
                &obj,
                &["ok", "applied", "assignment_revision", "warnings"],
                "",
            )?;
            if obj.get("ok") != Some(&Value::Bool(true)) {
                return Err(DecodeError::new(
                    DecodeErrorKind::InvalidValue,
                    ".ok",
                    "unchanged shape without ok:true",
                ));
            }
            let missing = |k: &str| {
                DecodeError::new(
                    DecodeErrorKind::MissingField,
                    format!(".{k}"),
                    format!("missing field `{k}`"),
                )
            };
            let rev = obj
                .get("assignment_revision")
                .ok_or_else(|| missing("assignment_revision"))?;
            let warnings = obj.get("warnings").ok_or_else(|| missing("warnings"))?;
            return Ok(Self::Unchanged {
                assignment_revision: decode_value_at(rev, ".assignment_revision")?,
                warnings: decode_value_at(warnings, ".warnings")?,
            });
        }
        Err(DecodeError::new(
            DecodeErrorKind::Other("not_a_commit_receipt"),
            ".",
            "neither a commit receipt nor the unchanged shape",
        ))
    }
}

/// The typed 409 of the assignment.
pub fn decode_assignment_conflict(
    bytes: &[u8],
) -> Result<RevisionConflict<RuntimeAssignmentRevision>, DecodeError> {
    #[derive(Deserialize)]
    #[serde(rename_all = "snake_case")]
    enum Code {
        RuntimeAssignmentRevisionConflict,
    }
    #[derive(Deserialize)]
    struct ErrorWire {
        #[allow(dead_code)]
        code: Code,
        expected: RuntimeAssignmentRevision,
        observed: RuntimeAssignmentRevision,
    }
    #[derive(Deserialize)]
    struct Wire {
        error: ErrorWire,
    }
    let w: Wire = decode_json(bytes)?;
    Ok(RevisionConflict {
        expected: w.error.expected,
        observed: w.error.observed,
    })
}

// ---- §9.9 keeper create ----

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeeperCreateRequest {
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum LaneStart {
    Running,
    Failed { reason: String },
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct KeeperCreatedDetail {
    pub name: String,
    pub sandbox_profile: String,
    pub network_mode: String,
    pub lane: LaneStart,
}

/// 201 of the create-only route.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeeperCreated {
    pub name: String,
    pub detail: KeeperCreatedDetail,
}

impl WireDecode for KeeperCreated {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        #[derive(Deserialize)]
        #[serde(rename_all = "snake_case")]
        enum Action {
            Created,
        }
        #[derive(Deserialize)]
        struct Wire {
            #[allow(dead_code)]
            ok: super::runtime::OkTrue,
            #[allow(dead_code)]
            action: Action,
            name: String,
            detail: KeeperCreatedDetail,
        }
        let w: Wire = decode_json(bytes)?;
        Ok(Self {
            name: w.name,
            detail: w.detail,
        })
    }
}

/// The error text of a `{"ok":false,"error":str,...}` body, when it has one.
pub fn string_error(bytes: &[u8]) -> Option<String> {
    let obj = decode_object(bytes).ok()?;
    match obj.get("error") {
        Some(Value::String(s)) => Some(s.clone()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SNAP: &str = r#"{"name":"alpha","config_revision":{"manifest":{"state":"missing"},"runtime_assignment":{"state":"runtime_config_missing"}},"execution":{"selected_runtime_id":"runtime-a"},"sandbox_profile":"docker","network_mode":"none","autoboot_enabled":true,"max_context_override":null}"#;

    #[test]
    fn snapshot_and_revision_round_trip_s9_5() {
        let s = KeeperConfigSnapshot::decode(SNAP.as_bytes()).unwrap();
        let c = s.config_revision.composite().unwrap();
        let back = serde_json::to_value(c).unwrap();
        assert_eq!(
            back,
            serde_json::json!({"manifest":{"state":"missing"},"runtime_assignment":{"state":"runtime_config_missing"}})
        );
    }

    #[test]
    fn composite_revision_is_closed_s9_5() {
        let body = SNAP.replace(r#"{"state":"missing"}"#, r#"{"state":"missing","x":1}"#);
        assert!(KeeperConfigSnapshot::decode(body.as_bytes()).is_err());
        let body = SNAP.replace(
            r#"{"state":"missing"}"#,
            r#"{"state":"sha256","value":"ABC"}"#,
        );
        assert_eq!(
            KeeperConfigSnapshot::decode(body.as_bytes())
                .unwrap_err()
                .kind,
            DecodeErrorKind::InvalidValue
        );
    }

    #[test]
    fn unavailable_revision_s9_5() {
        let body = SNAP.replace(
            r#"{"manifest":{"state":"missing"},"runtime_assignment":{"state":"runtime_config_missing"}}"#,
            r#"{"state":"unavailable","detail":"manifest unreadable"}"#,
        );
        let s = KeeperConfigSnapshot::decode(body.as_bytes()).unwrap();
        assert!(s.config_revision.composite().is_none());
    }

    #[test]
    fn max_context_override_positive_or_null_s9_5() {
        let body = SNAP.replace(
            r#""max_context_override":null"#,
            r#""max_context_override":0"#,
        );
        assert_eq!(
            KeeperConfigSnapshot::decode(body.as_bytes())
                .unwrap_err()
                .kind,
            DecodeErrorKind::InvalidValue
        );
        let body = SNAP.replace(
            r#""max_context_override":null"#,
            r#""max_context_override":"9""#,
        );
        assert_eq!(
            KeeperConfigSnapshot::decode(body.as_bytes())
                .unwrap_err()
                .kind,
            DecodeErrorKind::WrongType
        );
    }

    #[test]
    fn assignment_unchanged_shape_is_exact_s9_8() {
        let ok = br#"{"ok":true,"applied":false,"assignment_revision":{"state":"runtime_config_missing"},"warnings":[]}"#;
        assert!(matches!(
            RuntimeAssignmentResponse::decode(ok).unwrap(),
            RuntimeAssignmentResponse::Unchanged { .. }
        ));
        let extra = br#"{"ok":true,"applied":false,"assignment_revision":{"state":"runtime_config_missing"},"warnings":[],"path":"x"}"#;
        assert_eq!(
            RuntimeAssignmentResponse::decode(extra).unwrap_err().kind,
            DecodeErrorKind::UnknownField
        );
    }
}
