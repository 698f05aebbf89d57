//! The waiting inventory source (protocol-15-operator.md §15.8): `GET /api/v1/dashboard/tools`
//! read for its `keeper_waiting_inventory` key only, for the roster's "waits on" line and the
//! Keeper detail.
//!
//! Its own source, not the System Tools source: the roster shows it while the System surface
//! is hidden, and the Tools source's other lists (Skills, async requests) are not read for it.
//! One standing slot, [`WaitingSlot::Inventory`], with its own slot and payload types (its
//! events never mix with the roster's); cadence 10 s (MASC refreshes the Tools snapshot in the
//! background, the inventory itself per read), shared while a read is in flight. The key
//! absent is a typed "not sent"; a body that does not decode is a failed read of this slot
//! alone — the roster is never touched.

use crate::actors::contract::{
    GenerationBook, Payload, ReadResult, SlotKey, SourceContext, SourceHandle, SourceKey,
    SourceSpawner, read_outcome,
};
use crate::actors::read::polled::spawn_polled;
use crate::actors::read::{Reader, SlotSpec, reader};
use crate::protocol::waiting::WaitingInventoryRead;
use futures::future::BoxFuture;
use ractor::{ActorCell, SpawnErr};
use std::time::Duration;

/// The waiting inventory source (supervision key).
pub const WAITING_INVENTORY: SourceKey = SourceKey("keeper_waiting_inventory");

/// The Tools body that carries the inventory (§6.1).
pub const WAITING_INVENTORY_PATH: &str = "/api/v1/dashboard/tools";

/// The source's one slot.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum WaitingSlot {
    Inventory,
}

impl SlotKey for WaitingSlot {
    fn trace_name(&self) -> String {
        "keeper_waiting_inventory".to_string()
    }

    fn source(&self) -> SourceKey {
        WAITING_INVENTORY
    }
}

/// What the source observes: the inventory of one Tools read.
#[derive(Debug, Clone)]
pub struct WaitingObservation(pub ReadResult<WaitingInventoryRead>);

impl Payload for WaitingObservation {
    fn outcome(&self) -> String {
        read_outcome(&self.0)
    }
}

pub fn waiting_reader() -> Reader<WaitingObservation> {
    reader(|auth, client| async move {
        WaitingObservation(
            client
                .get::<WaitingInventoryRead>(&auth, WAITING_INVENTORY_PATH)
                .await,
        )
    })
}

pub fn waiting_slot(generations: &GenerationBook) -> SlotSpec<WaitingSlot, WaitingObservation> {
    SlotSpec::standing(WaitingSlot::Inventory, generations, waiting_reader())
}

pub struct WaitingInventorySpawner {
    pub cadence: Duration,
}

impl SourceSpawner for WaitingInventorySpawner {
    fn key(&self) -> SourceKey {
        WAITING_INVENTORY
    }

    fn spawn(
        &self,
        ctx: SourceContext,
        supervisor: ActorCell,
    ) -> BoxFuture<'static, Result<SourceHandle, SpawnErr>> {
        let slots = vec![waiting_slot(&ctx.generations)];
        spawn_polled(WAITING_INVENTORY, slots, self.cadence, ctx, supervisor)
    }
}
