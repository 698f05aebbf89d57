//! The settings editor's actors on the embedded server (protocol.md §9.5, §9.6, §11;
//! sources.md H-1…H-7): the preparation source (`keeper_settings`: snapshot, reconfirmation,
//! one slot re-aimed per Keeper) and the settings save (`save:keeper_settings`: the changed
//! keys with the snapshot's revision, CAS, sent once). Typed results per fault plan, the
//! requests actually made, the traced stages.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code
use crate::actor_support::{Rig, foreign_health, health_rule, plan, quiet_health_rig, rig_with};
use crate::save_keeper_ops::{receipt_event, steps};
use crate::save_rig::{confirmed_scope, stages, submit};
use masc_tui::actors::contract::SlotEvent;
use masc_tui::actors::keepers::ops::KeeperOpEvent;
use masc_tui::actors::keepers::ops::settings::{SettingsIntent, SettingsSave};
use masc_tui::actors::keepers::settings::{
    EditableSettings, KEEPER_SETTINGS, KeeperSettingsCommand, SettingsPrepared,
    SettingsSnapshotFailure,
};
use masc_tui::actors::keepers::{KeepersObservation, KeepersSlot};
use masc_tui::actors::saves::{SaveId, SaveStep};
use masc_tui::protocol::client::ClientError;
use masc_tui::protocol::outcome::{KeeperConfigOutcome, SaveClass, SaveOutcome};
use masc_tui::server::faults::FaultPlan;
use serde_json::{Map, Value, json};

type Event = SlotEvent<KeepersSlot, KeepersObservation>;

fn config_path(keeper: &str) -> String {
    format!("/api/v1/keepers/{keeper}/config")
}

async fn prepare(rig: &mut Rig, keeper: &str) {
    let source = rig
        .source_handle(KEEPER_SETTINGS)
        .await
        .commands::<KeeperSettingsCommand>()
        .expect("the settings source takes its commands");
    source
        .send_message(KeeperSettingsCommand::Prepare {
            keeper: keeper.into(),
        })
        .unwrap();
}

/// The next preparation result for `keeper`.
async fn prepared(rig: &mut Rig, keeper: &str) -> SettingsPrepared {
    let found = rig
        .view
        .wait_slot::<KeepersSlot, KeepersObservation>(|e: &Event| {
            matches!(e, SlotEvent::Observed(_, KeepersObservation::Settings(p)) if p.keeper == keeper)
        })
        .await;
    match found {
        Some(SlotEvent::Observed(_, KeepersObservation::Settings(p))) => (**p).clone(),
        other => panic!("no preparation result: {other:?}"),
    }
}

async fn snapshot_of(rig: &mut Rig, keeper: &str) -> EditableSettings {
    prepare(rig, keeper).await;
    match prepared(rig, keeper).await.outcome {
        Ok(p) => p,
        Err(e) => panic!("not prepared: {e:?}"),
    }
}

async fn settings_receipt(rig: &mut Rig, id: &SaveId) -> KeeperConfigOutcome {
    match receipt_event(rig, id).await {
        KeeperOpEvent::Settings(e) => match e.step {
            SaveStep::Ended(r) => r,
            other => panic!("not a receipt: {other:?}"),
        },
        other => panic!("not a settings save: {other:?}"),
    }
}

fn intent(keeper: &str, prepared: &EditableSettings, patch: Value) -> SettingsIntent {
    let Value::Object(patch) = patch else {
        panic!("a patch is an object")
    };
    SettingsIntent {
        keeper: keeper.into(),
        expected: prepared.revision.clone(),
        patch,
        confirm_context_shrink: false,
        before: serde_json::Map::new(),
    }
}

/// H-1, §9.5: `e`'s preparation reads the snapshot once under the confirmed epoch, reconfirms
/// the workspace, and lands in its own slot typed (revision composite, name checked).
#[tokio::test(flavor = "current_thread")]
async fn h1_s9_5_the_preparation_reads_the_snapshot_then_reconfirms() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let _ = confirmed_scope(&mut rig).await;
    let health_before = rig.server.request_count("GET", "/health");
    let p = snapshot_of(&mut rig, "rondo").await;
    assert_eq!(p.snapshot.name.as_deref(), Some("rondo"));
    assert_eq!(p.snapshot.autoboot_enabled, Some(true));
    assert_eq!(rig.server.request_count("GET", &config_path("rondo")), 1);
    assert!(
        rig.server.request_count("GET", "/health") > health_before,
        "a reconfirmation after the read"
    );
    let traced: Vec<String> = rig
        .recorder
        .records_where(|r| r.source == "keeper_settings")
        .iter()
        .map(|r| format!("{}:{}", r.stage, r.outcome.clone().unwrap_or_default()))
        .collect();
    assert!(traced.iter().any(|s| s == "worker_return:ok"), "{traced:?}");
    rig.finish().await;
}

