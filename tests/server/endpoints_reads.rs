//! Every GET endpoint of protocol.md §3–§10, read from the embedded server through the REAL
//! admitted `WorkspaceClient` (receipt-mode epoch opened from `/health` + §2.1), each body
//! decoded with its typed decoder (`decode_for` where the decoder checks echoes against the
//! request). Assertions are cross-route facts of the seeded workspace: a count in one body
//! equals the rows of another, an echo equals the request, a state equals what a sibling
//! route reports.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support_endpoints::{drain, env};
use masc_tui::protocol::admission::AdmissionMode;
use masc_tui::protocol::asks::{
    AskFollowUpEvent, AskList, AskResolution, AskScope, FollowUpEnd, FollowUpValidator,
    TaskObservation, WakeObservation,
};
use masc_tui::protocol::async_requests::{AsyncRequestDetail, AsyncRequestList, PhysicalState};
use masc_tui::protocol::board::{BoardPostDetail, BoardPostsPage, HearthCensus};
use masc_tui::protocol::chat::{ChatHistoryPage, ChatOperationRecord, OperationProgress};
use masc_tui::protocol::client::{ClientError, QueryString, SseEnd, path_segment};
use masc_tui::protocol::connectors::{
    ConnectorNamesPage, ConnectorStatus, ConnectorStatusList, NameScope, NamesPageRequest,
};
use masc_tui::protocol::decode::WireDecode;
use masc_tui::protocol::goals::{GoalDetailRead, GoalsTree, Timeline};
use masc_tui::protocol::keeper_config::{
    AssignmentState, ConfigRevision, KeeperConfigSnapshot, RuntimeAssignmentRevision,
};
use masc_tui::protocol::keepers::{KeeperRoster, KeeperRowSlot, KeeperStatus};
use masc_tui::protocol::operator::OperatorApprovals;
use masc_tui::protocol::planning::PlanningRead;
use masc_tui::protocol::runtime::{
    ModelTable, RuntimeConfigRaw, RuntimeResolved, runtime_source_revision,
};
use masc_tui::protocol::skills::SkillsSnapshotRead;
use masc_tui::protocol::tasks::{
    GoalObservation, HistoryContinuation, LegacyTaskEvents, PageRequest, TaskDetail,
    TaskHistoryPage, TaskList, TaskStatus,
};
use masc_tui::protocol::tools::{KeeperSurface, ToolsInventoryRead};
use masc_tui::protocol::transcript::TurnTranscript;
use masc_tui::protocol::turns::{KeeperTurnState, KeeperTurns, TurnLane};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

const ROSTER: &str = "/api/v1/gate/keepers?detailed=true";
const TURNS: &str = "/api/v1/keepers/turns";
const TASKS: &str = "/api/v1/dashboard/tasks";
const GOALS: &str = "/api/v1/dashboard/goals";
const PLANNING: &str = "/api/v1/dashboard/planning";
const OPERATOR: &str = "/api/v1/operator?view=summary&include_messages=0&include_keepers=0";

fn roster_names(roster: &KeeperRoster) -> BTreeSet<String> {
    roster
        .rows
        .iter()
        .map(|slot| match slot {
            KeeperRowSlot::Row(row) => row.name.clone(),
            KeeperRowSlot::Undecodable { name, error } => {
                panic!("seeded roster row {name:?} refused: {error}")
            }
        })
        .collect()
}

// ---- §3, §4 ----

#[tokio::test]
async fn s3_health_is_the_identity_of_every_admitted_read() {
    let env = env().await;
    let health = env.client.health().await.unwrap();
    assert_eq!(health.paths.effective_base_path, env.server.base_path());
    assert_eq!(health.paths.effective_masc_root, env.server.masc_root());
    assert_eq!(health.admission_mode(), AdmissionMode::Receipt);
    assert!(!health.is_booting());
    let roster = env
        .client
        .get::<KeeperRoster>(&env.auth, ROSTER)
        .await
        .unwrap();
    assert_eq!(roster.mode, AdmissionMode::Receipt, "§2.2 receipt checked");
}

