//! Connectors of the embedded server (§7.1–§7.4) through plain reqwest.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::server_support::*;

use masc_tui::server::faults::{DropPoint, Fault, FaultPlan, FaultRule, When};
use reqwest::StatusCode;
use serde_json::{Value, json};

const STATUS: &str = "/api/v1/gate/connectors";
const NAMES: &str = "/api/v1/gate/connector/names";

fn row<'a>(status: &'a Value, id: &str) -> &'a Value {
    status["connectors"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["connector_id"] == id)
        .unwrap()
}

fn bound(row: &Value, channel: &str) -> Option<String> {
    row["configured_bindings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["channel_id"] == channel)
        .map(|b| b["keeper_name"].as_str().unwrap().to_string())
}

#[tokio::test]
async fn status_lists_discord_connected_and_slack_stale_s7_1() {
    let s = server().await;
    let (st, v) = get(&s, STATUS).await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(v["total"], 2);
    assert_eq!(v["active_count"], 1);
    assert!(v["generated_at"].is_string());
    let valid = [
        ("connected", true, true),
        ("offline", false, true),
        ("disconnected", true, false),
        ("offline", false, false),
        ("stale", true, false),
    ];
    for c in v["connectors"].as_array().unwrap() {
        let triple = (
            c["status"].as_str().unwrap(),
            c["available"].as_bool().unwrap(),
            c["connected"].as_bool().unwrap(),
        );
        assert!(valid.contains(&triple), "{triple:?}");
        for b in c["configured_bindings"].as_array().unwrap() {
            assert!(b["channel_id"].is_string() && b["keeper_name"].is_string());
        }
    }
    let discord = row(&v, "discord");
    assert_eq!(discord["status"], "connected");
    assert_eq!(discord["configured_bindings"].as_array().unwrap().len(), 30);
    assert_eq!(discord["recent_audit"].as_array().unwrap().len(), 10);
    assert_eq!(row(&v, "slack")["status"], "stale");
    let (_, small) = get(&s, &format!("{STATUS}?audit_limit=0")).await;
    assert_eq!(
        row(&small, "discord")["recent_audit"]
            .as_array()
            .unwrap()
            .len(),
        1,
        "audit_limit clamps to 1"
    );
    s.shutdown().await;
}

#[tokio::test]
async fn channel_names_chain_pages_sorted_by_id_s7_2() {
    let s = server().await;
    let mut after: Option<String> = None;
    let mut all: Vec<String> = Vec::new();
    let mut pages = 0;
    let mut first_total = None;
    loop {
        let path = match &after {
            None => format!("{NAMES}?name=discord&scope=channel&limit=500"),
            Some(a) => format!("{NAMES}?name=discord&scope=channel&limit=500&after_id={a}"),
        };
        let (st, v) = get(&s, &path).await;
        assert_eq!(st, StatusCode::OK);
        assert_eq!(v["connector_id"], "discord");
        assert_eq!(v["kind"], "channel");
        assert_eq!(v["after_id"], json!(after));
        assert_eq!(v["limit"], 500);
        assert_eq!(v["mapping_scope"], "unscoped_historical");
        first_total.get_or_insert(v["total"].as_u64().unwrap());
        let ids: Vec<String> = v["mappings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                assert!(!m["name"].as_str().unwrap().is_empty());
                m["id"].as_str().unwrap().to_string()
            })
            .collect();
        if let Some(a) = &after {
            assert!(ids.iter().all(|id| id.as_str() > a.as_str()));
        }
        assert_eq!(v["next_after_id"], json!(ids.last()));
        all.extend(ids);
        pages += 1;
        if !v["has_more"].as_bool().unwrap() {
            break;
        }
        after = v["next_after_id"].as_str().map(str::to_string);
    }
    assert_eq!(pages, 3);
    assert!(all.len() >= 1_200);
    assert_eq!(all.len() as u64, first_total.unwrap());
    let mut sorted = all.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted, all, "byte-sorted, no repeats across pages");

    // Default limit 100; an empty scope answers an empty last page.
    let (_, v) = get(&s, &format!("{NAMES}?name=discord&scope=person")).await;
    assert_eq!(v["limit"], 100);
    assert_eq!(v["mappings"].as_array().unwrap().len(), 100);
    let (_, v) = get(&s, &format!("{NAMES}?name=slack&scope=person")).await;
    assert_eq!(v["total"], 0);
    assert_eq!(v["has_more"], false);
    assert!(v["next_after_id"].is_null());
    s.shutdown().await;
}

