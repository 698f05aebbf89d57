//! Typed per-surface inboxes (sources.md P-3, H-15: a result is published to its own queue
//! first and the notification follows; a full mailbox can never drop it, a worker never waits
//! for queue space).
//!
//! A source posts the events of its slots — dispatched, observed, retired — into the inbox of
//! its surface, typed by the surface's own slot and payload types, and then sends the view a
//! payload-free [`SourceEvent::Delivered`](super::SourceEvent) carrying the sequence number of
//! what it pushed. The view drains an inbox only up to the sequence number of the notification
//! it is handling, so slot events are applied exactly in the order of the view's mailbox
//! (an identity change sent to the view after a push is handled after that push's events,
//! and an event pushed after it is not handled before it).

use super::keys::Ticket;
use std::any::{Any, TypeId};
use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

/// What a source tells the view about one of its slots.
#[derive(Debug, Clone)]
pub enum SlotEvent<S, P> {
    /// A read was dispatched: its ticket owns the slot from now on.
    Dispatched(Ticket<S>),
    /// The read of this ticket produced a result.
    Observed(Ticket<S>, P),
    /// The read of this ticket ended without a result (withdrawn, superseded, panicked).
    Retired(Ticket<S>),
}

impl<S, P> SlotEvent<S, P> {
    pub fn ticket(&self) -> &Ticket<S> {
        match self {
            Self::Dispatched(t) | Self::Observed(t, _) | Self::Retired(t) => t,
        }
    }
}

/// Which inbox a notification is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InboxId(pub u32);

struct Queue<S, P> {
    next_seq: u64,
    items: VecDeque<(u64, SlotEvent<S, P>)>,
}

/// One surface's inbox: unbounded, FIFO, shared by its sources (push) and the view (drain).
pub struct Inbox<S, P> {
    id: InboxId,
    queue: Arc<Mutex<Queue<S, P>>>,
}

impl<S, P> Clone for Inbox<S, P> {
    fn clone(&self) -> Self {
        Self {
            id: self.id,
            queue: self.queue.clone(),
        }
    }
}

impl<S, P> fmt::Debug for Inbox<S, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Inbox").field("id", &self.id).finish()
    }
}

impl<S, P> Inbox<S, P> {
    fn new(id: InboxId) -> Self {
        Self {
            id,
            queue: Arc::new(Mutex::new(Queue {
                next_seq: 1,
                items: VecDeque::new(),
            })),
        }
    }

    pub fn id(&self) -> InboxId {
        self.id
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Queue<S, P>> {
        // No invariant spans the lock (a push or a drain completes or does not happen).
        self.queue.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Appends `event`; returns its sequence number (increasing, from 1).
    pub fn push(&self, event: SlotEvent<S, P>) -> u64 {
        let mut q = self.lock();
        let seq = q.next_seq;
        q.next_seq = q.next_seq.saturating_add(1);
        q.items.push_back((seq, event));
        seq
    }

    /// Removes and returns, in order, every event with a sequence number up to `upto`.
    pub fn drain_upto(&self, upto: u64) -> Vec<SlotEvent<S, P>> {
        let mut q = self.lock();
        let mut out = Vec::new();
        while q.items.front().is_some_and(|(seq, _)| *seq <= upto) {
            if let Some((_, event)) = q.items.pop_front() {
                out.push(event);
            }
        }
        out
    }

    /// Events waiting (diagnostics and tests).
    pub fn len(&self) -> usize {
        self.lock().items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The inboxes of one runtime, by slot and payload type: the view and the sources ask for the
/// same types and get the same inbox. A new surface needs no entry here.
#[derive(Clone, Default)]
pub struct Inboxes(Arc<Mutex<InboxMap>>);

#[derive(Default)]
struct InboxMap {
    next_id: u32,
    by_type: HashMap<TypeId, Box<dyn Any + Send>>,
}

impl fmt::Debug for Inboxes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Inboxes")
    }
}

static NEXT_SET: AtomicU32 = AtomicU32::new(0);

impl Inboxes {
    pub fn new() -> Self {
        // Ids of different runtimes never collide (tests run several in one process).
        let base = NEXT_SET
            .fetch_add(1, Ordering::Relaxed)
            .wrapping_mul(1 << 16);
        Self(Arc::new(Mutex::new(InboxMap {
            next_id: base,
            by_type: HashMap::new(),
        })))
    }

    /// The inbox of slot type `S` and payload type `P` (created on first use).
    pub fn get<S: Send + 'static, P: Send + 'static>(&self) -> Inbox<S, P> {
        let mut map = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let type_id = TypeId::of::<Inbox<S, P>>();
        if let Some(found) = map
            .by_type
            .get(&type_id)
            .and_then(|b| b.downcast_ref::<Inbox<S, P>>())
        {
            return found.clone();
        }
        let id = InboxId(map.next_id);
        map.next_id = map.next_id.wrapping_add(1);
        let inbox = Inbox::new(id);
        map.by_type.insert(type_id, Box::new(inbox.clone()));
        inbox
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::admission::{ReadScope, WorkspaceId};

    fn ticket(generation: u64) -> Ticket<u8> {
        Ticket {
            slot: 1,
            generation,
            scope: ReadScope {
                workspace: WorkspaceId("/w".into()),
                epoch: 1,
            },
        }
    }

    #[test]
    fn drain_stops_at_the_notified_sequence() {
        let inboxes = Inboxes::new();
        let inbox = inboxes.get::<u8, u32>();
        let a = inbox.push(SlotEvent::Dispatched(ticket(1)));
        let b = inbox.push(SlotEvent::Observed(ticket(1), 7));
        let c = inbox.push(SlotEvent::Retired(ticket(2)));
        assert!(a < b && b < c);
        let first = inbox.drain_upto(b);
        assert_eq!(first.len(), 2);
        assert!(matches!(first[1], SlotEvent::Observed(_, 7)));
        // The later event waits for its own notification.
        assert_eq!(inbox.len(), 1);
        assert!(inbox.drain_upto(b).is_empty());
        assert_eq!(inbox.drain_upto(c).len(), 1);
    }

    #[test]
    fn the_same_types_share_one_inbox_and_others_do_not() {
        let inboxes = Inboxes::new();
        let a = inboxes.get::<u8, u32>();
        let b = inboxes.get::<u8, u32>();
        let c = inboxes.get::<u8, u64>();
        assert_eq!(a.id(), b.id());
        assert_ne!(a.id(), c.id());
        a.push(SlotEvent::Retired(ticket(1)));
        assert_eq!(b.len(), 1);
        assert!(c.is_empty());
        // Another runtime's inboxes never share ids with this one's.
        assert_ne!(Inboxes::new().get::<u8, u32>().id(), a.id());
    }
}
