//! Turn-records decoder tests on MASC's shapes (no shared fixture matches §14.11): the
//! envelope of lib/server/server_dashboard_http_keeper_api.ml and the record of
//! lib/types/turn_record.ml `to_json`, both at d541eb0750 (Aug), and the record of newer MASC
//! (0fc111e339: no `generation`, `usage_scope` and `turn_output_tokens`).

use super::*;
use serde_json::{Value, json};

const DIGEST: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

/// A record as Aug MASC's `Turn_record.to_json` writes it (every always-present key, the
/// optional ones it writes when known).
pub fn aug_record(keeper: &str, trace: &str, turn: u64) -> Value {
    json!({
        "execution_ids": ["exec-1"],
        "keeper": keeper,
        "agent_name": format!("keeper-{keeper}"),
        "generation": 7,
        "turn_kind": "autonomous",
        "trace_id": trace,
        "absolute_turn": turn,
        "turn_ref": format!("{trace}#{turn}"),
        "blocks": [{"block": "keeper_instructions", "bytes": 29, "digest": DIGEST}],
        "input_components": [
            {"component": "prompt.keeper_instructions", "bytes": 29},
            {"component": "tool_schemas", "bytes": 120},
            {"component": "message_user", "bytes": 40}
        ],
        "runtime_profile": "glm-coding",
        "request_runtime_profile": "glm-coding",
        "request_body_bytes": 4096,
        "transmitted_atoms": 3,
        "total_atoms": 4,
        "model_input_measurement": "wire_shape",
        "raw_trace_run_ref": null,
        "selected_model": "glm-5.3",
        "finish_reason": "stop",
        "context_window": 200000,
        "request_latency_ms": 1200,
        "ttfrc_ms": 80.0,
        "temperature": 0.2,
        "input_tokens": 1000,
        "cache_read_input_tokens": 500,
        "output_tokens": 200,
        "ts": 1787600000.0
    })
}

/// The envelope as Aug MASC writes it around `entries`.
pub fn envelope(keeper: &str, records: Vec<Value>) -> Value {
    let entries: Vec<Value> = records
        .into_iter()
        .map(|r| json!({"record": r, "diff_vs_prev": null}))
        .collect();
    json!({
        "keeper": keeper,
        "count": entries.len(),
        "skipped_rows": 0,
        "source": "turn_record",
        "producer": "keeper_agent_run.run_turn|keeper_turn_record_writer",
        "durable_store": "/ws/.masc/keepers/x/turn-records",
        "dashboard_surface": "/api/v1/keepers/:name/turn-records",
        "freshness_slo_s": 900.0,
        "live_turn_in_progress": false,
        "live_turn_started_at_unix": null,
        "live_turn_last_progress_at_unix": null,
        "latest_ts_unix": 1787600000.0,
        "latest_ts_iso": "2026-08-24T19:33:20Z",
        "latest_age_s": 12.5,
        "health": "ok",
        "stale_reason": null,
        "memory_os": {},
        "entries": entries
    })
}

fn bytes(v: &Value) -> Vec<u8> {
    serde_json::to_vec(v).unwrap()
}

#[test]
fn k14_aug_and_newer_records_decode_and_a_turn_is_found_only_by_its_ref() {
    let mut newer = aug_record("omega", "trace-a", 9);
    let o = newer.as_object_mut().unwrap();
    o.remove("generation");
    o.insert("usage_scope".into(), json!("per_request"));
    o.insert("turn_output_tokens".into(), json!(220));
    o.insert("front_atom_digest".into(), Value::Null);
    let body = envelope("omega", vec![aug_record("omega", "trace-a", 8), newer]);
    let page = TurnRecordsPage::decode_for(&bytes(&body), "omega").unwrap();
    assert_eq!(page.records.len(), 2);
    assert_eq!(page.health, RecordsHealth::Ok);
    assert_eq!(page.records[0].generation, Some(7));
    assert_eq!(page.records[1].generation, None);
    assert_eq!(page.records[1].usage_scope.as_deref(), Some("per_request"));
    assert_eq!(page.latest().unwrap().absolute_turn, 9);
    assert_eq!(page.records[0].component_bytes(), Some(189));
    // K-14: a turn absent from the page is "not on this page", never another turn's record.
    assert!(page.record_of("trace-a#8").is_some());
    assert!(page.record_of("trace-a#7").is_none());
    assert!(page.record_of("trace-b#8").is_none());
}

