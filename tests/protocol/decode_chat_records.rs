//! Chat history pages (protocol.md §4.5) and operation records (§4.4).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code

use masc_tui::protocol::chat::{ChatHistoryPage, ChatOperationRecord, ChatRole, OperationProgress};
use masc_tui::protocol::decode::{DecodeErrorKind, WireDecode};

const RECORD: &str = r#"{"schema":"masc.keeper_chat_operation.v1","operation_id":"tui-01","sequence":"7","created_at":1.0,"execution_digest":"d1","source":"tui","input":{},"state":"Succeeded","completed_at":2.0,"outcome_ref":"trace-alpha#3"}"#;

#[test]
fn operation_record_example_and_echo_4_4() {
    let r = ChatOperationRecord::decode_for(RECORD.as_bytes(), "tui-01").unwrap();
    assert_eq!(r.sequence, 7);
    assert_eq!(
        r.progress,
        OperationProgress::Succeeded {
            completed_at: 2.0,
            outcome_ref: "trace-alpha#3".into()
        }
    );
    let e = ChatOperationRecord::decode_for(RECORD.as_bytes(), "tui-02").unwrap_err();
    assert_eq!(
        (e.kind, e.path.as_str()),
        (DecodeErrorKind::EchoMismatch, ".operation_id")
    );
}

#[test]
fn operation_record_is_closed_and_state_fields_required_4_4() {
    let extra = RECORD.replacen(r#""state""#, r#""extra":1,"state""#, 1);
    assert_eq!(
        ChatOperationRecord::decode(extra.as_bytes())
            .unwrap_err()
            .kind,
        DecodeErrorKind::UnknownField
    );
    let failed = RECORD.replacen("Succeeded", "Failed", 1);
    let e = ChatOperationRecord::decode(failed.as_bytes()).unwrap_err();
    assert_eq!(
        (e.kind, e.path.as_str()),
        (DecodeErrorKind::MissingField, ".failure_kind")
    );
    let seq = RECORD.replacen(r#""7""#, r#""seven""#, 1);
    assert_eq!(
        ChatOperationRecord::decode(seq.as_bytes())
            .unwrap_err()
            .path,
        ".sequence"
    );
    let schema = RECORD.replacen(".v1", ".v9", 1);
    assert_eq!(
        ChatOperationRecord::decode(schema.as_bytes())
            .unwrap_err()
            .path,
        ".schema"
    );
}

#[test]
fn history_page_example_4_5() {
    let body = br#"{"schema":"masc.keeper_chat_history.page.v1","has_more":false,"next_before":1787000000.5,"messages":[{"id":"m-1","role":"user","content":"status?","ts":1787000000.5}]}"#;
    let p = ChatHistoryPage::decode(body).unwrap();
    assert_eq!(p.messages[0].role, ChatRole::User);
    assert!(!p.has_more);
}

#[test]
fn history_page_refusals_4_5() {
    let array = ChatHistoryPage::decode(b"[]").unwrap_err();
    assert_eq!(
        (array.kind, array.path.as_str()),
        (DecodeErrorKind::WrongType, ".")
    );
    let empty_more = br#"{"schema":"masc.keeper_chat_history.page.v1","has_more":true,"next_before":1.0,"messages":[]}"#;
    assert_eq!(
        ChatHistoryPage::decode(empty_more).unwrap_err().path,
        ".has_more"
    );
    let more_no_cursor = br#"{"has_more":true,"next_before":null,"messages":[{"id":"a","role":"tool","content":"","ts":1}]}"#;
    assert_eq!(
        ChatHistoryPage::decode(more_no_cursor).unwrap_err().path,
        ".next_before"
    );
    // §15.9: roles are open — a `system` row or a role no release writes
    // never fails the page (it was `unknown_variant` and blanked the chat).
    let open_roles = br#"{"messages":[{"id":"a","role":"system","content":"","ts":1},{"id":"b","role":"wat","content":"x","ts":2}]}"#;
    let page = ChatHistoryPage::decode(open_roles).unwrap();
    assert_eq!(page.messages[0].role, ChatRole::System);
    assert_eq!(page.counts().unknown_role, 1);
    let other_schema = br#"{"schema":"masc.keeper_chat_history.v0","messages":[]}"#;
    assert_eq!(
        ChatHistoryPage::decode(other_schema).unwrap_err().path,
        ".schema"
    );
}

#[test]
fn repeating_next_before_is_refused_4_5() {
    let page = br#"{"has_more":true,"next_before":20.0,"messages":[{"id":"a","role":"user","content":"","ts":20}]}"#;
    assert!(ChatHistoryPage::decode_for(page, Some(30.0)).is_ok());
    let e = ChatHistoryPage::decode_for(page, Some(20.0)).unwrap_err();
    assert_eq!(e.kind, DecodeErrorKind::RepeatingCursor);
}

#[test]
fn absent_has_more_reads_as_no_more_4_5() {
    let p = ChatHistoryPage::decode(br#"{"messages":[]}"#).unwrap();
    assert!(!p.has_more);
    assert!(!p.schema_sent);
}
