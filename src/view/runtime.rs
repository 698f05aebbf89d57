//! The Runtime surface's model (protocol.md §9.1–§9.4; sources.md F-1…F-7, I-1…I-5,
//! J-1…J-5, P-1, P-2): the Runtime catalogue, the raw `runtime.toml` the forms open on, and the
//! form and raw config saves, each in its own book.
//!
//! The Runtime catalogue is one joined load (F-7): one ticket owns two view slots, the
//! catalogue (`catalogue`, read by System › Runtime, Overview and the forms alike, F-1) and the
//! reachability probe (`probe`). A load's parts are applied each to its own slot, so a probe
//! failure alone keeps the lanes with the last good probe, and a catalogue failure keeps the
//! last joined rows under the error (F-7); what each part came to is kept for the header
//! (`loads`, P-1, P-2). A failed re-read keeps the last good value beside the failure (F-5).

use super::admission::{EpochGate, ReadSlot, RejectReason, Slot};
use super::surface::{SurfaceModel, not_served_of};
use crate::actors::contract::{Inbox, Inboxes, SourceKey, Ticket};
use crate::actors::runtime::form::RuntimeForm;
use crate::actors::runtime::raw::RuntimeRaw;
use crate::actors::runtime::{
    LoadPart, PartOutcome, RUNTIME, RUNTIME_CONFIG, RuntimeObservation, RuntimeSlot,
};
use crate::actors::saves::{Receipt, SaveEvent, SaveId, SaveKind, SaveStep};
use crate::protocol::outcome::SaveClass;
use crate::protocol::routes::RouteFamily;
use crate::protocol::runtime::{RuntimeConfigRaw, RuntimeProbe, RuntimeResolved};
use crate::view::saves::{Rereads, SaveBook};
use std::sync::Arc;
use std::time::Instant;

#[derive(Debug)]
pub struct RuntimeModel {
    inbox: Inbox<RuntimeSlot, RuntimeObservation>,
    /// The Runtime catalogue of the joined load (F-1).
    pub catalogue: Slot<Arc<RuntimeResolved>>,
    /// The reachability probe of the same joined load (F-7).
    pub probe: Slot<Arc<RuntimeProbe>>,
    /// What the joined loads came to (P-1, P-2).
    pub loads: RuntimeLoads,
    /// The raw runtime config the forms open on (§9.2), read on demand.
    pub config: Slot<Arc<RuntimeConfigRaw>>,
    /// Model and account form saves this session made or read back (I-1…I-5).
    pub forms: SaveBook<RuntimeForm>,
    /// Raw config saves (`runtime.toml` from `$EDITOR`) this session made or read back (J-1…J-4).
    pub raws: SaveBook<RuntimeRaw>,
    /// The generations of the raw config reads: which read is shown, and which came after a
    /// raw save's receipt (J-3: only those reconfirm a base for `u` / `U`).
    pub config_reads: Rereads,
    /// A form save's receipt landed: the catalogue and the source are re-read (F-2, I-4).
    reread: bool,
}

impl Default for RuntimeModel {
    /// A model with an inbox of its own (tests, screens rendered without a runtime).
    fn default() -> Self {
        Self::new(&Inboxes::new())
    }
}

/// A joined Runtime load whose worker returned: what each part came to (P-1) and whether it
/// asked for a fresh probe (`force=1`, F-7).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettledLoad {
    pub generation: u64,
    pub parts: [(LoadPart, PartOutcome); 3],
    pub forced: bool,
}

/// The Runtime loads as the header tells them (P-2).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RuntimeLoads {
    /// The generation of the newest load dispatched under the open epoch.
    pub last_dispatched: Option<u64>,
    /// The newest load that returned.
    pub settled: Option<SettledLoad>,
    /// A save committed when loads up to this generation were already dispatched: their
    /// responses predate it and are never "latest after save" (F-2).
    pub saved_after: Option<u64>,
}

/// Where the newest Runtime load stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadState {
    /// No load was dispatched yet.
    NotRequested,
    /// The newest load is in flight.
    Reading,
    /// The newest dispatched load returned.
    Settled,
    /// The newest dispatched load ended without a result — cancelled (withdrawn, superseded)
    /// — so the parts shown are the previous load's, never invented (P-2).
    Interrupted,
}

