//! The Decisions model: this actor's pending operator approvals (§10.5) and the open asks
//! (§10.1), two independent slots (docs/audits/decisions.md).

use crate::actors::asks::AskRef;
use crate::actors::contract::{Inbox, Inboxes, SourceKey, Ticket};
use crate::actors::decisions::approval::ApprovalDecision;
use crate::actors::decisions::ask_answer::AskAnswer;
use crate::actors::decisions::held_call::HeldCallDecision;
use crate::actors::decisions::{DECISIONS, DecisionsObservation, DecisionsSlot};
use crate::actors::saves::SaveStep;
use crate::protocol::admission::ReadScope;
use crate::protocol::asks::AskList;
use crate::protocol::held_calls::HeldToolCalls;
use crate::protocol::operator::OperatorApprovals;
use crate::protocol::outcome::SaveClass;
use crate::protocol::routes::RouteFamily;
use crate::view::admission::{EpochGate, ReadSlot, RejectReason, Slot};
use crate::view::saves::{Rereads, SaveBook};
use crate::view::surface::{SurfaceModel, not_served_of};
use std::sync::Arc;
use std::time::Instant;

#[derive(Debug)]
pub struct DecisionsModel {
    inbox: Inbox<DecisionsSlot, DecisionsObservation>,
    /// This actor's pending operator approvals (§10.5), shown on the Overview.
    pub approvals: Slot<Arc<OperatorApprovals>>,
    /// Open asks of the fleet (§10.1), shown on the Overview.
    pub asks: Slot<Arc<AskList>>,
    /// Approval decisions this session made (or read back after a crash), each its own slot.
    pub decisions: SaveBook<ApprovalDecision>,
    /// Ask answers this session made (or read back after a crash), each its own slot.
    pub answers: SaveBook<AskAnswer>,
    /// Tool calls Keepers' turns wait on (§14.5), shown as gate rows in each Keeper's chat.
    pub held_calls: Slot<Arc<HeldToolCalls>>,
    /// Answers to held tool calls this session made (or read back after a crash).
    pub held_answers: SaveBook<HeldCallDecision>,
    /// Which reads of the approvals list were made after which receipt (`R` waits for one).
    pub rereads: Rereads,
    /// A receipt landed: the list is re-read (§10.2, §10.5; the re-read never replaces the
    /// receipt, K-2).
    reread: bool,
    /// The workspace whose approvals and decisions are on screen: the confirmed one, kept
    /// while authority is withdrawn (its list stays, G-6; its receipts survive, H-16).
    workspace: Option<String>,
    /// Answers applied since the view last looked: their follow-ups are to be read (§10.3), in
    /// the workspace each was submitted in (K-5).
    follow_ups: Vec<(AskRef, String)>,
}

impl Default for DecisionsModel {
    /// A model with an inbox of its own (tests, screens rendered without a runtime).
    fn default() -> Self {
        Self::new(&Inboxes::new())
    }
}

impl DecisionsModel {
    pub fn new(inboxes: &Inboxes) -> Self {
        Self {
            inbox: inboxes.get(),
            approvals: Slot::default(),
            asks: Slot::default(),
            decisions: SaveBook::default(),
            answers: SaveBook::default(),
            held_calls: Slot::default(),
            held_answers: SaveBook::default(),
            rereads: Rereads::default(),
            reread: false,
            workspace: None,
            follow_ups: Vec::new(),
        }
    }

    /// The workspace whose approvals and decisions are shown: the current one, or while
    /// authority is withdrawn the last confirmed one. Showing grants no authority (K-5).
    pub fn workspace(&self) -> Option<&str> {
        self.workspace.as_deref()
    }
}

impl DecisionsModel {
    /// The follow-ups due since the last call (answers applied), each with the workspace its
    /// answer was submitted in.
    pub fn take_follow_ups(&mut self) -> Vec<(AskRef, String)> {
        std::mem::take(&mut self.follow_ups)
    }
}

impl SurfaceModel for DecisionsModel {
    type Slot = DecisionsSlot;
    type Payload = DecisionsObservation;

    fn inbox(&self) -> &Inbox<DecisionsSlot, DecisionsObservation> {
        &self.inbox
    }

    fn dispatched(&mut self, ticket: &Ticket<DecisionsSlot>, gate: &EpochGate) -> bool {
        match &ticket.slot {
            DecisionsSlot::Approvals => {
                let taken = self.approvals.dispatched(ticket, gate);
                if taken {
                    self.rereads.dispatched(ticket.generation);
                }
                taken
            }
            DecisionsSlot::Asks => self.asks.dispatched(ticket, gate),
            DecisionsSlot::Decision(save_id) => self.decisions.dispatched(save_id, ticket),
            DecisionsSlot::Answer(save_id) => self.answers.dispatched(save_id, ticket),
            DecisionsSlot::HeldCalls => self.held_calls.dispatched(ticket, gate),
            DecisionsSlot::HeldCallDecision(save_id) => {
                self.held_answers.dispatched(save_id, ticket)
            }
        }
    }

