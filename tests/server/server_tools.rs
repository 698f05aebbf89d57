//! Tools, skills and async requests of the embedded server (§6.1–§6.4) through plain reqwest.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use masc_tui::server::faults::{Fault, FaultPlan, FaultRule, When};
use masc_tui::server::routes::tools::set_tools_warming;
use masc_tui::server::store::tools::ToolsWarming;
use masc_tui::server::{RunningServer, ServeOptions, start};
use reqwest::StatusCode;
use serde_json::Value;

const TOOLS: &str = "/api/v1/dashboard/tools";

async fn server() -> RunningServer {
    start(ServeOptions::default()).await.unwrap()
}

fn get_as(s: &RunningServer, path: &str, actor: &str) -> reqwest::RequestBuilder {
    let mut rb = reqwest::Client::new().get(format!("{}{}", s.base_url(), path));
    if let Some(t) = s.token() {
        rb = rb.bearer_auth(t);
    }
    rb.header("X-MASC-Agent", actor)
}

async fn json_of(s: &RunningServer, path: &str) -> (StatusCode, Value) {
    let r = get_as(s, path, "masc-tui").send().await.unwrap();
    let status = r.status();
    (status, r.json().await.unwrap())
}

#[tokio::test]
async fn tools_first_read_warms_once_then_settles_s6_1() {
    let s = server().await;
    let (st, warm) = json_of(&s, TOOLS).await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(warm["is_warming"], true);
    assert_eq!(warm["status"], "warming");
    assert_eq!(warm["stale_reason"], "warming");
    // Default: only the very first read after start, whoever asks next.
    let (_, settled) = json_of(&s, TOOLS).await;
    assert!(settled.get("is_warming").is_none());
    let inv = &settled["tool_inventory"];
    let tools = inv["tools"].as_array().unwrap();
    assert_eq!(inv["count"].as_u64().unwrap() as usize, tools.len());
    assert!(tools.len() >= 20, "{}", tools.len());
    for t in tools {
        for key in [
            "name",
            "description",
            "registered_schema",
            "dispatch_registered",
            "direct_call_allowed",
            "surfaces",
            "doc_refs",
            "prompt_hints",
        ] {
            assert!(t.get(key).is_some(), "{key} in {t}");
        }
    }
    assert!(settled["effective_keeper_surface"].is_null());
    assert!(settled["skill_activations"].is_null());
    assert!(settled["tool_usage"]["total_calls"].as_i64().unwrap() > 0);
    let (_, other_actor) = json_of(&s, TOOLS).await;
    assert!(other_actor.get("is_warming").is_none());
    s.shutdown().await;
}

#[tokio::test]
async fn tools_warming_per_actor_setting_s6_1_s13() {
    let s = server().await;
    set_tools_warming(s.state(), ToolsWarming::PerActor { reads: 2 })
        .await
        .unwrap();
    let warm = |actor: &'static str| {
        let r = get_as(&s, TOOLS, actor).send();
        async move {
            let v: Value = r.await.unwrap().json().await.unwrap();
            v.get("is_warming").is_some()
        }
    };
    assert!(warm("masc-tui").await);
    assert!(warm("masc-tui").await);
    assert!(!warm("masc-tui").await);
    assert!(
        warm("release-bot").await,
        "another actor has its own cold cache"
    );
    set_tools_warming(s.state(), ToolsWarming::Off)
        .await
        .unwrap();
    assert!(!warm("fresh-actor").await);
    s.shutdown().await;
}

#[tokio::test]
async fn tools_keeper_query_adds_effective_surface_s6_1() {
    let s = server().await;
    set_tools_warming(s.state(), ToolsWarming::Off)
        .await
        .unwrap();
    let (_, v) = json_of(&s, &format!("{TOOLS}?keeper=rondo")).await;
    let surf = &v["effective_keeper_surface"];
    assert_eq!(surf["status"], "available");
    assert_eq!(surf["runtime_id"], "anthropic.claude-opus-5");
    assert!(!surf["tools"].as_array().unwrap().is_empty());
    assert!(surf["tools"][0]["origin"]["kind"].is_string());
    assert!(!surf["instruction_skills"].as_array().unwrap().is_empty());
    assert!(!surf["skills_left_out"].as_array().unwrap().is_empty());
    assert_eq!(v["skill_activations"]["status"], "available");
    assert!(
        !v["skill_activations"]["ledger"]
            .as_array()
            .unwrap()
            .is_empty()
    );

    let (_, v) = json_of(&s, &format!("{TOOLS}?keeper=juno")).await;
    assert_eq!(v["effective_keeper_surface"]["status"], "unavailable");
    assert!(v["effective_keeper_surface"]["reason"].is_string());
    assert!(v["effective_keeper_surface"]["detail"].is_string());
    let (_, v) = json_of(&s, &format!("{TOOLS}?keeper=%ED%95%98%EB%8A%98")).await;
    assert_eq!(v["effective_keeper_surface"]["status"], "available");
    let (_, v) = json_of(&s, &format!("{TOOLS}?keeper=nobody")).await;
    assert_eq!(v["effective_keeper_surface"]["reason"], "unknown_keeper");
    s.shutdown().await;
}

