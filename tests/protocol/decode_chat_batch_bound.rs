//! The batch binding of a newer MASC's chat stream (`KEEPER_CHAT_BATCH_BOUND`; chat-screen.md
//! C-37, protocol.md §4.3): admitted strictly, with MASC's own shape as the ground truth —
//! jeong-sik/masc dashboard/src/schemas/sse.ts at 01003857f7 (`allowedFields` =
//! `['operation_id', 'execution_id']`, both `requiredString`) and its test "accepts a shared
//! execution binding and rejects unknown fields" (dashboard/src/schemas/sse.test.ts); the
//! event order of MASC's PTY fixtures (the binding before `RUN_STARTED` without a `runId` in
//! "Server batch has one TUI status row"; after `RUN_STARTED` with the member's own `runId` in
//! "Receipt search pin survives follower binding").

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code
use crate::support::sse;

use masc_tui::protocol::chat::{
    BatchBinding, ChatStreamEvent, ChatStreamOutcome, ChatStreamReader,
};
use masc_tui::protocol::decode::DecodeError;

const REQ: &str = "member-1";
const KEEPER: &str = "alpha";

fn accepted() -> String {
    format!(
        r#"{{"type":"CUSTOM","threadId":"default","timestamp":1.0,"name":"KEEPER_CHAT_OPERATION_ACCEPTED","value":{{"operation_id":"{REQ}","state":"Queued","queued_count":2}}}}"#
    )
}

fn ev(kind: &str, extra: &str) -> String {
    format!(
        r#"{{"type":"{kind}","threadId":"keeper:{KEEPER}","timestamp":1.0,"runId":"keeper-operation-run-{REQ}"{extra}}}"#
    )
}

/// The binding as MASC's batch fixture sends it: no `runId`.
fn bound_without_run(value: &str) -> String {
    format!(
        r#"{{"type":"CUSTOM","threadId":"keeper:{KEEPER}","timestamp":1.0,"name":"KEEPER_CHAT_BATCH_BOUND","value":{value}}}"#
    )
}

