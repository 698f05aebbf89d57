//! Every POST endpoint of protocol.md §4.3, §7–§10 sent through the REAL admitted client
//! (`post_json`, `post_sse`; the ask follow-up through `get_sse`), classified with the §11
//! classifier of its write kind, and followed by an admitted read that shows the effect.
//! Races are real: two clients on one epoch send on the same base revision at once.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support_endpoints::{Env, drain, env};
use masc_tui::protocol::asks::{
    AskAnswerRequest, AskFollowUpEvent, AskList, AskResolution, FollowUpEnd, FollowUpValidator,
    ResolvedState, WakeObservation,
};
use masc_tui::protocol::board::{BoardPostDetail, BoardPostRequest, BoardPostsPage};
use masc_tui::protocol::chat::{
    ChatHistoryPage, ChatOperationRecord, ChatRole, ChatStreamOutcome, ChatStreamReader,
    ChatStreamValidator, OperationProgress,
};
use masc_tui::protocol::client::{QueryString, SseEnd, WriteExchange, path_segment};
use masc_tui::protocol::connectors::ConnectorStatusList;
use masc_tui::protocol::decode::WireDecode;
use masc_tui::protocol::keeper_config::{
    AssignmentState, ConfigRevision, KeeperConfigSaveRequest, KeeperConfigSnapshot,
    KeeperCreateRequest, LaneStart, RuntimeAssignmentRequest, RuntimeAssignmentRevision,
    SandboxProfile,
};
use masc_tui::protocol::keepers::KeeperRoster;
use masc_tui::protocol::operator::{
    ApprovalDecisionRequest, Decision, DecisionResult, OperatorApprovals,
};
use masc_tui::protocol::outcome::{
    ConnectorBindingRequest, KeeperConfigApplied, SaveOutcome, bind_precheck,
    classify_approval_decision, classify_ask_answer, classify_board_post, classify_connector_bind,
    classify_connector_unbind, classify_exchange, classify_keeper_config_save,
    classify_keeper_create, classify_runtime_assignment, classify_runtime_raw_save,
    runtime_form_preview_gate, sandbox_save_precheck,
};
use masc_tui::protocol::runtime::{
    RuntimeConfigRaw, RuntimeRawSaveRequest, runtime_source_revision,
};
use masc_tui::server::faults::FaultPlan;
use serde_json::{Value, json};

const RAW: &str = "/api/v1/runtime/config/raw";
const ASSIGN: &str = "/api/v1/runtime/config/assignment";
const ASKS_ALL: &str = "/api/v1/keepers/asks?include_resolved=true";
const ANSWER: &str = "/api/v1/keepers/ask-answer";
const BOARD_POST: &str = "/api/v1/tools/masc_board_post";
const CONNECTORS: &str = "/api/v1/gate/connectors";
const OPERATOR: &str = "/api/v1/operator?view=summary&include_messages=0&include_keepers=0";
const CONFIRM: &str = "/api/v1/operator/confirm";
const CHAT: &str = "/api/v1/keepers/chat/stream";

fn config_path(keeper: &str) -> String {
    format!("/api/v1/keepers/{}/config", path_segment(keeper))
}

fn responded_status(exchange: &WriteExchange) -> u16 {
    match exchange {
        WriteExchange::Responded { status, .. } => *status,
        other => panic!("expected a response, got {other:?}"),
    }
}

async fn snapshot(env: &Env, keeper: &str) -> std::sync::Arc<KeeperConfigSnapshot> {
    env.read::<KeeperConfigSnapshot>(&config_path(keeper)).await
}

fn composite(
    snapshot: &KeeperConfigSnapshot,
) -> masc_tui::protocol::keeper_config::CompositeRevision {
    snapshot
        .config_revision
        .composite()
        .expect("editable revision")
        .clone()
}

// ---- §9.6 / §9.7 keeper settings ----

