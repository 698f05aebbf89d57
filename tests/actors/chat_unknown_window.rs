#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! Unknown stays unknown until it is known (protocol.md §4.3, §4.4; protocol-15 §15.9): a chat
//! POST held past the client's request timeout by a hop that does not cancel upstream requests
//! (`apply_late_ms`) can still be applied. Inside the unknown window a §4.4 404 is "not
//! recorded yet" and re-checked with backoff; the text never comes back to the draft by
//! itself, and a text taken back (`Ctrl-O`) and sent unchanged keeps its request id, so the
//! server keeps one operation.

use crate::chat_support::{STREAM, TOKEN, rig_with};
use masc_tui::actors::chat::{ChatSendIntent, Reconciliation, SendOutcome, UnknownWindow};
use masc_tui::protocol::chat::OperationState;
use masc_tui::server::faults::FaultPlan;
use masc_tui::server::{AuthMode, ServeOptions, start};
use masc_tui::view::chat::UnknownStanding;
use masc_tui::view::screens::chat::{ChatEffect, ChatPane, SendPhase};
use masc_tui::view::transcript::Speaker;
use std::time::Duration;

const KEEPER: &str = "rondo";

fn held_first_post(ms: u64) -> FaultPlan {
    FaultPlan::from_json(&format!(
        r#"{{"rules":[{{"match":{{"method":"POST","path":"{STREAM}"}},"when":{{"nth":1}},"fault":{{"apply_late_ms":{ms}}}}}]}}"#
    ))
    .unwrap()
}

async fn server(faults: FaultPlan) -> masc_tui::server::RunningServer {
    start(ServeOptions {
        faults,
        test_mode: true,
        auth: AuthMode::Token(TOKEN.into()),
        ..ServeOptions::default()
    })
    .await
    .unwrap()
}

/// The operator's rows carrying `text` in the pane's transcript.
fn operator_rows(pane: &ChatPane, text: &str) -> usize {
    pane.view()
        .transcript()
        .entries()
        .iter()
        .filter(|e| e.speaker == Speaker::Operator && e.text == text)
        .count()
}

fn gave_text_back(effects: &[ChatEffect], text: &str) -> bool {
    effects
        .iter()
        .any(|e| matches!(e, ChatEffect::RestoreDraft { text: t, .. } if t == text))
}

/// The POST is held 2.5 s, the client gives up after 1 s (connect 0.5 s + request 1 s: a
/// window of 3 × 1.5 s = 4.5 s). The send ends "outcome unknown", is reconciled as "not
/// recorded yet" while the hop holds it, then found when the server applied it: the chat
/// shows the message once and never offers its text back.
#[tokio::test]
async fn i32_a_send_held_past_the_client_timeout_then_applied_shows_once_and_never_comes_back() {
    const TEXT: &str = "held by a hop · 잠깐만 👋";
    let server = server(held_first_post(2_500)).await;
    let dir = tempfile::tempdir().unwrap();
    let mut rig = rig_with(
        &server.base_url(),
        Some(TOKEN),
        dir.path().join("outbox.sqlite3"),
        |client, _| {
            client.connect_timeout = Duration::from_millis(500);
            client.request_timeout = Duration::from_secs(1);
        },
    )
    .await;
    rig.open_ready(KEEPER).await;
    let id = rig.send(KEEPER, TEXT);

    let mut saw_not_yet = false;
    loop {
        rig.pump_one().await;
        let send = rig.pane().send(&id).unwrap();
        if matches!(
            send.reconciliation,
            Some(Reconciliation::NotYetRecorded { .. })
        ) {
            saw_not_yet = true;
            assert_eq!(send.unknown_standing(), Some(UnknownStanding::Reconciling));
            assert!(send.pending_state().is_some(), "still 전송 확인 중");
        }
        assert!(
            !matches!(send.reconciliation, Some(Reconciliation::Absent { .. })),
            "never 'not recorded' while the POST may still land"
        );
        assert!(!gave_text_back(&rig.effects, TEXT), "never offered back");
        let settled = matches!(&send.reconciliation, Some(Reconciliation::Found(r))
            if r.progress.state() == OperationState::Succeeded);
        if settled && rig.pane().history == masc_tui::view::screens::chat::HistoryState::Ready {
            // The re-read history after the confirmation holds the input.
            if operator_rows(rig.pane(), TEXT) == 1
                && !rig.pane().send(&id).unwrap().outcome_unknown()
            {
                break;
            }
        }
    }
    let send = rig.pane().send(&id).unwrap().clone();
    assert!(matches!(
        send.phase,
        SendPhase::Ended(SendOutcome::OutcomeUnknown { .. })
    ));
    assert!(saw_not_yet, "a 404 while the hop held the POST");
    assert_eq!(send.unknown_standing(), None);
    assert!(!send.may_take_back());
    assert_eq!(operator_rows(rig.pane(), TEXT), 1, "the message once");
    assert!(!gave_text_back(&rig.effects, TEXT));
    assert_eq!(server.request_count("POST", STREAM), 1, "never resent");
    let op = format!("/api/v1/keepers/{KEEPER}/chat/operations/{id}");
    assert!(server.request_count("GET", &op) >= 2, "re-checked");
    rig.stop().await;
    server.shutdown().await;
}

