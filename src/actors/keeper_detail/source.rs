//! The Keeper detail source actor: one read owner per watched Keeper.
//!
//! - Two viewers (the Keepers detail pane and the open chat's status line) each watch at most
//!   one Keeper; a Keeper watched by both shares one owner. A Keeper nobody watches any more
//!   has its reads retired (N-6, L-3: a selection change cancel-requests the old reads); the
//!   view keeps their last observations.
//! - Metadata (§14.7) is read first; Live Context (§14.8) is launched only for the owner the
//!   metadata names (`meta.trace_id`, `meta.generation`, L-2). Another owner in a later
//!   metadata re-plans the context reader and supersedes a context read in flight; a context
//!   answer for another owner is retired unshown by the view and a fresh metadata read is
//!   demanded here (L-2, L-3).
//! - Metrics (§14.9) and the settings snapshot (§9.5) are read only while the detail viewer
//!   watches the Keeper (N-6).
//! - Cadence (default 15 s, re-armed after each completed read) shares reads in flight;
//!   `Refresh` supersedes them (L-4). A completed or failed key is never retried otherwise.
//! - Withdrawal retires every read; the next confirmation reads the wanted slots again.

use super::reads::{
    ContextOwner, context_reader, context_slot, meta_slot, metrics_slot, settings_slot,
};
use super::{
    KEEPER_DETAIL, KeeperDetailCommand, KeeperDetailObservation, KeeperDetailSlot, Viewer,
};
use crate::actors::contract::{
    DemandKind, GenerationBook, IdentityState, Outlet, SourceContext, SourceKey,
};
use crate::actors::read::shell::{Ctl, Every, Myself, OwnKey, SourceState};
use crate::actors::read::{ReadOwner, WorkerReturn};
use crate::protocol::client::WorkspaceClient;
use std::collections::BTreeSet;
use std::time::Duration;

type Owner = ReadOwner<KeeperDetailSlot, KeeperDetailObservation, Myself<KeeperDetailState>>;

crate::source_commands!(
    KeeperDetailSlot,
    KeeperDetailObservation,
    KeeperDetailCommand
);

/// The reads of one watched Keeper.
struct KeeperReads {
    keeper: String,
    owner: Owner,
    viewers: BTreeSet<Viewer>,
    /// The owner the context reader is planned for (`None` until the first metadata).
    context_owner: Option<ContextOwner>,
    /// How the context is demanded once the metadata in flight returns.
    context_demand: Option<DemandKind>,
    /// Read for a save's settle stage, not for a viewer: retired once its settings snapshot
    /// returns while no viewer watches it.
    confirming: bool,
}

impl KeeperReads {
    fn meta_key(&self) -> KeeperDetailSlot {
        KeeperDetailSlot::Meta(self.keeper.clone())
    }

    fn context_key(&self) -> KeeperDetailSlot {
        KeeperDetailSlot::Context(self.keeper.clone())
    }

    fn metrics_key(&self) -> KeeperDetailSlot {
        KeeperDetailSlot::Metrics(self.keeper.clone())
    }

    fn settings_key(&self) -> KeeperDetailSlot {
        KeeperDetailSlot::Settings(self.keeper.clone())
    }

    fn wants_metrics(&self) -> bool {
        self.viewers.iter().any(|v| v.wants_metrics())
    }

    fn wants_settings(&self) -> bool {
        self.viewers.iter().any(|v| v.wants_settings())
    }

    /// Demands the metadata (the context follows it) and, when wanted, the metrics.
    fn demand(&mut self, kind: DemandKind) {
        self.context_demand = Some(match (self.context_demand, kind) {
            (Some(DemandKind::Explicit), _) | (_, DemandKind::Explicit) => DemandKind::Explicit,
            _ => DemandKind::Cadence,
        });
        let meta = self.meta_key();
        self.owner.demand(&meta, kind);
        if self.wants_metrics() {
            let metrics = self.metrics_key();
            self.owner.demand(&metrics, kind);
        }
        if self.wants_settings() {
            let settings = self.settings_key();
            self.owner.demand(&settings, kind);
        }
    }
}

pub struct KeeperDetailState {
    client: WorkspaceClient,
    outlet: Outlet<KeeperDetailSlot, KeeperDetailObservation>,
    generations: GenerationBook,
    identity: Option<IdentityState>,
    watched: Vec<KeeperReads>,
}

impl KeeperDetailState {
    fn reads_of(&mut self, keeper: &str) -> Option<&mut KeeperReads> {
        self.watched.iter_mut().find(|r| r.keeper == keeper)
    }

