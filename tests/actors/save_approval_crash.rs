//! Saves across a real process death (sources.md H-15, H-16, I-2,
//! K-3, K-5; protocol.md §11).
//!
//! A child process (this test binary, re-run with `--exact
//! save_approval_crash::child_decides_then_waits`, the name derived from this module's path)
//! runs the save hub against the embedded server of the parent and confirms one approval
//! whose POST the server holds (a long delay fault). The parent waits until the child's
//! outbox row says `sending` and the POST is at the server, kills the child (SIGKILL: no
//! cleanup runs), then starts a fresh runtime on the same outbox file: the save is restored as
//! "outcome unknown" with the same inputs, nothing is resent, and `R` is offered only once a
//! re-read still lists the approval. A row another run left `written` (it never reached the
//! network) restores as "not sent".

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code
use crate::crash_rig::{
    Killed, child_rig, child_test_name, kill_mid_save, report_sending_and_hold, restarted, server,
    stages_of,
};
use crate::decisions_rig::CONFIRM;
use crate::save_approval::{INJECT, inject_intent, listed};
use masc_tui::actors::decisions::approval::DecisionIntent;
use masc_tui::actors::saves::SaveId;
use masc_tui::outbox::{NewSave, Outbox, SaveRowState};
use masc_tui::protocol::operator::Decision;
use masc_tui::protocol::outcome::SaveClass;
use masc_tui::server::faults::FaultPlan;
use masc_tui::view::model::Model;
use masc_tui::view::saves::SavePhase;
use masc_tui::view::screens::approvals;

fn restored(m: &Model, id: &SaveId) -> bool {
    m.decisions
        .decisions
        .get(id)
        .is_some_and(|e| matches!(e.phase, SavePhase::Restored(_)))
}

/// The approval `token` as last listed, if listed.
fn shown(m: &Model, token: &str) -> Option<masc_tui::protocol::operator::Approval> {
    approvals::listed(m)
        .iter()
        .find(|a| a.confirm_token == token)
        .cloned()
}

/// The child side. Ignored in normal runs; does nothing without the parent's environment.
#[tokio::test(flavor = "current_thread")]
#[ignore = "run by h16_a_save_killed_mid_flight_restores_as_outcome_unknown_and_is_never_resent"]
async fn child_decides_then_waits() {
    let Some(mut rig) = child_rig().await else {
        return;
    };
    let id = rig.decide(inject_intent(Decision::Confirm));
    rig.pump_until(|m| {
        m.decisions
            .decisions
            .get(&id)
            .is_some_and(|e| matches!(e.phase, SavePhase::Sending))
    })
    .await;
    report_sending_and_hold(&id).await;
}

/// H-15, H-16, I-2, K-3: killed between `sending` and its receipt, a save comes back after a
/// restart as "outcome unknown" with the inputs it was submitted with — restored from the
/// outbox, never resent (the server saw one POST) — and `R` is offered only after a re-read
/// made since still lists the approval.
#[tokio::test(flavor = "current_thread")]
async fn h16_a_save_killed_mid_flight_restores_as_outcome_unknown_and_is_never_resent() {
    let name = child_test_name(module_path!(), "child_decides_then_waits");
    let (
        Killed {
            server,
            path,
            id,
            before,
        },
        _held,
    ) = kill_mid_save(CONFIRM, &name).await;
    assert_eq!(
        serde_json::from_str::<DecisionIntent>(&before.intent).unwrap(),
        inject_intent(Decision::Confirm),
        "the operator's inputs, written by the child's session"
    );

    // A fresh runtime on the same outbox file.
    let mut rig = restarted(&server, &path).await;
    rig.pump_until(|m| restored(m, &id)).await;
    let entry = rig.model.decisions.decisions.get(&id).unwrap();
    assert_eq!(entry.phase.class(), Some(SaveClass::OutcomeUnknown));
    assert_eq!(
        entry.intent,
        inject_intent(Decision::Confirm),
        "same inputs"
    );
    assert_eq!(entry.workspace, before.workspace);
    assert!(
        rig.verdicts.iter().any(|(s, v)| *s == id && v.is_ok()),
        "admitted into its own slot"
    );
    let after = rig.row(&id).unwrap();
    assert_eq!(
        after.state,
        SaveRowState::Settled(SaveClass::OutcomeUnknown)
    );
    assert_eq!(after.intent, before.intent);
    // Restored, not run: no operation of this save entered a worker in the new runtime.
    let stages = stages_of(&rig, "save:approval_decision");
    assert_eq!(
        stages,
        ["dispatch:", "worker_return:outcome_unknown", "admit:"]
    );

    // §11: an unknown outcome requires a re-read before any retry. The receipt asked for
    // one; once it lists the approval (the held POST never reached the handler), `R` offers
    // the same decision.
    rig.pump_until(|m| shown(m, INJECT).is_some_and(|a| approvals::retry_offered(m, &a).is_some()))
        .await;
    let approval = shown(&rig.model, INJECT).unwrap();
    assert_eq!(
        approvals::retry_offered(&rig.model, &approval),
        Some(inject_intent(Decision::Confirm))
    );
    assert!(listed(&server, INJECT).await);
    assert_eq!(
        server.request_count("POST", CONFIRM),
        1,
        "nothing was resent"
    );
    rig.stop().await;
    server.shutdown().await;
}

/// H-16, I-2, I-5: a row another run left `written` never reached the network: it restores
/// as "not sent" with its inputs (retry offered at once), nothing is sent; a row of another
/// workspace is not restored here.
#[tokio::test(flavor = "current_thread")]
async fn h16_a_row_left_written_restores_as_not_sent_and_nothing_is_sent() {
    let server = server(FaultPlan::default()).await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("outbox.sqlite3");
    let intent = inject_intent(Decision::Confirm);
    let row = |id: &SaveId, workspace: String| NewSave {
        save_id: id.0.clone(),
        kind: "approval_decision".into(),
        workspace,
        target: INJECT.into(),
        intent_key: INJECT.into(),
        intent: serde_json::to_string(&intent).unwrap(),
        epoch: 1,
        generation: 1,
    };
    let here = SaveId::fresh();
    let elsewhere = SaveId::fresh();
    {
        // An earlier run (its own session) wrote these, then died before `sending`.
        let earlier = Outbox::open_path(&path).unwrap();
        earlier
            .save_written(&row(&here, server.masc_root()))
            .unwrap();
        earlier
            .save_written(&row(&elsewhere, "/srv/elsewhere/.masc".into()))
            .unwrap();
    }
    let mut rig = restarted(&server, &path).await;
    rig.pump_until(|m| restored(m, &here)).await;
    let entry = rig.model.decisions.decisions.get(&here).unwrap();
    assert_eq!(entry.phase.class(), Some(SaveClass::NotSent));
    assert_eq!(entry.intent, intent);
    assert_eq!(
        rig.row(&here).unwrap().state,
        SaveRowState::Settled(SaveClass::NotSent)
    );
    rig.pump_until(|m| shown(m, INJECT).is_some()).await;
    let approval = shown(&rig.model, INJECT).unwrap();
    assert_eq!(
        approvals::retry_offered(&rig.model, &approval),
        Some(intent.clone()),
        "nothing can have run: offered at once"
    );
    assert!(rig.model.decisions.decisions.get(&elsewhere).is_none());
    assert_eq!(
        rig.row(&elsewhere).unwrap().state,
        SaveRowState::Written,
        "another workspace's row is left for that workspace"
    );
    assert_eq!(server.request_count("POST", CONFIRM), 0, "nothing sent");
    rig.stop().await;
    server.shutdown().await;
}
