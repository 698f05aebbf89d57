//! Raw runtime config: read (protocol.md §9.2), preview (§9.3), save receipt and conflict
//! (§9.4). The commit receipt is shared with the runtime assignment (§9.8).

use super::{is_canonical_revision, runtime_source_revision};
use crate::protocol::decode::{
    DecodeError, DecodeErrorKind, WireDecode, decode_json, decode_object, decode_value_at,
    required_nullable,
};
use serde::Deserialize;
use serde_json::Value;

/// `ok: true` and nothing else.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OkTrue;

impl<'de> Deserialize<'de> for OkTrue {
    fn deserialize<D: serde::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        if bool::deserialize(de)? {
            Ok(Self)
        } else {
            Err(serde::de::Error::invalid_value(
                serde::de::Unexpected::Bool(false),
                &"true",
            ))
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IssueSeverity {
    Error,
    Warning,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ValidationIssue {
    #[serde(default)]
    pub key: Option<String>,
    #[serde(default)]
    pub kind: Option<String>,
    pub severity: IssueSeverity,
    #[serde(default)]
    pub detail: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ConfigValidation {
    pub valid: bool,
    #[serde(default)]
    pub issues: Vec<ValidationIssue>,
    #[serde(default)]
    pub parse_error: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum AccountEmail {
    Read {
        integration_id: String,
        email: String,
    },
    NotRead {
        integration_id: String,
        cause: Value,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelBinding {
    pub runtime_id: String,
    pub provider_id: String,
    pub model_id: String,
    #[serde(deserialize_with = "required_nullable")]
    pub max_context_override: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case", deny_unknown_fields)]
enum ModelBindingsWire {
    Ready {
        path: String,
        source_revision: String,
        bindings: Vec<ModelBinding>,
    },
    Unavailable {
        reason: String,
    },
}

/// The `model_bindings` extension, judged against the top-level path and revision.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelTable {
    /// The server sent no `model_bindings` (MASC itself never does).
    NotSent,
    Ready(Vec<ModelBinding>),
    Unavailable {
        reason: String,
    },
    /// Undecodable, or for another file or revision: a model-table error; the raw text stays.
    Refused(DecodeError),
}

/// `GET /api/v1/runtime/config/raw`.
#[derive(Debug, Clone, PartialEq)]
pub struct RuntimeConfigRaw {
    pub source_revision: String,
    pub path: String,
    pub file_name: Option<String>,
    pub source_text: String,
    /// `None`: not sent (older or partial servers), not "valid".
    pub validation: Option<ConfigValidation>,
    pub application: Option<Value>,
    pub account_groups: Option<Value>,
    pub account_emails: Option<Vec<AccountEmail>>,
    pub model_table: ModelTable,
}

impl RuntimeConfigRaw {
    /// Whether the revision is the canonical 64-hex form (opaque test revisions decode too,
    /// but are shown as such).
    pub fn revision_is_canonical(&self) -> bool {
        is_canonical_revision(&self.source_revision)
    }
}

#[derive(Deserialize)]
struct RawWire {
    #[allow(dead_code)]
    ok: OkTrue,
    source_revision: String,
    path: String,
    #[serde(default)]
    file_name: Option<String>,
    source_text: String,
    #[serde(default)]
    validation: Option<ConfigValidation>,
    #[serde(default)]
    application: Option<Value>,
    #[serde(default)]
    account_groups: Option<Value>,
    #[serde(default)]
    account_emails: Option<Vec<AccountEmail>>,
    #[serde(default)]
    model_bindings: Option<Value>,
}

impl WireDecode for RuntimeConfigRaw {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let w: RawWire = decode_json(bytes)?;
        let model_table = match &w.model_bindings {
            None => ModelTable::NotSent,
            Some(v) => match decode_value_at::<ModelBindingsWire>(v, ".model_bindings") {
                Err(e) => ModelTable::Refused(e),
                Ok(ModelBindingsWire::Unavailable { reason }) => ModelTable::Unavailable { reason },
                Ok(ModelBindingsWire::Ready {
                    path,
                    source_revision,
                    bindings,
                }) => {
                    if path != w.path {
                        ModelTable::Refused(DecodeError::new(
                            DecodeErrorKind::EchoMismatch,
                            ".model_bindings.path",
                            "model table of another file",
                        ))
                    } else if source_revision != w.source_revision {
                        ModelTable::Refused(DecodeError::new(
                            DecodeErrorKind::RevisionMismatch,
                            ".model_bindings.source_revision",
                            "model table of another revision",
                        ))
                    } else {
                        ModelTable::Ready(bindings)
                    }
                }
            },
        };
        Ok(Self {
            source_revision: w.source_revision,
            path: w.path,
            file_name: w.file_name,
            source_text: w.source_text,
            validation: w.validation,
            application: w.application,
            account_groups: w.account_groups,
            account_emails: w.account_emails,
            model_table,
        })
    }
}

/// `POST /api/v1/runtime/config/raw/preview` 200.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct RuntimeConfigPreview {
    #[allow(dead_code)]
    ok: OkTrue,
    pub can_save: bool,
    pub validation: ConfigValidation,
    #[serde(default)]
    pub runtime_validation: Option<String>,
}

impl WireDecode for RuntimeConfigPreview {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        decode_json(bytes)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Durability {
    Durable,
    Unconfirmed,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct CommitWarning {
    pub code: String,
    #[serde(default)]
    pub detail: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct CommitInfo {
    pub source_revision: String,
    /// A decimal string in MASC; kept as text.
    pub order: String,
    pub durability: Durability,
    pub warnings: Vec<CommitWarning>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct CommitApplication {
    pub operation: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum CommittedTag {
    Committed,
}

/// The 200 commit receipt of a raw save (§9.4) or an assignment (§9.8).
#[derive(Debug, Clone, PartialEq)]
pub struct CommitReceipt {
    pub commit: CommitInfo,
    pub application: CommitApplication,
    /// Not on the wire: the assignment an assignment save's own fresh read (H-10) found just
    /// before it wrote — `Some(None)` the default — so its undo puts back exactly that.
    pub replaced_assignment: Option<Option<String>>,
}

impl CommitReceipt {
    /// Durable commit, or applied with durability unproven.
    pub fn durability_warning(&self) -> Option<String> {
        let mut parts = Vec::new();
        if self.commit.durability == Durability::Unconfirmed {
            parts.push("durability unconfirmed".to_string());
        }
        parts.extend(self.commit.warnings.iter().map(|w| w.code.clone()));
        if parts.is_empty() {
            None
        } else {
            Some(parts.join("; "))
        }
    }
}

#[derive(Deserialize)]
struct ReceiptWire {
    #[allow(dead_code)]
    ok: OkTrue,
    #[allow(dead_code)]
    state: CommittedTag,
    commit: CommitInfo,
    application: CommitApplication,
}

impl WireDecode for CommitReceipt {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let w: ReceiptWire = decode_json(bytes)?;
        Ok(Self {
            commit: w.commit,
            application: w.application,
            replaced_assignment: None,
        })
    }
}

/// `current` of a usable §9.4 conflict: a non-empty path and a self-consistent revision.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct RuntimeConfigCurrent {
    pub source_path: String,
    pub source_text: String,
    pub source_revision: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum ConflictCode {
    RevisionConflict,
}

#[derive(Deserialize)]
struct ConflictWire {
    #[serde(default)]
    error: Option<String>,
    #[allow(dead_code)]
    code: ConflictCode,
    current: RuntimeConfigCurrent,
}

/// A 409 body of the raw save.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuntimeConfigConflict {
    pub error: Option<String>,
    pub current: RuntimeConfigCurrent,
}

impl WireDecode for RuntimeConfigConflict {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let w: ConflictWire = decode_json(bytes)?;
        if w.current.source_path.trim().is_empty() {
            return Err(DecodeError::new(
                DecodeErrorKind::InvalidValue,
                ".current.source_path",
                "empty source path",
            ));
        }
        if runtime_source_revision(&w.current.source_text) != w.current.source_revision {
            return Err(DecodeError::new(
                DecodeErrorKind::RevisionMismatch,
                ".current.source_revision",
                "revision is not derived from current.source_text",
            ));
        }
        Ok(Self {
            error: w.error,
            current: w.current,
        })
    }
}

/// The request a raw save answers (§9.4 CAS).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuntimeRawSaveRequest {
    pub expected_source_revision: String,
}

/// Markers that make any raw-save response (even a 400) "outcome unknown" (§11).
pub fn raw_save_unknown_marker(body: &serde_json::Map<String, Value>) -> Option<&'static str> {
    if body.get("config_applied") == Some(&Value::Bool(true)) {
        return Some("config_applied:true");
    }
    if body
        .get("config_application")
        .and_then(|a| a.get("state"))
        .and_then(Value::as_str)
        == Some("indeterminate")
    {
        return Some("config_application indeterminate");
    }
    if body.get("authoritative_reload_required") == Some(&Value::Bool(true)) {
        return Some("authoritative_reload_required");
    }
    None
}

/// The shape of a raw-save error body: a definite refusal or not (§11 runtime raw save).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RawSaveErrorBody {
    /// String `error` (or `ok:false` with `validation`) and no unknown marker.
    Refusal { error: String },
    /// A marker, a non-string `error`, or no recognisable error at all.
    Indeterminate { reason: String },
}

impl RawSaveErrorBody {
    pub fn classify(bytes: &[u8]) -> Self {
        let Ok(obj) = decode_object(bytes) else {
            return Self::Indeterminate {
                reason: "undecodable error body".into(),
            };
        };
        if let Some(marker) = raw_save_unknown_marker(&obj) {
            return Self::Indeterminate {
                reason: marker.into(),
            };
        }
        match obj.get("error") {
            Some(Value::String(e)) => Self::Refusal { error: e.clone() },
            Some(_) => Self::Indeterminate {
                reason: "error is not a string".into(),
            },
            None if obj.get("ok") == Some(&Value::Bool(false))
                && obj.contains_key("validation") =>
            {
                Self::Refusal {
                    error: "validation failed".into(),
                }
            }
            None => Self::Indeterminate {
                reason: "no error in the body".into(),
            },
        }
    }
}

/// Known pre-commit refusal messages of the raw save (§9.4 400s), used when only the body
/// is at hand and the status must be inferred from it.
pub fn is_known_raw_save_refusal(error: &str) -> bool {
    error == "source_text required" || error.starts_with("runtime config parse failed")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw_with_bindings(path: &str, rev: &str) -> String {
        format!(
            r#"{{"ok":true,"source_revision":"{r}","path":"/p/runtime.toml","file_name":"runtime.toml","source_text":"[runtime]\n","validation":{{"valid":true,"issues":[]}},
            "model_bindings":{{"state":"ready","path":"{path}","source_revision":"{rev}","bindings":[{{"runtime_id":"a.b","provider_id":"a","model_id":"b","max_context_override":null}}]}}}}"#,
            r = "9".repeat(64)
        )
    }

    #[test]
    fn model_bindings_only_for_same_path_and_revision_s9_2() {
        let ok = RuntimeConfigRaw::decode(
            raw_with_bindings("/p/runtime.toml", &"9".repeat(64)).as_bytes(),
        )
        .unwrap();
        assert!(matches!(ok.model_table, ModelTable::Ready(ref b) if b.len() == 1));
        let other = RuntimeConfigRaw::decode(
            raw_with_bindings("/p/runtime.toml", &"8".repeat(64)).as_bytes(),
        )
        .unwrap();
        assert!(
            matches!(other.model_table, ModelTable::Refused(ref e) if e.kind == DecodeErrorKind::RevisionMismatch)
        );
        assert_eq!(other.source_text, "[runtime]\n");
        let other_path = RuntimeConfigRaw::decode(
            raw_with_bindings("/q/runtime.toml", &"9".repeat(64)).as_bytes(),
        )
        .unwrap();
        assert!(matches!(other_path.model_table, ModelTable::Refused(_)));
    }

    #[test]
    fn conflict_revision_is_recomputed_s9_4() {
        let text = "# other writer\n";
        let good = format!(
            r##"{{"error":"x","code":"revision_conflict","current":{{"source_path":"/p","source_text":"# other writer\n","source_revision":"{}"}}}}"##,
            runtime_source_revision(text)
        );
        assert!(RuntimeConfigConflict::decode(good.as_bytes()).is_ok());
        let bad = good.replace(&runtime_source_revision(text), &"b".repeat(64));
        assert_eq!(
            RuntimeConfigConflict::decode(bad.as_bytes())
                .unwrap_err()
                .kind,
            DecodeErrorKind::RevisionMismatch
        );
    }

    #[test]
    fn revision_digest_is_lowercase_hex() {
        let r = runtime_source_revision("");
        assert!(is_canonical_revision(&r));
        assert_ne!(r, runtime_source_revision(" "));
    }
}
