#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! The durable outbox across a real process death (protocol.md §11).
//!
//! A child process (this test binary, re-run with `--exact chat_outbox::child_sends_then_waits`,
//! the name derived from this module's path) runs the
//! chat runtime against the embedded server of the parent, sends one message whose POST the
//! server holds (a long delay fault), and reports the request id once the outbox says
//! `sending`. The parent kills it (SIGKILL) between "written" and "confirmed", then restarts
//! the runtime in process on the same outbox file: the message is there as "outcome unknown"
//! with the same request id, it is reconciled by that exact id, and the server saw no second
//! POST.

use crate::chat_support::{STREAM, TOKEN, held_chat_posts, rig, token_server};
use masc_tui::actors::chat::{ChatSendIntent, Reconciliation};
use masc_tui::outbox::{Outbox, SaveRowState};
use masc_tui::protocol::outcome::SaveClass;
use masc_tui::view::screens::chat::SendPhase;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

const ENV_URL: &str = "CHAT_OUTBOX_CHILD_URL";
const ENV_PATH: &str = "CHAT_OUTBOX_CHILD_PATH";
const TEXT: &str = "crash-test message 안녕 👋";

/// The child test's name as the harness lists it: this module's path without the crate name
/// (`chat_outbox::child_sends_then_waits` in the `actors` binary).
fn child_test_name() -> String {
    let module = module_path!();
    let module = module.split_once("::").map_or("", |(_, rest)| rest);
    if module.is_empty() {
        "child_sends_then_waits".to_string()
    } else {
        format!("{module}::child_sends_then_waits")
    }
}

/// The child side. Ignored in normal runs; does nothing without the parent's environment.
#[tokio::test]
#[ignore = "run by outbox_survives_a_kill_between_written_and_confirmed"]
async fn child_sends_then_waits() {
    let (Ok(url), Ok(path)) = (std::env::var(ENV_URL), std::env::var(ENV_PATH)) else {
        return;
    };
    let mut rig = rig(&url, Some(TOKEN), path.into()).await;
    rig.open("rondo");
    let id = rig.send("rondo", TEXT);
    rig.pump_until(|m| {
        m.chat
            .pane
            .as_ref()
            .and_then(|p| p.send(&id))
            .is_some_and(|s| s.phase == SendPhase::Sending)
    })
    .await;
    println!("SENDING {id}");
    // Held here until the parent kills the process.
    std::future::pending::<()>().await;
}

#[tokio::test]
async fn outbox_survives_a_kill_between_written_and_confirmed() {
    let server = token_server(held_chat_posts()).await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state").join("chat-outbox.sqlite3");

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
                return Some(id.to_string());
            }
        }
        None
    })
    .await
    .unwrap()
    .expect("the child reported its send");

    // The held POST reached the server (counted on arrival). Cross-process there is no other
    // signal than the counter; the loop has a failsafe, it is not a pacing delay.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while server.request_count("POST", STREAM) == 0 {
        assert!(tokio::time::Instant::now() < deadline, "POST never arrived");
        tokio::task::yield_now().await;
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    child.kill().unwrap(); // SIGKILL: no cleanup runs in the child.
    child.wait().unwrap();

    // On disk: written, not confirmed, same id and text.
    let row = Outbox::open_path(&path)
        .unwrap()
        .save_row(&id)
        .unwrap()
        .unwrap();
    assert_eq!(row.state, SaveRowState::Sending);
    assert_eq!(row.kind, "chat_send");
    assert_eq!(row.target, "rondo");
    let intent: ChatSendIntent = serde_json::from_str(&row.intent).unwrap();
    assert_eq!(intent.text, TEXT);
    assert_eq!(intent.keeper, "rondo");
    assert_eq!(intent.request_id, id);

    // Restart on the same outbox file.
    let mut rig = rig(&server.base_url(), Some(TOKEN), path.clone()).await;
    rig.open("rondo");
    rig.pump_until(|m| {
        m.chat
            .pane
            .as_ref()
            .and_then(|p| p.send(&id))
            .is_some_and(|s| matches!(s.reconciliation, Some(Reconciliation::Absent { .. })))
    })
    .await;
    let send = rig.pane().send(&id).unwrap().clone();
    assert_eq!(send.phase, SendPhase::Restored);
    assert_eq!(&*send.text, TEXT);
    assert!(send.outcome_unknown(), "outcome unknown until reconciled");
    // The held POST never reached the handler: the server recorded nothing (§4.4 404 after
    // the unknown window). C-33, C-44: the send then leaves the pending list — no
    // `전송 확인 중` once nothing will confirm it — and a status row says so; its text stays
    // out of the draft (it may still arrive) until Ctrl-O takes it back.
    assert!(
        matches!(send.reconciliation, Some(Reconciliation::Absent { .. })),
        "{:?}",
        send.reconciliation
    );
    assert_eq!(send.pending_state(), None, "no longer 전송 확인 중");
    {
        let view = rig.pane().view();
        assert!(view.transcript().get(&id).is_none(), "no pending row");
        let row = view.transcript().get(&format!("{id}:unconfirmed")).unwrap();
        assert_eq!(row.origin.request_id.as_deref(), Some(id.as_str()));
        assert!(
            row.text.starts_with("not recorded by the server after"),
            "{}",
            row.text
        );
    }
    assert!(!rig.effects.iter().any(|e| matches!(e,
        masc_tui::view::screens::chat::ChatEffect::RestoreDraft { text, .. } if text == TEXT)));
    assert_eq!(
        rig.outbox().save_row(&id).unwrap().unwrap().state,
        SaveRowState::Settled(SaveClass::OutcomeUnknown),
        "restored durably as outcome unknown"
    );
    let op = format!("/api/v1/keepers/rondo/chat/operations/{id}");
    assert!(
        server.request_count("GET", &op) >= 1,
        "reconciled by exact id"
    );
    assert_eq!(
        server.request_count("POST", STREAM),
        1,
        "no second POST happened by itself"
    );
    rig.stop().await;
    server.shutdown().await;
}