#[tokio::test]
async fn s9_6_two_writers_on_one_revision_one_applied_one_conflict_with_the_current_revision() {
    let env = env().await;
    let keeper = "sangsu";
    let base = snapshot(&env, keeper).await;
    let expected = composite(&base);
    let req = KeeperConfigSaveRequest {
        keeper: keeper.into(),
        expected: expected.clone(),
    };
    let second = env.another_client();
    let body = |text: &str| json!({"expected_config_revision": expected, "instructions": text});
    let path = config_path(keeper);
    let (body_a, body_b) = (body("writer A 지시문"), body("writer B 지시문"));
    let (a, b) = tokio::join!(
        env.client.post_json(&env.auth, &path, &body_a),
        second.post_json(&env.auth, &path, &body_b),
    );
    let oa = classify_exchange(&a, &req, classify_keeper_config_save);
    let ob = classify_exchange(&b, &req, classify_keeper_config_save);
    let ((applied, winner), conflict) = match (oa, ob) {
        (SaveOutcome::Applied { detail, .. }, SaveOutcome::Conflict { current }) => {
            ((detail, "writer A 지시문"), current)
        }
        (SaveOutcome::Conflict { current }, SaveOutcome::Applied { detail, .. }) => {
            ((detail, "writer B 지시문"), current)
        }
        other => panic!("§9.6 CAS: expected one applied and one conflict, got {other:?}"),
    };
    let KeeperConfigApplied::Written(write) = applied else {
        panic!("a written config");
    };
    assert!(write.applied);
    assert_eq!(
        conflict.expected,
        ConfigRevision::Composite(expected.clone())
    );
    assert_eq!(
        conflict.observed, write.revision,
        "the 409 carries the winner's revision"
    );
    assert_ne!(write.revision, ConfigRevision::Composite(expected));

    let after = snapshot(&env, keeper).await;
    assert_eq!(after.config_revision, write.revision);
    assert_eq!(
        after
            .prompt
            .as_ref()
            .and_then(|p| p.instructions.as_deref()),
        Some(winner)
    );

    // The same value again on the fresh revision: nothing needed writing.
    let fresh = composite(&after);
    let same = json!({"expected_config_revision": fresh, "network_mode": after.network_mode});
    let exchange = env
        .client
        .post_json(&env.auth, &config_path(keeper), &same)
        .await;
    let outcome = classify_exchange(
        &exchange,
        &KeeperConfigSaveRequest {
            keeper: keeper.into(),
            expected: fresh,
        },
        classify_keeper_config_save,
    );
    assert_eq!(
        outcome,
        SaveOutcome::Unchanged,
        "§11 200 with applied:false"
    );
    assert_eq!(snapshot(&env, keeper).await.config_revision, write.revision);
}

#[tokio::test]
async fn s9_7_sandbox_save_is_not_sent_when_equal_and_applied_when_changed() {
    let env = env().await;
    let keeper = "mira";
    let fresh = snapshot(&env, keeper).await;
    assert_eq!(fresh.sandbox_profile, SandboxProfile::Docker);
    assert_eq!(
        sandbox_save_precheck(&fresh, SandboxProfile::Docker, None),
        Some(SaveOutcome::Unchanged),
        "equal profile: unchanged, not sent"
    );
    assert!(sandbox_save_precheck(&fresh, SandboxProfile::Microvm, None).is_none());
    let posts_before = env.server.request_count("POST", &config_path(keeper));
    let req = KeeperConfigSaveRequest {
        keeper: keeper.into(),
        expected: composite(&fresh),
    };
    let exchange = env
        .client
        .post_json(
            &env.auth,
            &config_path(keeper),
            &json!({"expected_config_revision": req.expected, "sandbox_profile": "microvm", "network_mode": "none"}),
        )
        .await;
    let outcome = classify_exchange(&exchange, &req, classify_keeper_config_save);
    assert!(
        matches!(outcome, SaveOutcome::Applied { .. }),
        "{outcome:?}"
    );
    assert_eq!(
        env.server.request_count("POST", &config_path(keeper)),
        posts_before + 1
    );
    let after = snapshot(&env, keeper).await;
    assert_eq!(after.sandbox_profile, SandboxProfile::Microvm);
    assert_ne!(after.config_revision, fresh.config_revision);
}

