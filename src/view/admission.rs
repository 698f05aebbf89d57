//! Admission of results by ticket (sources.md G-2, G-4, G-6, G-7; architecture.md §3).
//!
//! A slot records the ticket of its latest dispatch as its owner. A result is applied only when
//! its ticket *is* that owner and its scope is the current read scope; anything else is
//! rejected with a typed reason and traced, and never touches the slot.

use super::fetched::{FailureClass, Fetched, Observed, SlotFailure};
use crate::actors::contract::Ticket;
use crate::protocol::admission::{AdmissionMode, ReadScope};
use crate::protocol::client::{Admitted, ClientError};
use crate::protocol::routes::RouteFamily;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// A point in the order the view handles events in: a read's dispatch, a save's receipt. The
/// view handles every inbox's events in the order their sources pushed them (architecture.md
/// §6), so a read whose dispatch it handled after a receipt was sent after the write that
/// receipt answers — its value can confirm the write; one dispatched before cannot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ViewMark(u64);

impl ViewMark {
    /// The next mark (strictly after every earlier one).
    pub fn next() -> Self {
        static MARKS: AtomicU64 = AtomicU64::new(0);
        Self(MARKS.fetch_add(1, Ordering::Relaxed) + 1)
    }
}

/// Why a result was not applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RejectReason {
    /// A newer dispatch owns the slot (G-3, G-7).
    Superseded,
    /// The result was read under another epoch or workspace than the current one (G-2).
    StaleEpoch,
    /// Read authority is withdrawn, or nothing owns the slot any more (retired, restarted) (G-6).
    Withdrawn,
    /// No slot of the model takes this source / payload.
    UnknownSlot,
    /// A chat result for a Keeper, request or workspace that is not the open chat target's.
    OtherTarget,
}

impl RejectReason {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Superseded => "superseded",
            Self::StaleEpoch => "stale_epoch",
            Self::Withdrawn => "withdrawn",
            Self::UnknownSlot => "unknown_slot",
            Self::OtherTarget => "other_target",
        }
    }
}

/// The read scope results must carry: the scope of the last confirmed identity, or none while
/// authority is withdrawn.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EpochGate {
    current: Option<ReadScope>,
}

impl EpochGate {
    pub fn current(&self) -> Option<&ReadScope> {
        self.current.as_ref()
    }

    /// Opens `scope`; returns `true` when it differs from the current one.
    pub fn confirm(&mut self, scope: ReadScope) -> bool {
        if self.current.as_ref() == Some(&scope) {
            return false;
        }
        self.current = Some(scope);
        true
    }

    /// Withdraws authority; returns `true` when an epoch was open.
    pub fn withdraw(&mut self) -> bool {
        self.current.take().is_some()
    }

    /// Whether a ticket's scope is the open one.
    pub fn check<S>(&self, ticket: &Ticket<S>) -> Result<(), RejectReason> {
        self.check_scope(&ticket.scope)
    }

    /// Whether `scope` is the open one.
    pub fn check_scope(&self, scope: &ReadScope) -> Result<(), RejectReason> {
        match &self.current {
            None => Err(RejectReason::Withdrawn),
            Some(current) if current == scope => Ok(()),
            Some(_) => Err(RejectReason::StaleEpoch),
        }
    }
}

/// Which dispatch owns a slot: the generation and scope of its ticket. The slot key itself is
/// implied by the slot the ticket was routed to (a ticket of another key never reaches it).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct OwnerId {
    pub generation: u64,
    pub scope: ReadScope,
}

impl OwnerId {
    pub fn of<S>(ticket: &Ticket<S>) -> Self {
        Self {
            generation: ticket.generation,
            scope: ticket.scope.clone(),
        }
    }
}

