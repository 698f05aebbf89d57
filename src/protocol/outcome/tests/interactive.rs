//! §11 rows of the operator writes.

use super::super::*;
use super::class;
use crate::protocol::asks::AskAnswerRequest;
use crate::protocol::board::BoardPostRequest;
use crate::protocol::connectors::ConnectorRow;
use crate::protocol::decode::WireDecode;
use crate::protocol::operator::{ApprovalDecisionRequest, Decision};

// ---- ask answer ----

fn ask_req() -> AskAnswerRequest {
    AskAnswerRequest {
        keeper: "alpha".into(),
        ask_id: "ask-1".into(),
    }
}

#[test]
fn ask_answer_not_applied() {
    for status in [400, 404] {
        assert_eq!(
            class(&classify_ask_answer(
                status,
                br#"{"error":"x"}"#,
                &ask_req()
            )),
            "not_applied"
        );
    }
}

#[test]
fn ask_answer_applied() {
    let body =
        br#"{"ok":true,"ask_id":"ask-1","actor":"masc-tui","answer_count":1,"open_remaining":0}"#;
    let SaveOutcome::Applied { detail, .. } = classify_ask_answer(200, body, &ask_req()) else {
        panic!("expected applied")
    };
    assert_eq!(detail.actor, "masc-tui");
}

#[test]
fn ask_answer_conflict() {
    let body =
        br#"{"ok":false,"error":"ask_already_resolved","ask_id":"ask-1","state":"withdrawn"}"#;
    let o = classify_ask_answer(409, body, &ask_req());
    assert_eq!(
        o,
        SaveOutcome::Conflict {
            current: crate::protocol::asks::AskAlreadyResolved {
                state: Some(crate::protocol::asks::ResolvedState::Withdrawn)
            }
        }
    );
}

/// A 409 whose body lacks §10.2's typed reason is quoted, never "another answer stands".
#[test]
fn i32_ask_answer_409_with_an_unknown_body_quotes_the_server() {
    for (body, reason) in [
        (
            &br#"{"error":"ask locked by a migration"}"#[..],
            "refused (HTTP 409): ask locked by a migration",
        ),
        (
            &b"upstream says no"[..],
            "refused (HTTP 409): upstream says no",
        ),
        (&b""[..], "refused (HTTP 409)"),
    ] {
        assert_eq!(
            classify_ask_answer(409, body, &ask_req()),
            SaveOutcome::NotApplied {
                reason: reason.into()
            },
        );
    }
}

