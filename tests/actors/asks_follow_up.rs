//! The Asks source on the embedded server (protocol.md §10.3, §10.4, §13; sources.md K-9…K-16):
//! the follow-up stream step by step, its cuts and broken rules, cancellation by a new answer
//! and by authority withdrawal, and the pinned turn's transcript.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code
use crate::actor_support::{Rig, plan, rig_with};
use masc_tui::actors::asks::{
    ASKS, AskRef, AsksCommand, AsksObservation, AsksSlot, FollowUpCut, FollowUpFailure,
    FollowUpStep, TurnTarget,
};
use masc_tui::actors::contract::{IdentityState, SlotEvent, SourceEvent, Ticket};
use masc_tui::protocol::asks::{SourceObservation, WakeObservation};
use masc_tui::protocol::client::ClientError;
use masc_tui::protocol::decode::DecodeErrorKind;
use masc_tui::protocol::transcript::{TranscriptRowKind, TurnTranscript};
use masc_tui::server::faults::FaultPlan;

type Event = SlotEvent<AsksSlot, AsksObservation>;

const FOLLOW: &str = "/api/v1/keepers/asks/follow-up";

fn sangsu() -> AskRef {
    AskRef {
        keeper: "sangsu".into(),
        ask_id: "ask-sangsu-0398".into(),
    }
}

fn sky() -> AskRef {
    AskRef {
        keeper: "하늘".into(),
        ask_id: "ask-sky-0415".into(),
    }
}

async fn workspace(rig: &mut Rig) -> String {
    match rig
        .view
        .wait_event(|e| matches!(e, SourceEvent::Identity(IdentityState::Confirmed { .. })))
        .await
    {
        Some(SourceEvent::Identity(IdentityState::Confirmed { scope, .. })) => {
            scope.workspace.0.clone()
        }
        other => panic!("no confirmation: {other:?}"),
    }
}

async fn command(rig: &mut Rig, cmd: AsksCommand) {
    rig.source_handle(ASKS)
        .await
        .commands::<AsksCommand>()
        .expect("the asks source takes AsksCommand")
        .send_message(cmd)
        .unwrap();
}

async fn follow(rig: &mut Rig, ask: AskRef) {
    let ws = workspace(rig).await;
    command(rig, AsksCommand::Follow { ask, workspace: ws }).await;
}

/// Every follow-up step of `ask` up to and including the last one, in order.
async fn steps_until_last(rig: &mut Rig, ask: &AskRef) -> Vec<FollowUpStep> {
    let slot = AsksSlot::FollowUp(ask.clone());
    let mut out = Vec::new();
    loop {
        let e = rig
            .view
            .wait_slot::<AsksSlot, AsksObservation>(|e: &Event| {
                matches!(e, SlotEvent::Observed(t, AsksObservation::FollowUp(_)) if t.slot == slot)
            })
            .await;
        match e {
            Some(SlotEvent::Observed(_, AsksObservation::FollowUp(step))) => {
                out.push(step.clone());
                if step.is_last() {
                    return out;
                }
            }
            other => panic!("no step: {other:?} after {out:?}"),
        }
    }
}

fn names(steps: &[FollowUpStep]) -> Vec<String> {
    steps
        .iter()
        .map(|s| match s {
            FollowUpStep::Started { .. } => "started".to_string(),
            FollowUpStep::Source(o) => format!("source:{:?}", o.source()),
            FollowUpStep::Completed => "completed".to_string(),
            FollowUpStep::Cut(c) => format!("cut:{}", c.class()),
            FollowUpStep::Failed(f) => format!("failed:{}", f.class()),
        })
        .collect()
}

/// §10.3, K-9, K-10: a complete follow-up arrives step by step — the Task stored on the
/// question first, then each source once (the Tool result before the turn), then COMPLETED.
#[tokio::test(flavor = "current_thread")]
async fn k10_s10_3_a_complete_follow_up_arrives_source_by_source() {
    let mut rig = rig_with(FaultPlan::default()).await;
    follow(&mut rig, sangsu()).await;
    let steps = steps_until_last(&mut rig, &sangsu()).await;
    assert_eq!(
        names(&steps),
        [
            "started",
            "source:ToolResult",
            "source:Wake",
            "source:Task",
            "completed"
        ]
    );
    assert_eq!(
        steps[0],
        FollowUpStep::Started {
            task_id: Some("task-1021".into())
        }
    );
    let wake = steps.iter().find_map(|s| match s {
        FollowUpStep::Source(SourceObservation::Wake(w)) => Some(w.clone()),
        _ => None,
    });
    assert!(
        matches!(&wake, Some(WakeObservation::Observed { turns, complete: true }) if turns[0].turn_ref == "trace-sangsu#17"),
        "{wake:?}"
    );
    rig.finish().await;
}

