//! A single-surface view log in the view's own order, for the rigs that feed a real view
//! `Model` (Work, chat): slot events of the surface `(S, P)` and the payload-free events,
//! interleaved exactly as the view actor handles them. A `Delivered { inbox, upto }` is
//! replaced, where it stands in the mailbox, by the inbox's events up to `upto` (what the view
//! drains when it handles that notification); so an identity change and a slot event keep
//! the order the view sees. Waits look at one message at a time, newest last, like the view's
//! mailbox.
#![allow(dead_code, clippy::unwrap_used, clippy::panic)]

use masc_tui::actors::contract::{
    EventSink, IdentityState, Inbox, Inboxes, SlotEvent, SourceEvent, SourceHandle, SourceKey,
};
use std::collections::VecDeque;
use std::sync::Arc;
use tokio::sync::mpsc;

/// One message as the view handles it.
#[derive(Debug, Clone)]
pub enum Seen<S, P> {
    Slot(SlotEvent<S, P>),
    Identity(IdentityState),
    SourceUp {
        source: SourceKey,
        handle: SourceHandle,
    },
    SourceRestarted(SourceKey),
    SourceStopped(SourceKey),
}

/// The view side of a runtime whose sources all post into one surface's inbox.
pub struct OrderedView<S, P> {
    rx: mpsc::UnboundedReceiver<SourceEvent>,
    sink: Arc<dyn EventSink>,
    inboxes: Inboxes,
    inbox: Inbox<S, P>,
    /// Drained from the inbox but not yet received (one `Delivered` may cover several).
    pending: VecDeque<Seen<S, P>>,
    /// Every message received so far, in the view's order.
    pub seen: Vec<Seen<S, P>>,
}

impl<S: Send + 'static, P: Send + 'static> OrderedView<S, P> {
    pub fn new() -> Self {
        let (tx, rx) = mpsc::unbounded_channel();
        let inboxes = Inboxes::new();
        let inbox = inboxes.get::<S, P>();
        Self {
            rx,
            sink: Arc::new(tx),
            inboxes,
            inbox,
            pending: VecDeque::new(),
            seen: Vec::new(),
        }
    }

    /// The event sink a runtime sends to.
    pub fn sink(&self) -> Arc<dyn EventSink> {
        self.sink.clone()
    }

    /// The inboxes a runtime posts into.
    pub fn inboxes(&self) -> Inboxes {
        self.inboxes.clone()
    }

    /// Turns one mailbox event into the messages the view handles for it.
    fn unfold(&mut self, event: SourceEvent) {
        match event {
            SourceEvent::Delivered { inbox, upto } => {
                assert_eq!(
                    inbox,
                    self.inbox.id(),
                    "a slot event of a surface this rig does not run"
                );
                self.pending
                    .extend(self.inbox.drain_upto(upto).into_iter().map(Seen::Slot));
            }
            SourceEvent::Identity(state) => self.pending.push_back(Seen::Identity(state)),
            SourceEvent::SourceUp { source, handle } => {
                self.pending.push_back(Seen::SourceUp { source, handle })
            }
            SourceEvent::SourceRestarted(s) => self.pending.push_back(Seen::SourceRestarted(s)),
            SourceEvent::SourceStopped(s) => self.pending.push_back(Seen::SourceStopped(s)),
        }
    }

    /// The next message, `None` after `deadline` or when every sender is gone.
    async fn next(&mut self, deadline: tokio::time::Instant) -> Option<()> {
        loop {
            if let Some(m) = self.pending.pop_front() {
                self.seen.push(m);
                return Some(());
            }
            let event = tokio::time::timeout_at(deadline, self.rx.recv())
                .await
                .ok()??;
            self.unfold(event);
        }
    }

    /// Waits for the next message matching `pred` (messages before it are kept in `seen`).
    /// `None` after the test failsafe (`masc_tui::timeline::capture::FAILSAFE`), so a stuck
    /// test fails instead of hanging.
    pub async fn wait_for(&mut self, pred: impl Fn(&Seen<S, P>) -> bool) -> Option<&Seen<S, P>> {
        let deadline = tokio::time::Instant::now() + masc_tui::timeline::capture::FAILSAFE;
        loop {
            self.next(deadline).await?;
            if self.seen.last().is_some_and(&pred) {
                return self.seen.last();
            }
        }
    }

    /// The last message already received that matches `pred`, if any.
    pub fn last_seen(&self, pred: impl Fn(&Seen<S, P>) -> bool) -> Option<&Seen<S, P>> {
        self.seen.iter().rev().find(|m| pred(m))
    }

    /// Takes whatever has already arrived, without waiting.
    pub fn drain_ready(&mut self) {
        while let Ok(event) = self.rx.try_recv() {
            self.unfold(event);
        }
        self.seen.extend(self.pending.drain(..));
    }
}