#[tokio::test]
async fn s4_1_s4_2_roster_and_turn_census_name_the_same_fleet() {
    let env = env().await;
    let roster = env.read::<KeeperRoster>(ROSTER).await;
    let turns = env.read::<KeeperTurns>(TURNS).await;
    assert_eq!(roster.count, roster.rows.len() as u64);
    assert_eq!(roster.total, roster.count);
    assert!(!roster.truncated);
    assert!(roster.count > 0, "seeded fleet");
    let census: BTreeSet<String> = turns
        .keepers
        .iter()
        .map(|r| r.keeper_name.clone())
        .collect();
    assert_eq!(
        roster_names(&roster),
        census,
        "§4.2 one census row per keeper"
    );
    let names: Vec<&str> = turns
        .keepers
        .iter()
        .map(|r| r.keeper_name.as_str())
        .collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted, "§4.2 sorted by name");
    // A busy roster row is mid-turn in the census; an error row's census is unavailable.
    for row in roster.keepers() {
        let census_row = turns
            .keepers
            .iter()
            .find(|t| t.keeper_name == row.name)
            .unwrap();
        match row.status {
            KeeperStatus::Busy => assert!(
                matches!(&census_row.state, KeeperTurnState::InTurn(t) if t.lane == TurnLane::Autonomous),
                "{} is busy in the roster",
                row.name
            ),
            KeeperStatus::Error => assert!(
                matches!(census_row.state, KeeperTurnState::Unavailable { .. }),
                "{} is an error row",
                row.name
            ),
            _ => {}
        }
    }
    assert!(roster.keepers().any(|r| r.status == KeeperStatus::Busy));
    assert!(roster.keepers().any(|r| r.status == KeeperStatus::Error));
}

#[tokio::test]
async fn s2_5_etag_round_trip_serves_the_second_read_from_the_client_cache() {
    let env = env().await;
    let first = env
        .client
        .get::<KeeperRoster>(&env.auth, ROSTER)
        .await
        .unwrap();
    assert!(!first.from_cache);
    let second = env
        .client
        .get::<KeeperRoster>(&env.auth, ROSTER)
        .await
        .unwrap();
    assert!(second.from_cache, "304 re-admits the stored value");
    assert!(Arc::ptr_eq(&first.value, &second.value));
    // The task list through the same cache: 200, then 304.
    let first = env.client.get::<TaskList>(&env.auth, TASKS).await.unwrap();
    assert!(!first.from_cache);
    let second = env.client.get::<TaskList>(&env.auth, TASKS).await.unwrap();
    assert!(second.from_cache);
    assert!(Arc::ptr_eq(&first.value, &second.value));
    assert_eq!(env.server.request_count("GET", TASKS), 2);
}

// ---- §4.4, §4.5 ----

#[tokio::test]
async fn s4_5_chat_history_pages_walk_older_to_the_end() {
    let env = env().await;
    let keeper = "rondo";
    let base = format!("/api/v1/keepers/{}/chat/history/page", path_segment(keeper));
    let mut before: Option<f64> = None;
    let mut pages = 0;
    let mut ids = BTreeSet::new();
    let mut oldest_seen = f64::INFINITY;
    loop {
        let before_text = before.map(|b| b.to_string());
        let target = QueryString::new()
            .pair_opt("before", before_text.as_deref())
            .append_to(&base);
        let typed = env.read::<ChatHistoryPage>(&target).await;
        let body = env.read_body(&target).await;
        let page = ChatHistoryPage::decode_for(&body, before).unwrap();
        assert_eq!(page, *typed);
        assert!(page.schema_sent);
        pages += 1;
        for m in &page.messages {
            assert!(ids.insert(m.id.clone()), "message {} on two pages", m.id);
            let ts = m.ts.expect("every embedded row has a ts");
            if let Some(b) = before {
                assert!(ts < b, "a page asked before {b} holds {ts}");
            }
            oldest_seen = oldest_seen.min(ts);
        }
        if !page.has_more {
            break;
        }
        let next = page.next_before.unwrap();
        assert_eq!(
            next, oldest_seen,
            "next_before is the oldest ts on the page"
        );
        before = Some(next);
        assert!(pages < 50, "chain does not end");
    }
    assert!(pages >= 2, "rondo's seeded history spans pages");
    assert!(ids.len() > 50);
}

#[tokio::test]
async fn s4_4_chat_operation_is_absent_until_sent_then_reconciles_by_request_id() {
    let env = env().await;
    let request_id = "tui-01900000-0000-7000-8000-00000000r0a1";
    let target = format!(
        "/api/v1/keepers/{}/chat/operations/{}",
        path_segment("sangsu"),
        path_segment(request_id)
    );
    match env
        .client
        .get::<ChatOperationRecord>(&env.auth, &target)
        .await
    {
        Err(ClientError::Status { status: 404, .. }) => {}
        other => panic!("§4.4 404 before the send, got {other:?}"),
    }
    let stream = env
        .client
        .post_sse(
            &env.auth,
            "/api/v1/keepers/chat/stream",
            &serde_json::json!({"request_id": request_id, "name": "sangsu", "message": "상태?"}),
        )
        .await
        .unwrap();
    let (frames, end) = drain(stream).await;
    assert_eq!(end, SseEnd::Completed);
    assert!(!frames.is_empty());
    let typed = env.read::<ChatOperationRecord>(&target).await;
    let body = env.read_body(&target).await;
    let record = ChatOperationRecord::decode_for(&body, request_id).unwrap();
    assert_eq!(record, *typed);
    assert_eq!(record.operation_id, request_id);
    assert!(matches!(
        record.progress,
        OperationProgress::Succeeded { .. }
    ));
}

