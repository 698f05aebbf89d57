//! Tasks and goals routes of the embedded server (§5.1–§5.7) through plain reqwest.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use masc_tui::server::faults::{Fault, FaultPlan, FaultRule, When};
use masc_tui::server::{RunningServer, ServeOptions, start};
use reqwest::StatusCode;
use serde_json::Value;
use std::collections::HashSet;

const PAGE: &str = "/api/v1/dashboard/tasks/history/page";

async fn server(test_mode: bool) -> RunningServer {
    start(ServeOptions {
        test_mode,
        ..ServeOptions::default()
    })
    .await
    .unwrap()
}

async fn get_json(s: &RunningServer, path: &str) -> (StatusCode, Value) {
    let r = reqwest::Client::new()
        .get(format!("{}{}", s.base_url(), path))
        .send()
        .await
        .unwrap();
    let status = r.status();
    (status, r.json().await.unwrap())
}

#[tokio::test]
async fn task_list_has_every_status_and_read_sources_s5_1() {
    let s = server(false).await;
    let (st, body) = get_json(&s, "/api/v1/dashboard/tasks").await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(body["schema"], "masc.task_list.v1");
    for src in ["backlog", "archive", "goal_links"] {
        assert_eq!(body["sources"][src]["state"], "read");
    }
    let tasks = body["tasks"].as_array().unwrap();
    assert!(tasks.len() >= 30, "{}", tasks.len());
    let statuses: HashSet<&str> = tasks
        .iter()
        .map(|t| t["status"].as_str().unwrap())
        .collect();
    for s in [
        "todo",
        "claimed",
        "in_progress",
        "awaiting_verification",
        "done",
        "cancelled",
    ] {
        assert!(statuses.contains(s), "missing {s}");
    }
    assert!(tasks.iter().any(|t| t["archived"] == true));
    assert!(
        tasks
            .iter()
            .any(|t| t["goal_ids"].as_array().unwrap().is_empty())
    );
    s.shutdown().await;
}

#[tokio::test]
async fn task_detail_echo_goal_and_errors_s5_2() {
    let s = server(false).await;
    let (st, body) = get_json(&s, "/api/v1/dashboard/tasks/detail?task_id=task-1013").await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(body["schema"], "masc.task_detail.v1");
    assert_eq!(body["task_id"], "task-1013");
    assert_eq!(body["task"]["id"], "task-1013");
    assert_eq!(body["task"]["status"], "in_progress");
    assert!(body["task"]["started_at"].is_string());
    assert_eq!(body["goal"]["state"], "linked");
    assert!(!body["goal"]["goal_ids"].as_array().unwrap().is_empty());
    let (_, unlinked) = get_json(&s, "/api/v1/dashboard/tasks/detail?task_id=task-1005").await;
    assert_eq!(unlinked["goal"], serde_json::json!({"state": "unlinked"}));
    let (st, body) = get_json(&s, "/api/v1/dashboard/tasks/detail").await;
    assert_eq!(st, StatusCode::BAD_REQUEST);
    assert_eq!(body["error"], "task_id is required");
    let (st, body) = get_json(&s, "/api/v1/dashboard/tasks/detail?task_id=task-9").await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    assert_eq!(body["error"], "task_not_found");
    assert_eq!(body["task_id"], "task-9");

    s.set_faults(FaultPlan::single(FaultRule::new(
        "GET",
        "/api/v1/dashboard/tasks/detail",
        When::Every { every: true },
        Fault::Echo {
            echo: masc_tui::server::faults::EchoFault::Wrong,
        },
    )));
    let (_, body) = get_json(&s, "/api/v1/dashboard/tasks/detail?task_id=task-1013").await;
    assert_ne!(body["task_id"], "task-1013", "echo fault alters task_id");
    assert_eq!(body["task"]["id"], "task-1013");
    s.shutdown().await;
}

/// Walk a whole history chain; returns (rows, cursors).
async fn walk(s: &RunningServer, task: &str, limit: u32) -> (Vec<Value>, Vec<String>) {
    let mut rows = Vec::new();
    let mut cursors = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..1000 {
        let mut path = format!("{PAGE}?task_id={task}&limit={limit}");
        if let Some(c) = &cursor {
            path.push_str(&format!("&cursor={c}"));
        }
        let (st, page) = get_json(s, &path).await;
        assert_eq!(st, StatusCode::OK, "{page}");
        assert_eq!(page["schema"], "masc.task_history_page.v1");
        assert_eq!(page["task_id"], task);
        assert_eq!(
            page["cursor"],
            cursor.clone().map(Value::String).unwrap_or(Value::Null)
        );
        let page_rows = page["rows"].as_array().unwrap();
        assert!(page_rows.len() <= limit as usize);
        assert_eq!(page["has_more"], page["next_cursor"].is_string());
        rows.extend(page_rows.iter().cloned());
        match page["next_cursor"].as_str() {
            Some(next) => {
                assert!(!page_rows.is_empty(), "has_more on an empty page");
                assert!(!cursors.contains(&next.to_string()), "repeating cursor");
                cursors.push(next.to_string());
                cursor = Some(next.to_string());
            }
            None => return (rows, cursors),
        }
    }
    panic!("chain did not end");
}

