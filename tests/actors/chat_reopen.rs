#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! A reopened chat tells the same story (chat-screen.md C-65, C-44; protocol.md §4.4, §11): a
//! send the server never recorded is reconciled once. Its "not recorded" row comes back on
//! every open — after closing the chat and after a restart on the same state directory — read
//! from the outbox's marks, without asking §4.4 again; and a text given back to the draft is
//! never given back a second time (`Ctrl-O` once, across reopens and restarts).

use crate::chat_support::{Rig, STREAM, TOKEN, rig};
use masc_tui::actors::chat::{ChatCommand, ChatMark, Reconciliation, SendMarks};
use masc_tui::server::faults::FaultPlan;
use masc_tui::server::{AuthMode, RunningServer, ServeOptions, start};
use masc_tui::view::chat::UnknownStanding;
use masc_tui::view::screens::chat::ChatEffect;
use std::path::Path;
use std::time::Duration;

const KEEPER: &str = "rondo";
const TEXT: &str = "never recorded · 기록 없음";

/// Every chat POST held far past the client's timeout and never handled: nothing recorded.
async fn server_that_records_nothing() -> RunningServer {
    let held = format!(
        r#"{{"rules":[{{"match":{{"method":"POST","path":"{STREAM}"}},"fault":{{"delay_ms":600000}}}}]}}"#
    );
    start(ServeOptions {
        faults: FaultPlan::from_json(&held).unwrap(),
        test_mode: true,
        auth: AuthMode::Token(TOKEN.into()),
        ..ServeOptions::default()
    })
    .await
    .unwrap()
}

fn gave_back(effects: &[ChatEffect], text: &str) -> usize {
    effects
        .iter()
        .filter(|e| matches!(e, ChatEffect::RestoreDraft { text: t, .. } if t == text))
        .count()
}

/// Opens the chat (a fresh pane, as the chat screen does) and waits until the outbox restore
/// has given it the send `id`.
async fn open_with_send(rig: &mut Rig, id: &str) {
    rig.open(KEEPER);
    rig.pump_until(|m| {
        m.chat.pane.as_ref().is_some_and(|p| {
            p.send(id).is_some() && p.history == masc_tui::view::screens::chat::HistoryState::Ready
        })
    })
    .await;
}

/// What the reopened pane shows for `id`: not recorded, at once, with its status row and no
/// pending row; taken back already when `taken_back`.
fn assert_not_recorded(rig: &Rig, id: &str, taken_back: bool) {
    let send = rig.pane().send(id).unwrap();
    assert!(
        matches!(send.reconciliation, Some(Reconciliation::Absent { .. })),
        "read back, not learned again: {:?}",
        send.reconciliation
    );
    assert!(matches!(
        send.unknown_standing(),
        Some(UnknownStanding::NotRecorded { taken_back: t, .. }) if t == taken_back
    ));
    assert_eq!(send.pending_state(), None, "no 전송 확인 중 after a reopen");
    assert_eq!(send.may_take_back(), !taken_back);
    let view = rig.pane().view();
    assert!(view.transcript().get(id).is_none(), "no pending row");
    let row = view.transcript().get(&format!("{id}:unconfirmed")).unwrap();
    assert!(
        row.text.starts_with("not recorded by the server after"),
        "{}",
        row.text
    );
}

/// The §4.4 reads of `id` so far, after giving a (wrong) re-check time to arrive.
async fn reconciliations(server: &RunningServer, id: &str) -> usize {
    tokio::time::sleep(Duration::from_millis(400)).await;
    server.request_count(
        "GET",
        &format!("/api/v1/keepers/{KEEPER}/chat/operations/{id}"),
    )
}

fn marks(path: &Path, id: &str) -> SendMarks {
    let outbox = masc_tui::outbox::Outbox::open_path(path).unwrap();
    SendMarks::read(
        outbox
            .chat_marks(&[id])
            .unwrap()
            .get(id)
            .map_or(&[][..], |m| m),
    )
}

#[tokio::test]
async fn c65_a_send_never_recorded_is_not_reconciled_or_given_back_again_after_reopen_or_restart() {
    let server = server_that_records_nothing().await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state").join("chat-outbox.sqlite3");
    let mut rig = rig(&server.base_url(), Some(TOKEN), path.clone()).await;
    rig.open_ready(KEEPER).await;
    let id = rig.send(KEEPER, TEXT);
    rig.pump_until_send(&id, |s| {
        matches!(s.reconciliation, Some(Reconciliation::Absent { .. }))
    })
    .await;
    assert_not_recorded(&rig, &id, false);
    let asked = reconciliations(&server, &id).await;
    assert!(asked >= 1, "reconciled by its exact id");
    assert!(
        marks(&path, &id).settled_reconciliation().is_some(),
        "recorded durably: {:?}",
        marks(&path, &id)
    );

    // Closed and reopened: the same story at once, §4.4 not asked again.
    rig.cast(ChatCommand::Close {
        keeper: KEEPER.into(),
    });
    open_with_send(&mut rig, &id).await;
    assert_not_recorded(&rig, &id, false);
    assert_eq!(
        reconciliations(&server, &id).await,
        asked,
        "not asked again"
    );

    // Ctrl-O once; the fact is kept.
    let pane = rig.model.chat.pane.as_mut().unwrap();
    assert_eq!(pane.take_back().as_deref(), Some(TEXT));
    rig.apply_effects();
    assert!(rig.effects.iter().any(|e| matches!(e,
        ChatEffect::Mark { request_id, mark: ChatMark::DraftReturned } if *request_id == id)));

    // Reopened again: taken back already — never offered again, never put in the draft.
    rig.cast(ChatCommand::Close {
        keeper: KEEPER.into(),
    });
    let before = gave_back(&rig.effects, TEXT);
    open_with_send(&mut rig, &id).await;
    assert_not_recorded(&rig, &id, true);
    assert_eq!(rig.model.chat.pane.as_mut().unwrap().take_back(), None);
    assert_eq!(gave_back(&rig.effects, TEXT), before);
    rig.stop().await;

    // A restart on the same state directory: the same.
    assert!(marks(&path, &id).draft_returned);
    let mut rig = crate::chat_support::rig(&server.base_url(), Some(TOKEN), path.clone()).await;
    open_with_send(&mut rig, &id).await;
    assert_not_recorded(&rig, &id, true);
    assert_eq!(rig.model.chat.pane.as_mut().unwrap().take_back(), None);
    assert_eq!(
        gave_back(&rig.effects, TEXT),
        0,
        "nothing given back after the restart"
    );
    assert_eq!(
        reconciliations(&server, &id).await,
        asked,
        "not asked after the restart"
    );
    assert_eq!(server.request_count("POST", STREAM), 1, "never resent");
    rig.stop().await;
    server.shutdown().await;
}
