//! The approval decision save through the real view model (sources.md H-16, I-5,
//! K-2, K-3, K-5; protocol.md §11 "an unknown outcome requires a re-read before any retry"):
//! a workspace switch while the POST is held lands the receipt for the original workspace and
//! never in the new one; an unknown outcome offers `R` only once a re-read made after the
//! receipt still lists the approval.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code
use crate::actor_support::{plan, post_fault};
use crate::decisions_rig::{CONFIRM, DecisionsRig, client, decisions_rig};
use crate::ordered_view::Seen;
use crate::save_approval::{INJECT, PROBE, inject_intent, listed, probe_intent};
use masc_tui::actors::contract::SlotEvent;
use masc_tui::actors::decisions::DecisionsObservation;
use masc_tui::actors::saves::{SaveId, SaveStep};
use masc_tui::outbox::SaveRowState;
use masc_tui::protocol::operator::Decision;
use masc_tui::protocol::outcome::SaveClass;
use masc_tui::server::faults::FaultPlan;
use masc_tui::server::{AuthMode, RunningServer, ServeOptions, start};
use masc_tui::view::model::Model;
use masc_tui::view::screens::approvals;
use std::time::Duration;

const TOKEN: &str = "save-model-token";

async fn server(faults: FaultPlan) -> RunningServer {
    start(ServeOptions {
        faults,
        test_mode: true,
        auth: AuthMode::Token(TOKEN.into()),
        ..ServeOptions::default()
    })
    .await
    .unwrap()
}

async fn rig(server: &RunningServer) -> (DecisionsRig, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let rig = decisions_rig(
        client(&server.base_url(), TOKEN, Duration::from_secs(10)),
        dir.path().join("outbox.sqlite3"),
    )
    .await;
    (rig, dir)
}

fn class_of(m: &Model, id: &SaveId) -> Option<SaveClass> {
    m.decisions.decisions.get(id).and_then(|e| e.phase.class())
}

fn approvals_read(m: &Model) -> bool {
    approvals::observed_at(m).is_some()
}

