//! Create Keeper on the embedded server (protocol.md §9.9, §11; sources.md
//! H-14…H-16): the create-only POST after the machinery's workspace confirm, each outcome
//! distinct (created, rejected, result unconfirmed), each sent exactly once, the roster listing
//! a created Keeper.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code
use crate::actor_support::{foreign_health, health_rule, plan, quiet_health_rig, rig_with};
use crate::save_keeper_lifecycle::roster_row;
use crate::save_keeper_ops::{receipt_event, steps};
use crate::save_rig::{confirmed_scope, submit, worker_returns};
use masc_tui::actors::keepers::ops::KeeperOpEvent;
use masc_tui::actors::keepers::ops::create::{
    CREATE_PATH, CreateIntent, CreateRoute, CreateSave, NAME_EXISTS, NAME_UNCONFIRMED,
};
use masc_tui::actors::saves::refusal::Refusal;
use masc_tui::actors::saves::{Receipt, SaveId, SaveStep};
use masc_tui::protocol::outcome::{KeeperCreateOutcome, SaveClass, SaveOutcome};
use masc_tui::server::faults::FaultPlan;
use serde_json::{Value, json};

fn declaration(name: &str) -> CreateIntent {
    let Value::Object(body) = json!({
        "name": name, "sandbox_profile": "docker", "network_mode": "none",
        "instructions": "Watch the nightly board."
    }) else {
        panic!("an object")
    };
    CreateIntent {
        name: name.into(),
        declaration: body,
        route: CreateRoute::CreateOnly,
    }
}

fn through_up(name: &str) -> CreateIntent {
    CreateIntent {
        route: CreateRoute::UpAfterCheck,
        ..declaration(name)
    }
}

/// §15.11, §15.12 "Keeper up" on the newer MASC (no create-only route, `/up` served): the
/// create-only POST answers "not served" in the one word the view offers `/up` on; through `/up`
/// a new name is created after a fresh existence read (one status GET, one POST); an existing
/// name is not sent (no POST); a failed existence read is "could not confirm", not sent; the
/// race (a Keeper of that name created between the read and the POST) is an existing Keeper
/// reconfigured, never "created"; a lane that does not start is created with its warning.
#[tokio::test(flavor = "current_thread")]
async fn s15_11_create_on_up_follows_the_safe_procedure() {
    use masc_tui::protocol::keeper_up::{CREATE_ONLY_NOT_SERVED, keeper_up_path};
    let status = "/api/v1/gate/keeper-status";
    let rules = format!(
        r#"{{"match":{{"method":"POST","path":"{}"}},"fault":{{"keeper_up":"race"}}}},
           {{"match":{{"method":"POST","path":"{}"}},"fault":{{"keeper_up":"lane_fails"}}}},
           {{"match":{{"method":"GET","path":"{status}","query":"name=pipit"}},"fault":{{"status":503,"body":{{"error":"store busy"}}}}}}"#,
        keeper_up_path("raced"),
        keeper_up_path("shrike"),
    );
    let mut rig = crate::actor_support::rig_on_release_with(
        masc_tui::server::compat::MascRelease::Newer,
        plan(&rules),
    )
    .await;
    let scope = confirmed_scope(&mut rig).await;
    let id = submit::<CreateSave>(&mut rig, declaration("lark"), scope.clone()).await;
    assert_eq!(
        create_receipt(&mut rig, &id).await,
        SaveOutcome::NotApplied {
            reason: CREATE_ONLY_NOT_SERVED.into()
        }
    );

    let id = submit::<CreateSave>(&mut rig, through_up("lark"), scope.clone()).await;
    match create_receipt(&mut rig, &id).await {
        SaveOutcome::Applied { detail, warning } => {
            assert_eq!(detail.name, "lark");
            assert!(warning.is_none());
        }
        other => panic!("not created: {other:?}"),
    }
    assert_eq!(rig.server.request_count("POST", &keeper_up_path("lark")), 1);
    assert!(roster_row(&mut rig, "lark").await.is_some());

    let id = submit::<CreateSave>(&mut rig, through_up("rondo"), scope.clone()).await;
    assert_eq!(
        create_receipt(&mut rig, &id).await,
        SaveOutcome::NotSent {
            reason: NAME_EXISTS.into()
        }
    );
    assert_eq!(
        rig.server.request_count("POST", &keeper_up_path("rondo")),
        0
    );

    let id = submit::<CreateSave>(&mut rig, through_up("pipit"), scope.clone()).await;
    match create_receipt(&mut rig, &id).await {
        SaveOutcome::NotSent { reason } => {
            assert!(reason.starts_with(NAME_UNCONFIRMED), "{reason}")
        }
        other => panic!("an unconfirmable name was sent: {other:?}"),
    }
    assert_eq!(
        rig.server.request_count("POST", &keeper_up_path("pipit")),
        0
    );

    let id = submit::<CreateSave>(&mut rig, through_up("raced"), scope.clone()).await;
    assert!(matches!(
        create_receipt(&mut rig, &id).await,
        SaveOutcome::Conflict { .. }
    ));

    let id = submit::<CreateSave>(&mut rig, through_up("shrike"), scope).await;
    match create_receipt(&mut rig, &id).await {
        SaveOutcome::Applied {
            warning: Some(w), ..
        } => assert!(w.contains("shrike was created but did not start"), "{w}"),
        other => panic!("a lane failure is created with its warning: {other:?}"),
    }
    rig.finish().await;
}