#[test]
fn k15_optional_fields_absent_are_not_zero_and_null_components_are_not_empty() {
    let mut r = aug_record("omega", "trace-a", 3);
    let o = r.as_object_mut().unwrap();
    for k in [
        "selected_model",
        "input_tokens",
        "output_tokens",
        "context_window",
    ] {
        o.remove(k);
    }
    o.insert("input_components".into(), Value::Null);
    // No wire observation: neither its runtime nor its size (one observation, §14.11).
    o.insert("request_body_bytes".into(), Value::Null);
    o.insert("request_runtime_profile".into(), Value::Null);
    let mut empty = aug_record("omega", "trace-a", 4);
    empty["input_components"] = json!([]);
    let page =
        TurnRecordsPage::decode_for(&bytes(&envelope("omega", vec![r, empty])), "omega").unwrap();
    let first = &page.records[0];
    assert_eq!(first.input_tokens, None);
    assert_eq!(first.context_window, None);
    assert_eq!(first.input_components, None);
    assert_eq!(first.request_body_bytes, None);
    assert_eq!(page.records[1].input_components, Some(Vec::new()));
    // The newest attributed record is the newest one with components (an empty list is one).
    let (rec, behind) = page.latest_attributed().unwrap();
    assert_eq!((rec.absolute_turn, behind), (4, 0));
}

#[test]
fn k14_latest_attributed_says_how_far_behind_it_is() {
    let mut newest = aug_record("omega", "trace-a", 12);
    newest["input_components"] = Value::Null;
    let page = TurnRecordsPage::decode_for(
        &bytes(&envelope(
            "omega",
            vec![aug_record("omega", "trace-a", 10), newest],
        )),
        "omega",
    )
    .unwrap();
    let (rec, behind) = page.latest_attributed().unwrap();
    assert_eq!((rec.absolute_turn, behind), (10, 2));
}

#[test]
fn k15_echo_count_identity_and_health_are_strict() {
    let good = envelope("omega", vec![aug_record("omega", "trace-a", 1)]);
    let e = TurnRecordsPage::decode_for(&bytes(&good), "other").unwrap_err();
    assert_eq!(
        (e.kind, e.path.as_str()),
        (DecodeErrorKind::EchoMismatch, ".keeper")
    );

    let mut count = good.clone();
    count["count"] = json!(2);
    let e = TurnRecordsPage::decode_for(&bytes(&count), "omega").unwrap_err();
    assert_eq!(e.kind, DecodeErrorKind::CountMismatch);

    let mut health = good.clone();
    health["health"] = json!("degraded");
    let e = TurnRecordsPage::decode_for(&bytes(&health), "omega").unwrap_err();
    assert_eq!(
        (e.kind, e.path.as_str()),
        (DecodeErrorKind::UnknownVariant, ".health")
    );

    let other = envelope("omega", vec![aug_record("zeta", "trace-a", 1)]);
    let e = TurnRecordsPage::decode_for(&bytes(&other), "omega").unwrap_err();
    assert_eq!(
        (e.kind, e.path.as_str()),
        (
            DecodeErrorKind::IdentityMismatch,
            ".entries[0].record.keeper"
        )
    );

    let mut r = aug_record("omega", "trace-a", 1);
    r["turn_ref"] = json!("trace-a#2");
    let e = TurnRecordsPage::decode_for(&bytes(&envelope("omega", vec![r])), "omega").unwrap_err();
    assert_eq!(e.path, ".entries[0].record.turn_ref");

    let mut kind = aug_record("omega", "trace-a", 1);
    kind["turn_kind"] = json!("scheduled");
    let e =
        TurnRecordsPage::decode_for(&bytes(&envelope("omega", vec![kind])), "omega").unwrap_err();
    assert_eq!(e.kind, DecodeErrorKind::UnknownVariant);

    let mut no_live = good.clone();
    no_live
        .as_object_mut()
        .unwrap()
        .remove("live_turn_in_progress");
    let e = TurnRecordsPage::decode_for(&bytes(&no_live), "omega").unwrap_err();
    assert_eq!(e.kind, DecodeErrorKind::MissingField);
}

#[test]
fn k15_skipped_rows_empty_health_and_live_turn_are_kept() {
    let mut body = envelope("omega", Vec::new());
    body["skipped_rows"] = json!(3);
    body["health"] = json!("incompatible");
    body["stale_reason"] = json!("incompatible_rows");
    body["live_turn_in_progress"] = json!(true);
    body["live_turn_started_at_unix"] = json!(1787600100.0);
    body["latest_ts_unix"] = Value::Null;
    body["latest_age_s"] = Value::Null;
    let page = TurnRecordsPage::decode_for(&bytes(&body), "omega").unwrap();
    assert_eq!(page.skipped_rows, 3);
    assert_eq!(page.health, RecordsHealth::Incompatible);
    assert_eq!(page.stale_reason.as_deref(), Some("incompatible_rows"));
    assert!(page.live_turn_in_progress);
    assert!(page.latest().is_none());
    assert!(page.latest_attributed().is_none());
}

#[test]
fn component_sources_follow_masc_inspector_groups() {
    let c = |s: &str| InputComponent {
        component: s.into(),
        bytes: 1,
    };
    assert_eq!(
        c("prompt.keeper_instructions").source(),
        ComponentSource::PromptAssembly
    );
    assert_eq!(
        c("prompt.keeper_instructions").prompt_block(),
        Some("keeper_instructions")
    );
    assert_eq!(c("tool_schemas").source(), ComponentSource::ToolSurface);
    assert_eq!(
        c("message_tool_result").source(),
        ComponentSource::MessageList
    );
    assert_eq!(c("message_video").source(), ComponentSource::Unknown);
    assert_eq!(c("prompt.").source(), ComponentSource::Unknown);
}