// ---- §9.3 / §9.4 runtime raw save and form ----

#[tokio::test]
async fn s9_4_two_raw_saves_on_one_revision_one_applied_one_conflict_with_a_consistent_current() {
    let env = env().await;
    let base = env.read::<RuntimeConfigRaw>(RAW).await;
    let text_a = format!("{}\n# writer A\n", base.source_text);
    let text_b = format!("{}\n# writer B\n", base.source_text);
    // §9.3 form gate: the exact text previews as savable before any commit.
    for text in [&text_a, &text_b] {
        let preview = env
            .client
            .post_json(
                &env.auth,
                "/api/v1/runtime/config/raw/preview",
                &json!({"source_text": text}),
            )
            .await;
        let WriteExchange::Responded { status, body } = &preview else {
            panic!("preview: {preview:?}");
        };
        assert!(runtime_form_preview_gate(*status, body).is_ok());
    }
    let req = RuntimeRawSaveRequest {
        expected_source_revision: base.source_revision.clone(),
    };
    let second = env.another_client();
    let save = |text: &str| json!({"source_text": text, "expected_source_revision": base.source_revision, "expected_source_path": base.path});
    let (save_a, save_b) = (save(&text_a), save(&text_b));
    let (a, b) = tokio::join!(
        env.client.post_json(&env.auth, RAW, &save_a),
        second.post_json(&env.auth, RAW, &save_b),
    );
    let oa = classify_exchange(&a, &req, classify_runtime_raw_save);
    let ob = classify_exchange(&b, &req, classify_runtime_raw_save);
    let ((receipt, winner), current) = match (oa, ob) {
        (SaveOutcome::Applied { detail, .. }, SaveOutcome::Conflict { current }) => {
            ((detail, &text_a), current)
        }
        (SaveOutcome::Conflict { current }, SaveOutcome::Applied { detail, .. }) => {
            ((detail, &text_b), current)
        }
        other => panic!("§9.4 CAS: expected one applied and one conflict, got {other:?}"),
    };
    assert_eq!(
        receipt.commit.source_revision,
        runtime_source_revision(winner)
    );
    assert_eq!(
        &current.source_text, winner,
        "the 409 carries the winner's text"
    );
    assert_eq!(current.source_revision, receipt.commit.source_revision);
    assert_eq!(current.source_path, base.path);

    let after = env.read::<RuntimeConfigRaw>(RAW).await;
    assert_eq!(&after.source_text, winner);
    assert_eq!(after.source_revision, receipt.commit.source_revision);

    // A text that does not parse is refused before any effect.
    let broken = env
        .client
        .post_json(
            &env.auth,
            RAW,
            &json!({"source_text": "[runtime\n", "expected_source_revision": after.source_revision}),
        )
        .await;
    let outcome = classify_exchange(
        &broken,
        &RuntimeRawSaveRequest {
            expected_source_revision: after.source_revision.clone(),
        },
        classify_runtime_raw_save,
    );
    assert!(
        matches!(outcome, SaveOutcome::NotApplied { .. }),
        "{outcome:?}"
    );
    assert_eq!(
        env.read::<RuntimeConfigRaw>(RAW).await.source_revision,
        after.source_revision
    );
}

// ---- §9.8 runtime assignment ----

fn assignment_rev(snapshot: &KeeperConfigSnapshot) -> RuntimeAssignmentRevision {
    composite(snapshot).runtime_assignment
}