// ---- §5 ----

#[tokio::test]
async fn s5_1_s5_2_task_list_rows_agree_with_each_task_detail() {
    let env = env().await;
    let list = env.read::<TaskList>(TASKS).await;
    assert!(list.sources.backlog.is_read());
    assert!(list.sources.archive.is_read());
    assert!(list.sources.goal_links.is_read());
    assert!(list.tasks.len() >= 10);
    let ids: BTreeSet<&str> = list.tasks.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids.len(), list.tasks.len(), "ids are unique");
    assert!(list.tasks.iter().any(|t| t.archived));
    // Every sixth task, plus the one a keeper works on: detail echoes and agrees with its row.
    for row in list.tasks.iter().step_by(6) {
        let target = QueryString::new()
            .pair("task_id", &row.id)
            .append_to("/api/v1/dashboard/tasks/detail");
        let typed = env.read::<TaskDetail>(&target).await;
        let body = env.read_body(&target).await;
        let detail = TaskDetail::decode_for(&body, &row.id).unwrap();
        assert_eq!(detail, *typed);
        assert_eq!(detail.task.id, row.id);
        assert_eq!(detail.task.state.status(), row.status);
        assert_eq!(detail.task.title, row.title);
        assert_eq!(detail.task.priority, row.priority);
        match (&detail.goal, &row.goal_ids) {
            (GoalObservation::Linked { goal_ids }, Some(row_ids)) => assert_eq!(goal_ids, row_ids),
            (GoalObservation::Unlinked {}, Some(row_ids)) => assert!(row_ids.is_empty()),
            (other, row_ids) => panic!("{}: detail {other:?}, row {row_ids:?}", row.id),
        }
    }
}

#[tokio::test]
async fn s5_3_task_history_chain_walks_to_the_end_with_used_cursors_and_s5_4_legacy_agrees() {
    let env = env().await;
    let task_id = "task-1013";
    let mut request = PageRequest {
        task_id: task_id.to_string(),
        cursor: None,
        limit: 200,
    };
    let mut used: Vec<String> = Vec::new();
    let mut rows = Vec::new();
    let mut pages = 0;
    loop {
        let target = QueryString::new()
            .pair("task_id", &request.task_id)
            .pair_opt("cursor", request.cursor.as_deref())
            .pair("limit", &request.limit.to_string())
            .append_to("/api/v1/dashboard/tasks/history/page");
        let typed = env.read::<TaskHistoryPage>(&target).await;
        let body = env.read_body(&target).await;
        let page = TaskHistoryPage::decode_for(&body, &request, &used).unwrap();
        assert_eq!(page, *typed);
        pages += 1;
        assert_eq!(page.cursor, request.cursor, "cursor echo");
        assert!(page.rows.iter().all(|r| r.task_id == task_id));
        rows.extend(page.rows.iter().cloned());
        match page.continuation {
            HistoryContinuation::More { next_cursor } => {
                if let Some(c) = request.cursor.take() {
                    used.push(c);
                }
                request.cursor = Some(next_cursor);
            }
            HistoryContinuation::EndOfStoredHistory => break,
        }
        assert!(used.len() < 100, "chain does not end");
    }
    assert!(
        pages >= 2,
        "the seeded history spans more than one page of 200"
    );
    assert_eq!(
        used.len(),
        pages - 2,
        "every cursor but the last page's is used"
    );
    assert!(rows.len() > 200);
    assert!(
        rows.windows(2).all(|w| w[0].ts >= w[1].ts),
        "§5.3 newest first across the whole chain"
    );
    // §5.4 legacy array (compatibility read): the newest 50 lines, the same ones.
    let legacy = env
        .read::<LegacyTaskEvents>(
            &QueryString::new()
                .pair("task_id", task_id)
                .append_to("/api/v1/dashboard/tasks/history"),
        )
        .await;
    assert_eq!(legacy.events.len(), 50);
    let legacy_ts: Vec<&str> = legacy.events.iter().map(|e| e.ts.as_str()).collect();
    let chain_ts: Vec<&str> = rows.iter().take(50).map(|r| r.ts.as_str()).collect();
    assert_eq!(legacy_ts, chain_ts);
}

