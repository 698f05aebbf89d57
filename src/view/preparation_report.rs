//! The preparation detail model (sources.md M-1…M-9; protocol.md §14.12): the stored report of
//! the open chat's newest finished turn, read only while that chat's details are expanded
//! (`Ctrl-S`, M-9). One target at a time: the view aims it ([`PreparationReportModel::aim`]) and an
//! answer for any other target is `other_target` (M-5: a new selection detaches the old
//! response). A completed read of the same target is reused, never read again (M-5); a failed
//! re-read keeps the last success beside the failure (M-6, G-4). Another workspace drops
//! everything (G-6).

use super::admission::{EpochGate, ReadSlot, RejectReason, Slot};
use super::surface::{SurfaceModel, not_served_of};
use crate::actors::contract::{Inbox, Inboxes, SourceKey, Ticket};
use crate::actors::preparation_report::{
    PREPARATION_REPORT, PreparationReportObservation, PreparationReportSlot,
    PreparationReportTarget,
};
use crate::protocol::admission::ReadScope;
use crate::protocol::routes::RouteFamily;
use crate::protocol::runtime_trace::RuntimeTrace;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Instant, SystemTime};

/// What the details of the open chat point at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Aim {
    /// Details folded, no chat, or no finished turn with a link: nothing is read (M-9).
    Nothing,
    /// The turn's links disagree (the reply's `turn_ref` and the operation record's
    /// `outcome_ref`): neither is chosen (M-2).
    Conflict { reply: String, record: String },
    /// Exactly one link.
    Target(PreparationReportTarget),
}

#[derive(Debug)]
pub struct PreparationReportModel {
    inbox: Inbox<PreparationReportSlot, PreparationReportObservation>,
    /// What the details point at now.
    pub aim: Aim,
    /// The read of the aimed target (a fresh slot per target).
    pub report: Slot<Arc<RuntimeTrace>>,
    /// Completed reads of this session's targets, in the workspace they were read in (M-5),
    /// with this machine's wall clock when each was admitted (`최근 확인`).
    done: HashMap<PreparationReportTarget, (Arc<RuntimeTrace>, SystemTime)>,
    workspace: Option<String>,
}

impl Default for PreparationReportModel {
    fn default() -> Self {
        Self::new(&Inboxes::new())
    }
}

impl PreparationReportModel {
    pub fn new(inboxes: &Inboxes) -> Self {
        Self {
            inbox: inboxes.get(),
            aim: Aim::Nothing,
            report: Slot::default(),
            done: HashMap::new(),
            workspace: None,
        }
    }

    /// Points the details at `aim`; `Some(target)` when a read is to be sent (a new target not
    /// read to completion in this workspace yet).
    pub fn aim(&mut self, aim: Aim) -> Option<PreparationReportTarget> {
        if aim == self.aim {
            return None;
        }
        self.aim = aim;
        self.report = Slot::default();
        match &self.aim {
            Aim::Target(t) if !self.done.contains_key(t) => Some(t.clone()),
            _ => None,
        }
    }

    /// The completed report of the aimed target, if one was read (this read or an earlier),
    /// and when it was admitted.
    pub fn completed(&self) -> Option<&(Arc<RuntimeTrace>, SystemTime)> {
        match &self.aim {
            Aim::Target(t) => self.done.get(t),
            _ => None,
        }
    }

    fn aimed(&self) -> Option<&PreparationReportTarget> {
        match &self.aim {
            Aim::Target(t) => Some(t),
            _ => None,
        }
    }
}

impl SurfaceModel for PreparationReportModel {
    type Slot = PreparationReportSlot;
    type Payload = PreparationReportObservation;

    fn inbox(&self) -> &Inbox<PreparationReportSlot, PreparationReportObservation> {
        &self.inbox
    }

    fn dispatched(&mut self, ticket: &Ticket<PreparationReportSlot>, gate: &EpochGate) -> bool {
        self.aimed().is_some() && self.report.dispatched(ticket, gate)
    }

    fn judge(
        &mut self,
        ticket: &Ticket<PreparationReportSlot>,
        payload: &PreparationReportObservation,
        gate: &EpochGate,
    ) -> Result<(), RejectReason> {
        gate.check(ticket)?;
        if self.aimed() != Some(&payload.target) {
            return Err(RejectReason::OtherTarget);
        }
        self.report.judge(ticket, gate)
    }

    fn apply(
        &mut self,
        ticket: &Ticket<PreparationReportSlot>,
        payload: PreparationReportObservation,
        now: Instant,
    ) {
        if let Ok(admitted) = &payload.result {
            self.done.insert(
                payload.target.clone(),
                (admitted.value.clone(), SystemTime::now()),
            );
        }
        self.report.apply_with(ticket, payload.result, now, |v| v);
    }

    fn retired(&mut self, ticket: &Ticket<PreparationReportSlot>) -> bool {
        self.report.retired(ticket)
    }

    fn slot(&mut self, _key: &PreparationReportSlot) -> Option<&mut dyn ReadSlot> {
        Some(&mut self.report)
    }

    fn slots(&mut self) -> Vec<(SourceKey, &mut dyn ReadSlot)> {
        vec![(PREPARATION_REPORT, &mut self.report as &mut dyn ReadSlot)]
    }

    /// A new epoch: the read in flight loses its ownership; another workspace's reports go
    /// (G-6).
    fn on_new_epoch(&mut self, scope: &ReadScope) -> bool {
        let mut changed = self.report.withdraw_read();
        changed |= self.report.forget_other(scope);
        if self.workspace.as_deref() != Some(scope.workspace.0.as_str()) {
            self.workspace = Some(scope.workspace.0.clone());
            self.done.clear();
            changed = true;
        }
        changed
    }

    /// A failed report shows where it is read (the chat's detail rows), not as a degraded
    /// connection.
    fn any_failed(&self) -> bool {
        false
    }

    fn not_served(&self) -> Vec<RouteFamily> {
        not_served_of(&[&self.report])
    }
}
