//! A self-rescheduling poll: after each completed read the source arms one `send_after` of
//! `Demand(Cadence)` (architecture.md §4.3: never a blind interval that queues behind a slow read).

use crate::actors::contract::{DemandKind, SourceControl};
use ractor::{ActorRef, Message};
use std::time::Duration;

/// At most one pending cadence tick; re-arming replaces it, dropping cancels it.
#[derive(Debug)]
pub struct CadenceTimer<M: Message> {
    period: Duration,
    pending: Option<tokio::task::JoinHandle<Result<(), ractor::MessagingErr<M>>>>,
}

impl<M: Message + From<SourceControl>> CadenceTimer<M> {
    pub fn new(period: Duration) -> Self {
        Self {
            period,
            pending: None,
        }
    }

    pub fn period(&self) -> Duration {
        self.period
    }

    /// Arms the next tick `period` from now, replacing any pending one.
    pub fn reschedule(&mut self, myself: &ActorRef<M>) {
        self.cancel();
        self.pending = Some(myself.send_after(self.period, || {
            M::from(SourceControl::Demand(DemandKind::Cadence))
        }));
    }

    pub fn is_armed(&self) -> bool {
        self.pending.as_ref().is_some_and(|p| !p.is_finished())
    }
}

impl<M: Message> CadenceTimer<M> {
    pub fn cancel(&mut self) {
        if let Some(p) = self.pending.take() {
            p.abort();
        }
    }
}

impl<M: Message> Drop for CadenceTimer<M> {
    fn drop(&mut self) {
        self.cancel();
    }
}
