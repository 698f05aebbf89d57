//! The Tools source's reads: inventory (§6.1), Skills catalogue (§6.2) and async requests
//! (§6.3) as three standing slots (T-1, T-2), and the selected Keeper's surface (§6.1 with
//! `?keeper=`) as a slot the view opens.

use super::{ToolsObservation, ToolsSlot};
use crate::actors::contract::{GenerationBook, GenerationCounter, ReadResult};
use crate::actors::read::{ExplicitPolicy, SlotSpec, reader};
use crate::protocol::async_requests::AsyncRequestList;
use crate::protocol::client::QueryString;
use crate::protocol::skills::SkillsSnapshotRead;
use crate::protocol::tools::ToolsInventoryRead;

pub const TOOLS_PATH: &str = "/api/v1/dashboard/tools";
pub const SKILLS_PATH: &str = "/api/v1/skills";
pub const ASYNC_REQUESTS_PATH: &str = "/api/v1/async-requests";

/// The three Tools slots (T-1): independent readers, one dispatch.
pub fn tools_slots(generations: &GenerationBook) -> Vec<SlotSpec<ToolsSlot, ToolsObservation>> {
    vec![
        SlotSpec::standing(
            ToolsSlot::ToolsInventory,
            generations,
            reader(|auth, client| async move {
                ToolsObservation::ToolsInventory(
                    client.get::<ToolsInventoryRead>(&auth, TOOLS_PATH).await,
                )
            }),
        ),
        SlotSpec::standing(
            ToolsSlot::SkillsCatalog,
            generations,
            reader(|auth, client| async move {
                ToolsObservation::SkillsCatalog(
                    client.get::<SkillsSnapshotRead>(&auth, SKILLS_PATH).await,
                )
            }),
        ),
        SlotSpec::standing(
            ToolsSlot::AsyncRequests,
            generations,
            reader(|auth, client| async move {
                ToolsObservation::AsyncRequests(
                    client
                        .get::<AsyncRequestList>(&auth, ASYNC_REQUESTS_PATH)
                        .await,
                )
            }),
        ),
    ]
}

/// The selected Keeper's inventory read, with the Keeper it was asked for.
#[derive(Debug, Clone)]
pub struct KeeperSurfaceRead {
    pub keeper: String,
    pub result: ReadResult<ToolsInventoryRead>,
}

pub fn keeper_surface_path(keeper: &str) -> String {
    QueryString::new()
        .pair("keeper", keeper)
        .append_to(TOOLS_PATH)
}

/// The `?keeper=` slot: an explicit re-read supersedes, the cadence shares.
pub fn keeper_surface_slot(
    keeper: &str,
    generations: GenerationCounter,
) -> SlotSpec<ToolsSlot, ToolsObservation> {
    let asked = keeper.to_string();
    SlotSpec {
        key: ToolsSlot::KeeperSurface(keeper.to_string()),
        explicit: ExplicitPolicy::Supersede,
        standing: false,
        generations,
        reader: reader(move |auth, client| {
            let keeper = asked.clone();
            async move {
                let result = client
                    .get::<ToolsInventoryRead>(&auth, &keeper_surface_path(&keeper))
                    .await;
                ToolsObservation::KeeperSurface(Box::new(KeeperSurfaceRead { keeper, result }))
            }
        }),
    }
}
