//! Runtime and keeper configuration of the embedded server (§9.1–§9.9) through plain reqwest.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::server_support::*;

use masc_tui::server::faults::{DropPoint, Fault, FaultPlan, FaultRule, When};
use reqwest::StatusCode;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

const RAW: &str = "/api/v1/runtime/config/raw";
const ASSIGN: &str = "/api/v1/runtime/config/assignment";

fn revision_of(text: &str) -> String {
    let mut h = Sha256::new();
    h.update(b"runtime_config_source");
    h.update([0u8]);
    h.update(text.as_bytes());
    hex::encode(h.finalize())
}

fn config_url(name: &str) -> String {
    format!(
        "/api/v1/keepers/{}/config",
        percent_encoding::utf8_percent_encode(name, percent_encoding::NON_ALPHANUMERIC)
    )
}

#[tokio::test]
async fn resolved_catalogue_lanes_assignments_usage_s9_1() {
    let s = server().await;
    let (st, v) = get(&s, "/api/v1/runtime/resolved").await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(v["source"], "/api/v1/runtime/resolved");
    assert_eq!(
        v["config_path"],
        format!("{}/config/runtime.toml", s.base_path()).as_str()
    );
    let runtimes = v["runtimes"].as_array().unwrap();
    assert_eq!(runtimes.len(), 6);
    for r in runtimes {
        let id = r["id"].as_str().unwrap();
        assert_eq!(
            id,
            format!(
                "{}.{}",
                r["provider_id"].as_str().unwrap(),
                r["model"].as_str().unwrap()
            )
        );
        assert!(r["effective_max_context"].is_i64());
        for k in ["is_local", "is_default", "quota_exhausted", "rate_limited"] {
            assert!(r[k].is_boolean(), "{k}");
        }
    }
    assert_eq!(
        runtimes.iter().filter(|r| r["is_default"] == true).count(),
        1
    );
    assert_eq!(v["default_runtime"]["id"], "anthropic.claude-sonnet-4");
    assert!(
        v["lanes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l["declared"] == true)
    );
    let assignments = v["assignments"].as_array().unwrap();
    assert_eq!(assignments.len(), 8, "one per roster keeper");
    let of = |k: &str| {
        assignments
            .iter()
            .find(|a| a["keeper"] == k)
            .unwrap()
            .clone()
    };
    assert_eq!(of("rondo")["assignment_source"], "explicit");
    assert_eq!(
        of("rondo")["resolved"],
        json!({"kind": "lane", "id": "primary"})
    );
    assert_eq!(of("sangsu")["assignment_source"], "default");
    assert_eq!(of("scout")["resolved"]["kind"], "unavailable");
    assert!(of("scout")["resolved"]["reason"].is_object());
    let usage = v["provider_usage_windows"].as_array().unwrap();
    assert!(
        usage
            .iter()
            .any(|a| a["state"] == "reported" && !a["windows"].as_array().unwrap().is_empty())
    );
    assert!(
        usage
            .iter()
            .any(|a| a["state"] == "not_reported_since_start"
                && a["windows"].as_array().unwrap().is_empty())
    );
    assert!(v["provider_usage_windows_since"].is_f64());
    s.shutdown().await;
}

#[tokio::test]
async fn raw_read_revision_and_model_bindings_s9_2() {
    let s = server().await;
    let (st, v) = get(&s, RAW).await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(v["ok"], true);
    assert_eq!(v["file_name"], "runtime.toml");
    let text = v["source_text"].as_str().unwrap();
    let rev = v["source_revision"].as_str().unwrap();
    assert_eq!(rev, revision_of(text));
    assert!(
        rev.len() == 64
            && rev
                .chars()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
    );
    assert_eq!(v["validation"]["valid"], true);
    assert!(
        !v["validation"]["issues"].as_array().unwrap().is_empty(),
        "seeded warning"
    );
    let mb = &v["model_bindings"];
    assert_eq!(mb["state"], "ready");
    assert_eq!(mb["path"], v["path"]);
    assert_eq!(mb["source_revision"], v["source_revision"]);
    assert_eq!(mb["bindings"].as_array().unwrap().len(), 6);
    let mut keys: Vec<&str> = mb["bindings"][1]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "max_context_override",
            "model_id",
            "provider_id",
            "runtime_id"
        ]
    );
    assert_eq!(v["application"]["operation"], "read");
    assert!(v["account_groups"].is_array());
    let emails = v["account_emails"].as_array().unwrap();
    assert!(
        emails
            .iter()
            .any(|e| e["state"] == "read" && e["email"].is_string())
    );
    assert!(
        emails
            .iter()
            .any(|e| e["state"] == "not_read" && e["cause"].is_string())
    );
    s.shutdown().await;
}

