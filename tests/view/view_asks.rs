#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! Ask answers, follow-ups and the turn inspector in the view, without a terminal
//! (`TestBackend`): the answer receipt stored once and never overwritten by the re-read (K-1,
//! K-2), receipts kept across a workspace switch (K-3, K-5), drafts bound to Ask id and
//! question id (K-8), the summary preview (K-6, K-7), the follow-up's per-source states
//! (K-10, K-11, K-13), and the inspector pinned to a recorded `Turn_ref` (K-14, K-16, K-17).
//! Assertions are on typed state first, then on what the screen must not invent.

use crate::rig::ScreensOf;
use crate::rig::{dispatch, observe, retire};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use masc_tui::actors::asks::{
    AskRef, AsksCommand, AsksObservation, AsksSlot, FollowUpCut, FollowUpStep, TurnTarget,
};
use masc_tui::actors::contract::{SlotEvent, Ticket};
use masc_tui::actors::decisions::ask_answer::AnswerIntent;
use masc_tui::actors::decisions::ask_answer::AskAnswer;
use masc_tui::actors::decisions::{DecisionsObservation, DecisionsSlot};
use masc_tui::actors::saves::{SaveEvent, SaveId, SaveStep};
use masc_tui::protocol::admission::{AdmissionMode, ReadScope, WorkspaceId};
use masc_tui::protocol::asks::{
    AnswerResponse, AskAlreadyResolved, AskList, ResolvedState, SourceObservation,
    ToolResultObservation, WakeObservation,
};
use masc_tui::protocol::client::{Admitted, ClientError};
use masc_tui::protocol::decode::WireDecode;
use masc_tui::protocol::outcome::{AskAnswered, SaveClass, SaveOutcome};
use masc_tui::protocol::transcript::TurnTranscript;
use masc_tui::view::admission::RejectReason;
use masc_tui::view::approvals::asks::{FollowUpRead, SourceRead, Unconfirmed};
use masc_tui::view::keys::{UiCommand, handle_key};
use masc_tui::view::model::Model;
use masc_tui::view::sample::{self, buffer_text};
use masc_tui::view::saves::SavePhase;
use masc_tui::view::screens::approvals::ApprovalsUi;
use masc_tui::view::screens::approvals::asks::{PreviewBuffer, layout_preview};
use masc_tui::view::screens::{ProjectionCtx, Tab, Ui, render};
use masc_tui::view::theme::Theme;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use ratatui::text::Line;
use std::sync::Arc;

const KEEPER: &str = "rondo";

fn admitted<T>(value: T) -> Admitted<T> {
    Admitted {
        value: Arc::new(value),
        mode: AdmissionMode::Receipt,
        from_cache: false,
    }
}

fn connected() -> Model {
    let mut m = Model::default();
    m.on_identity(sample::confirmed(1, AdmissionMode::Receipt));
    m
}

fn ticket<S>(slot: S, generation: u64) -> Ticket<S> {
    Ticket {
        slot,
        generation,
        scope: sample::scope(1),
    }
}

/// Two open Asks of one Keeper whose questions share the id `q-1` (K-8), the second with a
/// free-text question.
fn two_asks() -> AskList {
    let body = serde_json::json!({
        "scope": "fleet", "keeper": null, "open_count": 2,
        "asks": [
            {"keeper": KEEPER, "ask_id": "ask-a", "asked_at": 1_787_557_669.0,
             "context": "rollout call", "resolution": {"state": "open"},
             "questions": [
                {"question_id": "q-1", "header": "Rollout", "prompt": "ship now?",
                 "mode": "single", "free_text": {"allowed": false},
                 "choices": [{"choice_id": "c-yes", "label": "ship it"},
                             {"choice_id": "c-no", "label": "hold"}]}]},
            {"keeper": KEEPER, "ask_id": "ask-b", "asked_at": 1_787_557_700.0,
             "context": "naming", "resolution": {"state": "open"},
             "questions": [
                {"question_id": "q-1", "header": "Name", "prompt": "which name?",
                 "mode": "single", "free_text": {"allowed": true, "hint": "or write one"},
                 "choices": [{"choice_id": "n-1", "label": "atlas"},
                             {"choice_id": "n-2", "label": "bravo"}]},
                {"question_id": "q-2", "header": "Note", "prompt": "anything else?",
                 "mode": "multi", "free_text": {"allowed": true, "hint": null},
                 "choices": []}]}
        ]
    });
    AskList::decode(body.to_string().as_bytes()).unwrap()
}

/// The model with the two Asks read.
fn with_asks() -> Model {
    let mut m = connected();
    dispatch(&mut m, ticket(DecisionsSlot::Asks, 1));
    observe(
        &mut m,
        SlotEvent::Observed(
            ticket(DecisionsSlot::Asks, 1),
            DecisionsObservation::Asks(Ok(admitted(two_asks()))),
        ),
    )
    .unwrap();
    m
}

