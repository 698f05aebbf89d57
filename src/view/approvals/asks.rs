//! The Asks model (sources.md K-9…K-17; protocol.md §10.3, §10.4): what became of each answer
//! (the follow-up's three independent sources) and the pinned turns' transcripts.
//!
//! Follow-ups are kept per Ask for the session: a new read keeps the previous observations
//! (shown as not the latest confirmed) and marks each source reading; a step lands only from
//! the ticket that owns the read and under the open epoch. When the read ends before
//! `ASK_FOLLOW_UP_COMPLETED` — EOF, a cut, a broken rule, a cancel (a newer answer, authority
//! withdrawn) — what was received stays received (K-3, K-11) and only the missing sources
//! become unconfirmed. EOF alone never completes a read (K-13).

use crate::actors::asks::{
    ASKS, AskRef, AsksObservation, AsksSlot, FollowUpCut, FollowUpFailure, FollowUpStep, TurnTarget,
};
use crate::actors::contract::{Inbox, Inboxes, SourceKey, Ticket};
use crate::protocol::admission::ReadScope;
use crate::protocol::asks::{
    SourceObservation, TaskObservation, ToolResultObservation, WakeObservation,
};
use crate::protocol::routes::RouteFamily;
use crate::protocol::transcript::TurnTranscript;
use crate::view::admission::{EpochGate, OwnerId, ReadSlot, RejectReason, Slot};
use crate::view::surface::{SurfaceModel, not_served_of};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Instant;

/// Why a source of the current read is unconfirmed.
#[derive(Debug, Clone, PartialEq)]
pub enum Unconfirmed {
    /// The stream stopped before it arrived (EOF before `COMPLETED`, a cut, idle, transport).
    Cut(FollowUpCut),
    /// The read failed (no stream, or an event broke a §10.3 rule).
    Failed(FollowUpFailure),
    /// The read was cancelled before it arrived (a newer answer's follow-up, the source
    /// restarted or stopped).
    Cancelled,
    /// Read authority was withdrawn or a new epoch opened during the read.
    Withdrawn,
}

/// One source of a follow-up, as far as the reads of this session got (K-10, K-11).
#[derive(Debug, Clone, PartialEq)]
pub enum SourceRead<T> {
    /// No read of this follow-up reached this source yet.
    NotRead,
    /// The current read has not delivered it yet; `last` is what an earlier read received
    /// (shown, but not the latest confirmed).
    Reading { last: Option<T> },
    /// The current read delivered it: the latest confirmed observation.
    Received(T),
    /// The current read ended without it; `last` kept from an earlier read, if any.
    Unconfirmed { last: Option<T>, why: Unconfirmed },
}

impl<T: Clone> SourceRead<T> {
    /// The observation shown, if any (the latest confirmed one or the last kept one).
    pub fn shown(&self) -> Option<&T> {
        match self {
            Self::NotRead => None,
            Self::Received(v) => Some(v),
            Self::Reading { last } | Self::Unconfirmed { last, .. } => last.as_ref(),
        }
    }

    /// The shown observation is confirmed by the current read (K-10's "latest confirmed?").
    pub fn latest_confirmed(&self) -> bool {
        matches!(self, Self::Received(_))
    }

    fn begin(&mut self) {
        let last = self.shown().cloned();
        *self = Self::Reading { last };
    }

    fn end_without(&mut self, why: &Unconfirmed) {
        if let Self::Reading { last } = self {
            *self = Self::Unconfirmed {
                last: last.take(),
                why: why.clone(),
            };
        }
    }
}

/// Where the follow-up read as a whole stands.
#[derive(Debug, Clone, PartialEq)]
pub enum FollowUpRead {
    Reading,
    /// `ASK_FOLLOW_UP_COMPLETED` after all three sources.
    Completed,
    /// Ended before completion: the received sources stay confirmed, the rest unconfirmed.
    Ended(Unconfirmed),
}

/// The follow-up of one answered Ask.
#[derive(Debug, Clone, PartialEq)]
pub struct FollowUp {
    pub ask: AskRef,
    /// The workspace it was read in (never shown in another).
    pub workspace: String,
    /// `ASK_FOLLOW_UP_STARTED`'s task: the Task stored on the original question (K-9: never
    /// relinked to the Keeper's current Task). `None`: not received yet; `Some(None)`: the
    /// question has no Task.
    pub task_link: SourceRead<Option<String>>,
    pub wake: SourceRead<WakeObservation>,
    pub tool_result: SourceRead<ToolResultObservation>,
    pub task: SourceRead<TaskObservation>,
    pub read: FollowUpRead,
    /// Reads of this follow-up dispatched this session.
    pub reads: u32,
    owner: Option<OwnerId>,
}