/// K-11, K-13: the connection is cut after STARTED and one source: that source was received;
/// the read ends cut (EOF before COMPLETED), never completed.
#[tokio::test(flavor = "current_thread")]
async fn k11_k13_a_cut_after_a_partial_receipt_ends_the_read_without_completing_it() {
    let mut rig = rig_with(plan(&format!(
        r#"{{"match":{{"method":"GET","path":"{FOLLOW}"}},"when":{{"nth":1}},"fault":{{"sse_cut_after":2}}}}"#
    )))
    .await;
    follow(&mut rig, sangsu()).await;
    let steps = steps_until_last(&mut rig, &sangsu()).await;
    assert_eq!(
        names(&steps),
        ["started", "source:ToolResult", "cut:eof_before_completed"]
    );
    assert!(!steps.contains(&FollowUpStep::Completed));
    rig.finish().await;
}

/// K-13: EOF after all three sources but without COMPLETED still does not complete the read.
#[tokio::test(flavor = "current_thread")]
async fn k13_eof_after_every_source_without_completed_never_completes() {
    let mut rig = rig_with(plan(&format!(
        r#"{{"match":{{"method":"GET","path":"{FOLLOW}"}},"when":{{"nth":1}},"fault":{{"sse_cut_after":4}}}}"#
    )))
    .await;
    follow(&mut rig, sangsu()).await;
    let steps = steps_until_last(&mut rig, &sangsu()).await;
    assert_eq!(steps.len(), 5);
    assert_eq!(steps.last(), Some(&FollowUpStep::Cut(FollowUpCut::Eof)));
    rig.finish().await;
}

/// K-13: a STARTED naming another Ask breaks the start identity: the read fails typed, before
/// any source.
#[tokio::test(flavor = "current_thread")]
async fn k13_a_wrong_start_identity_fails_the_read() {
    let mut rig = rig_with(plan(&format!(
        r#"{{"match":{{"method":"GET","path":"{FOLLOW}"}},"fault":{{"echo":"wrong"}}}}"#
    )))
    .await;
    follow(&mut rig, sangsu()).await;
    let steps = steps_until_last(&mut rig, &sangsu()).await;
    match steps.as_slice() {
        [FollowUpStep::Failed(FollowUpFailure::Rule(e))] => {
            assert_eq!(e.kind, DecodeErrorKind::IdentityMismatch)
        }
        other => panic!("{other:?}"),
    }
    rig.finish().await;
}

/// A failed open (HTTP 500) is a typed failure of the whole read, not an empty follow-up.
#[tokio::test(flavor = "current_thread")]
async fn k10_a_failed_open_is_a_typed_failure() {
    let mut rig = rig_with(plan(&format!(
        r#"{{"match":{{"method":"GET","path":"{FOLLOW}"}},"fault":{{"status":500,"body":{{"error":"boom"}}}}}}"#
    )))
    .await;
    follow(&mut rig, sangsu()).await;
    let steps = steps_until_last(&mut rig, &sangsu()).await;
    assert!(
        matches!(
            steps.as_slice(),
            [FollowUpStep::Failed(FollowUpFailure::Open(
                ClientError::Status { status: 500, .. }
            ))]
        ),
        "{steps:?}"
    );
    rig.finish().await;
}

async fn dispatched(rig: &mut Rig, slot: &AsksSlot) -> Ticket<AsksSlot> {
    rig.dispatched_of::<AsksSlot, AsksObservation>(slot).await
}

async fn retired(rig: &mut Rig, ticket: &Ticket<AsksSlot>) {
    let t = ticket.clone();
    rig.view
        .wait_slot::<AsksSlot, AsksObservation>(
            |e: &Event| matches!(e, SlotEvent::Retired(r) if *r == t),
        )
        .await
        .expect("retired");
}

/// K-13: a new answer cancels the follow-up worker in flight: its ticket is retired (traced
/// `cancel_requested` `new_answer`), nothing more of it is forwarded, and the new read runs.
#[tokio::test(flavor = "current_thread")]
async fn k13_a_new_answer_cancels_the_worker() {
    let mut rig = rig_with(plan(&format!(
        r#"{{"match":{{"method":"GET","path":"{FOLLOW}","query":"sangsu"}},"fault":{{"delay_ms":3000}}}}"#
    )))
    .await;
    let ws = workspace(&mut rig).await;
    command(
        &mut rig,
        AsksCommand::Follow {
            ask: sangsu(),
            workspace: ws.clone(),
        },
    )
    .await;
    let first = dispatched(&mut rig, &AsksSlot::FollowUp(sangsu())).await;
    command(
        &mut rig,
        AsksCommand::Follow {
            ask: sky(),
            workspace: ws,
        },
    )
    .await;
    retired(&mut rig, &first).await;
    let steps = steps_until_last(&mut rig, &sky()).await;
    assert_eq!(steps.last(), Some(&FollowUpStep::Completed));
    let cancels = rig
        .recorder
        .records_where(|r| r.source == "ask_follow_up" && r.stage == "cancel_requested");
    assert_eq!(cancels.len(), 1);
    assert_eq!(cancels[0].reason.as_deref(), Some("new_answer"));
    assert!(
        !rig.view
            .slot_events::<AsksSlot, AsksObservation>()
            .iter()
            .any(|e| matches!(e, SlotEvent::Observed(t, _) if *t == first)),
        "the cancelled read forwards nothing"
    );
    rig.finish().await;
}

