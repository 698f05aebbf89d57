#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! `/interrupt` and `/steer` on the chat screen (chat-screen.md C-36, C-43, C-44;
//! sources.md H-15, H-16): the key submits a save (never a chat send), the progress row says
//! "interrupt requested" until the stop is confirmed, an interrupt failure is an error row that
//! stays in the default view (a reloaded page included), and a receipt from another workspace
//! or ticket never lands.

use crate::chat_screen::{chat_ticket, draw, opened, page, type_text};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use masc_tui::actors::chat::{
    ChatObservation, ChatSlot, InterruptAim, InterruptIntent, TurnControlEvent, TurnInterrupt,
};
use masc_tui::actors::contract::{SlotEvent, Ticket};
use masc_tui::actors::saves::{SaveEvent, SaveId, SaveKind, SaveStep};
use masc_tui::protocol::admission::{ReadScope, WorkspaceId};
use masc_tui::protocol::outcome::SaveOutcome;
use masc_tui::protocol::turn_control::InterruptOutcome;
use masc_tui::view::admission::RejectReason;
use masc_tui::view::chat::control;
use masc_tui::view::keys::handle_key;
use masc_tui::view::sample::{self, buffer_text};
use masc_tui::view::screens::chat::{ChatEvent, Progress};

/// A row drawn with the error mark `✗` and `words` (C-8: a failure row, never folded).
fn failure_row(text: &str, words: &str) -> bool {
    text.lines()
        .any(|l| l.trim_start().starts_with('✗') && l.contains(words))
}

fn enter() -> KeyEvent {
    KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE)
}

fn control_ticket(keeper: &str, save_id: &SaveId, scope: ReadScope) -> Ticket<ChatSlot> {
    Ticket {
        slot: TurnInterrupt::slot(
            save_id,
            &InterruptIntent {
                keeper: keeper.into(),
                aim: InterruptAim::Current,
            },
        ),
        generation: 3,
        scope,
    }
}

fn receipt(
    save_id: &SaveId,
    keeper: &str,
    workspace: &str,
    step: SaveStep<InterruptOutcome>,
) -> ChatObservation {
    ChatObservation::Control(Box::new(TurnControlEvent::Interrupt(SaveEvent {
        save_id: save_id.clone(),
        intent: InterruptIntent {
            keeper: keeper.into(),
            aim: InterruptAim::Current,
        },
        workspace: workspace.into(),
        step,
    })))
}

/// C-44, C-66: `/interrupt` + Enter is the interrupt command, never a chat send; without a save
/// hub it is refused locally, and that failure is an error row in the default view.
#[test]
fn c44_slash_interrupt_is_a_save_and_a_refusal_is_an_error_row_in_the_default_view() {
    let (mut model, mut ui, keeper) = opened(0);
    type_text(&mut ui, &model, "/interrupt");
    let cmd = handle_key(&mut ui, &model, enter());
    let Some(cmd @ ChatEvent::Interrupt { .. }) = cmd.as_local::<ChatEvent>().cloned() else {
        panic!("not an interrupt: {cmd:?}");
    };
    assert_eq!(
        cmd,
        ChatEvent::Interrupt {
            keeper: keeper.clone(),
            name: None
        }
    );
    let notice = crate::rig::chat_event(cmd, &mut model, &mut ui, None);
    assert!(notice.is_some_and(|n| n.contains("not sent")));
    let pane = model.chat.pane.as_ref().unwrap();
    assert!(pane.sends.is_empty(), "nothing was sent to the Keeper");
    let text = buffer_text(&draw(&model, &ui));
    assert!(
        failure_row(&text, "failed · interrupt · the save hub is not running"),
        "{text}"
    );
}

