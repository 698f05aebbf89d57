//! Typed decoding: every failure names its kind and the JSON path of the offending field.

use serde::de::DeserializeOwned;
use std::fmt;

/// Why a payload was refused. `reason()` gives a stable snake_case name
/// (aligned with the `reject:` names of the fixture manifest where one exists).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DecodeErrorKind {
    /// Not JSON at all (or truncated JSON).
    Syntax,
    /// A value of the wrong JSON type (e.g. a string where a bool is required).
    WrongType,
    /// A required field is absent.
    MissingField,
    /// A key outside a closed field set.
    UnknownField,
    /// A string outside a closed vocabulary.
    UnknownVariant,
    /// A value that is well-typed but not acceptable (empty where non-empty is required...).
    InvalidValue,
    /// A count field disagrees with the rows it counts.
    CountMismatch,
    /// An echo (id, cursor, scope) differs from what was requested.
    EchoMismatch,
    /// A row or item belongs to another identity than the envelope claims.
    IdentityMismatch,
    /// A revision does not match the one recomputed from its content.
    RevisionMismatch,
    /// The dashboard warming body (`status: initializing`) instead of data.
    ServerInitializing,
    /// A cursor chain repeated a cursor.
    RepeatingCursor,
    /// Any other family-specific reason (stable snake_case name).
    Other(&'static str),
}

impl DecodeErrorKind {
    pub fn reason(&self) -> &'static str {
        match self {
            Self::Syntax => "syntax",
            Self::WrongType => "wrong_type",
            Self::MissingField => "missing_field",
            Self::UnknownField => "unknown_field",
            Self::UnknownVariant => "unknown_variant",
            Self::InvalidValue => "invalid_value",
            Self::CountMismatch => "count_mismatch",
            Self::EchoMismatch => "echo_mismatch",
            Self::IdentityMismatch => "identity_mismatch",
            Self::RevisionMismatch => "revision_mismatch",
            Self::ServerInitializing => "server_initializing",
            Self::RepeatingCursor => "repeating_cursor",
            Self::Other(name) => name,
        }
    }
}

/// A refused payload: the kind, the JSON path (`.keepers[0].status`, `.` for the root)
/// and a short detail that never contains body text beyond the offending token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct DecodeError {
    pub kind: DecodeErrorKind,
    pub path: String,
    pub detail: String,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at {}: {}",
            self.kind.reason(),
            self.path,
            self.detail
        )
    }
}

impl DecodeError {
    pub fn new(kind: DecodeErrorKind, path: impl Into<String>, detail: impl Into<String>) -> Self {
        Self {
            kind,
            path: path.into(),
            detail: detail.into(),
        }
    }
    pub fn reason(&self) -> &'static str {
        self.kind.reason()
    }
}

/// A response type that knows how to decode (and validate) itself from a body.
pub trait WireDecode: Sized {
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError>;
}

/// serde decode with the path of the failing field and a classified kind.
///
/// Fast path first: plain `serde_json::from_slice`, which is what serde reads at full speed.
/// Only a body that fails it is decoded again through `serde_path_to_error` to name the path
/// and kind of the failure, so a refused body costs two parses and an accepted one costs one,
/// and both give exactly what the tracked decode alone gave.
pub fn decode_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, DecodeError> {
    match serde_json::from_slice::<T>(bytes) {
        Ok(value) => Ok(value),
        Err(_) => decode_json_tracked(bytes),
    }
}

/// The tracked decode: names the path and kind of a failure (the slow path of [`decode_json`]).
fn decode_json_tracked<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, DecodeError> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let result: Result<T, _> = serde_path_to_error::deserialize(&mut de);
    match result {
        Ok(value) => de
            .end()
            .map(|()| value)
            .map_err(|e| DecodeError::new(DecodeErrorKind::Syntax, ".", e.to_string())),
        Err(err) => {
            let path = render_path(&err.path().to_string());
            let inner = err.into_inner();
            Err(classify(&inner, path))
        }
    }
}

