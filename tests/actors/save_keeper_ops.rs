//! Keeper operation saves on the embedded server (protocol.md §9.5–§9.8,
//! §11; sources.md H-8…H-13): Sandbox `d`/`m`/`s` and the runtime assignment picked with `U`.
//! Typed receipts per fault plan, the requests actually made, and the traced stages.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code
use crate::actor_support::{Rig, foreign_health, health_rule, plan, quiet_health_rig, rig_with};
use crate::save_rig::{confirmed_scope, stages, step_name, submit, worker_returns};
use masc_tui::actors::contract::SlotEvent;
use masc_tui::actors::keepers::ops::assignment::{AssignmentIntent, AssignmentSave};
use masc_tui::actors::keepers::ops::sandbox::{SandboxIntent, SandboxSave};
use masc_tui::actors::keepers::ops::{
    KeeperOpEvent, OWNER_NOT_RECONFIRMED, REVISION_UNAVAILABLE, SNAPSHOT_UNREAD,
};
use masc_tui::actors::keepers::{KeepersObservation, KeepersSlot};
use masc_tui::actors::saves::{SaveId, SaveStep};
use masc_tui::protocol::keeper_config::SandboxProfile;
use masc_tui::protocol::outcome::{
    KeeperConfigApplied, KeeperConfigOutcome, RuntimeAssignmentOutcome, SaveClass, SaveOutcome,
};
use masc_tui::server::faults::FaultPlan;

type Event = SlotEvent<KeepersSlot, KeepersObservation>;

const ASSIGN: &str = "/api/v1/runtime/config/assignment";

fn config_path(keeper: &str) -> String {
    format!("/api/v1/keepers/{keeper}/config")
}

pub(crate) fn step_of(event: &KeeperOpEvent) -> String {
    match event {
        KeeperOpEvent::Sandbox(e) => step_name(&e.step),
        KeeperOpEvent::Assignment(e) => step_name(&e.step),
        KeeperOpEvent::Lifecycle(e) => step_name(&e.step),
        KeeperOpEvent::Settings(e) => step_name(&e.step),
        KeeperOpEvent::Create(e) => step_name(&e.step),
    }
}

fn ended(event: &KeeperOpEvent) -> bool {
    match event {
        KeeperOpEvent::Sandbox(e) => matches!(e.step, SaveStep::Ended(_)),
        KeeperOpEvent::Assignment(e) => matches!(e.step, SaveStep::Ended(_)),
        KeeperOpEvent::Lifecycle(e) => matches!(e.step, SaveStep::Ended(_)),
        KeeperOpEvent::Settings(e) => matches!(e.step, SaveStep::Ended(_)),
        KeeperOpEvent::Create(e) => matches!(e.step, SaveStep::Ended(_)),
    }
}

/// The receipt event of save `id`.
pub(crate) async fn receipt_event(rig: &mut Rig, id: &SaveId) -> KeeperOpEvent {
    let found = rig
        .view
        .wait_slot::<KeepersSlot, KeepersObservation>(|e: &Event| {
            matches!(e, SlotEvent::Observed(_, KeepersObservation::Op(ev))
                if ev.save_id() == id && ended(ev))
        })
        .await;
    match found {
        Some(SlotEvent::Observed(_, KeepersObservation::Op(ev))) => (**ev).clone(),
        other => panic!("no receipt: {other:?}"),
    }
}

async fn sandbox_receipt(rig: &mut Rig, id: &SaveId) -> KeeperConfigOutcome {
    match receipt_event(rig, id).await {
        KeeperOpEvent::Sandbox(e) => match e.step {
            SaveStep::Ended(r) => r,
            other => panic!("not a receipt: {other:?}"),
        },
        other => panic!("not a sandbox save: {other:?}"),
    }
}

async fn assignment_receipt(rig: &mut Rig, id: &SaveId) -> RuntimeAssignmentOutcome {
    match receipt_event(rig, id).await {
        KeeperOpEvent::Assignment(e) => match e.step {
            SaveStep::Ended(r) => r,
            other => panic!("not a receipt: {other:?}"),
        },
        other => panic!("not an assignment save: {other:?}"),
    }
}

