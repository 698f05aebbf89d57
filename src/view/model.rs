//! The view's model: workspace identity, the epoch gate and one [`Slot`] per owned read.
//!
//! Pure: messages in, changed-or-not out. Every admission verdict on a result is traced as a
//! stage event (`admit` / `reject{reason}`, architecture.md §3).

use super::admission::{EpochGate, RejectReason, Slot};
use super::board::BoardModel;
use super::fetched::{Fetched, ReadBadge};
use super::system::SystemModel;
use crate::actors::messages::{IdentityState, Observation, ObservationPayload};
use crate::actors::ticket::{SourceKey, Ticket};
use crate::protocol::admission::AdmissionMode;
use crate::protocol::keepers::KeeperRoster;
use std::sync::Arc;
use std::time::Instant;

/// The connection state the header shows (surfaces.md: header connection states).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConnectionState {
    /// No identity confirmed yet.
    Connecting,
    /// `/health` says the server is still starting (`state_ready: false`).
    Booting,
    /// Identity confirmed and every slot's last read succeeded (or is pending).
    Connected,
    /// Identity confirmed but some slot's last read failed.
    Degraded,
    /// Identity was confirmed before and is now lost, or the server serves another workspace.
    Disconnected,
}

impl ConnectionState {
    pub fn label(self) -> &'static str {
        match self {
            Self::Connecting => "connecting...",
            Self::Booting => "server booting...",
            Self::Connected => "connected",
            Self::Degraded => "degraded",
            Self::Disconnected => "disconnected",
        }
    }
}

/// The model every projection reads.
#[derive(Debug, Default)]
pub struct Model {
    /// The last identity judgement, `None` before the workspace actor said anything.
    pub identity: Option<IdentityState>,
    ever_confirmed: bool,
    gate: EpochGate,
    pub keepers: Slot<Arc<KeeperRoster>>,
    /// The open Keeper chat (the chat target), if any.
    pub chat: Option<crate::view::screens::chat::ChatPane>,
    /// Work: Planning, Task list, the open Task detail and Goal detail (`crate::view::work`).
    pub work: crate::view::work::WorkModel,
    /// Board: posts, hearth census and the open post (`crate::view::board`).
    pub board: crate::view::board::BoardModel,
    /// System: Tools inventory, Skills catalogue, async requests, Runtime catalogue.
    pub system: SystemModel,
}

impl Model {
    pub fn gate(&self) -> &EpochGate {
        &self.gate
    }

    /// The admission mode of the open epoch, if any.
    pub fn admission_mode(&self) -> Option<AdmissionMode> {
        match &self.identity {
            Some(IdentityState::Confirmed { mode, .. }) => Some(*mode),
            _ => None,
        }
    }

    /// The workspace base path of the last confirmed identity, or the expected one.
    pub fn base_path(&self) -> Option<&str> {
        match &self.identity {
            Some(IdentityState::Confirmed { base_path, .. }) => Some(base_path),
            Some(IdentityState::Mismatch { expected, .. }) => Some(expected),
            _ => None,
        }
    }

    pub fn connection(&self) -> ConnectionState {
        match &self.identity {
            None => ConnectionState::Connecting,
            Some(IdentityState::Booting) => ConnectionState::Booting,
            Some(IdentityState::Mismatch { .. }) => ConnectionState::Disconnected,
            Some(IdentityState::Unconfirmed { .. }) if self.ever_confirmed => {
                ConnectionState::Disconnected
            }
            Some(IdentityState::Unconfirmed { .. }) => ConnectionState::Connecting,
            Some(IdentityState::Confirmed { .. }) => {
                if matches!(self.keepers.fetched, Fetched::Failed { .. })
                    || self.work.any_failed()
                    || self.board.any_failed()
                    || self.system.any_failed()
                {
                    ConnectionState::Degraded
                } else {
                    ConnectionState::Connected
                }
            }
        }
    }