#[test]
fn ask_answer_unknown() {
    // The client relies on the status and `actor`: a bare ok is not proof of who answered.
    assert_eq!(
        class(&classify_ask_answer(200, br#"{"ok":true}"#, &ask_req())),
        "outcome_unknown"
    );
    assert_eq!(
        class(&classify_ask_answer(502, b"", &ask_req())),
        "outcome_unknown"
    );
    let other = br#"{"ok":true,"ask_id":"ask-2","actor":"masc-tui"}"#;
    assert_eq!(
        class(&classify_ask_answer(200, other, &ask_req())),
        "outcome_unknown"
    );
}

// ---- board post ----

fn post_req() -> BoardPostRequest {
    BoardPostRequest {
        title: "Nightly verification".into(),
    }
}

#[test]
fn board_post_not_applied() {
    let o = classify_board_post(
        400,
        br#"{"ok":false,"message":"title is required"}"#,
        &post_req(),
    );
    assert_eq!(class(&o), "not_applied");
}

#[test]
fn board_post_applied() {
    let body = br#"{"ok":true,"message":"{\"id\":\"post-7\",\"title\":\"Nightly verification\"}"}"#;
    let SaveOutcome::Applied { detail, .. } = classify_board_post(201, body, &post_req()) else {
        panic!("expected applied")
    };
    assert_eq!(detail.post_id, "post-7");
}

#[test]
fn board_post_unknown() {
    assert_eq!(
        class(&classify_board_post(
            201,
            br#"{"id":"post-7"}"#,
            &post_req()
        )),
        "outcome_unknown"
    );
    assert_eq!(
        class(&classify_board_post(200, b"", &post_req())),
        "outcome_unknown"
    );
}

// ---- connector bind / unbind ----

fn bind_req(channel: &str) -> ConnectorBindingRequest {
    ConnectorBindingRequest {
        connector_id: "discord".into(),
        channel_id: channel.into(),
        keeper_name: "alpha".into(),
    }
}

fn row(bindings: &str) -> String {
    format!(
        r#"{{"connector_id":"discord","display_name":"Discord","status":"connected","available":true,"connected":true,"configured_bindings":[{bindings}]}}"#
    )
}

#[test]
fn connector_bind_not_applied() {
    for (status, body) in [
        (400, r#"{"ok":false,"error":"channel_id is required"}"#),
        (404, r#"{"ok":false,"error":"unknown connector: x"}"#),
        (404, r#"{"ok":false,"error":"unknown keeper: x"}"#),
        (503, r#"{"ok":false,"error":"keeper check failed"}"#),
    ] {
        assert_eq!(
            class(&classify_connector_bind(
                status,
                body.as_bytes(),
                &bind_req("333")
            )),
            "not_applied"
        );
    }
}

#[test]
fn connector_bind_applied() {
    let body = row(r#"{"channel_id":"333","keeper_name":"alpha"}"#);
    assert_eq!(
        class(&classify_connector_bind(
            200,
            body.as_bytes(),
            &bind_req("333")
        )),
        "applied"
    );
}

#[test]
fn connector_bind_unchanged() {
    let current =
        ConnectorRow::decode(row(r#"{"channel_id":"333","keeper_name":"alpha"}"#).as_bytes())
            .unwrap();
    assert_eq!(
        bind_precheck(&current, &bind_req("333")).map(|o| o.class()),
        Some("unchanged")
    );
    assert!(bind_precheck(&current, &bind_req("444")).is_none());
}

#[test]
fn connector_bind_unknown() {
    assert_eq!(
        class(&classify_connector_bind(
            500,
            br#"{"ok":false,"error":"store"}"#,
            &bind_req("333")
        )),
        "outcome_unknown"
    );
    let body = row(r#"{"channel_id":"333","keeper_name":"beta"}"#);
    assert_eq!(
        class(&classify_connector_bind(
            200,
            body.as_bytes(),
            &bind_req("333")
        )),
        "outcome_unknown"
    );
}

#[test]
fn connector_unbind_not_applied() {
    for (status, body) in [
        (400, r#"{"ok":false,"error":"invalid json"}"#),
        (404, r#"{"ok":false,"error":"unknown connector: x"}"#),
    ] {
        assert_eq!(
            class(&classify_connector_unbind(
                status,
                body.as_bytes(),
                &bind_req("111")
            )),
            "not_applied"
        );
    }
}

#[test]
fn connector_unbind_applied() {
    let body = row(r#"{"channel_id":"333","keeper_name":"alpha"}"#);
    assert_eq!(
        class(&classify_connector_unbind(
            200,
            body.as_bytes(),
            &bind_req("111")
        )),
        "applied"
    );
}

#[test]
fn connector_unbind_unchanged() {
    let o = classify_connector_unbind(
        404,
        br#"{"ok":false,"error":"binding not found"}"#,
        &bind_req("111"),
    );
    assert_eq!(class(&o), "unchanged");
}

#[test]
fn connector_unbind_conflict() {
    let o = classify_connector_unbind(
        409,
        br#"{"ok":false,"error":"binding changed"}"#,
        &bind_req("111"),
    );
    assert_eq!(
        o,
        SaveOutcome::Conflict {
            current: BindingChanged
        }
    );
}

#[test]
fn connector_unbind_unknown() {
    assert_eq!(
        class(&classify_connector_unbind(
            500,
            br#"{"ok":false,"error":"x"}"#,
            &bind_req("111")
        )),
        "outcome_unknown"
    );
    let still = row(r#"{"channel_id":"111","keeper_name":"alpha"}"#);
    assert_eq!(
        class(&classify_connector_unbind(
            200,
            still.as_bytes(),
            &bind_req("111")
        )),
        "outcome_unknown"
    );
}

// ---- approval decision ----

fn decision(d: Decision) -> ApprovalDecisionRequest {
    ApprovalDecisionRequest {
        confirm_token: "opc_5b0e8f2a".into(),
        decision: d,
    }
}

const ACTION: &str = r#"{"confirm_token":"opc_5b0e8f2a","trace_id":"ops_1","actor":"masc-tui","action_type":"namespace_pause","target_type":"workspace","target_id":null,"payload":{},"delegated_tool":"masc_pause","created_at":"2026-08-21T12:00:00Z","expires_at":"2026-08-21T12:15:00Z"}"#;

fn confirm_reply(status: &str, extra: &str) -> String {
    format!(
        r#"{{"status":"{status}","trace_id":"ops_1","decision":"confirm","tool_name":"masc_pause","executed_action":{ACTION}{extra}}}"#
    )
}

#[test]
fn approval_decision_not_applied() {
    for message in [
        "confirm_token is required",
        "operator request actor is required",
        "actor is not allowed to confirm this action",
        "pending confirmation expired",
        "invalid json: eof",
    ] {
        let body = format!(r#"{{"status":"error","message":"{message}"}}"#);
        assert_eq!(
            class(&classify_approval_decision(
                400,
                body.as_bytes(),
                &decision(Decision::Confirm)
            )),
            "not_applied",
            "{message}"
        );
    }
    for status in [200, 503] {
        let o = classify_approval_decision(
            status,
            br#"{"error":"not initialized"}"#,
            &decision(Decision::Deny),
        );
        assert_eq!(class(&o), "not_applied");
    }
}

#[test]
fn approval_decision_applied() {
    let ran = confirm_reply("ok", r#","result":{"paused":true}"#);
    assert!(matches!(
        classify_approval_decision(200, ran.as_bytes(), &decision(Decision::Confirm)),
        SaveOutcome::Applied { warning: None, .. }
    ));
    let deferred = confirm_reply("deferred", r#","result":null"#);
    assert!(matches!(
        classify_approval_decision(200, deferred.as_bytes(), &decision(Decision::Confirm)),
        SaveOutcome::Applied {
            warning: Some(_),
            ..
        }
    ));
    let failed = confirm_reply(
        "error",
        r#","result":{"error":"boom"},"message":"pause failed""#,
    );
    assert!(matches!(
        classify_approval_decision(200, failed.as_bytes(), &decision(Decision::Confirm)),
        SaveOutcome::Applied {
            warning: Some(_),
            ..
        }
    ));
    let deny = format!(
        r#"{{"status":"ok","trace_id":"ops_1","decision":"deny","tool_name":"masc_pause","result_status":"not_executed","executed_action":{ACTION}}}"#
    );
    assert_eq!(
        class(&classify_approval_decision(
            200,
            deny.as_bytes(),
            &decision(Decision::Deny)
        )),
        "applied"
    );
}

#[test]
fn approval_decision_conflict() {
    let body = br#"{"status":"error","message":"pending confirmation not found"}"#;
    assert_eq!(
        classify_approval_decision(400, body, &decision(Decision::Confirm)),
        SaveOutcome::Conflict {
            current: NoLongerPending
        }
    );
}

#[test]
fn approval_decision_unknown() {
    let req = decision(Decision::Confirm);
    let cases = [
        (
            400,
            r#"{"status":"error","message":"delegated tool failed"}"#.to_string(),
        ),
        (200, confirm_reply("queued", r#","result":null"#)),
        (200, confirm_reply("ok", "")),
        (
            200,
            confirm_reply("ok", r#","result":null"#).replace(
                r#""trace_id":"ops_1","decision""#,
                r#""trace_id":"ops_2","decision""#,
            ),
        ),
        (
            200,
            confirm_reply("ok", r#","result":null"#).replace(
                r#""tool_name":"masc_pause""#,
                r#""tool_name":"masc_resume""#,
            ),
        ),
        (200, String::new()),
    ];
    for (status, body) in cases {
        assert_eq!(
            class(&classify_approval_decision(status, body.as_bytes(), &req)),
            "outcome_unknown",
            "{body}"
        );
    }
    let deny_without_marker = format!(
        r#"{{"status":"ok","trace_id":"ops_1","decision":"deny","tool_name":"masc_pause","executed_action":{ACTION}}}"#
    );
    assert_eq!(
        class(&classify_approval_decision(
            200,
            deny_without_marker.as_bytes(),
            &decision(Decision::Deny)
        )),
        "outcome_unknown"
    );
}
