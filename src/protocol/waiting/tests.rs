use super::*;
use serde_json::json;

fn row(keeper: Option<&str>, source: &str) -> Value {
    json!({"keeper_name": keeper, "source": source, "waiting_on": "owner_fifo",
        "what": "운영자 채팅 1건 대기", "wake_producer": "keeper_owner_actor",
        "since": 1787000000.0, "since_iso": "x", "due_at": null, "due_at_iso": null,
        "next_action": "keeper_owner_start_fifo_head", "detail": {"queued_count": 1}})
}

fn inventory(keepers: Vec<Value>, global: Vec<Value>) -> Value {
    json!({"schema": WAITING_INVENTORY_SCHEMA, "source": "server_keeper_waiting_inventory",
        "generated_at": "2026-08-23T00:00:00Z", "supported_states": ["idle","busy","waiting","deferred"],
        "keeper_count_known": true, "keeper_count": keepers.len(), "waiting_keeper_count": 1,
        "row_count": 1, "row_count_truncated": false, "external_attention_row_limit": 64,
        "external_attention_truncated_keeper_count": 0, "global_row_count": global.len(),
        "global_pending_confirm_count_known": true, "global_pending_confirm_count": 0,
        "pending_approval_state": {"state": "ready"}, "source_counts": {},
        "keepers": keepers, "global_waiting_on": global})
}

fn keeper(name: &str, state: &str, rows: Vec<Value>) -> Value {
    json!({"keeper_name": name, "state": state, "waiting_count": rows.len(),
        "waiting_count_truncated": false, "truncated_sources": {}, "sources": {},
        "since": null, "due_at": null, "source_next_actions": {}, "current_execution": null,
        "waiting_on": rows})
}

fn tools_body(inv: Option<Value>) -> Vec<u8> {
    let mut body = json!({"generated_at": "x", "tool_inventory": {"count": 0, "tools": [],
        "surface_summary": {}}, "tool_usage": {}});
    if let Some(inv) = inv {
        body["keeper_waiting_inventory"] = inv;
    }
    serde_json::to_vec(&body).unwrap()
}

#[test]
fn s15_8_the_key_absent_is_not_sent_never_nothing_waiting() {
    let read = WaitingInventoryRead::decode(&tools_body(None)).unwrap();
    assert_eq!(read, WaitingInventoryRead::NotSent);
    assert!(read.inventory().is_none());
}

#[test]
fn s15_8_rows_decode_with_their_sentence_and_technical_words() {
    let inv = inventory(
        vec![
            keeper(
                "alpha",
                "waiting",
                vec![row(Some("alpha"), "chat_operation_queued")],
            ),
            keeper("beta", "idle", vec![]),
        ],
        vec![],
    );
    let read = WaitingInventoryRead::decode(&tools_body(Some(inv))).unwrap();
    let inv = read.inventory().unwrap();
    let alpha = inv.of("alpha").unwrap();
    assert_eq!(alpha.state, WaitState::Waiting);
    let r = alpha.headline().unwrap();
    assert_eq!(r.source, WaitingSource::ChatOperationQueued);
    assert_eq!(r.sentence(), "운영자 채팅 1건 대기");
    assert_eq!(r.next_action, "keeper_owner_start_fifo_head");
    assert_eq!(inv.of("beta").unwrap().state, WaitState::Idle);
    assert!(inv.counts_exact());
    assert_eq!(inv.undecodable(), 0);
}

/// v0.24.0 writes no `what`; MASC's own per-Keeper test row has neither `what` nor counts.
#[test]
fn s15_8_a_row_without_what_shows_its_technical_name() {
    let inv = json!({"keeper_count": 1, "waiting_keeper_count": 1, "row_count": 1,
        "keepers": [{"keeper_name": "kidsnote", "state": "waiting", "waiting_count": 1,
        "waiting_on": [{"keeper_name": "kidsnote", "source": "event_queue_pending",
        "waiting_on": "schedule_due", "next_action": "keeper_consume_event"}]}]});
    let inv = WaitingInventory::decode_value(&inv).unwrap();
    let r = inv.of("kidsnote").unwrap().headline().unwrap();
    assert_eq!(r.what, None);
    assert_eq!(r.sentence(), "schedule_due");
    assert_eq!(inv.global, SinceRelease::NotInRelease);
}

#[test]
fn s15_8_unknown_source_state_and_next_action_stay_raw() {
    let mut odd = row(Some("alpha"), "teleport_queue");
    odd["next_action"] = json!("await_teleport");
    let inv = inventory(vec![keeper("alpha", "dreaming", vec![odd])], vec![]);
    let inv = WaitingInventory::decode_value(&inv).unwrap();
    let alpha = inv.of("alpha").unwrap();
    assert_eq!(alpha.state, WaitState::Unknown("dreaming".into()));
    let r = alpha.headline().unwrap();
    assert_eq!(r.source, WaitingSource::Unknown("teleport_queue".into()));
    assert!(!r.source.is_known());
    assert_eq!(r.source.as_str(), "teleport_queue");
    assert_eq!(r.next_action, "await_teleport");
}

