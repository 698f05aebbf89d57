#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! Preparation detail of the open chat (sources.md M-1…M-9; protocol.md
//! §14.12): aimed only while the chat's details are expanded (M-9), at the newest finished turn
//! by an exact link (M-1), never when the reply and the operation record disagree (M-2); the
//! detail row words each state apart — reading, `조회 불가`, `권한 거절` (M-8), partial health
//! (M-4), the report's row kinds (M-4) — and an answer for another target is `other_target`
//! (M-5).

use crate::chat_screen::{draw, opened};
use masc_tui::actors::chat::{ChatObservation, ChatSlot, Reconciliation, SendOutcome, SendStep};
use masc_tui::actors::contract::{SlotEvent, Ticket};
use masc_tui::actors::preparation_report::{
    PreparationReportObservation, PreparationReportSlot, PreparationReportTarget,
};
use masc_tui::protocol::admission::AdmissionMode;
use masc_tui::protocol::chat::{ChatOperationRecord, OperationState, ReplyDetails, TurnOutcome};
use masc_tui::protocol::client::{Admitted, ClientError};
use masc_tui::protocol::runtime_trace::{RuntimeTrace, TurnLink};
use masc_tui::view::admission::RejectReason;
use masc_tui::view::chat::preparation_report::{aim_of, detail_text, sync};
use masc_tui::view::model::Model;
use masc_tui::view::preparation_report::Aim;
use masc_tui::view::sample::{self, buffer_text};
use serde_json::json;
use std::sync::Arc;

const A: &str = "tui-0190f5a0-0000-7000-8000-0000000000d1";

fn send_step(model: &mut Model, keeper: &str, step: SendStep) {
    crate::chat_screen::send_step(model, keeper, A, step);
}

/// A completed send whose reply was recorded under `turn_ref`.
fn completed(model: &mut Model, keeper: &str, turn_ref: &str) {
    model
        .chat
        .pane
        .as_mut()
        .unwrap()
        .register_send(A, "status?");
    send_step(
        model,
        keeper,
        SendStep::Accepted {
            state: OperationState::Running,
            interactive: None,
        },
    );
    send_step(
        model,
        keeper,
        SendStep::Ended(SendOutcome::Completed {
            reply: ReplyDetails {
                reply: "green".into(),
                turn_outcome: TurnOutcome("visible_reply".into()),
                turn_ref: turn_ref.into(),
            },
        }),
    );
}

fn target(keeper: &str, turn_ref: &str) -> PreparationReportTarget {
    PreparationReportTarget {
        keeper: keeper.into(),
        link: TurnLink::parse(turn_ref).unwrap(),
    }
}

fn report(keeper: &str, turn_ref: &str, health: &str, stale: Option<&str>) -> RuntimeTrace {
    let link = TurnLink::parse(turn_ref).unwrap();
    let row = |event: &str, turn: u64, seq: i64| {
        json!({"ts":"2026-11-20T09:00:00Z","keeper_name":keeper,"trace_id":link.trace_id,
               "keeper_turn_id":turn,"logical_seq":seq,"event":event,"status":"ok"})
    };
    let rows = vec![
        row("turn_started", link.turn_id, 1),
        row("preparation_scope_opened", link.turn_id, 2),
        row("turn_finished", link.turn_id - 1, 9),
        json!({"event": 7}),
        row("turn_finished", link.turn_id, 3),
    ];
    let body = json!({"keeper":keeper,"trace_id":link.trace_id,"turn_id":link.turn_id,
        "health":health,"stale_reason":stale,"manifest_total_rows":5,"manifest_total_rows_exact":true,
        "manifest_returned_rows":5,"receipt_returned_rows":0,"manifest_rows":rows,"receipts":[]});
    RuntimeTrace::decode_for(body.to_string().as_bytes(), keeper, &link).unwrap()
}

fn ticket(generation: u64) -> Ticket<PreparationReportSlot> {
    Ticket {
        slot: PreparationReportSlot::Report,
        generation,
        scope: sample::scope(1),
    }
}

fn answer(
    model: &mut Model,
    generation: u64,
    target: PreparationReportTarget,
    result: Result<RuntimeTrace, ClientError>,
) -> Result<(), RejectReason> {
    let t = ticket(generation);
    crate::rig::dispatch(model, t.clone());
    crate::rig::observe(
        model,
        SlotEvent::Observed(
            t,
            PreparationReportObservation {
                target,
                result: result.map(|v| Admitted {
                    value: Arc::new(v),
                    mode: AdmissionMode::Receipt,
                    from_cache: false,
                }),
            },
        ),
    )
}

