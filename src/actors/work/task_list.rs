//! The Task list source: `GET /api/v1/dashboard/tasks` (protocol.md §5.1).
//!
//! One standing slot, `WorkSlot::TaskList`; cadence shares, explicit supersedes (G-3). The
//! per-part read states (backlog, archive, goal links) travel inside the typed list and are
//! shown on the coverage line: an unavailable part never reads as "no tasks".

use super::{TASK_LIST, WorkObservation, WorkSlot};
use crate::actors::contract::{
    GenerationBook, SourceContext, SourceHandle, SourceKey, SourceSpawner,
};
use crate::actors::read::polled::spawn_polled;
use crate::actors::read::{ExplicitPolicy, Reader, SlotSpec, reader};
use crate::protocol::tasks::TaskList;
use futures::future::BoxFuture;
use ractor::{ActorCell, SpawnErr};
use std::time::Duration;

pub const TASK_LIST_PATH: &str = "/api/v1/dashboard/tasks";

pub fn task_list_reader() -> Reader<WorkObservation> {
    reader(|auth, client| async move {
        WorkObservation::TaskList(client.get::<TaskList>(&auth, TASK_LIST_PATH).await)
    })
}

pub fn task_list_slot(generations: &GenerationBook) -> SlotSpec<WorkSlot, WorkObservation> {
    SlotSpec {
        key: WorkSlot::TaskList,
        explicit: ExplicitPolicy::Supersede,
        standing: true,
        generations: generations.counter(&WorkSlot::TaskList),
        reader: task_list_reader(),
    }
}

pub struct TaskListSpawner {
    pub cadence: Duration,
}

impl SourceSpawner for TaskListSpawner {
    fn key(&self) -> SourceKey {
        TASK_LIST
    }

    fn spawn(
        &self,
        ctx: SourceContext,
        supervisor: ActorCell,
    ) -> BoxFuture<'static, Result<SourceHandle, SpawnErr>> {
        let slots = vec![task_list_slot(&ctx.generations)];
        spawn_polled(TASK_LIST, slots, self.cadence, ctx, supervisor)
    }
}
