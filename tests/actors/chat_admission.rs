#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! Interactive admission (protocol.md §14.15): a send carrying the chat
//! control token held is posted with `admission_intent` and its acceptance's `interactive`
//! block is read; the real chat and save hubs against the embedded server, every view message
//! fed into a real view `Model`.

use crate::chat_support::{Rig, served_rig};
use masc_tui::actors::chat::{ChatSendIntent, SendOutcome};
use masc_tui::protocol::chat::InteractiveKind;
use masc_tui::server::faults::FaultPlan;
use masc_tui::view::screens::chat::{ChatEffect, SendPhase};

const KEEPER: &str = "rondo";

/// Sends `text` with `token` held, the way the chat screen does; waits for its end.
async fn send_with(rig: &mut Rig, text: &str, token: &str) -> (String, SendOutcome) {
    let scope = rig.model.gate().current().cloned().unwrap();
    let intent = ChatSendIntent {
        keeper: KEEPER.into(),
        request_id: masc_tui::outbox::new_request_id(),
        text: text.into(),
        control_token: Some(token.into()),
        attempt: 0,
    };
    let id = intent.request_id.clone();
    rig.model
        .chat
        .pane
        .as_mut()
        .unwrap()
        .register_send(&id, text);
    rig.submit(intent, scope);
    loop {
        if let Some(SendPhase::Ended(o)) = rig.pane().send(&id).map(|s| s.phase.clone()) {
            return (id, o);
        }
        rig.pump_one().await;
    }
}

/// §14.15: the current token is `applied`, a stale one `stale_control` (named on screen as a
/// status notice); either way the acceptance's fresh token is what the chat holds next
/// (`ChatEffect::ControlToken`), and the turn runs as any other.
#[tokio::test]
async fn s14_15_an_admission_intent_is_answered_by_the_interactive_block() {
    let (server, mut rig, _dir) = served_rig(FaultPlan::none(), None).await;
    rig.open_ready(KEEPER).await;
    let (id, outcome) = send_with(&mut rig, "status?", "control-rondo").await;
    assert!(
        matches!(outcome, SendOutcome::Completed { .. }),
        "{outcome:?}"
    );
    let block = rig.pane().send(&id).unwrap().admission.clone().unwrap();
    assert_eq!(block.outcome.kind(), InteractiveKind::Applied);
    assert_eq!(block.chat_control_token, "control-rondo");
    assert!(rig.effects.iter().any(|e| matches!(e,
        ChatEffect::ControlToken { keeper, token, .. } if keeper == KEEPER && token == "control-rondo")));

    let (stale, outcome) = send_with(&mut rig, "and now?", "control-old").await;
    assert!(
        matches!(outcome, SendOutcome::Completed { .. }),
        "{outcome:?}"
    );
    let block = rig.pane().send(&stale).unwrap().admission.clone().unwrap();
    assert_eq!(block.outcome.kind(), InteractiveKind::StaleControl);
    assert_eq!(block.chat_control_token, "control-rondo");
    let notice = rig
        .pane()
        .view()
        .transcript()
        .get(&format!("{stale}:admission"))
        .map(|e| e.text.clone());
    assert!(
        notice
            .as_deref()
            .is_some_and(|t| t.contains("controls changed")),
        "{notice:?}"
    );
    rig.stop().await;
    server.shutdown().await;
}

/// §14.15 on an older MASC (v0.24.0 declares no `admission_intent`): such a body is refused
/// with 400 before anything is stored — which is why masc-tui sends the intent only with a
/// token a newer MASC gave it; a send without a token is accepted as before, with no block.
#[tokio::test]
async fn s14_15_an_older_masc_refuses_the_intent_and_reads_no_block() {
    let (server, mut rig, _dir) = served_rig(
        FaultPlan::none(),
        Some(masc_tui::server::compat::MascRelease::V0_24_0),
    )
    .await;
    rig.open_ready(KEEPER).await;
    let (_, outcome) = send_with(&mut rig, "status?", "control-rondo").await;
    assert!(
        matches!(&outcome, SendOutcome::NotApplied { cause, .. } if cause == "status_400"),
        "{outcome:?}"
    );
    let id = rig.send(KEEPER, "status?");
    loop {
        if let Some(SendPhase::Ended(o)) = rig.pane().send(&id).map(|s| s.phase.clone()) {
            assert!(matches!(o, SendOutcome::Completed { .. }), "{o:?}");
            break;
        }
        rig.pump_one().await;
    }
    assert_eq!(rig.pane().send(&id).unwrap().admission, None);
    rig.stop().await;
    server.shutdown().await;
}
