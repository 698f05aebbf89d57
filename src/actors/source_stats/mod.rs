//! The live Sources view's source: every `cadence` it takes a snapshot of the stage events
//! aggregated in this process ([`crate::timeline::live`]) — no network. The snapshot (its
//! percentiles and windows) is made on this source's worker, never on the view actor, and
//! reaches the view as any read does: by ticket, admitted in the open epoch.
//!
//! One standing slot, [`SourceStatsSlot::Snapshot`]. The registry gives the spawner the
//! supervised sources and their slots, so the view lists every source and save kind, a
//! silent one too, each under the source whose restarts it shares.

use crate::actors::contract::{
    GenerationBook, Payload, SlotKey, SourceContext, SourceHandle, SourceKey, SourceSpawner,
};
use crate::actors::read::polled::spawn_polled;
use crate::actors::read::{Reader, SlotSpec, reader};
use crate::timeline::live::LiveSnapshot;
use futures::future::BoxFuture;
use ractor::{ActorCell, SpawnErr};
use std::sync::Arc;
use std::time::Duration;

/// The source (supervision key and the slot's trace name).
pub const SOURCE_STATS: SourceKey = SourceKey("source_stats");

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum SourceStatsSlot {
    Snapshot,
}

impl SlotKey for SourceStatsSlot {
    fn trace_name(&self) -> String {
        SOURCE_STATS.0.to_string()
    }

    fn source(&self) -> SourceKey {
        SOURCE_STATS
    }
}

/// One snapshot of the live numbers.
#[derive(Debug, Clone)]
pub struct SourceStatsObservation(pub Arc<LiveSnapshot>);

impl Payload for SourceStatsObservation {
    fn outcome(&self) -> String {
        "ok".to_string()
    }
}

/// Every supervised source's key and its slots' trace names, in registry order.
pub type Owners = Arc<Vec<(String, Vec<String>)>>;

fn snapshot_reader(owners: Owners) -> Reader<SourceStatsObservation> {
    reader(move |_auth, _client| {
        let owners = Arc::clone(&owners);
        async move {
            SourceStatsObservation(Arc::new(crate::timeline::live::snapshot(owners.as_slice())))
        }
    })
}

pub struct SourceStatsSpawner {
    pub cadence: Duration,
    pub owners: Owners,
}

impl SourceSpawner for SourceStatsSpawner {
    fn key(&self) -> SourceKey {
        SOURCE_STATS
    }

    fn spawn(
        &self,
        ctx: SourceContext,
        supervisor: ActorCell,
    ) -> BoxFuture<'static, Result<SourceHandle, SpawnErr>> {
        let slots = vec![snapshot_slot(&ctx.generations, Arc::clone(&self.owners))];
        spawn_polled(SOURCE_STATS, slots, self.cadence, ctx, supervisor)
    }
}

pub fn snapshot_slot(
    generations: &GenerationBook,
    owners: Owners,
) -> SlotSpec<SourceStatsSlot, SourceStatsObservation> {
    SlotSpec::standing(
        SourceStatsSlot::Snapshot,
        generations,
        snapshot_reader(owners),
    )
}
