#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! Esc during a turn and input typed while its interrupt is in flight (chat-screen.md
//! C-36, C-63, C-44; protocol.md §14.13 "input typed meanwhile stays local and is sent after
//! the answer, with the fresh token", §14.15 the acceptance's interactive block).

use crate::chat_screen::{chat_ticket, draw, key, opened, page, queued_steps, type_text};
use crossterm::event::KeyCode;
use masc_tui::actors::chat::{
    ChatObservation, ChatSlot, InterruptAim, InterruptIntent, SendStep, SteerIntent,
    TurnControlEvent, TurnInterrupt,
};
use masc_tui::actors::contract::{SlotEvent, Ticket};
use masc_tui::actors::saves::{SaveCommand, SaveEvent, SaveId, SaveKind, SaveStep};
use masc_tui::protocol::chat::{
    ChatStreamEvent, InteractiveAdmission, InteractiveOutcome, OperationState,
};
use masc_tui::protocol::outcome::SaveOutcome;
use masc_tui::protocol::turn_control::InterruptSignalled;
use masc_tui::view::chat::control;
use masc_tui::view::keys::{UiCommand, handle_key};
use masc_tui::view::model::Model;
use masc_tui::view::sample::{self, buffer_text};
use masc_tui::view::screens::Ui;
use masc_tui::view::screens::chat::{ChatEvent, SendPhase};
use masc_tui::view::transcript::{EntryKind, PendingState};
use std::sync::{Arc, Mutex};

const A: &str = "tui-0190f5a0-0000-7000-8000-0000000000e1";

pub(crate) fn step(model: &mut Model, keeper: &str, id: &str, step: SendStep) {
    crate::chat_screen::send_step(model, keeper, id, step);
}

/// The chat of keeper 0 with send `A` running.
fn running() -> (Model, Ui, String) {
    let (mut model, ui, keeper) = opened(0);
    model
        .chat
        .pane
        .as_mut()
        .unwrap()
        .register_send(A, "write the long report");
    for s in queued_steps()
        .into_iter()
        .chain([SendStep::Event(ChatStreamEvent::RunStarted)])
    {
        step(&mut model, &keeper, A, s);
    }
    (model, ui, keeper)
}

/// An interrupt of `keeper`'s send `A`, submitted and in flight (no answer yet).
fn interrupt_in_flight(model: &mut Model, keeper: &str) -> (SaveId, Ticket<ChatSlot>) {
    let scope = sample::scope(1);
    let save_id = SaveId::fresh();
    let intent = InterruptIntent {
        keeper: keeper.into(),
        aim: InterruptAim::Request {
            request_id: A.into(),
        },
    };
    model.chat.control.interrupts.submit(
        save_id.clone(),
        intent.clone(),
        scope.workspace.0.clone(),
    );
    let ticket = Ticket {
        slot: TurnInterrupt::slot(&save_id, &intent),
        generation: 2,
        scope,
    };
    crate::rig::dispatch(model, ticket.clone());
    let chat = &mut model.chat;
    control::sync(&chat.control, chat.pane.as_mut().unwrap());
    (save_id, ticket)
}

fn signalled(save_id: &SaveId, keeper: &str, token: &str) -> ChatObservation {
    ChatObservation::Control(Box::new(TurnControlEvent::Interrupt(SaveEvent {
        save_id: save_id.clone(),
        intent: InterruptIntent {
            keeper: keeper.into(),
            aim: InterruptAim::Request {
                request_id: A.into(),
            },
        },
        workspace: sample::scope(1).workspace.0,
        step: SaveStep::Ended(SaveOutcome::Applied {
            detail: InterruptSignalled {
                turn_id: Some(3),
                paused: true,
                chat_control_token: Some(token.into()),
            },
            warning: None,
        }),
    })))
}

