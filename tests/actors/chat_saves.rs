#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! The chat send as a save (one write path for every write): the save hub runs it, the outbox
//! `saves` table holds it, the chat reads its sends back on open. Against the embedded server
//! with fault plans; a real view `Model` judges every observation (sources.md H-5, H-15,
//! H-16, K-1, K-5; chat-screen.md C-32…C-35).

use crate::chat_support::{Rig, STREAM, TOKEN, rig};
use masc_tui::actors::chat::{ChatCommand, ChatSendIntent, SendOutcome};
use masc_tui::actors::saves::refusal::Refusal;
use masc_tui::outbox::{NewSave, Outbox, SaveRowState};
use masc_tui::protocol::admission::ReadScope;
use masc_tui::protocol::outcome::SaveClass;
use masc_tui::server::faults::FaultPlan;
use masc_tui::server::{AuthMode, RunningServer, ServeOptions, start};
use masc_tui::view::admission::RejectReason;
use masc_tui::view::chat::{ChatPane, HistoryState};
use masc_tui::view::screens::chat::{ChatEffect, SendPhase};
use masc_tui::view::theme::Theme;
use std::path::Path;

const KEEPER: &str = "rondo";

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

fn ended(rig: &Rig, id: &str) -> Option<SendOutcome> {
    match &rig.pane().send(id)?.phase {
        SendPhase::Ended(o) => Some(o.clone()),
        _ => None,
    }
}

async fn open_ready(rig: &mut Rig) {
    rig.open(KEEPER);
    rig.pump_until(|m| {
        m.chat
            .pane
            .as_ref()
            .is_some_and(|p| p.history == HistoryState::Ready)
    })
    .await;
}

async fn until_ended(rig: &mut Rig, id: &str) -> SendOutcome {
    loop {
        if let Some(o) = ended(rig, id) {
            return o;
        }
        rig.pump_one().await;
    }
}

/// The workspace the embedded server serves, as the rig's view confirmed it.
fn workspace(rig: &Rig) -> String {
    rig.model.gate().current().unwrap().workspace.0.clone()
}

/// A chat send an earlier run wrote and never sent (it stopped between `written` and the
/// POST), put straight into the outbox file the way that run left it.
fn leave_written(path: &Path, workspace: &str, text: &str) -> String {
    let request_id = masc_tui::outbox::new_request_id();
    let intent = ChatSendIntent {
        keeper: KEEPER.into(),
        request_id: request_id.clone(),
        text: text.into(),
        control_token: None,
        attempt: 0,
    };
    let earlier_run = Outbox::open_path(path).unwrap();
    earlier_run
        .save_written(&NewSave {
            save_id: request_id.clone(),
            kind: "chat_send".into(),
            workspace: workspace.into(),
            target: KEEPER.into(),
            intent_key: request_id.clone(),
            intent: serde_json::to_string(&intent).unwrap(),
            epoch: 1,
            generation: 1,
        })
        .unwrap();
    request_id
}

/// H-16: a send an earlier run left `written` never reached the network.
/// Reopened, the chat shows it "not sent" (never "outcome unknown"), its text goes back to the
/// draft, the row settles `not_sent` durably, and nothing is posted or reconciled. The save
/// hub's own read-back leaves chat sends to their chat.
#[tokio::test]
async fn h16_a_send_an_earlier_run_left_written_is_not_sent_and_its_draft_returns() {
    let server = server(FaultPlan::none()).await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("outbox.sqlite3");
    // Learn the served workspace, then leave the row before the next runtime starts (its
    // save hub reads unsettled rows back as soon as the workspace is confirmed).
    let first = rig(&server.base_url(), Some(TOKEN), path.clone()).await;
    let ws = workspace(&first);
    first.stop().await;
    let text = "left unsent 안녕 👋";
    let id = leave_written(&path, &ws, text);

    let mut rig = rig(&server.base_url(), Some(TOKEN), path.clone()).await;
    open_ready(&mut rig).await;
    rig.pump_until(|m| m.chat.pane.as_ref().unwrap().send(&id).is_some())
        .await;
    assert_eq!(
        ended(&rig, &id),
        Some(SendOutcome::NotSent {
            cause: Refusal::RestoredUnsent.token()
        })
    );
    let send = rig.pane().send(&id).unwrap().clone();
    assert!(!send.outcome_unknown());
    assert!(rig.effects.iter().any(|e| matches!(e,
        ChatEffect::RestoreDraft { keeper, text: t, .. } if keeper == KEEPER && t == text)));
    assert!(
        !rig.effects
            .iter()
            .any(|e| matches!(e, ChatEffect::Reconcile { .. })),
        "nothing to reconcile: it never left"
    );
    let row = rig.outbox().save_row(&id).unwrap().unwrap();
    assert_eq!(row.state, SaveRowState::Settled(SaveClass::NotSent));
    assert_eq!(
        row.reason.as_deref(),
        Some(Refusal::RestoredUnsent.token().as_str())
    );
    assert_eq!(server.request_count("POST", STREAM), 0, "never sent");
    let op = format!("/api/v1/keepers/{KEEPER}/chat/operations/{id}");
    assert_eq!(server.request_count("GET", &op), 0, "never reconciled");
    rig.stop().await;
    server.shutdown().await;
}