/// [`decode_json`] for a body that must be a JSON object: any other JSON value (an array
/// where an envelope is expected) is `WrongType` at the root, not a serde length error.
pub fn decode_json_object<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, DecodeError> {
    // Fast path: an object decoded straight into `T`. Whatever it accepts, the path below
    // accepts with the same value (a duplicate key is the one difference, and it only makes
    // the fast path refuse); anything it refuses is judged by the path below.
    if first_byte(bytes) == Some(b'{')
        && let Ok(value) = serde_json::from_slice::<T>(bytes)
    {
        return Ok(value);
    }
    let value: serde_json::Value = decode_json_tracked(bytes)?;
    if !value.is_object() {
        return Err(DecodeError::new(
            DecodeErrorKind::WrongType,
            ".",
            "expected a JSON object",
        ));
    }
    decode_value(&value)
}

/// The first byte of a body that is not JSON whitespace.
pub fn first_byte(bytes: &[u8]) -> Option<u8> {
    bytes
        .iter()
        .copied()
        .find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
}

/// Decode from an already parsed value (used by decoders that look at the shape first).
pub fn decode_value<T: DeserializeOwned>(value: &serde_json::Value) -> Result<T, DecodeError> {
    // Fast path as in [`decode_json`]: the tracked decode only names a failure.
    if let Ok(v) = T::deserialize(value) {
        return Ok(v);
    }
    let result: Result<T, _> = serde_path_to_error::deserialize(value);
    result.map_err(|err| {
        let path = render_path(&err.path().to_string());
        classify(err.inner(), path)
    })
}

fn render_path(raw: &str) -> String {
    if raw.is_empty() || raw == "." {
        ".".to_string()
    } else {
        format!(".{raw}")
    }
}

fn classify(err: &serde_json::Error, path: String) -> DecodeError {
    use serde_json::error::Category;
    let msg = err.to_string();
    // serde reports these categories only as text; the classification stays inside this edge.
    let kind = match err.classify() {
        Category::Syntax | Category::Eof | Category::Io => DecodeErrorKind::Syntax,
        Category::Data => {
            if msg.starts_with("missing field") {
                DecodeErrorKind::MissingField
            } else if msg.starts_with("unknown field") {
                DecodeErrorKind::UnknownField
            } else if msg.starts_with("unknown variant") {
                DecodeErrorKind::UnknownVariant
            } else if msg.starts_with("invalid type") {
                DecodeErrorKind::WrongType
            } else {
                DecodeErrorKind::InvalidValue
            }
        }
    };
    let detail = msg.split(" at line ").next().unwrap_or(&msg).to_string();
    DecodeError::new(kind, path, detail)
}

/// Serde helper: a nullable field whose key must be present (`"k": null` is fine, no key is
/// `missing_field`). Use as `#[serde(deserialize_with = "required_nullable")]`.
pub fn required_nullable<'de, D, T>(de: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    <Option<T> as serde::Deserialize>::deserialize(de)
}

/// Serde helper for a tri-state field: absent (`None`, with `#[serde(default)]`), present null
/// (`Some(None)`) or present with a value. Use as
/// `#[serde(default, deserialize_with = "present_nullable")]`.
pub fn present_nullable<'de, D, T>(de: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    <Option<T> as serde::Deserialize>::deserialize(de).map(Some)
}

/// A part of a payload that MASC added in a later release ("newer MASC" in protocol.md).
/// `Sent` holds what the server sent; `NotInRelease` means the key is absent because this
/// server's release does not send it. That part is unavailable — never a default value, never
/// "empty", and never a failure of the rest of the payload.
///
/// Use with `#[serde(default)]`: an absent key is `NotInRelease`; a present key must decode
/// as `T` (a present but malformed part still fails, at its own path).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum SinceRelease<T> {
    Sent(T),
    #[default]
    NotInRelease,
}

