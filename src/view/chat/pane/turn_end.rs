//! How a send's turn ended, on the rows it left (chat-screen.md C-8, C-31, C-44; protocol.md
//! §4.3, §4.4): a turn stopped or failed before its reply leaves tool rows in
//! the history that, read alone, look like any finished call. Every rebuild (a reload, a
//! reopen, a restart on the same outbox) marks them with the turn's end and puts back the
//! "interrupted" row of a stopped turn right after its rows, as the live stream drew them.
//!
//! What a row belongs to: its own request id (a newer store's delivery key; the live rows), or
//! a tool call id the send's stream announced (kept in the outbox as it arrived). How the turn
//! ended: the send this chat holds (its stream's end, or its §4.4 record), else the `ended`
//! mark the outbox kept.

use super::{ChatPane, SendPhase};
use crate::actors::chat::{Reconciliation, SendOutcome, marks};
use crate::protocol::chat::OperationState;
use crate::view::chat::control::is_cancellation_code;
use crate::view::transcript::{
    Entry, EntryKind, FailureOrigin, STOPPED_BEFORE_REPLY, Speaker, StoppedTurn,
};
use std::collections::HashMap;

impl ChatPane {
    /// How the turn of `request_id` ended, when it ended without its reply.
    fn stopped_turn(&self, request_id: &str) -> Option<StoppedTurn> {
        if let Some(send) = self.sends.get(request_id) {
            if let Some(Reconciliation::Found(r)) = &send.reconciliation
                && r.progress.state().is_terminal()
            {
                return match r.progress.state() {
                    OperationState::Succeeded => None,
                    _ if r.progress.is_cancellation() => Some(StoppedTurn::Interrupted),
                    _ => Some(StoppedTurn::Failed),
                };
            }
            match &send.phase {
                SendPhase::Ended(SendOutcome::Failed { code, .. }) => {
                    return Some(if is_cancellation_code(code) {
                        StoppedTurn::Interrupted
                    } else {
                        StoppedTurn::Failed
                    });
                }
                SendPhase::Ended(SendOutcome::Replayed {
                    state: OperationState::Cancelled,
                }) => return Some(StoppedTurn::Interrupted),
                _ => {}
            }
        }
        match self.ended.get(request_id).map(String::as_str) {
            Some(marks::TURN_CANCELLED) => Some(StoppedTurn::Interrupted),
            Some(marks::TURN_FAILED) => Some(StoppedTurn::Failed),
            _ => None,
        }
    }

