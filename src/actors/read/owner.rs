//! [`ReadOwner`]: the per-source owner of read slots (see the module docs of `read`).

use super::{ExplicitPolicy, Reader, ReturnSink, Running, WorkerFault, WorkerReturn};
use crate::actors::contract::{
    DemandKind, GenerationCounter, IdentityState, Payload, SlotEvent, SlotKey, SlotSink, Ticket,
};
use crate::protocol::admission::{ReadAuthority, WorkspaceId};
use crate::protocol::client::WorkspaceClient;
use crate::timeline::stage;
use futures::FutureExt;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

/// How one slot is owned.
pub struct SlotSpec<S, P> {
    pub key: S,
    pub explicit: ExplicitPolicy,
    /// A standing slot wants a read whenever an epoch is open (polled sources): it is read on
    /// every confirmation, even in a different workspace.
    pub standing: bool,
    pub generations: GenerationCounter,
    pub reader: Reader<P>,
}

impl<S: SlotKey, P> SlotSpec<S, P> {
    /// A standing slot (read on every confirmed epoch and on the cadence) whose explicit
    /// demand supersedes the read in flight (G-3).
    pub fn standing(
        key: S,
        generations: &crate::actors::contract::GenerationBook,
        reader: Reader<P>,
    ) -> Self {
        Self {
            generations: generations.counter(&key),
            key,
            explicit: ExplicitPolicy::Supersede,
            standing: true,
            reader,
        }
    }
}

struct ReadSlot<S, P> {
    spec: SlotSpec<S, P>,
    in_flight: Option<Running<S>>,
    /// Exactly one follow-up read after the in-flight one (Coalesce).
    follow_up: bool,
    /// Demand that could not be served (no epoch, or withdrawn mid-read); served on the next
    /// confirmation of the same workspace (D-12, F-6).
    wanted: bool,
}

/// What a demand did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DemandOutcome<S> {
    Dispatched(Ticket<S>),
    /// A cadence demand joined the in-flight read.
    Shared(Ticket<S>),
    /// An explicit demand retired `retired` and dispatched `dispatched`.
    Superseded {
        retired: Ticket<S>,
        dispatched: Ticket<S>,
    },
    /// An explicit demand will run exactly one follow-up read after `in_flight`.
    Coalesced {
        in_flight: Ticket<S>,
    },
    Refused(Refusal),
}

/// Why a demand produced no ticket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// No confirmed read epoch; the demand is kept and served on confirmation.
    NoEpoch,
    /// This owner has no slot with that key.
    UnknownSlot,
}

impl Refusal {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::NoEpoch => "no_epoch",
            Self::UnknownSlot => "unknown_slot",
        }
    }
}

/// What an identity change did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdentityOutcome<S> {
    /// Tickets retired because their epoch ended.
    pub retired: Vec<Ticket<S>>,
    /// Tickets dispatched under the new epoch.
    pub dispatched: Vec<Ticket<S>>,
}

impl<S> Default for IdentityOutcome<S> {
    fn default() -> Self {
        Self {
            retired: Vec::new(),
            dispatched: Vec::new(),
        }
    }
}

/// What a worker's return did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReturnOutcome<S> {
    /// The result went to the view; `follow_up` is the coalesced read dispatched after it.
    Forwarded {
        ticket: Ticket<S>,
        follow_up: Option<Ticket<S>>,
    },
    /// The worker panicked; its ticket was retired.
    WorkerPanicked {
        ticket: Ticket<S>,
        follow_up: Option<Ticket<S>>,
    },
    /// The ticket no longer owns its slot (superseded, withdrawn): dropped, never forwarded.
    Stale(Ticket<S>),
}

impl<S> ReturnOutcome<S> {
    /// A read of the slot completed (the cadence may re-arm).
    pub fn completed(&self) -> bool {
        !matches!(self, Self::Stale(_))
    }
}

/// A read-only view of one slot, for tests and diagnostics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlotSnapshot<S> {
    pub last_generation: u64,
    pub in_flight: Option<Ticket<S>>,
    pub follow_up: bool,
    pub wanted: bool,
}

/// The owner of a source's read slots.
pub struct ReadOwner<S: SlotKey, P: Payload, R: ReturnSink<S, P>> {
    view: Arc<dyn SlotSink<S, P>>,
    returns: R,
    client: WorkspaceClient,
    authority: Option<ReadAuthority>,
    last_workspace: Option<WorkspaceId>,
    slots: Vec<ReadSlot<S, P>>,
}

impl<S: SlotKey, P: Payload, R: ReturnSink<S, P>> ReadOwner<S, P, R> {
    pub fn new(view: impl SlotSink<S, P>, returns: R, client: WorkspaceClient) -> Self {
        Self {
            view: Arc::new(view),
            returns,
            client,
            authority: None,
            last_workspace: None,
            slots: Vec::new(),
        }
    }

