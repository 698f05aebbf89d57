//! The Tools source: inventory (§6.1), Skills catalogue (§6.2) and async requests (§6.3) as
//! three standing slots of one polled source (T-1, T-2).

use super::{SystemObservation, SystemSlot, TOOLS};
use crate::actors::contract::{
    GenerationBook, SourceContext, SourceHandle, SourceKey, SourceSpawner,
};
use crate::actors::read::polled::spawn_polled;
use crate::actors::read::{ExplicitPolicy, Reader, SlotSpec, reader};
use crate::protocol::async_requests::AsyncRequestList;
use crate::protocol::skills::SkillsSnapshotRead;
use crate::protocol::tools::ToolsInventoryRead;
use futures::future::BoxFuture;
use ractor::{ActorCell, SpawnErr};
use std::time::Duration;

pub const TOOLS_PATH: &str = "/api/v1/dashboard/tools";
pub const SKILLS_PATH: &str = "/api/v1/skills";
pub const ASYNC_REQUESTS_PATH: &str = "/api/v1/async-requests";

/// A standing System slot with supersede-on-explicit (G-3).
pub(super) fn standing(
    key: SystemSlot,
    generations: &GenerationBook,
    r: Reader<SystemObservation>,
) -> SlotSpec<SystemSlot, SystemObservation> {
    SlotSpec {
        generations: generations.counter(&key),
        key,
        explicit: ExplicitPolicy::Supersede,
        standing: true,
        reader: r,
    }
}

/// The three Tools slots (T-1): independent readers, one dispatch.
pub fn tools_slots(generations: &GenerationBook) -> Vec<SlotSpec<SystemSlot, SystemObservation>> {
    vec![
        standing(
            SystemSlot::ToolsInventory,
            generations,
            reader(|auth, client| async move {
                SystemObservation::ToolsInventory(
                    client.get::<ToolsInventoryRead>(&auth, TOOLS_PATH).await,
                )
            }),
        ),
        standing(
            SystemSlot::SkillsCatalog,
            generations,
            reader(|auth, client| async move {
                SystemObservation::SkillsCatalog(
                    client.get::<SkillsSnapshotRead>(&auth, SKILLS_PATH).await,
                )
            }),
        ),
        standing(
            SystemSlot::AsyncRequests,
            generations,
            reader(|auth, client| async move {
                SystemObservation::AsyncRequests(
                    client
                        .get::<AsyncRequestList>(&auth, ASYNC_REQUESTS_PATH)
                        .await,
                )
            }),
        ),
    ]
}

/// Spawns the Tools source (three slots) under the supervisor.
pub struct ToolsSpawner {
    pub cadence: Duration,
}

impl SourceSpawner for ToolsSpawner {
    fn key(&self) -> SourceKey {
        TOOLS
    }

    fn spawn(
        &self,
        ctx: SourceContext,
        supervisor: ActorCell,
    ) -> BoxFuture<'static, Result<SourceHandle, SpawnErr>> {
        let slots = tools_slots(&ctx.generations);
        spawn_polled(TOOLS, slots, self.cadence, ctx, supervisor)
    }
}