/// The steps save `id` posted to its own slot, in order.
pub(crate) fn steps(rig: &mut Rig, id: &SaveId) -> Vec<String> {
    rig.view
        .slot_events::<KeepersSlot, KeepersObservation>()
        .iter()
        .filter_map(|e| match e {
            SlotEvent::Observed(t, KeepersObservation::Op(ev)) if ev.save_id() == id => {
                // Each save lands in its own slot (H-6: never another Keeper's or save's).
                assert!(matches!(&t.slot, KeepersSlot::Op(op) if op.save_id() == id));
                Some(step_of(ev))
            }
            _ => None,
        })
        .collect()
}

fn sandbox(keeper: &str, profile: SandboxProfile) -> SandboxIntent {
    SandboxIntent {
        keeper: keeper.into(),
        profile,
    }
}

/// H-8, §9.7, §11 applied: `m` on a docker Keeper reads a fresh snapshot, CAS-sends the profile
/// once, and the receipt lands in the save's own slot; the same key again is verified against
/// a fresh revision and recorded as unchanged with nothing sent.
#[tokio::test(flavor = "current_thread")]
async fn h8_s11_sandbox_profile_is_applied_once_then_unchanged_and_not_sent() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let scope = confirmed_scope(&mut rig).await;
    let path = config_path("rondo");
    let id = submit::<SandboxSave>(
        &mut rig,
        sandbox("rondo", SandboxProfile::Microvm),
        scope.clone(),
    )
    .await;
    match sandbox_receipt(&mut rig, &id).await {
        SaveOutcome::Applied {
            detail: KeeperConfigApplied::Written(write),
            warning: None,
        } => assert!(write.applied),
        other => panic!("not applied: {other:?}"),
    }
    assert_eq!(rig.server.request_count("POST", &path), 1);
    assert_eq!(rig.server.request_count("GET", &path), 1);
    assert_eq!(
        steps(&mut rig, &id),
        ["written", "sending", "ended:applied"]
    );
    assert_eq!(
        stages(&rig, "keeper_sandbox"),
        ["dispatch:", "worker_enter:", "worker_return:ok"]
    );

    let again =
        submit::<SandboxSave>(&mut rig, sandbox("rondo", SandboxProfile::Microvm), scope).await;
    assert_eq!(
        sandbox_receipt(&mut rig, &again).await,
        SaveOutcome::Unchanged
    );
    assert_eq!(rig.server.request_count("GET", &path), 2, "a fresh read");
    assert_eq!(rig.server.request_count("POST", &path), 1, "nothing sent");
    rig.finish().await;
}

/// H-8: the snapshot read fails → not sent (the POST never leaves); traced with its class.
#[tokio::test(flavor = "current_thread")]
async fn h8_an_unread_snapshot_is_not_sent() {
    let mut rig = rig_with(plan(
        r#"{"match":{"method":"GET","path":"/api/v1/keepers/rondo/config"},"fault":{"status":500,"body":{"error":"store"}}}"#,
    ))
    .await;
    let scope = confirmed_scope(&mut rig).await;
    let id = submit::<SandboxSave>(&mut rig, sandbox("rondo", SandboxProfile::Docker), scope).await;
    match sandbox_receipt(&mut rig, &id).await {
        SaveOutcome::NotSent { reason } => assert!(reason.starts_with(SNAPSHOT_UNREAD), "{reason}"),
        other => panic!("not 'not sent': {other:?}"),
    }
    assert_eq!(rig.server.request_count("POST", &config_path("rondo")), 0);
    assert_eq!(
        stages(&rig, "keeper_sandbox"),
        ["dispatch:", "worker_enter:", "worker_return:not_sent"]
    );
    rig.finish().await;
}

