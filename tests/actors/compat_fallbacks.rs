#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! The sources against the embedded server playing MASC v0.24.0
//! (`--compat v0.24.0`). Where MASC has the data, the Work sources fall back — the task list
//! to the goal-linked tasks of MASC's goals tree, the history page to the legacy recent
//! events — each as its own slot and typed value, chosen only after the primary read came
//! back `not_served` (never on another failure, A-3); the Connectors source starts no name
//! chain once the names route is known not served. Synchronisation is by view messages and
//! stage records only; the typed state is the view model fed in the view's order.

use crate::actor_support::rig_on_release;
use crate::work_rig::*;
use masc_tui::actors::connectors::{CONNECTORS, ConnectorsObservation, ConnectorsSlot};
use masc_tui::actors::contract::{
    DemandKind, IdentityState, SlotEvent, SourceControl, SourceEvent,
};
use masc_tui::actors::decisions::{DECISIONS, DecisionsObservation, DecisionsSlot};
use masc_tui::actors::runtime::{RuntimeObservation, RuntimeSlot};
use masc_tui::actors::tools::{TOOLS, ToolsObservation, ToolsSlot};
use masc_tui::actors::work::{TASK_LIST, WorkCommand, WorkObservation, WorkSlot};
use masc_tui::protocol::client::ClientError;
use masc_tui::protocol::routes::RouteFamily;
use masc_tui::server::compat::MascRelease;
use masc_tui::server::faults::FaultPlan;
use masc_tui::view::fetched::Fetched;
use masc_tui::view::model::{ConnectionState, Model};
use masc_tui::view::work::TaskListShown;
use std::time::Instant;

const AUGUST: MascRelease = MascRelease::V0_24_0;
const TASKS: &str = "/api/v1/dashboard/tasks";
const GOALS: &str = "/api/v1/dashboard/goals";

fn not_served(payload: &WorkObservation) -> Option<RouteFamily> {
    let err = match payload {
        WorkObservation::TaskList(Err(e))
        | WorkObservation::TaskBody(Err(e))
        | WorkObservation::GoalLinkedTasks(Err(e))
        | WorkObservation::TaskHistoryLegacy(Err(e)) => e,
        WorkObservation::TaskHistory(h) => h.result.as_ref().err()?,
        _ => return None,
    };
    match err {
        ClientError::NotServed { route } => Some(*route),
        _ => None,
    }
}

fn legacy_key(id: &str) -> WorkSlot {
    WorkSlot::TaskHistoryLegacy(id.into())
}

fn dispatches(rig: &Rig, slot: &WorkSlot) -> usize {
    rig.log
        .seen
        .iter()
        .filter(|m| matches!(m, ViewMsg::Slot(SlotEvent::Dispatched(t)) if &t.slot == slot))
        .count()
}

async fn demand_task_list(rig: &mut Rig, kind: DemandKind) {
    let source = rig.source_handle(TASK_LIST).await;
    assert!(source.send_control(SourceControl::Demand(kind)));
}

/// Work › Tasks fallback: on MASC v0.24.0 the task list read comes
/// back `not_served` once from the network, then from the client's table; only after it does
/// the source read the goals tree (one GET) for the goal-linked tasks, in its own slot. The
/// model shows the goal-linked list and stays `connected`. `r` reads the list again (no
/// request) and the goals tree again.
#[tokio::test]
async fn issue13_task_list_not_served_reads_the_goal_linked_tasks_once_per_demand() {
    let mut rig = rig_as(FaultPlan::none(), Sources::All, Some(AUGUST)).await;
    let list = rig.observed(&WorkSlot::TaskList).await;
    assert_eq!(not_served(&list.payload), Some(RouteFamily::TaskList));
    let linked = rig.observed(&WorkSlot::GoalLinkedTasks).await;
    let tasks = match &linked.payload {
        WorkObservation::GoalLinkedTasks(Ok(a)) => a.value.clone(),
        other => panic!("goal-linked tasks: {other:?}"),
    };
    assert!(!tasks.tasks().is_empty(), "the seeded goals link tasks");
    assert!(tasks.tasks().iter().all(|t| !t.goal_ids.is_empty()));
    // The fallback was dispatched only after the list's not-served answer was observed.
    let list_observed = rig.recorder.records_where(|r| {
        r.source == "task_list"
            && r.stage == "observe"
            && r.outcome.as_deref() == Some("not_served")
    });
    let linked_dispatched = rig
        .recorder
        .records_where(|r| r.source == "goal_linked_tasks" && r.stage == "dispatch");
    assert!(list_observed[0].ts_us <= linked_dispatched[0].ts_us);
    assert_eq!((rig.requests(TASKS), rig.requests(GOALS)), (1, 1));
    assert!(matches!(
        rig.model.work.task_list(),
        TaskListShown::GoalLinked {
            absent: RouteFamily::TaskList,
            ..
        }
    ));
    assert_eq!(rig.model.connection(), ConnectionState::Connected);
    assert_eq!(rig.model.not_served(), vec![RouteFamily::TaskList]);
    // `r`: the list route is asked again (answered from the table), then the goals tree.
    demand_task_list(&mut rig, DemandKind::Explicit).await;
    let again = rig.observed(&WorkSlot::TaskList).await;
    assert!(again.ticket.generation > list.ticket.generation);
    assert_eq!(not_served(&again.payload), Some(RouteFamily::TaskList));
    let linked_again = rig.observed(&WorkSlot::GoalLinkedTasks).await;
    assert!(linked_again.ticket.generation > linked.ticket.generation);
    assert_eq!(
        (rig.requests(TASKS), rig.requests(GOALS)),
        (1, 2),
        "a known not-served route is never asked again; the fallback is"
    );
    rig.finish().await;
}

