//! System sources (protocol.md §6.1–§6.3, §9.1; sources.md T-1…T-4, T-14, F-1…F-5):
//!
//! - **Tools** (`SourceKey::Tools`): the inventory, the Skills catalogue and the async-request
//!   observation are three standing slots of one polled source. Each starts from the same
//!   dispatch with its own worker and ticket; none waits for or starts from another (T-1), a
//!   delay or failure of one never blocks or overwrites its siblings (T-2).
//! - **Runtime catalogue** (`SourceKey::RuntimeCatalogue`): one slot; its catalogue and usage
//!   sections decode independently inside one typed value (F-3, F-4).
//!
//! Cadence shares a read in flight; `r` supersedes (G-3, F-5).

use crate::actors::messages::{ObservationPayload, SourceCommand};
use crate::actors::read::polled::spawn_polled;
use crate::actors::read::{ExplicitPolicy, GenerationBook, SlotSpec, reader};
use crate::actors::supervisor::{SourceContext, SourceSpawner};
use crate::actors::ticket::SourceKey;
use crate::protocol::asks::AskList;
use crate::protocol::async_requests::AsyncRequestList;
use crate::protocol::operator::OperatorApprovals;
use crate::protocol::runtime::RuntimeResolved;
use crate::protocol::skills::SkillsSnapshotRead;
use crate::protocol::tools::ToolsInventoryRead;
use futures::future::BoxFuture;
use ractor::{ActorCell, ActorRef, SpawnErr};
use std::time::Duration;

pub const TOOLS_PATH: &str = "/api/v1/dashboard/tools";
pub const SKILLS_PATH: &str = "/api/v1/skills";
pub const ASYNC_REQUESTS_PATH: &str = "/api/v1/async-requests";
pub const RUNTIME_RESOLVED_PATH: &str = "/api/v1/runtime/resolved";
/// Sent exactly as §10.5 says: the lightweight summary.
pub const OPERATOR_APPROVALS_PATH: &str =
    "/api/v1/operator?view=summary&include_messages=0&include_keepers=0";
pub const OPEN_ASKS_PATH: &str = "/api/v1/keepers/asks";

fn standing(
    key: SourceKey,
    generations: &GenerationBook,
    r: crate::actors::read::Reader,
) -> SlotSpec {
    SlotSpec {
        generations: generations.counter(&key),
        key,
        explicit: ExplicitPolicy::Supersede,
        standing: true,
        reader: r,
    }
}

/// The three Tools slots (T-1): independent readers, one dispatch.
pub fn tools_slots(generations: &GenerationBook) -> Vec<SlotSpec> {
    vec![
        standing(
            SourceKey::ToolsInventory,
            generations,
            reader(|auth, client| async move {
                ObservationPayload::ToolsInventory(
                    client.get::<ToolsInventoryRead>(&auth, TOOLS_PATH).await,
                )
            }),
        ),
        standing(
            SourceKey::SkillsCatalog,
            generations,
            reader(|auth, client| async move {
                ObservationPayload::SkillsCatalog(
                    client.get::<SkillsSnapshotRead>(&auth, SKILLS_PATH).await,
                )
            }),
        ),
        standing(
            SourceKey::AsyncRequests,
            generations,
            reader(|auth, client| async move {
                ObservationPayload::AsyncRequests(
                    client
                        .get::<AsyncRequestList>(&auth, ASYNC_REQUESTS_PATH)
                        .await,
                )
            }),
        ),
    ]
}

pub fn runtime_slot(generations: &GenerationBook) -> SlotSpec {
    standing(
        SourceKey::RuntimeCatalogue,
        generations,
        reader(|auth, client| async move {
            ObservationPayload::RuntimeCatalogue(
                client
                    .get::<RuntimeResolved>(&auth, RUNTIME_RESOLVED_PATH)
                    .await,
            )
        }),
    )
}

/// The Decisions slots (§10.1, §10.5): this actor's pending approvals and the open asks,
/// independent reads of one source; read only in this version.
pub fn decisions_slots(generations: &GenerationBook) -> Vec<SlotSpec> {
    vec![
        standing(
            SourceKey::OperatorApprovals,
            generations,
            reader(|auth, client| async move {
                ObservationPayload::OperatorApprovals(
                    client
                        .get::<OperatorApprovals>(&auth, OPERATOR_APPROVALS_PATH)
                        .await,
                )
            }),
        ),
        standing(
            SourceKey::OpenAsks,
            generations,
            reader(|auth, client| async move {
                ObservationPayload::OpenAsks(client.get::<AskList>(&auth, OPEN_ASKS_PATH).await)
            }),
        ),
    ]
}

/// Spawns the Decisions source (approvals and asks) under the supervisor.
pub struct DecisionsSpawner {
    pub cadence: Duration,
}

impl SourceSpawner for DecisionsSpawner {
    fn key(&self) -> SourceKey {
        SourceKey::Decisions
    }

    fn spawn(
        &self,
        ctx: SourceContext,
        supervisor: ActorCell,
    ) -> BoxFuture<'static, Result<ActorRef<SourceCommand>, SpawnErr>> {
        let slots = decisions_slots(&ctx.generations);
        spawn_polled(SourceKey::Decisions, slots, self.cadence, ctx, supervisor)
    }
}

/// Spawns the Tools source (three slots) under the supervisor.
pub struct ToolsSpawner {
    pub cadence: Duration,
}

impl SourceSpawner for ToolsSpawner {
    fn key(&self) -> SourceKey {
        SourceKey::Tools
    }

    fn spawn(
        &self,
        ctx: SourceContext,
        supervisor: ActorCell,
    ) -> BoxFuture<'static, Result<ActorRef<SourceCommand>, SpawnErr>> {
        let slots = tools_slots(&ctx.generations);
        spawn_polled(SourceKey::Tools, slots, self.cadence, ctx, supervisor)
    }
}

/// Spawns the Runtime catalogue source under the supervisor.
pub struct RuntimeCatalogueSpawner {
    pub cadence: Duration,
}

impl SourceSpawner for RuntimeCatalogueSpawner {
    fn key(&self) -> SourceKey {
        SourceKey::RuntimeCatalogue
    }

    fn spawn(
        &self,
        ctx: SourceContext,
        supervisor: ActorCell,
    ) -> BoxFuture<'static, Result<ActorRef<SourceCommand>, SpawnErr>> {
        let slots = vec![runtime_slot(&ctx.generations)];
        spawn_polled(
            SourceKey::RuntimeCatalogue,
            slots,
            self.cadence,
            ctx,
            supervisor,
        )
    }
}