    /// Marks every tool row with how its send's turn ended and puts back the "interrupted"
    /// row of each stopped turn after its last row. Rows are written only when they change.
    pub(super) fn settle_turn_ends(&mut self) {
        let mut call_owner: HashMap<&str, &str> = HashMap::new();
        for (id, calls) in &self.kept_calls {
            for call in calls {
                call_owner.insert(call, id);
            }
        }
        for (id, send) in &self.sends {
            for call in &send.tool_calls {
                call_owner.insert(call, id);
            }
        }
        let mut stopped: HashMap<String, Option<StoppedTurn>> = HashMap::new();
        let mut view = self.view.lock().unwrap_or_else(|e| e.into_inner());
        let t = view.transcript_mut();
        // The request each entry belongs to, and the last entry of each stopped turn.
        let mut last_of: HashMap<String, usize> = HashMap::new();
        let mut changes: Vec<(usize, Option<StoppedTurn>)> = Vec::new();
        for (i, e) in t.entries().iter().enumerate() {
            let call = match &e.kind {
                EntryKind::ToolCall(call) => Some(call),
                _ => None,
            };
            let owner = e.origin.request_id.as_deref().or_else(|| {
                call.and_then(|c| c.call_id.as_deref())
                    .and_then(|id| call_owner.get(id).copied())
            });
            let Some(owner) = owner else {
                continue;
            };
            let end = *stopped
                .entry(owner.to_string())
                .or_insert_with(|| self.stopped_turn(owner));
            if end.is_some() {
                last_of.insert(owner.to_string(), i);
            }
            if let Some(call) = call
                && call.turn_stopped != end
            {
                changes.push((i, end));
            }
        }
        for (i, end) in changes {
            t.update_at(i, |e| {
                if let EntryKind::ToolCall(call) = &mut e.kind {
                    call.turn_stopped = end;
                }
            });
        }
        // Inserted from the last position back, so the earlier indexes stay right.
        let mut rows: Vec<(usize, String)> = last_of
            .into_iter()
            .filter(|(id, _)| stopped.get(id).copied().flatten() == Some(StoppedTurn::Interrupted))
            .map(|(id, at)| (at, id))
            .collect();
        rows.sort_unstable_by(|a, b| b.cmp(a));
        for (at, request_id) in rows {
            let row_id = format!("{request_id}:error");
            // The store holds this send's failure under its request id (§15.9): one row.
            let recorded = t.entries().iter().any(|e| {
                matches!(e.kind, EntryKind::Failure(FailureOrigin::Transport))
                    && e.origin.request_id.as_deref() == Some(request_id.as_str())
            });
            if recorded || t.get(&row_id).is_some() {
                continue;
            }
            let ts = t.entries().get(at).and_then(|e| e.ts);
            let row = Entry::new(
                row_id,
                Speaker::System,
                EntryKind::Status,
                STOPPED_BEFORE_REPLY,
            )
            .with_request(request_id);
            t.insert_after(
                at,
                match ts {
                    Some(ts) => row.with_ts(ts),
                    None => row,
                },
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::chat::rows::{ChatHistoryRow, ChatRole};
    use crate::view::theme::Theme;

    fn tool_row(id: &str, call: &str, ts: f64) -> ChatHistoryRow {
        ChatHistoryRow {
            tool_call_id: Some(call.into()),
            tool_call_name: Some("masc_task_list".into()),
            ..ChatHistoryRow::new(id, ChatRole::Tool, "{}", ts)
        }
    }

    fn stopped_of(pane: &ChatPane, id: &str) -> Option<StoppedTurn> {
        match &pane.view().transcript().get(id).unwrap().kind {
            EntryKind::ToolCall(call) => call.turn_stopped,
            other => panic!("{other:?}"),
        }
    }

    /// C-44, C-31: an older store's tool row names no request; the call id the send's stream
    /// announced (kept in the outbox) joins it to the send, whose kept end marks it; the
    /// stopped turn's row comes right after it, once.
    #[test]
    fn c44_an_older_store_s_tool_row_joins_its_send_by_the_kept_call_id() {
        let mut pane = ChatPane::new("alpha", None, Theme::plain());
        let rows = [
            ChatHistoryRow::new("u-1", ChatRole::User, "list tasks", 10.0),
            tool_row("t-1", "call-9", 11.0),
            tool_row("t-2", "call-x", 12.0),
            ChatHistoryRow::new("u-2", ChatRole::User, "next", 13.0),
        ];
        pane.view().transcript_mut().extend_history(&rows, "alpha");
        pane.settle_turn_ends();
        assert_eq!(stopped_of(&pane, "t-1"), None, "nothing kept: nothing said");

        pane.ended
            .insert("tui-a".into(), marks::TURN_CANCELLED.into());
        pane.kept_calls
            .insert("tui-a".into(), vec!["call-9".to_string()]);
        pane.ended.insert("tui-b".into(), marks::TURN_FAILED.into());
        pane.settle_turn_ends();
        pane.settle_turn_ends();
        assert_eq!(stopped_of(&pane, "t-1"), Some(StoppedTurn::Interrupted));
        assert_eq!(stopped_of(&pane, "t-2"), None, "another call");
        let ids: Vec<String> = pane
            .view()
            .transcript()
            .entries()
            .iter()
            .map(|e| e.id.to_string())
            .collect();
        assert_eq!(ids, ["u-1", "t-1", "tui-a:error", "t-2", "u-2"]);
        let row = pane
            .view()
            .transcript()
            .get("tui-a:error")
            .cloned()
            .unwrap();
        assert_eq!(row.text, STOPPED_BEFORE_REPLY);
        assert_eq!(row.origin.request_id.as_deref(), Some("tui-a"));

        pane.kept_calls
            .insert("tui-b".into(), vec!["call-x".to_string()]);
        pane.settle_turn_ends();
        assert_eq!(stopped_of(&pane, "t-2"), Some(StoppedTurn::Failed));
        assert!(
            pane.view().transcript().get("tui-b:error").is_none(),
            "a failed turn's failure is the store's own row"
        );
    }
}