/// H-1: a failed snapshot read is typed with its class; nothing opens, nothing is written.
#[tokio::test(flavor = "current_thread")]
async fn h1_a_failed_snapshot_read_is_typed_and_nothing_is_written() {
    let mut rig = rig_with(plan(
        r#"{"match":{"method":"GET","path":"/api/v1/keepers/rondo/config"},"fault":{"status":500,"body":{"error":"store"}}}"#,
    ))
    .await;
    let _ = confirmed_scope(&mut rig).await;
    prepare(&mut rig, "rondo").await;
    match prepared(&mut rig, "rondo").await.outcome {
        Err(SettingsSnapshotFailure::Read(ClientError::Status { status: 500, .. })) => {}
        other => panic!("not a typed read failure: {other:?}"),
    }
    assert_eq!(rig.server.request_count("POST", &config_path("rondo")), 0);
    rig.finish().await;
}

/// H-1, H-2: a preparation for another Keeper supersedes the read in flight — the first
/// Keeper's answer never reaches the view, the second's does.
#[tokio::test(flavor = "current_thread")]
async fn h2_a_preparation_for_another_keeper_supersedes_the_read_in_flight() {
    let mut rig = rig_with(plan(
        r#"{"match":{"method":"GET","path":"/api/v1/keepers/rondo/config"},"fault":{"delay_ms":400}}"#,
    ))
    .await;
    let _ = confirmed_scope(&mut rig).await;
    prepare(&mut rig, "rondo").await;
    prepare(&mut rig, "sangsu").await;
    let p = prepared(&mut rig, "sangsu").await;
    assert!(p.outcome.is_ok(), "{p:?}");
    tokio::time::sleep(std::time::Duration::from_millis(600)).await;
    rig.view.drain_ready();
    let rondo_seen = rig
        .view
        .slot_events::<KeepersSlot, KeepersObservation>()
        .iter()
        .any(|e| matches!(e, SlotEvent::Observed(_, KeepersObservation::Settings(p)) if p.keeper == "rondo"));
    assert!(!rondo_seen, "the superseded read reached the view");
    let retired = rig
        .view
        .slot_events::<KeepersSlot, KeepersObservation>()
        .iter()
        .any(|e| matches!(e, SlotEvent::Retired(t) if t.slot == KeepersSlot::Settings));
    assert!(retired, "the superseded read is retired");
    rig.finish().await;
}

/// H-4, §9.6: the changed keys go once with the snapshot's revision; the next preparation
/// reads the saved value; the receipt lands in the save's own slot in order.
#[tokio::test(flavor = "current_thread")]
async fn h4_s9_6_a_settings_save_applies_once_and_the_reread_shows_it() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let scope = confirmed_scope(&mut rig).await;
    let before = snapshot_of(&mut rig, "rondo").await;
    let id = submit::<SettingsSave>(
        &mut rig,
        intent("rondo", &before, json!({"autoboot_enabled": false})),
        scope,
    )
    .await;
    let r = settings_receipt(&mut rig, &id).await;
    assert_eq!(r.save_class(), SaveClass::Applied, "{r:?}");
    assert_eq!(rig.server.request_count("POST", &config_path("rondo")), 1);
    assert_eq!(
        steps(&mut rig, &id),
        ["written", "sending", "ended:applied"]
    );
    assert_eq!(
        stages(&rig, "keeper_settings"),
        ["dispatch:", "worker_enter:", "worker_return:ok"]
    );
    let after = snapshot_of(&mut rig, "rondo").await;
    assert_eq!(after.snapshot.autoboot_enabled, Some(false));
    assert_ne!(after.revision, before.revision, "a new revision");
    rig.finish().await;
}

/// H-6, H-7, §9.6: a save whose revision is no longer current is the server's verified
/// conflict (a real one: another change landed in between), and nothing is applied; the save
/// is never resent.
#[tokio::test(flavor = "current_thread")]
async fn h6_h7_a_stale_revision_is_a_verified_conflict_and_nothing_is_applied() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let scope = confirmed_scope(&mut rig).await;
    let stale = snapshot_of(&mut rig, "rondo").await;
    let first = submit::<SettingsSave>(
        &mut rig,
        intent("rondo", &stale, json!({"mention_targets": ["@elsewhere"]})),
        scope.clone(),
    )
    .await;
    assert_eq!(
        settings_receipt(&mut rig, &first).await.save_class(),
        SaveClass::Applied
    );
    let second = submit::<SettingsSave>(
        &mut rig,
        intent("rondo", &stale, json!({"autoboot_enabled": false})),
        scope,
    )
    .await;
    match settings_receipt(&mut rig, &second).await {
        SaveOutcome::Conflict { current } => assert_ne!(current.expected, current.observed),
        other => panic!("not a conflict: {other:?}"),
    }
    let now = snapshot_of(&mut rig, "rondo").await;
    assert_eq!(now.snapshot.autoboot_enabled, Some(true), "not applied");
    assert_eq!(rig.server.request_count("POST", &config_path("rondo")), 2);
    rig.finish().await;
}

