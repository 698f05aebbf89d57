//! The Board vote save on the embedded server (protocol-15-operator.md §15.6, §15.12, §15.14):
//! one test per outcome and fault, each asserting the typed receipt, the steps on the save's
//! own slot, how many POSTs the server saw and what its store holds afterwards — never wording.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code
use crate::actor_support::{Rig, post_fault, rig_on_release, rig_with};
use crate::save_rig::{current_scope, receipt_on, stages, steps_on};
use masc_tui::actors::board::vote::{BoardVote, VoteIntent};
use masc_tui::actors::board::{BOARD, BoardCommand, BoardObservation, BoardSlot};
use masc_tui::actors::saves::{SaveEvent, SaveId};
use masc_tui::protocol::board_vote::{BoardVoteOutcome, OwnVote, VoteDirection, VoteRecorded};
use masc_tui::protocol::outcome::{ROUTE_NOT_SERVED, SaveClass, SaveOutcome};
use masc_tui::server::RunningServer;
use masc_tui::server::compat::MascRelease;
use masc_tui::server::faults::FaultPlan;
use masc_tui::server::store::board;

const VOTE: &str = "/api/v1/tools/masc_board_vote";
const POST: &str = "post-1001";

fn vote_event(p: &BoardObservation) -> Option<&SaveEvent<BoardVote>> {
    match p {
        BoardObservation::Vote(ev) => Some(ev),
        _ => None,
    }
}

async fn vote(
    rig: &mut Rig,
    post_id: &str,
    direction: VoteDirection,
) -> (SaveId, BoardVoteOutcome) {
    let scope = current_scope(rig).await;
    let intent = VoteIntent {
        post_id: post_id.into(),
        direction,
    };
    let id = crate::save_rig::submit::<BoardVote>(rig, intent, scope).await;
    let receipt = receipt_on::<BoardSlot, BoardObservation, BoardVote>(rig, &id, vote_event).await;
    (id, receipt)
}

/// The post's net score and masc-tui's stored vote, as the server holds them.
async fn stored(server: &RunningServer) -> (i64, Option<String>) {
    server
        .state()
        .store()
        .read(|c| {
            let votes = board::post(c, POST)?.map(|p| p.votes).unwrap_or_default();
            Ok((votes, board::vote_of(c, "masc-tui", POST)?))
        })
        .await
        .unwrap()
}

fn applied(direction: VoteDirection, score: i64) -> BoardVoteOutcome {
    SaveOutcome::Applied {
        detail: VoteRecorded {
            direction,
            score: Some(score),
        },
        warning: None,
    }
}

/// §15.6, §15.12: a vote is applied with the new score, its steps in its own slot, traced as
/// `save:board_vote`; the same direction again is unchanged and moves nothing.
#[tokio::test(flavor = "current_thread")]
async fn s15_6_a_vote_is_applied_then_the_same_direction_is_unchanged() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let (before, _) = stored(&rig.server).await;
    let (id, r) = vote(&mut rig, POST, VoteDirection::Up).await;
    assert_eq!(r, applied(VoteDirection::Up, before + 1));
    assert_eq!(
        steps_on(&mut rig, &id, &BoardSlot::Vote(id.clone()), vote_event),
        ["written", "sending", "ended:applied"]
    );
    assert_eq!(
        stages(&rig, "board_vote"),
        ["dispatch:", "worker_enter:", "worker_return:ok"]
    );
    let (_, again) = vote(&mut rig, POST, VoteDirection::Up).await;
    assert_eq!(again, SaveOutcome::Unchanged);
    assert_eq!(rig.server.request_count("POST", VOTE), 2);
    assert_eq!(stored(&rig.server).await, (before + 1, Some("up".into())));
    rig.finish().await;
}

/// §15.6: the other direction flips the vote (that direction +1, the other −1).
#[tokio::test(flavor = "current_thread")]
async fn s15_6_the_other_direction_flips_the_vote() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let (before, _) = stored(&rig.server).await;
    vote(&mut rig, POST, VoteDirection::Up).await;
    let (_, flipped) = vote(&mut rig, POST, VoteDirection::Down).await;
    assert_eq!(flipped, applied(VoteDirection::Down, before - 1));
    assert_eq!(stored(&rig.server).await, (before - 1, Some("down".into())));
    rig.finish().await;
}

