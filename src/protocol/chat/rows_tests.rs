use super::*;
use serde_json::json;

fn row(v: Value) -> ChatHistoryRow {
    decode_row(&v).unwrap()
}

/// §15.9: a `system` Gate step keeps its approval, phase, tool and call summary; its
/// delivery pair is the approval key and an approval slot.
#[test]
fn s15_9_a_system_gate_row_decodes_with_its_lifecycle() {
    let r = row(json!({
        "id": "g1", "role": "system", "content": "", "ts": 4.0,
        "delivery_key": {"kind": "approval_lifecycle", "approval_id": "appr_01"},
        "transcript_slot": {"kind": "approval_request"},
        "approval_lifecycle": {"approval_id": "appr_01", "phase": "requested",
            "tool_name": "Execute", "call_summary": "git reflog | head -30",
            "artifact_ref": {"kind": "x"}}
    }));
    assert_eq!(r.role, ChatRole::System);
    let step = r.gate_step().unwrap();
    assert_eq!(step.approval_id.as_deref(), Some("appr_01"));
    assert_eq!(step.phase, ApprovalPhase::Requested);
    assert_eq!(step.tool_name.as_deref(), Some("Execute"));
    assert_eq!(step.call_summary.as_deref(), Some("git reflog | head -30"));
    assert_eq!(
        r.identity.pair().map(|p| &p.slot),
        Some(&TranscriptSlot::ApprovalRequest)
    );
    assert_eq!(r.identity.operation_id(), None);
}

/// MASC's TUI test `test_a_lifecycle_without_an_approval_id_is_not_a_gate_row`: no id, no
/// Gate step (the row is a neutral system row); an unknown phase is kept by its label.
#[test]
fn s15_9_a_lifecycle_without_approval_id_is_not_a_gate_step() {
    let r = row(
        json!({"id": "g", "role": "system", "content": "적용 완료", "ts": 1.0,
        "approval_lifecycle": {"phase": "replay_applied", "tool_name": "Execute"}}),
    );
    assert!(r.gate_step().is_none());
    assert_eq!(r.approval.unwrap().phase, ApprovalPhase::ReplayApplied);
    let r = row(
        json!({"id": "g", "role": "system", "content": "", "ts": 1.0,
        "approval_lifecycle": {"approval_id": "a", "phase": "sleeping"}}),
    );
    assert_eq!(r.gate_step().unwrap().phase.as_str(), "sleeping");
}

/// §15.9: an unknown role decodes (counted), `request_failure` is a failure, an unknown
/// `kind` is kept by label.
#[test]
fn s15_9_roles_are_open_and_counted() {
    let rows = [
        row(json!({"id": "1", "role": "wat", "content": "x", "ts": 1.0})),
        row(json!({"id": "2", "role": "request_failure", "content": "boom", "ts": 2.0})),
        row(
            json!({"id": "3", "role": "assistant", "kind": "transport_failure", "content": "boom", "ts": 3.0}),
        ),
        row(json!({"id": "4", "role": "assistant", "kind": "summary", "content": "s", "ts": 4.0})),
    ];
    assert_eq!(rows[0].role, ChatRole::Other("wat".into()));
    assert!(rows[1].is_request_failure() && rows[2].is_request_failure());
    assert!(!rows[3].is_request_failure());
    let c = RowCounts::of(&rows, &[]);
    assert_eq!((c.unknown_role, c.unknown_kind, c.dropped), (1, 1, 0));
}

/// §15.9 fault "delivery_key without transcript_slot": the row stays, the pair is ignored and
/// counted; so is a pair whose key kind is unknown. An unknown slot label keeps the key.
#[test]
fn s15_9_an_unpaired_or_unreadable_identity_keeps_the_row() {
    let unpaired = row(
        json!({"id": "u", "role": "user", "content": "hi", "ts": 1.0,
        "delivery_key": {"kind": "operation", "operation_id": "tui-1"}}),
    );
    assert_eq!(
        unpaired.identity,
        RowIdentity::Ignored(IdentityIssue::Unpaired)
    );
    assert_eq!(unpaired.content, "hi");
    let unreadable = row(
        json!({"id": "u", "role": "user", "content": "hi", "ts": 1.0,
        "delivery_key": {"kind": "carrier_pigeon", "id": "x"},
        "transcript_slot": {"kind": "accepted_user"}}),
    );
    assert!(matches!(
        unreadable.identity,
        RowIdentity::Ignored(IdentityIssue::Unreadable(_))
    ));
    let newest_slot = row(
        json!({"id": "f", "role": "system", "kind": "transport_failure",
        "content": "the wire dropped", "ts": 1.0,
        "delivery_key": {"kind": "operation", "operation_id": "tui-turn-42"},
        "transcript_slot": {"kind": "failure"}}),
    );
    assert_eq!(newest_slot.identity.operation_id(), Some("tui-turn-42"));
    assert_eq!(
        RowCounts::of(&[unpaired, unreadable, newest_slot], &[]).identity_ignored,
        2
    );
}

