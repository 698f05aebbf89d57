//! The Task list source: `GET /api/v1/dashboard/tasks` (protocol.md §5.1).
//!
//! One standing slot, `SourceKey::TaskList`; cadence shares, explicit supersedes (G-3). The
//! per-part read states (backlog, archive, goal links) travel inside the typed list and are
//! shown on the coverage line: an unavailable part never reads as "no tasks".

use crate::actors::messages::ObservationPayload;
use crate::actors::read::polled::spawn_polled;
use crate::actors::read::{ExplicitPolicy, GenerationBook, Reader, SlotSpec, reader};
use crate::actors::supervisor::{SourceContext, SourceSpawner};
use crate::actors::ticket::SourceKey;
use crate::protocol::tasks::TaskList;
use futures::future::BoxFuture;
use ractor::{ActorCell, ActorRef, SpawnErr};
use std::time::Duration;

pub const TASK_LIST_PATH: &str = "/api/v1/dashboard/tasks";

pub fn task_list_reader() -> Reader {
    reader(|auth, client| async move {
        ObservationPayload::TaskList(client.get::<TaskList>(&auth, TASK_LIST_PATH).await)
    })
}

pub fn task_list_slot(generations: &GenerationBook) -> SlotSpec {
    SlotSpec {
        key: SourceKey::TaskList,
        explicit: ExplicitPolicy::Supersede,
        standing: true,
        generations: generations.counter(&SourceKey::TaskList),
        reader: task_list_reader(),
    }
}

pub struct TaskListSpawner {
    pub cadence: Duration,
}

impl SourceSpawner for TaskListSpawner {
    fn key(&self) -> SourceKey {
        SourceKey::TaskList
    }

    fn spawn(
        &self,
        ctx: SourceContext,
        supervisor: ActorCell,
    ) -> BoxFuture<'static, Result<ActorRef<crate::actors::messages::SourceCommand>, SpawnErr>>
    {
        let slots = vec![task_list_slot(&ctx.generations)];
        spawn_polled(SourceKey::TaskList, slots, self.cadence, ctx, supervisor)
    }
}
