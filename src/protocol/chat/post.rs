//! A recorded answer to the chat POST (protocol.md §4.3): either a JSON refusal before any
//! stream, or an event stream. Used by `masc-tui decode` and tests on recorded transcripts.

use super::events::ChatStreamEvent;
use super::stream::{ChatStreamOutcome, ChatStreamReader};
use crate::protocol::decode::{DecodeError, DecodeErrorKind};
use serde::Deserialize;

/// A JSON body answered instead of a stream: the turn was verified not applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PreStreamRefusal {
    /// The §1.3 auth shape `{"error": str, "auth_error_code"?: str}`. A recorded transcript
    /// has no status line; a 401 is retried once by the client, so one that surfaces is read
    /// with 403 as a credential refusal.
    Auth {
        error: String,
        auth_error_code: Option<String>,
    },
    /// The 400 parse refusal `{"error": {"message": str}}`.
    BadRequest { message: String },
}

impl PreStreamRefusal {
    pub fn reject_reason(&self) -> &'static str {
        match self {
            Self::Auth { .. } => "http_403",
            Self::BadRequest { .. } => "http_400",
        }
    }
}

/// A validated stream: every event in order and the end-of-stream outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatTranscript {
    pub events: Vec<ChatStreamEvent>,
    pub outcome: ChatStreamOutcome,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ChatPostAnswer {
    Refused(PreStreamRefusal),
    Stream(ChatTranscript),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AuthBody {
    error: String,
    #[serde(default)]
    auth_error_code: Option<String>,
}

#[derive(Deserialize)]
struct BadRequestBody {
    error: BadRequestError,
}

#[derive(Deserialize)]
struct BadRequestError {
    message: String,
}

impl ChatPostAnswer {
    /// Read a recorded answer. A body that starts like JSON is not an event stream: it is a
    /// refusal when it has one of the two error shapes, else `not_event_stream`.
    pub fn from_recorded(
        bytes: &[u8],
        request_id: Option<&str>,
        keeper: Option<&str>,
    ) -> Result<Self, DecodeError> {
        let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
        if matches!(first, Some(b'{') | Some(b'[')) {
            if let Ok(body) = serde_json::from_slice::<AuthBody>(bytes) {
                return Ok(Self::Refused(PreStreamRefusal::Auth {
                    error: body.error,
                    auth_error_code: body.auth_error_code,
                }));
            }
            if let Ok(body) = serde_json::from_slice::<BadRequestBody>(bytes) {
                return Ok(Self::Refused(PreStreamRefusal::BadRequest {
                    message: body.error.message,
                }));
            }
            return Err(DecodeError::new(
                DecodeErrorKind::Other("not_event_stream"),
                ".",
                "a JSON body where an event stream is expected",
            ));
        }
        let mut reader = ChatStreamReader::new(request_id, keeper);
        let events = reader.push(bytes)?;
        let outcome = reader.finish()?;
        Ok(Self::Stream(ChatTranscript { events, outcome }))
    }
}
