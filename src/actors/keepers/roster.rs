//! The Keepers roster source: `GET /api/v1/gate/keepers?detailed=true` (protocol.md §4.1).
//!
//! Ownership (docs/audits/keepers-roster.md): one slot, `SourceKey::KeepersRoster`, standing
//! (read on every confirmed epoch); cadence poll re-armed after each read (default 5 s) shares an
//! in-flight read; an explicit refresh (`r`) supersedes it (G-3). Results arrive as
//! `ObservationPayload::KeepersRoster`.

use crate::actors::messages::ObservationPayload;
use crate::actors::read::polled::spawn_polled;
use crate::actors::read::{ExplicitPolicy, GenerationBook, Reader, SlotSpec, reader};
use crate::actors::supervisor::{SourceContext, SourceSpawner};
use crate::actors::ticket::SourceKey;
use crate::protocol::keepers::KeeperRoster;
use futures::future::BoxFuture;
use ractor::{ActorCell, ActorRef, SpawnErr};
use std::time::Duration;

pub const ROSTER_PATH: &str = "/api/v1/gate/keepers?detailed=true";

/// The roster read: one admitted GET.
pub fn roster_reader() -> Reader {
    reader(|auth, client| async move {
        ObservationPayload::KeepersRoster(client.get::<KeeperRoster>(&auth, ROSTER_PATH).await)
    })
}

/// The roster slot.
pub fn roster_slot(generations: &GenerationBook) -> SlotSpec {
    SlotSpec {
        key: SourceKey::KeepersRoster,
        explicit: ExplicitPolicy::Supersede,
        standing: true,
        generations: generations.counter(&SourceKey::KeepersRoster),
        reader: roster_reader(),
    }
}

/// Spawns the roster source under the supervisor.
pub struct KeepersRosterSpawner {
    pub cadence: Duration,
}

impl SourceSpawner for KeepersRosterSpawner {
    fn key(&self) -> SourceKey {
        SourceKey::KeepersRoster
    }

    fn spawn(
        &self,
        ctx: SourceContext,
        supervisor: ActorCell,
    ) -> BoxFuture<'static, Result<ActorRef<crate::actors::messages::SourceCommand>, SpawnErr>>
    {
        let slots = vec![roster_slot(&ctx.generations)];
        spawn_polled(
            SourceKey::KeepersRoster,
            slots,
            self.cadence,
            ctx,
            supervisor,
        )
    }
}