/// H-5, H-6, §11: dropped before the handler, dropped after the store committed, a typed 409,
/// a 5xx and a runtime-sync 503 are each their own outcome; each save sent exactly once; the
/// drop after apply really applied (the re-read shows it) and is still outcome unknown.
#[tokio::test(flavor = "current_thread")]
async fn h5_h6_s11_settings_faults_are_distinct_and_each_sent_once() {
    let rev = r#"{"manifest":{"state":"missing"},"runtime_assignment":{"state":"runtime_config_missing"}}"#;
    let conflict = format!(
        r#"{{"ok":false,"keeper":"rondo","config_applied":false,"runtime_sync":false,"error":{{"code":"keeper_config_revision_conflict","expected":{rev},"observed":{rev}}}}}"#
    );
    let post = r#""method":"POST","path":"/api/v1/keepers/rondo/config""#;
    let rules = format!(
        r#"{{"match":{{{post}}},"when":{{"nth":1}},"fault":{{"drop":"before_apply"}}}},
           {{"match":{{{post}}},"when":{{"nth":2}},"fault":{{"status":409,"body":{conflict}}}}},
           {{"match":{{{post}}},"when":{{"nth":3}},"fault":{{"status":500,"body":{{"error":"boom"}}}}}},
           {{"match":{{{post}}},"when":{{"nth":4}},"fault":{{"status":503,"body":{{"ok":false,"config_applied":true,"error":{{"code":"keeper_runtime_sync_failed"}}}}}}}},
           {{"match":{{{post}}},"when":{{"nth":5}},"fault":{{"drop":"after_apply"}}}}"#
    );
    let mut rig = rig_with(plan(&rules)).await;
    let scope = confirmed_scope(&mut rig).await;
    let mut classes = Vec::new();
    for value in [false, false, false, false, false] {
        let fresh = snapshot_of(&mut rig, "rondo").await;
        let id = submit::<SettingsSave>(
            &mut rig,
            intent("rondo", &fresh, json!({"autoboot_enabled": value})),
            scope.clone(),
        )
        .await;
        classes.push(settings_receipt(&mut rig, &id).await.class().to_string());
    }
    assert_eq!(
        classes,
        [
            "outcome_unknown",
            "conflict",
            "outcome_unknown",
            "applied",
            "outcome_unknown"
        ]
    );
    assert_eq!(rig.server.request_count("POST", &config_path("rondo")), 5);
    let after = snapshot_of(&mut rig, "rondo").await;
    assert_eq!(after.snapshot.autoboot_enabled, Some(false));
    rig.finish().await;
}

/// H-4: one settings save per Keeper — an empty patch is not sent at all (§9.6).
#[tokio::test(flavor = "current_thread")]
async fn h4_s9_6_an_empty_patch_is_not_sent() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let scope = confirmed_scope(&mut rig).await;
    let fresh = snapshot_of(&mut rig, "rondo").await;
    let id = submit::<SettingsSave>(
        &mut rig,
        intent("rondo", &fresh, Value::Object(Map::new())),
        scope,
    )
    .await;
    assert_eq!(
        settings_receipt(&mut rig, &id).await,
        SaveOutcome::Unchanged
    );
    assert_eq!(rig.server.request_count("POST", &config_path("rondo")), 0);
    rig.finish().await;
}

/// A §9.5 snapshot of rondo whose `config_revision` is `unavailable` (a fault's 200 body).
const UNAVAILABLE_SNAPSHOT: &str = r#"{"name":"rondo","config_revision":{"state":"unavailable","detail":"manifest unreadable"},"execution":{"selected_runtime_id":null},"autoboot_enabled":true,"max_context_override":null,"sandbox_profile":"docker","network_mode":"none"}"#;

fn unavailable_rule() -> String {
    format!(
        r#"{{"match":{{"method":"GET","path":"/api/v1/keepers/rondo/config"}},"fault":{{"status":200,"body":{UNAVAILABLE_SNAPSHOT}}}}}"#
    )
}

/// The traced outcomes of the preparation source's worker returns.
fn prep_returns(rig: &Rig) -> Vec<String> {
    rig.recorder
        .records_where(|r| r.source == "keeper_settings" && r.stage == "worker_return")
        .iter()
        .map(|r| r.outcome.clone().unwrap_or_default())
        .collect()
}