/// H-6, §11: a typed 409 is a revision conflict; a reconciliation 503 is outcome unknown; a
/// runtime-sync 503 is applied plus failure; a lost connection after the store commit is
/// outcome unknown. Each distinct, each sent exactly once.
#[tokio::test(flavor = "current_thread")]
async fn h6_s11_sandbox_conflict_unknown_sync_failure_and_drop_are_distinct() {
    let rev = r#"{"manifest":{"state":"missing"},"runtime_assignment":{"state":"runtime_config_missing"}}"#;
    let conflict = format!(
        r#"{{"ok":false,"keeper":"rondo","config_applied":false,"runtime_sync":false,"error":{{"code":"keeper_config_revision_conflict","expected":{rev},"observed":{rev}}}}}"#
    );
    let rules = format!(
        r#"{{"match":{{"method":"POST","path":"/api/v1/keepers/rondo/config"}},"when":{{"nth":1}},"fault":{{"status":409,"body":{conflict}}}}},
           {{"match":{{"method":"POST","path":"/api/v1/keepers/rondo/config"}},"when":{{"nth":2}},"fault":{{"status":503,"body":{{"ok":false,"config_application":{{"state":"indeterminate"}},"authoritative_reload_required":true,"error":{{"code":"keeper_manifest_reconciliation_required"}}}}}}}},
           {{"match":{{"method":"POST","path":"/api/v1/keepers/rondo/config"}},"when":{{"nth":3}},"fault":{{"status":503,"body":{{"ok":false,"config_applied":true,"error":{{"code":"keeper_runtime_sync_failed"}}}}}}}},
           {{"match":{{"method":"POST","path":"/api/v1/keepers/rondo/config"}},"when":{{"nth":4}},"fault":{{"drop":"after_apply"}}}}"#
    );
    let mut rig = rig_with(plan(&rules)).await;
    let scope = confirmed_scope(&mut rig).await;
    let mut classes = Vec::new();
    for profile in [
        SandboxProfile::Microvm,
        SandboxProfile::Microvm,
        SandboxProfile::Microvm,
        SandboxProfile::Microvm,
    ] {
        let id = submit::<SandboxSave>(&mut rig, sandbox("rondo", profile), scope.clone()).await;
        let r = sandbox_receipt(&mut rig, &id).await;
        if let SaveOutcome::Applied { detail, warning } = &r {
            assert_eq!(detail, &KeeperConfigApplied::WrittenRuntimeNotSynced);
            assert!(warning.is_some());
        }
        classes.push(r.class().to_string());
    }
    assert_eq!(
        classes,
        ["conflict", "outcome_unknown", "applied", "outcome_unknown"]
    );
    assert_eq!(rig.server.request_count("POST", &config_path("rondo")), 4);
    rig.finish().await;
}

/// H-10, H-12, §11 runtime assignment: a concrete Runtime commits; the same choice again is the
/// server's unchanged; a typed 409 is a verified revision conflict; every 400 is outcome
/// unknown (never assumed unapplied); 403 is auth rejected (not applied).
#[tokio::test(flavor = "current_thread")]
async fn h10_h12_assignment_outcomes_are_distinct() {
    let rev = r#"{"state":"runtime_config_missing"}"#;
    let rules = format!(
        r#"{{"match":{{"method":"POST","path":"{ASSIGN}"}},"when":{{"nth":3}},"fault":{{"status":409,"body":{{"ok":false,"error":{{"code":"runtime_assignment_revision_conflict","expected":{rev},"observed":{rev}}}}}}}}},
           {{"match":{{"method":"POST","path":"{ASSIGN}"}},"when":{{"nth":4}},"fault":{{"status":400,"body":{{"error":"atomic replace failed"}}}}}},
           {{"match":{{"method":"POST","path":"{ASSIGN}"}},"when":{{"nth":5}},"fault":{{"status":403,"body":{{"error":"forbidden","auth_error_code":"insufficient_role"}}}}}}"#
    );
    let mut rig = rig_with(plan(&rules)).await;
    let scope = confirmed_scope(&mut rig).await;
    let choice = AssignmentIntent {
        keeper: "rondo".into(),
        runtime_id: Some("openai.gpt-5".into()),
        only_at: None,
    };
    let mut classes = Vec::new();
    for _ in 0..5 {
        let id = submit::<AssignmentSave>(&mut rig, choice.clone(), scope.clone()).await;
        let r = assignment_receipt(&mut rig, &id).await;
        classes.push(r.class().to_string());
    }
    assert_eq!(
        classes,
        [
            "applied",
            "unchanged",
            "conflict",
            "outcome_unknown",
            "not_applied"
        ]
    );
    assert_eq!(rig.server.request_count("POST", ASSIGN), 5);
    assert_eq!(
        rig.server.request_count("GET", &config_path("rondo")),
        5,
        "H-10: a fresh read each"
    );
    assert_eq!(
        worker_returns(&rig, "keeper_assignment"),
        [
            "worker_return:ok",
            "worker_return:ok",
            "worker_return:conflict",
            "worker_return:outcome_unknown",
            "worker_return:not_applied"
        ]
    );
    rig.finish().await;
}

