//! Operator approvals of the embedded server (§10.5) through plain reqwest.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use masc_tui::server::faults::{DropPoint, Fault, FaultPlan, FaultRule, When};
use masc_tui::server::{RunningServer, ServeOptions, start};
use reqwest::StatusCode;
use serde_json::{Value, json};

const SUMMARY: &str = "/api/v1/operator?view=summary&include_messages=0&include_keepers=0";
const CONFIRM: &str = "/api/v1/operator/confirm";

async fn server() -> RunningServer {
    start(ServeOptions::default()).await.unwrap()
}

fn req(
    s: &RunningServer,
    method: reqwest::Method,
    path: &str,
    actor: Option<&str>,
) -> reqwest::RequestBuilder {
    let mut rb = reqwest::Client::new().request(method, format!("{}{}", s.base_url(), path));
    if let Some(t) = s.token() {
        rb = rb.bearer_auth(t);
    }
    match actor {
        Some(a) => rb.header("X-MASC-Agent", a),
        None => rb,
    }
}

async fn summary(s: &RunningServer, actor: Option<&str>) -> Value {
    let r = req(s, reqwest::Method::GET, SUMMARY, actor)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    r.json::<Value>().await.unwrap()["pending_confirm_envelope"].clone()
}

async fn decide(s: &RunningServer, actor: Option<&str>, body: Value) -> (StatusCode, Value) {
    let r = req(s, reqwest::Method::POST, CONFIRM, actor)
        .json(&body)
        .send()
        .await
        .unwrap();
    (r.status(), r.json().await.unwrap())
}

fn tokens(env: &Value) -> Vec<String> {
    env["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["confirm_token"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn summary_is_scoped_to_the_request_actor_s10_5() {
    let s = server().await;
    let env = summary(&s, Some("masc-tui")).await;
    let sum = &env["summary"];
    let items = env["items"].as_array().unwrap();
    assert_eq!(sum["actor_filter"], "masc-tui");
    assert_eq!(sum["filter_active"], true);
    assert_eq!(sum["visible_count"].as_u64().unwrap() as usize, items.len());
    assert_eq!(sum["hidden_count"], 1);
    assert_eq!(
        sum["total_count"].as_u64().unwrap() as usize,
        items.len() + 1
    );
    assert_eq!(sum["hidden_actors"], json!(["release-bot"]));
    assert_eq!(sum["confirm_required_actions"].as_array().unwrap().len(), 7);
    let mut seen = std::collections::BTreeSet::new();
    let mut last_created = String::from("9999");
    for i in items {
        let mut keys: Vec<&str> = i.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort();
        assert_eq!(
            keys,
            [
                "action_type",
                "actor",
                "confirm_token",
                "created_at",
                "delegated_tool",
                "expires_at",
                "payload",
                "target_id",
                "target_type",
                "trace_id"
            ]
        );
        assert_eq!(i["actor"], "masc-tui");
        assert!(
            seen.insert(i["confirm_token"].as_str().unwrap().to_string()),
            "unique tokens"
        );
        let created = i["created_at"].as_str().unwrap().to_string();
        assert!(created <= last_created, "newest first");
        if let Some(exp) = i["expires_at"].as_str() {
            assert!(exp > created.as_str());
        }
        let keeper_action = i["target_type"] == "keeper";
        assert_eq!(i["target_id"].is_string(), keeper_action);
        last_created = created;
    }
    // Another actor sees its own approval and ours hidden.
    let other = summary(&s, Some("release-bot")).await;
    assert_eq!(other["summary"]["visible_count"], 1);
    assert_eq!(other["summary"]["hidden_actors"], json!(["masc-tui"]));
    // No actor at all: the unscoped list.
    let open = summary(&s, None).await;
    assert_eq!(open["summary"]["filter_active"], false);
    assert!(open["summary"]["actor_filter"].is_null());
    assert_eq!(open["items"].as_array().unwrap().len(), items.len() + 1);
    s.shutdown().await;
}

#[tokio::test]
async fn deny_removes_without_running_s10_5() {
    let s = server().await;
    let (st, v) = decide(
        &s,
        Some("masc-tui"),
        json!({"confirm_token": "opc_5b0e8f2a", "decision": "deny"}),
    )
    .await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(v["status"], "ok");
    assert_eq!(v["decision"], "deny");
    assert_eq!(v["result_status"], "not_executed");
    assert_eq!(v["tool_name"], "masc_pause");
    assert_eq!(v["trace_id"], v["executed_action"]["trace_id"]);
    assert_eq!(v["executed_action"]["confirm_token"], "opc_5b0e8f2a");
    assert!(v.get("result").is_none());
    let env = summary(&s, Some("masc-tui")).await;
    assert!(!tokens(&env).contains(&"opc_5b0e8f2a".to_string()));
    let r = req(&s, reqwest::Method::GET, SUMMARY, Some("masc-tui"))
        .send()
        .await
        .unwrap();
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["workspace"]["paused"], false, "deny ran nothing");
    let (st, v) = decide(
        &s,
        Some("masc-tui"),
        json!({"confirm_token": "opc_5b0e8f2a", "decision": "confirm"}),
    )
    .await;
    assert_eq!(
        (st, v),
        (
            StatusCode::BAD_REQUEST,
            json!({"status": "error", "message": "pending confirmation not found"})
        )
    );
    s.shutdown().await;
}