/// C-44, H-15, H-16: while the interrupt is in flight the progress row says "interrupt
/// requested"; its failure (`cancel_failed` with the server's detail) becomes an error row that
/// survives a newest-page reload; a receipt of another workspace is `other_target` and one of
/// another ticket is `superseded` (it lands once, from its own dispatch).
#[test]
fn c44_interrupt_requested_then_a_failure_row_that_stays_after_a_reload() {
    let (mut model, ui, keeper) = opened(0);
    let scope = sample::scope(1);
    let save_id = SaveId::fresh();
    model.chat.control.interrupts.submit(
        save_id.clone(),
        InterruptIntent {
            keeper: keeper.clone(),
            aim: InterruptAim::Current,
        },
        scope.workspace.0.clone(),
    );
    {
        let chat = &mut model.chat;
        control::sync(&chat.control, chat.pane.as_mut().unwrap());
    }
    assert_eq!(
        model.chat.pane.as_ref().unwrap().progress(),
        Progress::Stopping
    );
    let text = buffer_text(&draw(&model, &ui));
    assert!(text.contains("○ interrupt requested"), "{text}");

    let ticket = control_ticket(&keeper, &save_id, scope.clone());
    crate::rig::dispatch(&mut model, ticket.clone());
    let failed = SaveStep::Ended(SaveOutcome::NotApplied {
        reason: "cancel_failed: fiber busy".into(),
    });
    // Another workspace's receipt never lands here.
    let elsewhere = Ticket {
        scope: ReadScope {
            workspace: WorkspaceId("other".into()),
            epoch: 1,
        },
        ..ticket.clone()
    };
    assert_eq!(
        crate::rig::observe(
            &mut model,
            SlotEvent::Observed(
                elsewhere,
                receipt(&save_id, &keeper, "other", failed.clone())
            )
        ),
        Err(RejectReason::OtherTarget)
    );
    let stranger = Ticket {
        generation: 99,
        ..ticket.clone()
    };
    assert_eq!(
        crate::rig::observe(
            &mut model,
            SlotEvent::Observed(
                stranger,
                receipt(&save_id, &keeper, &scope.workspace.0, failed.clone())
            )
        ),
        Err(RejectReason::Superseded)
    );
    crate::rig::observe(
        &mut model,
        SlotEvent::Observed(
            ticket.clone(),
            receipt(&save_id, &keeper, &scope.workspace.0, failed.clone()),
        ),
    )
    .unwrap();
    assert_ne!(
        model.chat.pane.as_ref().unwrap().progress(),
        Progress::Stopping
    );
    let failure = "failed · interrupt · cancel_failed: fiber busy";
    let text = buffer_text(&draw(&model, &ui));
    assert!(failure_row(&text, failure), "{text}");

    // A newest page replaces the transcript: the failure row is written again (C-44, C-8).
    let t = chat_ticket(&keeper, 5);
    crate::rig::dispatch(&mut model, t.clone());
    crate::rig::observe(&mut model, SlotEvent::Observed(t, page(Vec::new()))).unwrap();
    let text = buffer_text(&draw(&model, &ui));
    assert!(failure_row(&text, failure), "after a reload:\n{text}");
    // The receipt landed once: a second copy from the same ticket is refused.
    assert!(
        crate::rig::observe(
            &mut model,
            SlotEvent::Observed(
                ticket,
                receipt(&save_id, &keeper, &scope.workspace.0, failed)
            )
        )
        .is_err()
    );
}

/// C-43: `/interrupt <another keeper>` asks that Keeper's turn to stop; nothing about it is
/// drawn near this chat's input.
#[test]
fn c43_interrupt_of_another_keeper_shows_nothing_near_this_input() {
    let (mut model, mut ui, keeper) = opened(0);
    let other = if keeper == "rondo" { "beacon" } else { "rondo" };
    let notice = crate::rig::chat_event(
        ChatEvent::Interrupt {
            keeper: keeper.clone(),
            name: Some(other.into()),
        },
        &mut model,
        &mut ui,
        None,
    );
    assert!(notice.is_some());
    let entry = model.chat.control.interrupts.entries().next().unwrap();
    assert_eq!(entry.intent.keeper, other);
    assert_eq!(entry.intent.aim, InterruptAim::Current);
    let text = buffer_text(&draw(&model, &ui));
    assert!(!text.contains("failed · interrupt"), "{text}");
    assert!(!text.contains("interrupt requested"), "{text}");
}
