//! [`RequestWorkers`]: the reads of a source that starts them from commands, one worker per
//! slot, each under a ticket of its own (the Asks follow-ups and transcripts, the turn
//! inspector's records and inputs).
//!
//! - Nothing is read without a confirmed epoch (refused `no_epoch`); withdrawal or a new epoch
//!   cancels every worker and retires its ticket (G-6).
//! - A worker reports through its source's mailbox (a cast: a worker never waits); each of its
//!   steps is forwarded to the surface's inbox only while its ticket still owns the slot, so a
//!   cancelled or superseded worker never touches a newer read (G-7); its last step forgets it.
//! - A worker that panics returns `worker_panicked`: its ticket is retired, or the source's
//!   stand-in observation for that slot is forwarded in its place.
//! - Each worker carries a tag `T` the source decides by (the records `limit` of a page).

use super::msg::SourceMsg;
use super::shell::{Ctl, Myself, SourceState};
use super::{Running, WorkerFault, WorkerReturn, epoch_change};
use crate::actors::contract::{
    GenerationBook, IdentityState, Outlet, Payload, SlotKey, SourceContext, Ticket,
};
use crate::protocol::admission::ReadAuthority;
use crate::protocol::client::WorkspaceClient;
use crate::timeline::stage;
use futures::FutureExt;
use ractor::{ActorRef, Message};
use std::collections::HashMap;
use std::future::Future;
use std::hash::Hash;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

/// How a worker hands a step back: every step is an observation of its ticket.
pub type Emit<P> = Arc<dyn Fn(P) + Send + Sync>;

/// What a source says about its payloads: whether a step is its worker's last, and what
/// stands in for a panicked worker of a slot (`None`: the ticket is retired).
pub struct StepRules<S, P> {
    pub last: fn(&P) -> bool,
    pub panicked: fn(&S) -> Option<P>,
}

/// The reads in flight of one command-driven source, per slot.
pub struct RequestWorkers<S, P, T = ()> {
    client: WorkspaceClient,
    generations: GenerationBook,
    outlet: Outlet<S, P>,
    authority: Option<ReadAuthority>,
    rules: StepRules<S, P>,
    running: HashMap<S, (Running<S>, T)>,
}

