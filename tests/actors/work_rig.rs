//! Shared rig of the Work ownership tests: the embedded server with a fault plan, the Work
//! sources under the supervisor, an ordered view log, and a view [`Model`] fed with exactly the
//! messages the view received, in the view's order (so the tests assert the typed state the
//! screen would show). Synchronisation is by view messages and stage records only (no sleeps).
#![allow(dead_code)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::actor_support::{registry_entry, rig_runtime_config};
use crate::ordered_view::{OrderedView, Seen};
use crate::view_log::ViewLog;
use masc_tui::actors::contract::{
    DemandKind, IdentityState, SlotEvent, SourceControl, SourceHandle, SourceKey, Ticket,
};
use masc_tui::actors::registry::SourceEntry;
use masc_tui::actors::supervisor::{RuntimeHandle, start_runtime_with};
use masc_tui::actors::work::{
    HistoryChain, PlanningSpawner, TaskListSpawner, WORK_DETAIL, WorkCommand, WorkDetailSpawner,
    WorkObservation, WorkSlot,
};
use masc_tui::protocol::client::{ClientConfig, ClientError, TokenSource, WorkspaceClient};
use masc_tui::server::compat::MascRelease;
use masc_tui::server::faults::FaultPlan;
use masc_tui::server::{AuthMode, RunningServer, ServeOptions, start};
use masc_tui::timeline::capture::StageRecorder;
use masc_tui::timeline::record::StageRecord;
use masc_tui::view::work::TaskDetailModel;
use std::sync::Arc;
use std::time::Duration;

pub const TOKEN: &str = "work-test-token";
pub const LONG: &str = "task-1013";
pub const EMPTY: &str = "task-1040";
pub const PAGE: &str = "/api/v1/dashboard/tasks/history/page";
pub const DETAIL: &str = "/api/v1/dashboard/tasks/detail";
pub const LEGACY: &str = "/api/v1/dashboard/tasks/history";

/// What the view handles, for the Work surface.
pub type ViewMsg = Seen<WorkSlot, WorkObservation>;
pub type WorkTicket = Ticket<WorkSlot>;

/// One observation: the ticket it carried and its payload.
#[derive(Debug, Clone)]
pub struct Observation {
    pub ticket: WorkTicket,
    pub payload: WorkObservation,
}

