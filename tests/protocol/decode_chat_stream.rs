//! The chat stream validator (protocol.md §4.3, §11 keeper chat send) on recorded transcripts
//! and on synthetic streams built event by event.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code
use crate::support::sse;

use masc_tui::protocol::chat::{
    ChatPostAnswer, ChatStreamEvent, ChatStreamOutcome, ChatStreamReader, OperationState,
    PreStreamRefusal, RunErrorCode,
};
use masc_tui::protocol::decode::DecodeError;
use std::path::{Path, PathBuf};

const REQ: &str = "tui-request-1";
const KEEPER: &str = "keeper.one";

fn fixtures_dir() -> Option<PathBuf> {
    let near = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/masc");
    if near.join("MANIFEST.tsv").exists() {
        return Some(near);
    }
    let abs = PathBuf::from("/work/shared/fixtures/masc");
    abs.join("MANIFEST.tsv").exists().then_some(abs)
}

fn accepted(state: &str) -> String {
    format!(
        r#"{{"type":"CUSTOM","threadId":"default","timestamp":1.0,"name":"KEEPER_CHAT_OPERATION_ACCEPTED","value":{{"operation_id":"{REQ}","state":"{state}","queued_count":0}}}}"#
    )
}

/// An event after the acceptance with the right identity; `extra` is spliced in.
fn ev(kind: &str, extra: &str) -> String {
    format!(
        r#"{{"type":"{kind}","threadId":"keeper:{KEEPER}","timestamp":1.0,"runId":"keeper-operation-run-{REQ}"{extra}}}"#
    )
}