fn ui_with_approvals() -> Ui {
    Ui {
        area: Rect::new(0, 0, 110, 40),
        tab: Tab::Work,
        ..Ui::default()
    }
    .with_layer(ApprovalsUi::new(Tab::Work))
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

pub(crate) fn press(ui: &mut Ui, m: &Model, code: KeyCode) -> UiCommand {
    handle_key(ui, m, key(code))
}

fn typed(ui: &mut Ui, m: &Model, text: &str) {
    for c in text.chars() {
        press(ui, m, KeyCode::Char(c));
    }
}

pub(crate) fn paint(model: &Model, ui: &Ui) -> String {
    let mut t = Terminal::new(TestBackend::new(ui.area.width, ui.area.height)).unwrap();
    let ctx = ProjectionCtx::now(Theme::plain());
    t.draw(|f| render(model, ui, &ctx, f.area(), f.buffer_mut()))
        .unwrap();
    buffer_text(t.backend().buffer())
}

fn reader(ui: &Ui) -> &masc_tui::view::screens::approvals::reader::AskReader {
    ui.layer::<ApprovalsUi>().unwrap().reader.as_ref().unwrap()
}

fn answer_of(ask_id: &str, response: AnswerResponse) -> AnswerIntent {
    AnswerIntent {
        keeper: KEEPER.into(),
        ask_id: ask_id.into(),
        answers: vec![masc_tui::protocol::asks::QuestionAnswer {
            question_id: "q-1".into(),
            response,
        }],
    }
}

/// Registers an answer save as the view does on submit, and its dispatch.
fn submitted(m: &mut Model, id: &SaveId, intent: AnswerIntent, generation: u64) {
    m.decisions
        .answers
        .submit(id.clone(), intent, sample::WORKSPACE.into());
    dispatch(m, ticket(DecisionsSlot::Answer(id.clone()), generation));
}

fn answer_step(
    id: &SaveId,
    intent: &AnswerIntent,
    step: SaveStep<masc_tui::protocol::outcome::AskAnswerOutcome>,
) -> DecisionsObservation {
    DecisionsObservation::Answer(Box::new(SaveEvent {
        save_id: id.clone(),
        intent: intent.clone(),
        workspace: sample::WORKSPACE.into(),
        step,
    }))
}

fn applied() -> masc_tui::protocol::outcome::AskAnswerOutcome {
    SaveOutcome::Applied {
        detail: AskAnswered {
            actor: "masc-tui".into(),
            open_remaining: Some(1),
        },
        warning: None,
    }
}

/// K-8: question ids repeat across Asks; a draft binds to the Ask id and the question id, so
/// choosing in one Ask never shows or sends in the other, and the intent is by ids in order.
#[test]
fn k8_a_draft_binds_to_the_ask_id_and_the_question_id() {
    let m = with_asks();
    let mut ui = ui_with_approvals();
    press(&mut ui, &m, KeyCode::Char('a'));
    assert_eq!(reader(&ui).ask.ask_id, "ask-a");
    press(&mut ui, &m, KeyCode::Char('2')); // ask-a q-1: "hold"
    press(&mut ui, &m, KeyCode::Char(']'));
    assert_eq!(reader(&ui).ask.ask_id, "ask-b");
    let ask_b = &two_asks().asks[1];
    let ask_a = &two_asks().asks[0];
    let intent_b = ui.asks().intent(sample::WORKSPACE, ask_b);
    assert_eq!(
        intent_b
            .answers
            .iter()
            .map(|a| &a.response)
            .collect::<Vec<_>>(),
        [&AnswerResponse::Skipped, &AnswerResponse::Skipped],
        "ask-b's q-1 has no draft of its own"
    );
    let intent_a = ui.asks().intent(sample::WORKSPACE, ask_a);
    assert_eq!(
        intent_a.answers[0].response,
        AnswerResponse::Chose {
            choice_ids: vec!["c-no".into()]
        }
    );
    assert_eq!(ui.asks().drafts().count(), 1);
}

/// K-8, K-14: free text is written only into the draft whose ids the input is bound to; `o`
/// and `O` are text while writing (no origin, no inspector, no read).
#[test]
fn k14_o_and_capital_o_are_text_while_writing_free_text() {
    let m = with_asks();
    let mut ui = ui_with_approvals();
    press(&mut ui, &m, KeyCode::Char(']')); // the summary previews ask-b
    press(&mut ui, &m, KeyCode::Char('a'));
    assert_eq!(reader(&ui).ask.ask_id, "ask-b");
    press(&mut ui, &m, KeyCode::Char('i'));
    assert!(reader(&ui).typing());
    let mut commands = Vec::new();
    for c in "Oslo or".chars() {
        commands.push(press(&mut ui, &m, KeyCode::Char(c)));
    }
    assert!(
        commands
            .iter()
            .all(|c| matches!(c, UiCommand::Repaint | UiCommand::None)),
        "typing sends nothing: {commands:?}"
    );
    assert!(reader(&ui).inspector.is_none());
    assert!(!reader(&ui).origin_open);
    press(&mut ui, &m, KeyCode::Enter); // ends writing
    assert!(!reader(&ui).typing());
    let intent = ui.asks().intent(sample::WORKSPACE, &two_asks().asks[1]);
    assert_eq!(
        intent.answers[0].response,
        AnswerResponse::Wrote {
            text: "Oslo or".into()
        }
    );
    // ask-a's q-1 (same question id) has no text.
    let a = ui.asks().intent(sample::WORKSPACE, &two_asks().asks[0]);
    assert_eq!(a.answers[0].response, AnswerResponse::Skipped);
}

/// Armed send: the first `Enter` arms and shows what is sent; another key disarms; the
/// second `Enter` submits the intent by ids. Nothing is sent from the summary preview (K-7).
#[test]
fn k7_the_answer_is_sent_only_by_enter_enter_in_the_reader() {
    let m = with_asks();
    let mut ui = ui_with_approvals();
    // The summary: digits and Enter never answer an Ask.
    assert!(
        press(&mut ui, &m, KeyCode::Char('1'))
            .as_save::<AskAnswer>()
            .is_none()
    );
    assert_eq!(ui.asks().drafts().count(), 0);
    press(&mut ui, &m, KeyCode::Char('a'));
    press(&mut ui, &m, KeyCode::Char('1'));
    assert_eq!(press(&mut ui, &m, KeyCode::Enter), UiCommand::Repaint);
    assert!(reader(&ui).armed);
    assert!(paint(&m, &ui).contains("press Enter again to send: Q1 chose ship it"));
    press(&mut ui, &m, KeyCode::Char('x')); // any other key disarms
    assert!(!reader(&ui).armed);
    assert!(
        press(&mut ui, &m, KeyCode::Enter)
            .as_save::<AskAnswer>()
            .is_none()
    );
    match press(&mut ui, &m, KeyCode::Enter)
        .as_save::<AskAnswer>()
        .cloned()
    {
        Some(intent) => assert_eq!(
            intent,
            answer_of(
                "ask-a",
                AnswerResponse::Chose {
                    choice_ids: vec!["c-yes".into()]
                }
            )
        ),
        other => panic!("not an answer: {other:?}"),
    }
}

/// K-1, K-2: the receipt lands once in its own slot; the re-read it demands is observed apart,
/// and its failure never overwrites the stored receipt (on screen: "answer saved" stays beside
/// the failed Asks read).
#[test]
fn k1_k2_a_failed_reread_never_overwrites_the_answer_receipt() {
    let mut m = with_asks();
    let id = SaveId("save-ask-1".into());
    let intent = answer_of(
        "ask-a",
        AnswerResponse::Chose {
            choice_ids: vec!["c-yes".into()],
        },
    );
    submitted(&mut m, &id, intent.clone(), 1);
    let slot = DecisionsSlot::Answer(id.clone());
    for step in [SaveStep::Written, SaveStep::Sending] {
        observe(
            &mut m,
            SlotEvent::Observed(ticket(slot.clone(), 1), answer_step(&id, &intent, step)),
        )
        .unwrap();
    }
    let drained = m.deliver(
        SlotEvent::<DecisionsSlot, DecisionsObservation>::Observed(
            ticket(slot.clone(), 1),
            answer_step(&id, &intent, SaveStep::Ended(applied())),
        ),
        std::time::Instant::now(),
    );
    assert!(drained.rejected.is_empty());
    assert!(
        drained
            .demands
            .contains(&masc_tui::actors::decisions::DECISIONS),
        "the receipt demands a re-read of the Asks"
    );
    // K-1: a second receipt for the same save is rejected; the first stays.
    let again = observe(
        &mut m,
        SlotEvent::Observed(
            ticket(slot, 1),
            answer_step(
                &id,
                &intent,
                SaveStep::Ended(SaveOutcome::OutcomeUnknown {
                    reason: "late".into(),
                }),
            ),
        ),
    );
    assert_eq!(again, Err(RejectReason::Withdrawn));
    // K-2: the re-read fails.
    dispatch(&mut m, ticket(DecisionsSlot::Asks, 2));
    observe(
        &mut m,
        SlotEvent::Observed(
            ticket(DecisionsSlot::Asks, 2),
            DecisionsObservation::Asks(Err(ClientError::Status {
                status: 503,
                body: String::new(),
            })),
        ),
    )
    .unwrap();
    let entry = m.decisions.answers.get(&id).unwrap();
    assert_eq!(entry.phase.class(), Some(SaveClass::Applied));
    // Follow-up of the applied answer is due, in the submit workspace (§10.3, K-5).
    assert_eq!(
        m.decisions.take_follow_ups(),
        [(
            AskRef {
                keeper: KEEPER.into(),
                ask_id: "ask-a".into()
            },
            sample::WORKSPACE.to_string()
        )]
    );
    let mut ui = ui_with_approvals();
    press(&mut ui, &m, KeyCode::Char('a'));
    let screen = paint(&m, &ui);
    assert!(
        screen.contains("answer saved · recorded by masc-tui"),
        "{screen}"
    );
    // Sending again is refused while the answer stands.
    press(&mut ui, &m, KeyCode::Enter);
    assert!(
        press(&mut ui, &m, KeyCode::Enter)
            .as_save::<AskAnswer>()
            .is_none()
    );
}

/// A 409 whose body lacks the typed reason (§10.2 `ask_already_resolved`) reads as the
/// server's own words, never "another answer stands".
#[test]
fn i32_a_409_with_an_unknown_body_is_quoted_on_the_answer_line() {
    let mut m = with_asks();
    let id = SaveId("save-409".into());
    let intent = answer_of("ask-a", AnswerResponse::Skipped);
    let outcome = masc_tui::protocol::outcome::classify_ask_answer(
        409,
        br#"{"error":"ask store is read-only \u001b[31mnow"}"#,
        &masc_tui::protocol::asks::AskAnswerRequest {
            keeper: KEEPER.into(),
            ask_id: "ask-a".into(),
        },
    );
    submitted(&mut m, &id, intent.clone(), 1);
    observe(
        &mut m,
        SlotEvent::Observed(
            ticket(DecisionsSlot::Answer(id.clone()), 1),
            answer_step(&id, &intent, SaveStep::Ended(outcome)),
        ),
    )
    .unwrap();
    let mut ui = ui_with_approvals();
    press(&mut ui, &m, KeyCode::Char('a'));
    let screen = paint(&m, &ui);
    let line = screen
        .lines()
        .find(|l| l.contains("answer not applied"))
        .unwrap_or_else(|| panic!("{screen}"));
    assert!(
        line.contains("refused (HTTP 409): ask store is read-only"),
        "{line}"
    );
    assert!(!screen.contains("another answer stands"), "{screen}");
    assert!(!screen.contains('\u{1b}'), "sanitised");
}

/// §11 outcomes are distinct on screen: applied, already answered (conflict), not applied,
/// not sent, outcome unknown — and an unknown outcome blocks another answer until a re-read
/// made after it still lists the Ask open.
#[test]
fn s11_each_answer_outcome_reads_differently_and_unknown_blocks_a_resend() {
    let outcomes: Vec<masc_tui::protocol::outcome::AskAnswerOutcome> = vec![
        applied(),
        SaveOutcome::Conflict {
            current: AskAlreadyResolved {
                state: Some(ResolvedState::Answered),
            },
        },
        SaveOutcome::NotApplied {
            reason: "answers do not fit".into(),
        },
        SaveOutcome::NotSent {
            reason: "workspace changed".into(),
        },
        SaveOutcome::OutcomeUnknown {
            reason: "connection closed".into(),
        },
    ];
    let mut screens = Vec::new();
    let mut last = None;
    for (i, outcome) in outcomes.into_iter().enumerate() {
        let mut m = with_asks();
        let id = SaveId(format!("save-{i}"));
        let intent = answer_of("ask-a", AnswerResponse::Skipped);
        submitted(&mut m, &id, intent.clone(), 1);
        observe(
            &mut m,
            SlotEvent::Observed(
                ticket(DecisionsSlot::Answer(id.clone()), 1),
                answer_step(&id, &intent, SaveStep::Ended(outcome)),
            ),
        )
        .unwrap();
        let mut ui = ui_with_approvals();
        press(&mut ui, &m, KeyCode::Char('a'));
        let screen = paint(&m, &ui);
        let line = screen
            .lines()
            .find(|l| l.contains("answer"))
            .unwrap_or_default()
            .trim()
            .to_string();
        screens.push(line);
        last = Some((m, ui));
    }
    let mut distinct = screens.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), screens.len(), "{screens:#?}");
    // The unknown outcome: Enter Enter does not resend before a re-read lists the Ask open.
    let (mut m, mut ui) = last.unwrap();
    press(&mut ui, &m, KeyCode::Enter);
    assert!(
        press(&mut ui, &m, KeyCode::Enter)
            .as_save::<AskAnswer>()
            .is_none()
    );
    dispatch(&mut m, ticket(DecisionsSlot::Asks, 2));
    observe(
        &mut m,
        SlotEvent::Observed(
            ticket(DecisionsSlot::Asks, 2),
            DecisionsObservation::Asks(Ok(admitted(two_asks()))),
        ),
    )
    .unwrap();
    press(&mut ui, &m, KeyCode::Enter);
    assert!(
        press(&mut ui, &m, KeyCode::Enter)
            .as_save::<AskAnswer>()
            .is_some()
    );
}