/// One owned read slot: the owner of the read in flight (if any) and what is known.
#[derive(Debug, Clone)]
pub struct Slot<T> {
    owner: Option<OwnerId>,
    /// When the view handled the owner's dispatch.
    owner_mark: Option<ViewMark>,
    /// When the view handled the dispatch of the read whose value is shown, and of the read
    /// that ended last (a value or a failure).
    value_mark: Option<ViewMark>,
    ended_mark: Option<ViewMark>,
    pub fetched: Fetched<T>,
    /// The scope the current value was admitted under (a new workspace never borrows it, G-6).
    value_scope: Option<ReadScope>,
    /// The user asked for a re-read that is not dispatched yet: its badge shows at once when
    /// it is (T.2).
    ask_next: bool,
}

impl<T> Default for Slot<T> {
    fn default() -> Self {
        Self {
            owner: None,
            owner_mark: None,
            value_mark: None,
            ended_mark: None,
            fetched: Fetched::NotRequested,
            value_scope: None,
            ask_next: false,
        }
    }
}

impl<T: Clone> Slot<T> {
    pub fn owner(&self) -> Option<&OwnerId> {
        self.owner.as_ref()
    }

    /// Whether a read is in flight for this slot.
    pub fn in_flight(&self) -> bool {
        self.owner.is_some()
    }

    /// A read was dispatched; its ticket owns the slot from now on. Returns `false` (and leaves
    /// the slot alone) when the ticket's scope is not the open one.
    pub fn dispatched<S>(&mut self, ticket: &Ticket<S>, gate: &EpochGate) -> bool {
        if gate.check(ticket).is_err() {
            return false;
        }
        if self.owner.is_none() {
            self.fetched.begin_read();
        }
        if std::mem::take(&mut self.ask_next) {
            self.fetched.mark_asked();
        }
        self.owner = Some(OwnerId::of(ticket));
        self.owner_mark = Some(ViewMark::next());
        true
    }

    /// The value shown, when the read it came from was dispatched after `mark` (a re-read
    /// after a save's receipt: what can confirm the save).
    pub fn value_since(&self, mark: ViewMark) -> Option<&T> {
        if self.value_mark.is_some_and(|m| m > mark) {
            return self.fetched.last().map(|o| &o.value);
        }
        None
    }

    /// The failure of the newest read, when it was dispatched after `mark`.
    pub fn failed_since(&self, mark: ViewMark) -> Option<&SlotFailure> {
        match &self.fetched {
            Fetched::Failed { error, .. } if self.ended_mark.is_some_and(|m| m > mark) => {
                Some(error)
            }
            _ => None,
        }
    }

    /// Whether `ticket`'s result may be applied.
    pub fn judge<S>(&self, ticket: &Ticket<S>, gate: &EpochGate) -> Result<(), RejectReason> {
        gate.check(ticket)?;
        match &self.owner {
            Some(owner) if owner.generation == ticket.generation && owner.scope == ticket.scope => {
                Ok(())
            }
            Some(_) => Err(RejectReason::Superseded),
            None => Err(RejectReason::Withdrawn),
        }
    }

    /// Judges a result for a slot that may be gone: its object was closed or another one was
    /// opened in its place. Such a result is never applied — `stale_epoch` when it belongs to
    /// another epoch, else `withdrawn` (G-7).
    pub fn judge_if_open<S>(
        slot: Option<&Self>,
        ticket: &Ticket<S>,
        gate: &EpochGate,
    ) -> Result<(), RejectReason> {
        match slot {
            Some(slot) => slot.judge(ticket, gate),
            None => gate.check(ticket).and(Err(RejectReason::Withdrawn)),
        }
    }

    /// Applies an admitted result (the caller has judged it); `into` turns the admitted
    /// `Arc<U>` into the slot's value type. A warming answer is not a value (G-5); a failure
    /// keeps the last good value beside it (G-4).
    pub fn apply_with<S, U>(
        &mut self,
        ticket: &Ticket<S>,
        result: Result<Admitted<U>, ClientError>,
        now: Instant,
        into: impl FnOnce(Arc<U>) -> T,
    ) {
        self.owner = None;
        let mark = self.owner_mark.take();
        self.ended_mark = mark;
        match result {
            Ok(admitted) => {
                self.value_mark = mark;
                self.value_scope = Some(ticket.scope.clone());
                self.fetched.admit(Observed {
                    value: into(admitted.value),
                    observed_at: now,
                    health_admitted: admitted.mode == AdmissionMode::Health,
                });
            }
            Err(ClientError::Warming) => self.fetched.warming(),
            Err(ClientError::NotServed { route }) => {
                // What this server does not serve is known of this workspace's server only: a
                // new workspace never inherits it (G-6).
                self.value_scope = Some(ticket.scope.clone());
                self.fetched.set_not_served(route);
            }
            Err(err) => self.fetched.fail(SlotFailure::of_client(&err), false),
        }
    }