    fn judge(
        &mut self,
        ticket: &Ticket<DecisionsSlot>,
        payload: &DecisionsObservation,
        gate: &EpochGate,
    ) -> Result<(), RejectReason> {
        match (&ticket.slot, payload) {
            (DecisionsSlot::Approvals, DecisionsObservation::Approvals(_)) => {
                self.approvals.judge(ticket, gate)
            }
            (DecisionsSlot::Asks, DecisionsObservation::Asks(_)) => self.asks.judge(ticket, gate),
            (DecisionsSlot::Decision(id), DecisionsObservation::Decision(event))
                if *id == event.save_id =>
            {
                self.decisions.judge(ticket, event)
            }
            (DecisionsSlot::Answer(id), DecisionsObservation::Answer(event))
                if *id == event.save_id =>
            {
                self.answers.judge(ticket, event)
            }
            (DecisionsSlot::HeldCalls, DecisionsObservation::HeldCalls(_)) => {
                self.held_calls.judge(ticket, gate)
            }
            (
                DecisionsSlot::HeldCallDecision(id),
                DecisionsObservation::HeldCallDecision(event),
            ) if *id == event.save_id => self.held_answers.judge(ticket, event),
            _ => Err(RejectReason::UnknownSlot),
        }
    }

    fn apply(
        &mut self,
        ticket: &Ticket<DecisionsSlot>,
        payload: DecisionsObservation,
        now: Instant,
    ) {
        match payload {
            DecisionsObservation::Approvals(r) => {
                if r.is_ok() {
                    self.rereads.shown(ticket.generation);
                }
                self.approvals.apply_with(ticket, r, now, |v| v)
            }
            DecisionsObservation::Asks(r) => self.asks.apply_with(ticket, r, now, |v| v),
            DecisionsObservation::Decision(event) => {
                let receipt = matches!(event.step, SaveStep::Ended(_) | SaveStep::Restored(_));
                if receipt {
                    self.rereads.receipt(&event.save_id);
                }
                self.decisions.apply(*event);
                self.reread |= receipt;
            }
            DecisionsObservation::Answer(event) => {
                let receipt = matches!(event.step, SaveStep::Ended(_) | SaveStep::Restored(_));
                // Only an answer this run applied has a follow-up to read (a restored one is
                // not sent or of unknown outcome).
                if let SaveStep::Ended(r) = &event.step
                    && crate::actors::saves::Receipt::class(r) == SaveClass::Applied
                {
                    self.follow_ups.push((
                        AskRef {
                            keeper: event.intent.keeper.clone(),
                            ask_id: event.intent.ask_id.clone(),
                        },
                        event.workspace.clone(),
                    ));
                }
                self.answers.apply(*event);
                // K-2: after any result the asks are re-read; the re-read lands in its own
                // slot and never overwrites the receipt.
                self.reread |= receipt;
            }
            DecisionsObservation::HeldCalls(r) => self.held_calls.apply_with(ticket, r, now, |v| v),
            DecisionsObservation::HeldCallDecision(event) => {
                let receipt = matches!(event.step, SaveStep::Ended(_) | SaveStep::Restored(_));
                self.held_answers.apply(*event);
                // The list is re-read after an answer; the re-read never replaces the receipt.
                self.reread |= receipt;
            }
        }
    }

    fn retired(&mut self, ticket: &Ticket<DecisionsSlot>) -> bool {
        match &ticket.slot {
            DecisionsSlot::Approvals => self.approvals.retired(ticket),
            DecisionsSlot::Asks => self.asks.retired(ticket),
            DecisionsSlot::Decision(save_id) => self.decisions.retired(save_id, ticket),
            DecisionsSlot::Answer(save_id) => self.answers.retired(save_id, ticket),
            DecisionsSlot::HeldCalls => self.held_calls.retired(ticket),
            DecisionsSlot::HeldCallDecision(save_id) => self.held_answers.retired(save_id, ticket),
        }
    }

    fn slot(&mut self, key: &DecisionsSlot) -> Option<&mut dyn ReadSlot> {
        match key {
            DecisionsSlot::Approvals => Some(&mut self.approvals),
            DecisionsSlot::Asks => Some(&mut self.asks),
            DecisionsSlot::HeldCalls => Some(&mut self.held_calls),
            // A save is not a read: no reading badge, no epoch rule.
            DecisionsSlot::Decision(_)
            | DecisionsSlot::Answer(_)
            | DecisionsSlot::HeldCallDecision(_) => None,
        }
    }

    fn slots(&mut self) -> Vec<(SourceKey, &mut dyn ReadSlot)> {
        vec![
            (DECISIONS, &mut self.approvals as &mut dyn ReadSlot),
            (DECISIONS, &mut self.asks),
            (DECISIONS, &mut self.held_calls),
        ]
    }

    /// A new epoch: reads in flight lose their ownership, another workspace's values go
    /// (G-6), and that workspace's decisions are the ones shown from now on (I-5).
    fn on_new_epoch(&mut self, scope: &ReadScope) -> bool {
        let mut changed = false;
        for (_, slot) in self.slots() {
            changed |= slot.withdraw_read();
            changed |= slot.forget_other(scope);
        }
        if self.workspace.as_deref() != Some(scope.workspace.0.as_str()) {
            self.workspace = Some(scope.workspace.0.clone());
            changed = true;
        }
        changed
    }

    fn take_demands(&mut self) -> Vec<SourceKey> {
        if std::mem::take(&mut self.reread) {
            vec![DECISIONS]
        } else {
            Vec::new()
        }
    }

    /// A failed approvals or asks read is shown where it is read (`data unreliable`), not as
    /// a degraded connection.
    fn any_failed(&self) -> bool {
        false
    }

    /// Asks are newer MASC (§10.1): on an older MASC the header lists them as absent.
    fn not_served(&self) -> Vec<RouteFamily> {
        not_served_of(&[&self.approvals, &self.asks, &self.held_calls])
    }
}
