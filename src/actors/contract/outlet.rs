//! How a source reaches its surface: the [`Outlet`] pushes a slot event into the surface's
//! inbox, then notifies the view with its sequence number (see [`super::inbox`]).

use super::events::{EventSink, SourceEvent};
use super::inbox::{Inbox, Inboxes, SlotEvent};
use super::keys::Ticket;
use std::sync::Arc;

/// Where a read owner sends the events of its slots: the surface's [`Outlet`] in production,
/// a channel in unit tests.
pub trait SlotSink<S, P>: Send + Sync + 'static {
    fn slot_event(&self, event: SlotEvent<S, P>);
}

/// A source's way to its surface: push into the inbox, then notify the view.
pub struct Outlet<S, P> {
    inbox: Inbox<S, P>,
    events: Arc<dyn EventSink>,
}

impl<S, P> Clone for Outlet<S, P> {
    fn clone(&self) -> Self {
        Self {
            inbox: self.inbox.clone(),
            events: self.events.clone(),
        }
    }
}

impl<S: Send + 'static, P: Send + 'static> Outlet<S, P> {
    pub fn new(inboxes: &Inboxes, events: Arc<dyn EventSink>) -> Self {
        Self {
            inbox: inboxes.get::<S, P>(),
            events,
        }
    }

    /// The view's event sink (identity-independent notifications go straight there).
    pub fn events(&self) -> &Arc<dyn EventSink> {
        &self.events
    }

    pub fn dispatched(&self, ticket: Ticket<S>) {
        self.post(SlotEvent::Dispatched(ticket));
    }

    pub fn observed(&self, ticket: Ticket<S>, payload: P) {
        self.post(SlotEvent::Observed(ticket, payload));
    }

    pub fn retired(&self, ticket: Ticket<S>) {
        self.post(SlotEvent::Retired(ticket));
    }

    fn post(&self, event: SlotEvent<S, P>) {
        let upto = self.inbox.push(event);
        self.events.send(SourceEvent::Delivered {
            inbox: self.inbox.id(),
            upto,
        });
    }
}

impl<S: Send + Sync + 'static, P: Send + Sync + 'static> SlotSink<S, P> for Outlet<S, P> {
    fn slot_event(&self, event: SlotEvent<S, P>) {
        self.post(event);
    }
}

impl<S: Send + 'static, P: Send + 'static> SlotSink<S, P>
    for tokio::sync::mpsc::UnboundedSender<SlotEvent<S, P>>
{
    fn slot_event(&self, event: SlotEvent<S, P>) {
        let _ = self.send(event);
    }
}