#[tokio::test]
async fn confirm_replies_ok_deferred_error_s10_5() {
    let s = server().await;
    let (st, v) = decide(
        &s,
        Some("masc-tui"),
        json!({"confirm_token": "opc_5b0e8f2a", "decision": "confirm"}),
    )
    .await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(v["status"], "ok");
    assert_eq!(v["decision"], "confirm");
    assert_eq!(v["result"], json!({"paused": true}));
    assert!(v.get("result_status").is_none());
    let body: Value = req(&s, reqwest::Method::GET, SUMMARY, Some("masc-tui"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(body["workspace"]["paused"], true, "the action ran");

    let (_, v) = decide(
        &s,
        Some("masc-tui"),
        json!({"confirm_token": "opc_19c4d7e0", "decision": "confirm"}),
    )
    .await;
    assert_eq!(v["status"], "deferred");
    assert_eq!(v["tool_name"], "masc_broadcast");
    assert!(v["result"]["pending_recipients"].is_array());

    let (_, v) = decide(
        &s,
        Some("masc-tui"),
        json!({"confirm_token": "opc_7a21f03b", "decision": "confirm"}),
    )
    .await;
    assert_eq!(v["status"], "error");
    assert!(v["message"].is_string());
    assert!(!v["result"].is_null());

    let (_, v) = decide(
        &s,
        Some("masc-tui"),
        json!({"confirm_token": "opc_0e5f6a71"}),
    )
    .await;
    assert_eq!(v["decision"], "confirm", "absent decision confirms");
    assert_eq!(v["result"]["keeper"], "rondo");

    let (_, v) = decide(
        &s,
        Some("masc-tui"),
        json!({"confirm_token": "opc_9d3b2c48", "decision": "confirm"}),
    )
    .await;
    assert_eq!(v["status"], "ok");
    assert_eq!(v["tool_name"], "masc_add_task");
    assert!(v["executed_action"]["expires_at"].is_null());
    assert!(
        v["result"]["task_id"]
            .as_str()
            .unwrap()
            .starts_with("task-")
    );
    let left = summary(&s, Some("masc-tui")).await;
    for t in [
        "opc_5b0e8f2a",
        "opc_19c4d7e0",
        "opc_7a21f03b",
        "opc_0e5f6a71",
        "opc_9d3b2c48",
    ] {
        assert!(!tokens(&left).contains(&t.to_string()), "{t} consumed");
    }
    s.shutdown().await;
}

#[tokio::test]
async fn action_failure_after_removal_is_400_and_consumes_the_approval_s10_5() {
    let s = server().await;
    let (st, v) = decide(
        &s,
        Some("masc-tui"),
        json!({"confirm_token": "opc_c3e98d14", "decision": "confirm"}),
    )
    .await;
    assert_eq!(st, StatusCode::BAD_REQUEST);
    assert_eq!(v["status"], "error");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("masc_keeper_delegate failed")
    );
    let env = summary(&s, Some("masc-tui")).await;
    assert!(
        !tokens(&env).contains(&"opc_c3e98d14".to_string()),
        "removed before the action ran"
    );
    s.shutdown().await;
}

#[tokio::test]
async fn refusals_expired_actor_token_json_s10_5() {
    let s = server().await;
    let refused = |m: &str| json!({"status": "error", "message": m});
    let (st, v) = decide(
        &s,
        Some("masc-tui"),
        json!({"confirm_token": "opc_e1f2a3b4", "decision": "confirm"}),
    )
    .await;
    assert_eq!(
        (st, v),
        (
            StatusCode::BAD_REQUEST,
            refused("pending confirmation expired")
        )
    );
    let env = summary(&s, Some("masc-tui")).await;
    assert!(
        !tokens(&env).contains(&"opc_e1f2a3b4".to_string()),
        "expired approval dropped"
    );
    let body: Value = req(&s, reqwest::Method::GET, SUMMARY, Some("masc-tui"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(body["workspace"]["paused"], false, "its action never ran");

    let (st, v) = decide(
        &s,
        Some("masc-tui"),
        json!({"confirm_token": "opc_44aa0c19", "decision": "confirm"}),
    )
    .await;
    assert_eq!(
        (st, v),
        (
            StatusCode::BAD_REQUEST,
            refused("actor is not allowed to confirm this action")
        )
    );
    let other = summary(&s, Some("release-bot")).await;
    assert_eq!(tokens(&other), ["opc_44aa0c19"], "kept for its own actor");

    let (st, v) = decide(&s, Some("masc-tui"), json!({"decision": "deny"})).await;
    assert_eq!(
        (st, v),
        (
            StatusCode::BAD_REQUEST,
            refused("confirm_token is required")
        )
    );
    let (st, v) = decide(
        &s,
        None,
        json!({"confirm_token": "opc_9d3b2c48", "decision": "deny"}),
    )
    .await;
    assert_eq!(
        (st, v),
        (
            StatusCode::BAD_REQUEST,
            refused("operator request actor is required")
        )
    );
    let r = req(&s, reqwest::Method::POST, CONFIRM, Some("masc-tui"))
        .header("Content-Type", "application/json")
        .body("{nope")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    let v: Value = r.json().await.unwrap();
    assert!(v["message"].as_str().unwrap().starts_with("invalid json:"));
    assert!(tokens(&summary(&s, Some("masc-tui")).await).contains(&"opc_9d3b2c48".to_string()));
    s.shutdown().await;
}

#[tokio::test]
async fn confirm_dropped_after_apply_is_gone_on_reread_s13() {
    let s = server().await;
    s.set_faults(FaultPlan::single(FaultRule::new(
        "POST",
        CONFIRM,
        When::Nth { nth: 1 },
        Fault::Drop {
            drop: DropPoint::AfterApply,
        },
    )));
    let err = req(&s, reqwest::Method::POST, CONFIRM, Some("masc-tui"))
        .json(&json!({"confirm_token": "opc_9d3b2c48", "decision": "confirm"}))
        .send()
        .await
        .err()
        .unwrap();
    assert!(err.status().is_none());
    let env = summary(&s, Some("masc-tui")).await;
    assert!(!tokens(&env).contains(&"opc_9d3b2c48".to_string()));
    let (st, v) = decide(
        &s,
        Some("masc-tui"),
        json!({"confirm_token": "opc_9d3b2c48", "decision": "confirm"}),
    )
    .await;
    assert_eq!(st, StatusCode::BAD_REQUEST);
    assert_eq!(v["message"], "pending confirmation not found");
    s.shutdown().await;
}

/// §10.5: the demo seeds one approval that expires DURING a session — pending
/// when the server starts, its expiry minutes away by the wall clock. Once that time has
/// passed (here the store's clock is moved past it) the server still lists it, and deciding
/// it answers "pending confirmation expired" and drops it; its action never runs.
#[tokio::test]
async fn issue9_item8_an_approval_expires_minutes_after_the_server_starts_s10_5() {
    use masc_tui::server::store::operator::{EXPIRES_DURING_SESSION, EXPIRING_APPROVAL, find};
    let s = server().await;
    let now = masc_tui::server::store::now_unix() as i64;
    let seeded = s
        .state()
        .store()
        .read(|c| find(c, EXPIRING_APPROVAL))
        .await
        .unwrap()
        .expect("seeded");
    let expires = seeded.expires_at.expect("it expires");
    assert!(
        expires > now && expires <= now + EXPIRES_DURING_SESSION,
        "expires at {expires}, now {now}"
    );
    assert_eq!(seeded.actor, "masc-tui", "the acting actor's: visible");
    let listed = |env: &Value| tokens(env).contains(&EXPIRING_APPROVAL.to_string());
    assert!(listed(&summary(&s, Some("masc-tui")).await));
    // The session goes on past its expiry.
    s.state()
        .store()
        .write(move |tx| {
            tx.execute(
                "UPDATE operator_approvals SET expires_at = ?1 WHERE confirm_token = ?2",
                rusqlite::params![now - 1, EXPIRING_APPROVAL],
            )?;
            Ok(())
        })
        .await
        .unwrap();
    assert!(
        listed(&summary(&s, Some("masc-tui")).await),
        "expired, still listed by the server"
    );
    let (st, v) = decide(
        &s,
        Some("masc-tui"),
        json!({"confirm_token": EXPIRING_APPROVAL, "decision": "confirm"}),
    )
    .await;
    assert_eq!(
        (st, v),
        (
            StatusCode::BAD_REQUEST,
            json!({"status": "error", "message": "pending confirmation expired"})
        )
    );
    assert!(!listed(&summary(&s, Some("masc-tui")).await), "dropped");
}
