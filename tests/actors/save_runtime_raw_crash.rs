//! A raw `runtime.toml` save across a real process death (sources.md J-3, H-15, H-16;
//! protocol.md §9.3, §9.4, §11 runtime raw save), on the shared crash rig (`crash_rig`, also
//! used by the approval decision's and the Ask answer's crash tests).
//!
//! A child process saves an edit of the served `runtime.toml` on the base it read; the preview
//! passes and the server holds the commit POST. The parent waits until the child's outbox row
//! says `sending` and the commit is at the server, kills the child with SIGKILL, then starts a
//! fresh runtime on the same outbox: the save comes back as "outcome unknown" with the same
//! inputs (path, revision, the whole text), restored (never run again), and the server saw one
//! preview and one commit — nothing was resent, the file is still the base.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code
use crate::crash_rig::{
    assert_restored_unknown, child_get, child_surface_rig, child_test_name, get_json,
    kill_mid_save, report_sending_and_hold, restarted_surface, stages_in,
};
use crate::runtime_save_rig::{PREVIEW, SAVE};
use masc_tui::actors::runtime::raw::{RawIntent, RuntimeRaw};
use masc_tui::actors::runtime::{RuntimeObservation, RuntimeSlot};
use masc_tui::actors::saves::SaveId;
use masc_tui::protocol::outcome::RuntimeRawSaveOutcome;
use masc_tui::view::model::Model;
use masc_tui::view::save_path::{SaveRequest, submit};
use masc_tui::view::saves::SavePhase;
use serde_json::Value;

const RAW: &str = "/api/v1/runtime/config/raw";

/// The child's edit: the served file plus one line, on the base it was read with.
fn killed_edit(raw: &Value) -> RawIntent {
    RawIntent {
        path: raw["path"].as_str().unwrap().to_string(),
        revision: raw["source_revision"].as_str().unwrap().to_string(),
        text: format!(
            "{}\n# saved by a process killed mid-commit\n",
            raw["source_text"].as_str().unwrap()
        ),
        base_text: None,
    }
}

fn raw_phase(
    m: &Model,
    id: &SaveId,
    pred: impl Fn(&SavePhase<RuntimeRawSaveOutcome>) -> bool,
) -> bool {
    m.runtime.raws.get(id).is_some_and(|e| pred(&e.phase))
}

/// The child side. Ignored in normal runs; does nothing without the parent's environment.
#[tokio::test(flavor = "current_thread")]
#[ignore = "run by j3_h16_a_raw_save_killed_mid_commit_restores_as_outcome_unknown_and_is_never_resent"]
async fn child_saves_raw_then_waits() {
    let Some(mut rig) = child_surface_rig::<RuntimeSlot, RuntimeObservation>().await else {
        return;
    };
    let intent = killed_edit(&child_get(RAW).await);
    // Confirmed, as after the operator's confirming key (its preview is the view's).
    let request = SaveRequest::new::<RuntimeRaw>(intent).confirmed();
    let id = submit(&mut rig.model, rig.hub.as_ref(), request)
        .unwrap()
        .save_id;
    rig.pump_until(|m| raw_phase(m, &id, |p| matches!(p, SavePhase::Sending)))
        .await;
    report_sending_and_hold(&id).await;
}

/// J-3, H-15, H-16: killed between `sending` and its receipt (the preview passed, the commit is
/// held at the server), a raw save comes back after a restart as "outcome unknown" with the
/// path, revision and text it was submitted with — restored from the outbox, never resent
/// (one preview and one commit at the server; the file is still the base the child read).
#[tokio::test(flavor = "current_thread")]
async fn j3_h16_a_raw_save_killed_mid_commit_restores_as_outcome_unknown_and_is_never_resent() {
    let child = child_test_name(module_path!(), "child_saves_raw_then_waits");
    let (killed, _held) = kill_mid_save(SAVE, &child).await;
    assert_eq!(killed.before.kind, "runtime_raw");
    // The file is still the base the child read (its commit is held), so the child's edit of
    // it is exactly what its session wrote.
    let served = get_json(&killed.server, RAW).await;
    let written: RawIntent = serde_json::from_str(&killed.before.intent).unwrap();
    assert_eq!(
        written,
        killed_edit(&served),
        "path, revision and the whole text"
    );

    let mut rig =
        restarted_surface::<RuntimeSlot, RuntimeObservation>(&killed.server, &killed.path).await;
    let id = killed.id.clone();
    rig.pump_until(|m| raw_phase(m, &id, |p| matches!(p, SavePhase::Restored(_))))
        .await;
    assert_restored_unknown(
        rig.model.runtime.raws.get(&id).unwrap(),
        &killed.before,
        &rig.row(&id).unwrap(),
    );
    // The saves journal lists it after the restart: first (unsettled), kind, inputs, what the
    // earlier session left, and no undo (its receipt is not known).
    let rows = masc_tui::view::save_path::kinds::journal_rows(&rig.model);
    assert_eq!(rows[0].save_id, id.0, "the killed save first");
    let row = &rows[0];
    assert_eq!(row.kind, "runtime_raw");
    assert!(row.unsettled);
    assert_eq!(
        row.stage,
        masc_tui::view::save_path::journal::Stage::Earlier(
            masc_tui::protocol::outcome::SaveClass::OutcomeUnknown
        )
    );
    assert!(row.inputs.contains(&written.path), "{}", row.inputs);
    assert!(
        matches!(
            row.undo,
            Some(masc_tui::view::save_path::undo::Undo::NotNow(_))
        ),
        "{:?}",
        row.undo
    );
    // Restored, not run: no operation of this save entered a worker in the new runtime.
    assert_eq!(
        stages_in(&rig.recorder, "save:runtime_raw"),
        ["dispatch:", "worker_return:outcome_unknown", "admit:"]
    );
    assert_eq!(killed.server.request_count("POST", PREVIEW), 1);
    assert_eq!(
        killed.server.request_count("POST", SAVE),
        1,
        "nothing was resent"
    );
    let now = get_json(&killed.server, RAW).await;
    assert_eq!(
        now["source_revision"], served["source_revision"],
        "the held commit never applied"
    );
    rig.stop().await;
    killed.server.shutdown().await;
}