fn bound_with_run(value: &str) -> String {
    ev(
        "CUSTOM",
        &format!(r#","name":"KEEPER_CHAT_BATCH_BOUND","value":{value}"#),
    )
}

fn tail() -> Vec<String> {
    vec![
        ev(
            "TEXT_MESSAGE_START",
            r#","messageId":"m1","role":"assistant""#,
        ),
        ev("TEXT_MESSAGE_CONTENT", r#","messageId":"m1","delta":"ok""#),
        ev(
            "CUSTOM",
            r#","name":"KEEPER_REPLY_DETAILS","value":{"reply":"ok","turn_outcome":"visible_reply","turn_ref":"trace-alpha#1"}"#,
        ),
        ev("TEXT_MESSAGE_END", r#","messageId":"m1""#),
        ev("RUN_FINISHED", ""),
    ]
}

fn read(events: &[String]) -> (Result<Vec<ChatStreamEvent>, DecodeError>, ChatStreamReader) {
    let mut reader = ChatStreamReader::new(Some(REQ), Some(KEEPER));
    let got = reader.push(&sse(events));
    (got, reader)
}

const BINDING: &str = r#"{"operation_id":"member-1","execution_id":"leader-1"}"#;

fn binding() -> BatchBinding {
    BatchBinding {
        operation_id: "member-1".into(),
        execution_id: "leader-1".into(),
    }
}

/// C-37, §4.3: the binding before `RUN_STARTED` (no `runId`, MASC's batch fixture) and after
/// it (the member's own `runId`, MASC's follower fixture) is a typed event; the turn completes.
#[test]
fn c37_the_masc_binding_is_admitted_before_or_after_run_started_4_3() {
    for (name, events) in [
        (
            "before RUN_STARTED, no runId",
            [
                vec![
                    accepted(),
                    bound_without_run(BINDING),
                    ev("RUN_STARTED", ""),
                ],
                tail(),
            ]
            .concat(),
        ),
        (
            "after RUN_STARTED, own runId",
            [
                vec![accepted(), ev("RUN_STARTED", ""), bound_with_run(BINDING)],
                tail(),
            ]
            .concat(),
        ),
    ] {
        let (got, reader) = read(&events);
        let got = got.unwrap_or_else(|e| panic!("{name}: {e:?}"));
        assert!(
            got.contains(&ChatStreamEvent::BatchBound(binding())),
            "{name}: {got:?}"
        );
        assert!(
            matches!(reader.finish(), Ok(ChatStreamOutcome::Completed { .. })),
            "{name}"
        );
    }
}

/// C-37: a binding repeated on the same stream (a re-confirmation) is admitted each time;
/// the ids are kept verbatim (never trimmed or normalised).
#[test]
fn c37_a_repeated_binding_is_admitted_and_ids_stay_verbatim() {
    let spaced = r#"{"operation_id":"member-1","execution_id":" Leader-1 "}"#;
    let events = [
        vec![
            accepted(),
            bound_without_run(spaced),
            ev("RUN_STARTED", ""),
            bound_with_run(spaced),
        ],
        tail(),
    ]
    .concat();
    let (got, _) = read(&events);
    let bound: Vec<_> = got
        .unwrap()
        .into_iter()
        .filter_map(|e| match e {
            ChatStreamEvent::BatchBound(b) => Some(b),
            _ => None,
        })
        .collect();
    assert_eq!(bound.len(), 2);
    assert!(bound.iter().all(|b| b.execution_id == " Leader-1 "));
}

/// C-37, MASC's schema test: an unknown field, a missing `execution_id`, a blank id or a
/// non-string id is refused, naming the field; the stream is not trusted further.
#[test]
fn c37_an_unknown_field_or_a_missing_or_blank_id_is_refused() {
    for (value, path) in [
        (
            r#"{"operation_id":"member-1","execution_id":"leader-1","guessed":true}"#,
            ".events[1].value.guessed",
        ),
        (r#"{"operation_id":"member-1"}"#, ".events[1].value"),
        (
            r#"{"operation_id":"member-1","execution_id":"  "}"#,
            ".events[1].value.execution_id",
        ),
        (
            r#"{"operation_id":"","execution_id":"leader-1"}"#,
            ".events[1].value.operation_id",
        ),
        (
            r#"{"operation_id":"member-1","execution_id":7}"#,
            ".events[1].value.execution_id",
        ),
        ("null", ".events[1].value"),
    ] {
        let (got, reader) = read(&[accepted(), bound_without_run(value)]);
        let err = got.expect_err(value);
        assert_eq!(err.path, path, "{value}: {err:?}");
        assert!(reader.finish().is_err(), "{value}: the refusal is sticky");
    }
}

/// §4.3: the binding is a Keeper-thread event: before the acceptance it is out of order; on
/// another Keeper's thread or with another operation's run it is an identity mismatch.
#[test]
fn s4_3_a_binding_before_the_acceptance_or_of_another_thread_or_run_is_refused() {
    let (got, _) = read(&[bound_without_run(BINDING)]);
    assert_eq!(got.unwrap_err().reason(), "missing_acceptance");
    let other_thread = bound_without_run(BINDING).replace("keeper:alpha", "keeper:beta");
    let (got, _) = read(&[accepted(), other_thread]);
    assert_eq!(got.unwrap_err().reason(), "event_identity_mismatch");
    let other_run = bound_with_run(BINDING).replace("run-member-1", "run-member-2");
    let (got, _) = read(&[accepted(), other_run]);
    let err = got.unwrap_err();
    assert_eq!(
        (err.reason(), err.path.as_str()),
        ("event_identity_mismatch", ".events[1].runId")
    );
    let no_thread = bound_with_run(BINDING).replace(r#""threadId":"keeper:alpha","#, "");
    let (got, _) = read(&[accepted(), no_thread]);
    assert_eq!(got.unwrap_err().reason(), "event_identity_mismatch");
}

/// An older MASC never sends the binding: a stream without it reads exactly as before.
#[test]
fn c37_a_stream_without_a_binding_carries_none() {
    let events = [vec![accepted(), ev("RUN_STARTED", "")], tail()].concat();
    let (got, reader) = read(&events);
    assert!(
        !got.unwrap()
            .iter()
            .any(|e| matches!(e, ChatStreamEvent::BatchBound(_)))
    );
    assert!(matches!(
        reader.finish(),
        Ok(ChatStreamOutcome::Completed { .. })
    ));
}
