//! One test per §11 table row (protocol.md §11), named `<write kind>_<outcome>`.

use super::*;
use crate::protocol::asks::AskAnswerRequest;
use crate::protocol::board::BoardPostRequest;
use crate::protocol::client::WriteExchange;
use crate::protocol::connectors::ConnectorRow;
use crate::protocol::decode::WireDecode;
use crate::protocol::keeper_config::{
    CompositeRevision, KeeperConfigSaveRequest, KeeperConfigSnapshot, KeeperCreateRequest,
    ManifestRevision, NetworkMode, RuntimeAssignmentRequest, RuntimeAssignmentRevision,
    SandboxProfile,
};
use crate::protocol::operator::{ApprovalDecisionRequest, Decision};
use crate::protocol::runtime::{RuntimeRawSaveRequest, runtime_source_revision};

fn class<A, C>(o: &SaveOutcome<A, C>) -> &'static str {
    o.class()
}

// ---- common ----

fn settings_req() -> KeeperConfigSaveRequest {
    KeeperConfigSaveRequest {
        keeper: "alpha".into(),
        expected: CompositeRevision {
            manifest: ManifestRevision::Missing {},
            runtime_assignment: RuntimeAssignmentRevision::RuntimeConfigMissing {},
        },
    }
}

#[test]
fn common_cases_are_not_applied_s11() {
    let req = settings_req();
    for (status, body) in [
        (401, r#"{"error":"x","auth_error_code":"invalid_token"}"#),
        (
            403,
            r#"{"error":"x","auth_error_code":"insufficient_role"}"#,
        ),
        (429, r#"{"error":"rate limited"}"#),
        (
            409,
            r#"{"error":"workspace_mismatch","expected_root":"/a","served_root":"/b"}"#,
        ),
    ] {
        let o = classify_keeper_config_save(status, body.as_bytes(), &req);
        assert_eq!(class(&o), "not_applied", "{status}");
    }
}

#[test]
fn transport_not_sent_and_unknown_s11() {
    let req = settings_req();
    let not_sent = WriteExchange::NotSent {
        reason: "connection refused".into(),
    };
    let lost = WriteExchange::OutcomeUnknown {
        reason: "timeout".into(),
    };
    assert_eq!(
        classify_exchange(&not_sent, &req, classify_keeper_config_save).class(),
        "not_sent"
    );
    assert_eq!(
        classify_exchange(&lost, &req, classify_keeper_config_save).class(),
        "outcome_unknown"
    );
    let responded = WriteExchange::Responded {
        status: 500,
        body: bytes::Bytes::from_static(b"{}"),
    };
    assert_eq!(
        classify_exchange(&responded, &req, classify_keeper_config_save).class(),
        "outcome_unknown",
        "an unlisted 5xx is unknown"
    );
}

// ---- keeper settings / sandbox ----

const REV: &str =
    r#"{"manifest":{"state":"missing"},"runtime_assignment":{"state":"runtime_config_missing"}}"#;

#[test]
fn keeper_settings_not_applied() {
    let req = settings_req();
    assert_eq!(
        class(&classify_keeper_config_save(
            400,
            br#"{"error":"bad key"}"#,
            &req
        )),
        "not_applied"
    );
    assert_eq!(
        class(&classify_keeper_config_save(
            404,
            br#"{"error":"keeper \"x\" not found"}"#,
            &req
        )),
        "not_applied"
    );
    let rolled_back = br#"{"ok":false,"config_applied":false,"error":{"code":"keeper_config_publication_rolled_back"}}"#;
    assert_eq!(
        class(&classify_keeper_config_save(503, rolled_back, &req)),
        "not_applied"
    );
}

#[test]
fn keeper_settings_applied() {
    let req = settings_req();
    let body = format!(r#"{{"config_write":{{"revision":{REV},"applied":true,"warnings":[]}}}}"#);
    let o = classify_keeper_config_save(200, body.as_bytes(), &req);
    assert!(matches!(
        o,
        SaveOutcome::Applied {
            detail: KeeperConfigApplied::Written(_),
            warning: None
        }
    ));
    let sync_failed =
        br#"{"ok":false,"config_applied":true,"error":{"code":"keeper_runtime_sync_failed"}}"#;
    let o = classify_keeper_config_save(503, sync_failed, &req);
    assert!(matches!(
        o,
        SaveOutcome::Applied {
            detail: KeeperConfigApplied::WrittenRuntimeNotSynced,
            warning: Some(_)
        }
    ));
}

#[test]
fn keeper_settings_unchanged() {
    let req = settings_req();
    let body = format!(r#"{{"config_write":{{"revision":{REV},"applied":false,"warnings":[]}}}}"#);
    assert_eq!(
        class(&classify_keeper_config_save(200, body.as_bytes(), &req)),
        "unchanged"
    );
    // Sandbox: the profile already equals the request, nothing is sent.
    let snap = KeeperConfigSnapshot::decode(
        format!(r#"{{"config_revision":{REV},"execution":{{}},"sandbox_profile":"docker","network_mode":"none","max_context_override":null}}"#)
            .as_bytes(),
    )
    .unwrap();
    assert_eq!(
        sandbox_save_precheck(&snap, SandboxProfile::Docker, Some(NetworkMode::None))
            .map(|o| o.class()),
        Some("unchanged")
    );
    assert!(sandbox_save_precheck(&snap, SandboxProfile::Microvm, None).is_none());
}

#[test]
fn keeper_settings_conflict() {
    let req = settings_req();
    let body = format!(
        r#"{{"ok":false,"keeper":"alpha","config_applied":false,"runtime_sync":false,"error":{{"code":"keeper_config_revision_conflict","expected":{REV},"observed":{{"state":"unavailable","detail":"x"}}}}}}"#
    );
    let o = classify_keeper_config_save(409, body.as_bytes(), &req);
    assert!(matches!(o, SaveOutcome::Conflict { .. }));
    let other_keeper = body.replace(r#""keeper":"alpha""#, r#""keeper":"beta""#);
    assert_eq!(
        class(&classify_keeper_config_save(
            409,
            other_keeper.as_bytes(),
            &req
        )),
        "outcome_unknown"
    );
}

#[test]
fn keeper_settings_unknown() {
    let req = settings_req();
    for code in [
        "keeper_manifest_reconciliation_required",
        "keeper_config_composite_reconciliation_required",
    ] {
        let body = format!(
            r#"{{"ok":false,"config_application":{{"state":"indeterminate"}},"authoritative_reload_required":true,"error":{{"code":"{code}"}}}}"#
        );
        assert_eq!(
            class(&classify_keeper_config_save(503, body.as_bytes(), &req)),
            "outcome_unknown"
        );
    }
    assert_eq!(
        class(&classify_keeper_config_save(
            200,
            br#"{"name":"alpha"}"#,
            &req
        )),
        "outcome_unknown"
    );
}

// ---- runtime assignment ----

fn assignment_req() -> RuntimeAssignmentRequest {
    RuntimeAssignmentRequest {
        keeper_name: "alpha".into(),
        runtime_id: Some("runtime-b".into()),
        expected: RuntimeAssignmentRevision::RuntimeConfigMissing {},
    }
}

const ASSIGN_RECEIPT: &str = r#"{"ok":true,"state":"committed","commit":{"source_revision":"aa","order":"3","durability":"unconfirmed","warnings":[{"code":"lock_slow","detail":"x"}]},"application":{"operation":"assignment"}}"#;

#[test]
fn runtime_assignment_not_applied() {
    let o = classify_runtime_assignment(403, br#"{"error":"x"}"#, &assignment_req());
    assert_eq!(class(&o), "not_applied");
}

#[test]
fn runtime_assignment_applied() {
    let o = classify_runtime_assignment(200, ASSIGN_RECEIPT.as_bytes(), &assignment_req());
    let SaveOutcome::Applied { warning, .. } = o else {
        panic!("expected applied")
    };
    assert!(warning.unwrap().contains("durability unconfirmed"));
}

#[test]
fn runtime_assignment_unchanged() {
    let body = br#"{"ok":true,"applied":false,"assignment_revision":{"state":"runtime_config_missing"},"warnings":[]}"#;
    assert_eq!(
        class(&classify_runtime_assignment(200, body, &assignment_req())),
        "unchanged"
    );
}

#[test]
fn runtime_assignment_conflict() {
    let body = br#"{"ok":false,"error":{"code":"runtime_assignment_revision_conflict","expected":{"state":"runtime_config_missing"},"observed":{"state":"runtime_config_missing"}}}"#;
    assert_eq!(
        class(&classify_runtime_assignment(409, body, &assignment_req())),
        "conflict"
    );
}

#[test]
fn runtime_assignment_unknown() {
    // Every 400, and a 200 that is neither shape (the Aug file echo).
    let o = classify_runtime_assignment(
        400,
        br#"{"error":"keeper_name required"}"#,
        &assignment_req(),
    );
    assert_eq!(class(&o), "outcome_unknown");
    let echo =
        br#"{"ok":true,"path":"/x","file_name":"runtime.toml","source_text":"","reloaded":true}"#;
    assert_eq!(
        class(&classify_runtime_assignment(200, echo, &assignment_req())),
        "outcome_unknown"
    );
}

// ---- runtime raw save / form ----

fn raw_req() -> RuntimeRawSaveRequest {
    RuntimeRawSaveRequest {
        expected_source_revision: "9".repeat(64),
    }
}

#[test]
fn runtime_raw_save_not_applied() {
    let o = classify_runtime_raw_save(
        400,
        br#"{"error":"runtime config parse failed: x"}"#,
        &raw_req(),
    );
    assert_eq!(class(&o), "not_applied");
    let o = classify_runtime_raw_save(
        400,
        br#"{"ok":false,"error":"invalid","validation":{"valid":false,"issues":[]}}"#,
        &raw_req(),
    );
    assert_eq!(class(&o), "not_applied");
    // Form: the preview gates the commit.
    let blocked = runtime_form_preview_gate(
        200,
        br#"{"ok":true,"can_save":false,"validation":{"valid":false,"issues":[]}}"#,
    );
    assert!(blocked.unwrap_err().contains("cannot be saved"));
    assert_eq!(
        runtime_form_preview_gate(400, br#"{"error":"source_text required"}"#).unwrap_err(),
        "preview refused (HTTP 400: source_text required)"
    );
    assert!(runtime_form_preview_gate(200, br#"{"ok":true,"can_save":true,"validation":{"valid":true,"issues":[]},"runtime_validation":null}"#).is_ok());
}

#[test]
fn runtime_raw_save_applied() {
    let body = br#"{"ok":true,"state":"committed","commit":{"source_revision":"aa","order":"8","durability":"durable","warnings":[]},"application":{"operation":"raw_save"}}"#;
    let o = classify_runtime_raw_save(200, body, &raw_req());
    assert!(matches!(o, SaveOutcome::Applied { warning: None, .. }));
}

#[test]
fn runtime_raw_save_unchanged() {
    // MASC has no unchanged answer: identical text is committed again (applied).
    let body = br#"{"ok":true,"state":"committed","commit":{"source_revision":"aa","order":"9","durability":"durable","warnings":[]},"application":{"operation":"raw_save"}}"#;
    assert_eq!(
        class(&classify_runtime_raw_save(200, body, &raw_req())),
        "applied"
    );
}

#[test]
fn runtime_raw_save_conflict() {
    let text = "# other\n";
    let body = format!(
        r##"{{"error":"changed","code":"revision_conflict","current":{{"source_path":"/p/runtime.toml","source_text":"# other\n","source_revision":"{}"}}}}"##,
        runtime_source_revision(text)
    );
    let o = classify_runtime_raw_save(409, body.as_bytes(), &raw_req());
    let SaveOutcome::Conflict { current } = o else {
        panic!("expected conflict")
    };
    assert_eq!(current.source_text, text);
}

#[test]
fn runtime_raw_save_unknown() {
    let cases: [(u16, &[u8]); 6] = [
        (422, br#"{"error":"unprocessable"}"#),
        (400, br#"{"error":{"detail":"x"}}"#),
        (400, br#"{"error":"applied but refresh failed","config_applied":true}"#),
        (400, br#"{"error":"x","config_application":{"state":"indeterminate"}}"#),
        (409, br#"{"error":"x","code":"revision_conflict","current":{"source_path":"/p","source_text":"a","source_revision":"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"}}"#),
        (200, br#"{"ok":true}"#),
    ];
    for (status, body) in cases {
        assert_eq!(
            class(&classify_runtime_raw_save(status, body, &raw_req())),
            "outcome_unknown",
            "{status}"
        );
    }
    let reload = br#"{"ok":true,"state":"committed","authoritative_reload_required":true,"commit":{"source_revision":"aa","order":"8","durability":"durable","warnings":[]},"application":{"operation":"raw_save"}}"#;
    assert_eq!(
        class(&classify_runtime_raw_save(200, reload, &raw_req())),
        "outcome_unknown"
    );
}

// ---- keeper create ----

fn create_req() -> KeeperCreateRequest {
    KeeperCreateRequest {
        name: "scout".into(),
    }
}

const CREATED: &str = r#"{"ok":true,"action":"created","name":"scout","detail":{"name":"scout","sandbox_profile":"docker","network_mode":"none","lane":{"state":"running"}}}"#;

#[test]
fn keeper_create_not_applied() {
    for status in [400, 404, 405] {
        assert_eq!(
            class(&classify_keeper_create(
                status,
                br#"{"ok":false,"error":"x"}"#,
                &create_req()
            )),
            "not_applied"
        );
    }
}

#[test]
fn keeper_create_applied() {
    assert!(matches!(
        classify_keeper_create(201, CREATED.as_bytes(), &create_req()),
        SaveOutcome::Applied { warning: None, .. }
    ));
    let failed_lane = CREATED.replace(
        r#"{"state":"running"}"#,
        r#"{"state":"failed","reason":"no image"}"#,
    );
    assert!(matches!(
        classify_keeper_create(201, failed_lane.as_bytes(), &create_req()),
        SaveOutcome::Applied {
            warning: Some(_),
            ..
        }
    ));
}

#[test]
fn keeper_create_conflict() {
    let o = classify_keeper_create(
        409,
        br#"{"ok":false,"error":"keeper_exists","name":"scout"}"#,
        &create_req(),
    );
    assert_eq!(
        o,
        SaveOutcome::Conflict {
            current: KeeperExists {
                name: Some("scout".into())
            }
        }
    );
}

#[test]
fn keeper_create_unknown() {
    let other = CREATED.replace("scout", "ranger");
    assert_eq!(
        class(&classify_keeper_create(
            201,
            other.as_bytes(),
            &create_req()
        )),
        "outcome_unknown"
    );
    let no_detail = br#"{"ok":true,"action":"created","name":"scout"}"#;
    assert_eq!(
        class(&classify_keeper_create(201, no_detail, &create_req())),
        "outcome_unknown"
    );
}

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
