//! `GET /api/v1/keepers/{name}/provider-input?turn_ref=` (protocol.md §14.11; newer MASC).
//!
//! Shapes from MASC: the resolved body's encoder `resolved_to_json` and the snapshot store
//! (lib/keeper/keeper_provider_input_snapshot.ml, newer MASC, found by its content in the
//! index), MASC's terminal decoder `decode_provider_input` (bin/masc_tui_context_inspector.ml
//! at 00a3bd5d) and MASC's dashboard decoder `decodeProviderInputSnapshot` (the one that also
//! closes `wire`: `phase`, `capture_id`, `provider`, `model`, `http_codec`, `stream`,
//! `body_bytes`, `body_sha256`).
//!
//! Closed body and closed items, as MASC's decoders: `schema` is
//! `masc.resolved-provider-input.v1`; `keeper` and `turn_ref` equal the request; `turn_ref`
//! is `<trace_id>#<absolute_turn>`; `system_prompt` is `null` or `{bytes, sha256, text}` with
//! `bytes` the UTF-8 length of `text`; `messages` and `tool_schemas` indexes run 0, 1, 2…
//! Every digest is 64 lowercase hex digits. An item's `content` is any JSON (MASC stores the
//! serialized message or schema and parses it back); it is kept as pretty JSON text, made here,
//! off the view actor.

use crate::protocol::decode::{
    DecodeError, DecodeErrorKind, closed_keys, decode_object, required_key,
};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

pub const PROVIDER_INPUT_SCHEMA: &str = "masc.resolved-provider-input.v1";

const TOP_KEYS: &[&str] = &[
    "dashboard_surface",
    "schema",
    "keeper",
    "trace_id",
    "absolute_turn",
    "turn_ref",
    "runtime_profile",
    "captured_at",
    "wire",
    "system_prompt",
    "messages",
    "tool_schemas",
];

const WIRE_KEYS: &[&str] = &[
    "phase",
    "capture_id",
    "provider",
    "model",
    "http_codec",
    "stream",
    "body_bytes",
    "body_sha256",
];

/// The serialized request observation (`wire`).
#[derive(Debug, Clone, PartialEq)]
pub struct WireObservation {
    pub phase: String,
    pub capture_id: Option<String>,
    pub provider: String,
    pub model: String,
    pub http_codec: String,
    pub stream: bool,
    pub body_bytes: u64,
    pub body_sha256: String,
}

/// The serialized system prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct SystemPrompt {
    pub bytes: u64,
    pub sha256: String,
    pub text: String,
    /// Whether `sha256` is the SHA-256 of `text` as received (computed here).
    pub sha256_matches_text: bool,
}

/// One message or tool schema of the request.
#[derive(Debug, Clone, PartialEq)]
pub struct InputItem {
    pub index: u64,
    /// The message's `role` or the tool schema's `name`.
    pub label: String,
    pub bytes: u64,
    pub sha256: String,
    /// `content` as pretty JSON text.
    pub content: String,
}

/// The serialized provider input of one turn.
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderInput {
    pub keeper: String,
    pub trace_id: String,
    pub absolute_turn: u64,
    pub turn_ref: String,
    pub runtime_profile: String,
    pub captured_at: f64,
    pub wire: WireObservation,
    pub system_prompt: Option<SystemPrompt>,
    pub messages: Vec<InputItem>,
    pub tool_schemas: Vec<InputItem>,
}

impl ProviderInput {
    /// Bytes of the serialized parts (system prompt, messages, tool schemas).
    pub fn item_bytes(&self) -> (u64, u64, u64) {
        (
            self.system_prompt.as_ref().map_or(0, |s| s.bytes),
            self.messages.iter().map(|m| m.bytes).sum(),
            self.tool_schemas.iter().map(|t| t.bytes).sum(),
        )
    }

