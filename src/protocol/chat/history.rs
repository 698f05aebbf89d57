//! `GET /api/v1/keepers/{name}/chat/history/page?before=` (protocol.md §4.5) and the bare-array
//! `GET /api/v1/keepers/{name}/chat/history` (§15.9). Both carry the same rows
//! ([`super::rows`]); a row the page cannot read is counted, never a page failure.

use super::rows::decode_rows;
pub use super::rows::{ChatHistoryRow, ChatRole, ChatRowKind, DroppedRow, RowCounts};
use crate::protocol::decode::{DecodeError, DecodeErrorKind, WireDecode, decode_json};
use serde_json::Value;

pub const CHAT_HISTORY_SCHEMA: &str = "masc.keeper_chat_history.page.v1";

/// One page, oldest window last. `has_more` absent on the wire reads as `false` (older
/// servers): the client never guesses that more exists.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatHistoryPage {
    pub messages: Vec<ChatHistoryRow>,
    /// Rows of the page that are not rows (counted and shown, §15.9).
    pub dropped: Vec<DroppedRow>,
    pub has_more: bool,
    /// The `before` of the next older page (the oldest `ts` here); `None` at the top.
    pub next_before: Option<f64>,
    /// `false` when the body carried no `schema` (older server).
    pub schema_sent: bool,
}

impl ChatHistoryPage {
    /// What the page holds besides its rows (dropped, unknown roles and kinds, ignored
    /// identity pairs).
    pub fn counts(&self) -> RowCounts {
        RowCounts::of(&self.messages, &self.dropped)
    }
}

fn invalid(path: &str, detail: &str) -> DecodeError {
    DecodeError::new(DecodeErrorKind::InvalidValue, path, detail)
}

fn wrong_type(path: &str, detail: &str) -> DecodeError {
    DecodeError::new(DecodeErrorKind::WrongType, path, detail)
}

impl WireDecode for ChatHistoryPage {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let value: Value = decode_json(bytes)?;
        let obj = value
            .as_object()
            .ok_or_else(|| wrong_type(".", "expected a JSON object"))?;
        let schema = match obj.get("schema") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.as_str()),
            Some(_) => return Err(wrong_type(".schema", "schema is not a string")),
        };
        if let Some(schema) = schema
            && schema != CHAT_HISTORY_SCHEMA
        {
            return Err(invalid(
                ".schema",
                &format!("schema is not {CHAT_HISTORY_SCHEMA}"),
            ));
        }
        let values = match obj.get("messages") {
            Some(Value::Array(values)) => values,
            Some(_) => return Err(wrong_type(".messages", "messages is not an array")),
            None => {
                return Err(DecodeError::new(
                    DecodeErrorKind::MissingField,
                    ".messages",
                    "missing field `messages`",
                ));
            }
        };
        let has_more = match obj.get("has_more") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(_) => return Err(wrong_type(".has_more", "has_more is not a bool")),
        };
        let next_before = match obj.get("next_before") {
            None | Some(Value::Null) => None,
            Some(v) => Some(
                v.as_f64()
                    .ok_or_else(|| wrong_type(".next_before", "next_before is not a number"))?,
            ),
        };
        let (messages, dropped) = decode_rows(values, ".messages");
        if has_more && values.is_empty() {
            return Err(invalid(".has_more", "has_more on an empty page"));
        }
        if has_more && next_before.is_none() {
            return Err(invalid(".next_before", "has_more without next_before"));
        }
        Ok(Self {
            messages,
            dropped,
            has_more,
            next_before,
            schema_sent: schema.is_some(),
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

/// The bare-array history (§15.9): the store's newest window of direct rows, then every
/// autonomous turn the raw-trace retention still holds. masc-tui takes the autonomous rows
/// from it (the page route excludes them by design); direct rows come from the pages.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatHistoryArray {
    pub rows: Vec<ChatHistoryRow>,
    pub dropped: Vec<DroppedRow>,
}

impl ChatHistoryArray {
    /// The autonomous rows, in server order.
    pub fn autonomous(&self) -> impl Iterator<Item = &ChatHistoryRow> {
        self.rows.iter().filter(|r| r.autonomous.is_some())
    }

    pub fn counts(&self) -> RowCounts {
        RowCounts::of(&self.rows, &self.dropped)
    }
}

impl WireDecode for ChatHistoryArray {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let value: Value = decode_json(bytes)?;
        let values = value
            .as_array()
            .ok_or_else(|| wrong_type(".", "expected a JSON array of transcript rows"))?;
        let (rows, dropped) = decode_rows(values, "");
        Ok(Self { rows, dropped })
    }
}
