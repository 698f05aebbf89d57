//! The rig of the approval-decision tests that need the real view model: the supervisor with
//! only the save hub and the Decisions source, an ordered view log fed (in the view's order)
//! into a real `Model` (so admission verdicts, the `SaveBook` and the Approvals view's rules
//! are the real ones), the demands a drain returns sent back to the source as the view actor
//! does, the stage recorder, and a watch on the embedded server's injected faults (the signal
//! that a request reached the server and is held there).
#![allow(dead_code)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::actor_support::registry_entry;
use crate::ordered_view::{OrderedView, Seen};
use crate::surface_rig::{hub_entry, save_runtime_config};
use masc_tui::actors::contract::{DemandKind, SlotEvent, SourceControl, SourceHandle};
use masc_tui::actors::decisions::approval::{ApprovalDecision, DecisionIntent};
use masc_tui::actors::decisions::ask_answer::{AnswerIntent, AskAnswer};
use masc_tui::actors::decisions::{
    DECISIONS, DecisionsObservation, DecisionsSlot, DecisionsSpawner,
};
use masc_tui::actors::saves::{SAVES, SaveCommand, SaveId};
use masc_tui::actors::supervisor::{RuntimeHandle, start_runtime_with};
use masc_tui::outbox::{Outbox, SaveRow};
use masc_tui::protocol::client::{ClientConfig, TokenSource, WorkspaceClient};
use masc_tui::timeline::capture::{FAILSAFE, StageRecorder};
use masc_tui::view::admission::RejectReason;
use masc_tui::view::model::Model;
use masc_tui::view::save_path::{SaveRequest, submit};
use ractor::DerivedActorRef;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::Notify;
use tracing_subscriber::layer::{Context, SubscriberExt};

pub const CONFIRM: &str = "/api/v1/operator/confirm";

/// Counts the embedded server's `fault injected` events (target `masc_tui::server::fault`,
/// emitted when a request has arrived and its faults were decided, before any delay): the
/// signal that a request is at the server, held by its delay fault.
#[derive(Clone, Default)]
pub struct FaultWatch {
    shared: Arc<(Mutex<usize>, Notify)>,
}

impl FaultWatch {
    pub fn count(&self) -> usize {
        *self.shared.0.lock().unwrap()
    }

    /// Resolves once `n` faults were injected; panics after the test failsafe.
    pub async fn wait_for(&self, n: usize) {
        let wait = async {
            loop {
                let notified = self.shared.1.notified();
                tokio::pin!(notified);
                notified.as_mut().enable();
                if self.count() >= n {
                    return;
                }
                notified.await;
            }
        };
        tokio::time::timeout(FAILSAFE, wait)
            .await
            .unwrap_or_else(|_| panic!("failsafe: fewer than {n} faults injected"));
    }
}

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for FaultWatch {
    fn on_event(&self, event: &tracing::Event<'_>, _ctx: Context<'_, S>) {
        if event.metadata().target() == "masc_tui::server::fault" {
            *self.shared.0.lock().unwrap() += 1;
            self.shared.1.notify_waiters();
        }
    }
}

pub struct DecisionsRig {
    pub runtime: RuntimeHandle,
    pub log: OrderedView<DecisionsSlot, DecisionsObservation>,
    pub model: Model,
    /// The save hub's typed command handle (from its latest `SourceUp`).
    pub hub: Option<DerivedActorRef<SaveCommand>>,
    /// The Decisions source's handle (demands after a receipt, as the view actor sends them).
    pub decisions: Option<SourceHandle>,
    pub recorder: StageRecorder,
    pub faults: FaultWatch,
    pub outbox_path: PathBuf,
    /// Every verdict on an approval decision event: (save id, verdict).
    pub verdicts: Vec<(SaveId, Result<(), RejectReason>)>,
    _trace: tracing::subscriber::DefaultGuard,
    _state: tempfile::TempDir,
}

pub fn client(base_url: &str, token: &str, timeout: Duration) -> WorkspaceClient {
    let mut cc = ClientConfig::new(base_url);
    cc.token = TokenSource::Fixed(token.into());
    cc.request_timeout = timeout;
    WorkspaceClient::new(cc).unwrap()
}