/// H-5: closing the chat does not cancel its send; reopened while the POST is still held, the
/// chat reads the live send back with its own ticket (rebuilt from the outbox row) and admits
/// the rest of its steps: the receipt lands, once.
#[tokio::test]
async fn h5_a_reopened_chat_admits_the_rest_of_its_live_send() {
    let held = format!(
        r#"{{"rules":[{{"match":{{"method":"POST","path":"{STREAM}"}},"fault":{{"delay_ms":3000}}}}]}}"#
    );
    let server = server(FaultPlan::from_json(&held).unwrap()).await;
    let dir = tempfile::tempdir().unwrap();
    let mut rig = rig(
        &server.base_url(),
        Some(TOKEN),
        dir.path().join("outbox.sqlite3"),
    )
    .await;
    open_ready(&mut rig).await;
    let id = rig.send(KEEPER, "survives navigation");
    rig.pump_until(|m| {
        m.chat
            .pane
            .as_ref()
            .and_then(|p| p.send(&id))
            .is_some_and(|s| s.phase == SendPhase::Sending)
    })
    .await;
    // Away and back, as Esc and `c` do.
    rig.cast(ChatCommand::Close {
        keeper: KEEPER.into(),
    });
    rig.model.chat.pane = None;
    rig.open(KEEPER);
    rig.pump_until(|m| m.chat.pane.as_ref().and_then(|p| p.send(&id)).is_some())
        .await;
    let restored = rig.pane().send(&id).unwrap().clone();
    assert!(
        matches!(
            restored.phase,
            SendPhase::Sending | SendPhase::Accepted(_) | SendPhase::Running
        ),
        "read back as live, not unknown: {:?}",
        restored.phase
    );
    let from = rig.verdicts.len();
    let outcome = until_ended(&mut rig, &id).await;
    assert!(
        matches!(outcome, SendOutcome::Completed { .. }),
        "{outcome:?}"
    );
    let verdicts: Vec<_> = rig.verdicts[from..]
        .iter()
        .filter(|(rid, _)| rid.as_deref() == Some(id.as_str()))
        .collect();
    assert!(
        verdicts.iter().all(|(_, v)| v.is_ok()),
        "every later step admitted: {verdicts:?}"
    );
    assert_eq!(
        rig.outbox().save_row(&id).unwrap().unwrap().state,
        SaveRowState::Settled(SaveClass::Applied)
    );
    assert_eq!(server.request_count("POST", STREAM), 1);
    rig.stop().await;
    server.shutdown().await;
}

/// K-1: a repeated submit of the same request id shares the job in flight —
/// one POST, one receipt; the repeat is refused and traced (`duplicate_intent`).
#[tokio::test]
async fn k1_a_repeated_submit_of_one_request_shares_the_job() {
    let held = format!(
        r#"{{"rules":[{{"match":{{"method":"POST","path":"{STREAM}"}},"fault":{{"delay_ms":400}}}}]}}"#
    );
    let server = server(FaultPlan::from_json(&held).unwrap()).await;
    let dir = tempfile::tempdir().unwrap();
    let mut rig = rig(
        &server.base_url(),
        Some(TOKEN),
        dir.path().join("outbox.sqlite3"),
    )
    .await;
    open_ready(&mut rig).await;
    let id = rig.send(KEEPER, "only once");
    rig.pump_until(|m| {
        m.chat
            .pane
            .as_ref()
            .and_then(|p| p.send(&id))
            .is_some_and(|s| s.phase == SendPhase::Sending)
    })
    .await;
    let scope = rig.model.gate().current().cloned().unwrap();
    rig.submit(
        ChatSendIntent {
            keeper: KEEPER.into(),
            request_id: id.clone(),
            text: "only once".into(),
            control_token: None,
            attempt: 0,
        },
        scope,
    );
    rig.recorder
        .wait_for(|r| {
            r.stage == "refused"
                && r.source == "save:chat_send"
                && r.reason.as_deref() == Some("duplicate_intent")
        })
        .await
        .expect("the repeat is refused");
    let outcome = until_ended(&mut rig, &id).await;
    assert!(matches!(outcome, SendOutcome::Completed { .. }));
    assert_eq!(server.request_count("POST", STREAM), 1, "one POST");
    rig.stop().await;
    server.shutdown().await;
}