#[tokio::test]
async fn s9_8_assignment_applied_then_unchanged_then_conflict_on_the_stale_revision() {
    let env = env().await;
    let keeper = "mira";
    let before = snapshot(&env, keeper).await;
    let stale = assignment_rev(&before);
    let target = "local.qwen3-32b";
    assert_ne!(
        before.execution.selected_runtime_id.as_deref(),
        Some(target)
    );
    let send = |rev: &RuntimeAssignmentRevision| json!({"keeper_name": keeper, "runtime_id": target, "expected_assignment_revision": rev});
    let req = |rev: &RuntimeAssignmentRevision| RuntimeAssignmentRequest {
        keeper_name: keeper.into(),
        runtime_id: Some(target.into()),
        expected: rev.clone(),
    };
    let applied = env.client.post_json(&env.auth, ASSIGN, &send(&stale)).await;
    let outcome = classify_exchange(&applied, &req(&stale), classify_runtime_assignment);
    let SaveOutcome::Applied {
        detail: receipt, ..
    } = outcome
    else {
        panic!("assignment applied: {outcome:?}");
    };
    assert_eq!(receipt.application.operation, "assignment");

    let after = snapshot(&env, keeper).await;
    let fresh = assignment_rev(&after);
    let RuntimeAssignmentRevision::RuntimeConfigPresent {
        source_revision,
        assignment: AssignmentState::Assigned { runtime_id },
    } = &fresh
    else {
        panic!("assigned after the commit: {fresh:?}");
    };
    assert_eq!(runtime_id, target);
    assert_eq!(source_revision.as_str(), receipt.commit.source_revision);

    let again = env.client.post_json(&env.auth, ASSIGN, &send(&fresh)).await;
    assert_eq!(
        classify_exchange(&again, &req(&fresh), classify_runtime_assignment),
        SaveOutcome::Unchanged
    );
    let late = env.client.post_json(&env.auth, ASSIGN, &send(&stale)).await;
    match classify_exchange(&late, &req(&stale), classify_runtime_assignment) {
        SaveOutcome::Conflict { current } => {
            assert_eq!(current.expected, stale);
            assert_eq!(current.observed, fresh);
        }
        other => panic!("stale revision: {other:?}"),
    }
}

// ---- §9.9 keeper create ----

#[tokio::test]
async fn s9_9_create_is_applied_once_then_conflicts_and_joins_the_roster() {
    let env = env().await;
    let decl = json!({"name": "pixel", "sandbox_profile": "docker", "network_mode": "none",
                      "instructions": "화면 캡처를 검토합니다.", "runtime_id": "openai.gpt-5"});
    let req = KeeperCreateRequest {
        name: "pixel".into(),
    };
    let first = env
        .client
        .post_json(&env.auth, "/api/v1/keepers", &decl)
        .await;
    match classify_exchange(&first, &req, classify_keeper_create) {
        SaveOutcome::Applied { detail, warning } => {
            assert_eq!(detail.name, "pixel");
            assert_eq!(detail.detail.lane, LaneStart::Running);
            assert_eq!(warning, None);
        }
        other => panic!("create: {other:?}"),
    }
    let roster = env.read::<KeeperRoster>("/api/v1/gate/keepers").await;
    let row = roster.keepers().find(|k| k.name == "pixel").unwrap();
    assert_eq!(row.runtime_id.as_deref(), Some("openai.gpt-5"));
    let second = env
        .client
        .post_json(&env.auth, "/api/v1/keepers", &decl)
        .await;
    match classify_exchange(&second, &req, classify_keeper_create) {
        SaveOutcome::Conflict { current } => assert_eq!(current.name.as_deref(), Some("pixel")),
        other => panic!("second create: {other:?}"),
    }
    let after = env.read::<KeeperRoster>("/api/v1/gate/keepers").await;
    assert_eq!(after.keepers().filter(|k| k.name == "pixel").count(), 1);
}

// ---- §10.2 / §10.3 asks ----

/// One answer per question, in order, by id: the first choice, or text when only free text fits.
fn answers_for(list: &AskList, ask_id: &str) -> Value {
    let ask = list.asks.iter().find(|a| a.ask_id == ask_id).unwrap();
    let answers: Vec<Value> = ask
        .questions
        .iter()
        .map(|q| match q.choices.first() {
            Some(c) => json!({"question_id": q.question_id, "response": {"kind": "chose", "choice_ids": [c.choice_id]}}),
            None => json!({"question_id": q.question_id, "response": {"kind": "wrote", "text": "진행"}}),
        })
        .collect();
    json!({"name": ask.keeper, "ask_id": ask.ask_id, "answers": answers})
}