/// §15.11 on MASC main of 2026-08-23: neither route is served — through `/up` the answer says
/// so (the view then refuses before the editor opens).
#[tokio::test(flavor = "current_thread")]
async fn s15_11_august_serves_neither_create_route() {
    use masc_tui::protocol::keeper_up::KEEPER_UP_NOT_SERVED;
    let mut rig =
        crate::actor_support::rig_on_release(masc_tui::server::compat::MascRelease::Aug).await;
    let scope = confirmed_scope(&mut rig).await;
    let id = submit::<CreateSave>(&mut rig, through_up("lark"), scope).await;
    assert_eq!(
        create_receipt(&mut rig, &id).await,
        SaveOutcome::NotApplied {
            reason: KEEPER_UP_NOT_SERVED.into()
        }
    );
    rig.finish().await;
}

async fn create_receipt(rig: &mut crate::actor_support::Rig, id: &SaveId) -> KeeperCreateOutcome {
    match receipt_event(rig, id).await {
        KeeperOpEvent::Create(e) => match e.step {
            SaveStep::Ended(r) => r,
            other => panic!("not a receipt: {other:?}"),
        },
        other => panic!("not a create: {other:?}"),
    }
}

/// H-14, §9.9: confirming (written), sending, terminal — created with its lane running; the
/// roster then lists it; the same name again is rejected as existing (never changed).
#[tokio::test(flavor = "current_thread")]
async fn h14_s9_9_create_is_sent_once_created_then_the_same_name_is_rejected() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let scope = confirmed_scope(&mut rig).await;
    let id = submit::<CreateSave>(&mut rig, declaration("lark"), scope.clone()).await;
    match create_receipt(&mut rig, &id).await {
        SaveOutcome::Applied { detail, warning } => {
            assert_eq!(detail.name, "lark");
            assert!(warning.is_none(), "{warning:?}");
        }
        other => panic!("not created: {other:?}"),
    }
    assert_eq!(
        steps(&mut rig, &id),
        ["written", "sending", "ended:applied"]
    );
    assert_eq!(rig.server.request_count("POST", CREATE_PATH), 1);
    assert!(
        roster_row(&mut rig, "lark").await.is_some(),
        "the roster lists it"
    );

    let again = submit::<CreateSave>(&mut rig, declaration("lark"), scope).await;
    match create_receipt(&mut rig, &again).await {
        SaveOutcome::Conflict { current } => assert_eq!(current.name.as_deref(), Some("lark")),
        other => panic!("not rejected as existing: {other:?}"),
    }
    assert_eq!(
        worker_returns(&rig, "keeper_create"),
        ["worker_return:ok", "worker_return:conflict"]
    );
    rig.finish().await;
}

