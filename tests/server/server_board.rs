//! Board of the embedded server (§8.1–§8.4) through plain reqwest.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::server_support::*;

use masc_tui::server::RunningServer;
use masc_tui::server::faults::{DropPoint, Fault, FaultPlan, FaultRule, When};
use reqwest::StatusCode;
use serde_json::{Value, json};

const BOARD: &str = "/api/v1/board";
const POST: &str = "/api/v1/tools/masc_board_post";

async fn all_posts(s: &RunningServer, query: &str) -> Vec<Value> {
    let mut out = Vec::new();
    let limit = 25;
    let mut offset = 0;
    loop {
        let (_, v) = get(s, &format!("{BOARD}?limit={limit}&offset={offset}{query}")).await;
        assert_eq!(v["offset"], offset);
        assert_eq!(v["limit"], limit);
        let posts = v["posts"].as_array().unwrap().clone();
        assert_eq!(v["count"].as_u64().unwrap() as usize, posts.len());
        let n = posts.len();
        out.extend(posts);
        if n < limit {
            break;
        }
        offset += limit;
    }
    out
}

#[tokio::test]
async fn list_offset_pages_cover_every_post_once_s8_1() {
    let s = server().await;
    let (st, v) = get(&s, BOARD).await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(v["sort_by"], "hot");
    assert_eq!(v["limit"], 50);
    assert_eq!(v["offset"], 0);
    assert!(v.get("total").is_none() && v.get("has_more").is_none());
    let posts = all_posts(&s, "").await;
    assert!(posts.len() >= 55, "{}", posts.len());
    let mut ids: Vec<&str> = posts.iter().map(|p| p["id"].as_str().unwrap()).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), posts.len());
    for p in &posts {
        for k in [
            "id",
            "author",
            "title",
            "votes",
            "comment_count",
            "created_at",
        ] {
            assert!(p.get(k).is_some(), "{k}");
        }
    }
    // Hot: pinned posts first.
    assert_eq!(posts[0]["pinned"], true);
    s.shutdown().await;
}

#[tokio::test]
async fn sort_variants_order_by_their_key_and_unknown_is_hot_s8_1() {
    let s = server().await;
    let key = |p: &Value, k: &str| p[k].as_f64().unwrap();
    let recent = all_posts(&s, "&sort_by=recent").await;
    assert!(
        recent
            .windows(2)
            .all(|w| key(&w[0], "created_at") >= key(&w[1], "created_at"))
    );
    let updated = all_posts(&s, "&sort_by=updated").await;
    assert!(
        updated
            .windows(2)
            .all(|w| key(&w[0], "updated_at") >= key(&w[1], "updated_at"))
    );
    let discussed = all_posts(&s, "&sort_by=discussed").await;
    assert!(
        discussed
            .windows(2)
            .all(|w| key(&w[0], "comment_count") >= key(&w[1], "comment_count"))
    );
    let (_, t) = get(&s, &format!("{BOARD}?sort_by=trending")).await;
    assert_eq!(t["sort_by"], "trending");
    let (_, u) = get(&s, &format!("{BOARD}?sort_by=sideways")).await;
    assert_eq!(u["sort_by"], "hot");
    assert_ne!(
        recent[0]["id"], discussed[0]["id"],
        "sorts differ on seeded data"
    );
    s.shutdown().await;
}

#[tokio::test]
async fn hearth_filter_and_census_agree_s8_1_s8_3() {
    let s = server().await;
    let (st, census) = get(&s, &format!("{BOARD}/hearths")).await;
    assert_eq!(st, StatusCode::OK);
    let rows = census["hearths"].as_array().unwrap();
    assert!(rows.len() >= 4);
    assert!(
        rows.windows(2)
            .all(|w| w[0]["count"].as_i64() >= w[1]["count"].as_i64())
    );
    let all = all_posts(&s, "").await;
    let with_hearth = all.iter().filter(|p| !p["hearth"].is_null()).count() as i64;
    let counted: i64 = rows.iter().map(|r| r["count"].as_i64().unwrap()).sum();
    assert_eq!(counted, with_hearth, "census over the whole board");
    assert!(with_hearth < all.len() as i64, "some posts have no hearth");
    let top = rows[0]["name"].as_str().unwrap();
    let filtered = all_posts(&s, &format!("&hearth={top}")).await;
    assert_eq!(filtered.len() as i64, rows[0]["count"].as_i64().unwrap());
    assert!(filtered.iter().all(|p| p["hearth"] == top));
    // exclude flags apply to the census and the list alike.
    let (_, no_auto) = get(&s, &format!("{BOARD}/hearths?exclude_automation=true")).await;
    let c2: i64 = no_auto["hearths"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["count"].as_i64().unwrap())
        .sum();
    let list2 = all_posts(&s, "&exclude_automation=true").await;
    assert!(list2.iter().all(|p| p["post_kind"] != "automation"));
    assert_eq!(
        c2,
        list2.iter().filter(|p| !p["hearth"].is_null()).count() as i64
    );
    assert!(c2 < counted);
    s.shutdown().await;
}