#[tokio::test]
async fn preview_validates_and_never_writes_s9_3() {
    let s = server().await;
    let (_, before) = get(&s, RAW).await;
    let text = before["source_text"].as_str().unwrap();
    let url = format!("{RAW}/preview");
    let (st, v) = post(&s, &url, json!({"source_text": text})).await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(v["can_save"], true);
    assert!(v["runtime_validation"].is_null());
    let broken = text.replace(
        "default = \"anthropic.claude-sonnet-4\"",
        "default = \"nope.model\"",
    );
    let (st, v) = post(&s, &url, json!({"source_text": broken})).await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(v["can_save"], false);
    assert_eq!(v["validation"]["valid"], false);
    assert!(v["runtime_validation"].is_string());
    let (st, v) = post(&s, &url, json!({"source_text": "[runtime\n"})).await;
    assert_eq!(st, StatusCode::BAD_REQUEST);
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .starts_with("runtime config parse failed: ")
    );
    let (st, v) = post(&s, &url, json!({})).await;
    assert_eq!(
        (st, v),
        (
            StatusCode::BAD_REQUEST,
            json!({"error": "source_text required"})
        )
    );
    let (_, after) = get(&s, RAW).await;
    assert_eq!(after["source_revision"], before["source_revision"]);
    s.shutdown().await;
}

#[tokio::test]
async fn save_cas_one_writer_wins_other_gets_consistent_409_s9_4() {
    let s = server().await;
    let (_, base) = get(&s, RAW).await;
    let text = base["source_text"].as_str().unwrap().to_string();
    let rev = base["source_revision"].as_str().unwrap().to_string();
    let tag = req(&s, reqwest::Method::GET, RAW)
        .send()
        .await
        .unwrap()
        .headers()["etag"]
        .clone();
    let a = format!("{text}\n# writer A\n");
    let b = format!("{text}\n# writer B\n");
    let (ra, rb) = tokio::join!(
        post(
            &s,
            RAW,
            json!({"source_text": a, "expected_source_revision": rev})
        ),
        post(
            &s,
            RAW,
            json!({"source_text": b, "expected_source_revision": rev})
        ),
    );
    let (winner, loser) = match (ra.0, rb.0) {
        (StatusCode::OK, StatusCode::CONFLICT) => ((ra.1, &a), rb.1),
        (StatusCode::CONFLICT, StatusCode::OK) => ((rb.1, &b), ra.1),
        other => panic!("expected one 200 and one 409, got {other:?}"),
    };
    let (receipt, won_text) = winner;
    assert_eq!(receipt["ok"], true);
    assert_eq!(receipt["state"], "committed");
    assert_eq!(
        receipt["commit"]["source_revision"],
        revision_of(won_text).as_str()
    );
    assert_eq!(receipt["commit"]["durability"], "durable");
    assert!(
        receipt["commit"]["order"]
            .as_str()
            .unwrap()
            .parse::<u64>()
            .is_ok()
    );
    assert_eq!(receipt["application"]["operation"], "raw_save");
    assert_eq!(loser["code"], "revision_conflict");
    assert!(loser["error"].is_string());
    let current = &loser["current"];
    assert!(!current["source_path"].as_str().unwrap().is_empty());
    assert_eq!(
        current["source_revision"].as_str().unwrap(),
        revision_of(current["source_text"].as_str().unwrap()),
        "self-consistent current"
    );
    assert_eq!(current["source_text"].as_str().unwrap(), won_text.as_str());
    let r = req(&s, reqwest::Method::GET, RAW).send().await.unwrap();
    assert_ne!(r.headers()["etag"], tag);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["source_text"].as_str().unwrap(), won_text.as_str());
    // Resending with the now-current revision succeeds.
    let (st, _) = post(
        &s,
        RAW,
        json!({"source_text": text, "expected_source_revision": v["source_revision"]}),
    )
    .await;
    assert_eq!(st, StatusCode::OK);
    s.shutdown().await;
}