async fn follow_up(env: &Env, keeper: &str, ask_id: &str) -> FollowUpEnd {
    let target = QueryString::new()
        .pair("name", keeper)
        .pair("ask_id", ask_id)
        .append_to("/api/v1/keepers/asks/follow-up");
    let stream = env.client.get_sse(&env.auth, &target).await.unwrap();
    let (frames, end) = drain(stream).await;
    assert_eq!(end, SseEnd::Completed);
    let mut validator = FollowUpValidator::new(ask_id, keeper);
    for frame in &frames {
        validator
            .accept(AskFollowUpEvent::decode(frame.data.as_bytes()).unwrap())
            .unwrap();
    }
    validator.finish()
}

#[tokio::test]
async fn s10_2_first_answer_wins_the_second_conflicts_and_s10_3_follow_up_shows_the_wake() {
    let env = env().await;
    let (keeper, ask_id) = ("하늘", "ask-sky-0415");
    let FollowUpEnd::Completed(before) = follow_up(&env, keeper, ask_id).await else {
        panic!("follow-up completes");
    };
    assert_eq!(before.wake, Some(WakeObservation::ObservedEmpty {}));
    let list = env.read::<AskList>(ASKS_ALL).await;
    let body = answers_for(&list, ask_id);
    let req = AskAnswerRequest {
        keeper: keeper.into(),
        ask_id: ask_id.into(),
    };
    let first = env.client.post_json(&env.auth, ANSWER, &body).await;
    match classify_exchange(&first, &req, classify_ask_answer) {
        SaveOutcome::Applied { detail, .. } => {
            assert_eq!(
                detail.actor, "masc-tui",
                "actor from the request, not the body"
            );
            assert_eq!(detail.open_remaining, Some(list.open_count - 1));
        }
        other => panic!("answer: {other:?}"),
    }
    let second = env
        .another_client()
        .post_json(&env.auth, ANSWER, &body)
        .await;
    match classify_exchange(&second, &req, classify_ask_answer) {
        SaveOutcome::Conflict { current } => {
            assert_eq!(current.state, Some(ResolvedState::Answered))
        }
        other => panic!("second answer: {other:?}"),
    }
    let after = env.read::<AskList>(ASKS_ALL).await;
    let ask = after.asks.iter().find(|a| a.ask_id == ask_id).unwrap();
    let AskResolution::Answered {
        answered_question_ids,
        ..
    } = &ask.resolution
    else {
        panic!("answered after the write: {:?}", ask.resolution);
    };
    let question_ids: Vec<&String> = ask.questions.iter().map(|q| &q.question_id).collect();
    assert_eq!(
        answered_question_ids.iter().collect::<Vec<_>>(),
        question_ids
    );
    assert_eq!(after.open_count, list.open_count - 1);
    let FollowUpEnd::Completed(state) = follow_up(&env, keeper, ask_id).await else {
        panic!("follow-up completes");
    };
    assert!(
        matches!(&state.wake, Some(WakeObservation::Observed { turns, .. }) if !turns.is_empty()),
        "the answer woke the keeper: {:?}",
        state.wake
    );
}

// ---- §13 drop after apply: outcome unknown, server committed, never resent ----