    /// Adds a slot. A slot that is `standing` starts out wanted (read on the first epoch).
    pub fn add_slot(&mut self, spec: SlotSpec<S, P>) {
        let wanted = spec.standing;
        self.slots.push(ReadSlot {
            spec,
            in_flight: None,
            follow_up: false,
            wanted,
        });
    }

    /// Replaces a slot's reader (parameterised sources); the in-flight read keeps its own.
    pub fn set_reader(&mut self, key: &S, reader: Reader<P>) -> bool {
        match self.index(key) {
            Some(i) => {
                self.slots[i].spec.reader = reader;
                true
            }
            None => false,
        }
    }

    /// The authority of the current epoch, if one is confirmed.
    pub fn authority(&self) -> Option<&ReadAuthority> {
        self.authority.as_ref()
    }

    pub fn snapshot(&self, key: &S) -> Option<SlotSnapshot<S>> {
        let slot = self.slots.get(self.index(key)?)?;
        Some(SlotSnapshot {
            last_generation: slot.spec.generations.current(),
            in_flight: slot.in_flight.as_ref().map(|f| f.ticket.clone()),
            follow_up: slot.follow_up,
            wanted: slot.wanted,
        })
    }

    fn index(&self, key: &S) -> Option<usize> {
        self.slots.iter().position(|s| &s.spec.key == key)
    }

    /// A demand for `key` (G-3).
    pub fn demand(&mut self, key: &S, kind: DemandKind) -> DemandOutcome<S> {
        let Some(i) = self.index(key) else {
            stage::refused(&key.trace_name(), Refusal::UnknownSlot.as_str());
            return DemandOutcome::Refused(Refusal::UnknownSlot);
        };
        if self.authority.is_none() {
            self.slots[i].wanted = true;
            stage::refused(&key.trace_name(), Refusal::NoEpoch.as_str());
            return DemandOutcome::Refused(Refusal::NoEpoch);
        }
        let slot = &mut self.slots[i];
        let Some(in_flight) = slot.in_flight.as_ref().map(|f| f.ticket.clone()) else {
            return self.dispatch_or_refuse(i);
        };
        match (kind, slot.spec.explicit) {
            (DemandKind::Cadence, _) => DemandOutcome::Shared(in_flight),
            (DemandKind::Explicit, ExplicitPolicy::Coalesce) => {
                slot.follow_up = true;
                DemandOutcome::Coalesced { in_flight }
            }
            (DemandKind::Explicit, ExplicitPolicy::Supersede) => {
                let retired = self.cancel(i, "superseded");
                match (retired, self.dispatch(i)) {
                    (Some(retired), Some(dispatched)) => DemandOutcome::Superseded {
                        retired,
                        dispatched,
                    },
                    (_, Some(dispatched)) => DemandOutcome::Dispatched(dispatched),
                    (_, None) => DemandOutcome::Refused(Refusal::NoEpoch),
                }
            }
        }
    }

    fn dispatch_or_refuse(&mut self, i: usize) -> DemandOutcome<S> {
        match self.dispatch(i) {
            Some(t) => DemandOutcome::Dispatched(t),
            None => DemandOutcome::Refused(Refusal::NoEpoch),
        }
    }

    /// The workspace actor's identity judgement (G-6): a confirmation of a new epoch retires
    /// reads of older epochs and serves outstanding demand; anything else withdraws authority.
    pub fn identity(&mut self, state: &IdentityState) -> IdentityOutcome<S> {
        let mut out = IdentityOutcome::default();
        match state {
            IdentityState::Confirmed { scope, mode, .. } => {
                let next = ReadAuthority {
                    scope: scope.clone(),
                    expected_root: scope.workspace.0.clone(),
                    mode: *mode,
                };
                if self.authority.as_ref() == Some(&next) {
                    return out;
                }
                out.retired = self.retire_all("epoch_changed");
                // Demand made before any workspace was confirmed belongs to the first one.
                let same_workspace = self
                    .last_workspace
                    .as_ref()
                    .is_none_or(|w| w == &scope.workspace);
                if !same_workspace {
                    // A different workspace never inherits demand or follow-ups (G-6, D-13).
                    for slot in &mut self.slots {
                        slot.wanted = false;
                        slot.follow_up = false;
                    }
                }
                self.last_workspace = Some(scope.workspace.clone());
                self.authority = Some(next);
                for i in 0..self.slots.len() {
                    let slot = &self.slots[i];
                    if slot.spec.standing || slot.wanted {
                        out.dispatched.extend(self.dispatch(i));
                    }
                }
            }
            IdentityState::Unconfirmed { .. }
            | IdentityState::Booting
            | IdentityState::Mismatch { .. } => {
                self.authority = None;
                out.retired = self.retire_all("withdrawn");
            }
        }
        out
    }