#[tokio::test]
async fn tools_delay_fault_on_inventory_only_leaves_skills_served_s13() {
    let s = server().await;
    s.set_faults(FaultPlan::single(FaultRule::new(
        "GET",
        TOOLS,
        When::Every { every: true },
        Fault::Delay { delay_ms: 3_000 },
    )));
    let err = get_as(&s, TOOLS, "masc-tui")
        .timeout(std::time::Duration::from_millis(150))
        .send()
        .await
        .err()
        .unwrap();
    assert!(err.is_timeout());
    let (st, v) = json_of(&s, "/api/v1/skills").await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(v["state"], "ready");
    s.shutdown().await;
}

#[tokio::test]
async fn skills_ready_envelope_is_closed_with_usage_s6_2() {
    let s = server().await;
    let (st, v) = json_of(&s, "/api/v1/skills").await;
    assert_eq!(st, StatusCode::OK);
    let mut keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort();
    assert_eq!(
        keys,
        ["schema", "snapshot", "state", "surfaces", "usage_coverage"]
    );
    assert_eq!(v["schema"], "masc.skill-snapshot/v1");
    let mut snap: Vec<&str> = v["snapshot"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    snap.sort();
    assert_eq!(
        snap,
        [
            "catalog_revision",
            "config",
            "effective_skills",
            "rejections",
            "shadows",
            "skills",
            "snapshot_revision",
            "sources"
        ]
    );
    let surfaces = v["surfaces"].as_array().unwrap();
    assert!(surfaces.len() >= 3);
    for surf in surfaces {
        let kind = surf["kind"].as_str().unwrap();
        assert!(["instruction", "composition", "unavailable"].contains(&kind));
        assert_eq!(surf.get("profile").is_some(), kind != "unavailable");
        assert_eq!(surf.get("error").is_some(), kind == "unavailable");
        assert!(surf["reference"]["identity"]["name"].is_string());
    }
    assert!(surfaces.iter().any(|s| {
        s["usage"]
            .as_array()
            .unwrap()
            .iter()
            .any(|u| u["invocations"].as_i64().unwrap() > 0)
    }));
    assert!(v["usage_coverage"]["ledgers_loaded"].as_i64().unwrap() > 0);
    assert!(v["usage_coverage"]["unavailable"].is_array());
    s.shutdown().await;
}

#[tokio::test]
async fn async_list_summary_matches_rows_s6_3() {
    let s = server().await;
    let (st, v) = json_of(&s, "/api/v1/async-requests").await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(v["schema"], "masc.async-request-observation/v1");
    assert_eq!(v["status"], "ready");
    assert!(v["startup_recovery"].is_object());
    let rows = v["requests"].as_array().unwrap();
    let sum = &v["summary"];
    assert_eq!(sum["active"].as_u64().unwrap() as usize, rows.len());
    let owned = rows
        .iter()
        .filter(|r| r["worker_ownership"] == "runtime_owned")
        .count();
    assert_eq!(sum["runtime_owned"].as_u64().unwrap() as usize, owned);
    assert_eq!(
        sum["ownership_unknown"].as_u64().unwrap() as usize,
        rows.len() - owned
    );
    assert!(owned > 0 && owned < rows.len(), "mixed ownership");
    assert_eq!(
        sum["record_errors"].as_u64().unwrap() as usize,
        v["record_errors"].as_array().unwrap().len()
    );
    let statuses: std::collections::BTreeSet<&str> =
        rows.iter().map(|r| r["status"].as_str().unwrap()).collect();
    assert!(statuses.len() >= 3, "{statuses:?}");
    s.shutdown().await;
}

#[tokio::test]
async fn async_single_maps_statuses_and_echoes_s6_4() {
    let s = server().await;
    let (_, list) = json_of(&s, "/api/v1/async-requests").await;
    for row in list["requests"].as_array().unwrap() {
        let id = row["request_id"].as_str().unwrap();
        let (st, v) = json_of(&s, &format!("/api/v1/async-requests/{id}")).await;
        assert_eq!(st, StatusCode::OK);
        assert_eq!(v["schema"], "masc.async_request.v1");
        assert_eq!(v["request_id"], id);
        assert_eq!(v["submitted_by"], row["submitted_by"]);
        assert_eq!(v["target_keeper"], row["keeper_name"]);
        let expected = match row["status"].as_str().unwrap() {
            "queued" => "pending",
            "running" | "cancelling" => "running",
            "done" => "completed",
            _ => "failed",
        };
        assert_eq!(v["physical"]["state"], expected, "{id}");
        let terminal = matches!(expected, "completed" | "failed");
        assert_eq!(!v["physical"]["result"].is_null(), terminal, "{id}");
        assert_eq!(v["run"].is_null(), expected == "pending", "{id}");
        let mut keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort();
        assert_eq!(
            keys,
            [
                "logical",
                "physical",
                "request_id",
                "run",
                "schema",
                "submitted_by",
                "target_keeper"
            ]
        );
    }
    // A lost request: physical failed, logical unavailable — distinct states.
    let (_, lost) = json_of(&s, "/api/v1/async-requests/kmsg-29aa").await;
    assert_eq!(lost["physical"]["state"], "failed");
    assert_eq!(lost["logical"]["state"], "unavailable");
    let (_, done) = json_of(&s, "/api/v1/async-requests/kmsg-40d9").await;
    assert_eq!(
        done["logical"]["terminal_decision"]["decision"],
        "completed"
    );
    assert_eq!(done["run"]["source_task_id"], "task-1030");

    let (st, v) = json_of(&s, "/api/v1/async-requests/kmsg-none").await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    assert_eq!(v["error"], "unknown_request");
    assert_eq!(v["request_id"], "kmsg-none");
    s.shutdown().await;
}

#[tokio::test]
async fn async_single_wrong_echo_fault_alters_identity_fields_s13() {
    let s = server().await;
    s.set_faults(FaultPlan::single(FaultRule::new(
        "GET",
        "/api/v1/async-requests/kmsg-7f3a",
        When::Nth { nth: 1 },
        Fault::Echo {
            echo: masc_tui::server::faults::EchoFault::Wrong,
        },
    )));
    let (_, bad) = json_of(&s, "/api/v1/async-requests/kmsg-7f3a").await;
    assert_ne!(bad["request_id"], "kmsg-7f3a");
    assert_ne!(bad["target_keeper"], "rondo");
    let (_, good) = json_of(&s, "/api/v1/async-requests/kmsg-7f3a").await;
    assert_eq!(good["request_id"], "kmsg-7f3a");
    assert_eq!(good["target_keeper"], "rondo");
    s.shutdown().await;
}

#[tokio::test]
async fn warming_setting_over_the_test_mode_admin_route_and_auth_s6_1_s1_3() {
    let s = start(ServeOptions {
        test_mode: true,
        ..ServeOptions::default()
    })
    .await
    .unwrap();
    let admin = |body: &'static str| {
        reqwest::Client::new()
            .post(format!("{}/__admin/tools-warming", s.base_url()))
            .bearer_auth(s.token().unwrap())
            .header("Content-Type", "application/json")
            .body(body)
            .send()
    };
    assert_eq!(
        admin(r#"{"mode":"per_actor","reads":1}"#)
            .await
            .unwrap()
            .status(),
        StatusCode::OK
    );
    assert_eq!(
        admin(r#"{"mode":"sometimes"}"#).await.unwrap().status(),
        StatusCode::BAD_REQUEST
    );
    let (_, a) = json_of(&s, TOOLS).await;
    let (_, b) = json_of(&s, TOOLS).await;
    assert_eq!(a["is_warming"], true);
    assert!(b.get("is_warming").is_none());
    // Admin-class async list needs the token.
    let r = reqwest::Client::new()
        .get(format!("{}/api/v1/async-requests", s.base_url()))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    s.shutdown().await;

    let plain = server().await;
    let r = reqwest::Client::new()
        .post(format!("{}/__admin/tools-warming", plain.base_url()))
        .bearer_auth(plain.token().unwrap())
        .header("Content-Type", "application/json")
        .body(r#"{"mode":"off"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND, "test mode only");
    plain.shutdown().await;
}