/// §15.12, §15.14: a vote on a post the server does not have (deleted) is a 400: not applied,
/// with the server's words.
#[tokio::test(flavor = "current_thread")]
async fn s15_14_a_vote_on_a_deleted_post_is_not_applied() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let (_, r) = vote(&mut rig, "post-9999", VoteDirection::Up).await;
    assert_eq!(r.save_class(), SaveClass::NotApplied);
    assert!(
        r.reason().is_some_and(|x| x.contains("Post not found")),
        "{r:?}"
    );
    rig.finish().await;
}

/// §15.14, H-5: a vote whose connection drops after the server applied it is outcome unknown
/// and never resent (one POST), though the server holds it.
#[tokio::test(flavor = "current_thread")]
async fn s15_14_a_vote_dropped_after_applying_is_unknown_and_never_resent() {
    let mut rig = rig_with(post_fault(VOTE, r#"{"drop":"after_apply"}"#)).await;
    let (before, _) = stored(&rig.server).await;
    let (_, r) = vote(&mut rig, POST, VoteDirection::Up).await;
    assert_eq!(r.save_class(), SaveClass::OutcomeUnknown);
    assert_eq!(rig.server.request_count("POST", VOTE), 1);
    assert_eq!(stored(&rig.server).await, (before + 1, Some("up".into())));
    rig.finish().await;
}

/// §15.12, §15.14: a 2xx that is not the tool envelope is outcome unknown (the vote was
/// applied behind it).
#[tokio::test(flavor = "current_thread")]
async fn s15_14_a_2xx_that_is_not_the_envelope_is_unknown() {
    let mut rig = rig_with(post_fault(
        VOTE,
        r#"{"answer_after_apply":{"status":200,"body":{"voted":true}}}"#,
    ))
    .await;
    let (_, r) = vote(&mut rig, POST, VoteDirection::Down).await;
    assert_eq!(r.save_class(), SaveClass::OutcomeUnknown);
    assert_eq!(stored(&rig.server).await.1, Some("down".into()));
    rig.finish().await;
}

/// §15.12: a reply for the other direction than the one sent is outcome unknown.
#[tokio::test(flavor = "current_thread")]
async fn s15_12_a_reply_for_the_other_direction_is_unknown() {
    let mut rig = rig_with(post_fault(VOTE, r#"{"echo":"wrong"}"#)).await;
    let (_, r) = vote(&mut rig, POST, VoteDirection::Up).await;
    assert_eq!(r.save_class(), SaveClass::OutcomeUnknown);
    rig.finish().await;
}

/// §15.6 × compatibility: a server whose router does not know the route answers its unknown-route
/// 404: not applied, naming the absent route; nothing stored.
#[tokio::test(flavor = "current_thread")]
async fn s15_6_an_unknown_route_is_not_served() {
    let mut rig = rig_with(post_fault(VOTE, r#"{"status":404,"body":"404 Not Found"}"#)).await;
    let (before, _) = stored(&rig.server).await;
    let (_, r) = vote(&mut rig, POST, VoteDirection::Up).await;
    assert_eq!(
        r,
        SaveOutcome::NotApplied {
            reason: ROUTE_NOT_SERVED.into()
        }
    );
    assert_eq!(stored(&rig.server).await, (before, None));
    rig.finish().await;
}

/// §15.6: the vote route is "as in MASC": MASC v0.24.0 serves it, and the post detail read
/// (`voter=masc-tui`) shows masc-tui's own vote and the moved score.
#[tokio::test(flavor = "current_thread")]
async fn s15_6_masc_v0_24_0_serves_votes_and_the_detail_shows_masc_tuis_vote() {
    let mut rig = rig_on_release(MascRelease::V0_24_0).await;
    let (before, _) = stored(&rig.server).await;
    let (_, r) = vote(&mut rig, POST, VoteDirection::Up).await;
    assert_eq!(r.save_class(), SaveClass::Applied);
    rig.source_handle(BOARD)
        .await
        .commands::<BoardCommand>()
        .expect("the Board source takes Board commands")
        .send_message(BoardCommand::OpenPost {
            post_id: POST.into(),
        })
        .unwrap();
    let key = BoardSlot::Post(POST.into());
    let read = rig.observed_of::<_, BoardObservation>(&key).await;
    let BoardObservation::Post(Ok(detail)) = &read.payload else {
        panic!("{:?}", read.payload);
    };
    assert_eq!(
        detail.value.own_vote,
        Some(OwnVote {
            current: Some(VoteDirection::Up),
            has_voted: true
        })
    );
    assert_eq!(detail.value.post.votes, before + 1);
    rig.finish().await;
}