    /// Applies a typed failure the caller derived from an admitted answer (e.g. a 200 "not
    /// found" body): the read ends, the last good value stays beside the failure (G-4).
    pub fn apply_failure(&mut self, failure: SlotFailure) {
        self.owner = None;
        self.ended_mark = self.owner_mark.take();
        self.fetched.fail(failure, false);
    }

    /// The read of `ticket` ended without a result. Returns `true` when it owned the slot.
    pub fn retired<S>(&mut self, ticket: &Ticket<S>) -> bool {
        if self.owner.as_ref() != Some(&OwnerId::of(ticket)) {
            return false;
        }
        self.owner = None;
        self.fetched.settle_without_result();
        true
    }

    /// Authority withdrawn or a new epoch opened: the read in flight loses its ownership, so
    /// its late result is rejected; the last value stays (G-6). Returns `true` on change.
    pub fn withdraw(&mut self) -> bool {
        if self.owner.take().is_none() {
            return false;
        }
        self.fetched.settle_without_result();
        true
    }

    /// A different workspace opened: its screen never shows this one's value (G-6).
    pub fn forget_other_workspace(&mut self, scope: &ReadScope) -> bool {
        match &self.value_scope {
            Some(v) if v.workspace != scope.workspace => {
                self.value_scope = None;
                self.fetched = Fetched::NotRequested;
                true
            }
            _ => false,
        }
    }

    /// The source restarted: its read in flight failed with `source_restarted`, last value kept.
    pub fn source_restarted(&mut self) -> bool {
        if self.owner.take().is_none() {
            return false;
        }
        self.fetched.fail(
            SlotFailure {
                class: FailureClass::SourceRestarted,
                detail: "the source actor restarted during the read".into(),
            },
            false,
        );
        true
    }

    /// The supervisor gave the source up (restart intensity exceeded): whatever was in flight
    /// will never return, and no further reads will come. The last value stays, marked.
    pub fn source_stopped(&mut self) -> bool {
        self.owner = None;
        self.fetched.fail(
            SlotFailure {
                class: FailureClass::SourceStopped,
                detail: "the source stopped after repeated failures; restart masc-tui to retry"
                    .into(),
            },
            false,
        );
        true
    }
}

/// What the epoch, supervision and badge rules need of any slot, whatever its value type:
/// one trait, so every surface runs the same loop over its slots.
pub trait ReadSlot {
    /// Authority withdrawn or a new epoch opened: the read in flight loses its ownership.
    fn withdraw_read(&mut self) -> bool;
    /// A different workspace opened: drop a value of another workspace (G-6).
    fn forget_other(&mut self, scope: &ReadScope) -> bool;
    /// The owning source restarted: a read in flight fails with `source_restarted`.
    fn restarted(&mut self) -> bool;
    /// The owning source was given up: whatever was in flight never returns and no further
    /// read comes; the slot fails with `source_stopped`, its last value kept. Always a change.
    fn stopped(&mut self) -> bool;
    /// The last read failed (with or without a last value). A route this MASC does not serve
    /// is not a failure (it is a known absence): see [`ReadSlot::not_served`].
    fn failed(&self) -> bool;
    /// The route family this MASC does not serve, when that is the slot's state:
    /// a known absence the surface shows and the header lists, never `degraded`.
    fn not_served(&self) -> Option<RouteFamily>;
    /// A re-read is in flight with the last value still shown (G-4).
    fn is_refreshing(&self) -> bool;
    /// A re-read whose badge shows at once (the user asked for it, T.2).
    fn is_asked(&self) -> bool;
    /// The user asked for a re-read: an in-flight re-read shows its badge now, and the next
    /// dispatch is marked asked.
    fn mark_asked(&mut self);
}

