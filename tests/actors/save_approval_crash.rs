//! Saves across a real process death (issue 9 Must-show 2 and 6; sources.md H-15, H-16, I-2,
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
use crate::actor_support::plan;
use crate::decisions_rig::{CONFIRM, DecisionsRig, FaultWatch, client, decisions_rig};
use crate::save_approval::{INJECT, inject_intent, listed};
use masc_tui::actors::decisions::approval::DecisionIntent;
use masc_tui::actors::saves::SaveId;
use masc_tui::outbox::{NewSave, Outbox, SaveRowState};
use masc_tui::protocol::operator::Decision;
use masc_tui::protocol::outcome::SaveClass;
use masc_tui::server::faults::FaultPlan;
use masc_tui::server::{AuthMode, RunningServer, ServeOptions, start};
use masc_tui::view::model::Model;
use masc_tui::view::saves::SavePhase;
use masc_tui::view::screens::approvals;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;
use tracing_subscriber::layer::SubscriberExt;

const ENV_URL: &str = "SAVE_APPROVAL_CHILD_URL";
const ENV_PATH: &str = "SAVE_APPROVAL_CHILD_OUTBOX";
const TOKEN: &str = "save-crash-token";

/// The child test's name as the harness lists it (this module's path without the crate).
fn child_test_name() -> String {
    let module = module_path!();
    let module = module.split_once("::").map_or("", |(_, rest)| rest);
    if module.is_empty() {
        "child_decides_then_waits".to_string()
    } else {
        format!("{module}::child_decides_then_waits")
    }
}

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

async fn restarted(server: &RunningServer, outbox: &Path) -> DecisionsRig {
    decisions_rig(
        client(&server.base_url(), TOKEN, Duration::from_secs(10)),
        outbox.to_path_buf(),
    )
    .await
}

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
    let (Ok(url), Ok(path)) = (std::env::var(ENV_URL), std::env::var(ENV_PATH)) else {
        return;
    };
    let mut rig = decisions_rig(client(&url, TOKEN, Duration::from_secs(600)), path.into()).await;
    let id = rig.decide(inject_intent(Decision::Confirm));
    rig.pump_until(|m| {
        m.decisions
            .decisions
            .get(&id)
            .is_some_and(|e| matches!(e.phase, SavePhase::Sending))
    })
    .await;
    println!("SENDING {id}");
    // Held here until the parent kills the process.
    std::future::pending::<()>().await;
}

/// H-15, H-16, I-2, K-3: killed between `sending` and its receipt, a save comes back after a
/// restart as "outcome unknown" with the inputs it was submitted with — restored from the
/// outbox, never resent (the server saw one POST) — and `R` is offered only after a re-read
/// made since still lists the approval.
#[tokio::test(flavor = "current_thread")]
async fn h16_a_save_killed_mid_flight_restores_as_outcome_unknown_and_is_never_resent() {
    let watch = FaultWatch::default();
    let _trace =
        tracing::subscriber::set_default(tracing_subscriber::registry().with(watch.clone()));
    let server = server(plan(&format!(
        r#"{{"match":{{"method":"POST","path":"{CONFIRM}"}},"fault":{{"delay_ms":600000}}}}"#
    )))
    .await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state").join("outbox.sqlite3");

    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", &child_test_name(), "--ignored", "--nocapture"])
        .env(ENV_URL, server.base_url())
        .env(ENV_PATH, &path)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let id = tokio::task::spawn_blocking(move || {
        for line in BufReader::new(stdout).lines() {
            let line = line.unwrap();
            if let Some(id) = line.strip_prefix("SENDING ") {
                return Some(SaveId(id.to_string()));
            }
        }
        None
    })
    .await
    .unwrap()
    .expect("the child reported its save");

    // The POST is at the server, held by its delay (the fault fired on arrival).
    watch.wait_for(1).await;
    // On disk: `sending`, with the operator's inputs, written by the child's session.
    let before = Outbox::open_path(&path)
        .unwrap()
        .save_row(&id.0)
        .unwrap()
        .unwrap();
    assert_eq!(before.state, SaveRowState::Sending);
    assert_eq!(
        serde_json::from_str::<DecisionIntent>(&before.intent).unwrap(),
        inject_intent(Decision::Confirm)
    );
    child.kill().unwrap(); // SIGKILL: no cleanup runs in the child.
    child.wait().unwrap();
    assert_eq!(
        Outbox::open_path(&path)
            .unwrap()
            .save_row(&id.0)
            .unwrap()
            .unwrap()
            .state,
        SaveRowState::Sending,
        "nothing settled it"
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
    let stages: Vec<String> = rig
        .recorder
        .records_where(|r| r.source == "save:approval_decision")
        .iter()
        .map(|r| format!("{}:{}", r.stage, r.outcome.clone().unwrap_or_default()))
        .collect();
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
