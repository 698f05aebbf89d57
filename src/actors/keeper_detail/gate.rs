//! The workspace Gate mode source: `GET /api/v1/dashboard/gate` (§14.4), one standing slot
//! read on every confirmed epoch and on its cadence; the chat status line's `gate:` (C-57).

use super::{KeeperDetailObservation, KeeperDetailSlot, WORKSPACE_GATE};
use crate::actors::contract::{SourceContext, SourceHandle, SourceKey, SourceSpawner};
use crate::actors::read::polled::spawn_polled;
use crate::actors::read::{ExplicitPolicy, SlotSpec, reader};
use crate::protocol::keeper_detail::{DashboardGate, GATE_PATH};
use futures::future::BoxFuture;
use ractor::{ActorCell, SpawnErr};
use std::time::Duration;

/// Spawns the workspace Gate mode source under the supervisor.
pub struct WorkspaceGateSpawner {
    pub cadence: Duration,
}

impl SourceSpawner for WorkspaceGateSpawner {
    fn key(&self) -> SourceKey {
        WORKSPACE_GATE
    }

    fn spawn(
        &self,
        ctx: SourceContext,
        supervisor: ActorCell,
    ) -> BoxFuture<'static, Result<SourceHandle, SpawnErr>> {
        let key = KeeperDetailSlot::WorkspaceGate;
        let slot = SlotSpec {
            generations: ctx.generations.counter(&key),
            key,
            explicit: ExplicitPolicy::Supersede,
            standing: true,
            reader: reader(|auth, client| async move {
                KeeperDetailObservation::Gate(client.get::<DashboardGate>(&auth, GATE_PATH).await)
            }),
        };
        spawn_polled(WORKSPACE_GATE, vec![slot], self.cadence, ctx, supervisor)
    }
}
