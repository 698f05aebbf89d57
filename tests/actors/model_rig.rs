//! A runtime of chosen sources on the embedded server whose every surface is fed, in the
//! view's order, into one real view `Model` — what the stages after a receipt need (a save's
//! receipt lands on one surface, the re-read that confirms it on another). Saves are submitted
//! through the one `save_path::submit`, and the settle stage's demands are cast to the sources
//! the way the view actor casts them.
#![allow(dead_code)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::actor_support::registry_entry;
use crate::surface_rig::{hub_entry, save_runtime_config};
use masc_tui::actors::contract::{
    DemandKind, EventSink, Inboxes, SourceControl, SourceEvent, SourceHandle, SourceKey,
};
use masc_tui::actors::keeper_detail::{KEEPER_DETAIL, KeeperDetailCommand, KeeperDetailSpawner};
use masc_tui::actors::keepers::KeepersRosterSpawner;
use masc_tui::actors::registry::SourceEntry;
use masc_tui::actors::saves::{SAVES, SaveCommand};
use masc_tui::actors::supervisor::{RuntimeHandle, start_runtime_with};
use masc_tui::protocol::client::WorkspaceClient;
use masc_tui::server::faults::FaultPlan;
use masc_tui::server::{AuthMode, RunningServer, ServeOptions, start};
use masc_tui::view::model::Model;
use masc_tui::view::save_path::kinds;
use masc_tui::view::save_path::settle::{Reread, SettleStep};
use masc_tui::view::save_path::{SaveRefusal, SaveRequest, Submitted, submit};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

const TOKEN: &str = "model-rig-token";

pub struct ModelRig {
    pub server: RunningServer,
    pub model: Model,
    pub handles: HashMap<SourceKey, SourceHandle>,
    pub outbox_path: PathBuf,
    runtime: RuntimeHandle,
    rx: mpsc::UnboundedReceiver<SourceEvent>,
    _dir: tempfile::TempDir,
    _state: tempfile::TempDir,
}

/// The roster (read once per epoch and on demand), the Keeper detail source and the save hub.
pub fn keeper_sources(outbox: &std::path::Path) -> Vec<SourceEntry> {
    vec![
        registry_entry(KeepersRosterSpawner {
            cadence: Duration::from_secs(3600),
        }),
        registry_entry(KeeperDetailSpawner::new(Duration::from_secs(3600))),
        hub_entry(outbox),
    ]
}

pub fn client(base_url: &str) -> WorkspaceClient {
    crate::decisions_rig::client(base_url, TOKEN, Duration::from_secs(10))
}

impl ModelRig {
    /// The embedded server with `faults`, `sources` (made for the rig's outbox file) against
    /// it, pumped until the workspace is confirmed and the save hub is up.
    pub async fn start(
        faults: FaultPlan,
        sources: impl FnOnce(&std::path::Path) -> Vec<SourceEntry>,
    ) -> Self {
        Self::start_after(faults, |_, _| {}, sources).await
    }

    /// [`ModelRig::start`], with `earlier_run` given the server and the outbox file before
    /// the runtime starts (what an earlier run of the TUI left there).
    pub async fn start_after(
        faults: FaultPlan,
        earlier_run: impl FnOnce(&RunningServer, &std::path::Path),
        sources: impl FnOnce(&std::path::Path) -> Vec<SourceEntry>,
    ) -> Self {
        let server = start(ServeOptions {
            faults,
            test_mode: true,
            auth: AuthMode::Token(TOKEN.into()),
            ..ServeOptions::default()
        })
        .await
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let outbox_path = dir.path().join("outbox.sqlite3");
        earlier_run(&server, &outbox_path);
        let (state, state_at) = crate::actor_support::scratch_outbox();
        let (tx, rx) = mpsc::unbounded_channel();
        let sink: Arc<dyn EventSink> = Arc::new(tx);
        let inboxes = Inboxes::new();
        let runtime = start_runtime_with(
            client(&server.base_url()),
            sink,
            inboxes.clone(),
            save_runtime_config(state_at),
            sources(&outbox_path),
        )
        .await
        .unwrap();
        let mut rig = Self {
            server,
            model: Model::new(inboxes),
            handles: HashMap::new(),
            outbox_path,
            runtime,
            rx,
            _dir: dir,
            _state: state,
        };
        rig.pump_until(|r| r.model.gate().current().is_some() && r.handles.contains_key(&SAVES))
            .await;
        rig
    }