impl<S, P, T> RequestWorkers<S, P, T>
where
    S: SlotKey + Hash,
    P: Payload,
{
    pub fn new(ctx: &SourceContext, rules: StepRules<S, P>) -> Self {
        Self {
            client: ctx.client.clone(),
            generations: ctx.generations.clone(),
            outlet: ctx.outlet(),
            authority: None,
            rules,
            running: HashMap::new(),
        }
    }

    /// The confirmed epoch reads are made under, if any.
    pub fn authority(&self) -> Option<&ReadAuthority> {
        self.authority.as_ref()
    }

    /// Withdrawal or a new epoch cancels every worker (G-6).
    pub fn identity(&mut self, identity: &IdentityState) {
        let next = identity.authority();
        if let Some(reason) = epoch_change(self.authority.as_ref(), next.as_ref()) {
            for (_, (running, _)) in std::mem::take(&mut self.running) {
                running.cancel(&self.outlet, reason);
            }
        }
        self.authority = next;
    }

    /// The tag of the read of `slot` in flight, if one is.
    pub fn in_flight(&self, slot: &S) -> Option<&T> {
        self.running.get(slot).map(|(_, tag)| tag)
    }

    /// Cancels the reads whose slot `which` picks and retires their tickets.
    pub fn cancel_where(&mut self, which: impl Fn(&S) -> bool, reason: &str) {
        let picked: Vec<S> = self.running.keys().filter(|s| which(s)).cloned().collect();
        for slot in picked {
            if let Some((running, _)) = self.running.remove(&slot) {
                running.cancel(&self.outlet, reason);
            }
        }
    }

    /// Starts a read of `slot` (a read of it in flight is cancelled first — the source decides
    /// before whether one should answer instead). `work` gets the authority, the client and
    /// the [`Emit`] its steps go through. Refused (`no_epoch`, `false`) without a confirmed
    /// epoch.
    pub fn dispatch<C, F, Fut>(
        &mut self,
        myself: &ActorRef<SourceMsg<S, P, C>>,
        slot: S,
        tag: T,
        work: F,
    ) -> bool
    where
        SourceMsg<S, P, C>: Message,
        F: FnOnce(ReadAuthority, WorkspaceClient, Emit<P>) -> Fut,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let Some(auth) = self.authority.clone() else {
            stage::refused(&slot.trace_name(), "no_epoch");
            return false;
        };
        self.cancel_where(|s| *s == slot, "superseded");
        let ticket = Ticket {
            generation: self.generations.counter(&slot).next(),
            slot: slot.clone(),
            scope: auth.scope.clone(),
        };
        stage::dispatch(&ticket);
        self.outlet.dispatched(ticket.clone());
        let last = self.rules.last;
        let (to, t) = (myself.clone(), ticket.clone());
        let emit: Emit<P> = Arc::new(move |step: P| {
            if last(&step) {
                stage::worker_return(&t, &step.outcome());
            }
            let _ = to.cast(SourceMsg::Returned(WorkerReturn {
                ticket: t.clone(),
                result: Ok(step),
            }));
        });
        let read = work(auth, self.client.clone(), emit);
        let (to, t) = (myself.clone(), ticket.clone());
        let worker = Running::spawn(ticket, async move {
            stage::worker_enter(&t);
            if AssertUnwindSafe(read).catch_unwind().await.is_err() {
                stage::worker_return(&t, "worker_panicked");
                let _ = to.cast(SourceMsg::Returned(WorkerReturn {
                    ticket: t,
                    result: Err(WorkerFault::Panicked),
                }));
            }
        });
        self.running.insert(slot, (worker, tag));
        true
    }

    fn owns(&self, ticket: &Ticket<S>) -> bool {
        self.running
            .get(&ticket.slot)
            .is_some_and(|(r, _)| r.ticket == *ticket)
    }

    /// A worker's step or its panic: forwarded while its ticket owns the slot, rejected
    /// (`late_after_retire`) when superseded or withdrawn meanwhile.
    pub fn returned(&mut self, ret: WorkerReturn<S, P>) {
        let WorkerReturn { ticket, result } = ret;
        let step = match result {
            Ok(step) => step,
            Err(WorkerFault::Panicked) => match (self.rules.panicked)(&ticket.slot) {
                Some(stand_in) => stand_in,
                None => {
                    if self.owns(&ticket) {
                        stage::retire(&ticket, "worker_panicked");
                        self.outlet.retired(ticket.clone());
                        self.finished(&ticket);
                    }
                    return;
                }
            },
        };
        stage::observe(&ticket, &step.outcome());
        if !self.owns(&ticket) {
            stage::reject(&ticket, "late_after_retire");
            return;
        }
        let last = (self.rules.last)(&step);
        self.outlet.observed(ticket.clone(), step);
        if last {
            self.finished(&ticket);
        }
    }

    /// Forgets a worker that ended by itself (nothing to abort).
    fn finished(&mut self, ticket: &Ticket<S>) {
        if let Some((running, _)) = self.running.remove(&ticket.slot) {
            running.finished();
        }
    }
}

/// A worker's one read: its result is its only, and last, step.
pub async fn one_step<P>(emit: Emit<P>, read: impl Future<Output = P>) {
    emit(read.await);
}

/// A source whose reads all start from its commands, each one [`RequestWorkers`] read: what
/// differs between such sources. Its state is [`RequestState`].
pub trait Requests: Send + 'static {
    type Slot: SlotKey + Hash;
    type Payload: Payload;
    type Command: Send + 'static;
    /// What each worker carries for the source to decide by.
    type Tag: Send + 'static;

    const RULES: StepRules<Self::Slot, Self::Payload>;

    /// Starts (or shares) the reads a command asks for.
    fn command(
        workers: &mut RequestWorkers<Self::Slot, Self::Payload, Self::Tag>,
        myself: &ActorRef<SourceMsg<Self::Slot, Self::Payload, Self::Command>>,
        command: Self::Command,
    );
}

/// The state of a [`Requests`] source: its workers. Nothing is read on a demand or a cadence
/// (visibility changes nothing); identity changes cancel every worker; workers in flight when
/// the actor stops are aborted with it.
pub struct RequestState<R: Requests> {
    workers: RequestWorkers<R::Slot, R::Payload, R::Tag>,
}

impl<R: Requests> SourceState for RequestState<R> {
    type Slot = R::Slot;
    type Payload = R::Payload;
    type Command = R::Command;
    type Args = ();

    fn start(ctx: SourceContext, _myself: &Myself<Self>, _args: ()) -> Self {
        Self {
            workers: RequestWorkers::new(&ctx, R::RULES),
        }
    }

    fn command(&mut self, ctl: &mut Ctl<Self>, command: R::Command) {
        R::command(&mut self.workers, &ctl.myself, command);
    }

    fn identity(&mut self, _ctl: &mut Ctl<Self>, identity: IdentityState) {
        self.workers.identity(&identity);
    }

    fn returned(&mut self, _ctl: &mut Ctl<Self>, ret: WorkerReturn<R::Slot, R::Payload>) -> bool {
        self.workers.returned(ret);
        false
    }

    fn stop(&mut self, _reason: &str) {}
}