impl<T: Clone> ReadSlot for Slot<T> {
    fn withdraw_read(&mut self) -> bool {
        self.withdraw()
    }
    fn forget_other(&mut self, scope: &ReadScope) -> bool {
        self.forget_other_workspace(scope)
    }
    fn restarted(&mut self) -> bool {
        self.source_restarted()
    }
    fn stopped(&mut self) -> bool {
        self.source_stopped()
    }
    fn failed(&self) -> bool {
        matches!(self.fetched, Fetched::Failed { .. })
    }
    fn not_served(&self) -> Option<RouteFamily> {
        self.fetched.not_served()
    }
    fn is_refreshing(&self) -> bool {
        self.fetched.is_refreshing()
    }
    fn is_asked(&self) -> bool {
        matches!(self.fetched, Fetched::Refreshing { asked: true, .. })
    }
    fn mark_asked(&mut self) {
        if self.fetched.is_refreshing() {
            self.fetched.mark_asked();
        } else {
            self.ask_next = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::actors::keepers::KeepersSlot;
    use crate::protocol::admission::WorkspaceId;

    fn scope(epoch: u64) -> ReadScope {
        ReadScope {
            workspace: WorkspaceId("/w/.masc".into()),
            epoch,
        }
    }
    fn ticket(generation: u64, epoch: u64) -> Ticket<KeepersSlot> {
        Ticket {
            slot: KeepersSlot::Roster,
            generation,
            scope: scope(epoch),
        }
    }
    fn ok(v: u32) -> Result<Admitted<u32>, ClientError> {
        Ok(Admitted {
            value: Arc::new(v),
            mode: AdmissionMode::Receipt,
            from_cache: false,
        })
    }
    fn apply(slot: &mut Slot<u32>, t: &Ticket<KeepersSlot>, r: Result<Admitted<u32>, ClientError>) {
        slot.apply_with(t, r, Instant::now(), |a| *a);
    }

    #[test]
    fn g2_owner_ticket_of_current_epoch_is_admitted() {
        let mut gate = EpochGate::default();
        gate.confirm(scope(1));
        let mut slot: Slot<u32> = Slot::default();
        assert!(slot.dispatched(&ticket(1, 1), &gate));
        assert!(matches!(slot.fetched, Fetched::Loading));
        assert_eq!(slot.judge(&ticket(1, 1), &gate), Ok(()));
        apply(&mut slot, &ticket(1, 1), ok(7));
        assert_eq!(slot.fetched.last().map(|o| o.value), Some(7));
        assert!(!slot.in_flight());
    }

    #[test]
    fn g7_older_generation_is_superseded() {
        let mut gate = EpochGate::default();
        gate.confirm(scope(1));
        let mut slot: Slot<u32> = Slot::default();
        slot.dispatched(&ticket(1, 1), &gate);
        slot.dispatched(&ticket(2, 1), &gate);
        assert_eq!(
            slot.judge(&ticket(1, 1), &gate),
            Err(RejectReason::Superseded)
        );
        assert_eq!(slot.judge(&ticket(2, 1), &gate), Ok(()));
    }

    #[test]
    fn g6_withdrawal_rejects_late_results_and_keeps_last_value() {
        let mut gate = EpochGate::default();
        gate.confirm(scope(1));
        let mut slot: Slot<u32> = Slot::default();
        slot.dispatched(&ticket(1, 1), &gate);
        apply(&mut slot, &ticket(1, 1), ok(5));
        slot.dispatched(&ticket(2, 1), &gate);
        assert!(matches!(slot.fetched, Fetched::Refreshing { .. }));
        gate.withdraw();
        assert!(slot.withdraw());
        assert_eq!(
            slot.judge(&ticket(2, 1), &gate),
            Err(RejectReason::Withdrawn)
        );
        assert!(matches!(slot.fetched, Fetched::Ready(ref o) if o.value == 5));
        // A new epoch: the old-epoch result is stale, not merely withdrawn.
        gate.confirm(scope(2));
        assert_eq!(
            slot.judge(&ticket(2, 1), &gate),
            Err(RejectReason::StaleEpoch)
        );
        // A dispatch under the old scope never takes the slot.
        assert!(!slot.dispatched(&ticket(3, 1), &gate));
        assert!(!slot.in_flight());
    }

    #[test]
    fn g4_failure_keeps_last_value_and_warming_is_not_empty() {
        let mut gate = EpochGate::default();
        gate.confirm(scope(1));
        let mut slot: Slot<u32> = Slot::default();
        slot.dispatched(&ticket(1, 1), &gate);
        apply(&mut slot, &ticket(1, 1), Err(ClientError::Warming));
        assert!(matches!(slot.fetched, Fetched::Warming { last: None }));
        slot.dispatched(&ticket(2, 1), &gate);
        apply(&mut slot, &ticket(2, 1), ok(9));
        slot.dispatched(&ticket(3, 1), &gate);
        apply(&mut slot, &ticket(3, 1), Err(ClientError::Timeout));
        match &slot.fetched {
            Fetched::Failed {
                last: Some(o),
                error,
                ..
            } => {
                assert_eq!(o.value, 9);
                assert_eq!(error.class.to_string(), "timeout");
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn source_restart_fails_only_an_in_flight_read() {
        let mut gate = EpochGate::default();
        gate.confirm(scope(1));
        let mut slot: Slot<u32> = Slot::default();
        assert!(!slot.source_restarted());
        slot.dispatched(&ticket(1, 1), &gate);
        assert!(slot.source_restarted());
        assert!(
            matches!(&slot.fetched, Fetched::Failed { last: None, error, .. } if error.class == FailureClass::SourceRestarted)
        );
        assert_eq!(
            slot.judge(&ticket(1, 1), &gate),
            Err(RejectReason::Withdrawn)
        );
    }

    #[test]
    fn g6_another_workspace_never_borrows_the_value() {
        let mut gate = EpochGate::default();
        gate.confirm(scope(1));
        let mut slot: Slot<u32> = Slot::default();
        slot.dispatched(&ticket(1, 1), &gate);
        apply(&mut slot, &ticket(1, 1), ok(5));
        assert!(!slot.forget_other_workspace(&scope(2)));
        let other = ReadScope {
            workspace: WorkspaceId("/other/.masc".into()),
            epoch: 3,
        };
        assert!(slot.forget_other_workspace(&other));
        assert!(matches!(slot.fetched, Fetched::NotRequested));
    }

    /// G-6: "not served" is known of the server that said so; a new workspace
    /// starts from nothing, not from another server's absences.
    #[test]
    fn issue13_g6_another_workspace_never_inherits_not_served() {
        let mut gate = EpochGate::default();
        gate.confirm(scope(1));
        let mut slot: Slot<u32> = Slot::default();
        slot.dispatched(&ticket(1, 1), &gate);
        apply(
            &mut slot,
            &ticket(1, 1),
            Err(ClientError::NotServed {
                route: RouteFamily::Skills,
            }),
        );
        assert_eq!(slot.not_served(), Some(RouteFamily::Skills));
        assert!(!slot.failed());
        assert!(!slot.forget_other_workspace(&scope(2)));
        let other = ReadScope {
            workspace: WorkspaceId("/other/.masc".into()),
            epoch: 3,
        };
        assert!(slot.forget_other_workspace(&other));
        assert!(matches!(slot.fetched, Fetched::NotRequested));
    }

    #[test]
    fn retire_settles_only_the_owner() {
        let mut gate = EpochGate::default();
        gate.confirm(scope(1));
        let mut slot: Slot<u32> = Slot::default();
        slot.dispatched(&ticket(1, 1), &gate);
        assert!(!slot.retired(&ticket(9, 1)));
        assert!(slot.retired(&ticket(1, 1)));
        assert!(matches!(slot.fetched, Fetched::NotRequested));
    }
}