    /// Handles the next runtime event as the view does.
    pub async fn pump_one(&mut self) {
        let event = tokio::time::timeout(masc_tui::timeline::capture::FAILSAFE, self.rx.recv())
            .await
            .expect("failsafe: no further runtime event")
            .expect("the runtime is gone");
        match event {
            SourceEvent::Delivered { inbox, upto } => {
                let drained = self.model.on_delivered(inbox, upto, Instant::now());
                for source in drained.demands {
                    self.demand(source);
                }
            }
            SourceEvent::Identity(state) => {
                self.model.on_identity(state);
            }
            SourceEvent::SourceUp { source, handle } => {
                self.handles.insert(source, handle);
            }
            SourceEvent::SourceRestarted(source) => {
                self.model.on_source_restarted(source);
            }
            SourceEvent::SourceStopped(source) => {
                self.model.on_source_stopped(source);
            }
        }
    }

    /// Pumps until `pred` holds (checked first).
    pub async fn pump_until(&mut self, pred: impl Fn(&Self) -> bool) {
        while !pred(self) {
            self.pump_one().await;
        }
    }

    /// An explicit demand of `source`.
    pub fn demand(&self, source: SourceKey) {
        if let Some(handle) = self.handles.get(&source) {
            handle.send_control(SourceControl::Demand(DemandKind::Explicit));
        }
    }

    /// A Keeper detail command, seen by the model first (as the view sends it).
    pub fn detail(&mut self, cmd: KeeperDetailCommand) {
        self.model.keeper_detail.on_command(&cmd);
        self.send(KEEPER_DETAIL, cmd);
    }

    pub fn send<C: Send + 'static>(&self, source: SourceKey, cmd: C) {
        let handle = self
            .handles
            .get(&source)
            .and_then(|h| h.commands::<C>())
            .unwrap_or_else(|| panic!("{source} takes no such command"));
        handle.send_message(cmd).unwrap();
    }

    /// Submits `request` through the one save path as the confirming key does, after the
    /// operator saw its preview (an unconfirmed request of a previewed kind is only staged).
    pub fn submit(&mut self, request: SaveRequest) -> Result<Submitted, SaveRefusal> {
        let hub = self
            .handles
            .get(&SAVES)
            .and_then(|h| h.commands::<SaveCommand>());
        submit(&mut self.model, hub.as_ref(), request.confirmed())
    }

    /// One pass of the settle stage at `now`, its demands cast as the view actor casts them.
    pub fn settle(&mut self, now: Instant) -> SettleStep {
        let step = kinds::advance(&mut self.model, now);
        for reread in &step.demands {
            match reread {
                Reread::Source(source) => self.demand(*source),
                Reread::Keeper(keeper) => {
                    let confirm = KeeperDetailCommand::Confirm {
                        keeper: keeper.clone(),
                    };
                    self.model.keeper_detail.on_command(&confirm);
                    self.send(KEEPER_DETAIL, confirm);
                }
            }
        }
        step
    }

    /// Pumps and settles (at real time) until `pred` holds; the stage's next look is taken at
    /// its time even when no event comes (the view actor's `SettleDue`).
    pub async fn settle_until(&mut self, pred: impl Fn(&Self) -> bool) {
        loop {
            let next = self.settle(Instant::now()).next;
            if pred(self) {
                return;
            }
            match next {
                Some(at) => {
                    let wait = at.saturating_duration_since(Instant::now());
                    let _ = tokio::time::timeout(wait, self.pump_one()).await;
                }
                None => self.pump_one().await,
            }
        }
    }

    pub async fn stop(self) {
        self.runtime.stop().await;
    }
}
