//! The Planning source: `GET /api/v1/dashboard/planning` (protocol.md §5.7), the Goals rollup.
//!
//! One standing slot, `WorkSlot::Planning`; the cadence shares an in-flight read and an
//! explicit refresh supersedes it (G-3). The warming body is `ClientError::Warming` (the slot
//! shows "warming", never an empty rollup, G-5); `goal_store_unavailable` is a typed value
//! ("goals unavailable"), never "no goals".

use super::{PLANNING, WorkObservation, WorkSlot};
use crate::actors::contract::{
    GenerationBook, ReadResult, SourceContext, SourceHandle, SourceKey, SourceSpawner,
};
use crate::actors::read::polled::spawn_polled;
use crate::actors::read::{ExplicitPolicy, Reader, SlotSpec, reader};
use crate::protocol::planning::PlanningRead;
use futures::future::BoxFuture;
use ractor::{ActorCell, SpawnErr};
use std::time::Duration;

pub const PLANNING_PATH: &str = "/api/v1/dashboard/planning";

/// Trace outcome of a planning read: the goal-store refusal is named, not "ok".
pub fn outcome_class(r: &ReadResult<PlanningRead>) -> String {
    match r {
        Ok(a) => match a.value.as_ref() {
            PlanningRead::Snapshot(_) => "ok".to_string(),
            PlanningRead::GoalStoreUnavailable { .. } => "goal_store_unavailable".to_string(),
        },
        Err(e) => e.class().to_string(),
    }
}

pub fn planning_reader() -> Reader<WorkObservation> {
    reader(|auth, client| async move {
        WorkObservation::Planning(client.get::<PlanningRead>(&auth, PLANNING_PATH).await)
    })
}

pub fn planning_slot(generations: &GenerationBook) -> SlotSpec<WorkSlot, WorkObservation> {
    SlotSpec {
        key: WorkSlot::Planning,
        explicit: ExplicitPolicy::Supersede,
        standing: true,
        generations: generations.counter(&WorkSlot::Planning),
        reader: planning_reader(),
    }
}

pub struct PlanningSpawner {
    pub cadence: Duration,
}

impl SourceSpawner for PlanningSpawner {
    fn key(&self) -> SourceKey {
        PLANNING
    }

    fn spawn(
        &self,
        ctx: SourceContext,
        supervisor: ActorCell,
    ) -> BoxFuture<'static, Result<SourceHandle, SpawnErr>> {
        let slots = vec![planning_slot(&ctx.generations)];
        spawn_polled(PLANNING, slots, self.cadence, ctx, supervisor)
    }
}
