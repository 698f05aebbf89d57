//! Turn control saves as the chat surface keeps them (`/interrupt`, `/steer`; protocol.md
//! §14.13, §14.14; chat-screen.md C-36, C-43, C-44; sources.md H-5, H-15, H-16, K-1): one
//! [`SaveBook`] per kind, held by the chat surface (not the open pane), so a receipt that lands
//! while its chat is closed is kept and shown when the chat opens again (navigation is not
//! cancellation). Receipts are admitted by the ticket their dispatch recorded and the workspace
//! they were submitted in, never by the epoch; each lands once.

use super::held::HeldInputs;
use super::pane::{ChatPane, SendPhase, save_time};
use crate::actors::chat::{
    ChatSlot, Reconciliation, SendOutcome, TurnControlEvent, TurnInterrupt, TurnSteer,
};
use crate::actors::chat::{interrupt, marks};
use crate::actors::contract::Ticket;
use crate::actors::saves::SaveId;
use crate::actors::saves::SaveStep;
use crate::protocol::chat::OperationState;
use crate::protocol::outcome::SaveOutcome;
use crate::view::admission::RejectReason;
use crate::view::saves::{SaveBook, SaveEntry};
use crate::view::transcript::model::{Entry, EntryKind, FailureOrigin, Speaker};
use std::collections::HashMap;

#[derive(Debug, Default)]
pub struct TurnControls {
    pub interrupts: SaveBook<TurnInterrupt>,
    pub steers: SaveBook<TurnSteer>,
    /// Input typed while an interrupt of its Keeper was in flight (§14.13): sent after the
    /// answer.
    pub held: HeldInputs,
    /// The chat control token last read per (workspace, Keeper): an interrupt's reply
    /// (§14.13) or an acceptance's `interactive` block (§14.15) replaces it.
    tokens: HashMap<(String, String), String>,
}

fn save_id(slot: &ChatSlot) -> Option<&SaveId> {
    match slot {
        ChatSlot::Control { save_id, .. } => Some(save_id),
        _ => None,
    }
}

impl TurnControls {
    /// A control save's operation was dispatched (either book may hold it).
    pub fn dispatched(&mut self, ticket: &Ticket<ChatSlot>) -> bool {
        let Some(id) = save_id(&ticket.slot) else {
            return false;
        };
        if self.interrupts.get(id).is_some() {
            return self.interrupts.dispatched(id, ticket);
        }
        if self.steers.get(id).is_some() {
            return self.steers.dispatched(id, ticket);
        }
        // Not submitted here (a restored save announces itself): either kind may claim it.
        self.interrupts.dispatched(id, ticket) | self.steers.dispatched(id, ticket)
    }

    pub fn judge(
        &self,
        ticket: &Ticket<ChatSlot>,
        event: &TurnControlEvent,
    ) -> Result<(), RejectReason> {
        if save_id(&ticket.slot) != Some(event.save_id()) {
            return Err(RejectReason::UnknownSlot);
        }
        match event {
            TurnControlEvent::Interrupt(e) => self.interrupts.judge(ticket, e),
            TurnControlEvent::Steer(e) => self.steers.judge(ticket, e),
        }
    }

    /// An interrupt of `keeper` in `workspace` is submitted and has no answer yet.
    pub fn interrupt_in_flight(&self, workspace: &str, keeper: &str) -> bool {
        self.interrupts.in_flight(keeper, workspace).is_some()
    }

    /// The chat control token held for `keeper` in `workspace`, if any.
    pub fn token(&self, workspace: &str, keeper: &str) -> Option<&str> {
        self.tokens
            .get(&(workspace.to_string(), keeper.to_string()))
            .map(String::as_str)
    }

    /// A fresh chat control token (it replaces the one held).
    pub fn hold_token(&mut self, workspace: &str, keeper: &str, token: &str) {
        self.tokens.insert(
            (workspace.to_string(), keeper.to_string()),
            token.to_string(),
        );
    }

    pub fn apply(&mut self, event: TurnControlEvent) {
        match event {
            TurnControlEvent::Interrupt(e) => {
                if let SaveStep::Ended(SaveOutcome::Applied { detail, .. })
                | SaveStep::Restored(SaveOutcome::Applied { detail, .. }) = &e.step
                    && let Some(token) = &detail.chat_control_token
                {
                    self.hold_token(&e.workspace, &e.intent.keeper, token);
                }
                self.interrupts.apply(e)
            }
            TurnControlEvent::Steer(e) => self.steers.apply(e),
        }
    }