#[tokio::test]
async fn s11_writes_dropped_after_commit_are_outcome_unknown_and_the_server_shows_them() {
    let env = env().await;
    env.server.set_faults(
        FaultPlan::from_json(
            r#"{"rules":[
              {"match":{"method":"POST","path":"/api/v1/tools/masc_board_post"},"fault":{"drop":"after_apply"}},
              {"match":{"method":"POST","path":"/api/v1/keepers/ask-answer"},"fault":{"drop":"after_apply"}}
            ]}"#,
        )
        .unwrap(),
    );
    let title = "Dropped after apply 확인";
    let post = env
        .client
        .post_json(
            &env.auth,
            BOARD_POST,
            &json!({"title": title, "body": "committed, then the connection dropped", "hearth": "ops"}),
        )
        .await;
    assert!(
        matches!(post, WriteExchange::OutcomeUnknown { .. }),
        "{post:?}"
    );
    let outcome = classify_exchange(
        &post,
        &BoardPostRequest {
            title: title.into(),
        },
        classify_board_post,
    );
    assert!(matches!(outcome, SaveOutcome::OutcomeUnknown { .. }));

    let list = env.read::<AskList>(ASKS_ALL).await;
    let answer = env
        .client
        .post_json(&env.auth, ANSWER, &answers_for(&list, "ask-rondo-0412"))
        .await;
    let outcome = classify_exchange(
        &answer,
        &AskAnswerRequest {
            keeper: "rondo".into(),
            ask_id: "ask-rondo-0412".into(),
        },
        classify_ask_answer,
    );
    assert!(
        matches!(outcome, SaveOutcome::OutcomeUnknown { .. }),
        "{outcome:?}"
    );
    env.server.set_faults(FaultPlan::none());

    // The re-read settles what happened: both writes committed, each exactly once.
    let board = env
        .read::<BoardPostsPage>("/api/v1/board?sort_by=recent&limit=200")
        .await;
    assert_eq!(board.posts.iter().filter(|p| p.title == title).count(), 1);
    let asks = env.read::<AskList>(ASKS_ALL).await;
    let ask = asks
        .asks
        .iter()
        .find(|a| a.ask_id == "ask-rondo-0412")
        .unwrap();
    assert!(matches!(ask.resolution, AskResolution::Answered { .. }));
    assert_eq!(
        env.server.request_count("POST", BOARD_POST),
        1,
        "never resent"
    );
    assert_eq!(env.server.request_count("POST", ANSWER), 1, "never resent");
}

// ---- §8.4 board post ----

#[tokio::test]
async fn s8_4_board_post_is_applied_with_its_id_and_readable_then_a_bad_post_is_not_applied() {
    let env = env().await;
    let req = BoardPostRequest {
        title: "Nightly verification".into(),
    };
    let exchange = env
        .client
        .post_json(
            &env.auth,
            BOARD_POST,
            &json!({"title": req.title, "body": "All green.", "hearth": "verification"}),
        )
        .await;
    assert_eq!(responded_status(&exchange), 201);
    let SaveOutcome::Applied { detail, .. } =
        classify_exchange(&exchange, &req, classify_board_post)
    else {
        panic!("post applied");
    };
    let target = format!(
        "/api/v1/board/{}?format=flat",
        path_segment(&detail.post_id)
    );
    let body = env.read_body(&target).await;
    let post = BoardPostDetail::decode_for(&body, &detail.post_id).unwrap();
    assert_eq!(post.post.title, req.title);
    assert_eq!(post.post.author, "masc-tui", "author is the request actor");
    assert_eq!(post.post.hearth.as_deref(), Some("verification"));
    let recent = env
        .read::<BoardPostsPage>("/api/v1/board?sort_by=recent&limit=5")
        .await;
    assert_eq!(
        recent.posts[0].id, detail.post_id,
        "newest first under recent"
    );

    let bad = env
        .client
        .post_json(&env.auth, BOARD_POST, &json!({"body": "no title"}))
        .await;
    assert!(matches!(
        classify_exchange(&bad, &req, classify_board_post),
        SaveOutcome::NotApplied { .. }
    ));
}

// ---- §7.3 / §7.4 connector bind and unbind ----

