//! `GET /api/v1/keepers/{name}/chat/history/page?before=` (protocol.md §4.5).

use crate::protocol::decode::{DecodeError, DecodeErrorKind, WireDecode, decode_json_object};
use serde::Deserialize;

pub const CHAT_HISTORY_SCHEMA: &str = "masc.keeper_chat_history.page.v1";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChatRole {
    User,
    Assistant,
    Tool,
}

/// Row `kind` (closed: the only kind MASC writes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChatRowKind {
    TransportFailure,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ChatHistoryRow {
    pub id: String,
    pub role: ChatRole,
    pub content: String,
    /// Unix seconds.
    pub ts: f64,
    #[serde(default)]
    pub kind: Option<ChatRowKind>,
    #[serde(default)]
    pub turn_ref: Option<String>,
    #[serde(default)]
    pub tool_call_id: Option<String>,
    #[serde(default)]
    pub tool_call_name: Option<String>,
}

/// One page, oldest window last. `has_more` absent on the wire reads as `false` (older
/// servers): the client never guesses that more exists.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatHistoryPage {
    pub messages: Vec<ChatHistoryRow>,
    pub has_more: bool,
    /// The `before` of the next older page (the oldest `ts` here); `None` at the top.
    pub next_before: Option<f64>,
    /// `false` when the body carried no `schema` (older server).
    pub schema_sent: bool,
}

#[derive(Deserialize)]
struct PageWire {
    #[serde(default)]
    schema: Option<String>,
    messages: Vec<ChatHistoryRow>,
    #[serde(default)]
    has_more: Option<bool>,
    #[serde(default)]
    next_before: Option<f64>,
}

impl WireDecode for ChatHistoryPage {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let wire: PageWire = decode_json_object(bytes)?;
        if let Some(schema) = &wire.schema
            && schema != CHAT_HISTORY_SCHEMA
        {
            return Err(DecodeError::new(
                DecodeErrorKind::InvalidValue,
                ".schema",
                format!("schema is not {CHAT_HISTORY_SCHEMA}"),
            ));
        }
        let has_more = wire.has_more.unwrap_or(false);
        if has_more && wire.messages.is_empty() {
            return Err(DecodeError::new(
                DecodeErrorKind::InvalidValue,
                ".has_more",
                "has_more on an empty page",
            ));
        }
        if has_more && wire.next_before.is_none() {
            return Err(DecodeError::new(
                DecodeErrorKind::InvalidValue,
                ".next_before",
                "has_more without next_before",
            ));
        }
        Ok(Self {
            messages: wire.messages,
            has_more,
            next_before: wire.next_before,
            schema_sent: wire.schema.is_some(),
        })
    }
}

impl ChatHistoryPage {
    /// Decode a page asked with `before` (absent = newest window): a `next_before` that does
    /// not move older than the request is a repeating cursor.
    pub fn decode_for(bytes: &[u8], before: Option<f64>) -> Result<Self, DecodeError> {
        let page = Self::decode(bytes)?;
        if let (true, Some(next), Some(asked)) = (page.has_more, page.next_before, before)
            && next >= asked
        {
            return Err(DecodeError::new(
                DecodeErrorKind::RepeatingCursor,
                ".next_before",
                format!("next_before {next} does not move older than before {asked}"),
            ));
        }
        Ok(page)
    }
}