/// C-36, C-63: while this chat's turn runs the footer says `Esc:interrupt` and Esc asks that
/// exact turn to stop (the `/interrupt` save, never a back); once the stop is asked Esc goes
/// back again (navigation is not cancellation), and with no turn running Esc goes back.
#[test]
fn c36_c63_esc_during_this_chats_turn_interrupts_it_and_the_footer_says_so() {
    let (mut model, mut ui, keeper) = opened(0);
    assert!(buffer_text(&draw(&model, &ui)).contains("Esc:back"));
    assert!(matches!(
        handle_key(&mut ui, &model, key(KeyCode::Esc)).as_local::<ChatEvent>(),
        Some(ChatEvent::Close { .. })
    ));
    let (mut model2, mut ui2, _) = running();
    let text = buffer_text(&draw(&model2, &ui2));
    assert!(text.contains("Esc:interrupt"), "{text}");
    let cmd = handle_key(&mut ui2, &model2, key(KeyCode::Esc));
    assert_eq!(
        cmd,
        UiCommand::local(ChatEvent::Interrupt {
            keeper: keeper.clone(),
            name: None,
        })
    );
    interrupt_in_flight(&mut model2, &keeper);
    let text = buffer_text(&draw(&model2, &ui2));
    assert!(text.contains("Esc:back"), "{text}");
    assert!(text.contains("interrupt requested"), "{text}");
    assert!(matches!(
        handle_key(&mut ui2, &model2, key(KeyCode::Esc)).as_local::<ChatEvent>(),
        Some(ChatEvent::Close { .. })
    ));
    // The first chat had no turn: nothing was asked of it.
    assert!(model.chat.control.interrupts.entries().next().is_none());
    let _ = &mut model;
}

/// A save hub stand-in that records what is submitted to it.
struct Recorder;

impl ractor::Actor for Recorder {
    type Msg = SaveCommand;
    type State = Arc<Mutex<Vec<String>>>;
    type Arguments = Arc<Mutex<Vec<String>>>;

    async fn pre_start(
        &self,
        _me: ractor::ActorRef<SaveCommand>,
        seen: Self::Arguments,
    ) -> Result<Self::State, ractor::ActorProcessingErr> {
        Ok(seen)
    }

    async fn handle(
        &self,
        _me: ractor::ActorRef<SaveCommand>,
        msg: SaveCommand,
        seen: &mut Self::State,
    ) -> Result<(), ractor::ActorProcessingErr> {
        seen.lock().unwrap().push(format!("{msg:?}"));
        Ok(())
    }
}