#[tokio::test]
async fn detail_flat_and_nested_with_comments_s8_2() {
    let s = server().await;
    let posts = all_posts(&s, "&sort_by=discussed").await;
    let id = posts[0]["id"].as_str().unwrap();
    let n = posts[0]["comment_count"].as_u64().unwrap() as usize;
    assert!(n > 0);
    let (st, flat) = get(&s, &format!("{BOARD}/{id}?format=flat")).await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(flat["id"], id);
    assert!(flat["body"].is_string());
    let comments = flat["comments"].as_array().unwrap();
    assert_eq!(comments.len(), n);
    for c in comments {
        assert_eq!(c["post_id"], id);
        assert!(c.as_object().unwrap().contains_key("parent_id"));
        for k in ["id", "author", "content", "created_at"] {
            assert!(c.get(k).is_some());
        }
    }
    let (_, nested) = get(&s, &format!("{BOARD}/{id}")).await;
    assert_eq!(nested["post"]["id"], id);
    assert_eq!(nested["comments"], flat["comments"]);
    let (st, v) = get(&s, &format!("{BOARD}/post-9999?format=flat")).await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    assert_eq!(v, json!({"error": "Post not found: post-9999"}));
    s.shutdown().await;
}

#[tokio::test]
async fn create_post_is_201_tool_envelope_and_not_idempotent_s8_4() {
    let s = server().await;
    let body = json!({"title": "야간 검증 완료", "body": "All green.", "hearth": "verification"});
    let mut ids = Vec::new();
    for _ in 0..2 {
        let r = req(&s, reqwest::Method::POST, POST)
            .header("X-Gate-Agent", "rondo")
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::CREATED);
        let v: Value = r.json().await.unwrap();
        assert_eq!(v["ok"], true);
        let post: Value = serde_json::from_str(v["message"].as_str().unwrap()).unwrap();
        assert_eq!(post["title"], "야간 검증 완료");
        assert_eq!(post["author"], "rondo");
        assert_eq!(post["hearth"], "verification");
        ids.push(post["id"].as_str().unwrap().to_string());
    }
    assert_ne!(ids[0], ids[1], "two sends, two posts");
    let (_, recent) = get(&s, &format!("{BOARD}?sort_by=recent&limit=2")).await;
    let got: Vec<&str> = recent["posts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    assert!(got.contains(&ids[0].as_str()) && got.contains(&ids[1].as_str()));
    let (_, d) = get(&s, &format!("{BOARD}/{}?format=flat", ids[0])).await;
    assert_eq!(d["body"], "All green.");
    // `content` is accepted for `body`; the author falls back to X-MASC-Agent.
    let r = req(&s, reqwest::Method::POST, POST)
        .json(&json!({"title": "t", "content": "c"}))
        .send()
        .await
        .unwrap();
    let v: Value = r.json().await.unwrap();
    let post: Value = serde_json::from_str(v["message"].as_str().unwrap()).unwrap();
    assert_eq!(post["author"], "masc-tui");
    assert!(post["hearth"].is_null());
    s.shutdown().await;
}