/// K-3, K-5, I-5: a workspace switch never erases an answer's receipt; a late receipt for the
/// old workspace lands in its own save (from its ticket, for its workspace), and an event
/// naming another workspace is rejected.
#[test]
fn k3_k5_a_workspace_switch_keeps_the_answer_and_its_late_receipt() {
    let mut m = with_asks();
    let id = SaveId("save-ws".into());
    let intent = answer_of("ask-a", AnswerResponse::Skipped);
    submitted(&mut m, &id, intent.clone(), 1);
    m.on_identity(masc_tui::actors::contract::IdentityState::Confirmed {
        scope: ReadScope {
            workspace: WorkspaceId("/home/op/other/.masc".into()),
            epoch: 2,
        },
        base_path: "/home/op/other".into(),
        mode: AdmissionMode::Receipt,
    });
    let slot = DecisionsSlot::Answer(id.clone());
    let mut foreign = answer_step(&id, &intent, SaveStep::Ended(applied()));
    if let DecisionsObservation::Answer(ev) = &mut foreign {
        ev.workspace = "/home/op/other/.masc".into();
    }
    assert_eq!(
        observe(
            &mut m,
            SlotEvent::Observed(ticket(slot.clone(), 1), foreign)
        ),
        Err(RejectReason::OtherTarget)
    );
    observe(
        &mut m,
        SlotEvent::Observed(
            ticket(slot, 1),
            answer_step(&id, &intent, SaveStep::Ended(applied())),
        ),
    )
    .unwrap();
    let entry = m.decisions.answers.get(&id).unwrap();
    assert!(matches!(
        entry.phase,
        SavePhase::Ended(SaveOutcome::Applied { .. })
    ));
    assert_eq!(entry.workspace, sample::WORKSPACE);
}

