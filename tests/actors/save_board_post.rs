//! The Board post save on the embedded server (protocol.md §8.4, §11; sources.md H-5, E-7):
//! typed receipts in each save's own slot, one POST each, never resent, the traced stages.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code
use crate::actor_support::{Rig, rig_with};
use crate::save_rig::confirmed_scope;
use crate::work_rig::plan;
use masc_tui::actors::board::compose::{BoardPost, PostIntent};
use masc_tui::actors::board::{BoardObservation, BoardSlot};
use masc_tui::actors::contract::SlotEvent;
use masc_tui::actors::saves::{Receipt, SaveId, SaveStep};
use masc_tui::protocol::admission::ReadScope;
use masc_tui::protocol::outcome::{SaveClass, SaveOutcome};
use masc_tui::server::faults::FaultPlan;

type Event = SlotEvent<BoardSlot, BoardObservation>;

const CREATE: &str = "/api/v1/tools/masc_board_post";

fn intent(title: &str, body: &str) -> PostIntent {
    PostIntent {
        title: title.into(),
        hearth: "verification".into(),
        body: body.into(),
        draft_id: format!("draft-{title}"),
    }
}

async fn submit(rig: &mut Rig, i: PostIntent, scope: ReadScope) -> SaveId {
    crate::save_rig::submit::<BoardPost>(rig, i, scope).await
}

async fn receipt(
    rig: &mut Rig,
    id: &SaveId,
) -> <BoardPost as masc_tui::actors::saves::SaveKind>::Receipt {
    let ended = rig
        .view
        .wait_slot::<BoardSlot, BoardObservation>(|e: &Event| {
            matches!(e, SlotEvent::Observed(_, BoardObservation::Compose(ev))
                if ev.save_id == *id && matches!(ev.step, SaveStep::Ended(_)))
        })
        .await;
    match ended {
        Some(SlotEvent::Observed(_, BoardObservation::Compose(ev))) => match &ev.step {
            SaveStep::Ended(r) => r.clone(),
            _ => unreachable!(),
        },
        other => panic!("no receipt: {other:?}"),
    }
}

/// §8.4, §11: a post is applied once with the created post's id, its receipt in its own slot
/// (written → sending → ended), traced as `save:board_post`.
#[tokio::test(flavor = "current_thread")]
async fn s8_4_a_post_is_applied_once_with_its_id() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let scope = confirmed_scope(&mut rig).await;
    let id = submit(&mut rig, intent("Nightly", "All green."), scope).await;
    match receipt(&mut rig, &id).await {
        SaveOutcome::Applied { detail, .. } => assert!(!detail.post_id.is_empty()),
        other => panic!("not applied: {other:?}"),
    }
    assert_eq!(rig.server.request_count("POST", CREATE), 1);
    let steps: Vec<&'static str> = rig
        .view
        .slot_events::<BoardSlot, BoardObservation>()
        .iter()
        .filter_map(|e| match e {
            SlotEvent::Observed(t, BoardObservation::Compose(ev))
                if t.slot == BoardSlot::Compose(id.clone()) =>
            {
                Some(match &ev.step {
                    SaveStep::Written => "written",
                    SaveStep::Sending => "sending",
                    SaveStep::Ended(r) => Receipt::class(r).as_str(),
                    SaveStep::Restored(_) => "restored",
                })
            }
            _ => None,
        })
        .collect();
    assert_eq!(steps, ["written", "sending", "applied"]);
    let stages: Vec<String> = rig
        .recorder
        .records_where(|r| r.source == "save:board_post")
        .iter()
        .map(|r| r.stage.clone())
        .collect();
    assert_eq!(stages, ["dispatch", "worker_enter", "worker_return"]);
    rig.finish().await;
}

/// §8.4, §11: a post without a body is refused by the server (400): known not applied, with
/// the server's reason.
#[tokio::test(flavor = "current_thread")]
async fn s8_4_a_post_without_a_body_is_refused() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let scope = confirmed_scope(&mut rig).await;
    let id = submit(&mut rig, intent("Empty", ""), scope).await;
    let r = receipt(&mut rig, &id).await;
    assert_eq!(Receipt::class(&r), SaveClass::NotApplied);
    assert!(Receipt::reason(&r).is_some_and(|x| x.contains("body is required")));
    rig.finish().await;
}

/// §11, H-5: a post whose connection drops after the server created it is outcome unknown and
/// never resent (one POST): the post is not idempotent.
#[tokio::test(flavor = "current_thread")]
async fn s11_a_dropped_post_is_outcome_unknown_and_never_resent() {
    let mut rig = rig_with(plan(&format!(
        r#"{{"match":{{"method":"POST","path":"{CREATE}"}},"when":{{"every":true}},"fault":{{"drop":"after_apply"}}}}"#
    )))
    .await;
    let scope = confirmed_scope(&mut rig).await;
    let id = submit(&mut rig, intent("Dropped", "text"), scope).await;
    assert_eq!(
        Receipt::class(&receipt(&mut rig, &id).await),
        SaveClass::OutcomeUnknown
    );
    assert_eq!(rig.server.request_count("POST", CREATE), 1);
    rig.finish().await;
}
