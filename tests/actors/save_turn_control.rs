//! `/interrupt` and `/steer` as saves on the embedded server (protocol.md §14.13,
//! §14.14, §4.2, §11 "Turn interrupt and run-next"; chat-screen.md C-36, C-43, C-44): the
//! census is read first, the exact target is sent once, every fault class is typed, and a
//! signalled stop ends the long demo reply as interrupted (`RUN_ERROR` `Turn_cancelled`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code
use crate::actor_support::{Rig, post_fault, rig_on_release, rig_with};
use crate::save_rig::{confirmed_scope, submit};
use masc_tui::actors::chat::{
    ChatObservation, ChatSend, ChatSendIntent, ChatSlot, InterruptAim, InterruptIntent,
    SendOutcome, SendStep, SteerIntent, TurnControlEvent, TurnInterrupt, TurnSteer,
};
use masc_tui::actors::contract::SlotEvent;
use masc_tui::actors::saves::{SaveId, SaveStep};
use masc_tui::protocol::admission::ReadScope;
use masc_tui::protocol::chat::ChatStreamEvent;
use masc_tui::protocol::outcome::{SaveClass, SaveOutcome};
use masc_tui::protocol::turn_control::{InterruptOutcome, RunNextOutcome};
use masc_tui::server::compat::MascRelease;
use masc_tui::server::faults::FaultPlan;

const INTERRUPT: &str = "/api/v1/keepers/turn/interrupt";
const RUN_NEXT: &str = "/api/v1/keepers/turn/run-next";
const TURNS: &str = "/api/v1/keepers/turns";

type Event = SlotEvent<ChatSlot, ChatObservation>;

/// Sends `text` to `keeper` as a chat send; its request id.
async fn send(rig: &mut Rig, scope: &ReadScope, keeper: &str, text: &str) -> String {
    let request_id = masc_tui::outbox::new_request_id();
    let intent = ChatSendIntent {
        keeper: keeper.into(),
        request_id: request_id.clone(),
        text: text.into(),
        control_token: None,
        attempt: 0,
    };
    submit::<ChatSend>(rig, intent, scope.clone()).await;
    request_id
}

/// Waits for a step of send `request_id` matching `pred`.
async fn send_step(rig: &mut Rig, request_id: &str, pred: impl Fn(&SendStep) -> bool) -> SendStep {
    let found = rig
        .view
        .wait_slot::<ChatSlot, ChatObservation>(|e: &Event| {
            matches!(e, SlotEvent::Observed(_, ChatObservation::Send { request_id: id, step })
                if id == request_id && pred(step))
        })
        .await;
    match found {
        Some(SlotEvent::Observed(_, ChatObservation::Send { step, .. })) => step.clone(),
        other => panic!("no such step of {request_id}: {other:?}"),
    }
}

async fn streaming(rig: &mut Rig, request_id: &str) {
    send_step(rig, request_id, |s| {
        matches!(s, SendStep::Event(ChatStreamEvent::TextDelta { .. }))
    })
    .await;
}

async fn send_outcome(rig: &mut Rig, request_id: &str) -> SendOutcome {
    match send_step(rig, request_id, |s| matches!(s, SendStep::Ended(_))).await {
        SendStep::Ended(outcome) => outcome,
        other => panic!("{other:?}"),
    }
}

async fn control_receipt(rig: &mut Rig, id: &SaveId) -> TurnControlEvent {
    let found = rig
        .view
        .wait_slot::<ChatSlot, ChatObservation>(|e: &Event| match e {
            SlotEvent::Observed(_, ChatObservation::Control(ev)) => {
                ev.save_id() == id
                    && match ev.as_ref() {
                        TurnControlEvent::Interrupt(e) => matches!(e.step, SaveStep::Ended(_)),
                        TurnControlEvent::Steer(e) => matches!(e.step, SaveStep::Ended(_)),
                    }
            }
            _ => false,
        })
        .await;
    match found {
        Some(SlotEvent::Observed(_, ChatObservation::Control(ev))) => (**ev).clone(),
        other => panic!("no receipt: {other:?}"),
    }
}

async fn interrupt(
    rig: &mut Rig,
    scope: &ReadScope,
    keeper: &str,
    aim: InterruptAim,
) -> InterruptOutcome {
    let id = submit::<TurnInterrupt>(
        rig,
        InterruptIntent {
            keeper: keeper.into(),
            aim,
        },
        scope.clone(),
    )
    .await;
    match control_receipt(rig, &id).await {
        TurnControlEvent::Interrupt(e) => match e.step {
            SaveStep::Ended(r) => r,
            other => panic!("{other:?}"),
        },
        other => panic!("not an interrupt: {other:?}"),
    }
}

async fn steer(rig: &mut Rig, scope: &ReadScope, keeper: &str, request_id: &str) -> RunNextOutcome {
    let id = submit::<TurnSteer>(
        rig,
        SteerIntent {
            keeper: keeper.into(),
            request_id: request_id.into(),
            run_next: false,
            predecessors: Vec::new(),
        },
        scope.clone(),
    )
    .await;
    match control_receipt(rig, &id).await {
        TurnControlEvent::Steer(e) => match e.step {
            SaveStep::Ended(r) => r,
            other => panic!("{other:?}"),
        },
        other => panic!("not a steer: {other:?}"),
    }
}