    /// Retires every in-flight read (withdrawal, shutdown). Their demand is kept as `wanted`,
    /// folded with any follow-up into one read on the next confirmation (F-6).
    pub fn retire_all(&mut self, reason: &str) -> Vec<Ticket<S>> {
        let mut retired = Vec::new();
        for i in 0..self.slots.len() {
            if let Some(t) = self.cancel(i, reason) {
                self.slots[i].wanted = true;
                retired.push(t);
            }
            if std::mem::take(&mut self.slots[i].follow_up) {
                self.slots[i].wanted = true;
            }
        }
        retired
    }

    /// A worker finished. Forwarded only if its ticket still owns the slot (G-2, G-7).
    pub fn worker_returned(&mut self, ret: WorkerReturn<S, P>) -> ReturnOutcome<S> {
        let outcome = ret.outcome_class();
        let WorkerReturn { ticket, result } = ret;
        stage::observe(&ticket, &outcome);
        let owner = self.index(&ticket.slot).filter(|&i| {
            self.slots[i]
                .in_flight
                .as_ref()
                .is_some_and(|f| f.ticket == ticket)
        });
        let current_scope = self.authority.as_ref().map(|a| &a.scope);
        let Some(i) = owner.filter(|_| current_scope == Some(&ticket.scope)) else {
            // Its read was already retired (and the view told); never forwarded.
            stage::reject(&ticket, "late_after_retire");
            return ReturnOutcome::Stale(ticket);
        };
        // Taking the registration only now, after the ownership check, is what keeps a late
        // worker from clearing a newer worker's state (G-7).
        drop(self.slots[i].in_flight.take());
        stage::unregistered(&ticket, "returned");
        let panicked = match result {
            Ok(payload) => {
                self.view
                    .slot_event(SlotEvent::Observed(ticket.clone(), payload));
                false
            }
            Err(WorkerFault::Panicked) => {
                self.view.slot_event(SlotEvent::Retired(ticket.clone()));
                stage::retire(&ticket, "worker_panicked");
                true
            }
        };
        let follow_up = if std::mem::take(&mut self.slots[i].follow_up) {
            self.dispatch(i)
        } else {
            None
        };
        if panicked {
            ReturnOutcome::WorkerPanicked { ticket, follow_up }
        } else {
            ReturnOutcome::Forwarded { ticket, follow_up }
        }
    }

    /// Cancels slot `i`'s in-flight read: abort the worker, retire the ticket to the view.
    fn cancel(&mut self, i: usize, reason: &str) -> Option<Ticket<S>> {
        let in_flight = self.slots[i].in_flight.take()?;
        let ticket = in_flight.ticket.clone();
        stage::cancel_requested(&ticket, reason);
        in_flight.abort();
        self.view.slot_event(SlotEvent::Retired(ticket.clone()));
        stage::retire(&ticket, reason);
        drop(in_flight);
        stage::unregistered(&ticket, reason);
        Some(ticket)
    }

    /// Allocates a generation, tells the view, spawns the worker. `None` without an epoch.
    fn dispatch(&mut self, i: usize) -> Option<Ticket<S>> {
        let auth = self.authority.clone()?;
        let slot = &mut self.slots[i];
        let ticket = Ticket {
            slot: slot.spec.key.clone(),
            generation: slot.spec.generations.next(),
            scope: auth.scope.clone(),
        };
        stage::dispatch(&ticket);
        self.view.slot_event(SlotEvent::Dispatched(ticket.clone()));
        let reader = slot.spec.reader.clone();
        let client = self.client.clone();
        let returns = self.returns.clone();
        let worker_ticket = ticket.clone();
        let worker = Running::spawn(ticket.clone(), async move {
            stage::worker_enter(&worker_ticket);
            let read = async move { reader(auth, client).await };
            let result = AssertUnwindSafe(read)
                .catch_unwind()
                .await
                .map_err(|_| WorkerFault::Panicked);
            let outcome = match &result {
                Ok(payload) => payload.outcome(),
                Err(WorkerFault::Panicked) => "worker_panicked".to_string(),
            };
            stage::worker_return(&worker_ticket, &outcome);
            returns.returned(WorkerReturn {
                ticket: worker_ticket,
                result,
            });
        });
        slot.in_flight = Some(worker);
        slot.wanted = false;
        Some(ticket)
    }
}

impl<S: SlotKey, P: Payload, R: ReturnSink<S, P>> Drop for ReadOwner<S, P, R> {
    fn drop(&mut self) {
        // Workers die with their owner (Running aborts on drop); nothing is retired here
        // because the view learns of a dead source from the supervisor (SourceRestarted).
        for slot in &mut self.slots {
            if let Some(f) = slot.in_flight.take() {
                stage::unregistered(&f.ticket, "owner_stopped");
            }
        }
    }
}
