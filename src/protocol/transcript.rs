//! `GET /api/v1/keepers/{name}/turn-transcript?turn_ref=` (protocol-15 §15.10; the version 2
//! extension of protocol.md §10.4 on this console's embedded server).
//!
//! MASC serves this route itself (v0.24.0, August main and newer) with its own version-1 body
//! and ignores `version=2`; the two bodies are told apart by shape: a `schema` of
//! `masc.turn_transcript.v2` is the extension, a body without `schema` carrying `user` and
//! `assistant` arrays is MASC's version 1. Both decode into [`TurnTranscript`]; anything else is a
//! decode failure of that read only.

use super::decode::{
    DecodeError, DecodeErrorKind, WireDecode, decode_json_object, decode_object, decode_value,
};
use serde::Deserialize;

pub const TURN_TRANSCRIPT_SCHEMA: &str = "masc.turn_transcript.v2";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TranscriptRowKind {
    Utterance,
    RequestFailure,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TranscriptRole {
    User,
    Assistant,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TranscriptRow {
    pub turn_ref: String,
    pub kind: TranscriptRowKind,
    pub role: TranscriptRole,
    pub content: String,
    pub ts: f64,
}

/// Which body the server answered with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TranscriptVersion {
    /// MASC's own body (§15.10): the request's `user` lines and the retained `assistant` lines.
    V1,
    /// The masc-tui extension (§10.4).
    V2,
}

/// A pinned turn's retained rows. `NotRetained` (`found: false`) is not an empty turn.
#[derive(Debug, Clone, PartialEq)]
pub enum TurnTranscript {
    Found {
        keeper: String,
        turn_ref: String,
        rows: Vec<TranscriptRow>,
        version: TranscriptVersion,
    },
    NotRetained {
        keeper: String,
        turn_ref: String,
        version: TranscriptVersion,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TranscriptWire {
    schema: String,
    keeper: String,
    turn_ref: String,
    found: bool,
    rows: Vec<TranscriptRow>,
}

impl WireDecode for TurnTranscript {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        if let Ok(top) = decode_object(bytes)
            && !top.contains_key("schema")
            && (top.contains_key("user") || top.contains_key("assistant"))
        {
            return decode_v1(&top);
        }
        let w: TranscriptWire = decode_json_object(bytes)?;
        if w.schema != TURN_TRANSCRIPT_SCHEMA {
            return Err(DecodeError::new(
                DecodeErrorKind::InvalidValue,
                ".schema",
                format!("schema is not {TURN_TRANSCRIPT_SCHEMA}"),
            ));
        }
        if let Some(i) = w.rows.iter().position(|r| r.turn_ref != w.turn_ref) {
            return Err(DecodeError::new(
                DecodeErrorKind::IdentityMismatch,
                format!(".rows[{i}].turn_ref"),
                "row of another turn",
            ));
        }
        if !w.found && !w.rows.is_empty() {
            return Err(DecodeError::new(
                DecodeErrorKind::InvalidValue,
                ".rows",
                "rows on a transcript that was not found",
            ));
        }
        Ok(if w.found {
            Self::Found {
                keeper: w.keeper,
                turn_ref: w.turn_ref,
                rows: w.rows,
                version: TranscriptVersion::V2,
            }
        } else {
            Self::NotRetained {
                keeper: w.keeper,
                turn_ref: w.turn_ref,
                version: TranscriptVersion::V2,
            }
        })
    }
}

/// One line of a version-1 body (`Keeper_chat_store.transcript_line_to_json`).
#[derive(Deserialize)]
struct LineV1 {
    role: String,
    content: String,
    ts: f64,
    #[serde(default)]
    kind: Option<String>,
}

#[derive(Deserialize)]
struct TranscriptV1Wire {
    keeper: String,
    turn_ref: String,
    found: bool,
    #[serde(default)]
    source: Option<String>,
    user: Vec<LineV1>,
    assistant: Vec<LineV1>,
}

/// MASC's version-1 body (§15.10): the request's lines and the retained response's, merged by
/// time. A `transport_failure` line (August) or a `request_failure` line (the newest store) is a
/// failed request, never Keeper speech. `found` must agree with the lines: MASC sets it exactly
/// when a line exists, so `found: true` without lines (or lines under `found: false`) is not its
/// body.
fn decode_v1(
    top: &serde_json::Map<String, serde_json::Value>,
) -> Result<TurnTranscript, DecodeError> {
    let w: TranscriptV1Wire = decode_value(&serde_json::Value::Object(top.clone()))?;
    let _ = w.source;
    let any = !w.user.is_empty() || !w.assistant.is_empty();
    if w.found != any {
        return Err(DecodeError::new(
            DecodeErrorKind::InvalidValue,
            ".found",
            if w.found {
                "found with no user or assistant line"
            } else {
                "lines on a transcript that was not found"
            },
        ));
    }
    if !w.found {
        return Ok(TurnTranscript::NotRetained {
            keeper: w.keeper,
            turn_ref: w.turn_ref,
            version: TranscriptVersion::V1,
        });
    }
    let mut rows = Vec::with_capacity(w.user.len() + w.assistant.len());
    for (array, lines) in [("user", w.user), ("assistant", w.assistant)] {
        for (i, line) in lines.into_iter().enumerate() {
            let failure =
                line.role == "request_failure" || line.kind.as_deref() == Some("transport_failure");
            let role = match (array, line.role.as_str()) {
                ("user", "user") => TranscriptRole::User,
                ("assistant", "assistant" | "request_failure") => TranscriptRole::Assistant,
                _ => {
                    return Err(DecodeError::new(
                        DecodeErrorKind::InvalidValue,
                        format!(".{array}[{i}].role"),
                        format!("a {array} line of another role"),
                    ));
                }
            };
            rows.push(TranscriptRow {
                turn_ref: w.turn_ref.clone(),
                kind: if failure {
                    TranscriptRowKind::RequestFailure
                } else {
                    TranscriptRowKind::Utterance
                },
                role,
                content: line.content,
                ts: line.ts,
            });
        }
    }
    rows.sort_by(|a, b| a.ts.total_cmp(&b.ts));
    Ok(TurnTranscript::Found {
        keeper: w.keeper,
        turn_ref: w.turn_ref,
        rows,
        version: TranscriptVersion::V1,
    })
}

impl TurnTranscript {
    /// Decode the transcript asked for `keeper` / `turn_ref`: both echoes must be exact.
    /// The echoes are checked first: a body naming another Keeper or turn is an echo mismatch,
    /// whatever its rows say.
    pub fn decode_for(bytes: &[u8], keeper: &str, turn_ref: &str) -> Result<Self, DecodeError> {
        if let Ok(top) = decode_object(bytes) {
            for (field, asked) in [("keeper", keeper), ("turn_ref", turn_ref)] {
                if let Some(echo) = top.get(field).and_then(serde_json::Value::as_str)
                    && echo != asked
                {
                    return Err(DecodeError::new(
                        DecodeErrorKind::EchoMismatch,
                        format!(".{field}"),
                        format!("{field} is not the requested one"),
                    ));
                }
            }
        }
        let t = Self::decode(bytes)?;
        let (k, r) = match &t {
            Self::Found {
                keeper, turn_ref, ..
            }
            | Self::NotRetained {
                keeper, turn_ref, ..
            } => (keeper, turn_ref),
        };
        if k != keeper {
            return Err(DecodeError::new(
                DecodeErrorKind::EchoMismatch,
                ".keeper",
                "keeper is not the requested keeper",
            ));
        }
        if r != turn_ref {
            return Err(DecodeError::new(
                DecodeErrorKind::EchoMismatch,
                ".turn_ref",
                "turn_ref is not the requested turn",
            ));
        }
        Ok(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXAMPLE: &[u8] = br#"{"schema":"masc.turn_transcript.v2","keeper":"alpha","turn_ref":"trace-alpha#3","found":true,"rows":[{"turn_ref":"trace-alpha#3","kind":"utterance","role":"assistant","content":"done","ts":1787557700.0}]}"#;

    #[test]
    fn spec_example_and_echoes_10_4() {
        assert!(TurnTranscript::decode_for(EXAMPLE, "alpha", "trace-alpha#3").is_ok());
        let e = TurnTranscript::decode_for(EXAMPLE, "beta", "trace-alpha#3").unwrap_err();
        assert_eq!(
            (e.kind, e.path.as_str()),
            (DecodeErrorKind::EchoMismatch, ".keeper")
        );
        let e = TurnTranscript::decode_for(EXAMPLE, "alpha", "trace-alpha#4").unwrap_err();
        assert_eq!(e.path, ".turn_ref");
    }

    #[test]
    fn row_of_another_turn_and_extra_key_fail_10_4() {
        let other = String::from_utf8_lossy(EXAMPLE).replacen(
            r#""turn_ref":"trace-alpha#3","kind""#,
            r#""turn_ref":"trace-alpha#9","kind""#,
            1,
        );
        let e = TurnTranscript::decode(other.as_bytes()).unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::IdentityMismatch);
        assert_eq!(e.path, ".rows[0].turn_ref");
        let extra = String::from_utf8_lossy(EXAMPLE).replacen("\"found\"", "\"x\":1,\"found\"", 1);
        assert_eq!(
            TurnTranscript::decode(extra.as_bytes()).unwrap_err().kind,
            DecodeErrorKind::UnknownField
        );
    }

    const V1: &[u8] = br#"{"keeper":"alpha","turn_ref":"trace-alpha#3","found":true,"source":"keeper_chat_store","user":[{"role":"user","content":"status?","ts":1787557600.0}],"assistant":[{"role":"assistant","content":"Keeper request failed: timeout","ts":1787557650.0,"kind":"transport_failure"},{"role":"assistant","content":"done","ts":1787557700.0}]}"#;

    /// §15.10: MASC's version-1 body decodes (its echoes checked first), request and response
    /// merged by time, a `transport_failure` line a failed request.
    #[test]
    fn s15_10_version_1_is_read_as_masc_serves_it() {
        let t = TurnTranscript::decode_for(V1, "alpha", "trace-alpha#3").unwrap();
        let TurnTranscript::Found { rows, version, .. } = t else {
            panic!("{t:?}")
        };
        assert_eq!(version, TranscriptVersion::V1);
        let kinds: Vec<(TranscriptRole, TranscriptRowKind)> =
            rows.iter().map(|r| (r.role, r.kind)).collect();
        assert_eq!(
            kinds,
            [
                (TranscriptRole::User, TranscriptRowKind::Utterance),
                (TranscriptRole::Assistant, TranscriptRowKind::RequestFailure),
                (TranscriptRole::Assistant, TranscriptRowKind::Utterance),
            ]
        );
        let e = TurnTranscript::decode_for(V1, "beta", "trace-alpha#3").unwrap_err();
        assert_eq!(
            (e.kind, e.path.as_str()),
            (DecodeErrorKind::EchoMismatch, ".keeper")
        );
        let newest = br#"{"keeper":"a","turn_ref":"t","found":true,"user":[],"assistant":[{"role":"request_failure","content":"x","ts":1.0}]}"#;
        let Ok(TurnTranscript::Found { rows, .. }) = TurnTranscript::decode(newest) else {
            panic!()
        };
        assert_eq!(rows[0].kind, TranscriptRowKind::RequestFailure);
    }

    /// §15.14 faults of the version-1 read: `found: true` with empty arrays, lines under
    /// `found: false`, a line of another role, a body of another schema; `found: false` is
    /// "not retained", never empty.
    #[test]
    fn s15_14_version_1_faults_fail_only_this_read() {
        let empty = br#"{"keeper":"a","turn_ref":"t","found":true,"source":"keeper_chat_store","user":[],"assistant":[]}"#;
        assert_eq!(TurnTranscript::decode(empty).unwrap_err().path, ".found");
        let stray = br#"{"keeper":"a","turn_ref":"t","found":false,"user":[{"role":"user","content":"x","ts":1.0}],"assistant":[]}"#;
        assert_eq!(TurnTranscript::decode(stray).unwrap_err().path, ".found");
        let role = br#"{"keeper":"a","turn_ref":"t","found":true,"user":[{"role":"assistant","content":"x","ts":1.0}],"assistant":[]}"#;
        assert_eq!(
            TurnTranscript::decode(role).unwrap_err().path,
            ".user[0].role"
        );
        let other = br#"{"schema":"masc.turn_transcript.v3","keeper":"a","turn_ref":"t","found":false,"rows":[]}"#;
        assert_eq!(TurnTranscript::decode(other).unwrap_err().path, ".schema");
        let not_found = br#"{"keeper":"a","turn_ref":"t","found":false,"source":"keeper_chat_store","user":[],"assistant":[]}"#;
        assert!(matches!(
            TurnTranscript::decode(not_found).unwrap(),
            TurnTranscript::NotRetained {
                version: TranscriptVersion::V1,
                ..
            }
        ));
    }

    #[test]
    fn not_found_is_not_empty_10_4() {
        let body = br#"{"schema":"masc.turn_transcript.v2","keeper":"alpha","turn_ref":"t","found":false,"rows":[]}"#;
        assert!(matches!(
            TurnTranscript::decode(body).unwrap(),
            TurnTranscript::NotRetained { .. }
        ));
    }
}
