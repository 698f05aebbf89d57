//! Pure builders for view-model tests without a server: a confirmed model, tickets and
//! history pages as the Work detail source would deliver them.

#![allow(dead_code)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers

use masc_tui::actors::contract::{IdentityState, SlotEvent, Ticket};
use masc_tui::actors::work::{HistoryChain, HistoryPageRead, WorkObservation, WorkSlot};
use masc_tui::protocol::admission::{AdmissionMode, ReadScope, WorkspaceId};
use masc_tui::protocol::client::{Admitted, ClientError};
use masc_tui::protocol::decode::WireDecode;
use masc_tui::protocol::tasks::{
    HistoryContinuation, PageRequest, TaskDetail, TaskEventRow, TaskHistoryPage,
};
use masc_tui::view::model::Model;
use std::sync::Arc;

/// A Work result as the Work sources post it: its ticket and its payload.
pub type Observation = SlotEvent<WorkSlot, WorkObservation>;

pub fn scope() -> ReadScope {
    ReadScope {
        workspace: WorkspaceId("/w/.masc".into()),
        epoch: 1,
    }
}

pub fn confirmed_model() -> Model {
    let mut m = Model::default();
    m.on_identity(IdentityState::Confirmed {
        scope: scope(),
        base_path: "/w".into(),
        mode: AdmissionMode::Receipt,
    });
    m
}

pub fn ticket(slot: WorkSlot, generation: u64) -> Ticket<WorkSlot> {
    Ticket {
        slot,
        generation,
        scope: scope(),
    }
}

pub fn event(task: &str, k: usize) -> TaskEventRow {
    TaskEventRow {
        task_id: task.into(),
        ts: "2026-10-08T10:00:00Z".into(),
        task: None,
        event_type: Some("task_note".into()),
        action: Some("note".into()),
        from_status: None,
        to_status: None,
        agent: Some("rondo".into()),
        actor: None,
        actor_kind: Some("keeper".into()),
        assignee: None,
        notes: Some(
            format!(
                "#{k} 디코더 경로 에러 메시지 개선 — a note long enough to wrap on a narrow pane 👀"
            )
            .into(),
        ),
        reason: None,
        handoff_context: None,
    }
}

/// `base` + one page of `n` rows (cursor `c{pages}` unless `last`).
pub fn next_page(base: &HistoryChain, n: usize, last: bool) -> (PageRequest, Arc<TaskHistoryPage>) {
    let request = base.next_request(200).expect("chain continues");
    let start = base.len();
    let page = TaskHistoryPage {
        task_id: base.task_id.clone(),
        cursor: request.cursor.clone(),
        rows: (start..start + n)
            .map(|k| event(&base.task_id, k))
            .collect(),
        continuation: if last {
            HistoryContinuation::EndOfStoredHistory
        } else {
            HistoryContinuation::More {
                next_cursor: format!("c{}", base.pages_read() + 1),
            }
        },
    };
    (request, Arc::new(page))
}

/// The history observation the source sends for `base` + a page of `n` rows.
pub fn history_obs(
    base: &Arc<HistoryChain>,
    generation: u64,
    n: usize,
    last: bool,
) -> (Observation, Arc<HistoryChain>) {
    let (request, page) = next_page(base, n, last);
    let chain = Arc::new(base.append(&request, page).expect("appends"));
    let obs = SlotEvent::Observed(
        ticket(WorkSlot::TaskHistory(base.task_id.clone()), generation),
        WorkObservation::TaskHistory(Box::new(HistoryPageRead {
            base: base.clone(),
            request,
            result: Ok(Admitted {
                value: chain.clone(),
                mode: AdmissionMode::Receipt,
                from_cache: false,
            }),
        })),
    );
    (obs, chain)
}

pub fn failed_history_obs(
    base: &Arc<HistoryChain>,
    generation: u64,
    err: ClientError,
) -> Observation {
    let request = base.next_request(200).expect("chain continues");
    SlotEvent::Observed(
        ticket(WorkSlot::TaskHistory(base.task_id.clone()), generation),
        WorkObservation::TaskHistory(Box::new(HistoryPageRead {
            base: base.clone(),
            request,
            result: Err(err),
        })),
    )
}

pub fn body_obs(task: &str, generation: u64) -> Observation {
    let body = format!(
        r#"{{"schema":"masc.task_detail.v1","task_id":"{task}","goal":{{"state":"linked","goal_ids":["goal-7"]}},
        "task":{{"id":"{task}","title":"Write decoder","description":"Typed decoder.\nSecond line with 한국어 text.","priority":2,"files":["src/a.rs"],"created_at":"2026-10-01T09:00:00Z","status":"in_progress","assignee":"alpha","started_at":"2026-10-02T10:00:00Z"}}}}"#
    );
    let detail = TaskDetail::decode(body.as_bytes()).expect("valid body");
    SlotEvent::Observed(
        ticket(WorkSlot::TaskBody(task.into()), generation),
        WorkObservation::TaskBody(Ok(Admitted {
            value: Arc::new(detail),
            mode: AdmissionMode::Receipt,
            from_cache: false,
        })),
    )
}

/// Dispatch + observe through the model (as the view would).
pub fn deliver(model: &mut Model, obs: Observation) {
    crate::rig::dispatch(model, obs.ticket().clone());
    crate::rig::observe(model, obs).expect("admitted");
}