#[tokio::test]
async fn s5_5_s5_6_s5_7_goals_tree_detail_and_planning_agree_with_the_task_list() {
    let env = env().await;
    let tasks = env.read::<TaskList>(TASKS).await;
    let tree = env.read::<GoalsTree>(GOALS).await;
    let nodes = tree.usable_tree().expect("approval queue ready");
    assert_eq!(tree.summary.total_tasks, Some(tasks.tasks.len() as u64));
    let done = tasks
        .tasks
        .iter()
        .filter(|t| t.status == TaskStatus::Done)
        .count() as u64;
    assert_eq!(tree.summary.done_tasks, Some(done));
    let node_total: usize = nodes.iter().map(|n| n.node_count()).sum();
    assert_eq!(tree.summary.total_goals, Some(node_total as u64));

    let PlanningRead::Snapshot(planning) = &*env.read::<PlanningRead>(PLANNING).await else {
        panic!("planning snapshot expected");
    };
    assert_eq!(
        planning.goals.len(),
        node_total,
        "§5.7 flat rows, one per goal"
    );
    let by_status = |s: TaskStatus| tasks.tasks.iter().filter(|t| t.status == s).count() as u64;
    let backlog = &planning.task_backlog;
    assert_eq!(backlog.todo, by_status(TaskStatus::Todo));
    assert_eq!(backlog.claimed, by_status(TaskStatus::Claimed));
    assert_eq!(backlog.done, by_status(TaskStatus::Done));
    assert_eq!(backlog.cancelled, by_status(TaskStatus::Cancelled));
    assert_eq!(
        backlog.awaiting_verification,
        Some(by_status(TaskStatus::AwaitingVerification))
    );
    assert_eq!(backlog.in_progress, by_status(TaskStatus::InProgress));

    // §5.6 for every root goal: echo checked, the node's own task rows repeated.
    for node in nodes {
        let target = QueryString::new()
            .pair("goal_id", &node.id)
            .append_to("/api/v1/dashboard/goals/detail");
        let typed = env.read::<GoalDetailRead>(&target).await;
        let body = env.read_body(&target).await;
        let read = GoalDetailRead::decode_for(&body, &node.id).unwrap();
        assert_eq!(read, *typed);
        let GoalDetailRead::Found(detail) = read else {
            panic!("{} not found", node.id)
        };
        let goal = detail.goal.as_ref().unwrap();
        assert_eq!(goal.id, node.id);
        assert_eq!(goal.phase, node.phase);
        let Timeline::Events(events) = &detail.timeline else {
            panic!("timeline of {} not available", node.id)
        };
        assert!(
            events.windows(2).all(|w| w[0].ts >= w[1].ts),
            "ts descending"
        );
    }
    // An unknown goal is a typed "not found" (HTTP 200), never data.
    let target = "/api/v1/dashboard/goals/detail?goal_id=goal-nope";
    let body = env.read_body(target).await;
    assert_eq!(
        GoalDetailRead::decode_for(&body, "goal-nope").unwrap(),
        *env.read::<GoalDetailRead>(target).await
    );
    assert!(matches!(
        GoalDetailRead::decode_for(&body, "goal-nope").unwrap(),
        GoalDetailRead::NotFound { ref goal_id, .. } if goal_id == "goal-nope"
    ));
}

// ---- §6 ----