impl RuntimeLoads {
    /// After a committed save: whether the shown catalogue was read after it (`Some(true)`),
    /// or predates it (`Some(false)`); `None` without a committed save.
    pub fn after_save(&self) -> Option<bool> {
        let mark = self.saved_after?;
        Some(self.settled.as_ref().is_some_and(|s| s.generation > mark))
    }

    pub fn state(&self, in_flight: bool) -> LoadState {
        match (self.last_dispatched, &self.settled) {
            (None, _) => LoadState::NotRequested,
            _ if in_flight => LoadState::Reading,
            (Some(d), Some(s)) if s.generation >= d => LoadState::Settled,
            _ => LoadState::Interrupted,
        }
    }
}

/// The receipt a step carries (a landed one or one read back from an earlier run).
fn receipt_of<R>(step: &SaveStep<R>) -> Option<&R> {
    match step {
        SaveStep::Ended(r) | SaveStep::Restored(r) => Some(r),
        SaveStep::Written | SaveStep::Sending => None,
    }
}

/// A save event for `id`'s slot is judged by its kind's own book (I-5).
fn judge_save<K: SaveKind, S>(
    book: &SaveBook<K>,
    id: &SaveId,
    ticket: &Ticket<S>,
    event: &SaveEvent<K>,
) -> Result<(), RejectReason> {
    if *id == event.save_id {
        book.judge(ticket, event)
    } else {
        Err(RejectReason::UnknownSlot)
    }
}

impl RuntimeModel {
    pub fn new(inboxes: &Inboxes) -> Self {
        Self {
            inbox: inboxes.get(),
            catalogue: Slot::default(),
            probe: Slot::default(),
            loads: RuntimeLoads::default(),
            config: Slot::default(),
            forms: SaveBook::default(),
            raws: SaveBook::default(),
            config_reads: Rereads::default(),
            reread: false,
        }
    }

    /// A `runtime.toml` save's step was applied: a committed save marks every catalogue load
    /// dispatched so far as predating it (F-2); a receipt re-reads the catalogue and the source
    /// (coalesced, F-2, I-4) — every receipt when `every_receipt`, else only one that may have
    /// written the file (applied, conflict, unknown, or read back from an earlier run).
    fn save_landed<R: Receipt>(&mut self, step: &SaveStep<R>, every_receipt: bool) {
        let Some(receipt) = receipt_of(step) else {
            return;
        };
        let class = receipt.class();
        if matches!(step, SaveStep::Ended(_)) && class == SaveClass::Applied {
            // Any load dispatched so far predates the save (F-2).
            self.loads.saved_after = Some(self.loads.last_dispatched.unwrap_or(0));
        }
        let may_have_written = matches!(step, SaveStep::Restored(_))
            || matches!(
                class,
                SaveClass::Applied | SaveClass::Conflict | SaveClass::OutcomeUnknown
            );
        self.reread |= every_receipt || may_have_written;
    }

    /// The probe part is not served by this MASC (an older release): not a failure to flag.
    pub fn probe_not_served(&self) -> bool {
        self.loads.settled.as_ref().is_some_and(|s| {
            s.parts
                .iter()
                .any(|(p, o)| *p == LoadPart::Probe && *o == PartOutcome::NotServed)
        })
    }
}

impl SurfaceModel for RuntimeModel {
    type Slot = RuntimeSlot;
    type Payload = RuntimeObservation;

    fn inbox(&self) -> &Inbox<RuntimeSlot, RuntimeObservation> {
        &self.inbox
    }

    fn dispatched(&mut self, ticket: &Ticket<RuntimeSlot>, gate: &EpochGate) -> bool {
        match &ticket.slot {
            // A save is admitted by its own book, not the epoch (H-16, K-5).
            RuntimeSlot::Form(save_id) => self.forms.dispatched(save_id, ticket),
            RuntimeSlot::Raw(save_id) => self.raws.dispatched(save_id, ticket),
            RuntimeSlot::Catalogue => {
                if self.probe.dispatched(ticket, gate) {
                    // One ticket owns both parts of the joined load.
                    self.loads.last_dispatched = Some(ticket.generation);
                }
                self.catalogue.dispatched(ticket, gate)
            }
            RuntimeSlot::Config => {
                let taken = self.config.dispatched(ticket, gate);
                if taken {
                    self.config_reads.dispatched(ticket.generation);
                }
                taken
            }
        }
    }

