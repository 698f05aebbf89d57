//! A runtime with only the save hub, on a given client and outbox file, whose one surface's
//! events are fed in the view's order into a real view `Model` (admission, the `SaveBook`s).
//! What a save kind outside the Decisions surface needs to be submitted as the view does and
//! restored after a restart (the crash tests of `crash_rig`: `runtime_raw` on System).
#![allow(dead_code)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::actor_support::registry_entry;
use crate::ordered_view::{OrderedView, Seen};
use masc_tui::actors::contract::SlotKey;
use masc_tui::actors::registry::SourceEntry;
use masc_tui::actors::saves::{SAVES, SaveCommand, SaveHubSpawner, SaveId};
use masc_tui::actors::supervisor::{
    RestartPolicy, RuntimeConfig, RuntimeHandle, start_runtime_with,
};
use masc_tui::outbox::{Outbox, OutboxLocation, SaveRow, SharedOutbox};
use masc_tui::protocol::client::WorkspaceClient;
use masc_tui::timeline::capture::StageRecorder;
use masc_tui::view::model::Model;
use ractor::DerivedActorRef;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The runtime configuration of the rigs that run the save hub on an outbox file of their
/// own: the server's own base, `/health` every 20 ms, no roster cadence, fast restarts, no
/// fault drills.
pub fn save_runtime_config(state_at: OutboxLocation) -> RuntimeConfig {
    RuntimeConfig {
        expected_base: None,
        health_interval: Duration::from_millis(20),
        keepers_roster_interval: Duration::from_secs(3600),
        restart: RestartPolicy {
            initial_backoff: Duration::from_millis(1),
            ..RestartPolicy::default()
        },
        fault_drills: false,
        outbox: state_at,
        shown_at_start: None,
    }
}

/// The save hub's registry entry, its outbox at `outbox_path`.
pub fn hub_entry(outbox_path: &Path) -> SourceEntry {
    registry_entry(SaveHubSpawner {
        outbox: SharedOutbox::new(OutboxLocation::File(outbox_path.to_path_buf())),
    })
}

pub struct SurfaceRig<S, P> {
    pub runtime: RuntimeHandle,
    pub log: OrderedView<S, P>,
    pub model: Model,
    /// The save hub's typed command handle (from its latest `SourceUp`).
    pub hub: Option<DerivedActorRef<SaveCommand>>,
    pub recorder: StageRecorder,
    pub outbox_path: PathBuf,
    _trace: tracing::subscriber::DefaultGuard,
    _state: tempfile::TempDir,
}

/// Starts the save hub alone against `client` (outbox at `outbox_path`), then pumps until the
/// workspace is confirmed and the hub's handle is known.
pub async fn surface_rig<S: SlotKey, P: Clone + Send + std::fmt::Debug + 'static>(
    client: WorkspaceClient,
    outbox_path: PathBuf,
) -> SurfaceRig<S, P> {
    let recorder = StageRecorder::new();
    let trace = tracing::subscriber::set_default(recorder.subscriber());
    let log = OrderedView::new();
    let (state, state_at) = crate::actor_support::scratch_outbox();
    let cfg = save_runtime_config(state_at);
    let entries = vec![hub_entry(&outbox_path)];
    let runtime = start_runtime_with(client, log.sink(), log.inboxes(), cfg, entries)
        .await
        .unwrap();
    let mut rig = SurfaceRig {
        runtime,
        log,
        model: Model::default(),
        hub: None,
        recorder,
        outbox_path,
        _trace: trace,
        _state: state,
    };
    rig.pump_until(|m| m.gate().current().is_some()).await;
    while rig.hub.is_none() {
        rig.pump_one().await;
    }
    rig
}

impl<S: SlotKey, P: Clone + Send + std::fmt::Debug + 'static> SurfaceRig<S, P> {
    /// Feeds view messages into the model until `pred` holds (checked first).
    pub async fn pump_until(&mut self, pred: impl Fn(&Model) -> bool) {
        while !pred(&self.model) {
            self.pump_one().await;
        }
    }

    /// Feeds the next view message into the model, in the view's order.
    pub async fn pump_one(&mut self) {
        self.log
            .wait_for(|_| true)
            .await
            .expect("failsafe: no further view message");
        match self.log.seen.last().unwrap().clone() {
            Seen::SourceUp { source, handle } if source == SAVES => {
                self.hub = handle.commands::<SaveCommand>();
            }
            Seen::Identity(state) => {
                self.model.on_identity(state);
            }
            Seen::Slot(event) => {
                let _ = self.model.deliver(event, Instant::now());
            }
            _ => {}
        }
    }

    /// The outbox row of `id`, read through a handle of its own.
    pub fn row(&self, id: &SaveId) -> Option<SaveRow> {
        Outbox::open_path(&self.outbox_path)
            .unwrap()
            .save_row(&id.0)
            .unwrap()
    }

    pub async fn stop(self) {
        self.runtime.stop().await;
    }
}
