//! Task list, detail and history-page rules (protocol.md §5.1–§5.4, sources.md A-1…A-9).

use super::*;
use crate::protocol::decode::DecodeErrorKind;

const LIST: &str = r#"{"schema":"masc.task_list.v1","sources":{"backlog":{"state":"read"},"archive":{"state":"read"},"goal_links":{"state":"unavailable","reason":"goal link registry unreadable"}},
 "tasks":[{"id":"task-1013","title":"Write decoder","status":"in_progress","priority":2,"assignee":"alpha","created_at":"2026-10-01T09:00:00Z","completed_at":null,"archived":false,"goal_ids":null}]}"#;

#[test]
fn task_list_example_and_closed_sources_5_1() {
    let l = TaskList::decode(LIST.as_bytes()).unwrap();
    assert!(matches!(
        l.sources.goal_links,
        SourceRead::Unavailable { .. }
    ));
    assert_eq!(l.tasks[0].goal_ids, None);
    let extra = LIST.replacen(r#"{"state":"read"}"#, r#"{"state":"read","x":1}"#, 1);
    let e = TaskList::decode(extra.as_bytes()).unwrap_err();
    assert_eq!(e.kind, DecodeErrorKind::UnknownField);
    let extra_source = LIST.replacen(r#""backlog""#, r#""other":{"state":"read"},"backlog""#, 1);
    assert_eq!(
        TaskList::decode(extra_source.as_bytes()).unwrap_err().kind,
        DecodeErrorKind::UnknownField
    );
}

#[test]
fn goal_ids_follow_the_goal_links_source_5_1() {
    let listed = LIST.replacen(r#""goal_ids":null"#, r#""goal_ids":["goal-7"]"#, 1);
    let e = TaskList::decode(listed.as_bytes()).unwrap_err();
    assert_eq!(e.path, ".tasks[0].goal_ids");
}

const DETAIL: &str = r#"{"schema":"masc.task_detail.v1","task_id":"task-1013","goal":{"state":"linked","goal_ids":["goal-7"]},"task":{"id":"task-1013","title":"Write decoder","description":"Typed decoder.","priority":2,"files":[],"created_at":"2026-10-01T09:00:00Z","status":"in_progress","assignee":"alpha","started_at":"2026-10-02T10:00:00Z"}}"#;

#[test]
fn task_detail_example_has_typed_status_fields_5_2() {
    let d = TaskDetail::decode_for(DETAIL.as_bytes(), "task-1013").unwrap();
    assert_eq!(
        d.task.state,
        TaskState::InProgress {
            assignee: "alpha".into(),
            started_at: "2026-10-02T10:00:00Z".into()
        }
    );
}

#[test]
fn task_detail_echo_and_identity_a9() {
    let e = TaskDetail::decode_for(DETAIL.as_bytes(), "task-9").unwrap_err();
    assert_eq!(
        (e.kind, e.path.as_str()),
        (DecodeErrorKind::EchoMismatch, ".task_id")
    );
    let other = DETAIL.replacen(r#""id":"task-1013""#, r#""id":"task-1014""#, 1);
    let e = TaskDetail::decode(other.as_bytes()).unwrap_err();
    assert_eq!(
        (e.kind, e.path.as_str()),
        (DecodeErrorKind::IdentityMismatch, ".task.id")
    );
    let extra = DETAIL.replacen(r#""task_id""#, r#""x":1,"task_id""#, 1);
    assert_eq!(
        TaskDetail::decode(extra.as_bytes()).unwrap_err().kind,
        DecodeErrorKind::UnknownField
    );
}

#[test]
fn non_canonical_goal_observation_fails_a9() {
    for goal in [
        r#"{"state":"linked","goal_ids":[]}"#,
        r#"{"state":"linked","goal_ids":["g","g"]}"#,
        r#"{"state":"unlinked","goal_ids":[]}"#,
        r#"{"state":"maybe"}"#,
    ] {
        let body = DETAIL.replacen(r#"{"state":"linked","goal_ids":["goal-7"]}"#, goal, 1);
        assert!(TaskDetail::decode(body.as_bytes()).is_err(), "{goal}");
    }
    let unlinked = DETAIL.replacen(
        r#"{"state":"linked","goal_ids":["goal-7"]}"#,
        r#"{"state":"unlinked"}"#,
        1,
    );
    assert_eq!(
        TaskDetail::decode(unlinked.as_bytes()).unwrap().goal,
        GoalObservation::Unlinked {}
    );
}

#[test]
fn status_without_its_fields_is_missing_field_5() {
    let done = DETAIL.replacen(r#""status":"in_progress""#, r#""status":"done""#, 1);
    let e = TaskDetail::decode(done.as_bytes()).unwrap_err();
    assert_eq!(
        (e.kind, e.path.as_str()),
        (DecodeErrorKind::MissingField, ".task.completed_at")
    );
}

fn page(task_id: &str, cursor: &str, rows: &str, next: &str, has_more: bool) -> Vec<u8> {
    format!(
        r#"{{"schema":"masc.task_history_page.v1","task_id":"{task_id}","cursor":{cursor},"next_cursor":{next},"has_more":{has_more},"rows":[{rows}]}}"#
    )
    .into_bytes()
}

const ROW: &str = r#"{"ts":"2026-10-08T10:00:00Z","type":"task_transition","action":"submit_for_verification","task_id":"task-1013","from_status":"in_progress","to_status":"awaiting_verification","agent":"alpha"}"#;

fn req(cursor: Option<&str>, limit: u32) -> PageRequest {
    PageRequest {
        task_id: "task-1013".into(),
        cursor: cursor.map(str::to_string),
        limit,
    }
}

#[test]
fn history_page_example_decodes_5_3() {
    let p = TaskHistoryPage::decode_for(
        &page("task-1013", "null", ROW, r#""c1""#, true),
        &req(None, 50),
        &[],
    )
    .unwrap();
    assert_eq!(
        p.continuation,
        HistoryContinuation::More {
            next_cursor: "c1".into()
        }
    );
    let end = TaskHistoryPage::decode_for(
        &page("task-1013", r#""c1""#, "", "null", false),
        &req(Some("c1"), 50),
        &[],
    )
    .unwrap();
    assert_eq!(end.continuation, HistoryContinuation::EndOfStoredHistory);
    assert!(end.rows.is_empty());
}

#[test]
fn history_page_refusals_5_3_a1() {
    type Case = (
        Vec<u8>,
        PageRequest,
        Vec<String>,
        &'static str,
        &'static str,
    );
    let cases: Vec<Case> = vec![
        (
            page("task-1013", "null", ROW, "null", false).replace_schema(),
            req(None, 50),
            vec![],
            "invalid_value",
            ".schema",
        ),
        (
            page("task-9", "null", ROW, "null", false),
            req(None, 50),
            vec![],
            "echo_mismatch",
            ".task_id",
        ),
        (
            page("task-1013", r#""c0""#, ROW, "null", false),
            req(None, 50),
            vec![],
            "echo_mismatch",
            ".cursor",
        ),
        (
            page(
                "task-1013",
                "null",
                &ROW.replace(r#""task_id":"task-1013","#, ""),
                "null",
                false,
            ),
            req(None, 50),
            vec![],
            "identity_mismatch",
            ".rows[0].task_id",
        ),
        (
            page(
                "task-1013",
                "null",
                &ROW.replace("\"task_id\":\"task-1013\"", "\"task_id\":\"task-1\""),
                "null",
                false,
            ),
            req(None, 50),
            vec![],
            "identity_mismatch",
            ".rows[0].task_id",
        ),
        (
            page(
                "task-1013",
                "null",
                &ROW.replace("\"agent\"", "\"task\":\"task-2\",\"agent\""),
                "null",
                false,
            ),
            req(None, 50),
            vec![],
            "identity_mismatch",
            ".rows[0].task",
        ),
        (
            page("task-1013", "null", ROW, "null", true),
            req(None, 50),
            vec![],
            "has_more_inconsistent",
            ".has_more",
        ),
        (
            page("task-1013", "null", ROW, r#""c1""#, false),
            req(None, 50),
            vec![],
            "has_more_inconsistent",
            ".has_more",
        ),
        (
            page("task-1013", "null", "", r#""c1""#, true),
            req(None, 50),
            vec![],
            "empty_page_with_more",
            ".rows",
        ),
        (
            page("task-1013", "null", &format!("{ROW},{ROW}"), "null", false),
            req(None, 1),
            vec![],
            "page_over_limit",
            ".rows",
        ),
        (
            page("task-1013", r#""c1""#, ROW, r#""c1""#, true),
            req(Some("c1"), 50),
            vec![],
            "repeating_cursor",
            ".next_cursor",
        ),
        (
            page("task-1013", r#""c2""#, ROW, r#""c1""#, true),
            req(Some("c2"), 50),
            vec!["c1".to_string()],
            "repeating_cursor",
            ".next_cursor",
        ),
        (
            page(
                "task-1013",
                "null",
                &ROW.replace("2026-10-08T10:00:00Z", "yesterday"),
                "null",
                false,
            ),
            req(None, 50),
            vec![],
            "invalid_value",
            ".rows[0].ts",
        ),
    ];
    for (i, (body, request, used, reason, path)) in cases.iter().enumerate() {
        let e = TaskHistoryPage::decode_for(body, request, used).unwrap_err();
        assert_eq!((e.reason(), e.path.as_str()), (*reason, *path), "case {i}");
    }
}

trait ReplaceSchema {
    fn replace_schema(self) -> Vec<u8>;
}
impl ReplaceSchema for Vec<u8> {
    fn replace_schema(self) -> Vec<u8> {
        String::from_utf8(self)
            .unwrap()
            .replace("masc.task_history_page.v1", "masc.task_history_page.v2")
            .into_bytes()
    }
}

#[test]
fn legacy_array_is_its_own_type_5_4() {
    let l = LegacyTaskEvents::decode(
        br#"[{"ts":"2026-10-08T10:00:00Z","type":"task_transition","task":"task-1013","to_status":"done"}]"#,
    )
    .unwrap();
    assert_eq!(l.events[0].task.as_deref(), Some("task-1013"));
    // A page envelope is not the legacy array, and the array is not a page (A-3).
    assert!(LegacyTaskEvents::decode(&page("task-1013", "null", ROW, "null", false)).is_err());
    assert!(TaskHistoryPage::decode(b"[]").is_err());
}

/// A-9 for §5.4: the legacy array read for one task takes only that task's lines,
/// named by `task` or `task_id`; a line of another task or of none fails the whole read.
#[test]
fn issue13_legacy_lines_must_name_the_requested_task_5_4() {
    let ok = br#"[{"ts":"2026-10-08T10:00:00Z","task":"task-1013","to_status":"done"},{"ts":"2026-10-07T10:00:00Z","task_id":"task-1013","task":"task-1013"}]"#;
    assert_eq!(
        LegacyTaskEvents::decode_for(ok, "task-1013")
            .unwrap()
            .events
            .len(),
        2
    );
    let other = br#"[{"ts":"2026-10-08T10:00:00Z","task":"task-1013"},{"ts":"2026-10-07T10:00:00Z","task_id":"task-9"}]"#;
    let e = LegacyTaskEvents::decode_for(other, "task-1013").unwrap_err();
    assert_eq!(
        (e.kind, e.path.as_str()),
        (DecodeErrorKind::IdentityMismatch, "[1].task_id")
    );
    let split = br#"[{"ts":"2026-10-08T10:00:00Z","task":"task-9","task_id":"task-1013"}]"#;
    assert_eq!(
        LegacyTaskEvents::decode_for(split, "task-1013")
            .unwrap_err()
            .path,
        "[0].task"
    );
    let anonymous = br#"[{"ts":"2026-10-08T10:00:00Z","to_status":"done"}]"#;
    assert_eq!(
        LegacyTaskEvents::decode_for(anonymous, "task-1013")
            .unwrap_err()
            .kind,
        DecodeErrorKind::IdentityMismatch
    );
}