#[tokio::test]
async fn names_errors_use_the_gate_envelope_s7_2() {
    let s = server().await;
    for (path, status, msg) in [
        (format!("{NAMES}?scope=channel"), 400, "name is required"),
        (format!("{NAMES}?name=discord"), 400, "scope is required"),
        (
            format!("{NAMES}?name=discord&scope=guild"),
            400,
            "unknown scope: guild",
        ),
        (
            format!("{NAMES}?name=teams&scope=channel"),
            404,
            "unknown connector: teams",
        ),
    ] {
        let (st, v) = get(&s, &path).await;
        assert_eq!(st.as_u16(), status, "{path}");
        assert_eq!(v, json!({"ok": false, "error": msg}));
    }
    s.shutdown().await;
}

#[tokio::test]
async fn names_repeat_cursor_fault_repeats_the_request_cursor_s13() {
    let s = server().await;
    let (_, first) = get(&s, &format!("{NAMES}?name=discord&scope=channel&limit=500")).await;
    let a = first["next_after_id"].as_str().unwrap().to_string();
    s.set_faults(FaultPlan::single(FaultRule::new(
        "GET",
        NAMES,
        When::Every { every: true },
        Fault::RepeatCursor {
            repeat_cursor: true,
        },
    )));
    let (_, v) = get(
        &s,
        &format!("{NAMES}?name=discord&scope=channel&limit=500&after_id={a}"),
    )
    .await;
    assert_eq!(v["next_after_id"], a.as_str());
    assert_eq!(v["has_more"], true);
    s.shutdown().await;
}

#[tokio::test]
async fn bind_upserts_and_status_shows_it_s7_3() {
    let s = server().await;
    let (_, before) = get(&s, STATUS).await;
    let channel = row(&before, "discord")["configured_bindings"][0]["channel_id"]
        .as_str()
        .unwrap()
        .to_string();
    let (st, v) = post(
        &s,
        "/api/v1/gate/connector/bind?name=discord",
        json!({"channel_id": channel, "keeper_name": "하늘"}),
    )
    .await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(v["connector_id"], "discord");
    assert_eq!(bound(&v, &channel).as_deref(), Some("하늘"));
    assert_eq!(v["configured_bindings"].as_array().unwrap().len(), 30);
    let (st, v) = post(
        &s,
        "/api/v1/gate/connector/bind?name=discord",
        json!({"channel_id": "999", "keeper_name": "mira"}),
    )
    .await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(v["recent_audit"][0]["action"], "bind");
    assert_eq!(v["recent_audit"][0]["channel_id"], "999");
    let (_, after) = get(&s, STATUS).await;
    let discord = row(&after, "discord");
    assert_eq!(discord["configured_bindings"].as_array().unwrap().len(), 31);
    assert_eq!(bound(discord, &channel).as_deref(), Some("하늘"));
    s.shutdown().await;
}