/// K-6: the summary preview shows complete rows of the selected question; the `a` hint and
/// the hidden-question count each take a real row of the budget; with one row the question
/// wins.
#[test]
fn k6_the_preview_spends_the_real_row_budget_and_the_question_wins_one_row() {
    let rows: Vec<Line<'static>> = (0..6).map(|i| Line::raw(format!("row {i}"))).collect();
    let preview = PreviewBuffer {
        rows,
        hidden_questions: 2,
    };
    let theme = Theme::plain();
    let text = |lines: Vec<Line<'static>>| -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
    };
    let one = text(layout_preview(&preview, 1, theme));
    assert_eq!(one, ["row 0"]);
    let three = text(layout_preview(&preview, 3, theme));
    assert_eq!(three.len(), 3);
    assert_eq!(three[0], "row 0");
    assert!(three[1].contains("a: read the whole question"));
    assert!(three[2].contains("+2 more questions"));
    let fits = text(layout_preview(&preview, 8, theme));
    assert_eq!(fits.len(), 8);
    assert_eq!(fits[5], "row 5");
    assert!(fits[6].contains("a: answer in the reader"));
    let tight = text(layout_preview(&preview, 7, theme));
    assert_eq!(tight.len(), 7, "never more rows than the budget");
    assert!(tight.iter().filter(|l| l.starts_with("row")).count() >= 1);
}