/// M-9, M-1, C-30: folded details aim at nothing (nothing is read); expanded, the newest
/// finished turn by its recorded reply's exact `turn_ref`; the aim asks for one read, a second
/// aim at the same target asks for none.
#[test]
fn m9_m1_only_expanded_details_aim_at_the_newest_turns_exact_link() {
    let (mut model, _ui, keeper) = opened(0);
    completed(&mut model, &keeper, "trace-x#41");
    let pane = model.chat.pane.as_ref().unwrap();
    assert_eq!(aim_of(pane, false), Aim::Nothing);
    let aim = aim_of(pane, true);
    assert_eq!(aim, Aim::Target(target(&keeper, "trace-x#41")));
    assert_eq!(
        model.preparation.aim(aim.clone()),
        Some(target(&keeper, "trace-x#41")),
        "one read is asked"
    );
    assert_eq!(
        model.preparation.aim(aim),
        None,
        "the same aim asks nothing more"
    );
    // A reply without a parseable link aims at nothing (never guessed).
    let (mut model, _ui, keeper) = opened(0);
    completed(&mut model, &keeper, "not-a-turn-ref");
    assert_eq!(
        aim_of(model.chat.pane.as_ref().unwrap(), true),
        Aim::Nothing
    );
}

/// M-2: the reply's `turn_ref` and the operation record's `outcome_ref` disagree: neither is
/// chosen, and the detail row says so.
#[test]
fn m2_links_that_disagree_choose_neither() {
    let (mut model, _ui, keeper) = opened(0);
    completed(&mut model, &keeper, "trace-x#41");
    let record = format!(
        r#"{{"schema":"masc.keeper_chat_operation.v1","operation_id":"{A}","sequence":"7","created_at":1.0,"execution_digest":"d1","source":{{}},"input":null,"state":"Succeeded","completed_at":3.0,"outcome_ref":"trace-x#42"}}"#
    );
    let record = ChatOperationRecord::decode_for(record.as_bytes(), A).unwrap();
    let t = Ticket {
        slot: ChatSlot::Reconcile {
            keeper: keeper.clone(),
            request_id: A.into(),
        },
        generation: 3,
        scope: sample::scope(1),
    };
    model.chat.pane.as_mut().unwrap().apply(
        &t,
        ChatObservation::Reconciled {
            request_id: A.into(),
            result: Reconciliation::Found(Box::new(record)),
        },
    );
    let aim = aim_of(model.chat.pane.as_ref().unwrap(), true);
    assert!(matches!(aim, Aim::Conflict { .. }), "{aim:?}");
    assert_eq!(model.preparation.aim(aim), None, "nothing is read");
    let text = detail_text(&model.preparation).unwrap();
    assert!(text.contains("연결 안 됨"), "{text}");
}

/// M-4, M-5, M-8: the row while reading, for a permission refusal, for an unavailable read and
/// for a partial report (its row kinds apart); an answer for another target is other_target.
#[test]
fn m4_m5_m8_the_detail_row_words_each_state_apart() {
    let (mut model, ui, keeper) = opened(0);
    let t = target(&keeper, "trace-x#41");
    model.preparation.aim(Aim::Target(t.clone()));
    let reading = detail_text(&model.preparation).unwrap();
    assert!(reading.contains("trace-x#41 · 조회 중"), "{reading}");
    // Another target's answer is not this one's (M-5).
    assert_eq!(
        answer(
            &mut model,
            1,
            target(&keeper, "trace-x#40"),
            Ok(report(&keeper, "trace-x#40", "ok", None))
        ),
        Err(RejectReason::OtherTarget)
    );
    // M-8: a refusal is not "unavailable".
    let refused = ClientError::Unauthorized {
        status: 403,
        code: None,
    };
    assert_eq!(answer(&mut model, 2, t.clone(), Err(refused)), Ok(()));
    let text = detail_text(&model.preparation).unwrap();
    assert!(text.contains("권한 거절 (HTTP 403)"), "{text}");
    assert!(!text.contains("조회 불가"), "{text}");
    assert_eq!(
        answer(&mut model, 3, t.clone(), Err(ClientError::Timeout)),
        Ok(())
    );
    let text = detail_text(&model.preparation).unwrap();
    assert!(text.contains("조회 불가 (timeout)"), "{text}");
    // M-4: partial is never success; each row kind apart.
    assert_eq!(
        answer(
            &mut model,
            4,
            t,
            Ok(report(
                &keeper,
                "trace-x#41",
                "partial",
                Some("no_matching_receipt_rows")
            ))
        ),
        Ok(())
    );
    let text = detail_text(&model.preparation).unwrap();
    for needle in [
        "최근 확인",
        "health partial (no_matching_receipt_rows) · partial",
        "manifest 5 of 5 rows · receipts 0",
        "1 turn_started · ok",
        "unsupported event: preparation_scope_opened",
        "1 rows of other turns · not this turn's",
        "1 rows not decoded",
    ] {
        assert!(text.contains(needle), "{needle}:\n{text}");
    }
    // On screen: a status row of the chat.
    sync(&model.preparation, model.chat.pane.as_ref().unwrap());
    let screen = buffer_text(&draw(&model, &ui));
    assert!(screen.contains("○"), "{screen}");
    assert!(
        screen.contains("준비 상세 · trace-x#41 · 최근 확인"),
        "{screen}"
    );
    // Folded again: the row goes.
    model.preparation.aim(Aim::Nothing);
    sync(&model.preparation, model.chat.pane.as_ref().unwrap());
    let screen = buffer_text(&draw(&model, &ui));
    assert!(!screen.contains("준비 상세"), "{screen}");
}