/// The hop holds the POST past a short window (0.3 s): "not recorded after N s", the text not
/// offered back by itself; `Ctrl-O` takes it back once; sent unchanged it keeps its request
/// id, and when the held copy lands later the server keeps one operation: one row.
#[tokio::test]
async fn i32_a_text_taken_back_and_resent_keeps_its_request_id_and_lands_once() {
    const TEXT: &str = "taken back, sent again";
    let server = server(held_first_post(3_000)).await;
    let dir = tempfile::tempdir().unwrap();
    let mut rig = rig_with(
        &server.base_url(),
        Some(TOKEN),
        dir.path().join("outbox.sqlite3"),
        |client, source| {
            client.request_timeout = Duration::from_millis(500);
            source.unknown_window = Some(UnknownWindow(Duration::from_millis(300)));
        },
    )
    .await;
    rig.open_ready(KEEPER).await;
    let id = rig.send(KEEPER, TEXT);
    rig.pump_until(|m| {
        m.chat
            .pane
            .as_ref()
            .and_then(|p| p.send(&id))
            .is_some_and(|s| matches!(s.reconciliation, Some(Reconciliation::Absent { .. })))
    })
    .await;
    let send = rig.pane().send(&id).unwrap().clone();
    assert!(matches!(
        send.unknown_standing(),
        Some(UnknownStanding::NotRecorded {
            taken_back: false,
            ..
        })
    ));
    let words = send.unknown_standing().unwrap().words().unwrap();
    assert!(
        words.starts_with("not recorded by the server after "),
        "{words}"
    );
    assert!(words.contains("it may still arrive · Ctrl-O"), "{words}");
    assert!(!gave_text_back(&rig.effects, TEXT), "not by itself");

    let pane = rig.model.chat.pane.as_mut().unwrap();
    assert_eq!(pane.take_back().as_deref(), Some(TEXT));
    assert_eq!(pane.take_back(), None, "once");
    let row = pane
        .view()
        .transcript()
        .get(&format!("{id}:unconfirmed"))
        .unwrap()
        .text
        .clone();
    assert!(row.contains("it may still arrive"), "{row}");
    let (again, attempt) = pane.taken_back(TEXT).unwrap();
    assert_eq!(again, id);
    assert_eq!(attempt, 0);
    assert_eq!(
        pane.taken_back("edited text"),
        None,
        "an edited text is a new send"
    );

    // Enter on the unchanged text: the same request id, attempt 1.
    let intent = ChatSendIntent {
        keeper: KEEPER.into(),
        request_id: id.clone(),
        text: TEXT.into(),
        control_token: None,
        attempt: 1,
    };
    assert_ne!(intent.save_id().0, id, "its own outbox row");
    pane.register_attempt(&id, TEXT, 1);
    let scope = rig.model.gate().current().cloned().unwrap();
    rig.submit(intent, scope);
    rig.pump_until(|m| {
        m.chat
            .pane
            .as_ref()
            .and_then(|p| p.send(&id))
            .is_some_and(|s| matches!(s.phase, SendPhase::Ended(_)))
    })
    .await;
    assert!(matches!(
        rig.pane().send(&id).unwrap().phase,
        SendPhase::Ended(SendOutcome::Completed { .. })
    ));
    // The held copy lands after the resend: the same id, replayed, nothing new stored.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while server.request_count("POST", STREAM) < 2 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "resend never posted"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(3_500)).await;
    rig.open_ready(KEEPER).await;
    assert_eq!(operator_rows(rig.pane(), TEXT), 1, "one operation, one row");
    rig.stop().await;
    server.shutdown().await;
}