/// K-13: authority withdrawal (the server switches workspace) cancels the worker in flight.
#[tokio::test(flavor = "current_thread")]
async fn k13_authority_withdrawal_cancels_the_worker() {
    let mut rig = rig_with(plan(&format!(
        r#"{{"match":{{"method":"GET","path":"{FOLLOW}"}},"fault":{{"delay_ms":3000}}}}"#
    )))
    .await;
    follow(&mut rig, sangsu()).await;
    let first = dispatched(&mut rig, &AsksSlot::FollowUp(sangsu())).await;
    let base = rig.server.base_path();
    rig.server
        .switch_workspace(&base, &format!("{base}/.masc-other"));
    retired(&mut rig, &first).await;
    let cancels = rig
        .recorder
        .records_where(|r| r.source == "ask_follow_up" && r.stage == "cancel_requested");
    assert_eq!(cancels.len(), 1);
    assert_eq!(cancels[0].reason.as_deref(), Some("withdrawn"));
    rig.finish().await;
}

/// K-5: a follow-up of an answer made in another workspace is refused, never read under the
/// current authority.
#[tokio::test(flavor = "current_thread")]
async fn k5_a_follow_up_of_another_workspace_is_refused() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let _ = workspace(&mut rig).await;
    command(
        &mut rig,
        AsksCommand::Follow {
            ask: sangsu(),
            workspace: "/elsewhere/.masc".into(),
        },
    )
    .await;
    let refused = rig
        .recorder
        .wait_for(|r| r.source == "ask_follow_up" && r.stage == "refused")
        .await
        .expect("refused");
    assert_eq!(refused.reason.as_deref(), Some("other_workspace"));
    assert_eq!(rig.server.request_count("GET", FOLLOW), 0);
    rig.finish().await;
}

/// K-16, §10.4: the pinned turn's transcript is read and validated (Keeper, Turn_ref,
/// version, rows); a request failure row keeps its own kind.
#[tokio::test(flavor = "current_thread")]
async fn k16_the_pinned_turn_transcript_is_read_and_validated() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let _ = workspace(&mut rig).await;
    let target = TurnTarget {
        keeper: "rondo".into(),
        turn_ref: "trace-rondo#42".into(),
    };
    command(&mut rig, AsksCommand::Transcript(target.clone())).await;
    let obs = rig
        .observed_of::<AsksSlot, AsksObservation>(&AsksSlot::Transcript(target))
        .await;
    match obs.payload {
        AsksObservation::Transcript(Ok(a)) => match a.value.as_ref() {
            TurnTranscript::Found {
                keeper,
                turn_ref,
                rows,
                ..
            } => {
                assert_eq!(
                    (keeper.as_str(), turn_ref.as_str()),
                    ("rondo", "trace-rondo#42")
                );
                assert_eq!(rows.len(), 2);
                assert_eq!(rows[1].kind, TranscriptRowKind::RequestFailure);
            }
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    }
    rig.finish().await;
}

/// K-16: a transcript echoing another Keeper or Turn_ref fails the read (never shown as that
/// turn's response).
#[tokio::test(flavor = "current_thread")]
async fn k16_a_wrong_transcript_echo_fails_the_read() {
    let mut rig = rig_with(plan(
        r#"{"match":{"method":"GET","path":"/api/v1/keepers/*"},"fault":{"echo":"wrong"}}"#,
    ))
    .await;
    let _ = workspace(&mut rig).await;
    let target = TurnTarget {
        keeper: "sangsu".into(),
        turn_ref: "trace-sangsu#17".into(),
    };
    command(&mut rig, AsksCommand::Transcript(target.clone())).await;
    let obs = rig
        .observed_of::<AsksSlot, AsksObservation>(&AsksSlot::Transcript(target))
        .await;
    assert!(
        matches!(
            &obs.payload,
            AsksObservation::Transcript(Err(ClientError::Decode(e))) if e.kind == DecodeErrorKind::EchoMismatch
        ),
        "{:?}",
        obs.payload
    );
    rig.finish().await;
}