fn by_request(request_id: &str) -> InterruptAim {
    InterruptAim::Request {
        request_id: request_id.into(),
    }
}

/// C-44, §14.13: the census is read, the exact request id is sent once, the stop is signalled
/// (applied: not yet "ended"), and the long reply's own stream then ends it as a cancelled
/// turn — never a reply, never `Completed`.
#[tokio::test(flavor = "current_thread")]
async fn c44_s14_13_interrupt_by_request_id_ends_the_long_reply_as_cancelled() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let scope = confirmed_scope(&mut rig).await;
    let request_id = send(&mut rig, &scope, "rondo", "please give me a long reply").await;
    streaming(&mut rig, &request_id).await;
    let outcome = interrupt(&mut rig, &scope, "rondo", by_request(&request_id)).await;
    assert!(
        matches!(&outcome, SaveOutcome::Applied { detail, .. } if !detail.paused),
        "{outcome:?}"
    );
    match send_outcome(&mut rig, &request_id).await {
        SendOutcome::Failed { code, .. } => {
            assert_eq!(code.as_deref(), Some("Turn_cancelled"))
        }
        other => panic!("the turn was not stopped: {other:?}"),
    }
    assert_eq!(rig.server.request_count("GET", TURNS), 1);
    assert_eq!(rig.server.request_count("POST", INTERRUPT), 1);
    let traced: Vec<String> = rig
        .recorder
        .records_where(|r| r.source == "save:turn_interrupt:rondo")
        .iter()
        .map(|r| format!("{}:{}", r.stage, r.outcome.clone().unwrap_or_default()))
        .collect();
    assert!(
        traced.contains(&"worker_return:ok".to_string()),
        "{traced:?}"
    );
    rig.finish().await;
}

/// §14.13 with the census token: `/interrupt <name>` for a turn this client did not send
/// names the `interrupt_token` §4.2 shows; with no turn running nothing is sent (unchanged).
#[tokio::test(flavor = "current_thread")]
async fn c43_s14_13_interrupt_by_census_token_and_nothing_sent_when_idle() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let scope = confirmed_scope(&mut rig).await;
    let request_id = send(&mut rig, &scope, "rondo", "long reply, please").await;
    streaming(&mut rig, &request_id).await;
    let outcome = interrupt(&mut rig, &scope, "rondo", InterruptAim::Current).await;
    assert_eq!(outcome.save_class(), SaveClass::Applied, "{outcome:?}");
    assert!(matches!(
        send_outcome(&mut rig, &request_id).await,
        SendOutcome::Failed { .. }
    ));
    // Now nothing runs: the census says so and no POST leaves.
    let idle = interrupt(&mut rig, &scope, "rondo", InterruptAim::Current).await;
    assert_eq!(idle, SaveOutcome::Unchanged);
    assert_eq!(rig.server.request_count("POST", INTERRUPT), 1);
    rig.finish().await;
}

