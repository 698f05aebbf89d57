#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! Held tool calls of the chat target in its transcript (protocol.md §14.5;
//! chat-screen.md C-44, C-53): a call this Keeper's turn waits on is a gate row in the default
//! view (news · target), another Keeper's is not; `/approve` and `/deny` answer the oldest held
//! call first, armed — the first press previews, the second answers through the
//! `held_call_decision` save; the receipt replaces the news (`판정 중 · 이 호출은 미뤄짐`, then
//! `승인됨 · 적용 예정` / `거부됨 · 실행 안 됨`); a call that leaves the list unanswered from here
//! reads `대기 끝남`.

use crate::chat_approvals::{observe_decision_read, receipt, slash};
use crate::chat_screen::{draw, opened};
use masc_tui::actors::contract::{SlotEvent, Ticket};
use masc_tui::actors::decisions::held_call::HeldCallDecision;
use masc_tui::actors::decisions::{DecisionsObservation, DecisionsSlot};
use masc_tui::actors::saves::{SaveEvent, SaveId, SaveStep};
use masc_tui::protocol::decode::WireDecode;
use masc_tui::protocol::held_calls::{
    HeldCallDecisionReply, HeldCallEffect, HeldToolCalls, ToolCallVerdict,
};
use masc_tui::protocol::outcome::SaveOutcome;
use masc_tui::view::keys::UiCommand;
use masc_tui::view::model::Model;
use masc_tui::view::sample::{self, buffer_text};
use masc_tui::view::screens::Ui;

fn call_json(keeper: &str, id: &str, tool: &str, asked_at: f64) -> String {
    format!(
        r#"{{"keeper":"{keeper}","tool_call_id":"{id}","tool":"{tool}","args":"{{\"cmd\":\"ls\"}}","question":"Run {tool}?","because":null,"asked_at":{asked_at},"timeout_sec":600}}"#
    )
}

/// The held calls read (generation `generation`): `calls` as listed. The view actor then
/// runs the chat's after-observation step.
fn read_calls(model: &mut Model, ui: &mut Ui, generation: u64, calls: &[String]) {
    let body = format!(r#"{{"pending":[{}]}}"#, calls.join(","));
    let calls = HeldToolCalls::decode(body.as_bytes()).unwrap();
    let observation = DecisionsObservation::HeldCalls(Ok(receipt(calls)));
    observe_decision_read(model, ui, DecisionsSlot::HeldCalls, generation, observation);
}

fn two_calls(keeper: &str) -> Vec<String> {
    vec![
        call_json(keeper, "call-1", "bash", 100.0),
        call_json("somebody-else", "call-x", "web_fetch", 101.0),
        call_json(keeper, "call-2", "masc_board_post", 102.0),
    ]
}

/// C-53, C-44: each held call of this Keeper is a gate row in the default view (news first,
/// a status mark, never the error mark); another Keeper's call is not drawn here.
#[test]
fn c53_c44_a_held_call_of_this_keeper_is_a_gate_row() {
    let (mut model, mut ui, keeper) = opened(0);
    read_calls(&mut model, &mut ui, 3, &two_calls(&keeper));
    let text = buffer_text(&draw(&model, &ui));
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("승인 대기 · "))
        .collect();
    assert_eq!(rows.len(), 2, "{text}");
    assert!(rows[0].contains("bash · Run bash?"), "{}", rows[0]);
    assert!(rows[1].contains("masc_board_post"), "{}", rows[1]);
    for row in &rows {
        assert!(row.contains('○') && !row.contains('✗'), "{row}");
    }
    assert!(!text.contains("web_fetch"), "another Keeper's call: {text}");
}

