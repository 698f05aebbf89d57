//! Keepers roster/turns (§4.1, §4.2) and chat stream, operations and history (§4.3–§4.5)
//! of the embedded server, through plain reqwest.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use masc_tui::server::faults::{DropPoint, EchoFault, Fault, FaultPlan, FaultRule, When};
use masc_tui::server::{RunningServer, ServeOptions, start};
use reqwest::StatusCode;
use serde_json::{Value, json};
use std::collections::HashSet;

const STREAM: &str = "/api/v1/keepers/chat/stream";

async fn server() -> RunningServer {
    start(ServeOptions::default()).await.unwrap()
}

fn authed(s: &RunningServer, rb: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
    rb.bearer_auth(s.token().unwrap())
}

async fn get_json(s: &RunningServer, path: &str) -> (StatusCode, Value) {
    let r = authed(
        s,
        reqwest::Client::new().get(format!("{}{}", s.base_url(), path)),
    )
    .send()
    .await
    .unwrap();
    let st = r.status();
    (st, r.json().await.unwrap())
}

fn post_chat(s: &RunningServer, body: String) -> reqwest::RequestBuilder {
    authed(
        s,
        reqwest::Client::new().post(format!("{}{}", s.base_url(), STREAM)),
    )
    .header("Content-Type", "application/json")
    .header("Accept", "text/event-stream")
    .body(body)
}

/// The `data:` JSON of every event of an SSE body.
fn events(body: &str) -> Vec<Value> {
    body.split("\n\n")
        .filter(|e| !e.trim().is_empty())
        .map(|e| {
            let data: String = e.lines().filter_map(|l| l.strip_prefix("data: ")).collect();
            serde_json::from_str(&data).unwrap()
        })
        .collect()
}

fn label(e: &Value) -> String {
    match e["type"].as_str().unwrap() {
        "CUSTOM" => e["name"].as_str().unwrap().to_string(),
        t => t.to_string(),
    }
}

#[tokio::test]
async fn roster_fields_limit_clamp_and_error_row_s4_1() {
    let s = server().await;
    let (st, body) = get_json(&s, "/api/v1/gate/keepers?detailed=true").await;
    assert_eq!(st, StatusCode::OK);
    let rows = body["keepers"].as_array().unwrap();
    assert!((6..=8).contains(&rows.len()));
    assert_eq!(body["count"].as_u64().unwrap() as usize, rows.len());
    assert_eq!(body["total"], body["count"]);
    assert_eq!(body["limit"], 200);
    assert_eq!(body["truncated"], false);
    assert_eq!(body["candle"], json!({"status": "off"}));
    let names: HashSet<&str> = rows.iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert!(names.contains("하늘") && names.contains("rondo"));
    let statuses: HashSet<&str> = rows.iter().map(|r| r["status"].as_str().unwrap()).collect();
    assert!(statuses.len() >= 5, "varied statuses {statuses:?}");
    let err = rows.iter().find(|r| r["status"] == "error").unwrap();
    assert!(err["effective_meta_error"]["message"].is_string());
    assert_eq!(err["meta"], Value::Null);
    for r in rows {
        assert_eq!(r["runtime_class"], "keeper");
        assert!(r["candle_balance_milli"].is_null());
        assert!(r.get("current_task").is_some() && r.get("turn_started_at").is_some());
    }
    assert!(rows.iter().any(|r| r["current_task"].is_string()));
    let (_, limited) = get_json(&s, "/api/v1/gate/keepers?limit=2").await;
    assert_eq!(limited["count"], 2);
    assert_eq!(limited["total"].as_u64().unwrap() as usize, rows.len());
    assert_eq!(limited["truncated"], true);
    let (_, zero) = get_json(&s, "/api/v1/gate/keepers?limit=0").await;
    assert_eq!(zero["limit"], 1);
    let (_, big) = get_json(&s, "/api/v1/gate/keepers?limit=5000").await;
    assert_eq!(big["limit"], 200);
    s.shutdown().await;
}

