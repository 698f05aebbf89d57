//! Keeper asks: list (protocol.md §10.1), answer (§10.2), follow-up SSE (§10.3).

mod follow_up;
pub use follow_up::*;

use super::decode::{DecodeError, DecodeErrorKind, WireDecode, decode_json, decode_object};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AskScope {
    Keeper,
    Fleet,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case", deny_unknown_fields)]
pub enum AskResolution {
    Open {},
    Answered {
        answered_at: f64,
        answered_question_ids: Vec<String>,
    },
    Withdrawn {
        reason: String,
        withdrawn_at: f64,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QuestionMode {
    Single,
    Multi,
}

/// `free_text` (closed): not allowed, or allowed with an optional hint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FreeText {
    NotAllowed,
    Allowed { hint: Option<String> },
}

impl<'de> Deserialize<'de> for FreeText {
    fn deserialize<D: serde::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Wire {
            allowed: bool,
            #[serde(default, deserialize_with = "super::decode::present_nullable")]
            hint: Option<Option<String>>,
        }
        let w = Wire::deserialize(de)?;
        match (w.allowed, w.hint) {
            (false, None) => Ok(Self::NotAllowed),
            (false, Some(_)) => Err(serde::de::Error::unknown_field("hint", &["allowed"])),
            (true, Some(hint)) => Ok(Self::Allowed { hint }),
            (true, None) => Err(serde::de::Error::missing_field("hint")),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct AskChoice {
    pub choice_id: String,
    pub label: String,
    #[serde(default)]
    pub description: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct AskQuestion {
    pub question_id: String,
    pub header: String,
    pub prompt: String,
    pub mode: QuestionMode,
    pub free_text: FreeText,
    pub choices: Vec<AskChoice>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Ask {
    pub keeper: String,
    pub ask_id: String,
    pub asked_at: f64,
    pub context: String,
    pub resolution: AskResolution,
    pub questions: Vec<AskQuestion>,
}

/// `GET /api/v1/keepers/asks`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct AskList {
    /// `None`: the server did not say (older fixtures).
    #[serde(default)]
    pub scope: Option<AskScope>,
    #[serde(default)]
    pub keeper: Option<String>,
    pub open_count: u64,
    pub asks: Vec<Ask>,
}

impl WireDecode for AskList {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let list: Self = decode_json(bytes)?;
        for (i, ask) in list.asks.iter().enumerate() {
            if ask.questions.is_empty() {
                return Err(DecodeError::new(
                    DecodeErrorKind::InvalidValue,
                    format!(".asks[{i}].questions"),
                    "an ask without questions",
                ));
            }
            for (j, q) in ask.questions.iter().enumerate() {
                if ask.questions[..j]
                    .iter()
                    .any(|p| p.question_id == q.question_id)
                {
                    return Err(DecodeError::new(
                        DecodeErrorKind::Other("duplicate_item"),
                        format!(".asks[{i}].questions[{j}].question_id"),
                        "question id repeated within one ask",
                    ));
                }
            }
            if let Some(scoped) = &list.keeper
                && *scoped != ask.keeper
            {
                return Err(DecodeError::new(
                    DecodeErrorKind::IdentityMismatch,
                    format!(".asks[{i}].keeper"),
                    "an ask of another keeper in a keeper-scoped list",
                ));
            }
        }
        let open = list
            .asks
            .iter()
            .filter(|a| a.resolution == AskResolution::Open {})
            .count() as u64;
        if open != list.open_count {
            return Err(DecodeError::new(
                DecodeErrorKind::CountMismatch,
                ".open_count",
                format!("open_count {} but {open} open asks", list.open_count),
            ));
        }
        Ok(list)
    }
}

// ---- §10.2 answer ----

/// The request an answer answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AskAnswerRequest {
    pub keeper: String,
    pub ask_id: String,
}

/// One question's response (§10.2): by ids, never labels.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AnswerResponse {
    Chose { choice_ids: Vec<String> },
    Wrote { text: String },
    Skipped,
}

/// One answer: the question it answers (by id) and the response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuestionAnswer {
    pub question_id: String,
    pub response: AnswerResponse,
}

/// The body of `POST /api/v1/keepers/ask-answer`: one answer per question, in the ask's order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AskAnswerBody<'a> {
    pub name: &'a str,
    pub ask_id: &'a str,
    pub answers: &'a [QuestionAnswer],
}

/// A 200 to the answer. Only `actor` settles "applied" (§11); the rest is informative.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct AskAnswerResponse {
    #[serde(default)]
    pub ok: Option<bool>,
    #[serde(default)]
    pub ask_id: Option<String>,
    #[serde(default)]
    pub actor: Option<String>,
    #[serde(default)]
    pub answer_count: Option<u64>,
    #[serde(default)]
    pub open_remaining: Option<u64>,
}

impl WireDecode for AskAnswerResponse {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let r: Self = decode_json(bytes)?;
        if r.ok == Some(false) {
            return Err(DecodeError::new(
                DecodeErrorKind::InvalidValue,
                ".ok",
                "a 200 answer body with ok:false",
            ));
        }
        Ok(r)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResolvedState {
    Answered,
    Withdrawn,
}

/// The embedded server's 409 body; MASC's is unconfirmed, so every field is optional.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AskAlreadyResolved {
    pub state: Option<ResolvedState>,
}

impl AskAlreadyResolved {
    pub fn from_body(bytes: &[u8]) -> Self {
        let state = decode_object(bytes)
            .ok()
            .and_then(|o| o.get("state").cloned())
            .and_then(|v| serde_json::from_value(v).ok());
        Self { state }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_text_is_closed_s10_1() {
        let list = |ft: &str| {
            format!(
                r#"{{"scope":"fleet","keeper":null,"open_count":1,"asks":[{{"keeper":"alpha","ask_id":"ask-1","asked_at":1.0,"context":"c","resolution":{{"state":"open"}},"questions":[{{"question_id":"q-1","header":"h","prompt":"p","mode":"single","free_text":{ft},"choices":[]}}]}}]}}"#
            )
        };
        let ok = AskList::decode(list(r#"{"allowed":true,"hint":null}"#).as_bytes()).unwrap();
        assert_eq!(
            ok.asks[0].questions[0].free_text,
            FreeText::Allowed { hint: None }
        );
        assert!(AskList::decode(list(r#"{"allowed":false,"hint":"x"}"#).as_bytes()).is_err());
        assert!(AskList::decode(list(r#"{"allowed":true}"#).as_bytes()).is_err());
    }

    #[test]
    fn open_count_must_match_s10_1() {
        let body = br#"{"keeper":null,"open_count":2,"asks":[]}"#;
        assert_eq!(
            AskList::decode(body).unwrap_err().kind,
            DecodeErrorKind::CountMismatch
        );
    }
}