/// I-5, H-16, K-3, K-5: the decision's POST is held at the server (a delay fault; the fault's
/// arrival is the signal) while the server switches to another workspace. The view confirms
/// the new workspace; the POST then meets the server's expected-root check (not applied);
/// the receipt lands — admitted, in the save's own slot — for the workspace it was submitted
/// in, its ticket of the original epoch, its row of that workspace. It is never shown under
/// the new workspace, and is shown again once the original one is confirmed again.
#[tokio::test(flavor = "current_thread")]
async fn i5_a_workspace_switch_mid_save_lands_the_receipt_for_the_original_workspace_only() {
    let server = server(post_fault(CONFIRM, r#"{"delay_ms":1000}"#)).await;
    let (mut rig, _dir) = rig(&server).await;
    rig.pump_until(approvals_read).await;
    let original = rig.workspace();
    let base = server.base_path();
    let other = format!("{base}/.masc-other");
    let intent = probe_intent(Decision::Deny);
    let id = rig.decide(intent.clone());
    // The POST reached the server; its delay runs before the server's checks. The test's
    // own task runs before the delayed request resumes (same runtime thread), so the switch
    // is in place when the request is checked, whatever the machine's load.
    rig.faults.wait_for(1).await;
    server.switch_workspace(&base, &other);
    rig.pump_until(|m| {
        m.gate().current().is_some_and(|s| s.workspace.0 == other) && class_of(m, &id).is_some()
    })
    .await;

    // The receipt: not applied (the server serves another workspace), admitted for the
    // original workspace.
    assert_eq!(class_of(&rig.model, &id), Some(SaveClass::NotApplied));
    let entry = rig.model.decisions.decisions.get(&id).unwrap();
    assert_eq!(entry.workspace, original);
    assert_eq!(entry.intent, intent);
    let (ticket, event) = rig
        .log
        .last_seen(|m| {
            matches!(m, Seen::Slot(SlotEvent::Observed(_, DecisionsObservation::Decision(ev)))
                if ev.save_id == id && matches!(ev.step, SaveStep::Ended(_)))
        })
        .map(|m| match m {
            Seen::Slot(SlotEvent::Observed(t, DecisionsObservation::Decision(ev))) => {
                (t.clone(), ev.clone())
            }
            _ => unreachable!(),
        })
        .unwrap();
    assert_eq!(ticket.scope.workspace.0, original, "the submit-time scope");
    assert_eq!(event.workspace, original);
    let verdicts: Vec<_> = rig.verdicts.iter().filter(|(s, _)| *s == id).collect();
    assert!(
        verdicts.iter().all(|(_, v)| v.is_ok()),
        "every step admitted: {verdicts:?}"
    );
    assert_eq!(verdicts.len(), 3, "written, sending, the receipt");
    assert_eq!(server.request_count("POST", CONFIRM), 1);
    assert!(listed(&server, PROBE).await, "nothing was applied");
    let row = rig.row(&id).unwrap();
    assert_eq!(row.workspace, original);
    assert_eq!(row.state, SaveRowState::Settled(SaveClass::NotApplied));

    // Never in the new workspace: its list (the same store, re-read under the new epoch)
    // shows the approval with no decision on it.
    rig.pump_until(|m| {
        approvals::observed_at(m).is_some()
            && approvals::listed(m)
                .iter()
                .any(|a| a.confirm_token == PROBE)
    })
    .await;
    assert_eq!(rig.workspace(), other);
    assert!(approvals::latest(&rig.model, PROBE).is_none());
    assert!(
        rig.model
            .decisions
            .decisions
            .latest(PROBE, &other)
            .is_none()
    );
    let shown = approvals::listed(&rig.model)
        .iter()
        .find(|a| a.confirm_token == PROBE)
        .cloned()
        .unwrap();
    assert!(approvals::retry_offered(&rig.model, &shown).is_none());

    // H-16: the receipt survived; the original workspace confirmed again shows it.
    server.switch_workspace(&base, &original);
    rig.pump_until(|m| {
        m.gate()
            .current()
            .is_some_and(|s| s.workspace.0 == original)
    })
    .await;
    let back = approvals::latest(&rig.model, PROBE).unwrap();
    assert_eq!(back.save_id, id);
    assert_eq!(back.phase.class(), Some(SaveClass::NotApplied));
    rig.stop().await;
    server.shutdown().await;
}

/// §11, K-2: an outcome unknown (the connection dropped before the handler ran) offers `R`
/// only once a re-read of the list made after the receipt still lists the approval; the
/// re-read (asked for by the receipt) never replaces the receipt.
#[tokio::test(flavor = "current_thread")]
async fn s11_an_unknown_outcome_offers_retry_only_after_a_reread_still_lists_it() {
    let server = server(plan(&format!(
        r#"{{"match":{{"method":"POST","path":"{CONFIRM}"}},"when":{{"nth":1}},"fault":{{"drop":"before_apply"}}}}"#
    )))
    .await;
    let (mut rig, _dir) = rig(&server).await;
    rig.pump_until(approvals_read).await;
    let intent = inject_intent(Decision::Confirm);
    let id = rig.decide(intent.clone());
    rig.pump_until(|m| class_of(m, &id).is_some()).await;
    assert_eq!(class_of(&rig.model, &id), Some(SaveClass::OutcomeUnknown));
    let listed_now = |m: &Model| {
        approvals::listed(m)
            .iter()
            .find(|a| a.confirm_token == INJECT)
            .cloned()
    };
    let approval = listed_now(&rig.model).expect("listed before the decision");
    assert!(
        approvals::retry_offered(&rig.model, &approval).is_none(),
        "no re-read since the receipt"
    );
    let reads = rig
        .recorder
        .records_where(|r| r.source == "operator_approvals" && r.stage == "dispatch")
        .len();
    rig.pump_until(|m| listed_now(m).is_some_and(|a| approvals::retry_offered(m, &a).is_some()))
        .await;
    let dispatched = rig
        .recorder
        .records_where(|r| r.source == "operator_approvals" && r.stage == "dispatch")
        .len();
    assert!(
        dispatched > reads,
        "offered after a re-read dispatched since"
    );
    let approval = listed_now(&rig.model).unwrap();
    assert_eq!(
        approvals::retry_offered(&rig.model, &approval),
        Some(intent.clone()),
        "the same decision"
    );
    assert_eq!(
        class_of(&rig.model, &id),
        Some(SaveClass::OutcomeUnknown),
        "the re-read never replaces the receipt"
    );
    assert_eq!(
        server.request_count("POST", CONFIRM),
        1,
        "never resent by itself"
    );

    // `R` sends the same decision as a new save; this time it is applied.
    let retry = rig.decide(intent);
    rig.pump_until(|m| class_of(m, &retry).is_some()).await;
    assert_eq!(class_of(&rig.model, &retry), Some(SaveClass::Applied));
    assert_eq!(server.request_count("POST", CONFIRM), 2);
    rig.pump_until(|m| listed_now(m).is_none()).await;
    assert!(approvals::latest(&rig.model, INJECT).is_some_and(|e| e.save_id == retry));
    rig.stop().await;
    server.shutdown().await;
}
