//! `GET /api/v1/skills` — the Skill catalogue (protocol.md §6.2). A closed envelope: every
//! non-ready state is its own value, never "empty".

use super::decode::{
    DecodeError, DecodeErrorKind, WireDecode, closed_keys, decode_object, decode_value_at,
    required_key, required_nullable,
};
use super::tools::SkillReference;
use serde::Deserialize;
use serde_json::Value;

pub const SKILL_SNAPSHOT_SCHEMA: &str = "masc.skill-snapshot/v1";

#[derive(Debug, Clone, PartialEq)]
pub enum SkillsSnapshotRead {
    Ready(Box<SkillsReady>),
    NotRegistered,
    Uninitialized,
    InvalidWorkspace,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SkillsReady {
    pub snapshot: SkillSnapshot,
    pub surfaces: Vec<SkillSurface>,
    /// `None`: the server did not report coverage (older server), not "nothing loaded".
    pub usage_coverage: Option<UsageCoverage>,
}

/// `snapshot` (closed).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SkillSnapshot {
    pub snapshot_revision: String,
    pub catalog_revision: String,
    pub config: Value,
    pub sources: Vec<Value>,
    pub skills: Vec<Value>,
    pub effective_skills: Vec<Value>,
    pub shadows: Vec<Value>,
    pub rejections: Vec<SkillRejection>,
}

/// A rejected skill document. `package_id` and `content_revision` are nullable but required.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct SkillRejection {
    pub source_index: u64,
    pub source_id: String,
    #[serde(deserialize_with = "required_nullable")]
    pub package_id: Option<String>,
    #[serde(deserialize_with = "required_nullable")]
    pub content_revision: Option<String>,
    pub reason: Value,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SkillSurfaceKind {
    Instruction,
    Composition,
    Unavailable,
}

/// One surface: a profile for usable kinds, an error for `unavailable`.
#[derive(Debug, Clone, PartialEq)]
pub struct SkillSurface {
    pub reference: SkillReference,
    pub kind: SkillSurfaceKind,
    /// The usage rows; empty when none, and also when `usage_reported` is false.
    pub usage: Vec<SkillUsageRow>,
    /// `false`: the server sent `usage: null` (its usage ledger not read yet, which warms apart
    /// from the catalogue): no rows, and not "never used".
    pub usage_reported: bool,
    pub body: SkillSurfaceBody,
}