/// H-10: back to the default sends `runtime_id: null` and commits.
#[tokio::test(flavor = "current_thread")]
async fn h10_back_to_default_commits() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let scope = confirmed_scope(&mut rig).await;
    let id = submit::<AssignmentSave>(
        &mut rig,
        AssignmentIntent {
            keeper: "scout".into(),
            runtime_id: None,
            only_at: None,
        },
        scope,
    )
    .await;
    let r = assignment_receipt(&mut rig, &id).await;
    assert_eq!(r.save_class(), SaveClass::Applied, "{r:?}");
    rig.finish().await;
}

/// H-8, H-10, §9.5: the worker's own fresh snapshot with `config_revision: unavailable` refuses
/// the save (not sent, `revision_unavailable`); a reconfirmation just before the POST that
/// serves another workspace refuses it too (not sent, `owner_not_reconfirmed`) — for Sandbox
/// and for the assignment. The machinery's pre-check is the first `/health` of each save, the
/// kind's reconfirmation the second. No POST at all.
#[tokio::test(flavor = "current_thread")]
async fn h8_h10_revision_unavailable_and_a_foreign_reconfirmation_are_not_sent() {
    let mut rig = quiet_health_rig(FaultPlan::default()).await;
    let scope = confirmed_scope(&mut rig).await;
    let unavailable = r#"{"name":"rondo","config_revision":{"state":"unavailable","detail":"manifest unreadable"},"execution":{"selected_runtime_id":null},"autoboot_enabled":true,"max_context_override":null,"sandbox_profile":"docker","network_mode":"none"}"#;
    rig.server.set_faults(plan(&format!(
        r#"{{"match":{{"method":"GET","path":"/api/v1/keepers/rondo/config"}},"fault":{{"status":200,"body":{unavailable}}}}}"#
    )));
    let id = submit::<SandboxSave>(
        &mut rig,
        sandbox("rondo", SandboxProfile::Microvm),
        scope.clone(),
    )
    .await;
    assert_eq!(
        sandbox_receipt(&mut rig, &id).await,
        SaveOutcome::NotSent {
            reason: REVISION_UNAVAILABLE.into()
        }
    );

    let foreign = foreign_health(&rig.server.base_path());
    let health_before = rig.server.request_count("GET", "/health");
    rig.server.set_faults(plan(&format!(
        "{},{}",
        health_rule(2, 200, &foreign),
        health_rule(4, 200, &foreign)
    )));
    let id = submit::<SandboxSave>(
        &mut rig,
        sandbox("rondo", SandboxProfile::Microvm),
        scope.clone(),
    )
    .await;
    assert_eq!(
        sandbox_receipt(&mut rig, &id).await,
        SaveOutcome::NotSent {
            reason: OWNER_NOT_RECONFIRMED.into()
        }
    );
    assert_eq!(
        steps(&mut rig, &id),
        ["written", "sending", "ended:not_sent"]
    );
    let id = submit::<AssignmentSave>(
        &mut rig,
        AssignmentIntent {
            keeper: "rondo".into(),
            runtime_id: Some("openai.gpt-5".into()),
            only_at: None,
        },
        scope,
    )
    .await;
    match assignment_receipt(&mut rig, &id).await {
        SaveOutcome::NotSent { reason } => assert_eq!(reason, OWNER_NOT_RECONFIRMED),
        other => panic!("sent after a foreign reconfirmation: {other:?}"),
    }
    assert_eq!(
        rig.server.request_count("GET", "/health") - health_before,
        4,
        "a pre-check and a reconfirmation per save, nothing else"
    );
    assert_eq!(rig.server.request_count("POST", &config_path("rondo")), 0);
    assert_eq!(rig.server.request_count("POST", ASSIGN), 0);
    let returns: Vec<String> = worker_returns(&rig, "keeper_sandbox");
    assert_eq!(
        returns,
        ["worker_return:not_sent", "worker_return:not_sent"]
    );
    rig.finish().await;
}