async fn settle(seen: &Arc<Mutex<Vec<String>>>, n: usize) -> Vec<String> {
    for _ in 0..200 {
        if seen.lock().unwrap().len() >= n {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    seen.lock().unwrap().clone()
}

/// §14.13, C-36, C-33: input typed while the interrupt is in flight stays local — `전송 대기`
/// in the transcript, nothing submitted — and is sent once the interrupt's answer lands, with
/// the same request id; the answer's fresh chat control token is the one held then (§14.15).
#[tokio::test]
async fn c36_s14_13_input_typed_while_the_interrupt_is_in_flight_is_held_until_its_answer() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let (hub, handle) = ractor::Actor::spawn(None, Recorder, seen.clone())
        .await
        .unwrap();
    let saves = hub.get_derived::<SaveCommand>();
    let hubs = Some(&saves);
    let (mut model, mut ui, keeper) = running();
    let (save_id, ticket) = interrupt_in_flight(&mut model, &keeper);
    type_text(&mut ui, &model, "then summarise it");
    let Some(cmd) = handle_key(&mut ui, &model, key(KeyCode::Enter))
        .as_local::<ChatEvent>()
        .cloned()
    else {
        panic!("Enter is a send");
    };
    assert!(matches!(cmd, ChatEvent::Send { .. }));
    assert_eq!(crate::rig::chat_event(cmd, &mut model, &mut ui, hubs), None);
    let ws = sample::scope(1).workspace.0;
    let held: Vec<_> = model.chat.control.held.of(&ws, &keeper).cloned().collect();
    assert_eq!(held.len(), 1);
    assert_eq!(held[0].text, "then summarise it");
    let pane = model.chat.pane.as_ref().unwrap();
    let send = pane.send(&held[0].request_id).unwrap();
    assert_eq!(send.phase, SendPhase::Typed);
    assert_eq!(send.pending_state(), Some(PendingState::WaitingToSend));
    let text = buffer_text(&draw(&model, &ui));
    assert!(
        text.lines()
            .any(|l| l.contains("then summarise it") && l.contains("전송 대기")),
        "{text}"
    );
    assert!(
        settle(&seen, 1).await.is_empty(),
        "nothing submitted before the answer"
    );
    // Another observation while the interrupt is still in flight releases nothing.
    assert!(!crate::rig::chat_observed(&mut model, &mut ui, hubs));

    // The answer lands: the held input goes out, with its own request id.
    crate::rig::observe(
        &mut model,
        SlotEvent::Observed(ticket, signalled(&save_id, &keeper, "control-2")),
    )
    .unwrap();
    assert!(crate::rig::chat_observed(&mut model, &mut ui, hubs));
    let submitted = settle(&seen, 1).await;
    assert_eq!(
        submitted,
        vec![format!("Submit(chat_send {})", held[0].request_id)]
    );
    assert_eq!(model.chat.control.token(&ws, &keeper), Some("control-2"));
    assert_eq!(model.chat.control.held.of(&ws, &keeper).count(), 0);
    // Released once.
    assert!(!crate::rig::chat_observed(&mut model, &mut ui, hubs));
    assert_eq!(settle(&seen, 2).await.len(), 1);
    hub.stop(None);
    handle.await.unwrap();
}

/// §14.15, C-34, C-44: a newer MASC's acceptance says what the admission did — a status notice
/// (never the operator's speech) before the reply; its `interrupt_error` is an error row that
/// stays after a newest-page reload; the fresh token is held for the next send.
#[test]
fn s14_15_c44_the_admission_notice_and_its_interrupt_error_stay_visible() {
    let (mut model, mut ui, keeper) = opened(0);
    model.chat.pane.as_mut().unwrap().register_send(A, "go on");
    step(
        &mut model,
        &keeper,
        A,
        SendStep::Accepted {
            state: OperationState::Queued,
            interactive: Some(InteractiveAdmission {
                outcome: InteractiveOutcome("applied".into()),
                chat_control_token: "control-3".into(),
                signalled: false,
                resumed: true,
                interrupt_error: Some("cancel_failed: fiber busy".into()),
            }),
        },
    );
    crate::rig::chat_observed(&mut model, &mut ui, None);
    let ws = sample::scope(1).workspace.0;
    assert_eq!(model.chat.control.token(&ws, &keeper), Some("control-3"));
    let text = buffer_text(&draw(&model, &ui));
    assert!(
        text.lines()
            .any(|l| l.contains("○") && l.contains("paused queue resumed")),
        "{text}"
    );
    let error = |text: &str| {
        text.lines().any(|l| {
            l.trim_start().starts_with('✗') && l.contains("interrupt · cancel_failed: fiber busy")
        })
    };
    assert!(error(&text), "{text}");
    {
        let pane = model.chat.pane.as_ref().unwrap();
        let view = pane.view();
        let notice = view.transcript().get(&format!("{A}:admission")).unwrap();
        assert_eq!(notice.kind, EntryKind::Status, "a notice, never speech");
    }
    step(
        &mut model,
        &keeper,
        A,
        SendStep::Event(ChatStreamEvent::RunStarted),
    );
    let t = chat_ticket(&keeper, 9);
    crate::rig::dispatch(&mut model, t.clone());
    crate::rig::observe(&mut model, SlotEvent::Observed(t, page(Vec::new()))).unwrap();
    let text = buffer_text(&draw(&model, &ui));
    assert!(error(&text), "after a reload:\n{text}");
}

/// C-66, §14.14: `/run-next` is a command, never a send: it asks that this chat's oldest input
/// still queued run next; an input already promoted stays ahead (`predecessors`) and the next
/// `/run-next` takes the one after it; with nothing queued it says so and submits nothing.
#[test]
fn c66_s14_14_run_next_takes_the_oldest_queued_input_behind_the_promoted_ones() {
    let (mut model, mut ui, keeper) = running();
    let run_next = |model: &mut Model, ui: &mut Ui| {
        type_text(ui, model, "/run-next");
        let cmd = handle_key(ui, model, key(KeyCode::Enter));
        assert_eq!(
            cmd,
            UiCommand::local(ChatEvent::RunNext {
                keeper: model.chat.pane.as_ref().unwrap().keeper.clone()
            })
        );
        let Some(cmd) = cmd.as_local::<ChatEvent>().cloned() else {
            unreachable!()
        };
        crate::rig::chat_event(cmd, model, ui, None)
    };
    let nothing = run_next(&mut model, &mut ui);
    assert!(
        nothing.is_some_and(|n| n.contains("no input of")),
        "nothing queued"
    );
    assert_eq!(model.chat.control.steers.entries().count(), 0);
    const B: &str = "tui-0190f5a0-0000-7000-8000-0000000000e2";
    const C: &str = "tui-0190f5a0-0000-7000-8000-0000000000e3";
    for id in [B, C] {
        model.chat.pane.as_mut().unwrap().register_send(id, "later");
        for s in queued_steps() {
            step(&mut model, &keeper, id, s);
        }
    }
    // No save hub here: the save is refused locally, and B was not promoted by it.
    run_next(&mut model, &mut ui);
    let of = |model: &Model, id: &str| {
        model
            .chat
            .control
            .steers
            .entries()
            .find(|e| e.intent.request_id == id)
            .map(|e| e.intent.clone())
    };
    let first = of(&model, B).unwrap();
    assert_eq!((first.request_id.as_str(), first.run_next), (B, true));
    assert!(first.predecessors.is_empty());
    let text = buffer_text(&draw(&model, &ui));
    assert!(
        text.lines()
            .any(|l| l.trim_start().starts_with('✗') && l.contains("run-next · ")),
        "{text}"
    );
    // B promoted (its run-next in flight): the next one is C, behind B.
    model.chat.control.steers.submit(
        SaveId::fresh(),
        SteerIntent {
            keeper: keeper.clone(),
            request_id: B.into(),
            run_next: true,
            predecessors: Vec::new(),
        },
        sample::scope(1).workspace.0,
    );
    run_next(&mut model, &mut ui);
    let second = of(&model, C).unwrap();
    assert_eq!(second.request_id, C);
    assert_eq!(second.predecessors, vec![B.to_string()]);
}

/// §14.13, §14.1: a `paused:true` interrupt answer says the Keeper's queue is held and where it
/// is resumed (the Keeper list's `p`, the §14.1 directive `resume`): the chat has no resume
/// command of its own (C-66: `/resume` is not in the closed set, so it is reported, never sent).
#[test]
fn s14_13_a_paused_answer_says_the_queue_is_held_and_where_it_is_resumed() {
    let (mut model, mut ui, keeper) = running();
    let (save_id, ticket) = interrupt_in_flight(&mut model, &keeper);
    crate::rig::observe(
        &mut model,
        SlotEvent::Observed(ticket, signalled(&save_id, &keeper, "control-2")),
    )
    .unwrap();
    let chat = &mut model.chat;
    control::sync(&chat.control, chat.pane.as_mut().unwrap());
    let text = buffer_text(&draw(&model, &ui));
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("the Keeper's queue is held until resumed (Keeper list: p resumes)"),
        "{text}"
    );
    type_text(&mut ui, &model, "/resume");
    let cmd = handle_key(&mut ui, &model, key(KeyCode::Enter));
    assert!(
        !matches!(cmd.as_local::<ChatEvent>(), Some(ChatEvent::Send { .. })),
        "/resume is not sent: {cmd:?}"
    );
}