#[tokio::test]
async fn s6_1_s6_2_tools_warm_then_settle_and_skills_are_ready() {
    let env = env().await;
    let first = env
        .read::<ToolsInventoryRead>("/api/v1/dashboard/tools")
        .await;
    assert!(
        matches!(*first, ToolsInventoryRead::Warming { .. }),
        "§6.1 cold cache answers the warming placeholder, never 0 tools"
    );
    let ToolsInventoryRead::Settled(settled) = &*env
        .read::<ToolsInventoryRead>("/api/v1/dashboard/tools")
        .await
    else {
        panic!("second read settles");
    };
    assert_eq!(
        settled.tool_inventory.count,
        settled.tool_inventory.tools.len() as u64
    );
    assert!(settled.tool_inventory.count > 0);
    assert!(
        settled.effective_keeper_surface == masc_tui::protocol::decode::SinceRelease::Sent(None),
        "no keeper asked"
    );
    let ToolsInventoryRead::Settled(with_keeper) = &*env
        .read::<ToolsInventoryRead>("/api/v1/dashboard/tools?keeper=rondo")
        .await
    else {
        panic!("settled inventory with a keeper surface");
    };
    let masc_tui::protocol::decode::SinceRelease::Sent(Some(KeeperSurface::Available(surface))) =
        &with_keeper.effective_keeper_surface
    else {
        panic!("rondo's surface available");
    };
    let roster = env.read::<KeeperRoster>(ROSTER).await;
    let rondo = roster.keepers().find(|k| k.name == "rondo").unwrap();
    assert_eq!(Some(&surface.runtime_id), rondo.runtime_id.as_ref());
    assert!(!surface.tools.is_empty());

    let SkillsSnapshotRead::Ready(skills) =
        &*env.read::<SkillsSnapshotRead>("/api/v1/skills").await
    else {
        panic!("§6.2 skills ready");
    };
    assert!(!skills.surfaces.is_empty());
    // Surface skills of the keeper are skills of the catalogue.
    let catalogue: BTreeSet<&str> = skills
        .surfaces
        .iter()
        .map(|s| s.reference.identity.name.as_str())
        .collect();
    for skill in surface
        .instruction_skills
        .iter()
        .chain(&surface.composition_skills)
    {
        assert!(
            catalogue.contains(skill.identity.name.as_str()),
            "{}",
            skill.identity.name
        );
    }
}

#[tokio::test]
async fn s6_3_s6_4_async_list_rows_agree_with_each_single_request() {
    let env = env().await;
    let AsyncRequestList::Ready {
        summary,
        requests,
        record_errors,
        ..
    } = &*env.read::<AsyncRequestList>("/api/v1/async-requests").await
    else {
        panic!("§6.3 ready inventory");
    };
    assert_eq!(summary.active, requests.len() as u64);
    assert_eq!(
        summary.active,
        summary.runtime_owned + summary.ownership_unknown
    );
    assert_eq!(summary.record_errors, record_errors.len() as u64);
    assert!(!requests.is_empty());
    for row in requests {
        let target = format!("/api/v1/async-requests/{}", path_segment(&row.request_id));
        let typed = env.read::<AsyncRequestDetail>(&target).await;
        let body = env.read_body(&target).await;
        let detail = AsyncRequestDetail::decode_for(
            &body,
            &row.request_id,
            Some((&row.submitted_by, &row.keeper_name)),
        )
        .unwrap();
        assert_eq!(detail, *typed);
        assert_eq!(
            detail.physical.state,
            PhysicalState::from_masc_status(row.status),
            "§6.4 status mapping of {}",
            row.request_id
        );
    }
    match env
        .client
        .get::<AsyncRequestDetail>(&env.auth, "/api/v1/async-requests/kmsg-none")
        .await
    {
        Err(ClientError::Status { status: 404, .. }) => {}
        other => panic!("unknown request: {other:?}"),
    }
}

// ---- §7 ----

#[tokio::test]
async fn s7_1_connector_rows_are_valid_triples_and_counts_agree() {
    let env = env().await;
    let list = env
        .read::<ConnectorStatusList>("/api/v1/gate/connectors")
        .await;
    assert!(list.first_refused_row().is_none());
    let rows: Vec<_> = list.connectors().collect();
    assert_eq!(list.total, rows.len() as u64);
    assert!(rows.iter().all(|r| r.triple_is_valid()));
    let connected = rows
        .iter()
        .filter(|r| r.status == ConnectorStatus::Connected)
        .count() as u64;
    assert_eq!(list.active_count, connected);
    let discord = rows.iter().find(|r| r.connector_id == "discord").unwrap();
    assert!(!discord.configured_bindings.is_empty());
    // Every bound keeper is a keeper of the roster.
    let roster = env.read::<KeeperRoster>(ROSTER).await;
    let names = roster_names(&roster);
    for b in rows.iter().flat_map(|r| &r.configured_bindings) {
        assert!(
            names.contains(&b.keeper_name),
            "binding to {}",
            b.keeper_name
        );
    }
}

async fn walk_names(
    env: &crate::support_endpoints::Env,
    connector: &str,
    scope: NameScope,
) -> (usize, u64, Vec<String>) {
    let scope_text = match scope {
        NameScope::Channel => "channel",
        NameScope::Person => "person",
        NameScope::Server => "server",
    };
    let mut req = NamesPageRequest {
        connector_id: connector.to_string(),
        scope,
        after_id: None,
    };
    let mut ids = Vec::new();
    let mut pages = 0;
    let mut first_total = None;
    loop {
        let target = QueryString::new()
            .pair("name", connector)
            .pair("scope", scope_text)
            .pair("limit", "500")
            .pair_opt("after_id", req.after_id.as_deref())
            .append_to("/api/v1/gate/connector/names");
        let typed = env.read::<ConnectorNamesPage>(&target).await;
        let body = env.read_body(&target).await;
        let page = ConnectorNamesPage::decode_for(&body, &req).unwrap();
        assert_eq!(page, *typed);
        pages += 1;
        first_total.get_or_insert(page.total);
        assert!(page.mappings.len() <= 500);
        ids.extend(page.mappings.iter().map(|m| m.id.clone()));
        match page.next_cursor() {
            Some(next) => req.after_id = Some(next.to_string()),
            None => break,
        }
        assert!(pages < 100, "chain does not end");
    }
    (pages, first_total.unwrap_or(0), ids)
}