/// C-53 with the armed confirm: the first `/approve` previews the oldest held call on the
/// footer and answers nothing; the second answers it (the held call save); a held call is
/// answered before any operator approval of the same Keeper.
#[test]
fn c53_approve_is_armed_and_answers_the_oldest_held_call() {
    let (mut model, mut ui, keeper) = opened(0);
    read_calls(&mut model, &mut ui, 3, &two_calls(&keeper));
    assert_eq!(slash(&mut ui, &model, "/approve"), UiCommand::Repaint);
    let notice = ui.notice.text.clone().unwrap_or_default();
    assert!(
        notice.contains("bash") && notice.contains("/approve again"),
        "{notice}"
    );
    // `/deny` in between re-arms for the other answer; the second `/deny` answers.
    assert_eq!(slash(&mut ui, &model, "/deny"), UiCommand::Repaint);
    match slash(&mut ui, &model, "/deny")
        .as_save::<HeldCallDecision>()
        .cloned()
    {
        Some(intent) => {
            assert_eq!(intent.tool_call_id, "call-1", "the oldest first");
            assert_eq!(intent.keeper, keeper);
            assert_eq!(intent.decision, ToolCallVerdict::Deny);
        }
        other => panic!("the second /deny answers: {other:?}"),
    }
}

/// C-53: the answer in flight reads `판정 중 · 이 호출은 미뤄짐` (the seed's own example); its
/// receipt `승인됨 · 적용 예정`; the next `/approve` goes to the next held call; and a call that
/// leaves the list without an answer from here reads `대기 끝남`, never still waiting.
#[test]
fn c53_an_answer_in_flight_then_its_receipt_replace_the_news() {
    let (mut model, mut ui, keeper) = opened(0);
    read_calls(&mut model, &mut ui, 3, &two_calls(&keeper));
    let Some(intent) = ({
        slash(&mut ui, &model, "/approve");
        slash(&mut ui, &model, "/approve")
    })
    .as_save::<HeldCallDecision>()
    .cloned() else {
        panic!("no answer");
    };
    let id = SaveId::fresh();
    let workspace = sample::scope(1).workspace.0;
    model
        .decisions
        .held_answers
        .submit(id.clone(), intent.clone(), workspace.clone());
    let t = Ticket {
        slot: DecisionsSlot::HeldCallDecision(id.clone()),
        generation: 7,
        scope: sample::scope(1),
    };
    crate::rig::dispatch(&mut model, t.clone());
    crate::rig::chat_observed(&mut model, &mut ui, None);
    let text = buffer_text(&draw(&model, &ui));
    assert!(text.contains("판정 중 · 이 호출은 미뤄짐 · bash"), "{text}");
    // While it is in flight, `/approve` previews the next held call, not this one.
    slash(&mut ui, &model, "/approve");
    assert!(
        ui.notice
            .text
            .as_deref()
            .is_some_and(|n| n.contains("masc_board_post")),
        "{:?}",
        ui.notice.text
    );
    crate::rig::observe(
        &mut model,
        SlotEvent::Observed(
            t,
            DecisionsObservation::HeldCallDecision(Box::new(SaveEvent::<HeldCallDecision> {
                save_id: id,
                intent,
                workspace,
                step: SaveStep::Ended(SaveOutcome::Applied {
                    detail: HeldCallDecisionReply {
                        effect: HeldCallEffect::Released,
                        decision: ToolCallVerdict::Approve,
                    },
                    warning: None,
                }),
            })),
        ),
    )
    .unwrap();
    crate::rig::chat_observed(&mut model, &mut ui, None);
    let text = buffer_text(&draw(&model, &ui));
    assert!(text.contains("승인됨 · 적용 예정 · bash"), "{text}");
    // The re-read: call-1 is gone (answered here: its receipt stays), call-2 left unanswered.
    read_calls(&mut model, &mut ui, 4, &[]);
    let text = buffer_text(&draw(&model, &ui));
    assert!(text.contains("승인됨 · 적용 예정 · bash"), "{text}");
    assert!(
        text.contains("대기 끝남 · 더 이상 목록에 없음 · masc_board_post"),
        "{text}"
    );
    assert!(!text.contains("승인 대기"), "{text}");
}
