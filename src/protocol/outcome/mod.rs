//! Write outcomes (protocol.md §11): one pure classifier per write kind, taking the HTTP
//! status, the body bytes and the request the response answers.
//!
//! Unlisted statuses are "outcome unknown": the conservative reading, since an unknown
//! outcome blocks automatic resend and requires a re-read.

mod config;
mod interactive;
mod keeper_ops;
#[cfg(test)]
mod tests;

pub use config::*;
pub use interactive::*;
pub use keeper_ops::*;

use super::client::WriteExchange;
use super::decode::decode_object;
use serde_json::Value;

/// How one write ended. `A` is the applied detail, `C` the typed current state of a conflict.
#[derive(Debug, Clone, PartialEq)]
pub enum SaveOutcome<A, C> {
    /// Refused before anything left the machine.
    NotSent { reason: String },
    /// Refused before any effect.
    NotApplied { reason: String },
    /// Committed; `warning` carries an attached failure (sync failed, durability unproven...).
    Applied { detail: A, warning: Option<String> },
    /// Nothing needed writing.
    Unchanged,
    /// Another revision or answer won: re-read, never resend automatically.
    Conflict { current: C },
    /// The request may have had an effect: keep inputs, block resend, re-read first.
    OutcomeUnknown { reason: String },
}

/// The six outcomes of a write (§11), without their detail: what the outbox stores and the
/// traces name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SaveClass {
    NotSent,
    NotApplied,
    Applied,
    Unchanged,
    Conflict,
    OutcomeUnknown,
}

impl SaveClass {
    pub const ALL: [SaveClass; 6] = [
        Self::NotSent,
        Self::NotApplied,
        Self::Applied,
        Self::Unchanged,
        Self::Conflict,
        Self::OutcomeUnknown,
    ];

    /// Stable snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::NotSent => "not_sent",
            Self::NotApplied => "not_applied",
            Self::Applied => "applied",
            Self::Unchanged => "unchanged",
            Self::Conflict => "conflict",
            Self::OutcomeUnknown => "outcome_unknown",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.as_str() == s)
    }

    /// The outcome is known (everything but "unknown").
    pub fn is_settled(self) -> bool {
        self != Self::OutcomeUnknown
    }
}

impl<A, C> SaveOutcome<A, C> {
    /// Stable snake_case name of the outcome.
    pub fn class(&self) -> &'static str {
        self.save_class().as_str()
    }

    /// The outcome without its detail.
    pub fn save_class(&self) -> SaveClass {
        match self {
            Self::NotSent { .. } => SaveClass::NotSent,
            Self::NotApplied { .. } => SaveClass::NotApplied,
            Self::Applied { .. } => SaveClass::Applied,
            Self::Unchanged => SaveClass::Unchanged,
            Self::Conflict { .. } => SaveClass::Conflict,
            Self::OutcomeUnknown { .. } => SaveClass::OutcomeUnknown,
        }
    }

    /// The reason or warning the outcome carries, if any (our vocabulary plus the server's
    /// error token; sanitised before display).
    pub fn reason(&self) -> Option<&str> {
        match self {
            Self::NotSent { reason }
            | Self::NotApplied { reason }
            | Self::OutcomeUnknown { reason } => Some(reason),
            Self::Applied { warning, .. } => warning.as_deref(),
            Self::Unchanged | Self::Conflict { .. } => None,
        }
    }

    pub(crate) fn unknown(reason: impl Into<String>) -> Self {
        Self::OutcomeUnknown {
            reason: reason.into(),
        }
    }

    pub(crate) fn not_applied(reason: impl Into<String>) -> Self {
        Self::NotApplied {
            reason: reason.into(),
        }
    }
}