#[tokio::test]
async fn s7_2_connector_name_chains_walk_to_the_end_per_scope() {
    let env = env().await;
    for scope in [NameScope::Channel, NameScope::Person, NameScope::Server] {
        let (pages, total, ids) = walk_names(&env, "discord", scope).await;
        assert_eq!(
            ids.len() as u64,
            total,
            "{scope:?}: the chain holds every entry"
        );
        assert!(
            ids.windows(2).all(|w| w[0].as_bytes() < w[1].as_bytes()),
            "{scope:?}: ids strictly increasing byte-wise across pages"
        );
        assert_eq!(pages, (ids.len().max(1)).div_ceil(500), "{scope:?}");
    }
    let (pages, total, _) = walk_names(&env, "discord", NameScope::Channel).await;
    assert!(
        pages >= 3 && total > 1000,
        "the seeded channel chain spans pages"
    );
}

// ---- §8 ----

#[tokio::test]
async fn s8_1_s8_2_s8_3_board_offset_pages_detail_and_census_agree() {
    let env = env().await;
    let limit = 20u64;
    let mut offset = 0u64;
    let mut posts = Vec::new();
    loop {
        let target = format!("/api/v1/board?limit={limit}&offset={offset}");
        let page = env.read::<BoardPostsPage>(&target).await;
        assert_eq!(page.offset, Some(offset));
        assert_eq!(page.count, Some(page.posts.len() as u64));
        assert_eq!(page.sort_by.as_deref(), Some("hot"));
        posts.extend(page.posts.iter().cloned());
        match page.next_offset(offset, limit) {
            Some(next) => offset = next,
            None => break,
        }
        assert!(offset < 5000);
    }
    let ids: BTreeSet<&str> = posts.iter().map(|p| p.id.as_str()).collect();
    assert_eq!(ids.len(), posts.len(), "offset pages never repeat a post");
    assert!(posts.len() as u64 > limit, "the seeded board spans pages");

    // §8.3 over the whole board equals the walked posts grouped by hearth.
    let census = env.read::<HearthCensus>("/api/v1/board/hearths").await;
    let mut walked: BTreeMap<&str, u64> = BTreeMap::new();
    for p in &posts {
        if let Some(h) = p.hearth.as_deref().filter(|h| !h.trim().is_empty()) {
            *walked.entry(h).or_default() += 1;
        }
    }
    let served: BTreeMap<&str, u64> = census
        .hearths
        .iter()
        .map(|h| (h.name.as_str(), h.count))
        .collect();
    assert_eq!(served, walked);

    // §8.2 for the first three posts: id echo, comments counted.
    for post in posts.iter().take(3) {
        let target = format!("/api/v1/board/{}?format=flat", path_segment(&post.id));
        let typed = env.read::<BoardPostDetail>(&target).await;
        let body = env.read_body(&target).await;
        let detail = BoardPostDetail::decode_for(&body, &post.id).unwrap();
        assert_eq!(detail, *typed);
        assert_eq!(detail.post.title, post.title);
        assert_eq!(detail.comments.len() as u64, post.comment_count);
        assert!(
            detail
                .comments
                .iter()
                .all(|c| c.post_id.as_deref() == Some(&post.id))
        );
    }
}

// ---- §9 ----