/// Starts the save hub and the Decisions source against `client` (outbox at `outbox_path`),
/// then pumps until the workspace is confirmed and both handles are known. The Decisions
/// source reads once per epoch and on demand only (no cadence reads in between).
pub async fn decisions_rig(client: WorkspaceClient, outbox_path: PathBuf) -> DecisionsRig {
    let recorder = StageRecorder::new();
    let faults = FaultWatch::default();
    let subscriber = tracing_subscriber::registry()
        .with(recorder.clone())
        .with(faults.clone());
    let trace = tracing::subscriber::set_default(subscriber);
    let log = OrderedView::new();
    let (state, state_at) = crate::actor_support::scratch_outbox();
    let cfg = save_runtime_config(state_at);
    let entries = vec![
        hub_entry(&outbox_path),
        registry_entry(DecisionsSpawner {
            cadence: Duration::from_secs(3600),
        }),
    ];
    let runtime = start_runtime_with(client, log.sink(), log.inboxes(), cfg, entries)
        .await
        .unwrap();
    let mut rig = DecisionsRig {
        runtime,
        log,
        model: Model::default(),
        hub: None,
        decisions: None,
        recorder,
        faults,
        outbox_path,
        verdicts: Vec::new(),
        _trace: trace,
        _state: state,
    };
    rig.pump_until(|m| m.gate().current().is_some()).await;
    while rig.hub.is_none() || rig.decisions.is_none() {
        rig.pump_one().await;
    }
    rig
}

impl DecisionsRig {
    /// Feeds view messages into the model until `pred` holds (checked first).
    pub async fn pump_until(&mut self, pred: impl Fn(&Model) -> bool) {
        while !pred(&self.model) {
            self.pump_one().await;
        }
    }

    /// Feeds the next view message into the model (in the view's order), as the view actor
    /// does: identity, slot events, and the re-reads a drain asks for.
    pub async fn pump_one(&mut self) {
        self.log
            .wait_for(|_| true)
            .await
            .expect("failsafe: no further view message");
        let msg = self.log.seen.last().unwrap().clone();
        match msg {
            Seen::SourceUp { source, handle } if source == SAVES => {
                self.hub = handle.commands::<SaveCommand>();
            }
            Seen::SourceUp { source, handle } if source == DECISIONS => {
                self.decisions = Some(handle);
            }
            Seen::Identity(state) => {
                self.model.on_identity(state);
            }
            Seen::Slot(event) => {
                let save = match &event {
                    SlotEvent::Observed(_, DecisionsObservation::Decision(ev)) => {
                        Some(ev.save_id.clone())
                    }
                    _ => None,
                };
                let drained = self.model.deliver(event, Instant::now());
                if let Some(id) = save {
                    let verdict = match drained.rejected.first() {
                        Some(reason) => Err(*reason),
                        None => Ok(()),
                    };
                    self.verdicts.push((id, verdict));
                }
                for source in drained.demands {
                    if source == DECISIONS
                        && let Some(handle) = &self.decisions
                    {
                        handle.send_control(SourceControl::Demand(DemandKind::Explicit));
                        self.model.mark_asked(source);
                    }
                }
            }
            _ => {}
        }
    }

    /// Submits a decision the way the view actor does (`view::save_path::submit`): registered
    /// in the model's `SaveBook` under the current scope first, then cast to the save hub.
    pub fn decide(&mut self, intent: DecisionIntent) -> SaveId {
        let request = SaveRequest::new::<ApprovalDecision>(intent);
        submit(&mut self.model, self.hub.as_ref(), request)
            .unwrap()
            .save_id
    }

    /// Submits an Ask answer the way the view actor does (`view::save_path::submit`):
    /// registered in the model's answer book under the current scope, then cast to the save hub.
    pub fn answer(&mut self, intent: AnswerIntent) -> SaveId {
        let request = SaveRequest::new::<AskAnswer>(intent);
        submit(&mut self.model, self.hub.as_ref(), request)
            .unwrap()
            .save_id
    }

    /// The outbox row of `id`, read through a handle of its own.
    pub fn row(&self, id: &SaveId) -> Option<SaveRow> {
        Outbox::open_path(&self.outbox_path)
            .unwrap()
            .save_row(&id.0)
            .unwrap()
    }

    /// The current workspace (served `effective_masc_root`).
    pub fn workspace(&self) -> String {
        self.model.gate().current().unwrap().workspace.0.clone()
    }

    pub async fn stop(self) {
        self.runtime.stop().await;
    }
}