/// K-14 (MASC has no cursor, only `limit` 1–500): an absent turn says why from the page's
/// extent — a full page may have it on a wider one (50 → 200 → 500), a full page at 500 is
/// MASC's maximum, a page with fewer rows than asked (refused rows count: MASC read them) holds
/// every row MASC keeps. The limit is clamped as MASC clamps it.
#[test]
fn k14_lookup_says_why_a_turn_is_absent_from_the_page_extent() {
    assert_eq!(wider_limit(DEFAULT_LIMIT), Some(200));
    assert_eq!(wider_limit(120), Some(200));
    assert_eq!(wider_limit(200), Some(MAX_LIMIT));
    assert_eq!(wider_limit(MAX_LIMIT), None);
    let records = |n: u64| (1..=n).map(|t| aug_record("omega", "trace-a", t)).collect();
    let page = |n: u64, skipped: u64, limit: u32| {
        let mut body = envelope("omega", records(n));
        body["skipped_rows"] = json!(skipped);
        TurnRecordsPage::decode_with_limit(&bytes(&body), "omega", limit).unwrap()
    };
    let full = page(49, 1, 50);
    assert_eq!(full.limit, 50);
    assert!(matches!(full.lookup("trace-a#3"), PinnedLookup::Found(r) if r.absolute_turn == 3));
    assert_eq!(
        full.lookup("trace-a#900"),
        PinnedLookup::NotOnPage {
            read: 50,
            wider: 200
        }
    );
    assert_eq!(
        page(48, 1, 50).lookup("trace-a#900"),
        PinnedLookup::AllRead { rows: 49 }
    );
    assert_eq!(
        page(200, 0, 200).lookup("trace-a#900"),
        PinnedLookup::NotOnPage {
            read: 200,
            wider: 500
        }
    );
    assert_eq!(
        page(500, 0, 9_999).lookup("trace-a#900"),
        PinnedLookup::NotInMaximum { read: 500 }
    );
    assert_eq!(page(1, 0, 0).limit, 1, "clamped 1–500");
    let default = TurnRecordsPage::decode_for(&bytes(&envelope("omega", records(2))), "omega");
    assert_eq!(default.unwrap().limit, DEFAULT_LIMIT);
}

/// MASC's record writer and newer envelope (MASC's dashboard turn-record tests): health `live`
/// needs a running turn; the live turn's start is set exactly while one runs; the request
/// wire's runtime and size come together; a block or component never repeats; an agent is
/// named.
#[test]
fn k15_live_health_wire_pair_and_repeats_follow_the_writer() {
    let mut live = envelope("omega", vec![aug_record("omega", "trace-a", 3)]);
    live["health"] = json!("live");
    live["live_turn_in_progress"] = json!(true);
    live["live_turn_started_at_unix"] = json!(1787600100.0);
    let page = TurnRecordsPage::decode_for(&bytes(&live), "omega").unwrap();
    assert_eq!(page.health, RecordsHealth::Live);
    let mut idle_live = live.clone();
    idle_live["live_turn_in_progress"] = json!(false);
    idle_live["live_turn_started_at_unix"] = Value::Null;
    let e = TurnRecordsPage::decode_for(&bytes(&idle_live), "omega").unwrap_err();
    assert_eq!(
        (e.kind, e.path.as_str()),
        (DecodeErrorKind::InvalidValue, ".health")
    );
    let mut unstarted = live.clone();
    unstarted["live_turn_started_at_unix"] = Value::Null;
    let e = TurnRecordsPage::decode_for(&bytes(&unstarted), "omega").unwrap_err();
    assert_eq!(e.path, ".live_turn_started_at_unix");
    let broken = |edit: &dyn Fn(&mut Value)| {
        let mut r = aug_record("omega", "trace-a", 3);
        edit(&mut r);
        TurnRecordsPage::decode_for(&bytes(&envelope("omega", vec![r])), "omega").unwrap_err()
    };
    let e = broken(&|r| r["request_body_bytes"] = Value::Null);
    assert_eq!(e.path, ".entries[0].record.request_runtime_profile");
    let e = broken(&|r| {
        r.as_object_mut().unwrap().remove("request_body_bytes");
    });
    assert_eq!(e.kind, DecodeErrorKind::MissingField);
    let e = broken(&|r| r["agent_name"] = json!(" "));
    assert_eq!(e.path, ".entries[0].record.agent_name");
    let e = broken(&|r| {
        r["input_components"] = json!([{"component": "tool_schemas", "bytes": 1},
            {"component": "tool_schemas", "bytes": 1}]);
    });
    assert_eq!(e.reason(), "duplicate_item");
    let e = broken(&|r| {
        r["blocks"] = json!([{"block": "a", "bytes": 1, "digest": DIGEST},
            {"block": "a", "bytes": 2, "digest": DIGEST}]);
    });
    assert_eq!(
        (e.reason(), e.path.as_str()),
        ("duplicate_item", ".entries[0].record.blocks")
    );
}