#[tokio::test]
async fn create_post_errors_are_400_tool_envelope_s8_4() {
    let s = server().await;
    let before = all_posts(&s, "").await.len();
    for (body, msg) in [
        (json!({"body": "x"}), "title is required"),
        (json!({"title": "  ", "body": "x"}), "title is required"),
        (json!({"title": "x"}), "body is required"),
    ] {
        let r = req(&s, reqwest::Method::POST, POST)
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::BAD_REQUEST);
        assert_eq!(
            r.json::<Value>().await.unwrap(),
            json!({"ok": false, "message": msg})
        );
    }
    let r = req(&s, reqwest::Method::POST, POST)
        .header("Content-Type", "application/json")
        .body("{oops")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    let v: Value = r.json().await.unwrap();
    assert!(v["message"].as_str().unwrap().starts_with("invalid json"));
    assert_eq!(all_posts(&s, "").await.len(), before);
    s.shutdown().await;
}

#[tokio::test]
async fn post_dropped_after_apply_exists_on_reread_s13() {
    let s = server().await;
    let before = all_posts(&s, "").await.len();
    s.set_faults(FaultPlan::single(FaultRule::new(
        "POST",
        POST,
        When::Nth { nth: 1 },
        Fault::Drop {
            drop: DropPoint::AfterApply,
        },
    )));
    let err = req(&s, reqwest::Method::POST, POST)
        .json(&json!({"title": "dropped reply", "body": "b"}))
        .send()
        .await
        .err()
        .unwrap();
    assert!(err.status().is_none(), "{err:?}");
    let after = all_posts(&s, "").await;
    assert_eq!(after.len(), before + 1);
    assert!(after.iter().any(|p| p["title"] == "dropped reply"));

    // Dropped before applying: nothing written.
    s.set_faults(FaultPlan::single(FaultRule::new(
        "POST",
        POST,
        When::Nth { nth: 1 },
        Fault::Drop {
            drop: DropPoint::BeforeApply,
        },
    )));
    assert!(
        req(&s, reqwest::Method::POST, POST)
            .json(&json!({"title": "never", "body": "b"}))
            .send()
            .await
            .is_err()
    );
    let again = all_posts(&s, "").await;
    assert_eq!(again.len(), before + 1);
    assert!(!again.iter().any(|p| p["title"] == "never"));
    s.shutdown().await;
}

#[tokio::test]
async fn census_failing_while_posts_succeed_s13() {
    let s = server().await;
    s.set_faults(FaultPlan::single(FaultRule::new(
        "GET",
        "/api/v1/board/hearths",
        When::Every { every: true },
        Fault::Status {
            status: 500,
            body: Some(json!({"error": "census failed"})),
        },
    )));
    let (st, _) = get(&s, &format!("{BOARD}/hearths")).await;
    assert_eq!(st, StatusCode::INTERNAL_SERVER_ERROR);
    let (st, v) = get(&s, BOARD).await;
    assert_eq!(st, StatusCode::OK);
    assert!(!v["posts"].as_array().unwrap().is_empty());
    s.shutdown().await;
}

const VOTE: &str = "/api/v1/tools/masc_board_vote";

async fn vote_as(
    s: &RunningServer,
    agent: &str,
    post_id: &str,
    direction: &str,
) -> (StatusCode, Value) {
    let r = req(s, reqwest::Method::POST, VOTE)
        .header("X-Gate-Agent", agent)
        .json(&json!({"post_id": post_id, "direction": direction}))
        .send()
        .await
        .unwrap();
    (r.status(), r.json().await.unwrap())
}

async fn votes_of(s: &RunningServer, id: &str) -> i64 {
    get(s, &format!("{BOARD}/{id}?format=flat")).await.1["votes"]
        .as_i64()
        .unwrap()
}

/// §15.6: one vote per (voter, post) — recorded, the same direction again is the idempotent
/// 200, the other direction flips (+1 / −1); each voter has its own; the voter is the request
/// actor, never the body.
#[tokio::test]
async fn votes_are_one_per_voter_with_the_flip_rule_s15_6() {
    let s = server().await;
    let id = "post-1001";
    let before = votes_of(&s, id).await;
    let (st, v) = vote_as(&s, "masc-tui", id, " UP ").await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(
        v,
        json!({"ok": true, "message": format!("↑ Vote recorded. New score: {:+}", before + 1)})
    );
    let (st, v) = vote_as(&s, "masc-tui", id, "up").await;
    assert_eq!(st, StatusCode::OK);
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .starts_with("↑ Already voted (idempotent).")
    );
    assert_eq!(votes_of(&s, id).await, before + 1);
    vote_as(&s, "mira", id, "up").await;
    assert_eq!(votes_of(&s, id).await, before + 2);
    let (_, v) = vote_as(&s, "masc-tui", id, "down").await;
    assert_eq!(
        v["message"],
        format!("↓ Vote recorded. New score: {:+}", before)
    );
    assert_eq!(votes_of(&s, id).await, before);
    s.shutdown().await;
}

