//! The Keepers roster source: `GET /api/v1/gate/keepers?limit=200&detailed=true` (protocol.md
//! §4.1).
//!
//! Paging: MASC's roster route (lib/server/server_routes_gate.ml `handle_gate_keepers`) accepts
//! only `limit`, clamped to 1..=200, and `detailed`: no offset, cursor or name filter, at Aug
//! (default 100) and newer (default 200). The read asks for the whole bound explicitly, so both
//! releases list their first 200; `total` and `truncated` say how many more there are, and a
//! Keeper beyond them is reached by name (`GET /api/v1/gate/keeper-status?name=`, §14.7: the
//! roster's `/` search asks the server when the name is not on the loaded page).
//!
//! Ownership (docs/audits/keepers-roster.md): one slot, [`KeepersSlot::Roster`], standing
//! (read on every confirmed epoch); cadence poll re-armed after each read (default 5 s) shares an
//! in-flight read; an explicit refresh (`r`) supersedes it (G-3). Results arrive as
//! [`KeepersObservation::Roster`].

use super::{KeepersObservation, KeepersSlot, ROSTER};
use crate::actors::contract::{
    GenerationBook, SourceContext, SourceHandle, SourceKey, SourceSpawner,
};
use crate::actors::read::polled::spawn_polled;
use crate::actors::read::{Reader, SlotSpec, reader};
use crate::protocol::keepers::KeeperRoster;
use futures::future::BoxFuture;
use ractor::{ActorCell, SpawnErr};
use std::time::Duration;

/// The read asks for the most rows the route lists (MASC's `keeper_list_max_limit`, §4.1).
pub const ROSTER_PATH: &str = "/api/v1/gate/keepers?limit=200&detailed=true";

/// The roster read: one admitted GET.
pub fn roster_reader() -> Reader<KeepersObservation> {
    reader(|auth, client| async move {
        KeepersObservation::Roster(client.get::<KeeperRoster>(&auth, ROSTER_PATH).await)
    })
}

/// The roster slot.
pub fn roster_slot(generations: &GenerationBook) -> SlotSpec<KeepersSlot, KeepersObservation> {
    SlotSpec::standing(KeepersSlot::Roster, generations, roster_reader())
}

/// Spawns the roster source under the supervisor.
pub struct KeepersRosterSpawner {
    pub cadence: Duration,
}

impl SourceSpawner for KeepersRosterSpawner {
    fn key(&self) -> SourceKey {
        ROSTER
    }

    fn spawn(
        &self,
        ctx: SourceContext,
        supervisor: ActorCell,
    ) -> BoxFuture<'static, Result<SourceHandle, SpawnErr>> {
        let slots = vec![roster_slot(&ctx.generations)];
        spawn_polled(ROSTER, slots, self.cadence, ctx, supervisor)
    }
}