#[tokio::test]
async fn turns_one_row_per_keeper_sorted_s4_2() {
    let s = server().await;
    let (st, body) = get_json(&s, "/api/v1/keepers/turns").await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(body["schema"], "masc.keeper_turns.v1");
    let rows = body["keepers"].as_array().unwrap();
    let names: Vec<&str> = rows
        .iter()
        .map(|r| r["keeper_name"].as_str().unwrap())
        .collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
    let busy = rows.iter().find(|r| r["keeper_name"] == "rondo").unwrap();
    assert_eq!(busy["turn"]["lane"], "autonomous");
    assert!(busy["turn"]["started_at_unix"].is_number());
    assert!(
        rows.iter()
            .any(|r| r["turn"].is_null() && r["status"] == "ok")
    );
    assert!(
        rows.iter()
            .any(|r| r["status"] == "unavailable" && r["detail"].is_string())
    );
    s.shutdown().await;
}

#[tokio::test]
async fn chat_stream_scripted_order_operation_and_history_s4_3_s4_4() {
    let s = server().await;
    let message = "안녕 rondo! status? 🚀";
    let body = json!({"request_id": "tui-0001", "name": "rondo", "message": message}).to_string();
    let r = post_chat(&s, body.clone()).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["content-type"], "text/event-stream");
    assert_eq!(r.headers()["cache-control"], "no-cache");
    let evs = events(&r.text().await.unwrap());
    let labels: Vec<String> = evs.iter().map(label).collect();
    let mut expected: Vec<&str> = vec![
        "KEEPER_CHAT_OPERATION_ACCEPTED",
        "RUN_STARTED",
        "KEEPER_THINKING_DELTA",
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "KEEPER_TOOL_RESULT_READY",
        "TEXT_MESSAGE_START",
    ];
    let contents = labels
        .iter()
        .filter(|l| *l == "TEXT_MESSAGE_CONTENT")
        .count();
    assert!(contents >= 2);
    expected.extend(std::iter::repeat_n("TEXT_MESSAGE_CONTENT", contents));
    expected.extend(["KEEPER_REPLY_DETAILS", "TEXT_MESSAGE_END", "RUN_FINISHED"]);
    assert_eq!(labels, expected);
    let acc = &evs[0];
    assert_eq!(acc["threadId"], "default");
    assert_eq!(
        acc["value"],
        json!({"operation_id": "tui-0001", "state": "Queued", "queued_count": 0})
    );
    for e in &evs[1..] {
        assert_eq!(e["threadId"], "keeper:rondo");
        assert_eq!(e["runId"], "keeper-operation-run-tui-0001");
        assert!(e["timestamp"].is_number());
    }
    let text: String = evs
        .iter()
        .filter(|e| e["type"] == "TEXT_MESSAGE_CONTENT")
        .map(|e| e["delta"].as_str().unwrap())
        .collect();
    let details = evs
        .iter()
        .find(|e| label(e) == "KEEPER_REPLY_DETAILS")
        .unwrap();
    assert_eq!(details["value"]["reply"], text.as_str());
    assert_eq!(details["value"]["turn_outcome"], "visible_reply");
    assert!(text.contains(message), "the reply quotes the message");

    let (st, op) = get_json(&s, "/api/v1/keepers/rondo/chat/operations/tui-0001").await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(op["schema"], "masc.keeper_chat_operation.v1");
    assert_eq!(op["operation_id"], "tui-0001");
    assert_eq!(op["state"], "Succeeded");
    assert!(op["sequence"].is_string());
    assert_eq!(op["outcome_ref"], details["value"]["turn_ref"]);
    assert!(op.get("started_at").is_none(), "closed per-state keys");

    let (_, page) = get_json(&s, "/api/v1/keepers/rondo/chat/history/page").await;
    let msgs = page["messages"].as_array().unwrap();
    let tail: Vec<&str> = msgs[msgs.len() - 3..]
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(tail, vec!["user", "tool", "assistant"]);
    assert_eq!(msgs[msgs.len() - 3]["content"], message);
    assert_eq!(msgs[msgs.len() - 1]["content"], text.as_str());

    // Re-POST of a finished request_id replays the acceptance with its terminal state.
    let again = events(
        &post_chat(&s, body)
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap(),
    );
    assert_eq!(again.len(), 1);
    assert_eq!(again[0]["value"]["state"], "Succeeded");
    assert_eq!(again[0]["value"]["operation_id"], "tui-0001");
    let (_, page2) = get_json(&s, "/api/v1/keepers/rondo/chat/history/page").await;
    assert_eq!(page2["messages"], page["messages"], "no second user row");
    s.shutdown().await;
}

