//! The raw runtime config read (`GET /api/v1/runtime/config/raw`, protocol.md §9.2; admin):
//! the source the model and account forms and the raw editor open on — its text, path and
//! revision, and the server's own model table (J-5: accepted only for the same path and
//! revision, judged at decode). Read on demand only (opening a form, `u` after a new read),
//! never on a cadence; an explicit re-read supersedes the one in flight.

use super::{RUNTIME_CONFIG, RuntimeObservation, RuntimeSlot};
use crate::actors::contract::{SourceContext, SourceHandle, SourceKey, SourceSpawner};
use crate::actors::read::polled::{PolledSlots, PolledState};
use crate::actors::read::shell::spawn_shell;
use crate::actors::read::{ExplicitPolicy, SlotSpec, reader};
use crate::protocol::runtime::RuntimeConfigRaw;
use futures::future::BoxFuture;
use ractor::{ActorCell, SpawnErr};

pub const RUNTIME_CONFIG_RAW_PATH: &str = "/api/v1/runtime/config/raw";

/// Spawns the raw config source (no cadence, no standing read).
pub struct RuntimeConfigSpawner;

impl SourceSpawner for RuntimeConfigSpawner {
    fn key(&self) -> SourceKey {
        RUNTIME_CONFIG
    }

    fn spawn(
        &self,
        ctx: SourceContext,
        supervisor: ActorCell,
    ) -> BoxFuture<'static, Result<SourceHandle, SpawnErr>> {
        let slot = SlotSpec {
            generations: ctx.generations.counter(&RuntimeSlot::Config),
            key: RuntimeSlot::Config,
            explicit: ExplicitPolicy::Supersede,
            standing: false,
            reader: reader(|auth, client| async move {
                RuntimeObservation::Config(
                    client
                        .get::<RuntimeConfigRaw>(&auth, RUNTIME_CONFIG_RAW_PATH)
                        .await,
                )
            }),
        };
        let slots = PolledSlots {
            slots: vec![slot],
            cadence: None,
        };
        spawn_shell::<PolledState<RuntimeSlot, RuntimeObservation>>(
            RUNTIME_CONFIG,
            ctx,
            slots,
            supervisor,
        )
    }
}