fn follow_ticket(generation: u64) -> Ticket<AsksSlot> {
    ticket(
        AsksSlot::FollowUp(AskRef {
            keeper: KEEPER.into(),
            ask_id: "ask-a".into(),
        }),
        generation,
    )
}

fn step(m: &mut Model, generation: u64, s: FollowUpStep) -> Result<(), RejectReason> {
    observe(
        m,
        SlotEvent::Observed(follow_ticket(generation), AsksObservation::FollowUp(s)),
    )
}

fn tool_seen() -> SourceObservation {
    SourceObservation::ToolResult(
        serde_json::from_value::<ToolResultObservation>(serde_json::json!({
            "state": "observed",
            "totals": {"success": 1, "held": 0, "failure": 1, "undetermined": 0, "malformed": 0},
            "latest": {"bucket": "failure", "tool": "deploy", "at": 1_787_557_800.0}
        }))
        .unwrap(),
    )
}

fn wake_seen(turn_ref: &str) -> SourceObservation {
    SourceObservation::Wake(
        serde_json::from_value::<WakeObservation>(serde_json::json!({
            "state": "observed", "complete": true,
            "turns": [{"turn_ref": turn_ref, "wake_reason": "ask_answered",
                       "started_at": 1_787_557_790.0}]
        }))
        .unwrap(),
    )
}

/// K-10, K-11, K-13: the Tool result arrives before the turn and shows at once; a cut after it
/// keeps what arrived received and marks only the missing sources unconfirmed; EOF never
/// completes the read.
#[test]
fn k10_k11_k13_a_cut_keeps_received_sources_and_never_completes() {
    let mut m = with_asks();
    let ask = AskRef {
        keeper: KEEPER.into(),
        ask_id: "ask-a".into(),
    };
    dispatch(&mut m, follow_ticket(1));
    step(
        &mut m,
        1,
        FollowUpStep::Started {
            task_id: Some("task-1013".into()),
        },
    )
    .unwrap();
    step(&mut m, 1, FollowUpStep::Source(tool_seen())).unwrap();
    {
        let f = m.asks.follow_up(sample::WORKSPACE, &ask).unwrap();
        assert!(f.tool_result.latest_confirmed());
        assert!(matches!(f.wake, SourceRead::Reading { last: None }));
        assert_eq!(f.read, FollowUpRead::Reading);
    }
    step(&mut m, 1, FollowUpStep::Cut(FollowUpCut::Eof)).unwrap();
    let f = m.asks.follow_up(sample::WORKSPACE, &ask).unwrap();
    assert!(f.tool_result.latest_confirmed(), "received stays confirmed");
    assert!(matches!(
        &f.wake,
        SourceRead::Unconfirmed {
            last: None,
            why: Unconfirmed::Cut(FollowUpCut::Eof)
        }
    ));
    assert!(matches!(&f.task, SourceRead::Unconfirmed { .. }));
    assert_ne!(f.read, FollowUpRead::Completed, "EOF never completes");
    assert_eq!(
        f.read,
        FollowUpRead::Ended(Unconfirmed::Cut(FollowUpCut::Eof))
    );
    // A late step of the ended read is not applied.
    assert!(step(&mut m, 1, FollowUpStep::Source(wake_seen("t#1"))).is_err());
}

