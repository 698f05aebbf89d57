//! Provider-input decoder tests on MASC's shape (no shared fixture matches §14.11): the body of
//! MASC's dashboard test (`payload()` beside `decodeProviderInputSnapshot`) and of
//! test/test_tui_context_inspector.ml `provider_input_response` (00a3bd5d): the 12 keys, the
//! closed `wire`, a `system_prompt` whose `bytes` is its UTF-8 length, one message and one
//! tool schema.

use super::*;
use serde_json::json;

const A: &str = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";

/// The shape MASC's encoder writes, for `keeper` / `trace#turn`.
pub fn body(keeper: &str, trace: &str, turn: u64, prompt: &str) -> Value {
    json!({
        "dashboard_surface": "/api/v1/keepers/:name/provider-input",
        "schema": "masc.resolved-provider-input.v1",
        "keeper": keeper,
        "trace_id": trace,
        "absolute_turn": turn,
        "turn_ref": format!("{trace}#{turn}"),
        "runtime_profile": "local",
        "captured_at": 1788220000.125,
        "wire": {
            "phase": "Pre_dispatch_serialization",
            "capture_id": "capture-7",
            "provider": "openai-compatible",
            "model": "model-seven",
            "http_codec": "responses",
            "stream": true,
            "body_bytes": 8192,
            "body_sha256": A
        },
        "system_prompt": {"bytes": prompt.len(), "sha256": sha256_hex(prompt.as_bytes()), "text": prompt},
        "messages": [{
            "index": 0, "role": "user", "bytes": 42, "sha256": A,
            "content": {"role": "user", "content": "hello"}
        }],
        "tool_schemas": [{
            "index": 0, "name": "masc_status", "bytes": 64, "sha256": A,
            "content": {"name": "masc_status", "input_schema": {"type": "object"}}
        }]
    })
}

fn decode(v: &Value) -> Result<ProviderInput, DecodeError> {
    ProviderInput::decode_for(&serde_json::to_vec(v).unwrap(), "albini", "trace-one#7")
}

#[test]
fn s14_11_masc_shape_decodes_with_its_exact_turn_and_parts() {
    let input = decode(&body("albini", "trace-one", 7, "시스템 프롬프트 exact")).unwrap();
    assert_eq!(input.turn_ref, "trace-one#7");
    assert_eq!(input.wire.body_bytes, 8192);
    assert_eq!(input.wire.capture_id.as_deref(), Some("capture-7"));
    let sp = input.system_prompt.as_ref().unwrap();
    assert_eq!(sp.bytes as usize, "시스템 프롬프트 exact".len());
    assert!(sp.sha256_matches_text);
    assert_eq!(input.messages[0].label, "user");
    assert!(input.messages[0].content.contains("\"hello\""));
    assert_eq!(input.tool_schemas[0].label, "masc_status");
    assert_eq!(input.item_bytes(), (sp.bytes, 42, 64));
}

#[test]
fn k15_echoes_of_another_keeper_or_turn_are_refused() {
    let e = decode(&body("other", "trace-one", 7, "p")).unwrap_err();
    assert_eq!(
        (e.kind, e.path.as_str()),
        (DecodeErrorKind::EchoMismatch, ".keeper")
    );
    let e = decode(&body("albini", "trace-one", 8, "p")).unwrap_err();
    assert_eq!(
        (e.kind, e.path.as_str()),
        (DecodeErrorKind::EchoMismatch, ".turn_ref")
    );
    // A turn_ref that is not trace_id#absolute_turn.
    let mut v = body("albini", "trace-one", 8, "p");
    v["turn_ref"] = json!("trace-one#7");
    let e = decode(&v).unwrap_err();
    assert_eq!(e.kind, DecodeErrorKind::IdentityMismatch);
}

#[test]
fn s14_11_closed_body_closed_wire_and_contiguous_indexes() {
    let mut extra = body("albini", "trace-one", 7, "p");
    extra["fabricated_context"] = json!("no");
    assert_eq!(
        decode(&extra).unwrap_err().kind,
        DecodeErrorKind::UnknownField
    );

    let mut wire = body("albini", "trace-one", 7, "p");
    wire["wire"]["extra"] = json!(1);
    assert_eq!(decode(&wire).unwrap_err().path, ".wire.extra");

    let mut short = body("albini", "trace-one", 7, "p");
    short["wire"]["body_sha256"] = json!("short");
    assert_eq!(decode(&short).unwrap_err().path, ".wire.body_sha256");

    let mut gap = body("albini", "trace-one", 7, "p");
    gap["messages"][0]["index"] = json!(1);
    let e = decode(&gap).unwrap_err();
    assert_eq!(
        (e.kind, e.path.as_str()),
        (DecodeErrorKind::InvalidValue, ".messages[0].index")
    );

    let mut item_key = body("albini", "trace-one", 7, "p");
    item_key["tool_schemas"][0]["role"] = json!("x");
    assert_eq!(decode(&item_key).unwrap_err().path, ".tool_schemas[0].role");

    let mut schema = body("albini", "trace-one", 7, "p");
    schema["schema"] = json!("masc.provider-input-snapshot.v1");
    assert_eq!(decode(&schema).unwrap_err().path, ".schema");

    let mut missing = body("albini", "trace-one", 7, "p");
    missing.as_object_mut().unwrap().remove("tool_schemas");
    assert_eq!(
        decode(&missing).unwrap_err().kind,
        DecodeErrorKind::MissingField
    );
}

#[test]
fn s14_11_system_prompt_bytes_and_digest() {
    let mut lie = body("albini", "trace-one", 7, "exact system prompt");
    lie["system_prompt"]["bytes"] = json!(1);
    assert_eq!(decode(&lie).unwrap_err().path, ".system_prompt.bytes");

    let mut other_digest = body("albini", "trace-one", 7, "exact system prompt");
    other_digest["system_prompt"]["sha256"] = json!(A);
    let input = decode(&other_digest).unwrap();
    assert!(!input.system_prompt.unwrap().sha256_matches_text);

    let mut none = body("albini", "trace-one", 7, "p");
    none["system_prompt"] = Value::Null;
    assert!(decode(&none).unwrap().system_prompt.is_none());

    let mut empty_lists = body("albini", "trace-one", 7, "p");
    empty_lists["messages"] = json!([]);
    empty_lists["tool_schemas"] = json!([]);
    let input = decode(&empty_lists).unwrap();
    assert!(input.messages.is_empty() && input.tool_schemas.is_empty());
}