    fn slot_for(&mut self, source: &SourceKey) -> Option<&mut Slot<Arc<KeeperRoster>>> {
        match source {
            SourceKey::KeepersRoster => Some(&mut self.keepers),
            _ => None,
        }
    }

    /// The read state of `source`'s slot, whatever its value type (None: no such slot).
    pub fn read_badge(&mut self, source: &SourceKey) -> Option<&mut dyn ReadBadge> {
        if crate::view::work::WorkModel::owns(source) {
            return self.work.read_badge(source);
        }
        if BoardModel::owns(source) {
            return self.board.read_badge(source);
        }
        if SystemModel::owns(source) {
            return self.system.read_badge(source);
        }
        self.slot_for(source)
            .map(|slot| &mut slot.fetched as &mut dyn ReadBadge)
    }

    /// Whether `source`'s slot is re-reading with its last value still shown (G-4).
    pub fn is_refreshing(&mut self, source: &SourceKey) -> bool {
        self.read_badge(source).is_some_and(|b| b.is_refreshing())
    }

    /// `Dispatched`: the ticket owns its slot. Returns `true` when the model changed.
    pub fn on_dispatched(&mut self, ticket: Ticket) -> bool {
        let gate = self.gate.clone();
        if let (SourceKey::Chat { .. }, Some(pane)) = (&ticket.source, self.chat.as_mut()) {
            return pane.dispatched(ticket, &gate);
        }
        if crate::view::work::WorkModel::owns(&ticket.source) {
            return self.work.on_dispatched(ticket, &gate);
        }
        if BoardModel::owns(&ticket.source) {
            return self.board.on_dispatched(ticket, &gate);
        }
        if SystemModel::owns(&ticket.source) {
            return self.system.on_dispatched(ticket, &gate);
        }
        match self.slot_for(&ticket.source) {
            Some(slot) => slot.dispatched(ticket, &gate),
            None => false,
        }
    }

    /// `Observed`: admitted and applied, or rejected (and never applied). Traced either way.
    pub fn on_observed(&mut self, obs: Observation, now: Instant) -> Result<(), RejectReason> {
        let Observation { ticket, payload } = obs;
        if let ObservationPayload::Chat(chat) = payload {
            let gate = self.gate.clone();
            let verdict = match self.chat.as_mut() {
                Some(pane) => pane.judge(&ticket, &chat, &gate),
                None => Err(RejectReason::OtherTarget),
            };
            stage_trace(&ticket, verdict);
            verdict?;
            if let Some(pane) = self.chat.as_mut() {
                pane.apply(&ticket, *chat);
            }
            return Ok(());
        }
        if crate::view::work::WorkModel::owns(&ticket.source) {
            let verdict = self.work.judge(&ticket, &payload, &self.gate);
            stage_trace(&ticket, verdict);
            verdict?;
            self.work.apply(&ticket, payload, now);
            return Ok(());
        }
        if BoardModel::owns(&ticket.source) {
            let verdict = self.board.judge(&ticket, &payload, &self.gate);
            stage_trace(&ticket, verdict);
            verdict?;
            self.board.apply(&ticket, payload, now);
            return Ok(());
        }
        if SystemModel::owns(&ticket.source) {
            let verdict = self.system.judge(&ticket, &payload, &self.gate);
            stage_trace(&ticket, verdict);
            verdict?;
            self.system.apply(&ticket, payload, now);
            return Ok(());
        }
        let verdict = self.judge(&ticket, &payload);
        stage_trace(&ticket, verdict);
        verdict?;
        match payload {
            ObservationPayload::KeepersRoster(result) => {
                self.keepers.apply_with(&ticket, result, now, |v| v);
            }
            _ => return Err(RejectReason::UnknownSlot),
        }
        Ok(())
    }