/// The fallback is chosen only when the list route is known not served — a list
/// read that fails any other way (500) never reads the goals tree, on any demand.
#[tokio::test]
async fn issue13_another_task_list_failure_never_reads_the_goal_links() {
    let mut rig = rig(
        plan(
            r#"{"match":{"method":"GET","path":"/api/v1/dashboard/tasks"},"when":{"every":true},"fault":{"status":500,"body":{"error":"backlog locked"}}}"#,
        ),
        Sources::All,
    )
    .await;
    let first = rig.observed(&WorkSlot::TaskList).await;
    assert!(matches!(
        first.payload,
        WorkObservation::TaskList(Err(ClientError::Status { status: 500, .. }))
    ));
    demand_task_list(&mut rig, DemandKind::Explicit).await;
    let second = rig.observed(&WorkSlot::TaskList).await;
    assert!(second.ticket.generation > first.ticket.generation);
    assert_eq!(dispatches(&rig, &WorkSlot::GoalLinkedTasks), 0);
    assert_eq!(rig.requests(GOALS), 0);
    assert_eq!(rig.requests(TASKS), 2);
    assert!(matches!(
        rig.model.work.task_list(),
        TaskListShown::Served(_)
    ));
    assert_eq!(rig.model.connection(), ConnectionState::Degraded);
    rig.finish().await;
}

/// A-3/A-4: on MASC v0.24.0 the task body and the first history page come back
/// `not_served`; only then are the legacy recent events read (limit = the page demand, A-8),
/// every line of the opened task. `H` asks nothing (no older pages exist); `r` asks the page
/// route again (answered from the table) and so the legacy array again.
#[tokio::test]
async fn issue13_a3_history_pages_not_served_read_the_legacy_recent_events() {
    let mut rig = rig_as(FaultPlan::none(), Sources::Detail, Some(AUGUST)).await;
    rig.open_task(LONG, 20).await;
    let body = rig.observed(&body_key(LONG)).await;
    assert_eq!(not_served(&body.payload), Some(RouteFamily::TaskDetail));
    let page = rig.observed(&history_key(LONG)).await;
    assert_eq!(
        not_served(&page.payload),
        Some(RouteFamily::TaskHistoryPage)
    );
    let legacy = rig.observed(&legacy_key(LONG)).await;
    let events = match &legacy.payload {
        WorkObservation::TaskHistoryLegacy(Ok(a)) => a.value.clone(),
        other => panic!("legacy: {other:?}"),
    };
    assert_eq!(events.events.len(), 20, "limit = the page demand (A-8)");
    assert!(
        events
            .events
            .iter()
            .all(|e| e.task.as_deref().or(e.task_id.as_deref()) == Some(LONG))
    );
    assert_eq!((rig.requests(PAGE), rig.requests(LEGACY)), (1, 1));
    let task = rig.task();
    assert_eq!(
        task.history.fetched.not_served(),
        Some(RouteFamily::TaskHistoryPage)
    );
    assert!(matches!(task.legacy.fetched, Fetched::Ready(ref o) if o.value.events.len() == 20));
    assert_eq!(rig.model.connection(), ConnectionState::Connected);
    // `H` reads nothing older; `r` then reads the page route (from the table) and the legacy
    // array again.
    rig.command(WorkCommand::OlderHistory { page_rows: 20 })
        .await;
    rig.command(WorkCommand::RefreshTask { page_rows: 20 })
        .await;
    let page_again = rig.observed(&history_key(LONG)).await;
    assert_eq!(
        not_served(&page_again.payload),
        Some(RouteFamily::TaskHistoryPage)
    );
    let legacy_again = rig.observed(&legacy_key(LONG)).await;
    assert!(legacy_again.ticket.generation > legacy.ticket.generation);
    assert_eq!(
        dispatches(&rig, &history_key(LONG)),
        2,
        "open and r, nothing for H"
    );
    assert_eq!(dispatches(&rig, &legacy_key(LONG)), 2);
    assert_eq!((rig.requests(PAGE), rig.requests(LEGACY)), (1, 2));
    rig.finish().await;
}