/// H-14, §11: a 400 is server-rejected (not applied); a drop before the handler and a drop
/// after the store committed are result unconfirmed — the second really created it, once; a
/// 500 is unconfirmed too. Each sent exactly once; nothing resent.
#[tokio::test(flavor = "current_thread")]
async fn h14_rejected_and_unconfirmed_are_distinct_and_each_sent_once() {
    let post = format!(r#""method":"POST","path":"{CREATE_PATH}""#);
    let rules = format!(
        r#"{{"match":{{{post}}},"when":{{"nth":1}},"fault":{{"status":400,"body":{{"ok":false,"error":"instructions is required"}}}}}},
           {{"match":{{{post}}},"when":{{"nth":2}},"fault":{{"drop":"before_apply"}}}},
           {{"match":{{{post}}},"when":{{"nth":3}},"fault":{{"drop":"after_apply"}}}},
           {{"match":{{{post}}},"when":{{"nth":4}},"fault":{{"status":500,"body":{{"error":"boom"}}}}}}"#
    );
    let mut rig = rig_with(plan(&rules)).await;
    let scope = confirmed_scope(&mut rig).await;
    let mut classes = Vec::new();
    for name in ["wren-a", "wren-b", "wren-c", "wren-d"] {
        let id = submit::<CreateSave>(&mut rig, declaration(name), scope.clone()).await;
        classes.push(create_receipt(&mut rig, &id).await.class().to_string());
    }
    assert_eq!(
        classes,
        [
            "not_applied",
            "outcome_unknown",
            "outcome_unknown",
            "outcome_unknown"
        ]
    );
    assert_eq!(rig.server.request_count("POST", CREATE_PATH), 4);
    assert!(
        roster_row(&mut rig, "wren-b").await.is_none(),
        "dropped before apply: not created"
    );
    assert!(
        roster_row(&mut rig, "wren-c").await.is_some(),
        "dropped after apply: created once"
    );
    rig.finish().await;
}

/// H-14, H-15, §2.4: the machinery's fresh `/health` before the create — one that fails, one
/// serving another workspace — ends the create as not sent (`precheck_failed_…`,
/// `precheck_identity`) after the outbox row and before sending: steps `written → not sent`,
/// no POST, nothing created; the next create on a healthy workspace is sent once.
#[tokio::test(flavor = "current_thread")]
async fn h14_h15_a_create_refused_by_the_health_precheck_is_not_sent() {
    let mut rig = quiet_health_rig(FaultPlan::default()).await;
    let scope = confirmed_scope(&mut rig).await;
    let foreign = foreign_health(&rig.server.base_path());
    rig.server.set_faults(plan(&format!(
        "{},{}",
        health_rule(1, 500, r#"{"error":"down"}"#),
        health_rule(2, 200, &foreign)
    )));
    let mut refusals = Vec::new();
    for name in ["finch-a", "finch-b"] {
        let id = submit::<CreateSave>(&mut rig, declaration(name), scope.clone()).await;
        let receipt = create_receipt(&mut rig, &id).await;
        assert_eq!(
            receipt.save_class(),
            SaveClass::NotSent,
            "{name}: {receipt:?}"
        );
        refusals.push(Receipt::refusal(&receipt));
        assert_eq!(steps(&mut rig, &id), ["written", "ended:not_sent"]);
    }
    assert_eq!(
        refusals,
        [
            Some(Refusal::precheck_failed("status_500")),
            Some(Refusal::PrecheckIdentity)
        ]
    );
    assert_eq!(rig.server.request_count("POST", CREATE_PATH), 0);
    assert!(roster_row(&mut rig, "finch-a").await.is_none());

    let id = submit::<CreateSave>(&mut rig, declaration("finch-c"), scope).await;
    assert_eq!(
        create_receipt(&mut rig, &id).await.class().to_string(),
        "applied"
    );
    assert_eq!(rig.server.request_count("POST", CREATE_PATH), 1);
    assert_eq!(
        worker_returns(&rig, "keeper_create"),
        [
            "worker_return:not_sent",
            "worker_return:not_sent",
            "worker_return:ok"
        ]
    );
    rig.finish().await;
}