#[tokio::test]
async fn history_chain_walks_400_events_newest_first_without_repeats_s5_3() {
    let s = server(false).await;
    let (rows, cursors) = walk(&s, "task-1013", 50).await;
    assert_eq!(rows.len(), 400);
    assert_eq!(cursors.len(), 7, "8 pages of 50");
    let ts: Vec<&str> = rows.iter().map(|r| r["ts"].as_str().unwrap()).collect();
    let mut sorted = ts.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(ts, sorted, "newest first across pages");
    let unique: HashSet<String> = rows.iter().map(|r| r.to_string()).collect();
    assert_eq!(unique.len(), 400, "no row twice");
    assert!(rows.iter().all(|r| r["task_id"] == "task-1013"));
    assert!(
        rows.iter().any(|r| r["task"] == "task-1013"),
        "legacy `task` lines kept, task_id added"
    );
    // Limit clamps: 0 → 1 and 999 → 200.
    let (_, p) = get_json(&s, &format!("{PAGE}?task_id=task-1013&limit=0")).await;
    assert_eq!(p["rows"].as_array().unwrap().len(), 1);
    let (_, p) = get_json(&s, &format!("{PAGE}?task_id=task-1013&limit=999")).await;
    assert_eq!(p["rows"].as_array().unwrap().len(), 200);
    s.shutdown().await;
}

#[tokio::test]
async fn history_page_edges_unknown_empty_invalid_s5_3() {
    let s = server(false).await;
    let (st, p) = get_json(&s, &format!("{PAGE}?task_id=task-404")).await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(p["rows"], serde_json::json!([]));
    assert_eq!(p["has_more"], false);
    assert_eq!(p["next_cursor"], Value::Null);
    let (rows, _) = walk(&s, "task-1040", 50).await;
    assert!(rows.is_empty(), "the task without history");
    let (st, p) = get_json(&s, PAGE).await;
    assert_eq!(st, StatusCode::BAD_REQUEST);
    assert_eq!(p["error"], "task_id is required");
    let (st, p) = get_json(&s, &format!("{PAGE}?task_id=task-1013&cursor=zzz")).await;
    assert_eq!(st, StatusCode::BAD_REQUEST);
    assert_eq!(p["error"], "invalid_cursor");
    // A cursor of another task is not a cursor of this one.
    let (_, first) = get_json(&s, &format!("{PAGE}?task_id=task-1013&limit=5")).await;
    let c = first["next_cursor"].as_str().unwrap();
    let (st, _) = get_json(&s, &format!("{PAGE}?task_id=task-1014&cursor={c}")).await;
    assert_eq!(st, StatusCode::BAD_REQUEST);
    s.shutdown().await;
}

#[tokio::test]
async fn replaced_event_log_invalidates_cursors_409_s5_3() {
    let s = server(true).await;
    let (_, first) = get_json(&s, &format!("{PAGE}?task_id=task-1013&limit=10")).await;
    let c = first["next_cursor"].as_str().unwrap().to_string();
    let r = reqwest::Client::new()
        .post(format!(
            "{}/__admin/tasks/event-log?task_id=task-1013",
            s.base_url()
        ))
        .bearer_auth(s.token().unwrap())
        .header("Content-Type", "application/json")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let (st, body) = get_json(&s, &format!("{PAGE}?task_id=task-1013&cursor={c}")).await;
    assert_eq!(st, StatusCode::CONFLICT);
    assert_eq!(body["error"], "cursor_invalidated");
    assert_eq!(body["task_id"], "task-1013");
    // A fresh chain works on the new generation.
    let (rows, _) = walk(&s, "task-1013", 200).await;
    assert_eq!(rows.len(), 400);
    s.shutdown().await;
}