#[tokio::test]
async fn s9_1_s9_2_s9_5_runtime_catalogue_raw_config_and_keeper_config_agree() {
    let env = env().await;
    let resolved = env
        .read::<RuntimeResolved>("/api/v1/runtime/resolved")
        .await;
    assert!(resolved.first_error().is_none());
    let catalogue = resolved.catalogue.as_ref().unwrap();
    let usage = resolved.usage.as_ref().unwrap().sent().unwrap();
    assert!(!usage.provider_usage_windows.is_empty());
    let runtime_ids: BTreeSet<&str> = catalogue.runtimes.iter().map(|r| r.id.as_str()).collect();
    let default = catalogue.default_runtime.as_ref().unwrap();
    assert!(runtime_ids.contains(default.id.as_str()));
    assert!(catalogue.runtimes.iter().filter(|r| r.is_default).count() == 1);

    let raw = env
        .read::<RuntimeConfigRaw>("/api/v1/runtime/config/raw")
        .await;
    assert!(raw.revision_is_canonical());
    assert_eq!(
        raw.source_revision,
        runtime_source_revision(&raw.source_text)
    );
    assert_eq!(catalogue.config_path.as_deref(), Some(raw.path.as_str()));
    let ModelTable::Ready(bindings) = &raw.model_table else {
        panic!("model table ready: {:?}", raw.model_table);
    };
    let bound: BTreeSet<&str> = bindings.iter().map(|b| b.runtime_id.as_str()).collect();
    assert_eq!(bound, runtime_ids, "the model table projects the catalogue");

    let roster = env.read::<KeeperRoster>(ROSTER).await;
    let mut checked = 0;
    for keeper in roster.keepers().filter(|k| k.status != KeeperStatus::Error) {
        let target = format!("/api/v1/keepers/{}/config", path_segment(&keeper.name));
        let config = env.read::<KeeperConfigSnapshot>(&target).await;
        assert_eq!(config.name.as_deref(), Some(keeper.name.as_str()));
        let ConfigRevision::Composite(rev) = &config.config_revision else {
            panic!("{} revision unavailable", keeper.name);
        };
        let RuntimeAssignmentRevision::RuntimeConfigPresent {
            source_revision,
            assignment,
        } = &rev.runtime_assignment
        else {
            panic!("runtime config present");
        };
        assert_eq!(
            source_revision.as_str(),
            raw.source_revision,
            "§9.5 joins §9.2"
        );
        assert_eq!(config.execution.selected_runtime_id, keeper.runtime_id);
        if let AssignmentState::Assigned { runtime_id } = assignment {
            assert!(runtime_ids.contains(runtime_id.as_str()));
        }
        checked += 1;
    }
    assert!(checked >= 5);
    match env
        .client
        .get::<KeeperConfigSnapshot>(&env.auth, "/api/v1/keepers/nobody/config")
        .await
    {
        Err(ClientError::Status { status: 404, .. }) => {}
        other => panic!("unknown keeper: {other:?}"),
    }
}

// ---- §10 ----

#[tokio::test]
async fn s10_1_asks_open_and_resolved_views_agree() {
    let env = env().await;
    let open = env.read::<AskList>("/api/v1/keepers/asks").await;
    let all = env
        .read::<AskList>("/api/v1/keepers/asks?include_resolved=true")
        .await;
    assert_eq!(open.scope, Some(AskScope::Fleet));
    let open_rows = |l: &AskList| {
        l.asks
            .iter()
            .filter(|a| matches!(a.resolution, AskResolution::Open {}))
            .count() as u64
    };
    assert_eq!(open.open_count, open.asks.len() as u64);
    assert_eq!(open_rows(&open), open.open_count);
    assert_eq!(all.open_count, open.open_count);
    assert!(
        all.asks.len() > open.asks.len(),
        "resolved asks only with include_resolved"
    );
    assert!(all.asks.iter().all(|a| !a.questions.is_empty()));
    let keeper = &open.asks[0].keeper;
    let one = env
        .read::<AskList>(
            &QueryString::new()
                .pair("name", keeper)
                .append_to("/api/v1/keepers/asks"),
        )
        .await;
    assert_eq!(one.scope, Some(AskScope::Keeper));
    assert_eq!(one.keeper.as_deref(), Some(keeper.as_str()));
    assert!(one.asks.iter().all(|a| &a.keeper == keeper));
}