    /// Decode the provider input asked for `keeper` / `turn_ref`.
    pub fn decode_for(bytes: &[u8], keeper: &str, turn_ref: &str) -> Result<Self, DecodeError> {
        let top = decode_object(bytes)?;
        // Echoes first: a body of another Keeper or turn is an echo mismatch, whatever else.
        for (field, asked) in [("keeper", keeper), ("turn_ref", turn_ref)] {
            if let Some(echo) = top.get(field).and_then(Value::as_str)
                && echo != asked
            {
                return Err(bad(
                    DecodeErrorKind::EchoMismatch,
                    &format!(".{field}"),
                    &format!("{field} is not the requested one"),
                ));
            }
        }
        closed_keys(&top, TOP_KEYS, "")?;
        string(&top, "dashboard_surface", "")?;
        let schema = non_empty(&top, "schema", "")?;
        if schema != PROVIDER_INPUT_SCHEMA {
            return Err(bad(
                DecodeErrorKind::InvalidValue,
                ".schema",
                &format!("schema is not {PROVIDER_INPUT_SCHEMA}"),
            ));
        }
        let echo_keeper = non_empty(&top, "keeper", "")?;
        let trace_id = non_empty(&top, "trace_id", "")?;
        let absolute_turn = count(&top, "absolute_turn", "")?;
        let echo_turn = non_empty(&top, "turn_ref", "")?;
        if echo_keeper != keeper || echo_turn != turn_ref {
            return Err(bad(
                DecodeErrorKind::EchoMismatch,
                ".turn_ref",
                "not the requested turn",
            ));
        }
        if echo_turn != format!("{trace_id}#{absolute_turn}") {
            return Err(bad(
                DecodeErrorKind::IdentityMismatch,
                ".turn_ref",
                "turn_ref is not <trace_id>#<absolute_turn>",
            ));
        }
        let runtime_profile = non_empty(&top, "runtime_profile", "")?;
        let captured_at = match required_key(&top, "captured_at", "")?.as_f64() {
            Some(v) if v.is_finite() && v >= 0.0 => v,
            _ => {
                return Err(bad(
                    DecodeErrorKind::InvalidValue,
                    ".captured_at",
                    "not a non-negative finite number",
                ));
            }
        };
        let wire = wire(object(&top, "wire", "")?)?;
        let system_prompt = match required_key(&top, "system_prompt", "")? {
            Value::Null => None,
            Value::Object(o) => Some(system_prompt(o)?),
            _ => {
                return Err(bad(
                    DecodeErrorKind::WrongType,
                    ".system_prompt",
                    "not an object or null",
                ));
            }
        };
        let messages = indexed(&top, "messages", "role")?;
        let tool_schemas = indexed(&top, "tool_schemas", "name")?;
        Ok(Self {
            keeper: echo_keeper,
            trace_id,
            absolute_turn,
            turn_ref: echo_turn,
            runtime_profile,
            captured_at,
            wire,
            system_prompt,
            messages,
            tool_schemas,
        })
    }
}

/// Lowercase hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

fn bad(kind: DecodeErrorKind, path: &str, detail: &str) -> DecodeError {
    DecodeError::new(kind, path, detail)
}

fn object<'a>(
    obj: &'a Map<String, Value>,
    key: &str,
    at: &str,
) -> Result<&'a Map<String, Value>, DecodeError> {
    required_key(obj, key, at)?.as_object().ok_or_else(|| {
        bad(
            DecodeErrorKind::WrongType,
            &format!("{at}.{key}"),
            "not an object",
        )
    })
}

fn string(obj: &Map<String, Value>, key: &str, at: &str) -> Result<String, DecodeError> {
    required_key(obj, key, at)?
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| {
            bad(
                DecodeErrorKind::WrongType,
                &format!("{at}.{key}"),
                "not a string",
            )
        })
}

fn non_empty(obj: &Map<String, Value>, key: &str, at: &str) -> Result<String, DecodeError> {
    let s = string(obj, key, at)?;
    if s.is_empty() {
        return Err(bad(
            DecodeErrorKind::InvalidValue,
            &format!("{at}.{key}"),
            "empty string",
        ));
    }
    Ok(s)
}

