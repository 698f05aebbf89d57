//! Goal actions of the embedded server (protocol-15-operator.md §15.4, §15.13, §15.14) through
//! plain reqwest: the transition table over the seeded goals, both reply envelopes (the tool's
//! JSON as text in `message`), the error codes, and what planning reads afterwards.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::server_support::*;

use masc_tui::server::compat::MascRelease;
use masc_tui::server::faults::{Fault, FaultPlan, FaultRule, When};
use masc_tui::server::{ServeOptions, start};
use reqwest::StatusCode;
use serde_json::{Value, json};

const TRANSITION: &str = "/api/v1/tools/masc_goal_transition";

/// The status, `ok`, and the tool's JSON parsed out of `message` (plain text kept as a string).
async fn act(s: &masc_tui::server::RunningServer, body: Value) -> (StatusCode, bool, Value) {
    let (st, v) = post(s, TRANSITION, body).await;
    let text = v["message"].as_str().unwrap().to_string();
    let inner = serde_json::from_str(&text).unwrap_or(Value::String(text));
    (st, v["ok"].as_bool().unwrap(), inner)
}

async fn phase(s: &masc_tui::server::RunningServer, goal_id: &str) -> Value {
    let (_, v) = get(s, "/api/v1/dashboard/planning").await;
    v["goals"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["id"] == goal_id)
        .unwrap()
        .clone()
}

/// §15.4: moves with the reply's goal and proof request; `noop` when already there; the note
/// becomes `last_review_note`; planning reads the new phase.
#[tokio::test]
async fn transitions_move_or_answer_noop_s15_4() {
    let s = server().await;
    let (st, ok, m) = act(
        &s,
        json!({"goal_id": "goal-1", "action": "request_complete", "note": "ready for proof"}),
    )
    .await;
    assert_eq!((st, ok), (StatusCode::OK, true));
    assert_eq!(
        (
            m["status"].clone(),
            m["goal_id"].clone(),
            m["action"].clone()
        ),
        (json!("ok"), json!("goal-1"), json!("request_complete"))
    );
    assert_eq!(m["goal"]["phase"], "verifying");
    assert_eq!(m["verification"]["completion"]["state"], "proof_pending");
    assert!(m.get("noop").is_none());
    let g = phase(&s, "goal-1").await;
    assert_eq!(
        (g["phase"].clone(), g["last_review_note"].clone()),
        (json!("verifying"), json!("ready for proof"))
    );
    // Verifying: request_complete again re-arms the proof — already, nothing written.
    let (st, ok, m) = act(
        &s,
        json!({"goal_id": "goal-1", "action": "request_complete"}),
    )
    .await;
    assert_eq!((st, ok), (StatusCode::OK, true));
    assert_eq!(
        (m["noop"].clone(), m["phase"].clone()),
        (json!(true), json!("verifying"))
    );
    // Completed → executing on reopen.
    let (_, _, m) = act(&s, json!({"goal_id": "goal-6", "action": "reopen"})).await;
    assert_eq!(m["goal"]["phase"], "executing");
    s.shutdown().await;
}

/// §15.4: an invalid transition is `conflict` with MASC's words; an unknown goal `not_found`;
/// missing or unknown fields `validation_error` with field errors; a body that is not JSON
/// the plain-text `Invalid JSON: …`. All 400 `{ok:false}`, nothing moved.
#[tokio::test]
async fn refusals_carry_their_error_codes_s15_4() {
    let s = server().await;
    let (st, ok, m) = act(
        &s,
        json!({"goal_id": "goal-8", "action": "request_complete"}),
    )
    .await;
    assert_eq!((st, ok), (StatusCode::BAD_REQUEST, false));
    assert_eq!(
        m,
        json!({"status": "error", "error_code": "conflict",
            "message": "invalid goal transition: dropped -> request_complete"})
    );
    let (_, _, m) = act(&s, json!({"goal_id": "goal-0", "action": "drop"})).await;
    assert_eq!(m["error_code"], "not_found");
    let (_, _, m) = act(&s, json!({"action": "pause"})).await;
    assert_eq!(m["error_code"], "validation_error");
    assert_eq!(m["message"], "2 field error(s)");
    let fields: Vec<&str> = m["field_errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields, ["goal_id", "action"]);
    let r = req(&s, reqwest::Method::POST, TRANSITION)
        .header("Content-Type", "application/json")
        .body("{oops")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    let v: Value = r.json().await.unwrap();
    assert!(v["message"].as_str().unwrap().starts_with("Invalid JSON: "));
    assert_eq!(phase(&s, "goal-8").await["phase"], "dropped");
    s.shutdown().await;
}

/// §15.14: the wrong-echo fault names another goal inside `message` (the goal still moved).
#[tokio::test]
async fn a_wrong_echo_names_another_goal_s15_14() {
    let s = server().await;
    s.set_faults(FaultPlan::single(FaultRule::new(
        "POST",
        TRANSITION,
        When::Every { every: true },
        Fault::Echo {
            echo: masc_tui::server::faults::EchoFault::Wrong,
        },
    )));
    let (_, _, m) = act(&s, json!({"goal_id": "goal-5", "action": "drop"})).await;
    assert_eq!(m["goal_id"], "goal-5-wrong-echo");
    assert_eq!(phase(&s, "goal-5").await["phase"], "dropped");
    s.shutdown().await;
}

/// §15.4: the REST route is newer MASC — MASC v0.24.0 answers its unknown-route 404.
#[tokio::test]
async fn masc_v0_24_0_does_not_serve_the_route_s15_4() {
    let s = start(ServeOptions {
        compat: Some(MascRelease::V0_24_0),
        ..ServeOptions::default()
    })
    .await
    .unwrap();
    let r = req(&s, reqwest::Method::POST, TRANSITION)
        .json(&json!({"goal_id": "goal-1", "action": "drop"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    assert_eq!(r.text().await.unwrap(), "404 Not Found");
    s.shutdown().await;
}
