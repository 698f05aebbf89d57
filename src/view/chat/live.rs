//! Chat stream events (protocol.md §4.3) into transcript entries, one live turn at a time.
//!
//! Live and settled blocks go through the same projection (C-50): this only writes entries.
//! The group key of a live turn is the full request id (C-17); the Keeper's `turn_ref`
//! replaces it when the reply details name it.

use super::model::{CallState, Entry, EntryKind, FailureOrigin, Speaker, ToolCall, Transcript};
use crate::protocol::chat::{ChatStreamEvent, ToolCallArgs};

/// Assembles the entries of one streamed turn.
#[derive(Debug, Clone)]
pub struct LiveTurn {
    request_id: String,
    keeper: String,
    /// Entry ids created by this turn, in order.
    created: Vec<String>,
    thinking: Option<String>,
    /// Tool entry ids by their wire call id (or position when the wire gave none).
    calls: Vec<(Option<String>, String)>,
    text_seen: bool,
    seq: u32,
}

impl LiveTurn {
    pub fn new(request_id: impl Into<String>, keeper: impl Into<String>) -> Self {
        Self {
            request_id: request_id.into(),
            keeper: keeper.into(),
            created: Vec::new(),
            thinking: None,
            calls: Vec::new(),
            text_seen: false,
            seq: 0,
        }
    }

    pub fn request_id(&self) -> &str {
        &self.request_id
    }

    fn next_id(&mut self, what: &str) -> String {
        self.seq += 1;
        format!("{}:{what}:{}", self.request_id, self.seq)
    }

    fn insert(&mut self, transcript: &mut Transcript, entry: Entry, ts: f64) -> String {
        let id = entry.id.clone();
        let entry = entry
            .with_ts(ts)
            .with_turn(self.request_id.clone())
            .with_request(self.request_id.clone());
        transcript.upsert(entry);
        self.created.push(id.clone());
        id
    }

    fn call_entry(&self, call_id: &Option<String>) -> Option<String> {
        match call_id {
            Some(_) => self
                .calls
                .iter()
                .find(|(wire, _)| wire == call_id)
                .map(|(_, id)| id.clone()),
            None => self.calls.last().map(|(_, id)| id.clone()),
        }
    }

    fn keeper(&self) -> Speaker {
        Speaker::Keeper {
            name: self.keeper.clone(),
            owner: true,
        }
    }

    /// Applies one validated event; `ts` is the receive time (unix seconds).
    pub fn apply(&mut self, transcript: &mut Transcript, event: &ChatStreamEvent, ts: f64) {
        match event {
            ChatStreamEvent::ThinkingDelta { delta: Some(delta) } => {
                let id = match &self.thinking {
                    Some(id) => id.clone(),
                    None => {
                        let id = self.next_id("thinking");
                        let entry = Entry::new(id, self.keeper(), EntryKind::Thinking, "");
                        let id = self.insert(transcript, entry, ts);
                        self.thinking = Some(id.clone());
                        id
                    }
                };
                transcript.update(&id, |e| e.text.push_str(delta));
            }
            ChatStreamEvent::TextStart { message_id } => {
                self.thinking = None;
                self.text_seen = true;
                if transcript.get(message_id).is_none() {
                    let entry =
                        Entry::new(message_id.clone(), self.keeper(), EntryKind::Utterance, "");
                    self.insert(transcript, entry, ts);
                }
            }
            ChatStreamEvent::TextDelta { message_id, delta } => {
                transcript.update(message_id, |e| e.text.push_str(delta));
            }
            ChatStreamEvent::TextEnd { message_id } => {
                transcript.update(message_id, Entry::refresh_reports);
            }
            ChatStreamEvent::ToolCallStart {
                tool_call_id,
                tool_call_name,
            } => {
                self.thinking = None;
                let id = self.next_id("tool");
                let call = ToolCall {
                    call_id: tool_call_id.clone(),
                    name: tool_call_name.clone(),
                    state: CallState::ArgsStreaming,
                    args: None,
                    duration_ms: None,
                };
                let entry = Entry::new(id, Speaker::Tool, EntryKind::ToolCall(call), "");
                let id = self.insert(transcript, entry, ts);
                self.calls.push((tool_call_id.clone(), id));
            }
            ChatStreamEvent::ToolCallArgs { tool_call_id, args } => {
                if let Some(id) = self.call_entry(tool_call_id) {
                    transcript.update(&id, |e| {
                        if let EntryKind::ToolCall(call) = &mut e.kind {
                            match args {
                                ToolCallArgs::Delta(d) => {
                                    call.args.get_or_insert_with(String::new).push_str(d)
                                }
                                ToolCallArgs::Snapshot(v) => call.args = Some(v.to_string()),
                            }
                        }
                    });
                }
            }
            ChatStreamEvent::ToolCallEnd { tool_call_id } => {
                if let Some(id) = self.call_entry(tool_call_id) {
                    set_call_state(transcript, &id, |s| {
                        (s == CallState::ArgsStreaming).then_some(CallState::AwaitingResult)
                    });
                }
            }
            ChatStreamEvent::ToolResultReady => {
                // The event names no call: the oldest call still waiting takes it.
                let waiting = self
                    .calls
                    .iter()
                    .find(|(_, id)| call_state(transcript, id) == Some(CallState::AwaitingResult));
                if let Some((_, id)) = waiting.cloned() {
                    set_call_state(transcript, &id, |_| Some(CallState::ResultReceived));
                }
            }
            ChatStreamEvent::ReplyDetails(details) => {
                if !self.text_seen && !details.reply.is_empty() {
                    let id = format!("{}:reply", self.request_id);
                    let entry = Entry::new(
                        id,
                        self.keeper(),
                        EntryKind::Utterance,
                        details.reply.clone(),
                    );
                    self.insert(transcript, entry, ts);
                }
                for id in &self.created {
                    transcript.update(id, |e| e.turn_ref = Some(details.turn_ref.clone()));
                }
            }
            ChatStreamEvent::RunError { message, code } => {
                let id = format!("{}:error", self.request_id);
                let origin = FailureOrigin::Run {
                    code: code.as_ref().map(|c| c.as_str().to_string()),
                };
                let entry = Entry::new(
                    id,
                    Speaker::System,
                    EntryKind::Failure(origin),
                    message.clone(),
                );
                self.insert(transcript, entry, ts);
                self.close_calls(transcript);
            }
            ChatStreamEvent::RunFinished => self.close_calls(transcript),
            ChatStreamEvent::Accepted { .. }
            | ChatStreamEvent::RunStarted
            | ChatStreamEvent::ThinkingDelta { delta: None }
            | ChatStreamEvent::Ignored { .. } => {}
        }
    }

    /// At the end of the run a call still without a result was never seen returning.
    fn close_calls(&self, transcript: &mut Transcript) {
        for (_, id) in &self.calls {
            set_call_state(transcript, id, |s| {
                matches!(s, CallState::ArgsStreaming | CallState::AwaitingResult)
                    .then_some(CallState::NotSeen)
            });
        }
    }
}

fn call_state(transcript: &Transcript, id: &str) -> Option<CallState> {
    match &transcript.get(id)?.kind {
        EntryKind::ToolCall(call) => Some(call.state),
        _ => None,
    }
}

fn set_call_state(
    transcript: &mut Transcript,
    id: &str,
    next: impl FnOnce(CallState) -> Option<CallState>,
) {
    let Some(current) = call_state(transcript, id) else {
        return;
    };
    if let Some(state) = next(current) {
        transcript.update(id, |e| {
            if let EntryKind::ToolCall(call) = &mut e.kind {
                call.state = state;
            }
        });
    }
}