fn count(obj: &Map<String, Value>, key: &str, at: &str) -> Result<u64, DecodeError> {
    required_key(obj, key, at)?.as_u64().ok_or_else(|| {
        bad(
            DecodeErrorKind::WrongType,
            &format!("{at}.{key}"),
            "not a non-negative integer",
        )
    })
}

fn digest(obj: &Map<String, Value>, key: &str, at: &str) -> Result<String, DecodeError> {
    let s = string(obj, key, at)?;
    if s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        Ok(s)
    } else {
        Err(bad(
            DecodeErrorKind::InvalidValue,
            &format!("{at}.{key}"),
            "not a lowercase SHA-256",
        ))
    }
}

fn wire(o: &Map<String, Value>) -> Result<WireObservation, DecodeError> {
    let at = ".wire";
    closed_keys(o, WIRE_KEYS, at)?;
    let capture_id = match required_key(o, "capture_id", at)? {
        Value::Null => None,
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        _ => {
            return Err(bad(
                DecodeErrorKind::InvalidValue,
                ".wire.capture_id",
                "not a non-empty string or null",
            ));
        }
    };
    let stream = required_key(o, "stream", at)?
        .as_bool()
        .ok_or_else(|| bad(DecodeErrorKind::WrongType, ".wire.stream", "not a bool"))?;
    Ok(WireObservation {
        phase: non_empty(o, "phase", at)?,
        capture_id,
        provider: non_empty(o, "provider", at)?,
        model: non_empty(o, "model", at)?,
        http_codec: non_empty(o, "http_codec", at)?,
        stream,
        body_bytes: count(o, "body_bytes", at)?,
        body_sha256: digest(o, "body_sha256", at)?,
    })
}

fn system_prompt(o: &Map<String, Value>) -> Result<SystemPrompt, DecodeError> {
    let at = ".system_prompt";
    closed_keys(o, &["bytes", "sha256", "text"], at)?;
    let bytes = count(o, "bytes", at)?;
    let sha256 = digest(o, "sha256", at)?;
    let text = non_empty(o, "text", at)?;
    if text.len() as u64 != bytes {
        return Err(bad(
            DecodeErrorKind::InvalidValue,
            ".system_prompt.bytes",
            "bytes is not the UTF-8 length of text",
        ));
    }
    let sha256_matches_text = sha256_hex(text.as_bytes()) == sha256;
    Ok(SystemPrompt {
        bytes,
        sha256,
        text,
        sha256_matches_text,
    })
}

fn indexed(
    top: &Map<String, Value>,
    key: &'static str,
    label: &'static str,
) -> Result<Vec<InputItem>, DecodeError> {
    let Some(items) = required_key(top, key, "")?.as_array() else {
        return Err(bad(
            DecodeErrorKind::WrongType,
            &format!(".{key}"),
            "not an array",
        ));
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let at = format!(".{key}[{i}]");
        let Some(o) = item.as_object() else {
            return Err(bad(DecodeErrorKind::WrongType, &at, "not an object"));
        };
        closed_keys(o, &["index", label, "bytes", "sha256", "content"], &at)?;
        let index = count(o, "index", &at)?;
        if index != i as u64 {
            return Err(bad(
                DecodeErrorKind::InvalidValue,
                &format!("{at}.index"),
                &format!("index {index} is not contiguous from 0"),
            ));
        }
        let content = required_key(o, "content", &at)?;
        out.push(InputItem {
            index,
            label: non_empty(o, label, &at)?,
            bytes: count(o, "bytes", &at)?,
            sha256: digest(o, "sha256", &at)?,
            content: match content {
                Value::String(s) => s.clone(),
                other => serde_json::to_string_pretty(other).unwrap_or_default(),
            },
        });
    }
    Ok(out)
}

#[cfg(test)]
#[path = "provider_input_tests.rs"]
mod tests;