/// K-10, K-11, K-13: a new read keeps the previous observations shown but not the latest
/// confirmed; a newer read supersedes the older one (its late steps are rejected); a cancel
/// (retire) leaves the missing sources unconfirmed, never "empty".
#[test]
fn k11_k13_a_new_read_keeps_last_observations_and_supersedes_the_old_one() {
    let mut m = with_asks();
    let ask = AskRef {
        keeper: KEEPER.into(),
        ask_id: "ask-a".into(),
    };
    dispatch(&mut m, follow_ticket(1));
    step(&mut m, 1, FollowUpStep::Started { task_id: None }).unwrap();
    step(&mut m, 1, FollowUpStep::Source(wake_seen("t#1"))).unwrap();
    step(&mut m, 1, FollowUpStep::Source(tool_seen())).unwrap();
    step(&mut m, 1, FollowUpStep::Completed).unwrap();
    assert_eq!(
        m.asks.follow_up(sample::WORKSPACE, &ask).unwrap().read,
        FollowUpRead::Completed
    );
    dispatch(&mut m, follow_ticket(2));
    {
        let f = m.asks.follow_up(sample::WORKSPACE, &ask).unwrap();
        assert!(matches!(&f.wake, SourceRead::Reading { last: Some(_) }));
        assert!(!f.wake.latest_confirmed());
        assert_eq!(f.reads, 2);
    }
    dispatch(&mut m, follow_ticket(3));
    assert_eq!(
        step(&mut m, 2, FollowUpStep::Source(wake_seen("t#2"))),
        Err(RejectReason::Superseded)
    );
    retire(&mut m, follow_ticket(3));
    let f = m.asks.follow_up(sample::WORKSPACE, &ask).unwrap();
    assert!(matches!(
        &f.wake,
        SourceRead::Unconfirmed {
            last: Some(_),
            why: Unconfirmed::Cancelled
        }
    ));
    assert!(matches!(
        &f.task,
        SourceRead::Unconfirmed {
            last: None,
            why: Unconfirmed::Cancelled
        }
    ));
    assert_eq!(f.turn_refs(), ["t#1"], "the kept wake turn, not invented");
}

/// The reader of an applied answer with a follow-up that recorded turn `t#1`.
pub(crate) fn answered_with_turn() -> (Model, Ui, TurnTarget) {
    let mut m = with_asks();
    let id = SaveId("save-turn".into());
    let intent = answer_of("ask-b", AnswerResponse::Skipped);
    submitted(&mut m, &id, intent.clone(), 1);
    observe(
        &mut m,
        SlotEvent::Observed(
            ticket(DecisionsSlot::Answer(id.clone()), 1),
            answer_step(&id, &intent, SaveStep::Ended(applied())),
        ),
    )
    .unwrap();
    let follow = ticket(
        AsksSlot::FollowUp(AskRef {
            keeper: KEEPER.into(),
            ask_id: "ask-b".into(),
        }),
        1,
    );
    dispatch(&mut m, follow.clone());
    for s in [
        FollowUpStep::Started { task_id: None },
        FollowUpStep::Source(wake_seen("trace-rondo#7")),
    ] {
        observe(
            &mut m,
            SlotEvent::Observed(follow.clone(), AsksObservation::FollowUp(s)),
        )
        .unwrap();
    }
    let mut ui = ui_with_approvals();
    press(&mut ui, &m, KeyCode::Char(']'));
    press(&mut ui, &m, KeyCode::Char('a'));
    assert_eq!(reader(&ui).ask.ask_id, "ask-b");
    let target = TurnTarget {
        keeper: KEEPER.into(),
        turn_ref: "trace-rondo#7".into(),
    };
    (m, ui, target)
}

/// K-14, K-16: `o` expands the recorded origin locally (no read); `O` opens an inspector
/// pinned to the recorded `Turn_ref` and asks for its transcript once; `Esc` restores the
/// reader's question, scroll and draft.
#[test]
fn k14_k16_the_inspector_is_pinned_and_esc_restores_the_reader() {
    let (m, mut ui, target) = answered_with_turn();
    press(&mut ui, &m, KeyCode::Right); // question 2
    press(&mut ui, &m, KeyCode::Char('i'));
    typed(&mut ui, &m, "keep");
    press(&mut ui, &m, KeyCode::Esc); // ends writing, keeps the draft
    assert_eq!(press(&mut ui, &m, KeyCode::Char('o')), UiCommand::Repaint);
    assert!(paint(&m, &ui).contains("Turn_ref: trace-rondo#7"));
    press(&mut ui, &m, KeyCode::PageDown);
    let before = reader(&ui).clone();
    match press(&mut ui, &m, KeyCode::Char('O'))
        .as_send::<AsksCommand>()
        .cloned()
    {
        Some(AsksCommand::Transcript(t)) => assert_eq!(t, target),
        other => panic!("no transcript read: {other:?}"),
    }
    let ins = reader(&ui).inspector.as_ref().unwrap();
    assert_eq!(ins.target, target, "pinned to the recorded turn");
    assert!(paint(&m, &ui).contains("trace-rondo#7 (pinned)"));
    assert_eq!(press(&mut ui, &m, KeyCode::Esc), UiCommand::Repaint);
    let after = reader(&ui).clone();
    assert_eq!(after.question, before.question);
    assert_eq!(after.scroll, before.scroll);
    assert_eq!(after.origin_open, before.origin_open);
    assert!(after.inspector.is_none());
    let intent = ui.asks().intent(sample::WORKSPACE, &two_asks().asks[1]);
    assert_eq!(
        intent.answers[1].response,
        AnswerResponse::Wrote {
            text: "keep".into()
        },
        "closing the inspector keeps the draft"
    );
}

