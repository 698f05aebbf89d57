//! The chat surface's model: the chat inbox and the open chat, if any. Every chat observation
//! is judged by the open pane (its Keeper, workspace, owned tickets and request ids); with no
//! chat open, every result is `other_target` and never applied.

use super::control::TurnControls;
use super::pane::ChatPane;
use crate::actors::chat::{ChatObservation, ChatSlot};
use crate::actors::contract::{Inbox, Inboxes, SourceKey, Ticket};
use crate::protocol::admission::ReadScope;
use crate::view::admission::{EpochGate, ReadSlot, RejectReason};
use crate::view::surface::SurfaceModel;
use std::time::Instant;

#[derive(Debug)]
pub struct ChatModel {
    inbox: Inbox<ChatSlot, ChatObservation>,
    /// The open Keeper chat (the chat target), if any.
    pub pane: Option<ChatPane>,
    /// Interrupts and steers of this session, whichever chat is open (H-5).
    pub control: TurnControls,
}

impl Default for ChatModel {
    /// A model with an inbox of its own (tests, screens rendered without a runtime).
    fn default() -> Self {
        Self::new(&Inboxes::new())
    }
}

impl ChatModel {
    pub fn new(inboxes: &Inboxes) -> Self {
        Self {
            inbox: inboxes.get(),
            pane: None,
            control: TurnControls::default(),
        }
    }
}

impl SurfaceModel for ChatModel {
    type Slot = ChatSlot;
    type Payload = ChatObservation;

    fn inbox(&self) -> &Inbox<ChatSlot, ChatObservation> {
        &self.inbox
    }

    fn dispatched(&mut self, ticket: &Ticket<ChatSlot>, gate: &EpochGate) -> bool {
        if let ChatSlot::Control { .. } = ticket.slot {
            return self.control.dispatched(ticket);
        }
        self.pane
            .as_mut()
            .is_some_and(|pane| pane.dispatched(ticket, gate))
    }

    fn judge(
        &mut self,
        ticket: &Ticket<ChatSlot>,
        payload: &ChatObservation,
        gate: &EpochGate,
    ) -> Result<(), RejectReason> {
        // A turn control receipt is a save's: bound to its ticket and workspace, not to the
        // epoch or to the chat open now (H-15, H-16).
        if let ChatObservation::Control(event) = payload {
            return self.control.judge(ticket, event);
        }
        if let ChatSlot::Control { .. } = ticket.slot {
            return Err(RejectReason::UnknownSlot);
        }
        match self.pane.as_mut() {
            Some(pane) => pane.judge(ticket, payload, gate),
            None => Err(RejectReason::OtherTarget),
        }
    }

    fn apply(&mut self, ticket: &Ticket<ChatSlot>, mut payload: ChatObservation, _now: Instant) {
        // Turn control saves of earlier runs, read back with the chat's restore: their rows
        // come back (C-31, C-44); a save this run's books hold keeps what they say.
        if let ChatObservation::Restored { kept, .. } = &mut payload {
            for event in std::mem::take(&mut kept.controls) {
                self.control.restore(event);
            }
        }
        match payload {
            ChatObservation::Control(event) => self.control.apply(*event),
            other => {
                if let Some(pane) = self.pane.as_mut() {
                    pane.apply(ticket, other);
                }
            }
        }
        // Every change (a receipt, a reloaded page) keeps the turn control rows in step.
        if let Some(pane) = self.pane.as_mut() {
            super::control::sync(&self.control, pane);
        }
    }

    fn retired(&mut self, ticket: &Ticket<ChatSlot>) -> bool {
        if let ChatSlot::Control { .. } = ticket.slot {
            return self.control.retired(ticket);
        }
        self.pane.as_mut().is_some_and(|pane| pane.retired(ticket))
    }

    /// The chat keeps its own read states (history, older page, sends), not `Slot`s.
    fn slot(&mut self, _key: &ChatSlot) -> Option<&mut dyn ReadSlot> {
        None
    }

    fn slots(&mut self) -> Vec<(SourceKey, &mut dyn ReadSlot)> {
        Vec::new()
    }

    /// A new epoch: reads in flight lose their ownership; another workspace starts the chat
    /// over (its history and sends are never shown there, G-6).
    fn on_new_epoch(&mut self, scope: &ReadScope) -> bool {
        let Some(pane) = self.pane.as_mut() else {
            return false;
        };
        let mut changed = pane.withdraw();
        if pane.workspace.as_ref() != Some(&scope.workspace) {
            pane.reset_for(scope.workspace.clone());
            changed = true;
        }
        changed
    }

    fn on_withdrawn(&mut self) -> bool {
        self.pane.as_mut().is_some_and(|pane| pane.withdraw())
    }

    /// A failed chat read is shown in the chat, not as a degraded connection.
    fn any_failed(&self) -> bool {
        false
    }

    /// The chat keeps its own read states, not `Slot`s; its routes are served by every MASC
    /// release masc-tui covers (docs/compatibility.md), and its not-served operation route is
    /// shown in the chat.
    fn not_served(&self) -> Vec<crate::protocol::routes::RouteFamily> {
        Vec::new()
    }
}