impl FollowUp {
    fn new(ask: AskRef, workspace: String) -> Self {
        Self {
            ask,
            workspace,
            task_link: SourceRead::NotRead,
            wake: SourceRead::NotRead,
            tool_result: SourceRead::NotRead,
            task: SourceRead::NotRead,
            read: FollowUpRead::Reading,
            reads: 0,
            owner: None,
        }
    }

    /// A read of it is in flight.
    pub fn in_flight(&self) -> bool {
        self.owner.is_some()
    }

    fn begin(&mut self, owner: OwnerId) {
        self.owner = Some(owner);
        self.reads += 1;
        self.read = FollowUpRead::Reading;
        self.task_link.begin();
        self.wake.begin();
        self.tool_result.begin();
        self.task.begin();
    }

    /// The read ended without completing: only what it had not delivered is unconfirmed.
    fn end(&mut self, why: Unconfirmed) {
        self.owner = None;
        self.task_link.end_without(&why);
        self.wake.end_without(&why);
        self.tool_result.end_without(&why);
        self.task.end_without(&why);
        self.read = FollowUpRead::Ended(why);
    }

    fn apply(&mut self, step: FollowUpStep) {
        match step {
            FollowUpStep::Started { task_id } => self.task_link = SourceRead::Received(task_id),
            FollowUpStep::Source(SourceObservation::Wake(o)) => self.wake = SourceRead::Received(o),
            FollowUpStep::Source(SourceObservation::ToolResult(o)) => {
                self.tool_result = SourceRead::Received(o)
            }
            FollowUpStep::Source(SourceObservation::Task(o)) => self.task = SourceRead::Received(o),
            FollowUpStep::Completed => {
                self.owner = None;
                self.read = FollowUpRead::Completed;
            }
            FollowUpStep::Cut(cut) => self.end(Unconfirmed::Cut(cut)),
            FollowUpStep::Failed(failure) => self.end(Unconfirmed::Failed(failure)),
        }
    }

    /// The recorded wake turns received for this answer (the `Turn_ref`s `O` may pin).
    pub fn turn_refs(&self) -> Vec<&str> {
        match self.wake.shown() {
            Some(WakeObservation::Observed { turns, .. }) => {
                turns.iter().map(|t| t.turn_ref.as_str()).collect()
            }
            _ => Vec::new(),
        }
    }
}

/// The Asks surface model.
#[derive(Debug)]
pub struct AsksModel {
    inbox: Inbox<AsksSlot, AsksObservation>,
    /// Follow-ups of this session, by workspace and Ask (K-3: never erased).
    pub follow_ups: BTreeMap<(String, AskRef), FollowUp>,
    /// Pinned turns' transcripts (K-15: a late pending read never clears a completed one).
    pub transcripts: HashMap<TurnTarget, Slot<Arc<TurnTranscript>>>,
}

impl Default for AsksModel {
    fn default() -> Self {
        Self::new(&Inboxes::new())
    }
}

impl AsksModel {
    pub fn new(inboxes: &Inboxes) -> Self {
        Self {
            inbox: inboxes.get(),
            follow_ups: BTreeMap::new(),
            transcripts: HashMap::new(),
        }
    }

    /// The follow-up of `ask` read in `workspace`, if any.
    pub fn follow_up(&self, workspace: &str, ask: &AskRef) -> Option<&FollowUp> {
        self.follow_ups.get(&(workspace.to_string(), ask.clone()))
    }

    fn end_in_flight(&mut self, why: Unconfirmed) -> bool {
        let mut changed = false;
        for f in self.follow_ups.values_mut() {
            if f.in_flight() {
                f.end(why.clone());
                changed = true;
            }
        }
        changed
    }

    fn follow_up_of(&mut self, ticket: &Ticket<AsksSlot>) -> Option<&mut FollowUp> {
        match &ticket.slot {
            AsksSlot::FollowUp(ask) => self
                .follow_ups
                .get_mut(&(ticket.scope.workspace.0.clone(), ask.clone())),
            AsksSlot::Transcript(_) => None,
        }
    }
}

impl SurfaceModel for AsksModel {
    type Slot = AsksSlot;
    type Payload = AsksObservation;

    /// Pinned turns' transcripts read through a route this MASC may not serve (§14.11); the
    /// follow-up streams are SSE, whose absence is their own state.
    fn not_served(&self) -> Vec<RouteFamily> {
        let slots: Vec<&dyn ReadSlot> = self
            .transcripts
            .values()
            .map(|s| s as &dyn ReadSlot)
            .collect();
        not_served_of(&slots)
    }

    fn inbox(&self) -> &Inbox<AsksSlot, AsksObservation> {
        &self.inbox
    }