/// Connectors, D-5: on MASC v0.24.0 the first status starts the name
/// chains, which come back `not_served`; from then on a status starts no chain at all (each
/// traced `refused{not_served}`), so the known absent route is never looped on; the status
/// itself keeps reading.
#[tokio::test]
async fn issue13_d5_no_name_chain_starts_once_the_names_route_is_known_absent() {
    let mut rig = rig_on_release(AUGUST).await;
    type Event = SlotEvent<ConnectorsSlot, ConnectorsObservation>;
    let is_status = |e: &Event| {
        matches!(
            e,
            SlotEvent::Observed(_, ConnectorsObservation::Status(Ok(_)))
        )
    };
    let listed = match rig.view.wait_slot(is_status).await {
        Some(SlotEvent::Observed(_, ConnectorsObservation::Status(Ok(a)))) => {
            a.value.connectors().count()
        }
        other => panic!("status: {other:?}"),
    };
    assert!(listed > 0);
    let absent = rig
        .view
        .wait_slot(|e: &Event| match e {
            SlotEvent::Observed(_, ConnectorsObservation::Names(read)) => matches!(
                read.result,
                Err(ClientError::NotServed {
                    route: RouteFamily::ConnectorNames
                })
            ),
            _ => false,
        })
        .await;
    assert!(absent.is_some());
    let chain_dispatches = |rig: &mut crate::actor_support::Rig| {
        rig.view
            .slot_events::<ConnectorsSlot, ConnectorsObservation>()
            .iter()
            .filter(|e| {
                matches!(e, SlotEvent::Dispatched(t) if matches!(t.slot, ConnectorsSlot::Names { .. }))
            })
            .count()
    };
    let first_round = chain_dispatches(&mut rig);
    assert_eq!(first_round, listed * 3, "one chain per connector and scope");
    // Two more status reads: the second one is handled entirely before the third is asked.
    let handle = rig.source_handle(CONNECTORS).await;
    for _ in 0..2 {
        assert!(handle.send_control(SourceControl::Demand(DemandKind::Explicit)));
        assert!(rig.view.wait_slot(is_status).await.is_some());
    }
    assert_eq!(chain_dispatches(&mut rig), first_round, "no chain after");
    let refused = rig.recorder.records_where(|r| {
        r.stage == "refused"
            && r.source.starts_with("connector_names:")
            && r.reason.as_deref() == Some("not_served")
    });
    assert_eq!(
        refused.len(),
        listed * 3 * 2,
        "every chain of both statuses"
    );
    assert!(
        rig.server
            .request_count("GET", "/api/v1/gate/connector/names")
            <= first_round,
        "the names route is asked at most once per chain of the first status"
    );
    rig.finish().await;
}

