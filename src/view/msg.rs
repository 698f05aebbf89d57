//! The view actor's mailbox. The view owns this type; actors reach it only through the
//! [`EventSink`] implementation below, with payload-free [`SourceEvent`]s (their slot events
//! wait in the surfaces' typed inboxes).

use crate::actors::contract::{EventSink, InboxId, SourceEvent};
use ractor::ActorRef;

/// Everything the view actor receives.
#[derive(Debug)]
pub enum ViewMsg {
    /// From the actors: slot events delivered, identity, supervision.
    Source(SourceEvent),
    Input(crossterm::event::Event),
    /// Display rows of the Work detail laid out off the view actor.
    WorkLaidOut(Box<crate::view::work::LaidOut>),
    /// Chunk heights of the open chat's huge message, measured off the view actor (C-28).
    ChatMeasured(Box<crate::view::transcript::measure::Measured>),
    /// A `/find` match list searched off the view actor (C-74).
    ChatFound(Box<crate::view::transcript::search::Found>),
    /// The frame scheduler's deadline passed.
    FrameDue,
    /// A background re-read of a slot of this inbox's surface was dispatched
    /// `SLOW_READ_BADGE_AFTER` ago: if one is still in flight its "reading" badge is now due
    /// (T.2).
    ReadAged(InboxId),
    /// The settle stage's next look is due (a re-read to demand, or a receipt's bound).
    SettleDue,
    /// The `$EDITOR` handoff's steps (the reader parked, the editor exited).
    Edit(crate::view::editor::EditMsg),
    Shutdown,
}

impl From<SourceEvent> for ViewMsg {
    fn from(event: SourceEvent) -> Self {
        Self::Source(event)
    }
}

impl EventSink for ActorRef<ViewMsg> {
    fn send(&self, event: SourceEvent) {
        if self.cast(ViewMsg::Source(event)).is_err() {
            tracing::debug!(target: "masc_tui::view", "view is gone; event dropped");
        }
    }
}