#[tokio::test]
async fn s7_3_s7_4_bind_applied_unbind_conflict_applied_then_unchanged() {
    let env = env().await;
    let status = env.read::<ConnectorStatusList>(CONNECTORS).await;
    let discord = status
        .connectors()
        .find(|c| c.connector_id == "discord")
        .unwrap();
    let existing = &discord.configured_bindings[0];
    let existing_req = ConnectorBindingRequest {
        connector_id: "discord".into(),
        channel_id: existing.channel_id.clone(),
        keeper_name: existing.keeper_name.clone(),
    };
    assert_eq!(
        bind_precheck(discord, &existing_req),
        Some(SaveOutcome::Unchanged),
        "already bound: not sent"
    );
    let req = ConnectorBindingRequest {
        connector_id: "discord".into(),
        channel_id: "990001".into(),
        keeper_name: "rondo".into(),
    };
    assert!(bind_precheck(discord, &req).is_none());
    let body = json!({"channel_id": req.channel_id, "keeper_name": req.keeper_name});
    let bound = env
        .client
        .post_json(&env.auth, "/api/v1/gate/connector/bind?name=discord", &body)
        .await;
    assert!(matches!(
        classify_exchange(&bound, &req, classify_connector_bind),
        SaveOutcome::Applied { .. }
    ));
    let after = env.read::<ConnectorStatusList>(CONNECTORS).await;
    let row = after
        .connectors()
        .find(|c| c.connector_id == "discord")
        .unwrap();
    assert_eq!(
        row.binding_of("990001").map(|b| b.keeper_name.as_str()),
        Some("rondo")
    );
    assert_eq!(
        row.configured_bindings.len(),
        discord.configured_bindings.len() + 1
    );

    let unbind = "/api/v1/gate/connector/unbind?name=discord";
    let wrong_keeper = ConnectorBindingRequest {
        keeper_name: "sangsu".into(),
        ..req.clone()
    };
    let changed = env
        .client
        .post_json(
            &env.auth,
            unbind,
            &json!({"channel_id": "990001", "keeper_name": "sangsu"}),
        )
        .await;
    assert!(
        matches!(
            classify_exchange(&changed, &wrong_keeper, classify_connector_unbind),
            SaveOutcome::Conflict { .. }
        ),
        "§7.4 conditional unbind: rebound to another keeper, kept"
    );
    let removed = env.client.post_json(&env.auth, unbind, &body).await;
    assert!(matches!(
        classify_exchange(&removed, &req, classify_connector_unbind),
        SaveOutcome::Applied { .. }
    ));
    let gone = env.client.post_json(&env.auth, unbind, &body).await;
    assert_eq!(
        classify_exchange(&gone, &req, classify_connector_unbind),
        SaveOutcome::Unchanged,
        "404 binding not found: already gone"
    );
    let last = env.read::<ConnectorStatusList>(CONNECTORS).await;
    let row = last
        .connectors()
        .find(|c| c.connector_id == "discord")
        .unwrap();
    assert!(row.binding_of("990001").is_none());
    assert_eq!(row.configured_bindings, discord.configured_bindings);
}

// ---- §10.5 approval decisions ----

#[tokio::test]
async fn s10_5_deny_is_applied_a_second_decision_conflicts_and_confirm_runs() {
    let env = env().await;
    let before = env.read::<OperatorApprovals>(OPERATOR).await;
    let mut unexpired = before.items.iter().filter(|a| {
        a.expires_at
            .is_none_or(|e| e > time::OffsetDateTime::now_utc())
    });
    let denied = unexpired.next().unwrap().clone();
    let confirmed = unexpired.next().unwrap().clone();
    let deny = ApprovalDecisionRequest {
        confirm_token: denied.confirm_token.clone(),
        decision: Decision::Deny,
    };
    let decide = |r: &ApprovalDecisionRequest| json!({"confirm_token": r.confirm_token, "decision": r.decision.as_str()});
    let first = env
        .client
        .post_json(&env.auth, CONFIRM, &decide(&deny))
        .await;
    match classify_exchange(&first, &deny, classify_approval_decision) {
        SaveOutcome::Applied { detail, warning } => {
            assert_eq!(detail.result, DecisionResult::Denied);
            assert_eq!(detail.executed_action, denied);
            assert_eq!(warning, None);
        }
        other => panic!("deny: {other:?}"),
    }
    let late = ApprovalDecisionRequest {
        decision: Decision::Confirm,
        ..deny.clone()
    };
    let second = env
        .client
        .post_json(&env.auth, CONFIRM, &decide(&late))
        .await;
    assert!(
        matches!(
            classify_exchange(&second, &late, classify_approval_decision),
            SaveOutcome::Conflict { .. }
        ),
        "no longer pending: nothing ran for this request"
    );

    let confirm = ApprovalDecisionRequest {
        confirm_token: confirmed.confirm_token.clone(),
        decision: Decision::Confirm,
    };
    let ran = env
        .client
        .post_json(&env.auth, CONFIRM, &decide(&confirm))
        .await;
    match classify_exchange(&ran, &confirm, classify_approval_decision) {
        SaveOutcome::Applied { detail, .. } => {
            assert_eq!(detail.tool_name, confirmed.delegated_tool);
            assert!(!matches!(detail.result, DecisionResult::Denied));
        }
        other => panic!("confirm: {other:?}"),
    }
    let after = env.read::<OperatorApprovals>(OPERATOR).await;
    assert_eq!(after.visible_count, before.visible_count - 2);
    assert!(
        after
            .items
            .iter()
            .all(|a| a.confirm_token != denied.confirm_token
                && a.confirm_token != confirmed.confirm_token)
    );
}

