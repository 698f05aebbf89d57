//! Test support for actor tests of any source (feature `test-support`): a collecting view that
//! records every [`SourceEvent`] and, per surface, the typed slot events its sources posted,
//! and waiters that pick the first event matching a predicate (deterministic signals; no
//! sleeps). A failsafe (`crate::timeline::capture::FAILSAFE`) makes a stuck test fail instead
//! of hanging.

use crate::actors::contract::{EventSink, Inboxes, SlotEvent, SourceEvent};
use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::Arc;
use tokio::sync::mpsc;

/// The typed history of one surface: every slot event seen, and how far waiters have looked.
struct History<S, P> {
    seen: Vec<SlotEvent<S, P>>,
    examined: usize,
}

/// A view for actor tests: give [`CollectingView::sink`] and [`CollectingView::inboxes`] to the
/// runtime, then wait for what it posts.
pub struct CollectingView {
    rx: mpsc::UnboundedReceiver<SourceEvent>,
    sink: Arc<dyn EventSink>,
    inboxes: Inboxes,
    /// Every payload-free event received so far, in order.
    pub events: Vec<SourceEvent>,
    examined_events: usize,
    typed: HashMap<TypeId, Box<dyn Any + Send>>,
}

/// A new collecting view with inboxes of its own.
pub fn collecting_view() -> CollectingView {
    let (tx, rx) = mpsc::unbounded_channel();
    CollectingView {
        rx,
        sink: Arc::new(tx),
        inboxes: Inboxes::new(),
        events: Vec::new(),
        examined_events: 0,
        typed: HashMap::new(),
    }
}

impl CollectingView {
    /// The event sink a runtime sends to.
    pub fn sink(&self) -> Arc<dyn EventSink> {
        self.sink.clone()
    }

    /// The inboxes a runtime posts into.
    pub fn inboxes(&self) -> Inboxes {
        self.inboxes.clone()
    }

    fn history<S: Send + 'static, P: Send + 'static>(&mut self) -> &mut History<S, P> {
        let entry = self
            .typed
            .entry(TypeId::of::<History<S, P>>())
            .or_insert_with(|| {
                Box::new(History::<S, P> {
                    seen: Vec::new(),
                    examined: 0,
                })
            });
        match entry.downcast_mut::<History<S, P>>() {
            Some(h) => h,
            // The entry of this TypeId is always a History<S, P>.
            None => unreachable!("typed history of another type"),
        }
    }

    /// Moves what the surface `(S, P)`'s inbox holds into its history.
    fn pull<S: Send + 'static, P: Send + 'static>(&mut self) {
        let pending = self.inboxes.get::<S, P>().drain_upto(u64::MAX);
        self.history::<S, P>().seen.extend(pending);
    }

    /// Takes whatever has already arrived, without waiting.
    pub fn drain_ready(&mut self) {
        while let Ok(event) = self.rx.try_recv() {
            self.events.push(event);
        }
    }

    /// Every slot event of surface `(S, P)` seen so far, in order.
    pub fn slot_events<S: Send + 'static, P: Send + 'static>(&mut self) -> &[SlotEvent<S, P>] {
        self.drain_ready();
        self.pull::<S, P>();
        &self.history::<S, P>().seen
    }

    /// The last slot event of `(S, P)` already received that matches `pred`, if any.
    pub fn last_slot<S: Send + 'static, P: Send + 'static>(
        &mut self,
        pred: impl Fn(&SlotEvent<S, P>) -> bool,
    ) -> Option<&SlotEvent<S, P>> {
        self.slot_events::<S, P>().iter().rev().find(|e| pred(e))
    }

    /// Waits for the next slot event of `(S, P)` matching `pred` that no earlier wait looked
    /// at (events before it stay in the history). `None` after the failsafe.
    pub async fn wait_slot<S: Send + 'static, P: Send + 'static>(
        &mut self,
        pred: impl Fn(&SlotEvent<S, P>) -> bool,
    ) -> Option<&SlotEvent<S, P>> {
        let deadline = tokio::time::Instant::now() + crate::timeline::capture::FAILSAFE;
        loop {
            self.drain_ready();
            self.pull::<S, P>();
            let found = {
                let history = self.history::<S, P>();
                let mut found = None;
                while history.examined < history.seen.len() {
                    let i = history.examined;
                    history.examined += 1;
                    if pred(&history.seen[i]) {
                        found = Some(i);
                        break;
                    }
                }
                found
            };
            if let Some(i) = found {
                return self.history::<S, P>().seen.get(i);
            }
            let event = tokio::time::timeout_at(deadline, self.rx.recv())
                .await
                .ok()??;
            self.events.push(event);
        }
    }

    /// Waits for the next payload-free event matching `pred` that no earlier wait looked at.
    pub async fn wait_event(
        &mut self,
        pred: impl Fn(&SourceEvent) -> bool,
    ) -> Option<&SourceEvent> {
        let deadline = tokio::time::Instant::now() + crate::timeline::capture::FAILSAFE;
        loop {
            while self.examined_events < self.events.len() {
                let i = self.examined_events;
                self.examined_events += 1;
                if pred(&self.events[i]) {
                    return self.events.get(i);
                }
            }
            let event = tokio::time::timeout_at(deadline, self.rx.recv())
                .await
                .ok()??;
            self.events.push(event);
        }
    }

    /// The last payload-free event already received that matches `pred`, if any.
    pub fn last_event(&mut self, pred: impl Fn(&SourceEvent) -> bool) -> Option<&SourceEvent> {
        self.drain_ready();
        self.events.iter().rev().find(|e| pred(e))
    }
}
