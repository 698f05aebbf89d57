//! `GET /api/v1/keepers/{name}/turn-transcript?turn_ref=&version=2` (protocol.md §10.4).

use super::decode::{DecodeError, DecodeErrorKind, WireDecode, decode_json_object, decode_object};
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

/// A pinned turn's retained rows. `NotRetained` (`found: false`) is not an empty turn.
#[derive(Debug, Clone, PartialEq)]
pub enum TurnTranscript {
    Found {
        keeper: String,
        turn_ref: String,
        rows: Vec<TranscriptRow>,
    },
    NotRetained {
        keeper: String,
        turn_ref: String,
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
            }
        } else {
            Self::NotRetained {
                keeper: w.keeper,
                turn_ref: w.turn_ref,
            }
        })
    }
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
            | Self::NotRetained { keeper, turn_ref } => (keeper, turn_ref),
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

    #[test]
    fn not_found_is_not_empty_10_4() {
        let body = br#"{"schema":"masc.turn_transcript.v2","keeper":"alpha","turn_ref":"t","found":false,"rows":[]}"#;
        assert!(matches!(
            TurnTranscript::decode(body).unwrap(),
            TurnTranscript::NotRetained { .. }
        ));
    }
}
