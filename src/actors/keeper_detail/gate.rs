//! The workspace Gate mode source: `GET /api/v1/dashboard/gate` (§14.4), one standing slot
//! read on every confirmed epoch and on its cadence; the chat status line's `gate:` (C-57).
//! A second standing slot reads every Keeper's tool approval mode (`GET
//! /api/v1/keepers/tool-approval-mode`, §14.4: held in server memory, so it is re-read on every
//! confirmed epoch, after a reconnect, and after a `g` tool gate receipt): the status line's
//! `AUTO`/`YOLO`.

use super::{KeeperDetailObservation, KeeperDetailSlot, WORKSPACE_GATE};
use crate::actors::contract::{SourceContext, SourceHandle, SourceKey, SourceSpawner};
use crate::actors::read::polled::spawn_polled;
use crate::actors::read::{SlotSpec, reader};
use crate::protocol::keeper_detail::{DashboardGate, GATE_PATH};
use crate::protocol::keeper_ops::{TOOL_APPROVAL_MODE_PATH, ToolApprovalModes};
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
        let gate = SlotSpec::standing(
            KeeperDetailSlot::WorkspaceGate,
            &ctx.generations,
            reader(|auth, client| async move {
                KeeperDetailObservation::Gate(client.get::<DashboardGate>(&auth, GATE_PATH).await)
            }),
        );
        let modes = SlotSpec::standing(
            KeeperDetailSlot::ToolModes,
            &ctx.generations,
            reader(|auth, client| async move {
                KeeperDetailObservation::ToolModes(
                    client
                        .get::<ToolApprovalModes>(&auth, TOOL_APPROVAL_MODE_PATH)
                        .await,
                )
            }),
        );
        spawn_polled(
            WORKSPACE_GATE,
            vec![gate, modes],
            self.cadence,
            ctx,
            supervisor,
        )
    }
}