#[tokio::test]
async fn save_refusals_are_400_and_write_nothing_s9_4() {
    let s = server().await;
    let (_, base) = get(&s, RAW).await;
    let rev = base["source_revision"].clone();
    let (st, v) = post(
        &s,
        RAW,
        json!({"source_text": "[[models]\n", "expected_source_revision": rev}),
    )
    .await;
    assert_eq!(st, StatusCode::BAD_REQUEST);
    assert!(v["error"].is_string());
    let bad = base["source_text"]
        .as_str()
        .unwrap()
        .replace("runtime = \"local.qwen3-32b\"", "runtime = \"ghost.model\"");
    let (st, v) = post(
        &s,
        RAW,
        json!({"source_text": bad, "expected_source_revision": rev}),
    )
    .await;
    assert_eq!(st, StatusCode::BAD_REQUEST);
    assert_eq!(v["ok"], false);
    assert_eq!(v["validation"]["valid"], false);
    let (st, v) = post(&s, RAW, json!({"expected_source_revision": rev})).await;
    assert_eq!(
        (st, v["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("source_text required"))
    );
    let (_, after) = get(&s, RAW).await;
    assert_eq!(after["source_revision"], rev);
    s.shutdown().await;
}

#[tokio::test]
async fn keeper_config_composite_revision_s9_5() {
    let s = server().await;
    let (st, v) = get(&s, &config_url("rondo")).await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(v["name"], "rondo");
    let stored: String = s
        .state()
        .store()
        .read(|c| {
            Ok(c.query_row(
                "SELECT manifest_text FROM keeper_manifests WHERE name = 'rondo'",
                [],
                |r| r.get(0),
            )?)
        })
        .await
        .unwrap();
    let rev = &v["config_revision"];
    assert_eq!(rev["manifest"]["state"], "sha256");
    assert_eq!(
        rev["manifest"]["value"],
        hex::encode(Sha256::digest(stored.as_bytes())).as_str()
    );
    let (_, raw) = get(&s, RAW).await;
    assert_eq!(rev["runtime_assignment"]["state"], "runtime_config_present");
    assert_eq!(
        rev["runtime_assignment"]["source_revision"],
        raw["source_revision"]
    );
    assert_eq!(
        rev["runtime_assignment"]["assignment"],
        json!({"state": "assigned", "runtime_id": "anthropic.claude-opus-5"})
    );
    assert_eq!(
        v["execution"]["selected_runtime_id"],
        "anthropic.claude-opus-5"
    );
    assert!(v["workspace"]["mention_targets"].is_array());
    assert!(v["skills"]["names"].is_array());
    assert!(v["prompt"]["instructions"].is_string());

    let (_, sangsu) = get(&s, &config_url("sangsu")).await;
    assert_eq!(
        sangsu["config_revision"]["runtime_assignment"]["assignment"],
        json!({"state": "missing"})
    );
    assert!(sangsu["skills"]["names"].is_null(), "null = all published");
    let (_, beacon) = get(&s, &config_url("beacon")).await;
    assert_eq!(
        beacon["config_revision"]["manifest"],
        json!({"state": "missing"})
    );
    let (_, juno) = get(&s, &config_url("juno")).await;
    assert_eq!(juno["config_revision"]["state"], "unavailable");
    let (_, sky) = get(&s, &config_url("하늘")).await;
    assert_eq!(sky["sandbox_profile"], "microvm");
    let (st, v) = get(&s, &config_url("ghost")).await;
    assert_eq!(
        (st, v),
        (
            StatusCode::NOT_FOUND,
            json!({"error": "keeper \"ghost\" not found"})
        )
    );
    s.shutdown().await;
}

#[tokio::test]
async fn keeper_config_patch_cas_conflict_and_unchanged_s9_6() {
    let s = server().await;
    let url = config_url("sangsu");
    let (_, v) = get(&s, &url).await;
    let rev = v["config_revision"].clone();
    let (ra, rb) = tokio::join!(
        post(
            &s,
            &url,
            json!({"expected_config_revision": rev, "autoboot_enabled": true})
        ),
        post(
            &s,
            &url,
            json!({"expected_config_revision": rev, "instructions": "둘째 작성자"})
        ),
    );
    let (ok, conflict) = match (ra.0, rb.0) {
        (StatusCode::OK, StatusCode::CONFLICT) => (ra.1, rb.1),
        (StatusCode::CONFLICT, StatusCode::OK) => (rb.1, ra.1),
        other => panic!("expected one 200 and one 409, got {other:?}"),
    };
    assert_eq!(ok["config_write"]["applied"], true);
    assert_ne!(ok["config_write"]["revision"], rev);
    assert_eq!(ok["config_write"]["revision"], ok["config_revision"]);
    assert_eq!(conflict["ok"], false);
    assert_eq!(conflict["keeper"], "sangsu");
    assert_eq!(conflict["config_applied"], false);
    assert_eq!(conflict["error"]["code"], "keeper_config_revision_conflict");
    assert_eq!(conflict["error"]["expected"], rev);
    assert_eq!(conflict["error"]["observed"], ok["config_revision"]);
    let (_, reread) = get(&s, &url).await;
    assert_eq!(reread["config_revision"], ok["config_revision"]);

    // The same value again: 200, applied false, revision unchanged.
    let cur = reread["config_revision"].clone();
    let same = json!({"expected_config_revision": cur, "network_mode": reread["network_mode"]});
    let (st, v) = post(&s, &url, same.clone()).await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(v["config_write"]["applied"], false);
    assert_eq!(v["config_write"]["revision"], cur);

    // runtime_id moves the assignment in runtime.toml: both revisions change.
    let (_, raw_before) = get(&s, RAW).await;
    let (st, v) = post(
        &s,
        &url,
        json!({"expected_config_revision": cur, "runtime_id": "openai.gpt-5"}),
    )
    .await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(v["execution"]["selected_runtime_id"], "openai.gpt-5");
    let (_, raw_after) = get(&s, RAW).await;
    assert_ne!(raw_after["source_revision"], raw_before["source_revision"]);
    assert_eq!(
        v["config_revision"]["runtime_assignment"]["source_revision"],
        raw_after["source_revision"]
    );
    let (_, roster) = get(&s, "/api/v1/gate/keepers").await;
    let row = roster["keepers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["name"] == "sangsu")
        .unwrap()
        .clone();
    assert_eq!(row["runtime_id"], "openai.gpt-5");
    s.shutdown().await;
}

#[tokio::test]
async fn keeper_config_patch_refusals_s9_6() {
    let s = server().await;
    let url = config_url("rondo");
    let (_, v) = get(&s, &url).await;
    let rev = v["config_revision"].clone();
    for (body, needle) in [
        (
            json!({"expected_config_revision": rev, "colour": "red"}),
            "unknown key",
        ),
        (
            json!({"autoboot_enabled": false}),
            "expected_config_revision",
        ),
        (json!({"expected_config_revision": rev}), "no settings"),
        (
            json!({"expected_config_revision": rev, "max_context_override": 64000}),
            "confirm_context_shrink",
        ),
        (
            json!({"expected_config_revision": rev, "sandbox_profile": "vm"}),
            "sandbox_profile",
        ),
        (
            json!({"expected_config_revision": rev, "runtime_id": "ghost.model"}),
            "unknown runtime",
        ),
    ] {
        let (st, v) = post(&s, &url, body.clone()).await;
        assert_eq!(st, StatusCode::BAD_REQUEST, "{body}");
        assert!(v["error"].as_str().unwrap().contains(needle), "{v}");
    }
    let (_, after) = get(&s, &url).await;
    assert_eq!(after["config_revision"], rev, "refusals write nothing");
    let (st, v) = post(
        &s,
        &url,
        json!({"expected_config_revision": rev, "max_context_override": 64000, "confirm_context_shrink": true}),
    )
    .await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(v["max_context_override"], 64000);
    let (st, _) = post(
        &s,
        &config_url("ghost"),
        json!({"expected_config_revision": rev, "autoboot_enabled": true}),
    )
    .await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    s.shutdown().await;
}

#[tokio::test]
async fn sandbox_profile_rules_s9_7() {
    let s = server().await;
    let url = config_url("ops-bot");
    let (_, v) = get(&s, &url).await;
    assert_eq!(v["sandbox_profile"], "remote_ssh");
    let rev = v["config_revision"].clone();
    let (st, v) = post(
        &s,
        &url,
        json!({"expected_config_revision": rev, "sandbox_profile": "docker"}),
    )
    .await;
    assert_eq!(st, StatusCode::BAD_REQUEST);
    assert!(v["error"].as_str().unwrap().contains("remote_endpoint"));
    let (st, v) = post(
        &s,
        &url,
        json!({"expected_config_revision": rev, "sandbox_profile": "microvm", "remote_endpoint": null}),
    )
    .await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(v["sandbox_profile"], "microvm");
    assert_eq!(v["network_mode"], "none", "microvm defaults to none");
    assert!(v["remote_endpoint"].is_null());
    // A keeper without a manifest gets one on its first write.
    let (_, b) = get(&s, &config_url("beacon")).await;
    let (st, v) = post(
        &s,
        &config_url("beacon"),
        json!({"expected_config_revision": b["config_revision"], "sandbox_profile": "docker", "network_mode": "inherit"}),
    )
    .await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(v["config_revision"]["manifest"]["state"], "sha256");
    assert_eq!(v["network_mode"], "inherit");
    s.shutdown().await;
}

#[tokio::test]
async fn assignment_committed_unchanged_and_conflict_s9_8() {
    let s = server().await;
    let (_, v) = get(&s, &config_url("mira")).await;
    let rev = v["config_revision"]["runtime_assignment"].clone();
    let (ra, rb) = tokio::join!(
        post(
            &s,
            ASSIGN,
            json!({"keeper_name": "mira", "runtime_id": "local.qwen3-32b", "expected_assignment_revision": rev})
        ),
        post(
            &s,
            ASSIGN,
            json!({"keeper_name": "mira", "runtime_id": "openai.gpt-5", "expected_assignment_revision": rev})
        ),
    );
    let (ok, conflict) = match (ra.0, rb.0) {
        (StatusCode::OK, StatusCode::CONFLICT) => (ra.1, rb.1),
        (StatusCode::CONFLICT, StatusCode::OK) => (rb.1, ra.1),
        other => panic!("expected one 200 and one 409, got {other:?}"),
    };
    assert_eq!(ok["ok"], true);
    assert_eq!(ok["state"], "committed");
    assert_eq!(ok["application"]["operation"], "assignment");
    assert_eq!(ok["commit"]["source_revision"], ok["source_revision"]);
    assert_eq!(conflict["ok"], false);
    assert_eq!(
        conflict["error"]["code"],
        "runtime_assignment_revision_conflict"
    );
    assert_eq!(conflict["error"]["expected"], rev);
    let (_, now) = get(&s, &config_url("mira")).await;
    let cur = now["config_revision"]["runtime_assignment"].clone();
    assert_eq!(conflict["error"]["observed"], cur);
    let won = cur["assignment"]["runtime_id"]
        .as_str()
        .unwrap()
        .to_string();

    let (st, v) = post(
        &s,
        ASSIGN,
        json!({"keeper_name": "mira", "runtime_id": won, "expected_assignment_revision": cur}),
    )
    .await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(
        v,
        json!({"ok": true, "applied": false, "assignment_revision": cur, "warnings": []})
    );

    // Back to the default: the assignment becomes missing.
    let (st, v) = post(
        &s,
        ASSIGN,
        json!({"keeper_name": "mira", "runtime_id": null, "expected_assignment_revision": cur}),
    )
    .await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(
        v["assignment_revision"]["assignment"],
        json!({"state": "missing"})
    );
    let (_, resolved) = get(&s, "/api/v1/runtime/resolved").await;
    let mira = resolved["assignments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["keeper"] == "mira")
        .unwrap()
        .clone();
    assert_eq!(mira["assignment_source"], "default");

    let (st, v) = post(&s, ASSIGN, json!({"keeper_name": "mira", "runtime_id": "ghost.x", "expected_assignment_revision": v["assignment_revision"]})).await;
    assert_eq!(st, StatusCode::BAD_REQUEST);
    assert!(v["error"].is_string());
    let (st, _) = post(&s, ASSIGN, json!({"keeper_name": "mira"})).await;
    assert_eq!(st, StatusCode::BAD_REQUEST);
    s.shutdown().await;
}

#[tokio::test]
async fn assignment_dropped_after_apply_shows_on_reread_s13() {
    let s = server().await;
    let (_, v) = get(&s, &config_url("하늘")).await;
    let rev = v["config_revision"]["runtime_assignment"].clone();
    s.set_faults(FaultPlan::single(FaultRule::new(
        "POST",
        ASSIGN,
        When::Nth { nth: 1 },
        Fault::Drop {
            drop: DropPoint::AfterApply,
        },
    )));
    let err = req(&s, reqwest::Method::POST, ASSIGN)
        .json(&json!({"keeper_name": "하늘", "runtime_id": "local.llama-4-scout", "expected_assignment_revision": rev}))
        .send()
        .await
        .err()
        .unwrap();
    assert!(err.status().is_none());
    let (_, v) = get(&s, &config_url("하늘")).await;
    assert_eq!(v["execution"]["selected_runtime_id"], "local.llama-4-scout");
    assert_ne!(v["config_revision"]["runtime_assignment"], rev);
    s.shutdown().await;
}

#[tokio::test]
async fn create_keeper_is_create_only_and_joins_roster_s9_9() {
    let s = server().await;
    let decl = json!({"name": "pixel", "sandbox_profile": "docker", "network_mode": "none",
                      "instructions": "화면 캡처를 검토합니다.", "runtime_id": "openai.gpt-5",
                      "mention_targets": ["@pixel"], "autoboot_enabled": true});
    let (st, v) = post(&s, "/api/v1/keepers", decl.clone()).await;
    assert_eq!(st, StatusCode::CREATED);
    assert_eq!(v["ok"], true);
    assert_eq!(v["action"], "created");
    assert_eq!(v["name"], "pixel");
    assert_eq!(v["detail"]["name"], "pixel");
    assert_eq!(v["detail"]["sandbox_profile"], "docker");
    assert_eq!(v["detail"]["network_mode"], "none");
    assert_eq!(v["detail"]["lane"], json!({"state": "running"}));
    let (_, roster) = get(&s, "/api/v1/gate/keepers").await;
    let row = roster["keepers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["name"] == "pixel")
        .unwrap()
        .clone();
    assert_eq!(row["runtime_id"], "openai.gpt-5");
    let (_, cfg) = get(&s, &config_url("pixel")).await;
    assert_eq!(cfg["workspace"]["mention_targets"], json!(["@pixel"]));
    assert_eq!(
        cfg["config_revision"]["runtime_assignment"]["assignment"]["runtime_id"],
        "openai.gpt-5"
    );

    let (st, v) = post(&s, "/api/v1/keepers", decl.clone()).await;
    assert_eq!(
        (st, v),
        (
            StatusCode::CONFLICT,
            json!({"ok": false, "error": "keeper_exists", "name": "pixel"})
        )
    );
    let (st, v) = post(&s, "/api/v1/keepers", json!({"name": "scout", "sandbox_profile": "docker", "network_mode": "none", "instructions": "Watch the nightly board."})).await;
    assert_eq!(
        (st, v["error"].as_str()),
        (StatusCode::CONFLICT, Some("keeper_exists"))
    );

    // A lane that fails to start still writes the declaration.
    let (st, v) = post(&s, "/api/v1/keepers", json!({"name": "ghostly", "sandbox_profile": "docker", "network_mode": "none", "instructions": "", "runtime_id": "nowhere.model"})).await;
    assert_eq!(st, StatusCode::CREATED);
    assert_eq!(v["detail"]["lane"]["state"], "failed");
    assert!(v["detail"]["lane"]["reason"].is_string());
    let (st, _) = get(&s, &config_url("ghostly")).await;
    assert_eq!(st, StatusCode::OK);
    s.shutdown().await;
}

#[tokio::test]
async fn create_keeper_refusals_are_400_s9_9() {
    let s = server().await;
    for (body, needle) in [
        (
            json!({"name": "a", "sandbox_profile": "docker", "network_mode": "none", "instructions": "", "colour": 1}),
            "unknown key: colour",
        ),
        (
            json!({"name": "a", "sandbox_profile": "docker", "instructions": ""}),
            "network_mode is required",
        ),
        (
            json!({"name": " ", "sandbox_profile": "docker", "network_mode": "none", "instructions": ""}),
            "name is required",
        ),
        (
            json!({"name": "a", "sandbox_profile": "docker", "network_mode": "none"}),
            "instructions is required",
        ),
        (
            json!({"name": "a", "sandbox_profile": "remote_ssh", "network_mode": "inherit", "instructions": ""}),
            "remote_endpoint",
        ),
    ] {
        let (st, v) = post(&s, "/api/v1/keepers", body.clone()).await;
        assert_eq!(st, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(v["ok"], false);
        assert!(v["error"].as_str().unwrap().contains(needle), "{v}");
    }
    let (st, _) = get(&s, &config_url("a")).await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    s.shutdown().await;
}

/// F-7 (docs/protocol-extensions.md, newer MASC): the reachability probe answers one row per
/// configured runtime with its exact `runtime_id` — what the Runtime surface joins lanes on —
/// under MASC's envelope; the first answer probes (`fresh`, no cache hit), the next is the
/// cached value, and `force=1` inside the force window answers `recent` without probing again.
#[tokio::test]
async fn runtime_probe_rows_by_runtime_id_and_freshness_f7() {
    let s = server().await;
    let probe = "/api/v1/dashboard/runtime-probe";
    let (st, first) = get(&s, probe).await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(first["refresh_state"], "fresh");
    assert_eq!(first["cache_hit"], false);
    let (_, resolved) = get(&s, "/api/v1/runtime/resolved").await;
    let mut catalogue: Vec<&str> = resolved["runtimes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    let rows = first["probe"]["providers"].as_array().unwrap();
    let mut probed: Vec<&str> = rows
        .iter()
        .map(|r| r["runtime_id"].as_str().unwrap())
        .collect();
    catalogue.sort_unstable();
    probed.sort_unstable();
    assert_eq!(probed, catalogue, "one row per runtime, by exact id");
    let summary = &first["probe"]["summary"];
    assert_eq!(summary["runtimes"], rows.len());
    assert_eq!(
        summary["reachable"].as_u64().unwrap() + summary["failed"].as_u64().unwrap(),
        rows.len() as u64
    );
    let google = rows.iter().find(|r| r["provider_id"] == "google").unwrap();
    assert_eq!(google["reachable"], false);
    assert_eq!(google["status"], "missing_auth");
    assert_eq!(first["probe"]["status"], "degraded");

    let (_, cached) = get(&s, probe).await;
    assert_eq!(cached["cache_hit"], true);
    assert_eq!(cached["refresh_state"], "fresh");
    let (_, forced) = get(&s, &format!("{probe}?force=1")).await;
    assert_eq!(
        forced["refresh_state"], "recent",
        "force=1 inside the window"
    );
    assert_eq!(forced["cache_hit"], true);
    s.shutdown().await;
}
