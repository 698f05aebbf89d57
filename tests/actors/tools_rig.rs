//! Shared rig of the Tools ownership tests: the embedded server with a fault plan, the Tools
//! source alone under the supervisor (cadence an hour away: a poll happens only when a test
//! sends `Demand(Cadence)`), an ordered view log, and a view [`Model`] fed with exactly the
//! messages the view received, in the view's order. Synchronisation is by view messages and
//! stage records only.
#![allow(dead_code)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::actor_support::{registry_entry, rig_runtime_config};
use crate::ordered_view::{OrderedView, Seen};
use crate::view_log::ViewLog;
use masc_tui::actors::connectors::{ConnectorsObservation, ConnectorsSlot};
use masc_tui::actors::contract::{
    DemandKind, IdentityState, SlotEvent, SlotKey, SourceControl, SourceHandle, Ticket,
};
use masc_tui::actors::supervisor::{RuntimeHandle, start_runtime_with};
use masc_tui::actors::tools::{
    HeldRequest, TOOLS, ToolsCommand, ToolsObservation, ToolsSlot, ToolsSpawner,
};
use masc_tui::server::RunningServer;
use masc_tui::server::faults::FaultPlan;
use masc_tui::timeline::capture::StageRecorder;
use std::time::Duration;

pub type ViewMsg = Seen<ToolsSlot, ToolsObservation>;
pub type ToolsTicket = Ticket<ToolsSlot>;
/// What the view receives from the Connectors source.
pub type ConnectorsMsg = Seen<ConnectorsSlot, ConnectorsObservation>;
/// The rig over the Connectors source alone.
pub type ConnectorsRig = Rig<ConnectorsSlot, ConnectorsObservation>;

pub struct Rig<S = ToolsSlot, O = ToolsObservation> {
    pub server: RunningServer,
    pub runtime: RuntimeHandle,
    pub recorder: StageRecorder,
    /// The view log and the model it feeds (`rig.model`, `rig.log`, `rig.rejected`).
    pub view: ViewLog<S, O>,
    _trace: tracing::subscriber::DefaultGuard,
    _state: tempfile::TempDir,
}

impl<S, O> std::ops::Deref for Rig<S, O> {
    type Target = ViewLog<S, O>;
    fn deref(&self) -> &Self::Target {
        &self.view
    }
}

impl<S, O> std::ops::DerefMut for Rig<S, O> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.view
    }
}

pub fn request_key(id: &str) -> ToolsSlot {
    ToolsSlot::AsyncRequest(id.into())
}

pub fn held(by: &str, target: &str) -> Option<HeldRequest> {
    Some(HeldRequest {
        submitted_by: by.into(),
        target_keeper: target.into(),
    })
}

pub async fn rig(faults: FaultPlan) -> Rig {
    rig_of(
        faults,
        registry_entry(ToolsSpawner::new(Duration::from_secs(3600))),
    )
    .await
}

/// The Connectors source alone (cadence an hour away), for the write-demand tests.
pub async fn connectors_rig(faults: FaultPlan) -> ConnectorsRig {
    rig_of(
        faults,
        registry_entry(masc_tui::actors::connectors::ConnectorsSpawner::new(
            Duration::from_secs(3600),
        )),
    )
    .await
}

async fn rig_of<S, O>(
    faults: FaultPlan,
    entry: masc_tui::actors::registry::SourceEntry,
) -> Rig<S, O>
where
    S: SlotKey + Clone + std::fmt::Debug + PartialEq + Send + 'static,
    O: Clone + std::fmt::Debug + Send + 'static,
{
    let recorder = StageRecorder::new();
    let trace = tracing::subscriber::set_default(recorder.subscriber());
    let (server, client) = crate::work_rig::server_and_client(faults).await;
    let log = OrderedView::new();
    let (state, state_at) = crate::actor_support::scratch_outbox();
    let cfg = rig_runtime_config(server.base_path(), Duration::from_millis(20), state_at);
    let entries = vec![entry];
    let runtime = start_runtime_with(client, log.sink(), log.inboxes(), cfg, entries)
        .await
        .unwrap();
    let mut rig = Rig {
        server,
        runtime,
        recorder,
        view: ViewLog::new(log),
        _trace: trace,
        _state: state,
    };
    rig.wait(|m| matches!(m, Seen::Identity(IdentityState::Confirmed { .. })))
        .await;
    rig
}

impl<S, O> Rig<S, O>
where
    S: SlotKey + Clone + std::fmt::Debug + PartialEq + Send + 'static,
    O: Clone + std::fmt::Debug + Send + 'static,
{
    pub async fn observed_ticket(&mut self, ticket: &Ticket<S>) -> O {
        match self
            .wait(|m| matches!(m, Seen::Slot(SlotEvent::Observed(t, _)) if t == ticket))
            .await
        {
            Seen::Slot(SlotEvent::Observed(_, payload)) => payload,
            _ => unreachable!(),
        }
    }

    /// Every `Dispatched` of `slot` received so far.
    pub fn dispatches_of(&self, slot: &S) -> usize {
        self.log
            .seen
            .iter()
            .filter(|m| matches!(m, Seen::Slot(SlotEvent::Dispatched(t)) if &t.slot == slot))
            .count()
    }

    pub async fn handle(&mut self, key: masc_tui::actors::contract::SourceKey) -> SourceHandle {
        let is_it = |m: &Seen<S, O>| matches!(m, Seen::SourceUp { source, .. } if *source == key);
        if let Some(Seen::SourceUp { handle, .. }) = self.log.last_seen(is_it) {
            return handle.clone();
        }
        match self.wait(is_it).await {
            Seen::SourceUp { handle, .. } => handle,
            _ => unreachable!(),
        }
    }

    /// The stage names traced for `ticket`, in order.
    pub fn stage_names(&self, ticket: &Ticket<S>) -> Vec<String> {
        let name = ticket.slot.trace_name();
        self.recorder
            .records_where(|r| {
                r.source == name
                    && r.generation == Some(ticket.generation)
                    && r.epoch == Some(ticket.scope.epoch)
            })
            .into_iter()
            .map(|r| r.stage)
            .collect()
    }

    pub async fn finish(self) {
        self.runtime.stop().await;
        self.server.shutdown().await;
    }
}

impl Rig {
    pub async fn tools(&mut self) -> SourceHandle {
        self.handle(TOOLS).await
    }

    /// What the view actor does for a Tools key: update the model, then tell the source.
    pub async fn command(&mut self, cmd: ToolsCommand) {
        self.model.tools.on_command(&cmd);
        let source = self.tools().await;
        source
            .commands::<ToolsCommand>()
            .expect("the Tools source takes Tools commands")
            .send_message(cmd)
            .unwrap();
    }

    pub async fn open(&mut self, id: &str, held: Option<HeldRequest>) -> ToolsTicket {
        self.command(ToolsCommand::OpenRequest {
            request_id: id.into(),
            held,
        })
        .await;
        self.dispatched(&request_key(id)).await
    }

    pub async fn demand(&mut self, kind: DemandKind) {
        let source = self.tools().await;
        assert!(source.send_control(SourceControl::Demand(kind)));
    }
}