/// §15.9: a tool row's `execution_id` and the tool slot decode; a tool row without a name and
/// things that are not rows are dropped and counted (MASC TUI
/// `test_one_unreadable_row_does_not_cost_the_transcript`).
#[test]
fn s15_9_unreadable_rows_are_dropped_and_counted() {
    let values = vec![
        json!({"id": "1", "role": "user", "content": "kept", "ts": 1.0}),
        json!({"role": "wat", "content": "no id"}),
        json!("not even an object"),
        json!({"id": "2", "role": "tool", "content": "{}", "ts": 2.0}),
        json!({"id": "3", "role": "tool", "content": "{}", "ts": 2.5, "tool_call_name": "Read",
            "execution_id": "exec-1",
            "delivery_key": {"kind": "operation", "operation_id": "tui-1"},
            "transcript_slot": {"kind": "tool_call", "execution_id": "exec-1", "ordinal": 0}}),
        json!({"id": "4", "role": "assistant", "content": 7, "ts": 3.0}),
    ];
    let (rows, dropped) = decode_rows(&values, ".messages");
    assert_eq!(
        rows.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
        ["1", "3"]
    );
    assert_eq!(
        dropped.iter().map(|d| d.index).collect::<Vec<_>>(),
        [1, 2, 3, 5]
    );
    assert_eq!(dropped[0].error.path, ".messages[1].id");
    assert_eq!(dropped[2].error.path, ".messages[3].tool_call_name");
    assert_eq!(rows[1].execution_id.as_deref(), Some("exec-1"));
    assert_eq!(
        rows[1].identity.pair().map(|p| p.slot.clone()),
        Some(TranscriptSlot::ToolCall {
            execution_id: "exec-1".into(),
            ordinal: 0
        })
    );
}

/// §15.9 autonomous rows: `content: null` reads as empty; the trace block is read (withheld
/// thinking, tool status, unknown step kinds counted as omitted); a direct row's trace block is
/// not read (its calls are its tool rows).
#[test]
fn s15_9_an_autonomous_row_keeps_its_trace() {
    let r = row(
        json!({"id": "autonomous:trace-1#54", "role": "assistant", "content": null,
        "ts": 5.0, "autonomous_turn": {"turn_id": "trace-1#54"}, "turn_ref": "trace-1#54",
        "blocks": [{"t": "trace", "omitted": 2, "trace": [
            {"kind": "think", "text": "", "content_withheld": true},
            {"kind": "tool", "name": "masc_task_history", "status": "ok", "dur": "32ms",
             "execution_id": "x1", "args": {"a": 1}},
            {"kind": "tool", "name": "tool_execute", "status": "err"},
            {"kind": "tool", "name": "claim", "status": "pending"},
            {"kind": "tool", "name": "read_file"},
            {"kind": "dream", "text": "?"}
        ]}]}),
    );
    assert_eq!(r.content, "");
    assert_eq!(r.autonomous.as_ref().unwrap().turn_id, "trace-1#54");
    let trace = r.trace.unwrap();
    assert_eq!(
        trace.omitted, 3,
        "2 left out by the server + 1 unknown kind"
    );
    assert_eq!(trace.steps.len(), 5);
    assert!(matches!(
        &trace.steps[0],
        TraceStep::Think { withheld: true, .. }
    ));
    let statuses: Vec<Option<TraceToolStatus>> = trace
        .steps
        .iter()
        .filter_map(|s| match s {
            TraceStep::Tool { status, .. } => Some(*status),
            _ => None,
        })
        .collect();
    assert_eq!(
        statuses,
        [
            Some(TraceToolStatus::Ok),
            Some(TraceToolStatus::Err),
            Some(TraceToolStatus::Pending),
            None
        ]
    );
    let direct = row(
        json!({"id": "d", "role": "assistant", "content": "done", "ts": 1.0,
        "blocks": [{"t": "trace", "trace": [{"kind": "tool", "name": "Read"}]}]}),
    );
    assert!(direct.trace.is_none());
}

/// MASC TUI `test_an_addressed_row_is_labelled_by_who_sent_it`: the speaker fields and the
/// surface (a blank channel name falls back to the id; an unknown surface kind is none).
#[test]
fn s15_9_speaker_and_surface_decode() {
    let r = row(
        json!({"id": "u", "role": "user", "content": "hi", "ts": 1.0,
        "speaker_id": "U09", "speaker_name": "vincent", "speaker_authority": "external",
        "surface": {"kind": "slack", "channel_id": "C09TK9L4DV4", "channel_name": "  "}}),
    );
    let s = r.speaker.unwrap();
    assert_eq!(s.name.as_deref(), Some("vincent"));
    assert_eq!(s.authority, Some(SpeakerAuthority::External));
    assert_eq!(
        r.surface,
        Some(Surface::Slack {
            channel: Some(Channel::Id("C09TK9L4DV4".into()))
        })
    );
    let r = row(
        json!({"id": "u", "role": "user", "content": "hi", "ts": 1.0,
        "speaker_authority": "something_new", "surface": {"kind": "telepathy"}}),
    );
    assert_eq!(
        r.speaker.unwrap().authority,
        Some(SpeakerAuthority::Other("something_new".into()))
    );
    assert_eq!(r.surface, None);
    let no_ts = row(json!({"id": "n", "role": "user", "content": "no ts here"}));
    assert_eq!(no_ts.ts, None);
}