    fn judge(
        &mut self,
        ticket: &Ticket<RuntimeSlot>,
        payload: &RuntimeObservation,
        gate: &EpochGate,
    ) -> Result<(), RejectReason> {
        match (&ticket.slot, payload) {
            (RuntimeSlot::Form(id), RuntimeObservation::Form(event)) => {
                judge_save(&self.forms, id, ticket, event)
            }
            (RuntimeSlot::Raw(id), RuntimeObservation::Raw(event)) => {
                judge_save(&self.raws, id, ticket, event)
            }
            (RuntimeSlot::Catalogue, RuntimeObservation::Catalogue(_)) => {
                self.catalogue.judge(ticket, gate)
            }
            (RuntimeSlot::Config, RuntimeObservation::Config(_)) => self.config.judge(ticket, gate),
            _ => Err(RejectReason::UnknownSlot),
        }
    }

    /// Applies a judged observation to its own slots only (F-7).
    fn apply(&mut self, ticket: &Ticket<RuntimeSlot>, payload: RuntimeObservation, now: Instant) {
        match payload {
            RuntimeObservation::Catalogue(load) => {
                self.loads.settled = Some(SettledLoad {
                    generation: ticket.generation,
                    parts: load.parts(),
                    forced: load.forced,
                });
                let load = *load;
                self.catalogue.apply_with(ticket, load.resolved, now, |v| v);
                self.probe.apply_with(ticket, load.probe, now, |v| v);
            }
            RuntimeObservation::Config(r) => {
                if r.is_ok() {
                    self.config_reads.shown(ticket.generation);
                }
                self.config.apply_with(ticket, r, now, |v| v)
            }
            RuntimeObservation::Form(event) => {
                self.save_landed(&event.step, true);
                self.forms.apply(*event);
            }
            RuntimeObservation::Raw(event) => {
                if receipt_of(&event.step).is_some() {
                    // Reads dispatched up to now never reconfirm a base after it (J-3).
                    self.config_reads.receipt(&event.save_id);
                }
                // A refused or unsent raw save changed nothing: only a save that may have
                // written the file re-reads the catalogue and the source.
                self.save_landed(&event.step, false);
                self.raws.apply(*event);
            }
        }
    }

    fn retired(&mut self, ticket: &Ticket<RuntimeSlot>) -> bool {
        match &ticket.slot {
            RuntimeSlot::Form(save_id) => self.forms.retired(save_id, ticket),
            RuntimeSlot::Raw(save_id) => self.raws.retired(save_id, ticket),
            RuntimeSlot::Catalogue => {
                self.probe.retired(ticket);
                self.catalogue.retired(ticket)
            }
            RuntimeSlot::Config => self.config.retired(ticket),
        }
    }

    fn slot(&mut self, key: &RuntimeSlot) -> Option<&mut dyn ReadSlot> {
        match key {
            RuntimeSlot::Catalogue => Some(&mut self.catalogue),
            RuntimeSlot::Config => Some(&mut self.config),
            RuntimeSlot::Form(_) | RuntimeSlot::Raw(_) => None,
        }
    }

    fn slots(&mut self) -> Vec<(SourceKey, &mut dyn ReadSlot)> {
        vec![
            (RUNTIME, &mut self.catalogue as &mut dyn ReadSlot),
            (RUNTIME, &mut self.probe),
            (RUNTIME_CONFIG, &mut self.config),
        ]
    }

    fn take_demands(&mut self) -> Vec<SourceKey> {
        if std::mem::take(&mut self.reread) {
            // The post-save demand: coalesces with a read in flight (F-2).
            vec![RUNTIME, RUNTIME_CONFIG]
        } else {
            Vec::new()
        }
    }

    fn any_failed(&self) -> bool {
        self.catalogue.failed() || (self.probe.failed() && !self.probe_not_served())
    }

    fn not_served(&self) -> Vec<RouteFamily> {
        not_served_of(&[&self.catalogue])
    }
}