    fn new_reads(&self, myself: &Myself<Self>, keeper: &str) -> KeeperReads {
        let mut owner = ReadOwner::new(self.outlet.clone(), myself.clone(), self.client.clone());
        let meta = KeeperDetailSlot::Meta(keeper.to_string());
        owner.add_slot(meta_slot(keeper, self.generations.counter(&meta)));
        let metrics = KeeperDetailSlot::Metrics(keeper.to_string());
        owner.add_slot(metrics_slot(keeper, self.generations.counter(&metrics)));
        let settings = KeeperDetailSlot::Settings(keeper.to_string());
        owner.add_slot(settings_slot(keeper, self.generations.counter(&settings)));
        if let Some(identity) = &self.identity {
            owner.identity(identity);
        }
        KeeperReads {
            keeper: keeper.to_string(),
            owner,
            viewers: BTreeSet::new(),
            context_owner: None,
            context_demand: None,
            confirming: false,
        }
    }

    /// Removes `viewer` from whatever Keeper it watched; retires a Keeper left unwatched.
    /// `true` when no Keeper is watched any more (no poll is due).
    fn leave(&mut self, viewer: Viewer) -> bool {
        for reads in &mut self.watched {
            reads.viewers.remove(&viewer);
        }
        let (kept, left): (Vec<_>, Vec<_>) = std::mem::take(&mut self.watched)
            .into_iter()
            .partition(|r| !r.viewers.is_empty() || r.confirming);
        self.watched = kept;
        for mut reads in left {
            reads.owner.retire_all("closed");
        }
        self.watched.is_empty()
    }

    /// `true` when leaving the viewer's Keeper left none watched on the way (no poll is due
    /// until the new Keeper's reads complete).
    fn watch(&mut self, myself: &Myself<Self>, viewer: Viewer, keeper: String) -> bool {
        let already = self
            .watched
            .iter()
            .any(|r| r.keeper == keeper && r.viewers.contains(&viewer));
        if already {
            return false;
        }
        let emptied = self.leave(viewer);
        if self.reads_of(&keeper).is_none() {
            let reads = self.new_reads(myself, &keeper);
            self.watched.push(reads);
        }
        let Some(reads) = self.reads_of(&keeper) else {
            return emptied;
        };
        let first = reads.viewers.is_empty();
        let gains_metrics = viewer.wants_metrics() && !reads.wants_metrics();
        let gains_settings = viewer.wants_settings() && !reads.wants_settings();
        reads.viewers.insert(viewer);
        if first {
            reads.demand(DemandKind::Explicit);
        } else {
            if gains_metrics {
                let metrics = reads.metrics_key();
                reads.owner.demand(&metrics, DemandKind::Explicit);
            }
            if gains_settings {
                let settings = reads.settings_key();
                reads.owner.demand(&settings, DemandKind::Explicit);
            }
        }
        emptied
    }

    /// A save's settle stage asks for `keeper`'s settings snapshot (watched or not).
    fn confirm(&mut self, myself: &Myself<Self>, keeper: String) {
        if self.reads_of(&keeper).is_none() {
            let mut reads = self.new_reads(myself, &keeper);
            reads.confirming = true;
            self.watched.push(reads);
        }
        if let Some(reads) = self.reads_of(&keeper) {
            let key = reads.settings_key();
            reads.owner.demand(&key, DemandKind::Explicit);
        }
    }

    /// A confirming read that returned for a Keeper nobody watches: its reads are retired.
    fn confirmed(&mut self, keeper: &str) {
        let Some(at) = self
            .watched
            .iter()
            .position(|r| r.keeper == keeper && r.confirming && r.viewers.is_empty())
        else {
            if let Some(reads) = self.reads_of(keeper) {
                reads.confirming = false;
            }
            return;
        };
        let mut reads = self.watched.remove(at);
        reads.owner.retire_all("confirmed");
    }

    /// Metadata arrived: plan (or re-plan) the context for the owner it names and demand it.
    fn metadata_returned(&mut self, keeper: &str, owner: ContextOwner) {
        let generations = self.generations.clone();
        let Some(reads) = self.reads_of(keeper) else {
            return;
        };
        let key = reads.context_key();
        let kind = reads.context_demand.take().unwrap_or(DemandKind::Cadence);
        let kind = match &reads.context_owner {
            None => {
                reads.owner.add_slot(context_slot(
                    keeper,
                    owner.clone(),
                    generations.counter(&key),
                ));
                kind
            }
            Some(current) if *current != owner => {
                reads
                    .owner
                    .set_reader(&key, context_reader(keeper.to_string(), owner.clone()));
                // The read in flight was launched for the old owner: supersede it (L-3).
                DemandKind::Explicit
            }
            Some(_) => kind,
        };
        reads.context_owner = Some(owner);
        reads.owner.demand(&key, kind);
    }

