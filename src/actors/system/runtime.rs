//! The Runtime catalogue source: `GET /api/v1/runtime/resolved` (§9.1), one standing slot;
//! catalogue and usage decode independently inside one typed value (F-3, F-4).

use super::tools::standing;
use super::{RUNTIME, SystemObservation, SystemSlot};
use crate::actors::contract::{
    GenerationBook, SourceContext, SourceHandle, SourceKey, SourceSpawner,
};
use crate::actors::read::polled::spawn_polled;
use crate::actors::read::{SlotSpec, reader};
use crate::protocol::runtime::RuntimeResolved;
use futures::future::BoxFuture;
use ractor::{ActorCell, SpawnErr};
use std::time::Duration;

pub const RUNTIME_RESOLVED_PATH: &str = "/api/v1/runtime/resolved";

pub fn runtime_slot(generations: &GenerationBook) -> SlotSpec<SystemSlot, SystemObservation> {
    standing(
        SystemSlot::RuntimeCatalogue,
        generations,
        reader(|auth, client| async move {
            SystemObservation::RuntimeCatalogue(
                client
                    .get::<RuntimeResolved>(&auth, RUNTIME_RESOLVED_PATH)
                    .await,
            )
        }),
    )
}

/// Spawns the Runtime catalogue source under the supervisor.
pub struct RuntimeCatalogueSpawner {
    pub cadence: Duration,
}

impl SourceSpawner for RuntimeCatalogueSpawner {
    fn key(&self) -> SourceKey {
        RUNTIME
    }

    fn spawn(
        &self,
        ctx: SourceContext,
        supervisor: ActorCell,
    ) -> BoxFuture<'static, Result<SourceHandle, SpawnErr>> {
        let slots = vec![runtime_slot(&ctx.generations)];
        spawn_polled(RUNTIME, slots, self.cadence, ctx, supervisor)
    }
}