/// §11 faults: dropped before the handler (unknown, the turn keeps running), dropped after it
/// (unknown, the turn was stopped), 409 (conflict), 5xx (unknown) — each with one POST, never
/// resent.
#[tokio::test(flavor = "current_thread")]
async fn s11_interrupt_faults_drop_before_and_after_409_and_5xx_are_typed_and_never_resent() {
    for (fault, class, stopped) in [
        (
            r#"{"drop":"before_apply"}"#,
            SaveClass::OutcomeUnknown,
            false,
        ),
        (r#"{"drop":"after_apply"}"#, SaveClass::OutcomeUnknown, true),
        (
            r#"{"status":409,"body":{"error":"target is no longer current","signalled":false}}"#,
            SaveClass::Conflict,
            false,
        ),
        (r#"{"status":503}"#, SaveClass::OutcomeUnknown, false),
    ] {
        let mut rig = rig_with(post_fault(INTERRUPT, fault)).await;
        let scope = confirmed_scope(&mut rig).await;
        let request_id = send(&mut rig, &scope, "rondo", "a long reply please").await;
        streaming(&mut rig, &request_id).await;
        let outcome = interrupt(&mut rig, &scope, "rondo", by_request(&request_id)).await;
        assert_eq!(outcome.save_class(), class, "{fault}: {outcome:?}");
        assert_eq!(rig.server.request_count("POST", INTERRUPT), 1, "{fault}");
        if stopped {
            assert!(
                matches!(
                    send_outcome(&mut rig, &request_id).await,
                    SendOutcome::Failed { .. }
                ),
                "{fault}"
            );
        } else {
            // The turn was not stopped: it is still streaming after the receipt.
            streaming(&mut rig, &request_id).await;
        }
        rig.finish().await;
    }
}

/// C-43, §14.13: a MASC without the §4.2 census (v0.24.0 stops whichever turn is current)
/// is never sent an interrupt: not sent, with the census token as the reason.
#[tokio::test(flavor = "current_thread")]
async fn c43_no_interrupt_is_sent_to_a_masc_without_the_turn_census() {
    let mut rig = rig_on_release(MascRelease::V0_24_0).await;
    let scope = confirmed_scope(&mut rig).await;
    let outcome = interrupt(&mut rig, &scope, "rondo", InterruptAim::Current).await;
    assert_eq!(
        outcome,
        SaveOutcome::NotSent {
            reason: masc_tui::actors::chat::interrupt::CENSUS_NOT_SERVED.into()
        }
    );
    assert_eq!(rig.server.request_count("POST", INTERRUPT), 0);
    rig.finish().await;
}

/// C-36, §14.14: a second input queued behind a running long reply is steered — the census
/// token names the running turn, the input runs next (prioritized, the running turn stopped),
/// and it then streams its own reply; a repeat on the started input is a conflict.
#[tokio::test(flavor = "current_thread")]
async fn c36_s14_14_steer_runs_the_queued_input_next_and_stops_the_running_turn() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let scope = confirmed_scope(&mut rig).await;
    let first = send(&mut rig, &scope, "rondo", "a long reply first").await;
    streaming(&mut rig, &first).await;
    let second = send(&mut rig, &scope, "rondo", "change of plan: check task-1013").await;
    send_step(&mut rig, &second, |s| {
        matches!(s, SendStep::Accepted { .. })
    })
    .await;
    let outcome = steer(&mut rig, &scope, "rondo", &second).await;
    assert!(
        matches!(&outcome, SaveOutcome::Applied { detail, .. } if detail.signalled),
        "{outcome:?}"
    );
    assert!(matches!(
        send_outcome(&mut rig, &first).await,
        SendOutcome::Failed { .. }
    ));
    assert!(matches!(
        send_outcome(&mut rig, &second).await,
        SendOutcome::Completed { .. }
    ));
    let again = steer(&mut rig, &scope, "rondo", &second).await;
    assert_eq!(again.save_class(), SaveClass::Conflict, "{again:?}");
    assert_eq!(rig.server.request_count("POST", RUN_NEXT), 2);
    rig.finish().await;
}

/// §14.14, C-66 `/run-next`: a queued input asked to run next (`interrupt_token: null`, no
/// census read) goes ahead of an earlier queued input once the running turn ends; the running
/// turn is not stopped by it (`signalled:false`; here it ends only by its own interrupt).
#[tokio::test]
async fn s14_14_run_next_moves_a_queued_input_ahead_and_stops_nothing() {
    let mut rig = rig_with(FaultPlan::default()).await;
    let scope = confirmed_scope(&mut rig).await;
    let first = send(&mut rig, &scope, "rondo", "a long reply first").await;
    streaming(&mut rig, &first).await;
    // One after the other, so each acceptance is awaited in the order it comes.
    let second = send(&mut rig, &scope, "rondo", "second question").await;
    send_step(&mut rig, &second, |s| {
        matches!(s, SendStep::Accepted { .. })
    })
    .await;
    let third = send(&mut rig, &scope, "rondo", "third, more urgent").await;
    send_step(&mut rig, &third, |s| matches!(s, SendStep::Accepted { .. })).await;
    let census = rig.server.request_count("GET", TURNS);
    let id = submit::<TurnSteer>(
        &mut rig,
        SteerIntent {
            keeper: "rondo".into(),
            request_id: third.clone(),
            run_next: true,
            predecessors: Vec::new(),
        },
        scope.clone(),
    )
    .await;
    let outcome = match control_receipt(&mut rig, &id).await {
        TurnControlEvent::Steer(e) => match e.step {
            SaveStep::Ended(r) => r,
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    };
    assert!(
        matches!(&outcome, SaveOutcome::Applied { detail, .. } if !detail.signalled),
        "{outcome:?}"
    );
    assert_eq!(
        rig.server.request_count("GET", TURNS),
        census,
        "run-next reads no census"
    );
    // The running turn keeps streaming until it is stopped on its own.
    streaming(&mut rig, &first).await;
    interrupt(&mut rig, &scope, "rondo", by_request(&first)).await;
    for id in [&third, &second] {
        assert!(matches!(
            send_outcome(&mut rig, id).await,
            SendOutcome::Completed { .. }
        ));
    }
    let events = rig.view.slot_events::<ChatSlot, ChatObservation>();
    let started = |id: &str| {
        events.iter().position(|e| {
            matches!(e, SlotEvent::Observed(_, ChatObservation::Send {
                request_id, step: SendStep::Event(ChatStreamEvent::RunStarted) })
                if request_id == id)
        })
    };
    let (third_at, second_at) = (started(&third), started(&second));
    assert!(
        third_at.is_some() && third_at < second_at,
        "the input asked to run next started first: {third_at:?} {second_at:?}"
    );
    assert_eq!(rig.server.request_count("POST", RUN_NEXT), 1);
    rig.finish().await;
}