/// K-14: without a recorded `Turn_ref` `O` opens nothing and never falls back to the Keeper's
/// current turn.
#[test]
fn k14_no_recorded_turn_means_no_inspector() {
    let m = with_asks();
    let mut ui = ui_with_approvals();
    press(&mut ui, &m, KeyCode::Char('a'));
    assert_eq!(press(&mut ui, &m, KeyCode::Char('O')), UiCommand::Repaint);
    assert!(reader(&ui).inspector.is_none());
    assert!(
        ui.notice
            .text
            .as_deref()
            .unwrap_or_default()
            .contains("no recorded Turn_ref")
    );
}

/// Decodes `body` as the transcript of `target`, delivers it on ticket `t` and paints.
fn show_transcript(
    m: &mut Model,
    ui: &Ui,
    t: Ticket<AsksSlot>,
    target: &TurnTarget,
    body: &serde_json::Value,
) -> String {
    let transcript = TurnTranscript::decode_for(
        body.to_string().as_bytes(),
        &target.keeper,
        &target.turn_ref,
    )
    .unwrap();
    observe(
        m,
        SlotEvent::Observed(t, AsksObservation::Transcript(Ok(admitted(transcript)))),
    )
    .unwrap();
    paint(m, ui)
}

/// K-15, K-16, K-17: the response tab shows the validated transcript; tab entry and scrolling
/// issue no read; the Markdown is rendered once per (turn, width, palette, observation) and
/// again only when the width changes; reading and unavailable read differently.
#[test]
fn k15_k17_tab_entry_and_scroll_read_nothing_and_markdown_renders_once_per_width() {
    let (mut m, mut ui, target) = answered_with_turn();
    let _ = press(&mut ui, &m, KeyCode::Char('O'));
    let t = ticket(AsksSlot::Transcript(target.clone()), 1);
    dispatch(&mut m, t.clone());
    let reading = paint(&m, &ui);
    assert!(reading.contains("조회 중"), "{reading}");
    let body = serde_json::json!({
        "schema": "masc.turn_transcript.v2", "keeper": KEEPER,
        "turn_ref": "trace-rondo#7", "found": true,
        "rows": [
            {"turn_ref": "trace-rondo#7", "kind": "utterance", "role": "assistant",
             "content": "**Shipped** the rollout.\n\n- step one\n- step two", "ts": 1_787_557_800.0},
            {"turn_ref": "trace-rondo#7", "kind": "request_failure", "role": "assistant",
             "content": "provider timeout", "ts": 1_787_557_810.0}
        ]
    });
    let shown = show_transcript(&mut m, &ui, t, &target, &body);
    assert!(shown.contains("Shipped the rollout"), "{shown}");
    assert!(
        shown.contains("✗ request failure"),
        "a failure row is its own kind"
    );
    let renders = || reader_renders(&ui);
    assert_eq!(renders(), 1);
    for code in [
        KeyCode::Char('j'),
        KeyCode::PageDown,
        KeyCode::Char('k'),
        KeyCode::Char('3'),
        KeyCode::Char('4'),
        KeyCode::Left,
        KeyCode::Right,
    ] {
        let cmd = press(&mut ui, &m, code);
        assert!(
            !matches!(cmd, UiCommand::Send(_) | UiCommand::Refresh(_)),
            "{code:?} issued a read: {cmd:?}"
        );
        paint(&m, &ui);
    }
    assert_eq!(
        reader_renders(&ui),
        1,
        "scrolling and tab entry render nothing anew"
    );
    ui.area = Rect::new(0, 0, 80, 40);
    paint(&m, &ui);
    assert_eq!(reader_renders(&ui), 2, "a new width renders again");
}

/// §15.10: the response tab on a real MASC shows its version-1 body — the request's line, the
/// retained response, a failed request as its own kind — and says which body it read; never a
/// decode failure or "not served".
#[test]
fn s15_10_the_response_tab_shows_masc_version_1() {
    let (mut m, mut ui, target) = answered_with_turn();
    let _ = press(&mut ui, &m, KeyCode::Char('O'));
    let _ = press(&mut ui, &m, KeyCode::Char('4'));
    let t = ticket(AsksSlot::Transcript(target.clone()), 1);
    dispatch(&mut m, t.clone());
    let body = serde_json::json!({
        "keeper": KEEPER, "turn_ref": "trace-rondo#7", "found": true,
        "source": "keeper_chat_store",
        "user": [{"role": "user", "content": "roll it out", "ts": 1_787_557_790.0}],
        "assistant": [
            {"role": "assistant", "content": "**Shipped** the rollout.", "ts": 1_787_557_800.0},
            {"role": "assistant", "content": "Keeper request failed: provider timeout",
             "ts": 1_787_557_810.0, "kind": "transport_failure"}
        ]
    });
    let shown = show_transcript(&mut m, &ui, t, &target, &body);
    assert!(shown.contains("MASC's version 1"), "{shown}");
    assert!(
        shown.contains("roll it out") && shown.contains("Shipped the rollout"),
        "{shown}"
    );
    assert!(shown.contains("✗ request failure"), "{shown}");
    assert!(!shown.contains("조회 불가"), "{shown}");
}