    /// A control save of an earlier run, read back from the outbox: put in its book unless
    /// the book holds that save already.
    pub fn restore(&mut self, event: TurnControlEvent) {
        let known = self.interrupts.get(event.save_id()).is_some()
            || self.steers.get(event.save_id()).is_some();
        if known {
            return;
        }
        match event {
            TurnControlEvent::Interrupt(e) => self.interrupts.apply(e),
            TurnControlEvent::Steer(e) => self.steers.apply(e),
        }
    }

    pub fn retired(&mut self, ticket: &Ticket<ChatSlot>) -> bool {
        let Some(id) = save_id(&ticket.slot) else {
            return false;
        };
        self.interrupts.retired(id, ticket) | self.steers.retired(id, ticket)
    }
}

/// What one interrupt says about the chat's turn now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TurnEnd {
    /// The targeted send is still running (or the target is not a send of this chat).
    Open,
    /// Its stream or record says it stopped as a cancellation.
    Interrupted,
    /// It ended otherwise (finished, failed, unknown).
    Other,
    /// The target is not a send this chat holds (an observed turn): its end is not seen here.
    Unobserved,
}

fn turn_end(pane: &ChatPane, request_id: Option<&str>) -> TurnEnd {
    let Some(send) = request_id.and_then(|id| pane.sends.get(id)) else {
        // A send of an earlier open: how its turn ended, as the outbox kept it (C-44).
        return match request_id
            .and_then(|id| pane.ended.get(id))
            .map(String::as_str)
        {
            Some(marks::TURN_CANCELLED) => TurnEnd::Interrupted,
            Some(_) => TurnEnd::Other,
            None => TurnEnd::Unobserved,
        };
    };
    if let Some(Reconciliation::Found(r)) = &send.reconciliation
        && r.progress.state().is_terminal()
    {
        return if r.progress.is_cancellation() {
            TurnEnd::Interrupted
        } else {
            TurnEnd::Other
        };
    }
    match &send.phase {
        SendPhase::Ended(SendOutcome::Failed { code, .. }) if is_cancellation_code(code) => {
            TurnEnd::Interrupted
        }
        SendPhase::Ended(SendOutcome::Replayed {
            state: OperationState::Cancelled,
        }) => TurnEnd::Interrupted,
        SendPhase::Ended(_) => TurnEnd::Other,
        _ => TurnEnd::Open,
    }
}

/// MASC's failure kind of a stopped turn, as `RUN_ERROR` carries it (`Turn_cancelled`).
pub fn is_cancellation_code(code: &Option<String>) -> bool {
    code.as_deref()
        .is_some_and(|c| c.eq_ignore_ascii_case("turn_cancelled"))
}

fn row(id: String, kind: EntryKind, text: String) -> Entry {
    Entry::new(id, Speaker::System, kind, text)
}

fn failure(id: String, what: &str, text: String) -> Entry {
    row(
        id,
        EntryKind::Failure(FailureOrigin::Other(what.into())),
        text,
    )
}

/// The row of one interrupt (a failure row is drawn `✗ failed · interrupt · <reason>`), and whether the progress row says "interrupt requested".
fn interrupt_row(entry: &SaveEntry<TurnInterrupt>, pane: &ChatPane) -> (Entry, bool) {
    let id = format!("{}:interrupt", entry.save_id);
    let target = entry.intent.request_id();
    let status = |text: &str| row(id.clone(), EntryKind::Status, text.to_string());
    let Some(receipt) = entry.phase.receipt() else {
        return (status("interrupt requested"), true);
    };
    match receipt {
        SaveOutcome::Applied { detail, .. } => {
            // MASC holds the Keeper's queue on its metadata pause; the §14.1 directive
            // `resume` lifts it, which masc-tui sends from the Keeper list (`p` on a paused
            // Keeper). The chat has no resume command of its own (C-66's closed set has none).
            let held = if detail.paused {
                " · the Keeper's queue is held until resumed (Keeper list: p resumes)"
            } else {
                ""
            };
            let (text, stopping) = match turn_end(pane, target) {
                TurnEnd::Open => (
                    "interrupt requested · stop signalled, waiting for the turn to end",
                    true,
                ),
                TurnEnd::Interrupted => ("interrupted · the turn stopped at your request", false),
                TurnEnd::Other => (
                    "interrupt signalled · the turn ended before it stopped",
                    false,
                ),
                TurnEnd::Unobserved => (
                    "interrupt requested · stop signalled; the turn's end is not observed in this chat",
                    false,
                ),
            };
            (status(&format!("{text}{held}")), stopping)
        }
        SaveOutcome::Unchanged => (
            status("interrupt: no turn was running · nothing stopped"),
            false,
        ),
        SaveOutcome::Conflict { .. } => (
            failure(
                id.clone(),
                "interrupt",
                "interrupt · another turn is current now · nothing stopped".into(),
            ),
            false,
        ),
        SaveOutcome::NotApplied { reason } | SaveOutcome::NotSent { reason } => (
            failure(
                id.clone(),
                "interrupt",
                format!("interrupt · {}", interrupt::describe(reason)),
            ),
            false,
        ),
        SaveOutcome::OutcomeUnknown { reason } => (
            status(&format!(
                "interrupt outcome unknown · {} · not resent",
                interrupt::describe(reason)
            )),
            false,
        ),
    }
}