impl<'de, T: serde::Deserialize<'de>> serde::Deserialize<'de> for SinceRelease<T> {
    fn deserialize<D: serde::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        T::deserialize(de).map(Self::Sent)
    }
}

impl<T> SinceRelease<T> {
    /// The sent value, if this release sends the part.
    pub fn sent(&self) -> Option<&T> {
        match self {
            Self::Sent(v) => Some(v),
            Self::NotInRelease => None,
        }
    }

    pub fn is_sent(&self) -> bool {
        matches!(self, Self::Sent(_))
    }

    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> SinceRelease<U> {
        match self {
            Self::Sent(v) => SinceRelease::Sent(f(v)),
            Self::NotInRelease => SinceRelease::NotInRelease,
        }
    }
}

impl DecodeError {
    /// Re-root the error path under `prefix` (e.g. `.connectors[3]`) for sub-values decoded
    /// on their own.
    pub fn under(mut self, prefix: &str) -> Self {
        self.path = if self.path == "." {
            prefix.to_string()
        } else {
            format!("{prefix}{}", self.path)
        };
        self
    }
}

/// A closed object: the first key outside `allowed` is `unknown_field` at `{at}.{key}`.
pub fn closed_keys(
    obj: &serde_json::Map<String, serde_json::Value>,
    allowed: &[&str],
    at: &str,
) -> Result<(), DecodeError> {
    match obj.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(DecodeError::new(
            DecodeErrorKind::UnknownField,
            format!("{at}.{k}"),
            format!("unknown field `{k}` in a closed object"),
        )),
        None => Ok(()),
    }
}

/// A required key of an already parsed object (`missing_field` at `{at}.{key}` otherwise).
pub fn required_key<'a>(
    obj: &'a serde_json::Map<String, serde_json::Value>,
    key: &str,
    at: &str,
) -> Result<&'a serde_json::Value, DecodeError> {
    obj.get(key).ok_or_else(|| {
        DecodeError::new(
            DecodeErrorKind::MissingField,
            format!("{at}.{key}"),
            format!("missing field `{key}`"),
        )
    })
}

/// [`decode_value`] of a sub-value whose errors are re-rooted under `at`.
pub fn decode_value_at<T: DeserializeOwned>(
    value: &serde_json::Value,
    at: &str,
) -> Result<T, DecodeError> {
    decode_value(value).map_err(|e| e.under(at))
}

/// Parse a body as a JSON object (`wrong_type` at `.` when it is valid JSON of another type).
pub fn decode_object(
    bytes: &[u8],
) -> Result<serde_json::Map<String, serde_json::Value>, DecodeError> {
    match decode_json::<serde_json::Value>(bytes)? {
        serde_json::Value::Object(map) => Ok(map),
        _ => Err(DecodeError::new(
            DecodeErrorKind::WrongType,
            ".",
            "the body is not a JSON object",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Row {
        #[allow(dead_code)]
        status: Status,
    }
    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "lowercase")]
    enum Status {
        Active,
    }
    #[derive(Debug, Deserialize)]
    struct Env {
        #[allow(dead_code)]
        rows: Vec<Row>,
    }

    #[test]
    fn paths_and_kinds_are_named() {
        let e = decode_json::<Env>(br#"{"rows":[{"status":"active"},{"status":"running"}]}"#)
            .unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::UnknownVariant);
        assert_eq!(e.path, ".rows[1].status");
        let e = decode_json::<Env>(br#"{"rows":[{"status":"active","x":1}]}"#).unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::UnknownField);
        let e = decode_json::<Env>(br#"{}"#).unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::MissingField);
        let e = decode_json::<Env>(br#"{"rows":"x"}"#).unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::WrongType);
        let e = decode_json::<Env>(br#"{"rows":["#).unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::Syntax);
    }
}
