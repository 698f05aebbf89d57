//! The shared read-owner machinery every source actor uses (architecture.md §3, sources.md
//! G-2, G-3, G-6, G-7).
//!
//! A source actor owns one [`ReadOwner`] holding one [`ReadSlot`] per model slot it fills.
//! Per slot it keeps the generation counter (shared with the supervisor so a restarted actor
//! continues it: generations never reset, G-6), the in-flight worker with its cancellation
//! handle, and a pending follow-up. Demand policy (G-3):
//! - `Cadence` shares an in-flight read;
//! - `Explicit` either supersedes it ([`ExplicitPolicy::Supersede`]: abort the worker, retire its
//!   ticket, dispatch a new generation) or coalesces into exactly one follow-up read after it
//!   ([`ExplicitPolicy::Coalesce`]).
//!
//! Workers are spawned tokio tasks running the slot's [`Reader`]; they return through
//! `SourceCommand::WorkerReturned` to the owning actor, which checks that the ticket still owns
//! the slot before forwarding `ViewMsg::Observed` (so a late worker never clears or overwrites a
//! newer worker's state, G-7). No read is dispatched without a confirmed epoch; identity
//! withdrawal or a new epoch retires every owned read (G-6). Every step is a stage event
//! (`crate::timeline::stage`).

mod cadence;
mod owner;
pub mod polled;
/// A collecting fake view for actor tests (feature `test-support`; not in the shipped binary).
#[cfg(feature = "test-support")]
pub mod testing;
#[cfg(test)]
mod tests;

pub use cadence::CadenceTimer;
pub use owner::{
    DemandOutcome, IdentityOutcome, ReadOwner, Refusal, ReturnOutcome, SlotSnapshot, SlotSpec,
};

use crate::actors::messages::{ObservationPayload, SourceCommand, ViewMsg};
use crate::actors::ticket::{SourceKey, Ticket};
use crate::protocol::admission::ReadAuthority;
use crate::protocol::client::WorkspaceClient;
use futures::future::BoxFuture;
use ractor::ActorRef;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// The read a slot's worker performs: captured authority and client in, typed payload out.
pub type Reader = Arc<
    dyn Fn(ReadAuthority, WorkspaceClient) -> BoxFuture<'static, ObservationPayload> + Send + Sync,
>;

/// Boxes an async closure as a [`Reader`].
pub fn reader<F, Fut>(f: F) -> Reader
where
    F: Fn(ReadAuthority, WorkspaceClient) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ObservationPayload> + Send + 'static,
{
    Arc::new(move |auth, client| Box::pin(f(auth, client)))
}

/// Per-source generation counter. Owned by the supervisor and handed to every incarnation of
/// the source, so generations are never reset (G-6). The first generation is 1.
#[derive(Debug, Clone, Default)]
pub struct GenerationCounter(Arc<AtomicU64>);

impl GenerationCounter {
    pub fn new() -> Self {
        Self::default()
    }

    /// Allocates the next generation.
    pub fn next(&self) -> u64 {
        self.0.fetch_add(1, Ordering::SeqCst).saturating_add(1)
    }

    /// The last allocated generation (0 before the first).
    pub fn current(&self) -> u64 {
        self.0.load(Ordering::SeqCst)
    }
}

/// Every slot's generation counter, by key; owned by the supervisor and outliving any actor,
/// so a restarted source continues its generations (G-6).
#[derive(Debug, Clone, Default)]
pub struct GenerationBook(
    Arc<std::sync::Mutex<std::collections::HashMap<SourceKey, GenerationCounter>>>,
);

impl GenerationBook {
    pub fn new() -> Self {
        Self::default()
    }

    /// The counter of `key` (created at 0 on first use; the same counter ever after).
    pub fn counter(&self, key: &SourceKey) -> GenerationCounter {
        match self.0.lock() {
            Ok(mut map) => map.entry(key.clone()).or_default().clone(),
            // A poisoned book still must not hand out a reset counter for a known key; the
            // map itself is intact (no invariant spans the lock), so recover it.
            Err(poisoned) => poisoned
                .into_inner()
                .entry(key.clone())
                .or_default()
                .clone(),
        }
    }
}

/// How an explicit demand treats an in-flight read (per source, sources.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExplicitPolicy {
    /// Cancel the in-flight worker, retire its ticket, dispatch a new generation.
    Supersede,
    /// Keep the in-flight read and run exactly one follow-up read after it.
    Coalesce,
}

/// Why a worker produced no payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkerFault {
    /// The reader panicked; caught in the worker task (the actor is not affected).
    Panicked,
}

/// A worker's result on its way back to the owning actor.
#[derive(Debug, Clone)]
pub struct WorkerReturn {
    pub ticket: Ticket,
    pub result: Result<ObservationPayload, WorkerFault>,
}

impl WorkerReturn {
    /// The `outcome` of this return's stage events (`worker_panicked` for a caught panic).
    pub fn outcome_class(&self) -> String {
        match &self.result {
            Ok(payload) => payload.outcome_class(),
            Err(WorkerFault::Panicked) => "worker_panicked".to_string(),
        }
    }

    /// A return no owner takes any more (its object was closed or re-opened under a new
    /// owner): traced as observed and rejected, never forwarded (G-7).
    pub fn reject_late(&self) {
        crate::timeline::stage::observe(&self.ticket, &self.outcome_class());
        crate::timeline::stage::reject(&self.ticket, "late_after_retire");
    }
}

/// Where the owner sends view messages (the view actor; a channel in unit tests).
pub trait ViewSink: Send + Sync + 'static {
    fn send(&self, msg: ViewMsg);
}

impl ViewSink for ActorRef<ViewMsg> {
    fn send(&self, msg: ViewMsg) {
        if self.cast(msg).is_err() {
            tracing::debug!(target: "masc_tui::read", "view is gone; message dropped");
        }
    }
}

impl ViewSink for tokio::sync::mpsc::UnboundedSender<ViewMsg> {
    fn send(&self, msg: ViewMsg) {
        let _ = tokio::sync::mpsc::UnboundedSender::send(self, msg);
    }
}

/// Where a worker sends its result (the owning actor; a channel in unit tests).
pub trait ReturnSink: Clone + Send + Sync + 'static {
    fn returned(&self, ret: WorkerReturn);
}

impl ReturnSink for ActorRef<SourceCommand> {
    fn returned(&self, ret: WorkerReturn) {
        // The owner may have stopped (restart, shutdown): its reads were retired with it.
        let _ = self.cast(SourceCommand::WorkerReturned(ret));
    }
}

impl ReturnSink for tokio::sync::mpsc::UnboundedSender<WorkerReturn> {
    fn returned(&self, ret: WorkerReturn) {
        let _ = tokio::sync::mpsc::UnboundedSender::send(self, ret);
    }
}

/// Aborts the worker task when dropped: a dead or superseded owner leaves no worker running.
#[derive(Debug)]
struct WorkerHandle(tokio::task::JoinHandle<()>);

impl WorkerHandle {
    fn abort(&self) {
        self.0.abort();
    }
}

impl Drop for WorkerHandle {
    fn drop(&mut self) {
        self.0.abort();
    }
}