/// H-1, §9.5: a snapshot whose `config_revision` is `unavailable` refuses editing — typed with
/// the server's detail, traced `revision_unavailable`; the workspace is not even reconfirmed
/// (nothing would be opened), and nothing is written.
#[tokio::test(flavor = "current_thread")]
async fn h1_s9_5_config_revision_unavailable_refuses_editing_and_writes_nothing() {
    let mut rig = quiet_health_rig(FaultPlan::default()).await;
    let _ = confirmed_scope(&mut rig).await;
    rig.server.set_faults(plan(&unavailable_rule()));
    let health_before = rig.server.request_count("GET", "/health");
    prepare(&mut rig, "rondo").await;
    match prepared(&mut rig, "rondo").await.outcome {
        Err(SettingsSnapshotFailure::RevisionUnavailable(detail)) => {
            assert_eq!(detail, "manifest unreadable")
        }
        other => panic!("editing not refused: {other:?}"),
    }
    assert_eq!(rig.server.request_count("GET", &config_path("rondo")), 1);
    assert_eq!(
        rig.server.request_count("GET", "/health"),
        health_before,
        "no reconfirmation after a refused snapshot"
    );
    assert_eq!(prep_returns(&rig), ["revision_unavailable"]);
    assert_eq!(rig.server.request_count("POST", &config_path("rondo")), 0);
    rig.finish().await;
}

/// H-1: the reconfirmation after the snapshot — a `/health` that fails, then one serving another
/// workspace — is `NotReconfirmed` each time (traced `owner_not_reconfirmed`): the snapshot
/// read is never handed to the editor; the next preparation on a healthy server succeeds.
#[tokio::test(flavor = "current_thread")]
async fn h1_a_failed_or_foreign_reconfirmation_opens_nothing() {
    let mut rig = quiet_health_rig(FaultPlan::default()).await;
    let _ = confirmed_scope(&mut rig).await;
    let foreign = foreign_health(&rig.server.base_path());
    rig.server.set_faults(plan(&format!(
        "{},{}",
        health_rule(1, 500, r#"{"error":"down"}"#),
        health_rule(2, 200, &foreign)
    )));
    for round in ["failed", "foreign"] {
        prepare(&mut rig, "rondo").await;
        match prepared(&mut rig, "rondo").await.outcome {
            Err(SettingsSnapshotFailure::NotReconfirmed(_)) => {}
            other => panic!("{round}: reconfirmed anyway: {other:?}"),
        }
    }
    let healthy = snapshot_of(&mut rig, "rondo").await;
    assert_eq!(healthy.snapshot.name.as_deref(), Some("rondo"));
    assert_eq!(rig.server.request_count("GET", &config_path("rondo")), 3);
    assert_eq!(
        prep_returns(&rig),
        ["owner_not_reconfirmed", "owner_not_reconfirmed", "ok"]
    );
    assert_eq!(rig.server.request_count("POST", &config_path("rondo")), 0);
    rig.finish().await;
}

/// H-5, §9.6: lowering `max_context_override` (rondo's 180 000) without the edit's own
/// `confirm_context_shrink` is the server's refusal — not applied, the value unchanged, sent
/// once; the same change confirmed is applied and the re-read shows it.
#[tokio::test(flavor = "current_thread")]
async fn h5_s9_6_a_context_shrink_without_confirmation_is_not_applied() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let scope = confirmed_scope(&mut rig).await;
    let before = snapshot_of(&mut rig, "rondo").await;
    assert_eq!(before.snapshot.max_context_override, Some(180_000));
    let shrink = json!({"max_context_override": 100_000});
    let unconfirmed = submit::<SettingsSave>(
        &mut rig,
        intent("rondo", &before, shrink.clone()),
        scope.clone(),
    )
    .await;
    match settings_receipt(&mut rig, &unconfirmed).await {
        SaveOutcome::NotApplied { reason } => {
            assert!(reason.contains("confirm_context_shrink"), "{reason}")
        }
        other => panic!("a shrink without confirmation was not refused: {other:?}"),
    }
    let unchanged = snapshot_of(&mut rig, "rondo").await;
    assert_eq!(unchanged.snapshot.max_context_override, Some(180_000));
    assert_eq!(unchanged.revision, before.revision, "nothing applied");

    let confirmed = submit::<SettingsSave>(
        &mut rig,
        SettingsIntent {
            confirm_context_shrink: true,
            ..intent("rondo", &unchanged, shrink)
        },
        scope,
    )
    .await;
    assert_eq!(
        settings_receipt(&mut rig, &confirmed).await.save_class(),
        SaveClass::Applied
    );
    let after = snapshot_of(&mut rig, "rondo").await;
    assert_eq!(after.snapshot.max_context_override, Some(100_000));
    assert_eq!(rig.server.request_count("POST", &config_path("rondo")), 2);
    rig.finish().await;
}