/// System and Decisions on MASC v0.24.0: the Skills, async requests and
/// asks reads come back `not_served` as typed errors of their own slots — the inventory and the
/// approvals beside them decode — each traced `observe{not_served}`. Fed to a view model in
/// the view's order they are `Fetched::NotServed` (not failures): the connection stays
/// `connected` and the model lists them as absent. A second demand of both sources observes
/// them again without asking those routes again (the client's capability table answers).
#[tokio::test]
async fn issue13_defect6_skills_asyncs_and_asks_not_served_stay_connected_and_are_asked_once() {
    let mut rig = rig_on_release(AUGUST).await;
    let skills = rig
        .observed_of::<_, ToolsObservation>(&ToolsSlot::SkillsCatalog)
        .await;
    let asyncs = rig
        .observed_of::<_, ToolsObservation>(&ToolsSlot::AsyncRequests)
        .await;
    let asks = rig
        .observed_of::<_, DecisionsObservation>(&DecisionsSlot::Asks)
        .await;
    let approvals = rig
        .observed_of::<_, DecisionsObservation>(&DecisionsSlot::Approvals)
        .await;
    assert!(
        matches!(
            skills.payload,
            ToolsObservation::SkillsCatalog(Err(ClientError::NotServed {
                route: RouteFamily::Skills
            }))
        ),
        "{:?}",
        skills.payload
    );
    assert!(
        matches!(
            asyncs.payload,
            ToolsObservation::AsyncRequests(Err(ClientError::NotServed {
                route: RouteFamily::AsyncRequests
            }))
        ),
        "{:?}",
        asyncs.payload
    );
    assert!(
        matches!(
            asks.payload,
            DecisionsObservation::Asks(Err(ClientError::NotServed {
                route: RouteFamily::Asks
            }))
        ),
        "{:?}",
        asks.payload
    );
    assert!(
        matches!(approvals.payload, DecisionsObservation::Approvals(Ok(_))),
        "{:?}",
        approvals.payload
    );
    for source in ["skills_catalog", "async_requests", "open_asks"] {
        let observed = rig.recorder.records_where(|r| {
            r.source == source && r.stage == "observe" && r.outcome.as_deref() == Some("not_served")
        });
        assert!(!observed.is_empty(), "{source}: observed not_served");
    }
    // The typed state: the view model fed with what the view received, in order.
    let identity = match rig
        .view
        .last_event(|e| matches!(e, SourceEvent::Identity(IdentityState::Confirmed { .. })))
    {
        Some(SourceEvent::Identity(i)) => i.clone(),
        other => panic!("identity: {other:?}"),
    };
    let mut model = Model::default();
    model.on_identity(identity);
    let now = Instant::now();
    for e in rig
        .view
        .slot_events::<ToolsSlot, ToolsObservation>()
        .to_vec()
    {
        model.deliver(e, now);
    }
    for e in rig
        .view
        .slot_events::<RuntimeSlot, RuntimeObservation>()
        .to_vec()
    {
        model.deliver(e, now);
    }
    for e in rig
        .view
        .slot_events::<ConnectorsSlot, ConnectorsObservation>()
        .to_vec()
    {
        model.deliver(e, now);
    }
    for e in rig
        .view
        .slot_events::<DecisionsSlot, DecisionsObservation>()
        .to_vec()
    {
        model.deliver(e, now);
    }
    assert!(matches!(
        model.tools.skills.fetched,
        Fetched::NotServed {
            route: RouteFamily::Skills,
            last: None
        }
    ));
    assert!(matches!(
        model.decisions.asks.fetched,
        Fetched::NotServed {
            route: RouteFamily::Asks,
            last: None
        }
    ));
    assert_eq!(model.connection(), ConnectionState::Connected);
    let absent = model.not_served();
    for route in [
        RouteFamily::Skills,
        RouteFamily::AsyncRequests,
        RouteFamily::Asks,
    ] {
        assert!(absent.contains(&route), "{route:?} in {absent:?}");
    }
    // Asked again: observed again, from the capability table (no request).
    let asked = |rig: &crate::actor_support::Rig| {
        [
            "/api/v1/skills",
            "/api/v1/async-requests",
            "/api/v1/keepers/asks",
        ]
        .map(|p| rig.server.request_count("GET", p))
    };
    let before = asked(&rig);
    assert_eq!(
        before,
        [1, 1, 1],
        "each route asked once, by the first read"
    );
    for source in [TOOLS, DECISIONS] {
        let handle = rig.source_handle(source).await;
        assert!(handle.send_control(SourceControl::Demand(DemandKind::Explicit)));
    }
    let later = skills.ticket.generation;
    let again = rig
        .view
        .wait_slot(|e: &SlotEvent<ToolsSlot, ToolsObservation>| {
            matches!(e, SlotEvent::Observed(t, _) if t.slot == ToolsSlot::SkillsCatalog && t.generation > later)
        })
        .await;
    assert!(matches!(
        again,
        Some(SlotEvent::Observed(
            _,
            ToolsObservation::SkillsCatalog(Err(ClientError::NotServed { .. }))
        ))
    ));
    let later = asks.ticket.generation;
    let again = rig
        .view
        .wait_slot(|e: &SlotEvent<DecisionsSlot, DecisionsObservation>| {
            matches!(e, SlotEvent::Observed(t, _) if t.slot == DecisionsSlot::Asks && t.generation > later)
        })
        .await;
    assert!(matches!(
        again,
        Some(SlotEvent::Observed(
            _,
            DecisionsObservation::Asks(Err(ClientError::NotServed { .. }))
        ))
    ));
    assert_eq!(
        asked(&rig),
        before,
        "a known not-served route is never asked again"
    );
    rig.finish().await;
}
