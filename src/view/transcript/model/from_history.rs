//! Transcript rows (§4.5, §15.9) to entries: who spoke, what kind of row it is, and the exact
//! identities it carries. How MASC's TUI draws each row kind (§15.9 table) decides the kind;
//! where masc-tui differs it says why.
//!
//! - `user`: the operator only when the store says so (`speaker_authority: owner` without
//!   another name) or records no speaker at all (older stores and this console's embedded
//!   server write none); a named speaker is an inbound sender with the surface it came in on;
//!   an author the store could not name is its id's tail or `someone` — never the operator.
//! - `assistant`: Keeper speech; `kind: transport_failure` (and the newest `request_failure`
//!   role) a failure; an autonomous row a turn the Keeper ran on its own — reasoning, then its
//!   tool steps, then its text, all labelled `AUTO` and never a reply to the operator.
//! - `tool`: the executed call with its arguments (received, not judged: C-49).
//! - `system`: a Gate step when it names its approval, else the neutral lane.
//! - any other role or `kind`: the neutral lane, text whole (counted on the page).
//!
//! A row delivered under an operation key carries that request id (C-17, C-31: the exact
//! join to this console's send).

use super::{
    CallState, Entry, EntryKind, FailureOrigin, GateRecord, InboundSender, Speaker, ToolCall,
};
use crate::protocol::chat::rows::{
    Channel, ChatHistoryRow, ChatRole, ChatRowKind, RowSpeaker, SpeakerAuthority, Surface,
    TraceStep, TraceToolStatus,
};
use compact_str::CompactString;
use std::sync::Arc;

/// The entries one row becomes (one, except an autonomous row with a trace).
pub fn entries_of_row(row: &ChatHistoryRow, keeper: &Arc<str>) -> Vec<Entry> {
    if row.autonomous.is_some() && row.role == ChatRole::Assistant {
        return autonomous_entries(row, keeper);
    }
    let (speaker, kind) = speaker_and_kind(row, keeper);
    let text = match kind {
        EntryKind::ToolCall(_) => String::new(),
        EntryKind::Gate(ref g) => g.words(),
        _ => row.content.clone(),
    };
    let id = match &kind {
        EntryKind::Gate(g) => GateRecord::entry_id(&g.approval_id),
        _ => row.id.clone(),
    };
    vec![stamped(Entry::new(id, speaker, kind, text), row)]
}

/// ts, turn and the exact request id of the row.
fn stamped(mut entry: Entry, row: &ChatHistoryRow) -> Entry {
    entry.ts = row.ts;
    entry.turn_ref = row
        .turn_ref
        .as_deref()
        .or(row.autonomous.as_ref().map(|a| a.turn_id.as_str()))
        .filter(|t| !t.is_empty())
        .map(Arc::from);
    if let Some(op) = row.identity.operation_id() {
        entry.origin.request_id = Some(Arc::from(op));
    }
    entry
}

fn keeper_speaker(keeper: &Arc<str>) -> Speaker {
    Speaker::Keeper {
        name: Arc::clone(keeper),
        owner: true,
    }
}

fn speaker_and_kind(row: &ChatHistoryRow, keeper: &Arc<str>) -> (Speaker, EntryKind) {
    if row.is_request_failure() {
        return (
            Speaker::System,
            EntryKind::Failure(FailureOrigin::Transport),
        );
    }
    if matches!(row.kind, Some(ChatRowKind::Other(_))) {
        return (Speaker::System, EntryKind::Journal);
    }
    match &row.role {
        ChatRole::User => (user_speaker(row), EntryKind::Utterance),
        ChatRole::Assistant => (keeper_speaker(keeper), EntryKind::Utterance),
        // The executed call with its accumulated arguments (MASC `keeper_chat_store.ml`:
        // `content` = the call's arguments, never its result): the same `ToolCall` the live
        // stream builds (C-50); the result text is not persisted: received, not judged (C-49).
        ChatRole::Tool => (
            Speaker::Tool,
            EntryKind::ToolCall(Box::new(ToolCall {
                call_id: row.tool_call_id.as_deref().map(CompactString::from),
                name: row.tool_call_name.as_deref().unwrap_or_default().into(),
                state: CallState::ResultReceived,
                args: (!row.content.trim().is_empty()).then(|| row.content.clone()),
                duration_ms: None,
                turn_stopped: None,
            })),
        ),
        ChatRole::System => match row
            .gate_step()
            .and_then(|step| GateRecord::of_step(&row.id, step))
        {
            Some(gate) => (Speaker::System, EntryKind::Gate(Box::new(gate))),
            None => (Speaker::System, EntryKind::Journal),
        },
        ChatRole::RequestFailure => (
            Speaker::System,
            EntryKind::Failure(FailureOrigin::Transport),
        ),
        ChatRole::Other(_) => (Speaker::System, EntryKind::Journal),
    }
}