#[tokio::test]
async fn bind_errors_s7_3() {
    let s = server().await;
    let url = "/api/v1/gate/connector/bind?name=discord";
    let (st, v) = post(&s, url, json!({"keeper_name": "mira"})).await;
    assert_eq!(
        (st, v["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("channel_id is required"))
    );
    let (st, v) = post(&s, url, json!({"channel_id": "1"})).await;
    assert_eq!(
        (st, v["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("keeper_name is required"))
    );
    let (st, v) = post(&s, url, json!({"channel_id": "1", "keeper_name": "ghost"})).await;
    assert_eq!(
        (st, v["error"].as_str()),
        (StatusCode::NOT_FOUND, Some("unknown keeper: ghost"))
    );
    assert_eq!(v["ok"], false);
    let (st, v) = post(
        &s,
        "/api/v1/gate/connector/bind?name=teams",
        json!({"channel_id": "1", "keeper_name": "mira"}),
    )
    .await;
    assert_eq!(
        (st, v["error"].as_str()),
        (StatusCode::NOT_FOUND, Some("unknown connector: teams"))
    );
    let r = req(&s, reqwest::Method::POST, url)
        .header("Content-Type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    assert_eq!(r.json::<Value>().await.unwrap()["error"], "invalid json");
    let (_, after) = get(&s, STATUS).await;
    assert_eq!(
        row(&after, "discord")["configured_bindings"]
            .as_array()
            .unwrap()
            .len(),
        30,
        "refused binds change nothing"
    );
    s.shutdown().await;
}

#[tokio::test]
async fn unbind_is_conditional_on_keeper_s7_4() {
    let s = server().await;
    let (_, v) = get(&s, STATUS).await;
    let b = &row(&v, "discord")["configured_bindings"][3];
    let channel = b["channel_id"].as_str().unwrap().to_string();
    let keeper = b["keeper_name"].as_str().unwrap().to_string();
    let url = "/api/v1/gate/connector/unbind?name=discord";
    let other = if keeper == "rondo" { "mira" } else { "rondo" };
    let (st, v) = post(
        &s,
        url,
        json!({"channel_id": channel, "keeper_name": other}),
    )
    .await;
    assert_eq!(st, StatusCode::CONFLICT);
    assert_eq!(v, json!({"ok": false, "error": "binding changed"}));
    let (_, still) = get(&s, STATUS).await;
    assert_eq!(
        bound(row(&still, "discord"), &channel),
        Some(keeper.clone())
    );

    let (st, v) = post(
        &s,
        url,
        json!({"channel_id": channel, "keeper_name": keeper}),
    )
    .await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(bound(&v, &channel), None);
    assert_eq!(v["recent_audit"][0]["action"], "unbind");
    assert_eq!(v["recent_audit"][0]["previous_keeper"], keeper.as_str());
    let (st, v) = post(
        &s,
        url,
        json!({"channel_id": channel, "keeper_name": keeper}),
    )
    .await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    assert_eq!(v, json!({"ok": false, "error": "binding not found"}));
    let (_, after) = get(&s, STATUS).await;
    assert_eq!(
        row(&after, "discord")["configured_bindings"]
            .as_array()
            .unwrap()
            .len(),
        29
    );
    // Unconditional unbind (no keeper_name) removes whatever is bound.
    let slack_channel = row(&after, "slack")["configured_bindings"][0]["channel_id"]
        .as_str()
        .unwrap()
        .to_string();
    let (st, v) = post(
        &s,
        "/api/v1/gate/connector/unbind?name=slack",
        json!({"channel_id": slack_channel}),
    )
    .await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(bound(&v, &slack_channel), None);
    s.shutdown().await;
}

#[tokio::test]
async fn bind_dropped_after_apply_is_visible_on_reread_s13() {
    let s = server().await;
    let (_, before) = get(&s, STATUS).await;
    let tag_before = req(&s, reqwest::Method::GET, STATUS)
        .send()
        .await
        .unwrap()
        .headers()["etag"]
        .clone();
    s.set_faults(FaultPlan::single(FaultRule::new(
        "POST",
        "/api/v1/gate/connector/bind",
        When::Nth { nth: 1 },
        Fault::Drop {
            drop: DropPoint::AfterApply,
        },
    )));
    let err = req(
        &s,
        reqwest::Method::POST,
        "/api/v1/gate/connector/bind?name=discord",
    )
    .json(&json!({"channel_id": "777", "keeper_name": "sangsu"}))
    .send()
    .await
    .err()
    .unwrap();
    assert!(err.status().is_none(), "{err:?}");
    let r = req(&s, reqwest::Method::GET, STATUS).send().await.unwrap();
    assert_ne!(
        r.headers()["etag"],
        tag_before,
        "the write changed the read"
    );
    let after: Value = r.json().await.unwrap();
    assert_eq!(
        bound(row(&after, "discord"), "777").as_deref(),
        Some("sangsu")
    );
    assert_eq!(bound(row(&before, "discord"), "777"), None);
    s.shutdown().await;
}