    /// Routes a worker's return to the owner of its Keeper (a Keeper no longer watched: stale).
    /// Returns `true` when a read completed (the cadence re-arms after it).
    fn worker_returned(
        &mut self,
        ret: WorkerReturn<KeeperDetailSlot, KeeperDetailObservation>,
    ) -> bool {
        let Some(keeper) = ret.ticket.slot.keeper().map(str::to_string) else {
            // The workspace gate is another source's slot: never this actor's.
            ret.reject_late();
            return false;
        };
        let meta_owner = match &ret.result {
            Ok(KeeperDetailObservation::Meta(Ok(admitted))) => {
                Some(ContextOwner::of(&admitted.value))
            }
            _ => None,
        };
        let is_meta = matches!(ret.ticket.slot, KeeperDetailSlot::Meta(_));
        let is_settings = matches!(ret.ticket.slot, KeeperDetailSlot::Settings(_));
        let owner_changed = matches!(
            &ret.result,
            Ok(KeeperDetailObservation::Context(read)) if read.owner_changed()
        );
        let Some(reads) = self.reads_of(&keeper) else {
            ret.reject_late();
            return false;
        };
        if !reads.owner.worker_returned(ret).completed() {
            return false;
        }
        if is_settings && reads.confirming {
            self.confirmed(&keeper);
            return true;
        }
        if let Some(owner) = meta_owner {
            self.metadata_returned(&keeper, owner);
        } else if is_meta {
            // A failed metadata read launches no context: its owner is unknown (L-2).
            reads.context_demand = None;
        } else if owner_changed {
            // Another trace or generation answered: ask who owns it now (L-2).
            reads.demand(DemandKind::Explicit);
        }
        true
    }
}

impl SourceState for KeeperDetailState {
    type Slot = KeeperDetailSlot;
    type Payload = KeeperDetailObservation;
    type Command = KeeperDetailCommand;
    type Args = Duration;

    fn start(ctx: SourceContext, _myself: &Myself<Self>, _cadence: Duration) -> Self {
        KeeperDetailState {
            outlet: ctx.outlet::<KeeperDetailSlot, KeeperDetailObservation>(),
            client: ctx.client,
            generations: ctx.generations,
            identity: None,
            watched: Vec::new(),
        }
    }

    fn command(&mut self, ctl: &mut Ctl<Self>, command: KeeperDetailCommand) {
        match command {
            KeeperDetailCommand::Watch { viewer, keeper } => {
                if self.watch(&ctl.myself, viewer, keeper) {
                    ctl.cancel_cadence();
                }
            }
            KeeperDetailCommand::Unwatch { viewer } => {
                if self.leave(viewer) {
                    ctl.cancel_cadence();
                }
            }
            KeeperDetailCommand::Refresh { keeper } => {
                if let Some(reads) = self.reads_of(&keeper) {
                    reads.demand(DemandKind::Explicit);
                }
            }
            KeeperDetailCommand::Confirm { keeper } => self.confirm(&ctl.myself, keeper),
        }
    }

    fn demand(&mut self, _ctl: &mut Ctl<Self>, kind: DemandKind) {
        for reads in &mut self.watched {
            reads.demand(kind);
        }
    }

    fn identity(&mut self, ctl: &mut Ctl<Self>, identity: IdentityState) {
        for reads in &mut self.watched {
            reads.owner.identity(&identity);
        }
        if identity.authority().is_none() {
            ctl.cancel_cadence();
        }
        self.identity = Some(identity);
    }

    /// A completed read re-arms the cadence while some Keeper is watched.
    fn returned(
        &mut self,
        _ctl: &mut Ctl<Self>,
        ret: WorkerReturn<KeeperDetailSlot, KeeperDetailObservation>,
    ) -> bool {
        self.worker_returned(ret) && !self.watched.is_empty()
    }

    fn stop(&mut self, reason: &str) {
        for reads in &mut self.watched {
            reads.owner.retire_all(reason);
        }
    }
}

impl OwnKey for KeeperDetailState {
    const KEY: SourceKey = KEEPER_DETAIL;
}

/// Spawns the Keeper detail source under the supervisor.
pub type KeeperDetailSpawner = Every<KeeperDetailState>;