    fn judge(&mut self, ticket: &Ticket, payload: &ObservationPayload) -> Result<(), RejectReason> {
        let fits = matches!(
            (&ticket.source, payload),
            (
                SourceKey::KeepersRoster,
                ObservationPayload::KeepersRoster(_)
            )
        );
        if !fits {
            return Err(RejectReason::UnknownSlot);
        }
        let gate = self.gate.clone();
        match self.slot_for(&ticket.source) {
            Some(slot) => slot.judge(ticket, &gate),
            None => Err(RejectReason::UnknownSlot),
        }
    }

    /// `Retired`: the owner's read ended without a result.
    pub fn on_retired(&mut self, ticket: &Ticket) -> bool {
        if let (SourceKey::Chat { .. }, Some(pane)) = (&ticket.source, self.chat.as_mut()) {
            return pane.retired(ticket);
        }
        if crate::view::work::WorkModel::owns(&ticket.source) {
            return self.work.on_retired(ticket);
        }
        if BoardModel::owns(&ticket.source) {
            return self.board.on_retired(ticket);
        }
        if SystemModel::owns(&ticket.source) {
            return self.system.on_retired(ticket);
        }
        match self.slot_for(&ticket.source) {
            Some(slot) => slot.retired(ticket),
            None => false,
        }
    }

    /// `Identity`: a confirmed scope opens (or keeps) the epoch; anything else withdraws it.
    /// Either way reads of an earlier epoch lose their slots (G-6).
    pub fn on_identity(&mut self, state: IdentityState) -> bool {
        let mut changed = self.identity.as_ref() != Some(&state);
        match &state {
            IdentityState::Confirmed { scope, .. } => {
                self.ever_confirmed = true;
                if self.gate.confirm(scope.clone()) {
                    changed |= self.keepers.withdraw();
                    changed |= self.keepers.forget_other_workspace(scope);
                    if let Some(pane) = self.chat.as_mut() {
                        changed |= pane.withdraw();
                        if pane.workspace.as_ref() != Some(&scope.workspace) {
                            pane.reset_for(scope.workspace.clone());
                            changed = true;
                        }
                    }
                    changed |= self.work.on_new_epoch(scope);
                    changed |= self.board.on_new_epoch(scope);
                    changed |= self.system.on_new_epoch(scope);
                }
            }
            IdentityState::Unconfirmed { .. }
            | IdentityState::Booting
            | IdentityState::Mismatch { .. } => {
                if self.gate.withdraw() {
                    changed |= self.keepers.withdraw();
                    if let Some(pane) = self.chat.as_mut() {
                        changed |= pane.withdraw();
                    }
                    changed |= self.work.on_withdrawn();
                    changed |= self.board.on_withdrawn();
                    changed |= self.system.on_withdrawn();
                }
            }
        }
        self.identity = Some(state);
        changed
    }

    /// `SourceRestarted`: that source's read in flight fails with `source_restarted`.
    pub fn on_source_restarted(&mut self, source: &SourceKey) -> bool {
        if crate::view::work::WorkModel::owns(source) {
            return self.work.on_source_restarted(source);
        }
        if BoardModel::owns(source) {
            return self.board.on_source_restarted(source);
        }
        if SystemModel::owns(source) {
            return self.system.on_source_restarted(source);
        }
        match self.slot_for(source) {
            Some(slot) => slot.source_restarted(),
            None => false,
        }
    }

    pub fn on_source_stopped(&mut self, source: &SourceKey) -> bool {
        if crate::view::work::WorkModel::owns(source) {
            return self.work.on_source_stopped(source);
        }
        if BoardModel::owns(source) {
            return self.board.on_source_stopped(source);
        }
        if SystemModel::owns(source) {
            return self.system.on_source_stopped(source);
        }
        match self.slot_for(source) {
            Some(slot) => slot.source_stopped(),
            None => false,
        }
    }
}

/// The one place stage events of admission are emitted.
fn stage_trace(ticket: &Ticket, verdict: Result<(), RejectReason>) {
    match verdict {
        Ok(()) => crate::timeline::stage::admit(ticket),
        Err(reason) => crate::timeline::stage::reject(ticket, reason.as_str()),
    }
}