fn reader_renders(ui: &Ui) -> u32 {
    reader(ui).inspector.as_ref().unwrap().renders()
}

/// K-8, issue 9 (free text through the editor handoff): Ctrl-E while writing hands the bound
/// draft's text to `$EDITOR` (purpose "ask answer"); the edited text comes back into the
/// draft of the same Ask id and question id — one trailing line break dropped — even after
/// `]` moved the reader to another Ask whose question has the same id; an aborted edit keeps
/// the draft and says so.
#[test]
fn k8_free_text_in_the_editor_returns_to_the_draft_it_was_asked_for() {
    use masc_tui::view::editor::{EditOutcome, EditPurpose, EditResult};
    use masc_tui::view::screens::{EditOwner, edited};
    let m = with_asks();
    let mut ui = ui_with_approvals();
    press(&mut ui, &m, KeyCode::Char(']'));
    press(&mut ui, &m, KeyCode::Char('a'));
    assert_eq!(reader(&ui).ask.ask_id, "ask-b");
    press(&mut ui, &m, KeyCode::Char('i'));
    typed(&mut ui, &m, "Oslo");
    let ctrl_e = KeyEvent::new(KeyCode::Char('e'), KeyModifiers::CONTROL);
    match handle_key(&mut ui, &m, ctrl_e) {
        UiCommand::Edit(req) => {
            assert_eq!(req.purpose, EditPurpose::AskAnswer);
            assert_eq!(req.text, "Oslo");
        }
        other => panic!("not an edit: {other:?}"),
    }
    // The reader moves on before the editor returns.
    press(&mut ui, &m, KeyCode::Enter);
    press(&mut ui, &m, KeyCode::Char(']'));
    assert_eq!(reader(&ui).ask.ask_id, "ask-a");
    let result = |outcome| EditResult {
        purpose: EditPurpose::AskAnswer,
        original: "Oslo".into(),
        outcome,
    };
    // The approvals view is in front: the edit is its.
    let approvals = masc_tui::view::screens::edit_owner(&ui);
    assert!(matches!(&approvals, EditOwner::Layer(l) if l.kind == "approvals"));
    edited(
        approvals.clone(),
        &mut ui,
        &m,
        result(EditOutcome::Edited("Oslo, then Bergen\nby train\n".into())),
    );
    let ask_b = &two_asks().asks[1];
    assert_eq!(
        ui.asks().intent(sample::WORKSPACE, ask_b).answers[0].response,
        AnswerResponse::Wrote {
            text: "Oslo, then Bergen\nby train".into()
        }
    );
    let ask_a = &two_asks().asks[0];
    assert_eq!(
        ui.asks().intent(sample::WORKSPACE, ask_a).answers[0].response,
        AnswerResponse::Skipped,
        "the other Ask's q-1 is untouched"
    );
    // An aborted edit leaves the draft as it was and says so.
    press(&mut ui, &m, KeyCode::Char('['));
    press(&mut ui, &m, KeyCode::Char('i'));
    assert!(matches!(
        handle_key(&mut ui, &m, ctrl_e),
        UiCommand::Edit(_)
    ));
    edited(
        approvals,
        &mut ui,
        &m,
        result(EditOutcome::Aborted {
            status: Some(1),
            text: None,
        }),
    );
    assert_eq!(
        ui.asks().intent(sample::WORKSPACE, ask_b).answers[0].response,
        AnswerResponse::Wrote {
            text: "Oslo, then Bergen\nby train".into()
        }
    );
    assert!(
        ui.notice
            .text
            .as_deref()
            .is_some_and(|n| n.starts_with("ask answer"))
    );
}

/// G-5, K-1: `a` before the Asks list is read says the Asks are not read yet — never "no open
/// Ask" (unread is not normal-empty); once a list is read, `a` opens the reader on its first
/// open Ask.
#[test]
fn g5_a_before_the_asks_are_read_says_not_read_never_none_open() {
    let unread = connected();
    let mut ui = ui_with_approvals();
    press(&mut ui, &unread, KeyCode::Char('a'));
    let notice = ui.notice.text.clone().unwrap_or_default();
    assert!(notice.contains("not read yet"), "{notice}");
    assert!(!notice.contains("no open Ask"), "{notice}");
    assert!(ui.layer::<ApprovalsUi>().unwrap().reader.is_none());

    let read = with_asks();
    press(&mut ui, &read, KeyCode::Char('a'));
    assert!(ui.layer::<ApprovalsUi>().unwrap().reader.is_some());
}
