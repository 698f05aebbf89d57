//! The shared read-owner machinery every source actor uses (architecture.md §3, sources.md
//! G-2, G-3, G-6, G-7). It is generic over a surface's slot type `S` and payload type `P`, and
//! names no particular source.
//!
//! A source actor owns one [`ReadOwner`] holding one slot per model slot it fills. Per slot it
//! keeps the generation counter (shared with the supervisor so a restarted actor continues it:
//! generations never reset, G-6), the in-flight worker with its cancellation handle, and a
//! pending follow-up. Demand policy (G-3):
//! - `Cadence` shares an in-flight read;
//! - `Explicit` either supersedes it ([`ExplicitPolicy::Supersede`]: abort the worker, retire its
//!   ticket, dispatch a new generation) or coalesces into exactly one follow-up read after it
//!   ([`ExplicitPolicy::Coalesce`]).
//!
//! Workers are spawned tokio tasks running the slot's [`Reader`] with a panic catch; they return
//! through the owning actor's mailbox ([`ReturnSink`]), which checks that the ticket still owns
//! the slot before posting the observation to the surface's inbox (so a late worker never
//! clears or overwrites a newer worker's state, G-7). No read is dispatched without a confirmed
//! epoch; identity withdrawal or a new epoch retires every owned read (G-6). Every step is a
//! stage event (`crate::timeline::stage`).

mod cadence;
pub mod drill;
pub mod msg;
mod owner;
pub mod polled;
pub mod requests;
pub mod shell;
/// A collecting fake view for actor tests (feature `test-support`; not in the shipped binary).
#[cfg(feature = "test-support")]
pub mod testing;
#[cfg(test)]
mod tests;

pub use cadence::{CadenceTimer, hidden_period};
pub use msg::{CadencedArgs, NoCommands, SourceMsg, spawn_source, spawn_source_with};
pub use owner::{
    DemandOutcome, IdentityOutcome, ReadOwner, Refusal, ReturnOutcome, SlotSnapshot, SlotSpec,
};

use crate::actors::contract::{Outlet, Payload, SlotKey, Ticket};
use crate::protocol::admission::ReadAuthority;
use crate::protocol::client::WorkspaceClient;
use futures::future::BoxFuture;
use ractor::{ActorRef, Message};
use std::future::Future;
use std::sync::Arc;

/// The read a slot's worker performs: captured authority and client in, typed payload out.
pub type Reader<P> =
    Arc<dyn Fn(ReadAuthority, WorkspaceClient) -> BoxFuture<'static, P> + Send + Sync>;

/// Boxes an async closure as a [`Reader`].
pub fn reader<P, F, Fut>(f: F) -> Reader<P>
where
    F: Fn(ReadAuthority, WorkspaceClient) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = P> + Send + 'static,
{
    Arc::new(move |auth, client| Box::pin(f(auth, client)))
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
pub struct WorkerReturn<S, P> {
    pub ticket: Ticket<S>,
    pub result: Result<P, WorkerFault>,
}

impl<S: SlotKey, P: Payload> WorkerReturn<S, P> {
    /// The `outcome` of this return's stage events (`worker_panicked` for a caught panic).
    pub fn outcome_class(&self) -> String {
        match &self.result {
            Ok(payload) => payload.outcome(),
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

/// Where a worker sends its result (the owning actor; a channel in unit tests).
pub trait ReturnSink<S, P>: Clone + Send + Sync + 'static {
    fn returned(&self, ret: WorkerReturn<S, P>);
}

impl<M, S, P> ReturnSink<S, P> for ActorRef<M>
where
    M: Message + From<WorkerReturn<S, P>>,
    S: Send + 'static,
    P: Send + 'static,
{
    fn returned(&self, ret: WorkerReturn<S, P>) {
        // The owner may have stopped (restart, shutdown): its reads were retired with it.
        let _ = self.cast(M::from(ret));
    }
}

impl<S: Send + 'static, P: Send + 'static> ReturnSink<S, P>
    for tokio::sync::mpsc::UnboundedSender<WorkerReturn<S, P>>
{
    fn returned(&self, ret: WorkerReturn<S, P>) {
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

/// Why an identity change ends the reads of a source that keeps its own slots: `None` while
/// the confirmed scope stays; `new_epoch` for another confirmed scope; `withdrawn` for none
/// (G-6: nothing is read without a confirmed epoch).
pub fn epoch_change(
    current: Option<&ReadAuthority>,
    next: Option<&ReadAuthority>,
) -> Option<&'static str> {
    match (current, next) {
        (Some(a), Some(b)) if a.scope == b.scope => None,
        (_, Some(_)) => Some("new_epoch"),
        (_, None) => Some("withdrawn"),
    }
}

/// A worker in flight: the ticket it reads under and its task, aborted when dropped. The one
/// definition for every owner of workers: [`ReadOwner`]'s slots, the command-driven sources
/// that keep their own slots (turn inspector, Asks) and the workspace actor's `/health` probe.
#[derive(Debug)]
pub struct Running<S> {
    pub ticket: Ticket<S>,
    worker: WorkerHandle,
}

impl<S> Running<S> {
    /// Spawns `work` as the worker of `ticket`.
    pub fn spawn<F>(ticket: Ticket<S>, work: F) -> Self
    where
        F: Future<Output = ()> + Send + 'static,
    {
        Self {
            ticket,
            worker: WorkerHandle(tokio::spawn(work)),
        }
    }

    /// Aborts the task now (dropping the handle aborts it too).
    pub fn abort(&self) {
        self.worker.abort();
    }
}

impl<S: SlotKey> Running<S> {
    /// Cancels the worker and retires its ticket to the surface's inbox (the view marks what
    /// it had not received as unconfirmed; what it received stays, K-3, K-11).
    pub fn cancel<P: Send + 'static>(self, outlet: &Outlet<S, P>, reason: &str) {
        crate::timeline::stage::cancel_requested(&self.ticket, reason);
        self.abort();
        crate::timeline::stage::retire(&self.ticket, reason);
        outlet.retired(self.ticket.clone());
        crate::timeline::stage::unregistered(&self.ticket, reason);
    }

    /// Forgets a worker that ended by itself (nothing left to abort).
    pub fn finished(self) {
        crate::timeline::stage::unregistered(&self.ticket, "finished");
    }
}