pub fn plan(rules: &str) -> FaultPlan {
    FaultPlan::from_json(&format!(r#"{{"rules":[{rules}]}}"#)).unwrap()
}

pub struct Rig {
    pub server: RunningServer,
    pub runtime: RuntimeHandle,
    pub recorder: StageRecorder,
    /// The view log and the model it feeds (`rig.model`, `rig.log`, `rig.rejected`).
    pub view: ViewLog<WorkSlot, WorkObservation>,
    _trace: tracing::subscriber::DefaultGuard,
    _state: tempfile::TempDir,
}

impl std::ops::Deref for Rig {
    type Target = ViewLog<WorkSlot, WorkObservation>;
    fn deref(&self) -> &Self::Target {
        &self.view
    }
}

impl std::ops::DerefMut for Rig {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.view
    }
}

/// Which Work sources run.
pub enum Sources {
    Detail,
    All,
}

/// The embedded server (test mode, token auth, `faults`) and a client for it.
pub async fn server_and_client(faults: FaultPlan) -> (RunningServer, WorkspaceClient) {
    server_and_client_as(faults, None).await
}

/// [`server_and_client`] with the server playing `compat` (an older MASC release).
pub async fn server_and_client_as(
    faults: FaultPlan,
    compat: Option<MascRelease>,
) -> (RunningServer, WorkspaceClient) {
    let server = start(ServeOptions {
        faults,
        test_mode: true,
        auth: AuthMode::Token(TOKEN.into()),
        compat,
        ..ServeOptions::default()
    })
    .await
    .unwrap();
    let mut cc = ClientConfig::new(server.base_url());
    cc.token = TokenSource::Fixed(TOKEN.into());
    cc.request_timeout = Duration::from_secs(5);
    let client = WorkspaceClient::new(cc).unwrap();
    (server, client)
}

/// The Work detail source with `cadence`, as the registry lists it.
pub fn work_detail_entry(cadence: Duration) -> SourceEntry {
    registry_entry(WorkDetailSpawner::new(cadence))
}

/// The Task list source with `cadence`, as the registry lists it.
pub fn task_list_entry(cadence: Duration) -> SourceEntry {
    registry_entry(TaskListSpawner::new(cadence))
}

pub async fn rig(faults: FaultPlan, sources: Sources) -> Rig {
    rig_as(faults, sources, None).await
}

/// [`rig`] on the embedded server playing `compat` (an older MASC release).
pub async fn rig_as(faults: FaultPlan, sources: Sources, compat: Option<MascRelease>) -> Rig {
    let recorder = StageRecorder::new();
    let trace = tracing::subscriber::set_default(recorder.subscriber());
    let (server, client) = server_and_client_as(faults, compat).await;
    let log = OrderedView::new();
    let (state, state_at) = crate::actor_support::scratch_outbox();
    let cfg = rig_runtime_config(server.base_path(), Duration::from_millis(20), state_at);
    // Cadences far away: polls happen only when a test sends `Demand(Cadence)`.
    let hour = Duration::from_secs(3600);
    let mut entries = vec![work_detail_entry(hour)];
    if matches!(sources, Sources::All) {
        entries.push(registry_entry(PlanningSpawner { cadence: hour }));
        entries.push(task_list_entry(hour));
    }
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
    rig.wait(|m| matches!(m, ViewMsg::Identity(IdentityState::Confirmed { .. })))
        .await;
    rig
}

impl Rig {
    pub async fn observed(&mut self, slot: &WorkSlot) -> Observation {
        match self
            .wait(|m| matches!(m, ViewMsg::Slot(SlotEvent::Observed(t, _)) if &t.slot == slot))
            .await
        {
            ViewMsg::Slot(SlotEvent::Observed(ticket, payload)) => Observation { ticket, payload },
            _ => unreachable!(),
        }
    }

    pub async fn observed_ticket(&mut self, ticket: &WorkTicket) -> Observation {
        match self
            .wait(|m| matches!(m, ViewMsg::Slot(SlotEvent::Observed(t, _)) if t == ticket))
            .await
        {
            ViewMsg::Slot(SlotEvent::Observed(ticket, payload)) => Observation { ticket, payload },
            _ => unreachable!(),
        }
    }

    /// Whether the view received an observation carrying `pred`'s ticket.
    pub fn any_observed(&self, pred: impl Fn(&WorkTicket) -> bool) -> bool {
        self.log
            .seen
            .iter()
            .any(|m| matches!(m, ViewMsg::Slot(SlotEvent::Observed(t, _)) if pred(t)))
    }

    /// The handle of `source` (the latest `SourceUp`, already received or still to come).
    pub async fn source_handle(&mut self, source: SourceKey) -> SourceHandle {
        let is_it = |m: &ViewMsg| matches!(m, ViewMsg::SourceUp { source: s, .. } if *s == source);
        if let Some(ViewMsg::SourceUp { handle, .. }) = self.log.last_seen(is_it) {
            return handle.clone();
        }
        match self.wait(is_it).await {
            ViewMsg::SourceUp { handle, .. } => handle,
            _ => unreachable!(),
        }
    }

    pub async fn detail_source(&mut self) -> SourceHandle {
        self.source_handle(WORK_DETAIL).await
    }

    /// What the view actor does for a Work key: update the model, then tell the source.
    pub async fn command(&mut self, cmd: WorkCommand) {
        self.model.work.on_command(&cmd);
        let source = self.detail_source().await;
        source
            .commands::<WorkCommand>()
            .expect("the Work detail source takes Work commands")
            .send_message(cmd)
            .unwrap();
    }

    pub async fn demand(&mut self, kind: DemandKind) {
        let source = self.detail_source().await;
        assert!(source.send_control(SourceControl::Demand(kind)));
    }

    pub async fn open_task(&mut self, task_id: &str, page_rows: u32) -> (WorkTicket, WorkTicket) {
        self.command(WorkCommand::OpenTask {
            task_id: task_id.into(),
            page_rows,
        })
        .await;
        let body = self.dispatched(&body_key(task_id)).await;
        let history = self.dispatched(&history_key(task_id)).await;
        (body, history)
    }

    pub fn task(&self) -> &TaskDetailModel {
        self.model.work.task.as_ref().expect("a task is open")
    }

    pub fn stages_of(&self, ticket: &WorkTicket) -> Vec<StageRecord> {
        use masc_tui::actors::contract::SlotKey;
        let name = ticket.slot.trace_name();
        self.recorder.records_where(|r| {
            r.source == name
                && r.generation == Some(ticket.generation)
                && r.epoch == Some(ticket.scope.epoch)
        })
    }

    pub fn stage_names(&self, ticket: &WorkTicket) -> Vec<String> {
        self.stages_of(ticket)
            .into_iter()
            .map(|r| r.stage)
            .collect()
    }

    pub fn requests(&self, path: &str) -> usize {
        self.server.request_count("GET", path)
    }

    pub async fn finish(self) {
        self.runtime.stop().await;
        self.server.shutdown().await;
    }
}

pub fn body_key(id: &str) -> WorkSlot {
    WorkSlot::TaskBody(id.into())
}

pub fn history_key(id: &str) -> WorkSlot {
    WorkSlot::TaskHistory(id.into())
}

/// The history read of an observation.
pub fn history_read(o: &Observation) -> &masc_tui::actors::work::HistoryPageRead {
    match &o.payload {
        WorkObservation::TaskHistory(h) => h,
        other => panic!("not a history read: {other:?}"),
    }
}

pub fn history_chain(o: &Observation) -> Arc<HistoryChain> {
    match &history_read(o).result {
        Ok(a) => a.value.clone(),
        Err(e) => panic!("history page failed: {e:?}"),
    }
}

pub fn history_error(o: &Observation) -> ClientError {
    match &history_read(o).result {
        Ok(_) => panic!("history page succeeded"),
        Err(e) => e.clone(),
    }
}

/// The admitted prefix the model shows (the last good value).
pub fn shown_chain(t: &TaskDetailModel) -> Option<Arc<HistoryChain>> {
    t.history.fetched.last().map(|o| o.value.clone())
}