#[test]
fn s15_8_a_row_naming_another_keeper_is_refused_in_its_place() {
    let inv = inventory(
        vec![keeper(
            "alpha",
            "waiting",
            vec![
                row(Some("beta"), "hitl_pending"),
                row(Some("alpha"), "hitl_pending"),
            ],
        )],
        vec![],
    );
    let inv = WaitingInventory::decode_value(&inv).unwrap();
    let alpha = inv.of("alpha").unwrap();
    assert_eq!(alpha.rows.len(), 2);
    match &alpha.rows[0] {
        RowSlot::Undecodable(e) => {
            assert_eq!(e.kind, DecodeErrorKind::IdentityMismatch);
            assert_eq!(e.path, ".keepers[0].waiting_on[0].keeper_name");
        }
        other => panic!("expected refused, got {other:?}"),
    }
    assert_eq!(alpha.decoded_rows().count(), 1);
    assert_eq!(inv.undecodable(), 1);
}

#[test]
fn s15_8_a_broken_row_or_keeper_is_kept_and_counted() {
    let mut thin = row(Some("alpha"), "hitl_pending");
    thin.as_object_mut().unwrap().remove("next_action");
    let inv = inventory(
        vec![
            keeper("alpha", "waiting", vec![thin]),
            json!({"keeper_name": "beta", "state": "idle"}),
        ],
        vec![json!({"source": "read_error"})],
    );
    let inv = WaitingInventory::decode_value(&inv).unwrap();
    assert_eq!(inv.undecodable(), 3);
    assert!(inv.undecodable_for("beta").is_some());
    assert!(inv.of("beta").is_none());
}

#[test]
fn s15_8_unknown_keeper_count_and_truncation_make_counts_inexact() {
    let mut inv = inventory(vec![], vec![]);
    inv["keeper_count_known"] = json!(false);
    assert!(!WaitingInventory::decode_value(&inv).unwrap().counts_exact());
    let mut k = keeper(
        "alpha",
        "waiting",
        vec![row(Some("alpha"), "external_attention")],
    );
    k["waiting_count_truncated"] = json!(true);
    k["truncated_sources"] = json!({"external_attention": true});
    let inv = WaitingInventory::decode_value(&inventory(vec![k], vec![])).unwrap();
    assert!(!inv.counts_exact());
    assert_eq!(
        inv.of("alpha").unwrap().truncated_sources,
        vec!["external_attention".to_string()]
    );
}

#[test]
fn s15_8_global_read_errors_are_failures_shown() {
    let mut err = row(None, "read_error");
    err["waiting_on"] = json!("keeper_meta_store");
    err["next_action"] = json!("repair_keeper_meta_store");
    let inv = WaitingInventory::decode_value(&inventory(vec![], vec![err])).unwrap();
    let errors: Vec<_> = inv.global_read_errors().collect();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].waiting_on, "keeper_meta_store");
}

#[test]
fn s15_8_an_unknown_schema_or_a_broken_envelope_fails_the_read() {
    let mut inv = inventory(vec![], vec![]);
    inv["schema"] = json!("masc.dashboard.keeper_waiting_inventory.v4");
    let e = WaitingInventoryRead::decode(&tools_body(Some(inv))).unwrap_err();
    assert_eq!(e.reason(), "unknown_schema");
    assert_eq!(e.path, ".keeper_waiting_inventory.schema");
    let e = WaitingInventoryRead::decode(&tools_body(Some(json!({})))).unwrap_err();
    assert_eq!(e.kind, DecodeErrorKind::MissingField);
    let e = WaitingInventoryRead::decode(&tools_body(Some(json!({"keepers": null})))).unwrap_err();
    assert_eq!(e.kind, DecodeErrorKind::WrongType);
    let e = WaitingInventoryRead::decode(&tools_body(Some(json!([])))).unwrap_err();
    assert_eq!(e.kind, DecodeErrorKind::WrongType);
}

#[test]
fn s15_8_the_headline_is_the_earliest_due_then_the_oldest() {
    let mut a = row(Some("alpha"), "schedule_waiting");
    a["due_at"] = json!(2000.0);
    a["since"] = json!(900.0);
    let mut b = row(Some("alpha"), "schedule_waiting");
    b["due_at"] = json!(1000.0);
    b["waiting_on"] = json!("second");
    let mut c = row(Some("alpha"), "hitl_pending");
    c["since"] = json!(10.0);
    let inv = WaitingInventory::decode_value(&inventory(
        vec![keeper("alpha", "waiting", vec![a, b, c.clone()])],
        vec![],
    ))
    .unwrap();
    assert_eq!(
        inv.of("alpha").unwrap().headline().unwrap().waiting_on,
        "second"
    );
    let inv = WaitingInventory::decode_value(&inventory(
        vec![keeper("alpha", "waiting", vec![c])],
        vec![],
    ))
    .unwrap();
    assert_eq!(
        inv.of("alpha").unwrap().headline().unwrap().source,
        WaitingSource::HitlPending
    );
}
