//! §11 rows of the Keeper operations (§14.1–§14.4).

use super::super::*;
use super::class;
use crate::protocol::keeper_ops::{
    DirectiveAction, DirectiveRequest, PowerAction, PowerRequest, PurgeRequest, ResumeArgs,
    ToolApprovalMode, ToolApprovalModeRequest,
};

fn directive(action: DirectiveAction) -> DirectiveRequest {
    DirectiveRequest {
        keeper: "alpha".into(),
        action,
        resume: (action == DirectiveAction::Resume).then(|| ResumeArgs {
            owner_nonce: 7,
            operator_operation_id: "tui-resume-1".into(),
        }),
    }
}

fn c(status: u16, body: &str, req: &DirectiveRequest) -> &'static str {
    class(&classify_directive(status, body.as_bytes(), req))
}

#[test]
fn directive_pause_and_wake_rows_s11_s14_1() {
    let pause = directive(DirectiveAction::Pause);
    let wake = directive(DirectiveAction::Wakeup);
    assert_eq!(
        c(
            200,
            r#"{"ok":true,"action":"pause","name":"alpha"}"#,
            &pause
        ),
        "applied"
    );
    assert_eq!(
        c(
            200,
            r#"{"ok":true,"action":"wakeup","name":"alpha"}"#,
            &wake
        ),
        "applied"
    );
    // Echo of another keeper or action, or an extra key: not the applied shape.
    assert_eq!(
        c(200, r#"{"ok":true,"action":"pause","name":"beta"}"#, &pause),
        "outcome_unknown"
    );
    assert_eq!(
        c(
            200,
            r#"{"ok":true,"action":"wakeup","name":"alpha"}"#,
            &pause
        ),
        "outcome_unknown"
    );
    assert_eq!(
        c(
            200,
            r#"{"ok":true,"action":"pause","name":"alpha","x":1}"#,
            &pause
        ),
        "outcome_unknown"
    );
    assert_eq!(
        c(400, r#"{"ok":false,"error":"unknown action"}"#, &pause),
        "not_applied"
    );
    let meta = r#"{"ok":false,"action":"pause","name":"alpha","error":"keeper meta not found"}"#;
    assert_eq!(c(404, meta, &pause), "not_applied");
    assert_eq!(
        c(
            500,
            r#"{"ok":false,"action":"pause","name":"alpha","error":"read_meta failed: eio"}"#,
            &pause
        ),
        "not_applied"
    );
    // Any other 500: the owner command may have run.
    assert_eq!(
        c(
            500,
            r#"{"ok":false,"action":"pause","name":"alpha","error":"owner command failed"}"#,
            &pause
        ),
        "outcome_unknown"
    );
    assert_eq!(c(503, "", &wake), "outcome_unknown");
}

#[test]
fn directive_resume_rows_s11_s14_1() {
    let resume = directive(DirectiveAction::Resume);
    let base = r#""action":"resume","operation":"resume_owner","name":"alpha""#;
    assert_eq!(
        c(
            200,
            &format!(
                r#"{{"ok":true,{base},"committed":true,"commit_status":"committed","projection":"running"}}"#
            ),
            &resume
        ),
        "applied"
    );
    assert_eq!(
        c(
            200,
            &format!(
                r#"{{"ok":true,{base},"committed":true,"commit_status":"already_committed"}}"#
            ),
            &resume
        ),
        "unchanged"
    );
    let followup = classify_directive(
        202,
        format!(r#"{{"ok":false,{base},"committed":true,"projection":"committed_followup_failed","error":"wake failed"}}"#)
            .as_bytes(),
        &resume,
    );
    assert_eq!(class(&followup), "applied");
    assert!(followup.reason().is_some(), "applied plus failure");
    assert_eq!(
        c(
            409,
            &format!(r#"{{"ok":false,{base},"committed":false,"error":"generation changed"}}"#),
            &resume
        ),
        "conflict"
    );
    assert_eq!(
        c(
            500,
            &format!(r#"{{"ok":false,{base},"committed":false,"error":"receipt store"}}"#),
            &resume
        ),
        "not_applied"
    );
    assert_eq!(c(500, r#"{"error":"boom"}"#, &resume), "outcome_unknown");
    assert_eq!(
        c(
            200,
            r#"{"ok":true,"action":"resume","name":"alpha"}"#,
            &resume
        ),
        "outcome_unknown"
    );
}

fn power(action: PowerAction) -> PowerRequest {
    PowerRequest {
        keeper: "alpha".into(),
        action,
    }
}

#[test]
fn lifecycle_boot_and_shutdown_rows_s11_s14_2() {
    let boot = power(PowerAction::Boot);
    let down = power(PowerAction::Shutdown);
    let p = |s: u16, b: &str, r: &PowerRequest| class(&classify_power(s, b.as_bytes(), r));
    assert_eq!(
        p(
            200,
            r#"{"ok":true,"action":"boot","name":"alpha","detail":{}}"#,
            &boot
        ),
        "applied"
    );
    assert_eq!(
        p(
            200,
            r#"{"ok":true,"action":"boot","name":"alpha","already_live":true,"detail":{}}"#,
            &boot
        ),
        "unchanged"
    );
    assert_eq!(
        p(
            200,
            r#"{"ok":true,"action":"shutdown","name":"alpha"}"#,
            &down
        ),
        "applied"
    );
    let paused = classify_power(
        409,
        br#"{"ok":false,"error":"keeper is operator-paused; commit Resume_owner through the directive endpoint"}"#,
        &boot,
    );
    assert_eq!(class(&paused), "not_applied");
    assert!(
        paused
            .reason()
            .is_some_and(|r| r.starts_with(OPERATOR_PAUSED))
    );
    // A 409 whose body lacks §14.2's typed refusal is quoted, never "operator-paused".
    for (body, reason) in [
        (
            &br#"{"ok":false,"error":"lane migration in progress"}"#[..],
            "refused (HTTP 409): lane migration in progress",
        ),
        (
            &br#"{"error":{"message":"busy"}}"#[..],
            "refused (HTTP 409): busy",
        ),
        (&b"Conflict"[..], "refused (HTTP 409): Conflict"),
        (&b""[..], "refused (HTTP 409)"),
    ] {
        let quoted = classify_power(409, body, &boot);
        assert_eq!(quoted.reason(), Some(reason));
        assert!(!reason.contains(OPERATOR_PAUSED));
    }
    assert_eq!(
        p(
            500,
            r#"{"ok":false,"error":"dispatch returned None"}"#,
            &boot
        ),
        "not_applied"
    );
    assert_eq!(
        p(
            500,
            r#"{"ok":false,"error":"keeper boot preflight read failed: eio"}"#,
            &boot
        ),
        "not_applied"
    );
    let latched = classify_power(
        500,
        br#"{"ok":false,"error":"paused-state persist failed after shutdown"}"#,
        &down,
    );
    assert_eq!(class(&latched), "applied");
    assert!(latched.reason().is_some(), "applied plus failure");
    assert_eq!(
        p(500, r#"{"ok":false,"error":"tool crashed"}"#, &down),
        "outcome_unknown"
    );
    assert_eq!(
        p(
            200,
            r#"{"ok":true,"action":"shutdown","name":"beta"}"#,
            &down
        ),
        "outcome_unknown"
    );
    assert_eq!(p(200, r#"{"ok":false}"#, &down), "outcome_unknown");
    assert_eq!(
        p(400, r#"{"ok":false,"error":"tool refused"}"#, &down),
        "not_applied"
    );
}

#[test]
fn delete_rows_s11_s14_3() {
    let req = PurgeRequest {
        keeper: "scout".into(),
    };
    let p = |s: u16, b: &str| class(&classify_purge(s, b.as_bytes(), &req));
    assert_eq!(
        p(
            202,
            r#"{"ok":true,"accepted":true,"target_kind":"keeper","agent_name":"scout","keeper_name":"scout","operation_id":"op-1"}"#
        ),
        "applied"
    );
    assert_eq!(
        p(
            202,
            r#"{"ok":true,"accepted":true,"target_kind":"keeper","agent_name":"scout","keeper_name":"other","operation_id":"op-1"}"#
        ),
        "outcome_unknown"
    );
    assert_eq!(
        p(
            202,
            r#"{"ok":true,"accepted":true,"target_kind":"keeper","agent_name":"scout","keeper_name":"scout","operation_id":""}"#
        ),
        "outcome_unknown"
    );
    assert_eq!(
        p(
            200,
            r#"{"ok":true,"accepted":false,"target_kind":"agent","agent_name":"scout","cleanup_results":[]}"#
        ),
        "outcome_unknown"
    );
    assert_eq!(
        p(404, r#"{"ok":false,"error":"agent or keeper not found"}"#),
        "unchanged"
    );
    for s in [400, 409, 503] {
        assert_eq!(
            p(s, r#"{"ok":false,"error":"lane executing"}"#),
            "not_applied"
        );
    }
    assert_eq!(p(500, r#"{"ok":false,"error":"x"}"#), "outcome_unknown");
}

#[test]
fn tool_approval_mode_rows_s11_s14_4() {
    let req = ToolApprovalModeRequest {
        keeper: "alpha".into(),
        mode: ToolApprovalMode::Yolo,
    };
    let p = |s: u16, b: &str| classify_tool_mode(s, b.as_bytes(), &req);
    assert_eq!(
        class(&p(200, r#"{"keeper":"alpha","mode":"yolo"}"#)),
        "applied"
    );
    assert_eq!(
        class(&p(200, r#"{"keeper":"alpha","mode":"auto"}"#)),
        "outcome_unknown"
    );
    assert_eq!(
        class(&p(200, r#"{"keeper":"beta","mode":"yolo"}"#)),
        "outcome_unknown"
    );
    assert_eq!(
        class(&p(
            400,
            r#"{"error":{"message":"mode must be auto or yolo"}}"#
        )),
        "not_applied"
    );
    let unregistered = p(404, r#"{"error":{"message":"keeper not registered"}}"#);
    assert_eq!(class(&unregistered), "not_applied");
    assert_ne!(unregistered.reason(), Some(ROUTE_NOT_SERVED));
    // An older server's unknown-route answer: not applied, the route is not served.
    let older = p(404, "404 Not Found");
    assert_eq!(class(&older), "not_applied");
    assert_eq!(older.reason(), Some(ROUTE_NOT_SERVED));
}