#[derive(Debug, Clone, PartialEq)]
pub enum SkillSurfaceBody {
    Profile(Value),
    Error(Value),
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct SkillUsageRow {
    pub keeper: String,
    pub invocations: u64,
    pub deliveries: u64,
    pub actions: u64,
    #[serde(default)]
    pub last_used_at: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct UsageCoverage {
    pub ledgers_loaded: u64,
    pub unavailable: Vec<String>,
}

#[derive(Deserialize)]
struct SurfaceWire {
    reference: SkillReference,
    kind: SkillSurfaceKind,
    #[serde(deserialize_with = "required_nullable")]
    usage: Option<Vec<SkillUsageRow>>,
    #[serde(default)]
    profile: Option<Value>,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Deserialize)]
enum SchemaTag {
    #[serde(rename = "masc.skill-snapshot/v1")]
    V1,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum StateTag {
    Ready,
    NotRegistered,
    Uninitialized,
    InvalidWorkspace,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct InvalidWorkspaceReason {
    #[allow(dead_code)]
    code: InvalidWorkspaceCode,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum InvalidWorkspaceCode {
    InvalidWorkspace,
}

impl WireDecode for SkillsSnapshotRead {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let map = decode_object(bytes)?;
        let obj = &map;
        let _: SchemaTag = decode_value_at(required_key(obj, "schema", "")?, ".schema")?;
        let state: StateTag = decode_value_at(required_key(obj, "state", "")?, ".state")?;
        match state {
            StateTag::NotRegistered => {
                closed_keys(obj, &["schema", "state"], "")?;
                Ok(Self::NotRegistered)
            }
            StateTag::Uninitialized => {
                closed_keys(obj, &["schema", "state"], "")?;
                Ok(Self::Uninitialized)
            }
            StateTag::InvalidWorkspace => {
                closed_keys(obj, &["schema", "state", "reason"], "")?;
                let _: InvalidWorkspaceReason =
                    decode_value_at(required_key(obj, "reason", "")?, ".reason")?;
                Ok(Self::InvalidWorkspace)
            }
            StateTag::Ready => {
                closed_keys(
                    obj,
                    &["schema", "state", "snapshot", "surfaces", "usage_coverage"],
                    "",
                )?;
                let snapshot: SkillSnapshot =
                    decode_value_at(required_key(obj, "snapshot", "")?, ".snapshot")?;
                let wires: Vec<SurfaceWire> =
                    decode_value_at(required_key(obj, "surfaces", "")?, ".surfaces")?;
                let surfaces = wires
                    .into_iter()
                    .enumerate()
                    .map(|(i, w)| surface_from_wire(w, i))
                    .collect::<Result<Vec<_>, _>>()?;
                let usage_coverage = match obj.get("usage_coverage") {
                    None => None,
                    Some(v) => Some(decode_value_at(v, ".usage_coverage")?),
                };
                Ok(Self::Ready(Box::new(SkillsReady {
                    snapshot,
                    surfaces,
                    usage_coverage,
                })))
            }
        }
    }
}

fn surface_from_wire(w: SurfaceWire, i: usize) -> Result<SkillSurface, DecodeError> {
    let body = match (w.kind, w.profile, w.error) {
        (SkillSurfaceKind::Unavailable, None, Some(err)) => SkillSurfaceBody::Error(err),
        (SkillSurfaceKind::Unavailable, _, None) => {
            return Err(DecodeError::new(
                DecodeErrorKind::MissingField,
                format!(".surfaces[{i}].error"),
                "an unavailable surface carries an error",
            ));
        }
        (SkillSurfaceKind::Unavailable, Some(_), Some(_)) => {
            return Err(DecodeError::new(
                DecodeErrorKind::InvalidValue,
                format!(".surfaces[{i}].profile"),
                "an unavailable surface has no profile",
            ));
        }
        (_, Some(profile), _) => SkillSurfaceBody::Profile(profile),
        (_, None, _) => {
            return Err(DecodeError::new(
                DecodeErrorKind::MissingField,
                format!(".surfaces[{i}].profile"),
                "a usable surface carries a profile",
            ));
        }
    };
    Ok(SkillSurface {
        reference: w.reference,
        kind: w.kind,
        usage_reported: w.usage.is_some(),
        usage: w.usage.unwrap_or_default(),
        body,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uninitialized_is_its_own_state_s6_2() {
        let r = SkillsSnapshotRead::decode(
            br#"{"schema":"masc.skill-snapshot/v1","state":"uninitialized"}"#,
        )
        .unwrap();
        assert_eq!(r, SkillsSnapshotRead::Uninitialized);
    }

    #[test]
    fn closed_envelope_refuses_extra_key_s6_2() {
        let e = SkillsSnapshotRead::decode(
            br#"{"schema":"masc.skill-snapshot/v1","state":"not_registered","snapshot":{}}"#,
        )
        .unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::UnknownField);
        assert_eq!(e.path, ".snapshot");
    }

    #[test]
    fn wrong_schema_is_refused() {
        let e = SkillsSnapshotRead::decode(
            br#"{"schema":"masc.skill-snapshot/v2","state":"uninitialized"}"#,
        )
        .unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::UnknownVariant);
        assert_eq!(e.path, ".schema");
    }

    #[test]
    fn unavailable_surface_needs_error() {
        let body = br#"{"schema":"masc.skill-snapshot/v1","state":"ready","snapshot":{"snapshot_revision":"a","catalog_revision":"b","config":{},"sources":[],"skills":[],"effective_skills":[],"shadows":[],"rejections":[]},
          "surfaces":[{"reference":{"identity":{"source_id":"s","package_id":"p","name":"n"},"content_revision":"r"},"kind":"unavailable","usage":[]}],
          "usage_coverage":{"ledgers_loaded":1,"unavailable":[]}}"#;
        let e = SkillsSnapshotRead::decode(body).unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::MissingField);
        assert_eq!(e.path, ".surfaces[0].error");
    }
}