/// Map the transport level: `Ok((status, body))` for a complete response, otherwise the
/// outcome itself (not sent, or unknown when the request may have left the machine).
pub fn classify_transport<A, C>(
    exchange: &WriteExchange,
) -> Result<(u16, &[u8]), SaveOutcome<A, C>> {
    match exchange {
        WriteExchange::NotSent { reason } => Err(SaveOutcome::NotSent {
            reason: reason.clone(),
        }),
        WriteExchange::OutcomeUnknown { reason } => Err(SaveOutcome::OutcomeUnknown {
            reason: reason.clone(),
        }),
        WriteExchange::Responded { status, body } => Ok((*status, body.as_ref())),
    }
}

/// Classify a whole exchange with one of the per-kind classifiers.
pub fn classify_exchange<A, C, R: ?Sized>(
    exchange: &WriteExchange,
    request: &R,
    classify: fn(u16, &[u8], &R) -> SaveOutcome<A, C>,
) -> SaveOutcome<A, C> {
    match classify_transport(exchange) {
        Ok((status, body)) => classify(status, body, request),
        Err(outcome) => outcome,
    }
}

/// The cases common to every write: 401/403, 429 and 409 `workspace_mismatch` are
/// "not applied".
pub(crate) fn common_case<A, C>(status: u16, body: &[u8]) -> Option<SaveOutcome<A, C>> {
    match status {
        401 | 403 => Some(SaveOutcome::not_applied(format!(
            "credential refused (HTTP {status})"
        ))),
        429 => Some(SaveOutcome::not_applied("rate limited (HTTP 429)")),
        409 if error_string(body).as_deref() == Some("workspace_mismatch") => Some(
            SaveOutcome::not_applied("the server serves another workspace"),
        ),
        _ => None,
    }
}

/// The default for anything a kind does not list: unknown.
pub(crate) fn unlisted<A, C>(status: u16) -> SaveOutcome<A, C> {
    if (200..300).contains(&status) {
        SaveOutcome::unknown(format!("unexpected {status} body"))
    } else {
        SaveOutcome::unknown(format!("unlisted HTTP {status}"))
    }
}

/// `error` when it is a string.
pub(crate) fn error_string(body: &[u8]) -> Option<String> {
    string_field(body, "error")
}

pub(crate) fn string_field(body: &[u8], key: &str) -> Option<String> {
    let obj = decode_object(body).ok()?;
    match obj.get(key) {
        Some(Value::String(s)) => Some(s.clone()),
        _ => None,
    }
}

/// The server's own words in a refusal body (C-35): `error` when it is a string, else
/// `error.message`, else `message`, else a short plain-text body; trimmed and bounded to
/// [`SERVER_TEXT_LIMIT`] characters. Server text: the screen sanitises it.
pub fn server_text(body: &[u8]) -> Option<String> {
    let text = match serde_json::from_slice::<Value>(body) {
        Ok(v) => [
            v.get("error").and_then(Value::as_str),
            v.pointer("/error/message").and_then(Value::as_str),
            v.get("message").and_then(Value::as_str),
        ]
        .into_iter()
        .flatten()
        .next()
        .map(str::to_string),
        Err(_) => std::str::from_utf8(body).ok().map(str::to_string),
    }?;
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    Some(match text.char_indices().nth(SERVER_TEXT_LIMIT) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    })
}

/// How much of a server's refusal text a receipt quotes.
pub const SERVER_TEXT_LIMIT: usize = 300;

/// A refusal whose body does not carry the typed reason the spec names: quoted, never a
/// guessed cause — `refused (HTTP 409): <the server's text>`.
pub fn quoted_refusal(status: u16, body: &[u8]) -> String {
    with_server_text(format!("refused (HTTP {status})"), body)
}

/// `head`, then the server's own words when the body has any.
fn with_server_text(head: String, body: &[u8]) -> String {
    match server_text(body) {
        Some(text) => format!("{head}: {text}"),
        None => head,
    }
}

/// Short refusal reasons come from our own vocabulary plus the server's error token; the
/// view sanitises server text before display.
pub(crate) fn refusal(status: u16, body: &[u8]) -> String {
    with_server_text(format!("HTTP {status}"), body)
}