#[tokio::test]
async fn chat_stream_refuses_bad_bodies_before_the_stream_s4_3() {
    let s = server().await;
    for bad in [
        r#"{"request_id":"tui-1","name":"rondo","message":"x","extra":1}"#.to_string(),
        r#"{"request_id":"tui-1","name":"rondo","message":"x","message":"y"}"#.to_string(),
        r#"{"request_id":"tui-1","name":"rondo"}"#.to_string(),
        "not json".to_string(),
    ] {
        let r = post_chat(&s, bad.clone()).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::BAD_REQUEST, "{bad}");
        let b: Value = r.json().await.unwrap();
        assert!(b["error"]["message"].is_string(), "{bad}");
    }
    let r = post_chat(
        &s,
        json!({"request_id":"tui-2","name":"nobody","message":"hi"}).to_string(),
    )
    .send()
    .await
    .unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    let r = reqwest::Client::new()
        .post(format!("{}{}", s.base_url(), STREAM))
        .header("Content-Type", "application/json")
        .body(json!({"request_id":"tui-3","name":"rondo","message":"hi"}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    let (st, _) = get_json(&s, "/api/v1/keepers/rondo/chat/operations/tui-3").await;
    assert_eq!(
        st,
        StatusCode::NOT_FOUND,
        "refused requests leave no operation"
    );
    s.shutdown().await;
}

#[tokio::test]
async fn chat_stream_cut_and_echo_faults_s13() {
    let s = server().await;
    s.set_faults(FaultPlan::single(FaultRule::new(
        "POST",
        STREAM,
        When::Nth { nth: 1 },
        Fault::SseCut { sse_cut_after: 3 },
    )));
    let text = post_chat(
        &s,
        json!({"request_id":"tui-cut","name":"sangsu","message":"hi"}).to_string(),
    )
    .send()
    .await
    .unwrap()
    .text()
    .await
    .unwrap();
    let labels: Vec<String> = events(&text).iter().map(label).collect();
    assert_eq!(
        labels,
        vec![
            "KEEPER_CHAT_OPERATION_ACCEPTED",
            "RUN_STARTED",
            "KEEPER_THINKING_DELTA"
        ]
    );
    s.set_faults(FaultPlan::single(FaultRule::new(
        "POST",
        STREAM,
        When::Every { every: true },
        Fault::Echo {
            echo: EchoFault::Wrong,
        },
    )));
    let text = post_chat(
        &s,
        json!({"request_id":"tui-echo","name":"sangsu","message":"hi"}).to_string(),
    )
    .send()
    .await
    .unwrap()
    .text()
    .await
    .unwrap();
    let acc = &events(&text)[0];
    assert_ne!(acc["value"]["operation_id"], "tui-echo");
    s.shutdown().await;
}

#[tokio::test]
async fn chat_drop_before_apply_leaves_nothing_after_apply_commits_s13() {
    let s = server().await;
    s.set_faults(FaultPlan::single(FaultRule::new(
        "POST",
        STREAM,
        When::Nth { nth: 1 },
        Fault::Drop {
            drop: DropPoint::BeforeApply,
        },
    )));
    let err = post_chat(
        &s,
        json!({"request_id":"tui-before","name":"mira","message":"before"}).to_string(),
    )
    .send()
    .await
    .err()
    .unwrap();
    assert!(err.status().is_none(), "transport error: {err:?}");
    let (st, _) = get_json(&s, "/api/v1/keepers/mira/chat/operations/tui-before").await;
    assert_eq!(st, StatusCode::NOT_FOUND, "nothing applied");

    s.set_faults(FaultPlan::single(FaultRule::new(
        "POST",
        STREAM,
        When::Nth { nth: 1 },
        Fault::Drop {
            drop: DropPoint::AfterApply,
        },
    )));
    let err = post_chat(
        &s,
        json!({"request_id":"tui-after","name":"mira","message":"after apply 확인"}).to_string(),
    )
    .send()
    .await
    .err()
    .unwrap();
    assert!(err.status().is_none(), "transport error: {err:?}");
    let (st, op) = get_json(&s, "/api/v1/keepers/mira/chat/operations/tui-after").await;
    assert_eq!(st, StatusCode::OK, "the write was committed");
    assert!(["Queued", "Running", "Succeeded"].contains(&op["state"].as_str().unwrap()));
    let (_, page) = get_json(&s, "/api/v1/keepers/mira/chat/history/page").await;
    assert!(
        page["messages"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["content"] == "after apply 확인")
    );
    s.shutdown().await;
}

#[tokio::test]
async fn history_pages_walk_200_rows_and_carry_report_finals_s4_5() {
    let s = server().await;
    let mut seen = HashSet::new();
    let mut all = Vec::new();
    let mut before: Option<f64> = None;
    let mut pages = 0;
    loop {
        let path = match before {
            Some(b) => format!("/api/v1/keepers/rondo/chat/history/page?before={b:.17}"),
            None => "/api/v1/keepers/rondo/chat/history/page".to_string(),
        };
        let (st, page) = get_json(&s, &path).await;
        assert_eq!(st, StatusCode::OK);
        assert_eq!(page["schema"], "masc.keeper_chat_history.page.v1");
        pages += 1;
        let msgs = page["messages"].as_array().unwrap();
        let ts: Vec<f64> = msgs.iter().map(|m| m["ts"].as_f64().unwrap()).collect();
        assert!(ts.windows(2).all(|w| w[0] < w[1]), "oldest first in a page");
        if let Some(first) = msgs.first() {
            assert_eq!(page["next_before"], first["ts"]);
        }
        for m in msgs {
            assert!(seen.insert(m["id"].as_str().unwrap().to_string()), "repeat");
        }
        all.extend(msgs.iter().cloned());
        if page["has_more"] != true {
            break;
        }
        before = page["next_before"].as_f64();
        assert!(pages < 50);
    }
    assert_eq!(all.len(), 200);
    assert!(pages >= 4);
    assert!(
        all.iter()
            .any(|m| m["role"] == "tool" && m["tool_call_name"].is_string())
    );
    let finals: Vec<&str> = all
        .iter()
        .filter_map(|m| m["content"].as_str())
        .filter(|c| c.contains("[coop-report]: <"))
        .collect();
    assert_eq!(finals.len(), 2);
    assert!(finals.iter().any(|c| c.contains("\n\n[coop-report]: <{")
        && !c[c.find("[coop-report]").unwrap()..].contains("<repo>")));
    assert!(finals.iter().any(|c| c.contains("<repo>")));
    assert!(all.iter().any(|m| {
        m["content"]
            .as_str()
            .unwrap()
            .chars()
            .any(|c| c as u32 > 0x1F000)
    }));

    for bad in ["abc", "inf", "NaN", ""] {
        let (st, b) = get_json(
            &s,
            &format!("/api/v1/keepers/rondo/chat/history/page?before={bad}"),
        )
        .await;
        assert_eq!(st, StatusCode::BAD_REQUEST, "{bad}");
        assert_eq!(b["error"], "before must be a unix-seconds float");
    }
    let (st, _) = get_json(&s, "/api/v1/keepers/nobody/chat/history/page").await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    s.shutdown().await;
}

#[tokio::test]
async fn history_repeat_cursor_and_operation_echo_faults_s13() {
    let s = server().await;
    s.set_faults(FaultPlan::single(FaultRule::new(
        "GET",
        "/api/v1/keepers/rondo/chat/history/page",
        When::Nth { nth: 2 },
        Fault::RepeatCursor {
            repeat_cursor: true,
        },
    )));
    let (_, p1) = get_json(&s, "/api/v1/keepers/rondo/chat/history/page").await;
    let b = p1["next_before"].as_f64().unwrap();
    let (_, p2) = get_json(
        &s,
        &format!("/api/v1/keepers/rondo/chat/history/page?before={b:.17}"),
    )
    .await;
    assert_eq!(p2["next_before"].as_f64().unwrap(), b);

    post_chat(
        &s,
        json!({"request_id":"tui-op","name":"scout","message":"hi"}).to_string(),
    )
    .send()
    .await
    .unwrap()
    .text()
    .await
    .unwrap();
    s.set_faults(FaultPlan::single(FaultRule::new(
        "GET",
        "/api/v1/keepers/scout/chat/operations/tui-op",
        When::Every { every: true },
        Fault::Echo {
            echo: EchoFault::Wrong,
        },
    )));
    let (_, op) = get_json(&s, "/api/v1/keepers/scout/chat/operations/tui-op").await;
    assert_ne!(op["operation_id"], "tui-op");
    s.shutdown().await;
}

#[tokio::test]
async fn two_concurrent_posts_of_one_request_id_create_one_operation_s4_4() {
    let s = server().await;
    let body = json!({"request_id":"tui-race","name":"하늘","message":"동시에"}).to_string();
    let (a, b) = tokio::join!(
        post_chat(&s, body.clone()).send(),
        post_chat(&s, body.clone()).send()
    );
    let (a, b) = (
        a.unwrap().text().await.unwrap(),
        b.unwrap().text().await.unwrap(),
    );
    let lens = {
        let mut v = vec![events(&a).len(), events(&b).len()];
        v.sort();
        v
    };
    assert_eq!(lens[0], 1, "the loser replays the acceptance only");
    assert!(lens[1] > 5, "the winner runs the script");
    let (_, page) = get_json(&s, "/api/v1/keepers/하늘/chat/history/page").await;
    let users = page["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["content"] == "동시에")
        .count();
    assert_eq!(users, 1, "one user row for one request_id");
    s.shutdown().await;
}

/// A reused `request_id` naming another Keeper or another message is
/// refused (409, the §1.4 `{"error"}` envelope) with nothing stored; only an identical
/// re-post replays the acceptance. The client classifies that 409 as "not applied".
#[tokio::test]
async fn issue16_reused_request_id_with_other_keeper_or_message_is_409_s4_3() {
    use masc_tui::actors::chat::send::classify_open_failure;
    use masc_tui::protocol::client::SseOpenFailure;
    let s = server().await;
    let first = json!({"request_id": "tui-reuse", "name": "rondo", "message": "hello"}).to_string();
    let evs = events(
        &post_chat(&s, first.clone())
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap(),
    );
    assert_eq!(evs[0]["value"]["operation_id"], "tui-reuse");
    let (_, before) = get_json(&s, "/api/v1/keepers/sangsu/chat/history/page").await;
    for other in [
        json!({"request_id": "tui-reuse", "name": "sangsu", "message": "hello"}),
        json!({"request_id": "tui-reuse", "name": "rondo", "message": "another"}),
        json!({"request_id": "tui-reuse", "name": "sangsu", "message": "another"}),
    ] {
        let r = post_chat(&s, other.to_string()).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::CONFLICT, "{other}");
        assert!(
            r.headers()["content-type"]
                .to_str()
                .unwrap()
                .starts_with("application/json")
        );
        let body = r.bytes().await.unwrap();
        let v: Value = serde_json::from_slice(&body).unwrap();
        assert!(
            v["error"]
                .as_str()
                .unwrap()
                .starts_with("request_id_conflict"),
            "{v}"
        );
        assert_eq!(v["request_id"], "tui-reuse");
        let outcome = classify_open_failure(SseOpenFailure::Responded { status: 409, body });
        assert_eq!(
            masc_tui::actors::saves::Receipt::class(&outcome),
            masc_tui::protocol::outcome::SaveClass::NotApplied,
            "{other}"
        );
    }
    let (st, _) = get_json(&s, "/api/v1/keepers/sangsu/chat/operations/tui-reuse").await;
    assert_eq!(st, StatusCode::NOT_FOUND, "nothing was stored for sangsu");
    let (_, after) = get_json(&s, "/api/v1/keepers/sangsu/chat/history/page").await;
    assert_eq!(
        after["messages"], before["messages"],
        "no row for the refused post"
    );
    let (st, op) = get_json(&s, "/api/v1/keepers/rondo/chat/operations/tui-reuse").await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(op["input"]["message"], "hello", "the first send stands");
    // The identical re-post replays the acceptance.
    let r = post_chat(&s, first).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let again = events(&r.text().await.unwrap());
    assert_eq!(again.len(), 1);
    assert_eq!(again[0]["value"]["operation_id"], "tui-reuse");
    s.shutdown().await;
}