/// K-5: a send submitted under an epoch that is not the save hub's current one is refused
/// before anything leaves ("not sent", `no_epoch`), lands in its own slot, and its draft
/// returns; no POST and no `/health` pre-check of that send.
#[tokio::test]
async fn k5_a_send_submitted_under_another_epoch_is_not_sent() {
    let server = server(FaultPlan::none()).await;
    let dir = tempfile::tempdir().unwrap();
    let mut rig = rig(
        &server.base_url(),
        Some(TOKEN),
        dir.path().join("outbox.sqlite3"),
    )
    .await;
    open_ready(&mut rig).await;
    let current = rig.model.gate().current().cloned().unwrap();
    let stale = ReadScope {
        workspace: current.workspace.clone(),
        epoch: current.epoch + 41,
    };
    let intent = ChatSendIntent {
        keeper: KEEPER.into(),
        request_id: masc_tui::outbox::new_request_id(),
        text: "under an epoch I never saw".into(),
        control_token: None,
        attempt: 0,
    };
    rig.model
        .chat
        .pane
        .as_mut()
        .unwrap()
        .register_send(&intent.request_id, &intent.text);
    rig.submit(intent.clone(), stale);
    let outcome = until_ended(&mut rig, &intent.request_id).await;
    assert_eq!(
        outcome,
        SendOutcome::NotSent {
            cause: Refusal::NoEpoch.token()
        }
    );
    assert!(rig.effects.iter().any(|e| matches!(e,
        ChatEffect::RestoreDraft { text, .. } if *text == intent.text)));
    assert_eq!(server.request_count("POST", STREAM), 0);
    assert!(
        rig.outbox().save_row(&intent.request_id).unwrap().is_none(),
        "refused before the outbox: nothing to restore"
    );
    assert!(
        !rig.recorder
            .records_where(|r| r.stage == "refused"
                && r.source == "save:chat_send:rondo"
                && r.reason.as_deref() == Some(Refusal::NoEpoch.token().as_str()))
            .is_empty()
    );
    rig.stop().await;
    server.shutdown().await;
}

/// K-1, H-15: a send's receipt lands once. A second receipt for a request the pane already
/// holds ended is `superseded`, and a receipt for a request another pane holds is
/// `other_target`.
#[test]
fn k1_a_send_receipt_lands_once_in_its_own_pane() {
    use masc_tui::actors::chat::{ChatObservation, ChatSlot, SendStep};
    use masc_tui::actors::contract::Ticket;
    use masc_tui::view::admission::EpochGate;
    let scope = ReadScope {
        workspace: masc_tui::protocol::admission::WorkspaceId("/w".into()),
        epoch: 1,
    };
    let mut gate = EpochGate::default();
    gate.confirm(scope.clone());
    let mut pane = ChatPane::new(KEEPER, Some(scope.workspace.clone()), Theme::plain());
    let id = "tui-0190f5a0-0000-7000-8000-000000000009";
    pane.register_send(id, "hello");
    let ticket = Ticket {
        slot: ChatSlot::Send {
            keeper: KEEPER.into(),
            request_id: id.into(),
        },
        generation: 1,
        // Submitted under an epoch the gate has since moved past: still its receipt.
        scope: ReadScope {
            epoch: 0,
            ..scope.clone()
        },
    };
    let receipt = ChatObservation::Send {
        request_id: id.into(),
        step: SendStep::Ended(SendOutcome::NotApplied {
            cause: "status_403".into(),
            detail: None,
        }),
    };
    assert_eq!(pane.judge(&ticket, &receipt, &gate), Ok(()));
    pane.apply(&ticket, receipt.clone());
    assert_eq!(
        pane.judge(&ticket, &receipt, &gate),
        Err(RejectReason::Superseded)
    );
    let other = ChatObservation::Send {
        request_id: "tui-other".into(),
        step: SendStep::Written,
    };
    let other_ticket = Ticket {
        slot: ChatSlot::Send {
            keeper: KEEPER.into(),
            request_id: "tui-other".into(),
        },
        ..ticket.clone()
    };
    assert_eq!(
        pane.judge(&other_ticket, &other, &gate),
        Err(RejectReason::OtherTarget)
    );
    let elsewhere = Ticket {
        scope: ReadScope {
            workspace: masc_tui::protocol::admission::WorkspaceId("/elsewhere".into()),
            epoch: 1,
        },
        ..ticket
    };
    assert_eq!(
        pane.judge(&elsewhere, &receipt, &gate),
        Err(RejectReason::OtherTarget)
    );
}