    fn dispatched(&mut self, ticket: &Ticket<AsksSlot>, gate: &EpochGate) -> bool {
        if gate.check(ticket).is_err() {
            return false;
        }
        match &ticket.slot {
            AsksSlot::FollowUp(ask) => {
                let ws = ticket.scope.workspace.0.clone();
                let entry = self
                    .follow_ups
                    .entry((ws.clone(), ask.clone()))
                    .or_insert_with(|| FollowUp::new(ask.clone(), ws));
                entry.begin(OwnerId::of(ticket));
                true
            }
            AsksSlot::Transcript(target) => self
                .transcripts
                .entry(target.clone())
                .or_default()
                .dispatched(ticket, gate),
        }
    }

    fn judge(
        &mut self,
        ticket: &Ticket<AsksSlot>,
        payload: &AsksObservation,
        gate: &EpochGate,
    ) -> Result<(), RejectReason> {
        match (&ticket.slot, payload) {
            (AsksSlot::FollowUp(_), AsksObservation::FollowUp(_)) => {
                gate.check(ticket)?;
                let owner = OwnerId::of(ticket);
                match self.follow_up_of(ticket).map(|f| f.owner.clone()) {
                    Some(Some(current)) if current == owner => Ok(()),
                    Some(Some(_)) => Err(RejectReason::Superseded),
                    _ => Err(RejectReason::Withdrawn),
                }
            }
            (AsksSlot::Transcript(target), AsksObservation::Transcript(_)) => {
                Slot::judge_if_open(self.transcripts.get(target), ticket, gate)
            }
            _ => Err(RejectReason::UnknownSlot),
        }
    }

    fn apply(&mut self, ticket: &Ticket<AsksSlot>, payload: AsksObservation, now: Instant) {
        match payload {
            AsksObservation::FollowUp(step) => {
                if let Some(f) = self.follow_up_of(ticket) {
                    f.apply(step);
                }
            }
            AsksObservation::Transcript(result) => {
                if let AsksSlot::Transcript(target) = &ticket.slot
                    && let Some(slot) = self.transcripts.get_mut(target)
                {
                    slot.apply_with(ticket, result, now, |v| v);
                }
            }
        }
    }

    fn retired(&mut self, ticket: &Ticket<AsksSlot>) -> bool {
        let owner = OwnerId::of(ticket);
        match &ticket.slot {
            AsksSlot::FollowUp(_) => match self.follow_up_of(ticket) {
                Some(f) if f.owner.as_ref() == Some(&owner) => {
                    f.end(Unconfirmed::Cancelled);
                    true
                }
                _ => false,
            },
            AsksSlot::Transcript(target) => self
                .transcripts
                .get_mut(target)
                .is_some_and(|s| s.retired(ticket)),
        }
    }

    fn slot(&mut self, key: &AsksSlot) -> Option<&mut dyn ReadSlot> {
        match key {
            AsksSlot::Transcript(target) => self
                .transcripts
                .get_mut(target)
                .map(|s| s as &mut dyn ReadSlot),
            // A follow-up is a stream with per-source states, not a slot of one value.
            AsksSlot::FollowUp(_) => None,
        }
    }

    fn slots(&mut self) -> Vec<(SourceKey, &mut dyn ReadSlot)> {
        self.transcripts
            .values_mut()
            .map(|s| (ASKS, s as &mut dyn ReadSlot))
            .collect()
    }

    /// A new epoch: the follow-up in flight loses its read (K-13: the worker is cancelled);
    /// what it received stays. Transcripts follow the slot rules (G-6).
    fn on_new_epoch(&mut self, scope: &ReadScope) -> bool {
        let mut changed = self.end_in_flight(Unconfirmed::Withdrawn);
        for slot in self.transcripts.values_mut() {
            changed |= slot.withdraw_read();
            changed |= slot.forget_other(scope);
        }
        changed
    }

    fn on_withdrawn(&mut self) -> bool {
        let mut changed = self.end_in_flight(Unconfirmed::Withdrawn);
        for slot in self.transcripts.values_mut() {
            changed |= slot.withdraw_read();
        }
        changed
    }

    fn on_source_restarted(&mut self, source: SourceKey) -> bool {
        if source != ASKS {
            return false;
        }
        let mut changed = self.end_in_flight(Unconfirmed::Cancelled);
        for slot in self.transcripts.values_mut() {
            changed |= slot.restarted();
        }
        changed
    }

    fn on_source_stopped(&mut self, source: SourceKey) -> bool {
        if source != ASKS {
            return false;
        }
        let mut changed = self.end_in_flight(Unconfirmed::Cancelled);
        for slot in self.transcripts.values_mut() {
            changed |= slot.stopped();
        }
        changed
    }

    /// Follow-ups and transcripts are shown where they are read, never as a degraded
    /// connection.
    fn any_failed(&self) -> bool {
        false
    }
}
