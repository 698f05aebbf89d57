//! §11 rows of the configuration writes and the common cases.

use super::super::*;
use super::class;
use crate::protocol::client::WriteExchange;
use crate::protocol::decode::WireDecode;
use crate::protocol::keeper_config::{
    CompositeRevision, KeeperConfigSaveRequest, KeeperConfigSnapshot, KeeperCreateRequest,
    ManifestRevision, NetworkMode, RuntimeAssignmentRequest, RuntimeAssignmentRevision,
    SandboxProfile,
};
use crate::protocol::runtime::{RuntimeRawSaveRequest, runtime_source_revision};

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