/// Who wrote a user row (MASC TUI `parse_row`, user arm).
fn user_speaker(row: &ChatHistoryRow) -> Speaker {
    let source = row.surface.as_ref().and_then(surface_label);
    let Some(s) = &row.speaker else {
        // No speaker recorded: this console's own sends on older stores.
        return Speaker::Operator;
    };
    let named = s
        .name
        .as_deref()
        .map(str::trim)
        .filter(|n| !n.is_empty() && Some(*n) != s.id.as_deref());
    match (named, &s.authority) {
        (Some(name), _) => inbound(name.to_string(), source),
        (None, Some(SpeakerAuthority::Owner)) => Speaker::Operator,
        (None, _) => inbound(unresolved(s), source),
    }
}

fn inbound(sender: String, source: Option<String>) -> Speaker {
    Speaker::Inbound(Box::new(InboundSender { sender, source }))
}

/// An author the store could not name: its id's tail (two unnamed authors stay two), or
/// `someone`.
fn unresolved(s: &RowSpeaker) -> String {
    s.id.as_deref()
        .map(str::trim)
        .filter(|id| !id.is_empty())
        .map(short_reference)
        .unwrap_or_else(|| "someone".into())
}

/// A reference cut to its tail: Discord ids share long prefixes, the tail tells them apart.
fn short_reference(reference: &str) -> String {
    const TAIL: usize = 8;
    let chars: Vec<char> = reference.chars().collect();
    if chars.len() <= TAIL {
        reference.to_string()
    } else {
        let tail: String = chars[chars.len() - TAIL..].iter().collect();
        format!("…{tail}")
    }
}

/// Where a row came in, as its label says (the dashboard says nothing: it is the operator's
/// own surface).
fn surface_label(surface: &Surface) -> Option<String> {
    let connector = |name: &str, channel: &Option<Channel>| match channel {
        None => name.to_string(),
        Some(Channel::Name(room)) => format!("{name} #{room}"),
        Some(Channel::Id(id)) => format!("{name} {}", short_reference(id.trim())),
    };
    Some(match surface {
        Surface::Dashboard => return None,
        Surface::Agent => "agent".into(),
        Surface::Broadcast => "broadcast".into(),
        Surface::Slack { channel } => connector("slack", channel),
        Surface::Discord { channel } => connector("discord", channel),
        Surface::Webhook { source } => source.clone(),
        Surface::Gate { label } => label.clone(),
    })
}

