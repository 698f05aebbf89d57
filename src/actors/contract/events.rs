//! What the view's mailbox receives from the actors: payload-free notifications (the slot
//! events themselves wait in their surface's typed inbox) and supervision news. The view owns
//! its mailbox type; actors only see [`EventSink`].

use super::control::SourceHandle;
use super::identity::IdentityState;
use super::inbox::InboxId;
use super::keys::SourceKey;

#[derive(Debug, Clone)]
pub enum SourceEvent {
    /// Slot events are waiting in `inbox`; handle them up to sequence number `upto`.
    Delivered { inbox: InboxId, upto: u64 },
    /// The workspace identity changed (published to the view before any source).
    Identity(IdentityState),
    /// A source actor (re)started; its commands go to `handle` from now on.
    SourceUp {
        source: SourceKey,
        handle: SourceHandle,
    },
    /// The supervisor restarted this source; its reads in flight fail with `source_restarted`.
    SourceRestarted(SourceKey),
    /// The supervisor gave this source up (restart intensity exceeded): its slots keep their
    /// last value and no further reads come from it.
    SourceStopped(SourceKey),
}

/// Where actors send [`SourceEvent`]s: the view actor in production, a channel in tests.
pub trait EventSink: Send + Sync + 'static {
    fn send(&self, event: SourceEvent);
}

impl EventSink for tokio::sync::mpsc::UnboundedSender<SourceEvent> {
    fn send(&self, event: SourceEvent) {
        let _ = tokio::sync::mpsc::UnboundedSender::send(self, event);
    }
}