#[tokio::test]
async fn s10_3_follow_up_of_an_answered_ask_completes_through_the_validator() {
    let env = env().await;
    let all = env
        .read::<AskList>("/api/v1/keepers/asks?include_resolved=true")
        .await;
    let answered = all
        .asks
        .iter()
        .find(|a| matches!(a.resolution, AskResolution::Answered { .. }))
        .unwrap();
    let target = QueryString::new()
        .pair("name", &answered.keeper)
        .pair("ask_id", &answered.ask_id)
        .append_to("/api/v1/keepers/asks/follow-up");
    let stream = env.client.get_sse(&env.auth, &target).await.unwrap();
    assert_eq!(stream.admission_mode(), Some(AdmissionMode::Receipt));
    let (frames, end) = drain(stream).await;
    assert_eq!(end, SseEnd::Completed);
    let mut validator = FollowUpValidator::new(&answered.ask_id, &answered.keeper);
    for frame in &frames {
        validator
            .accept(AskFollowUpEvent::decode(frame.data.as_bytes()).unwrap())
            .unwrap();
    }
    let FollowUpEnd::Completed(state) = validator.finish() else {
        panic!("§10.3 completed after all three sources");
    };
    assert!(matches!(state.wake, Some(WakeObservation::Observed { .. })));
    let Some(TaskObservation::Observed {
        task_id, status, ..
    }) = &state.task
    else {
        panic!("task source observed");
    };
    assert_eq!(
        state.task_id.as_ref(),
        Some(task_id),
        "STARTED names the same task"
    );
    // The observed task is a task of the list; its status is a snapshot at `observed_at`
    // (it may trail the list), but always a status of the task vocabulary.
    let tasks = env.read::<TaskList>(TASKS).await;
    assert!(tasks.tasks.iter().any(|t| &t.id == task_id));
    let statuses = [
        TaskStatus::Todo,
        TaskStatus::Claimed,
        TaskStatus::InProgress,
        TaskStatus::AwaitingVerification,
        TaskStatus::Done,
        TaskStatus::Cancelled,
    ];
    assert!(statuses.iter().any(|s| s.as_str() == status));
}

#[tokio::test]
async fn s10_4_turn_transcript_found_and_not_retained() {
    let env = env().await;
    for (turn_ref, found) in [("trace-rondo#41", true), ("trace-rondo#9999", false)] {
        let target = QueryString::new()
            .pair("turn_ref", turn_ref)
            .pair("version", "2")
            .append_to(&format!(
                "/api/v1/keepers/{}/turn-transcript",
                path_segment("rondo")
            ));
        let typed = env.read::<TurnTranscript>(&target).await;
        let body = env.read_body(&target).await;
        let transcript = TurnTranscript::decode_for(&body, "rondo", turn_ref).unwrap();
        assert_eq!(transcript, *typed);
        match transcript {
            TurnTranscript::Found { rows, .. } => {
                assert!(found, "{turn_ref}");
                assert!(!rows.is_empty());
                assert!(rows.iter().all(|r| r.turn_ref == turn_ref));
            }
            TurnTranscript::NotRetained { turn_ref: t, .. } => {
                assert!(!found);
                assert_eq!(t, turn_ref);
            }
        }
    }
}

#[tokio::test]
async fn s10_5_operator_approvals_are_scoped_to_the_client_actor() {
    let env = env().await;
    let approvals = env.read::<OperatorApprovals>(OPERATOR).await;
    assert_eq!(approvals.actor_filter, "masc-tui");
    assert_eq!(approvals.visible_count, approvals.items.len() as u64);
    assert_eq!(
        approvals.total_count,
        approvals.visible_count + approvals.hidden_count
    );
    assert!(approvals.hidden_count > 0 && !approvals.hidden_actors.is_empty());
    assert!(approvals.items.iter().all(|a| a.actor == "masc-tui"));
    assert!(
        approvals
            .items
            .windows(2)
            .all(|w| w[0].created_at >= w[1].created_at),
        "newest first"
    );
    // Keeper actions name a keeper (a retired one may no longer be on the roster).
    let names = roster_names(&*env.read::<KeeperRoster>(ROSTER).await);
    let keeper_targets: Vec<&str> = approvals
        .items
        .iter()
        .filter(|a| a.action_type.targets_keeper())
        .map(|a| a.target_id.as_deref().unwrap())
        .collect();
    assert!(keeper_targets.iter().all(|t| !t.trim().is_empty()));
    assert!(keeper_targets.iter().any(|t| names.contains(*t)));
}

#[tokio::test]
async fn s2_5_one_target_read_with_two_decoders_on_one_client_stays_readable() {
    // The cache key is (root, target); a value stored by one decoder must not make another
    // decoder's read of the same target a "304 without an entry" — forever, since every
    // retry would send the same tag and get the same 304.
    let env = env().await;
    let typed = env
        .client
        .get::<KeeperRoster>(&env.auth, ROSTER)
        .await
        .unwrap();
    let raw = env
        .client
        .get::<crate::support_endpoints::AdmittedBody>(&env.auth, ROSTER)
        .await
        .unwrap();
    assert!(
        !raw.from_cache,
        "a value of another type is not revalidated"
    );
    assert_eq!(KeeperRoster::decode(&raw.value.0).unwrap(), *typed.value);
    let again = env
        .client
        .get::<crate::support_endpoints::AdmittedBody>(&env.auth, ROSTER)
        .await
        .unwrap();
    assert!(again.from_cache, "the same decoder revalidates by 304");
}
