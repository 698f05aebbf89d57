//! Keeper operations on the embedded server over plain HTTP (protocol.md §14.1 resume, §14.7):
//! the resume's `owner_nonce` must be the generation §14.7 serves, and its operation id is a
//! receipt (the same id again: already committed; the same id for another Keeper: other input).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code
use crate::server_support::{get, post, server};
use reqwest::StatusCode;
use serde_json::json;

/// §14.1, §14.7: a resume with another generation is a 409 that changes nothing; with the
/// generation §14.7 serves it commits (the pause is lifted); the same operation id again
/// answers `already_committed`; the same id for another Keeper is a 409 (a receipt for other
/// input); a Keeper that is not paused is a 409.
#[tokio::test]
async fn s14_1_resume_checks_the_generation_and_keeps_its_receipt() {
    let s = server().await;
    let (st, _) = post(
        &s,
        "/api/v1/keepers/sangsu/directive",
        json!({"action": "pause"}),
    )
    .await;
    assert_eq!(st, StatusCode::OK);
    let (st, status) = get(&s, "/api/v1/gate/keeper-status?name=sangsu").await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(status["paused"], json!(true));
    let generation = status["meta"]["generation"].as_u64().unwrap();

    let resume = |nonce: u64, op: &str| json!({"action": "resume", "owner_nonce": nonce, "operator_operation_id": op});
    let (st, body) = post(
        &s,
        "/api/v1/keepers/sangsu/directive",
        resume(generation + 1, "tui-resume-a"),
    )
    .await;
    assert_eq!(st, StatusCode::CONFLICT, "{body}");
    assert_eq!(body["committed"], json!(false));
    let (_, status) = get(&s, "/api/v1/gate/keeper-status?name=sangsu").await;
    assert_eq!(status["paused"], json!(true), "nothing changed");

    let (st, body) = post(
        &s,
        "/api/v1/keepers/sangsu/directive",
        resume(generation, "tui-resume-b"),
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{body}");
    assert_eq!(body["commit_status"], json!("committed"));
    assert_eq!(body["receipt"]["expected_generation"], json!(generation));
    let (_, status) = get(&s, "/api/v1/gate/keeper-status?name=sangsu").await;
    assert_eq!(status["paused"], json!(false));

    let (st, body) = post(
        &s,
        "/api/v1/keepers/sangsu/directive",
        resume(generation, "tui-resume-b"),
    )
    .await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(body["commit_status"], json!("already_committed"));
    let (st, _) = post(
        &s,
        "/api/v1/keepers/rondo/directive",
        resume(7, "tui-resume-b"),
    )
    .await;
    assert_eq!(st, StatusCode::CONFLICT, "a receipt for other input");
    let (st, body) = post(
        &s,
        "/api/v1/keepers/sangsu/directive",
        resume(generation, "tui-resume-c"),
    )
    .await;
    assert_eq!(st, StatusCode::CONFLICT, "not paused: {body}");
    s.shutdown().await;
}