/// The row of one `/steer` (`STEER · …`, C-36) or `/run-next` (`NEXT · …`).
fn steer_row(entry: &SaveEntry<TurnSteer>) -> Entry {
    let id = format!("{}:steer", entry.save_id);
    let (label, what) = if entry.intent.run_next {
        ("NEXT", "run-next")
    } else {
        ("STEER", "steer")
    };
    let status = |text: String| row(id.clone(), EntryKind::Status, text);
    let Some(receipt) = entry.phase.receipt() else {
        return status(format!("{label} · asking to run this input next"));
    };
    match receipt {
        SaveOutcome::Applied { detail, .. } => status(if detail.signalled {
            format!("{label} · this input runs next, the running turn was asked to stop")
        } else {
            format!("{label} · this input runs next")
        }),
        SaveOutcome::Unchanged => status(format!("{label} · already next")),
        // §14.14 gives a 409 no typed reason: the server's own words, never a guessed cause.
        SaveOutcome::Conflict { current } => failure(
            id.clone(),
            what,
            match &current.detail {
                Some(text) => format!("{what} · refused (HTTP 409): {text} · nothing moved"),
                None => format!("{what} · refused (HTTP 409) · nothing moved"),
            },
        ),
        SaveOutcome::NotApplied { reason } | SaveOutcome::NotSent { reason } => failure(
            id.clone(),
            what,
            format!("{what} · {}", interrupt::describe(reason)),
        ),
        SaveOutcome::OutcomeUnknown { reason } => status(format!(
            "{what} outcome unknown · {} · not resent",
            interrupt::describe(reason)
        )),
    }
}

/// Keeps the open chat's turn control rows in step with the books: one row per interrupt or
/// steer of this Keeper in this workspace (failures as error rows, always visible: C-44), and
/// the progress row's "interrupt requested" while a stop is asked and not yet confirmed.
/// Rows are written only when they change (the transcript's caches stay warm).
pub fn sync(controls: &TurnControls, pane: &mut ChatPane) {
    let Some(workspace) = pane.workspace.as_ref().map(|w| w.0.clone()) else {
        return;
    };
    let mine = |keeper: &str, ws: &str| keeper == pane.keeper && ws == workspace;
    let mut rows = Vec::new();
    let mut stopping = false;
    // C-31: each row at its own time (the save id's), never appended at the end by a reload.
    let own_time = |row: Entry, save_id: &SaveId| match save_time(&save_id.0) {
        Some(ts) => row.with_ts(ts),
        None => row,
    };
    for entry in controls.interrupts.entries() {
        if mine(&entry.intent.keeper, &entry.workspace) {
            let (row, stop) = interrupt_row(entry, pane);
            stopping |= stop;
            let row = match entry.intent.request_id() {
                Some(id) => row.with_request(id.to_string()),
                None => row,
            };
            rows.push(own_time(row, &entry.save_id));
        }
    }
    for entry in controls.steers.entries() {
        if mine(&entry.intent.keeper, &entry.workspace) {
            let row = steer_row(entry).with_request(entry.intent.request_id.clone());
            rows.push(own_time(row, &entry.save_id));
        }
    }
    pane.stopping = stopping;
    let mut view = pane.view();
    let t = view.transcript_mut();
    for row in rows {
        let same = t
            .get(&row.id)
            .is_some_and(|e| e.text == row.text && e.kind == row.kind);
        if !same {
            t.upsert_by_time(row);
        }
    }
}
