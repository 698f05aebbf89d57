//! Batching of queued chat inputs into one execution, as a newer MASC does it (C-37;
//! protocol.md §4.3): when a Keeper's turn slot frees, the earliest waiting input claims it
//! and takes every other input of that Keeper still waiting with it. Each member's stream
//! then carries `KEEPER_CHAT_BATCH_BOUND {operation_id: <its own request id>, execution_id:
//! <the first member's request id>}` before its `RUN_STARTED`, as MASC's PTY batch fixture
//! binds three queued requests to `submitted[0]`.
//!
//! Only a newer MASC batches: a played release (`--compat v0.24.0`, whose snapshot has no
//! binding event) runs one input per turn, as before. A steered input (§14.14, asked to run
//! next) runs alone and is never taken into another's batch.
//!
//! Demo simplification (said in docs/audits/chat.md): each member still streams its own
//! scripted reply; in MASC one run answers the whole batch.

use crate::server::state::ChatTurns;

/// How a waiting turn got the Keeper's turn slot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Claim {
    /// It runs alone (no binding is sent).
    Alone,
    /// It runs in this execution (its own request id when it leads the batch).
    Batched { execution_id: String },
}

/// One attempt to claim the turn slot for `request_id`; `None`: keep waiting.
pub(super) fn try_claim(turns: &mut ChatTurns, request_id: &str, batching: bool) -> Option<Claim> {
    let (keeper, prioritized, bound) = match turns.get(request_id) {
        Some(me) => (me.keeper.clone(), me.prioritized, me.execution.clone()),
        // Not registered (never happens for a live script): run alone rather than wait forever.
        None => return Some(Claim::Alone),
    };
    // Taken into a batch by its leader.
    if let Some(execution_id) = bound {
        return Some(Claim::Batched { execution_id });
    }
    let busy = turns.iter().any(|(id, t)| {
        id != request_id && t.keeper == keeper && (t.started || (t.prioritized && !prioritized))
    });
    if busy {
        return None;
    }
    if batching {
        // The earliest waiting input leads (steered inputs first, as they run next).
        let first = turns
            .iter()
            .filter(|(_, t)| t.keeper == keeper && !t.started)
            .min_by_key(|(_, t)| (!t.prioritized, t.turn_id))
            .map(|(id, _)| id.clone());
        if first.as_deref().is_some_and(|f| f != request_id) {
            return None;
        }
    }
    let mut members: Vec<(i64, String)> = if batching && !prioritized {
        turns
            .iter()
            .filter(|(id, t)| {
                id.as_str() != request_id
                    && t.keeper == keeper
                    && !t.started
                    && !t.prioritized
                    && t.execution.is_none()
            })
            .map(|(id, t)| (t.turn_id, id.clone()))
            .collect()
    } else {
        Vec::new()
    };
    members.sort();
    let execution_id = request_id.to_string();
    if let Some(me) = turns.get_mut(request_id) {
        me.started = true;
        if !members.is_empty() {
            me.execution = Some(execution_id.clone());
        }
    }
    if members.is_empty() {
        return Some(Claim::Alone);
    }
    for (_, id) in &members {
        if let Some(t) = turns.get_mut(id) {
            t.started = true;
            t.execution = Some(execution_id.clone());
        }
    }
    Some(Claim::Batched { execution_id })
}

/// A stop of one member stops its whole execution (one run).
pub(super) fn stop_execution(turns: &ChatTurns, request_id: &str) {
    let Some(execution) = turns.get(request_id).and_then(|t| t.execution.clone()) else {
        return;
    };
    for t in turns
        .values()
        .filter(|t| t.execution.as_deref() == Some(&execution))
    {
        t.stop.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::state::ChatTurn;
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;

    fn turn(keeper: &str, turn_id: i64, started: bool) -> ChatTurn {
        ChatTurn {
            keeper: keeper.into(),
            turn_id,
            started,
            prioritized: false,
            stop: Arc::new(AtomicBool::new(false)),
            execution: None,
        }
    }

    /// C-37: with the slot free, the earliest waiting input leads and takes the other waiting
    /// inputs of the same Keeper (never another Keeper's) into its execution.
    #[test]
    fn c37_the_earliest_waiting_input_leads_and_takes_the_others() {
        let mut turns = ChatTurns::new();
        turns.insert("tui-b".into(), turn("alpha", 2, false));
        turns.insert("tui-c".into(), turn("alpha", 3, false));
        turns.insert("tui-x".into(), turn("beta", 1, false));
        turns.insert("tui-run".into(), turn("alpha", 1, true));
        assert_eq!(
            try_claim(&mut turns, "tui-b", true),
            None,
            "the slot is busy"
        );
        turns.remove("tui-run");
        assert_eq!(try_claim(&mut turns, "tui-c", true), None, "tui-b leads");
        let leader = Claim::Batched {
            execution_id: "tui-b".into(),
        };
        assert_eq!(try_claim(&mut turns, "tui-b", true), Some(leader.clone()));
        assert_eq!(try_claim(&mut turns, "tui-c", true), Some(leader));
        assert_eq!(turns["tui-x"].execution, None);
        assert!(!turns["tui-x"].started);
    }

    /// `--compat v0.24.0`: no batching; one input per turn.
    #[test]
    fn c37_an_older_masc_runs_one_input_per_turn() {
        let mut turns = ChatTurns::new();
        turns.insert("tui-b".into(), turn("alpha", 2, false));
        turns.insert("tui-c".into(), turn("alpha", 3, false));
        assert_eq!(try_claim(&mut turns, "tui-b", false), Some(Claim::Alone));
        assert_eq!(try_claim(&mut turns, "tui-c", false), None);
    }

    /// One execution is one run: stopping a member stops every member.
    #[test]
    fn c37_a_stop_of_one_member_stops_the_execution() {
        let mut turns = ChatTurns::new();
        turns.insert("tui-b".into(), turn("alpha", 2, false));
        turns.insert("tui-c".into(), turn("alpha", 3, false));
        try_claim(&mut turns, "tui-b", true);
        stop_execution(&turns, "tui-c");
        assert!(
            turns
                .values()
                .all(|t| t.stop.load(std::sync::atomic::Ordering::SeqCst))
        );
    }
}