#[tokio::test]
async fn history_page_echo_and_repeat_cursor_faults_s13() {
    let s = server(false).await;
    s.set_faults(FaultPlan::single(FaultRule::new(
        "GET",
        PAGE,
        When::Nth { nth: 2 },
        Fault::RepeatCursor {
            repeat_cursor: true,
        },
    )));
    let (_, p1) = get_json(&s, &format!("{PAGE}?task_id=task-1013&limit=10")).await;
    let c1 = p1["next_cursor"].as_str().unwrap().to_string();
    let (_, p2) = get_json(
        &s,
        &format!("{PAGE}?task_id=task-1013&limit=10&cursor={c1}"),
    )
    .await;
    assert_eq!(
        p2["next_cursor"],
        c1.as_str(),
        "next cursor repeats the request's"
    );
    assert_eq!(p2["has_more"], true);

    s.set_faults(FaultPlan::single(FaultRule::new(
        "GET",
        PAGE,
        When::Every { every: true },
        Fault::Echo {
            echo: masc_tui::server::faults::EchoFault::Wrong,
        },
    )));
    let (_, p) = get_json(
        &s,
        &format!("{PAGE}?task_id=task-1013&limit=10&cursor={c1}"),
    )
    .await;
    assert_ne!(p["task_id"], "task-1013");
    assert_ne!(p["cursor"], c1.as_str());
    s.shutdown().await;
}

#[tokio::test]
async fn legacy_history_is_a_bare_array_s5_4() {
    let s = server(false).await;
    let (st, body) = get_json(
        &s,
        "/api/v1/dashboard/tasks/history?task_id=task-1013&limit=7",
    )
    .await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(body.as_array().unwrap().len(), 7);
    let (st, _) = get_json(&s, "/api/v1/dashboard/tasks/history").await;
    assert_eq!(st, StatusCode::BAD_REQUEST);
    s.shutdown().await;
}

#[tokio::test]
async fn goals_tree_detail_and_not_found_s5_5_s5_6() {
    let s = server(false).await;
    let (st, body) = get_json(&s, "/api/v1/dashboard/goals").await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(body["approval_queue_state"]["state"], "ready");
    let tree = body["tree"].as_array().unwrap();
    assert!(tree.iter().all(|n| n["phase"].is_string()));
    let root = tree.iter().find(|n| n["id"] == "goal-1").unwrap();
    assert!(!root["children"].as_array().unwrap().is_empty());
    assert_eq!(
        root["task_count"].as_u64().unwrap() as usize,
        root["tasks"].as_array().unwrap().len()
    );
    assert_eq!(
        body["summary"]["total_goals"].as_u64().unwrap(),
        8,
        "every goal counted, nested ones too"
    );

    let (st, d) = get_json(&s, "/api/v1/dashboard/goals/detail?goal_id=goal-2").await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(d["goal"]["id"], "goal-2");
    let tl = d["timeline"].as_array().unwrap();
    assert!(tl.len() >= 3);
    let ts: Vec<&str> = tl.iter().map(|e| e["ts"].as_str().unwrap()).collect();
    let mut sorted = ts.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(ts, sorted, "timeline sorted by ts descending");
    for e in tl {
        for k in ["ts", "kind", "lane", "title", "summary", "severity"] {
            assert!(e[k].is_string(), "{k}");
        }
    }
    let (st, nf) = get_json(&s, "/api/v1/dashboard/goals/detail?goal_id=goal-99").await;
    assert_eq!(st, StatusCode::OK, "§5.6 not found is HTTP 200");
    assert_eq!(nf["ok"], false);
    assert_eq!(nf["goal_id"], "goal-99");
    assert_eq!(nf["error"], "Goal goal-99 not found");
    let (st, e) = get_json(&s, "/api/v1/dashboard/goals/detail").await;
    assert_eq!(st, StatusCode::BAD_REQUEST);
    assert_eq!(e["error"], "goal_id query param is required");
    s.shutdown().await;
}

#[tokio::test]
async fn planning_counts_agree_with_the_task_list_and_warms_while_booting_s5_7() {
    let s = start(ServeOptions {
        boot_delay_reads: 1,
        ..ServeOptions::default()
    })
    .await
    .unwrap();
    let (st, warm) = get_json(&s, "/api/v1/dashboard/planning").await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(warm["status"], "initializing");
    reqwest::get(format!("{}/health", s.base_url()))
        .await
        .unwrap();
    let (_, plan) = get_json(&s, "/api/v1/dashboard/planning").await;
    let (_, list) = get_json(&s, "/api/v1/dashboard/tasks").await;
    let tasks = list["tasks"].as_array().unwrap();
    for status in ["todo", "claimed", "in_progress", "done", "cancelled"] {
        let n = tasks.iter().filter(|t| t["status"] == status).count();
        assert_eq!(
            plan["task_backlog"][status].as_u64().unwrap() as usize,
            n,
            "{status}"
        );
    }
    let goals = plan["goals"].as_array().unwrap();
    assert_eq!(goals.len(), 8);
    assert!(
        goals
            .iter()
            .all(|g| g.get("tasks").is_none() && g.get("children").is_none())
    );
    let executing = goals.iter().filter(|g| g["phase"] == "executing").count();
    assert_eq!(
        plan["rollup"]["active_count"].as_u64().unwrap() as usize,
        executing
    );
    assert!(plan["generated_at"].is_string());
    s.shutdown().await;
}