/// `Esc` never leaves the chat while a draft is typed — the keys typed after
/// it stay the chat's, so "up" typed for the chat never pauses a Keeper on the roster.
#[test]
fn i25_esc_never_leaves_the_chat_while_a_draft_is_typed() {
    let (model, mut ui, _keeper) = opened(0);
    type_text(&mut ui, &model, "u");
    assert!(!matches!(
        handle_key(&mut ui, &model, key(KeyCode::Esc)).as_local::<ChatEvent>(),
        Some(ChatEvent::Close { .. })
    ));
    type_text(&mut ui, &model, "p");
    let chat = ui
        .layer::<masc_tui::view::screens::chat::ChatUi>()
        .expect("still in the chat");
    assert_eq!(chat.composer.text(), "up");
}

/// `Esc` within a second of this chat's turn ending (an Esc typed to
/// interrupt it, arriving late) does not leave the chat; after that it goes back.
#[test]
fn i25_esc_right_after_the_turn_ended_stays_in_the_chat() {
    use masc_tui::actors::chat::SendOutcome;
    use masc_tui::view::screens::chat::ChatUi;
    use masc_tui::view::screens::react::{Seen, react_detached};
    let (mut model, mut ui, keeper) = running();
    react_detached(&mut ui, &mut model, Seen::Delivered);
    assert!(ui.layer::<ChatUi>().is_some_and(|c| c.turn_running));
    step(
        &mut model,
        &keeper,
        A,
        SendStep::Ended(SendOutcome::NotSent {
            cause: "ended".into(),
        }),
    );
    react_detached(&mut ui, &mut model, Seen::Delivered);
    assert!(ui.layer::<ChatUi>().is_some_and(|c| c.turn_ended.is_some()));
    assert!(!matches!(
        handle_key(&mut ui, &model, key(KeyCode::Esc)).as_local::<ChatEvent>(),
        Some(ChatEvent::Close { .. })
    ));
    // A second later (and with the kept draft of the unsent input cleared) Esc goes back.
    handle_key(
        &mut ui,
        &model,
        crossterm::event::KeyEvent::new(
            KeyCode::Char('u'),
            crossterm::event::KeyModifiers::CONTROL,
        ),
    );
    if let Some(chat) = ui.layers.find_mut::<ChatUi>() {
        chat.turn_ended = Some(std::time::Instant::now() - std::time::Duration::from_secs(2));
    }
    assert!(matches!(
        handle_key(&mut ui, &model, key(KeyCode::Esc)).as_local::<ChatEvent>(),
        Some(ChatEvent::Close { .. })
    ));
}