/// §15.6: the detail read with `voter=` adds `current_vote` / `has_voted` to the post and to
/// every comment; without it neither key is sent.
#[tokio::test]
async fn the_detail_with_voter_shows_that_voters_vote_s15_6() {
    let s = server().await;
    let id = "post-1002";
    vote_as(&s, "masc-tui", id, "down").await;
    let (_, d) = get(&s, &format!("{BOARD}/{id}?format=flat&voter=masc-tui")).await;
    assert_eq!(
        (d["current_vote"].clone(), d["has_voted"].clone()),
        (json!("down"), json!(true))
    );
    for c in d["comments"].as_array().unwrap() {
        assert_eq!(
            (c["current_vote"].clone(), c["has_voted"].clone()),
            (Value::Null, json!(false))
        );
    }
    let (_, other) = get(&s, &format!("{BOARD}/{id}?format=flat&voter=mira")).await;
    assert_eq!(
        (other["current_vote"].clone(), other["has_voted"].clone()),
        (Value::Null, json!(false))
    );
    let (_, plain) = get(&s, &format!("{BOARD}/{id}?format=flat")).await;
    assert!(plain.get("current_vote").is_none() && plain.get("has_voted").is_none());
    s.shutdown().await;
}

/// §15.6: refusals are 400 `{ok:false}` and change nothing.
#[tokio::test]
async fn vote_refusals_are_400_tool_envelopes_s15_6() {
    let s = server().await;
    let before = votes_of(&s, "post-1003").await;
    for (body, start) in [
        (json!({"post_id": "post-1003"}), "vote direction required"),
        (
            json!({"post_id": "post-1003", "direction": "x"}),
            "invalid vote direction \"x\"",
        ),
        (
            json!({"post_id": "post-0", "direction": "up"}),
            "Post not found: post-0",
        ),
        (json!({"direction": "up"}), "Invalid ID"),
    ] {
        let (st, v) = post(&s, VOTE, body).await;
        assert_eq!(st, StatusCode::BAD_REQUEST);
        assert_eq!(v["ok"], false);
        assert!(v["message"].as_str().unwrap().starts_with(start), "{v}");
    }
    let r = req(&s, reqwest::Method::POST, VOTE)
        .header("Content-Type", "application/json")
        .body("{oops")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    let v: Value = r.json().await.unwrap();
    assert!(v["message"].as_str().unwrap().starts_with("Invalid JSON"));
    assert_eq!(votes_of(&s, "post-1003").await, before);
    s.shutdown().await;
}

/// §15.14: `answer_after_apply` answers a 2xx that is not the tool envelope after the vote was
/// stored; the wrong-echo fault answers the other direction's arrow.
#[tokio::test]
async fn vote_faults_apply_then_answer_off_shape_s15_14() {
    let s = server().await;
    let before = votes_of(&s, "post-1004").await;
    s.set_faults(FaultPlan::single(FaultRule::new(
        "POST",
        VOTE,
        When::Nth { nth: 1 },
        Fault::AnswerAfterApply {
            answer_after_apply: masc_tui::server::faults::InjectedAnswer {
                status: 200,
                body: Some(json!({"voted": true})),
            },
        },
    )));
    let (st, v) = vote_as(&s, "masc-tui", "post-1004", "up").await;
    assert_eq!((st, v), (StatusCode::OK, json!({"voted": true})));
    assert_eq!(votes_of(&s, "post-1004").await, before + 1);
    s.set_faults(
        FaultPlan::from_json(&format!(
            r#"{{"rules":[{{"match":{{"path":"{VOTE}"}},"fault":{{"echo":"wrong"}}}}]}}"#
        ))
        .unwrap(),
    );
    let (_, v) = vote_as(&s, "masc-tui", "post-1004", "down").await;
    assert!(v["message"].as_str().unwrap().starts_with('↑'), "{v}");
    s.shutdown().await;
}
