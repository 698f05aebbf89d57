//! Asks, follow-up SSE and turn transcripts of the embedded server (§10.1–§10.4).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::server_support::*;

use masc_tui::protocol::admission::decode_root_header;
use masc_tui::server::RunningServer;
use masc_tui::server::faults::{DropPoint, EchoFault, Fault, FaultPlan, FaultRule, When};
use reqwest::StatusCode;
use serde_json::{Value, json};

const ASKS: &str = "/api/v1/keepers/asks";
const ANSWER: &str = "/api/v1/keepers/ask-answer";

fn events(text: &str) -> Vec<Value> {
    text.split("\n\n")
        .filter(|e| !e.trim().is_empty())
        .map(|e| serde_json::from_str(e.trim().strip_prefix("data: ").unwrap()).unwrap())
        .collect()
}

fn rondo_answers() -> Value {
    json!([
        {"question_id": "q-1", "response": {"kind": "chose", "choice_ids": ["c-failing"]}},
        {"question_id": "q-2", "response": {"kind": "wrote", "text": "connectors 화면도"}}
    ])
}

#[tokio::test]
async fn asks_list_open_by_default_and_resolved_on_request_s10_1() {
    let s = server().await;
    let (st, v) = get(&s, ASKS).await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(v["scope"], "fleet");
    assert!(v["keeper"].is_null());
    assert_eq!(v["open_count"], 2);
    let asks = v["asks"].as_array().unwrap();
    assert_eq!(asks.len(), 2);
    for a in asks {
        assert_eq!(a["resolution"], json!({"state": "open"}));
        let qs = a["questions"].as_array().unwrap();
        assert!(!qs.is_empty());
        for q in qs {
            assert!(["single", "multi"].contains(&q["mode"].as_str().unwrap()));
            assert!(q["free_text"]["allowed"].is_boolean());
            assert!(!q["choices"].as_array().unwrap().is_empty());
        }
    }
    let (_, all) = get(&s, &format!("{ASKS}?include_resolved=true")).await;
    let states: Vec<&str> = all["asks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["resolution"]["state"].as_str().unwrap())
        .collect();
    assert!(states.contains(&"answered"));
    assert_eq!(all["open_count"], 2);
    let answered = all["asks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["resolution"]["state"] == "answered")
        .unwrap();
    assert!(answered["resolution"]["answered_at"].is_f64());
    assert_eq!(
        answered["resolution"]["answered_question_ids"],
        json!(["q-1"])
    );

    let (_, one) = get(&s, &format!("{ASKS}?name=rondo")).await;
    assert_eq!(one["scope"], "keeper");
    assert_eq!(one["keeper"], "rondo");
    assert_eq!(one["open_count"], 1);
    let (st, _) = get(&s, &format!("{ASKS}?name=ghost")).await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    s.shutdown().await;
}

#[tokio::test]
async fn answer_first_write_wins_then_409_s10_2() {
    let s = server().await;
    let body = json!({"name": "rondo", "ask_id": "ask-rondo-0412", "answers": rondo_answers()});
    let (a, b) = tokio::join!(
        post(&s, ANSWER, body.clone()),
        post(&s, ANSWER, body.clone())
    );
    let (ok, conflict) = match (a.0, b.0) {
        (StatusCode::OK, StatusCode::CONFLICT) => (a.1, b.1),
        (StatusCode::CONFLICT, StatusCode::OK) => (b.1, a.1),
        other => panic!("one 200 and one 409 expected, got {other:?}"),
    };
    assert_eq!(ok["ok"], true);
    assert_eq!(ok["actor"], "masc-tui");
    assert_eq!(ok["ask_id"], "ask-rondo-0412");
    assert_eq!(ok["answer_count"], 2);
    assert_eq!(ok["open_remaining"], 1);
    assert_eq!(
        conflict,
        json!({"ok": false, "error": "ask_already_resolved", "ask_id": "ask-rondo-0412", "state": "answered"})
    );
    let (_, v) = get(&s, ASKS).await;
    assert_eq!(v["open_count"], 1);
    let (_, all) = get(&s, &format!("{ASKS}?name=rondo&include_resolved=true")).await;
    let ask = &all["asks"][0];
    assert_eq!(ask["resolution"]["state"], "answered");
    assert_eq!(
        ask["resolution"]["answered_question_ids"],
        json!(["q-1", "q-2"])
    );
    // A withdrawn ask also refuses answers.
    let (st, v) = post(
        &s,
        ANSWER,
        json!({"name": "ops-bot", "ask_id": "ask-ops-0377", "answers": [{"question_id": "q-1", "response": {"kind": "skipped"}}]}),
    )
    .await;
    assert_eq!(st, StatusCode::CONFLICT);
    assert_eq!(v["state"], "withdrawn");
    s.shutdown().await;
}

#[tokio::test]
async fn answer_refusals_400_404_change_nothing_s10_2() {
    let s = server().await;
    let a = |answers: Value| json!({"name": "하늘", "ask_id": "ask-sky-0415", "answers": answers});
    for body in [
        a(json!([])),
        a(json!([{"question_id": "q-9", "response": {"kind": "skipped"}}])),
        a(
            json!([{"question_id": "q-1", "response": {"kind": "chose", "choice_ids": ["route-1", "route-2"]}}]),
        ),
        a(json!([{"question_id": "q-1", "response": {"kind": "chose", "choice_ids": ["nope"]}}])),
        a(json!([{"question_id": "q-1", "response": {"kind": "wrote", "text": "  "}}])),
        a(json!([{"question_id": "q-1", "response": {"kind": "guessed"}}])),
        json!({"ask_id": "ask-sky-0415", "answers": []}),
    ] {
        let (st, v) = post(&s, ANSWER, body.clone()).await;
        assert_eq!(st, StatusCode::BAD_REQUEST, "{body}");
        assert!(v["error"].is_string());
    }
    let (st, _) = post(
        &s,
        ANSWER,
        json!({"name": "ghost", "ask_id": "ask-sky-0415", "answers": []}),
    )
    .await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    let (st, _) = post(
        &s,
        ANSWER,
        json!({"name": "rondo", "ask_id": "ask-sky-0415", "answers": []}),
    )
    .await;
    assert_eq!(st, StatusCode::NOT_FOUND, "ask of another keeper");
    let (_, v) = get(&s, ASKS).await;
    assert_eq!(v["open_count"], 2);
    // Free text is allowed on this question.
    let (st, _) = post(
        &s,
        ANSWER,
        a(json!([{"question_id": "q-1", "response": {"kind": "wrote", "text": "세로 두 칸"}}])),
    )
    .await;
    assert_eq!(st, StatusCode::OK);
    s.shutdown().await;
}

#[tokio::test]
async fn answer_dropped_after_apply_is_answered_on_reread_s13() {
    let s = server().await;
    s.set_faults(FaultPlan::single(FaultRule::new(
        "POST",
        ANSWER,
        When::Nth { nth: 1 },
        Fault::Drop {
            drop: DropPoint::AfterApply,
        },
    )));
    let err = req(&s, reqwest::Method::POST, ANSWER)
        .json(&json!({"name": "rondo", "ask_id": "ask-rondo-0412", "answers": rondo_answers()}))
        .send()
        .await
        .err()
        .unwrap();
    assert!(err.status().is_none());
    let (_, v) = get(&s, &format!("{ASKS}?name=rondo&include_resolved=true")).await;
    assert_eq!(v["asks"][0]["resolution"]["state"], "answered");
    let (st, _) = post(
        &s,
        ANSWER,
        json!({"name": "rondo", "ask_id": "ask-rondo-0412", "answers": rondo_answers()}),
    )
    .await;
    assert_eq!(st, StatusCode::CONFLICT, "a resend would find it answered");
    s.shutdown().await;
}

async fn follow_up(
    s: &RunningServer,
    keeper: &str,
    ask: &str,
) -> (StatusCode, reqwest::header::HeaderMap, Vec<Value>) {
    let name = percent_encoding::utf8_percent_encode(keeper, percent_encoding::NON_ALPHANUMERIC);
    let r = req(
        s,
        reqwest::Method::GET,
        &format!("/api/v1/keepers/asks/follow-up?name={name}&ask_id={ask}"),
    )
    .header("Accept", "text/event-stream")
    .send()
    .await
    .unwrap();
    let (status, headers) = (r.status(), r.headers().clone());
    let text = r.text().await.unwrap();
    (status, headers, events(&text))
}

#[tokio::test]
async fn follow_up_stream_order_and_sources_s10_3() {
    let s = server().await;
    let (status, headers, ev) = follow_up(&s, "sangsu", "ask-sangsu-0398").await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    let receipts: Vec<String> = headers
        .get_all("x-masc-workspace-receipt")
        .iter()
        .map(|v| decode_root_header(v.as_bytes()).unwrap())
        .collect();
    assert_eq!(receipts, vec![s.masc_root()]);
    let types: Vec<&str> = ev.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        types,
        [
            "ASK_FOLLOW_UP_STARTED",
            "ASK_FOLLOW_UP_SOURCE",
            "ASK_FOLLOW_UP_SOURCE",
            "ASK_FOLLOW_UP_SOURCE",
            "ASK_FOLLOW_UP_COMPLETED"
        ]
    );
    assert!(
        ev.iter()
            .all(|e| e["ask_id"] == "ask-sangsu-0398" && e["keeper"] == "sangsu")
    );
    assert_eq!(ev[0]["task_id"], "task-1021");
    let mut sources: Vec<&str> = ev[1..4]
        .iter()
        .map(|e| e["source"].as_str().unwrap())
        .collect();
    sources.sort();
    assert_eq!(sources, ["task", "tool_result", "wake"]);
    let by = |name: &str| ev.iter().find(|e| e["source"] == name).unwrap()["observation"].clone();
    let wake = by("wake");
    assert_eq!(wake["state"], "observed");
    assert_eq!(wake["complete"], true);
    let turn_ref = wake["turns"][0]["turn_ref"].as_str().unwrap().to_string();
    let tool = by("tool_result");
    let totals = &tool["totals"];
    let bucket = tool["latest"]["bucket"].as_str().unwrap();
    assert!(
        totals[bucket].as_i64().unwrap() >= 1,
        "latest is counted in its bucket"
    );
    assert_eq!(by("task")["task_id"], "task-1021");
    // The wake turn is retained in the transcript.
    let (_, t) = get(
        &s,
        &format!(
            "/api/v1/keepers/sangsu/turn-transcript?turn_ref={}&version=2",
            percent_encoding::utf8_percent_encode(&turn_ref, percent_encoding::NON_ALPHANUMERIC)
        ),
    )
    .await;
    assert_eq!(t["found"], true);

    // An open ask: nothing woke yet, no tool results, no task.
    let (_, _, ev) = follow_up(&s, "하늘", "ask-sky-0415").await;
    assert!(ev[0]["task_id"].is_null());
    let by = |name: &str| ev.iter().find(|e| e["source"] == name).unwrap()["observation"].clone();
    assert_eq!(by("wake"), json!({"state": "observed_empty"}));
    assert_eq!(by("tool_result")["latest"], Value::Null);
    assert_eq!(by("task"), json!({"state": "unlinked"}));
    // Answering it wakes the keeper: the next follow-up shows the turn.
    let (st, _) = post(&s, ANSWER, json!({"name": "하늘", "ask_id": "ask-sky-0415", "answers": [{"question_id": "q-1", "response": {"kind": "chose", "choice_ids": ["route-4"]}}]})).await;
    assert_eq!(st, StatusCode::OK);
    let (_, _, ev) = follow_up(&s, "하늘", "ask-sky-0415").await;
    let wake = ev.iter().find(|e| e["source"] == "wake").unwrap()["observation"].clone();
    assert_eq!(wake["state"], "observed");
    assert_eq!(wake["turns"][0]["wake_reason"], "ask_answered");
    s.shutdown().await;
}

#[tokio::test]
async fn follow_up_errors_and_faults_s10_3_s13() {
    let s = server().await;
    for (q, status) in [
        ("ask_id=ask-sky-0415", 400),
        ("name=rondo", 400),
        ("name=ghost&ask_id=ask-sky-0415", 404),
        ("name=rondo&ask_id=ask-none", 404),
    ] {
        let (st, v) = get(&s, &format!("/api/v1/keepers/asks/follow-up?{q}")).await;
        assert_eq!(st.as_u16(), status, "{q}");
        assert!(v["error"].is_string());
    }
    s.set_faults(FaultPlan::single(FaultRule::new(
        "GET",
        "/api/v1/keepers/asks/follow-up",
        When::Nth { nth: 1 },
        Fault::SseCut { sse_cut_after: 2 },
    )));
    let (_, _, ev) = follow_up(&s, "sangsu", "ask-sangsu-0398").await;
    assert_eq!(ev.len(), 2, "cut after STARTED and one source");
    assert!(ev.iter().all(|e| e["type"] != "ASK_FOLLOW_UP_COMPLETED"));
    s.set_faults(FaultPlan::single(FaultRule::new(
        "GET",
        "/api/v1/keepers/asks/follow-up",
        When::Nth { nth: 1 },
        Fault::Echo {
            echo: EchoFault::Wrong,
        },
    )));
    let (_, _, ev) = follow_up(&s, "sangsu", "ask-sangsu-0398").await;
    assert_ne!(
        ev[0]["ask_id"], "ask-sangsu-0398",
        "wrong identity in STARTED"
    );
    let (_, _, ev) = follow_up(&s, "sangsu", "ask-sangsu-0398").await;
    assert_eq!(ev[0]["ask_id"], "ask-sangsu-0398");
    s.shutdown().await;
}

#[tokio::test]
async fn turn_transcript_v2_closed_body_and_echoes_s10_4() {
    let s = server().await;
    let url = "/api/v1/keepers/rondo/turn-transcript?turn_ref=trace-rondo%2342&version=2";
    let (st, v) = get(&s, url).await;
    assert_eq!(st, StatusCode::OK);
    let mut keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort();
    assert_eq!(keys, ["found", "keeper", "rows", "schema", "turn_ref"]);
    assert_eq!(v["schema"], "masc.turn_transcript.v2");
    assert_eq!(v["keeper"], "rondo");
    assert_eq!(v["turn_ref"], "trace-rondo#42");
    assert_eq!(v["found"], true);
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert!(rows.iter().all(|r| r["turn_ref"] == "trace-rondo#42"));
    assert!(rows.iter().any(|r| r["kind"] == "request_failure"));
    let (_, none) = get(
        &s,
        "/api/v1/keepers/rondo/turn-transcript?turn_ref=trace-rondo%23999&version=2",
    )
    .await;
    assert_eq!(none["found"], false);
    assert_eq!(none["rows"], json!([]));
    // §15.10: without `version=2` the route answers MASC's version 1.
    let (st, v1) = get(
        &s,
        "/api/v1/keepers/rondo/turn-transcript?turn_ref=trace-rondo%2342",
    )
    .await;
    assert_eq!(st, StatusCode::OK);
    assert!(v1.get("schema").is_none());
    assert_eq!(v1["source"], "keeper_chat_store");
    assert_eq!(v1["found"], true);
    let (st, _) = get(
        &s,
        "/api/v1/keepers/ghost/turn-transcript?turn_ref=x&version=2",
    )
    .await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    s.set_faults(FaultPlan::single(FaultRule::new(
        "GET",
        "/api/v1/keepers/rondo/turn-transcript",
        When::Nth { nth: 1 },
        Fault::Echo {
            echo: EchoFault::Wrong,
        },
    )));
    let (_, bad) = get(&s, url).await;
    assert_ne!(bad["turn_ref"], "trace-rondo#42");
    assert_ne!(bad["keeper"], "rondo");
    s.shutdown().await;
}

/// §10.1: the demo's open Asks cover one question (하늘's), several questions
/// (rondo's), free text allowed (both), and an option label of 3,000 characters.
#[tokio::test]
async fn issue9_item8_demo_asks_one_several_free_text_and_a_3000_character_label_s10_1() {
    let s = server().await;
    let (st, body) = get(&s, ASKS).await;
    assert_eq!(st, StatusCode::OK);
    let asks = body["asks"].as_array().unwrap();
    let ask = |id: &str| {
        asks.iter()
            .find(|a| a["ask_id"] == id)
            .unwrap_or_else(|| panic!("{id} listed"))
            .clone()
    };
    let questions = |a: &Value| a["questions"].as_array().unwrap().clone();
    let free = |q: &Value| q["free_text"]["allowed"] == true;
    let one = ask("ask-sky-0415");
    assert_eq!(questions(&one).len(), 1);
    assert!(free(&questions(&one)[0]));
    let longest = questions(&one)[0]["choices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["label"].as_str().unwrap().chars().count())
        .max()
        .unwrap();
    assert_eq!(longest, 3_000);
    let several = ask("ask-rondo-0412");
    assert_eq!(questions(&several).len(), 2);
    assert!(questions(&several).iter().any(free));
    assert!(questions(&several).iter().any(|q| !free(q)));
    s.shutdown().await;
}

/// §10.3: in the demo's follow-up stream the Tool result arrives before the
/// turn it belongs to (then the Task): a client must show each source as it arrives.
#[tokio::test]
async fn issue9_item8_the_follow_up_sends_the_tool_result_before_the_turn_s10_3() {
    let s = server().await;
    let (status, _, ev) = follow_up(&s, "sangsu", "ask-sangsu-0398").await;
    assert_eq!(status, StatusCode::OK);
    let order: Vec<&str> = ev
        .iter()
        .filter(|e| e["type"] == "ASK_FOLLOW_UP_SOURCE")
        .map(|e| e["source"].as_str().unwrap())
        .collect();
    assert_eq!(order, ["tool_result", "wake", "task"]);
    s.shutdown().await;
}
