//! An Ask answer across a real process death (sources.md K-1, K-3,
//! H-15, H-16; protocol.md §10.2, §11 "Ask answer"), on the shared crash rig
//! (`crash_rig`, also used by the approval decision's crash test).
//!
//! A child process answers 하늘's one-question Ask; the server holds the POST. The parent waits
//! until the child's outbox row says `sending` and the POST is at the server, kills the child
//! with SIGKILL, then starts a fresh runtime on the same outbox: the answer comes back as
//! "outcome unknown" with the same inputs, restored (never run again), and the server saw one
//! POST — the Ask is still open, nothing was resent.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code
use crate::crash_rig::{
    Killed, child_rig, child_test_name, kill_mid_save, report_sending_and_hold, restarted,
    stages_of,
};
use crate::save_ask_answer::{ANSWER, sky_answer};
use masc_tui::actors::decisions::ask_answer::AnswerIntent;
use masc_tui::actors::saves::SaveId;
use masc_tui::outbox::SaveRowState;
use masc_tui::protocol::outcome::SaveClass;
use masc_tui::view::model::Model;
use masc_tui::view::saves::SavePhase;

fn restored(m: &Model, id: &SaveId) -> bool {
    m.decisions
        .answers
        .get(id)
        .is_some_and(|e| matches!(e.phase, SavePhase::Restored(_)))
}

/// The child side. Ignored in normal runs; does nothing without the parent's environment.
#[tokio::test(flavor = "current_thread")]
#[ignore = "run by k3_h16_an_answer_killed_mid_flight_restores_as_outcome_unknown_and_is_never_resent"]
async fn child_answers_then_waits() {
    let Some(mut rig) = child_rig().await else {
        return;
    };
    let id = rig.answer(sky_answer());
    rig.pump_until(|m| {
        m.decisions
            .answers
            .get(&id)
            .is_some_and(|e| matches!(e.phase, SavePhase::Sending))
    })
    .await;
    report_sending_and_hold(&id).await;
}

/// K-1, K-3, H-15, H-16: killed between `sending` and its receipt, an Ask answer comes back
/// after a restart as "outcome unknown" with the answers it was submitted with — restored from
/// the outbox, never resent (the server saw one POST and the Ask is still open).
#[tokio::test(flavor = "current_thread")]
async fn k3_h16_an_answer_killed_mid_flight_restores_as_outcome_unknown_and_is_never_resent() {
    let name = child_test_name(module_path!(), "child_answers_then_waits");
    let (
        Killed {
            server,
            path,
            id,
            before,
        },
        _held,
    ) = kill_mid_save(ANSWER, &name).await;
    assert_eq!(before.kind, "ask_answer");
    assert_eq!(
        serde_json::from_str::<AnswerIntent>(&before.intent).unwrap(),
        sky_answer(),
        "the answers, written by the child's session"
    );

    let mut rig = restarted(&server, &path).await;
    rig.pump_until(|m| restored(m, &id)).await;
    let entry = rig.model.decisions.answers.get(&id).unwrap();
    assert_eq!(entry.phase.class(), Some(SaveClass::OutcomeUnknown));
    assert_eq!(entry.intent, sky_answer(), "same inputs");
    assert_eq!(entry.workspace, before.workspace);
    let after = rig.row(&id).unwrap();
    assert_eq!(
        after.state,
        SaveRowState::Settled(SaveClass::OutcomeUnknown)
    );
    assert_eq!(after.intent, before.intent);
    // Restored, not run: no operation of this save entered a worker in the new runtime.
    let stages = stages_of(&rig, "save:ask_answer");
    assert_eq!(
        stages,
        ["dispatch:", "worker_return:outcome_unknown", "admit:"]
    );
    assert_eq!(
        server.request_count("POST", ANSWER),
        1,
        "nothing was resent"
    );
    rig.stop().await;
    server.shutdown().await;
}