// ---- §4.3 / §4.4 chat send ----

#[tokio::test]
async fn s4_3_chat_send_completes_with_a_reply_and_s4_4_reconciles_by_the_exact_request_id() {
    let env = env().await;
    let keeper = "scout";
    let request_id = format!("tui-{}", uuid::Uuid::now_v7());
    let message = "빌드 상태 알려줘";
    let stream = env
        .client
        .post_sse(
            &env.auth,
            CHAT,
            &json!({"request_id": request_id, "name": keeper, "message": message}),
        )
        .await
        .unwrap();
    let (frames, end) = drain(stream).await;
    assert_eq!(end, SseEnd::Completed);
    let mut validator = ChatStreamValidator::new(Some(&request_id), Some(keeper));
    let mut wire = String::new();
    for frame in &frames {
        validator.push_frame(frame).unwrap();
        for line in frame.data.split('\n') {
            wire.push_str("data: ");
            wire.push_str(line);
            wire.push('\n');
        }
        wire.push('\n');
    }
    let outcome = validator.finish().unwrap();
    // The byte-level reader over the same events judges the same outcome.
    let mut reader = ChatStreamReader::new(Some(&request_id), Some(keeper));
    reader.push(wire.as_bytes()).unwrap();
    assert_eq!(reader.finish().unwrap(), outcome);
    let ChatStreamOutcome::Completed {
        operation_id,
        reply,
        replayed_from,
    } = outcome
    else {
        panic!("completed turn: {outcome:?}");
    };
    assert_eq!(operation_id, request_id);
    assert_eq!(replayed_from, None, "a live turn");
    assert!(reply.turn_outcome.is_visible_reply());
    assert!(!reply.reply.is_empty());

    // §4.4 by the exact request id: succeeded with the reply's turn.
    let target = format!(
        "/api/v1/keepers/{}/chat/operations/{}",
        path_segment(keeper),
        path_segment(&request_id)
    );
    let body = env.read_body(&target).await;
    let record = ChatOperationRecord::decode_for(&body, &request_id).unwrap();
    let OperationProgress::Succeeded { outcome_ref, .. } = &record.progress else {
        panic!("succeeded: {:?}", record.progress);
    };
    assert_eq!(outcome_ref, &reply.turn_ref);

    // §4.5 newest window: the operator's text verbatim, then the reply of that turn.
    let page = env
        .read::<ChatHistoryPage>(&format!(
            "/api/v1/keepers/{}/chat/history/page",
            path_segment(keeper)
        ))
        .await;
    let newest = |role: ChatRole| {
        page.messages
            .iter()
            .filter(|m| m.role == role)
            .max_by(|a, b| {
                a.ts.unwrap_or_default()
                    .total_cmp(&b.ts.unwrap_or_default())
            })
            .unwrap()
    };
    assert_eq!(newest(ChatRole::User).content, message);
    let assistant = newest(ChatRole::Assistant);
    assert_eq!(assistant.content, reply.reply);
    assert_eq!(assistant.turn_ref.as_deref(), Some(reply.turn_ref.as_str()));
}