fn custom(name: &str, value: &str) -> String {
    ev("CUSTOM", &format!(r#","name":"{name}","value":{value}"#))
}

fn details(reply: &str) -> String {
    custom(
        "KEEPER_REPLY_DETAILS",
        &format!(
            r#"{{"reply":"{reply}","turn_outcome":"visible_reply","turn_ref":"trace-chat#1"}}"#
        ),
    )
}

fn run(
    bytes: &[u8],
    req: Option<&str>,
    keeper: Option<&str>,
) -> Result<ChatStreamOutcome, DecodeError> {
    let mut reader = ChatStreamReader::new(req, keeper);
    reader.push(bytes)?;
    reader.finish()
}

fn happy() -> Vec<String> {
    vec![
        accepted("Queued"),
        ev("RUN_STARTED", ""),
        ev(
            "TEXT_MESSAGE_START",
            r#","messageId":"m1","role":"assistant""#,
        ),
        ev("TEXT_MESSAGE_CONTENT", r#","messageId":"m1","delta":"hel""#),
        details("hello"),
        ev("TEXT_MESSAGE_END", r#","messageId":"m1""#),
        ev("RUN_FINISHED", ""),
    ]
}

#[test]
fn happy_stream_completes_with_the_details_reply_4_3() {
    let outcome = run(&sse(&happy()), Some(REQ), Some(KEEPER)).unwrap();
    match outcome {
        ChatStreamOutcome::Completed {
            operation_id,
            reply,
            replayed_from,
        } => {
            assert_eq!(operation_id, REQ);
            // The reply is the details' text, never the concatenated deltas.
            assert_eq!(reply.reply, "hello");
            assert!(reply.turn_outcome.is_visible_reply());
            assert_eq!(replayed_from, None);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn byte_by_byte_feeding_yields_the_same_events() {
    let bytes = sse(&happy());
    let mut whole = ChatStreamReader::new(Some(REQ), Some(KEEPER));
    let all = whole.push(&bytes).unwrap();
    let mut split = ChatStreamReader::new(Some(REQ), Some(KEEPER));
    let mut pieces = Vec::new();
    for b in &bytes {
        pieces.extend(split.push(std::slice::from_ref(b)).unwrap());
    }
    assert_eq!(all, pieces);
    assert_eq!(all.len(), 7);
    assert!(matches!(
        all[0],
        ChatStreamEvent::Accepted {
            state: OperationState::Queued,
            ..
        }
    ));
    assert_eq!(whole.finish().unwrap(), split.finish().unwrap());
}

fn reason_and_path(events: &[String], req: Option<&str>, keeper: Option<&str>) -> (String, String) {
    let e = run(&sse(events), req, keeper).unwrap_err();
    (e.reason().to_string(), e.path)
}

#[test]
fn identity_rules_are_exact_4_3() {
    let wrong_op = reason_and_path(&happy(), Some("tui-other"), Some(KEEPER));
    assert_eq!(
        wrong_op,
        (
            "echo_mismatch".into(),
            ".events[0].value.operation_id".into()
        )
    );
    let wrong_keeper = reason_and_path(&happy(), Some(REQ), Some("beta"));
    assert_eq!(
        wrong_keeper,
        (
            "event_identity_mismatch".into(),
            ".events[1].threadId".into()
        )
    );
    let mut bad_thread = happy();
    bad_thread[0] = bad_thread[0].replace(
        r#""threadId":"default""#,
        r#""threadId":"keeper:keeper.one""#,
    );
    assert_eq!(
        reason_and_path(&bad_thread, Some(REQ), Some(KEEPER)),
        (
            "event_identity_mismatch".into(),
            ".events[0].threadId".into()
        )
    );
    let mut no_run = happy();
    no_run[2] = no_run[2].replace(&format!(r#","runId":"keeper-operation-run-{REQ}""#), "");
    assert_eq!(
        reason_and_path(&no_run, Some(REQ), Some(KEEPER)),
        ("event_identity_mismatch".into(), ".events[2].runId".into())
    );
}

#[test]
fn identity_is_learned_when_not_given() {
    assert!(run(&sse(&happy()), None, None).is_ok());
    // Learned from the first keeper event, then enforced on the next ones.
    let mut drift = happy();
    drift[3] = drift[3].replace("keeper:keeper.one", "keeper:other");
    assert_eq!(
        reason_and_path(&drift, None, None),
        (
            "event_identity_mismatch".into(),
            ".events[3].threadId".into()
        )
    );
}

#[test]
fn acceptance_value_is_closed_4_3() {
    let mut extra = happy();
    extra[0] = extra[0].replace(r#""queued_count":0"#, r#""queued_count":0,"x":1"#);
    assert_eq!(
        reason_and_path(&extra, Some(REQ), Some(KEEPER)).0,
        "unknown_field"
    );
    let mut state = happy();
    state[0] = state[0].replace("Queued", "Pending");
    assert_eq!(
        reason_and_path(&state, Some(REQ), Some(KEEPER)),
        ("unknown_variant".into(), ".events[0].value.state".into())
    );
    let mut details_extra = happy();
    details_extra[4] = details_extra[4].replace(r#""turn_ref""#, r#""y":2,"turn_ref""#);
    assert_eq!(
        reason_and_path(&details_extra, Some(REQ), Some(KEEPER)).0,
        "unknown_field"
    );
}

#[test]
fn order_rules_4_3() {
    let cases: Vec<(Vec<String>, &str, &str)> = vec![
        (happy()[1..].to_vec(), "missing_acceptance", ".events[0]"),
        (
            [vec![accepted("Queued")], happy()].concat(),
            "duplicate_acceptance",
            ".events[1]",
        ),
        (
            [vec![accepted("Queued")], happy()[2..].to_vec()].concat(),
            "missing_run_started",
            ".events[1]",
        ),
        (
            [happy()[..5].to_vec(), vec![details("again")]].concat(),
            "duplicate_reply_details",
            ".events[5]",
        ),
        (
            [happy(), vec![ev("RUN_FINISHED", "")]].concat(),
            "event_after_terminal",
            ".events[7]",
        ),
        (
            [happy(), vec![ev("RUN_ERROR", r#","message":"late""#)]].concat(),
            "event_after_terminal",
            ".events[7]",
        ),
        (
            [happy()[..2].to_vec(), vec![ev("RUN_STARTED", "")]].concat(),
            "duplicate_run_started",
            ".events[2]",
        ),
        (
            [happy()[..2].to_vec(), vec![ev("RUN_FINISHED", "")]].concat(),
            "missing_reply_details",
            ".events[2]",
        ),
        (
            [
                happy()[..2].to_vec(),
                vec![ev("content_delta", r#","delta":"x""#)],
            ]
            .concat(),
            "unknown_event_type",
            ".events[2].type",
        ),
        (
            [
                happy()[..2].to_vec(),
                vec![ev(
                    "TOOL_CALL_ARGS",
                    r#","toolCallId":"t","delta":"{}","snapshot":{}"#,
                )],
            ]
            .concat(),
            "malformed_event",
            ".events[2]",
        ),
        (
            [
                happy()[..2].to_vec(),
                vec![ev("TEXT_MESSAGE_CONTENT", r#","messageId":"m""#)],
            ]
            .concat(),
            "malformed_event",
            ".events[2].delta",
        ),
    ];
    for (events, reason, path) in cases {
        assert_eq!(
            reason_and_path(&events, Some(REQ), Some(KEEPER)),
            (reason.to_string(), path.to_string()),
            "{reason}"
        );
    }
}

#[test]
fn running_or_replayed_acceptance_needs_no_run_started_4_3() {
    let running = [vec![accepted("Running")], happy()[2..].to_vec()].concat();
    assert!(matches!(
        run(&sse(&running), Some(REQ), Some(KEEPER)).unwrap(),
        ChatStreamOutcome::Completed {
            replayed_from: None,
            ..
        }
    ));
    let replay = [vec![accepted("Succeeded")], happy()[2..].to_vec()].concat();
    assert!(matches!(
        run(&sse(&replay), Some(REQ), Some(KEEPER)).unwrap(),
        ChatStreamOutcome::Completed {
            replayed_from: Some(OperationState::Succeeded),
            ..
        }
    ));
    let cancelled = run(&sse(&[accepted("Cancelled")]), Some(REQ), Some(KEEPER)).unwrap();
    assert_eq!(cancelled.reject_reason(), Some("replayed_cancelled"));
}

#[test]
fn pre_acceptance_refusal_proves_not_applied_only_with_listed_codes_11() {
    let err = |code: &str| {
        format!(
            r#"{{"type":"RUN_ERROR","threadId":"keeper:{KEEPER}","timestamp":1.0,"message":"no","code":"{code}"}}"#
        )
    };
    for code in [
        "invalid_input",
        "owner_stopping",
        "unknown_operation",
        "not_queued",
    ] {
        let o = run(&sse(&[err(code)]), Some(REQ), Some(KEEPER)).unwrap();
        assert!(o.verified_not_applied(), "{code}");
        assert_eq!(o.reject_reason(), Some("run_failed_pre_acceptance"));
    }
    let other = run(&sse(&[err("provider_down")]), Some(REQ), Some(KEEPER)).unwrap();
    assert!(!other.verified_not_applied());
    assert!(matches!(
        other,
        ChatStreamOutcome::Failed {
            code: Some(RunErrorCode::Unlisted(_)),
            pre_acceptance: true,
            ..
        }
    ));
    // After the acceptance, even a listed code is a failed turn, not "not applied".
    let after = [
        happy()[..2].to_vec(),
        vec![ev("RUN_ERROR", r#","message":"x","code":"invalid_input""#)],
    ]
    .concat();
    let o = run(&sse(&after), Some(REQ), Some(KEEPER)).unwrap();
    assert!(!o.verified_not_applied());
    assert_eq!(o.reject_reason(), Some("run_failed"));
}

#[test]
fn truncated_stream_is_interrupted_and_partial_text_is_not_a_reply_4_3() {
    let cut = happy()[..4].to_vec();
    let o = run(&sse(&cut), Some(REQ), Some(KEEPER)).unwrap();
    assert_eq!(
        o,
        ChatStreamOutcome::Interrupted {
            accepted: true,
            partial_text_len: 3
        }
    );
    // A terminal event without its closing blank line was never dispatched.
    let mut bytes = sse(&happy()[..6]);
    bytes.extend_from_slice(format!("data: {}\n", ev("RUN_FINISHED", "")).as_bytes());
    assert!(matches!(
        run(&bytes, Some(REQ), Some(KEEPER)).unwrap(),
        ChatStreamOutcome::Interrupted { accepted: true, .. }
    ));
    assert_eq!(
        run(b"", Some(REQ), Some(KEEPER)).unwrap(),
        ChatStreamOutcome::Interrupted {
            accepted: false,
            partial_text_len: 0
        }
    );
}

#[test]
fn refusals_are_sticky() {
    let mut reader = ChatStreamReader::new(Some(REQ), Some(KEEPER));
    let first = reader.push(&sse(&happy()[1..2])).unwrap_err();
    let again = reader.push(&sse(&[accepted("Queued")])).unwrap_err();
    assert_eq!(first, again);
    assert_eq!(reader.finish().unwrap_err(), first);
}

#[test]
fn other_custom_names_are_ignored_in_any_order_4_3() {
    let events = [
        vec![accepted("Queued"), custom("KEEPER_CONNECTED", "null")],
        happy()[1..].to_vec(),
    ]
    .concat();
    let mut reader = ChatStreamReader::new(Some(REQ), Some(KEEPER));
    let out = reader.push(&sse(&events)).unwrap();
    assert_eq!(
        out[1],
        ChatStreamEvent::Ignored {
            name: "KEEPER_CONNECTED".into()
        }
    );
    assert!(reader.finish().is_ok());
}

#[test]
fn recorded_fixtures_with_their_request_identity() {
    let Some(dir) = fixtures_dir() else {
        println!("fixtures absent, skipping");
        return;
    };
    let read = |name: &str| std::fs::read(dir.join(name)).unwrap();
    let answer = |name: &str, req, keeper| ChatPostAnswer::from_recorded(&read(name), req, keeper);
    let all = answer(
        "keeper_chat_stream__all_nonterminal_custom_and_tool_events.sse",
        Some(REQ),
        Some(KEEPER),
    )
    .unwrap();
    let ChatPostAnswer::Stream(t) = all else {
        panic!("not a stream")
    };
    assert!(
        t.events
            .iter()
            .any(|e| matches!(e, ChatStreamEvent::ThinkingDelta { delta: None }))
    );
    assert!(
        t.events
            .iter()
            .any(|e| matches!(e, ChatStreamEvent::ToolResultReady))
    );
    assert!(t.events.iter().any(|e| matches!(e, ChatStreamEvent::ToolCallStart { tool_call_name, .. } if tool_call_name == "read")));
    // The fixture's own request id is not ours: its acceptance is refused as an echo mismatch.
    let e = answer(
        "keeper_chat_stream__all_nonterminal_custom_and_tool_events.sse",
        Some("tui-someone-else"),
        Some(KEEPER),
    )
    .unwrap_err();
    assert_eq!(e.reason(), "echo_mismatch");
    let partial = answer(
        "keeper_chat_stream__accepted_then_eof_partial_recorded.sse",
        Some("tui-01a0296c-f773-7000-91bf-1da939603dfc"),
        Some("alpha"),
    )
    .unwrap();
    let ChatPostAnswer::Stream(t) = partial else {
        panic!("not a stream")
    };
    assert_eq!(
        t.outcome,
        ChatStreamOutcome::Interrupted {
            accepted: true,
            partial_text_len: "partial-must-not-be-promoted".len()
        }
    );
    let refused = answer(
        "keeper_chat_stream__http403_pre_acceptance_recorded.json",
        None,
        None,
    )
    .unwrap();
    assert!(matches!(
        refused,
        ChatPostAnswer::Refused(PreStreamRefusal::Auth { .. })
    ));
    let not_sse = answer("keeper_chat_stream__bare_json_not_sse.sse", None, None).unwrap_err();
    assert_eq!(not_sse.reason(), "not_event_stream");
}

#[test]
fn invalid_utf8_line_refuses_the_stream_stickily() {
    let mut bytes = sse(&happy()[..2]);
    bytes.extend_from_slice(b"data: \xff\xfe\n\n");
    bytes.extend_from_slice(&sse(&happy()[2..]));
    let mut reader = ChatStreamReader::new(Some(REQ), Some(KEEPER));
    let e = reader.push(&bytes).unwrap_err();
    assert_eq!(
        (e.reason(), e.path.as_str()),
        ("malformed_event", ".events[2]")
    );
    assert_eq!(reader.finish().unwrap_err(), e);
}

fn frames(events: &[String]) -> Vec<masc_tui::protocol::sse::SseFrame> {
    events
        .iter()
        .map(|e| masc_tui::protocol::sse::SseFrame {
            id: None,
            event: None,
            data: e.clone(),
        })
        .collect()
}

/// §4.3 `since_seq`: a cut stream continues on a resumed one — the resumed
/// stream opens with its own acceptance (checked: default thread, the same operation id), the
/// turn's order is kept across both (a second `RUN_STARTED` is still a duplicate), and the
/// turn completes with the details' reply.
#[test]
fn s4_3_a_resumed_stream_continues_the_turn_after_its_own_acceptance() {
    use masc_tui::protocol::chat::{ChatStreamValidator, ResumeRefusal};
    let all = happy();
    let mut v = ChatStreamValidator::new(Some(REQ), Some(KEEPER));
    assert_eq!(
        v.resume(),
        Err(ResumeRefusal::NotAccepted),
        "nothing accepted yet"
    );
    for f in frames(&all[..4]) {
        v.push_frame(&f).unwrap();
    }
    assert!(matches!(
        v.finish().unwrap(),
        ChatStreamOutcome::Interrupted { accepted: true, .. }
    ));
    v.resume().unwrap();
    assert!(v.awaiting_resume_acceptance());
    let mut rest = vec![accepted("Running")];
    rest.extend_from_slice(&all[4..]);
    for f in frames(&rest) {
        v.push_frame(&f).unwrap();
    }
    assert_eq!(v.resumed_state(), Some(OperationState::Running));
    match v.finish().unwrap() {
        ChatStreamOutcome::Completed { reply, .. } => assert_eq!(reply.reply, "hello"),
        other => panic!("{other:?}"),
    }
    assert_eq!(v.resume(), Err(ResumeRefusal::Ended));

    // A resumed stream must open with its acceptance.
    let mut v = ChatStreamValidator::new(Some(REQ), Some(KEEPER));
    for f in frames(&all[..2]) {
        v.push_frame(&f).unwrap();
    }
    v.resume().unwrap();
    let e = v.push_frame(&frames(&all[2..3])[0]).unwrap_err();
    assert_eq!(e.reason(), "resume_without_acceptance");
    assert_eq!(v.resume(), Err(ResumeRefusal::Refused));

    // The order is kept across the resume: RUN_STARTED once.
    let mut v = ChatStreamValidator::new(Some(REQ), Some(KEEPER));
    for f in frames(&all[..2]) {
        v.push_frame(&f).unwrap();
    }
    v.resume().unwrap();
    v.push_frame(&frames(&[accepted("Running")])[0]).unwrap();
    let e = v.push_frame(&frames(&all[1..2])[0]).unwrap_err();
    assert_eq!(e.reason(), "duplicate_run_started");
}

/// §14.15: a newer MASC's acceptance carries the closed `interactive` block
/// (read; its outcome named), an older one lacks it (read as none); an unknown key inside the
/// block is refused; an unknown outcome is kept as "control effect unknown".
#[test]
fn s14_15_the_acceptance_interactive_block_is_read_tolerantly() {
    use masc_tui::protocol::chat::InteractiveKind;
    let with = |block: &str| {
        format!(
            r#"{{"type":"CUSTOM","threadId":"default","timestamp":1.0,"name":"KEEPER_CHAT_OPERATION_ACCEPTED","value":{{"operation_id":"{REQ}","state":"Queued","queued_count":1,"interactive":{block}}}}}"#
        )
    };
    let first = |data: String| {
        let mut reader = ChatStreamReader::new(Some(REQ), Some(KEEPER));
        reader.push(&sse(&[data])).map(|mut e| e.remove(0))
    };
    let applied = first(with(
        r#"{"outcome":"applied","chat_control_token":"control-alpha-3","signalled":false,"resumed":true,"interrupt_error":null}"#,
    ))
    .unwrap();
    let ChatStreamEvent::Accepted {
        interactive: Some(block),
        ..
    } = applied
    else {
        panic!("{applied:?}");
    };
    assert_eq!(block.outcome.kind(), InteractiveKind::Applied);
    assert_eq!(block.chat_control_token, "control-alpha-3");
    assert!(block.resumed && !block.signalled);
    let older = first(accepted("Queued")).unwrap();
    assert!(matches!(
        older,
        ChatStreamEvent::Accepted {
            interactive: None,
            ..
        }
    ));
    for (outcome, kind) in [
        ("stale_control", InteractiveKind::StaleControl),
        ("paused", InteractiveKind::Paused),
        ("replayed", InteractiveKind::Replayed),
        ("something_new", InteractiveKind::Unknown),
    ] {
        let e = first(with(&format!(
            r#"{{"outcome":"{outcome}","chat_control_token":"t","signalled":false,"resumed":false}}"#
        )))
        .unwrap();
        let ChatStreamEvent::Accepted {
            interactive: Some(block),
            ..
        } = e
        else {
            panic!("{e:?}");
        };
        assert_eq!(block.outcome.kind(), kind, "{outcome}");
    }
    let refused = first(with(
        r#"{"outcome":"applied","chat_control_token":"t","signalled":false,"resumed":false,"extra":1}"#,
    ))
    .unwrap_err();
    assert_eq!(refused.path, ".events[0].value.interactive.extra");
}