/// `"32ms"`, `"1200ms"`, `"2s"` as milliseconds; anything else is not a duration.
fn duration_ms(dur: &str) -> Option<u64> {
    let dur = dur.trim();
    if let Some(ms) = dur.strip_suffix("ms") {
        return ms.trim().parse().ok();
    }
    dur.strip_suffix('s')
        .and_then(|s| s.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(|s| (s * 1000.0).round() as u64)
}

fn plural(n: u64, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// An autonomous row (§15.9): one reasoning entry (withheld steps counted), its tool steps
/// (one block: consecutive calls of one turn), the count of steps the transcript does not
/// carry, then its text. A row with none of these keeps one status line: a turn happened.
fn autonomous_entries(row: &ChatHistoryRow, keeper: &Arc<str>) -> Vec<Entry> {
    let me = || Speaker::Autonomous {
        name: Arc::clone(keeper),
    };
    let mut out = Vec::new();
    let mut reasoning: Vec<&str> = Vec::new();
    let mut withheld = 0u64;
    let mut tools: Vec<ToolCall> = Vec::new();
    let trace = row.trace.clone().unwrap_or_default();
    for step in &trace.steps {
        match step {
            TraceStep::Think { withheld: true, .. } => withheld += 1,
            TraceStep::Think { text, .. } => {
                reasoning.extend(text.lines().filter(|l| !l.trim().is_empty()));
            }
            TraceStep::Reason { text, detail } => {
                reasoning.extend(
                    text.lines()
                        .chain(detail.as_deref().unwrap_or_default().lines())
                        .filter(|l| !l.trim().is_empty()),
                );
            }
            TraceStep::Tool {
                name,
                tool_call_id,
                status,
                dur,
                args,
                ..
            } => tools.push(ToolCall {
                call_id: tool_call_id.as_deref().map(CompactString::from),
                name: name.as_str().into(),
                state: match status {
                    Some(TraceToolStatus::Ok) => CallState::Succeeded,
                    Some(TraceToolStatus::Err) => CallState::Failed,
                    // Started, never seen to finish.
                    Some(TraceToolStatus::Pending) => CallState::NotSeen,
                    None => CallState::Unrecorded,
                },
                args: args.clone(),
                duration_ms: dur.as_deref().and_then(duration_ms),
                turn_stopped: None,
            }),
        }
    }
    let mut thinking = reasoning.join("\n");
    if withheld > 0 {
        if !thinking.is_empty() {
            thinking.push('\n');
        }
        thinking.push_str(&format!(
            "({} · text not recorded)",
            plural(withheld, "reasoning step")
        ));
    }
    if !thinking.is_empty() {
        out.push(stamped(
            Entry::new(
                format!("{}:thinking", row.id),
                me(),
                EntryKind::Thinking,
                thinking,
            ),
            row,
        ));
    }
    for (i, call) in tools.into_iter().enumerate() {
        out.push(stamped(
            Entry::new(
                format!("{}:tool:{i}", row.id),
                Speaker::Tool,
                EntryKind::ToolCall(Box::new(call)),
                "",
            ),
            row,
        ));
    }
    if trace.omitted > 0 {
        out.push(stamped(
            Entry::new(
                format!("{}:omitted", row.id),
                Speaker::System,
                EntryKind::Status,
                format!(
                    "({} not carried by the transcript)",
                    plural(trace.omitted, "step")
                ),
            ),
            row,
        ));
    }
    if !row.content.trim().is_empty() {
        out.push(stamped(
            Entry::new(
                row.id.as_str(),
                me(),
                EntryKind::Utterance,
                row.content.clone(),
            ),
            row,
        ));
    } else if out.is_empty() {
        out.push(stamped(
            Entry::new(
                row.id.as_str(),
                Speaker::System,
                EntryKind::Status,
                "autonomous turn · no text or steps recorded",
            ),
            row,
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::chat::rows::decode_row;
    use serde_json::json;

    fn entries(v: serde_json::Value) -> Vec<Entry> {
        entries_of_row(&decode_row(&v).unwrap(), &Arc::from("alpha"))
    }

    fn sender(e: &Entry) -> String {
        match &e.speaker {
            Speaker::Operator => "you".into(),
            Speaker::Inbound(i) => match &i.source {
                Some(s) => format!("{} · {s}", i.sender),
                None => i.sender.clone(),
            },
            other => format!("{other:?}"),
        }
    }

    /// §15.9 user rows (MASC TUI `test_an_addressed_row_is_labelled_by_who_sent_it`).
    #[test]
    fn s15_9_a_user_row_is_the_operator_only_when_the_store_says_so() {
        let user = |extra: serde_json::Value| {
            let mut v = json!({"id": "u", "role": "user", "content": "hi", "ts": 1.0});
            if let (Some(o), Some(e)) = (v.as_object_mut(), extra.as_object()) {
                o.extend(e.clone());
            }
            sender(&entries(v)[0])
        };
        assert_eq!(user(json!({})), "you");
        assert_eq!(user(json!({"speaker_authority": "owner"})), "you");
        assert_eq!(user(json!({"speaker_authority": "external"})), "someone");
        assert_eq!(
            user(json!({"speaker_authority": "something_new"})),
            "someone"
        );
        assert_eq!(
            user(
                json!({"speaker_authority": "external", "speaker_id": "U09L0RHPW7P",
                "speaker_name": "U09L0RHPW7P",
                "surface": {"kind": "slack", "channel_id": "C1"}})
            ),
            "…L0RHPW7P · slack C1"
        );
        assert_eq!(
            user(
                json!({"speaker_name": "codex", "speaker_authority": "external",
                "surface": {"kind": "broadcast"}})
            ),
            "codex · broadcast"
        );
        assert_eq!(
            user(
                json!({"speaker_name": "vincent", "speaker_authority": "external",
                "surface": {"kind": "slack", "channel_id": "C09", "channel_name": "kinossam-dev"}})
            ),
            "vincent · slack #kinossam-dev"
        );
        assert_eq!(
            user(json!({"speaker_name": "vincent", "surface": {"kind": "dashboard"}})),
            "vincent"
        );
    }

    /// §15.9: a failure row keyed to an operation carries its request id; a `system` Gate
    /// step folds under its approval id; a neutral system row and an unknown role are the
    /// neutral lane, text whole.
    #[test]
    fn s15_9_rows_land_where_the_table_says() {
        let failed = entries(
            json!({"id": "f", "role": "assistant", "kind": "transport_failure",
            "content": "provider closed", "ts": 2.0,
            "delivery_key": {"kind": "operation", "operation_id": "tui-28e"},
            "transcript_slot": {"kind": "terminal_assistant"}}),
        );
        assert!(matches!(
            failed[0].kind,
            EntryKind::Failure(FailureOrigin::Transport)
        ));
        assert_eq!(failed[0].origin.request_id.as_deref(), Some("tui-28e"));
        let newest =
            entries(json!({"id": "f2", "role": "request_failure", "content": "x", "ts": 2.0}));
        assert!(matches!(newest[0].kind, EntryKind::Failure(_)));
        let gate = entries(
            json!({"id": "g", "role": "system", "content": "", "ts": 3.0,
            "approval_lifecycle": {"approval_id": "appr_1", "phase": "requested", "tool_name": "Execute"}}),
        );
        assert_eq!(gate[0].id, "gate:appr_1");
        assert_eq!(gate[0].text, "승인 대기 · Execute");
        for v in [
            json!({"id": "s", "role": "system", "content": "memory note\nline 2", "ts": 3.0}),
            json!({"id": "w", "role": "wat", "content": "odd", "ts": 3.0}),
            json!({"id": "k", "role": "assistant", "kind": "summary", "content": "odd", "ts": 3.0}),
        ] {
            let e = entries(v);
            assert_eq!(e[0].kind, EntryKind::Journal);
            assert!(!e[0].text.is_empty());
        }
    }

    /// §15.9 autonomous rows (MASC TUI `test_an_autonomous_turn_draws_what_it_did`): reasoning
    /// (withheld counted), the tool steps with their states, the omitted count, then the text;
    /// `AUTO`, never the Keeper's reply to the operator.
    #[test]
    fn s15_9_an_autonomous_turn_draws_what_it_did() {
        let e = entries(
            json!({"id": "autonomous:t#54", "role": "assistant", "content": "done",
            "ts": 5.0, "autonomous_turn": {"turn_id": "t#54"},
            "blocks": [{"t": "trace", "omitted": 3, "trace": [
                {"kind": "think", "text": "", "content_withheld": true},
                {"kind": "tool", "name": "masc_task_history", "status": "ok", "dur": "32ms"},
                {"kind": "think", "text": "", "content_withheld": true},
                {"kind": "tool", "name": "tool_execute", "status": "err", "dur": "1.2s"},
                {"kind": "tool", "name": "claim", "status": "pending"},
                {"kind": "tool", "name": "read_file"}]}]}),
        );
        let ids: Vec<&str> = e.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "autonomous:t#54:thinking",
                "autonomous:t#54:tool:0",
                "autonomous:t#54:tool:1",
                "autonomous:t#54:tool:2",
                "autonomous:t#54:tool:3",
                "autonomous:t#54:omitted",
                "autonomous:t#54"
            ]
        );
        assert_eq!(e[0].text, "(2 reasoning steps · text not recorded)");
        let states: Vec<(CallState, Option<u64>)> = e[1..5]
            .iter()
            .map(|e| match &e.kind {
                EntryKind::ToolCall(c) => (c.state, c.duration_ms),
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(
            states,
            [
                (CallState::Succeeded, Some(32)),
                (CallState::Failed, Some(1200)),
                (CallState::NotSeen, None),
                (CallState::Unrecorded, None)
            ]
        );
        assert_eq!(e[5].text, "(3 steps not carried by the transcript)");
        assert!(matches!(e[6].speaker, Speaker::Autonomous { .. }));
        assert!(e.iter().all(|e| e.turn_ref.as_deref() == Some("t#54")));
        let blank = entries(
            json!({"id": "autonomous:t#55", "role": "assistant", "content": null,
            "ts": 6.0, "autonomous_turn": {"turn_id": "t#55"}}),
        );
        assert_eq!(blank.len(), 1);
        assert_eq!(blank[0].kind, EntryKind::Status);
    }
}
