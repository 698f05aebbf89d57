//! `/interrupt [name]` and `/steer <text>` on the chat screen (protocol.md §14.13, §14.14;
//! chat-screen.md C-36, C-43, C-44): each submits a save of its kind on the one save path (key
//! handling never awaits); the receipt lands in the chat surface's books and its row in the
//! chat of the Keeper it is about.

use super::Ui;
use super::sending::send;
use crate::actors::chat::{InterruptAim, InterruptIntent, SteerIntent, TurnInterrupt, TurnSteer};
use crate::protocol::chat::OperationState;
use crate::protocol::outcome::SaveClass;
use crate::view::chat::SendPhase;
use crate::view::composer::Draft;
use crate::view::effects::Effects;
use crate::view::model::Model;
use crate::view::save_path::{SaveRequest, notice};

/// The newest send of this chat still in flight (on the wire, accepted or running), if any:
/// while there is one, Esc is the interrupt (C-36).
pub(super) fn running_send(model: &Model, keeper: &str) -> Option<String> {
    let pane = model.chat.pane.as_ref().filter(|p| p.keeper == keeper)?;
    pane.sends
        .iter()
        .rev()
        .find(|(_, s)| {
            matches!(
                s.phase,
                SendPhase::Sending | SendPhase::Accepted(_) | SendPhase::Running
            )
        })
        .map(|(id, _)| id.clone())
}

/// The turn a stop of this chat is addressed to (C-36, C-44): the send whose turn the stream
/// says is running (its run started, or it streams), else one on the wire or accepted as
/// running; an input only queued behind another turn is not a turn, so with nothing of this
/// chat running the stop names the turn the §4.2 census shows running.
fn interrupt_aim(model: &Model, keeper: &str) -> InterruptAim {
    let Some(pane) = model.chat.pane.as_ref().filter(|p| p.keeper == keeper) else {
        return InterruptAim::Current;
    };
    let newest = |running: fn(&crate::view::chat::PendingSend) -> bool| {
        pane.sends
            .iter()
            .rev()
            .find(|(_, s)| running(s))
            .map(|(id, _)| id.clone())
    };
    newest(|s| {
        s.phase == SendPhase::Running
            || (s.activity.is_some() && !matches!(s.phase, SendPhase::Ended(_)))
    })
    .or_else(|| {
        newest(|s| {
            matches!(
                s.phase,
                SendPhase::Sending | SendPhase::Accepted(OperationState::Running)
            )
        })
    })
    .map_or(InterruptAim::Current, |request_id| InterruptAim::Request {
        request_id,
    })
}

/// Esc interrupts (C-36): a send of this chat is on the wire, accepted or running, and no stop
/// of its turn is asked yet (an interrupt in flight, or signalled and not yet confirmed).
pub(super) fn interruptible(model: &Model, keeper: &str) -> bool {
    model
        .chat
        .pane
        .as_ref()
        .filter(|p| p.keeper == keeper)
        .is_some_and(|p| !p.stopping)
        && running_send(model, keeper).is_some()
}

/// `/interrupt [name]`: this chat's running send by its request id (never an input queued
/// behind it), else the turn the census shows for the Keeper. Another Keeper's name stops that Keeper's current turn; its rows show
/// in its own chat, never near this input (C-43).
pub fn interrupt(fx: &mut Effects<'_>, keeper: String, name: Option<String>) -> Option<String> {
    let model = &*fx.model;
    let intent = match name.filter(|n| *n != keeper) {
        Some(name) => InterruptIntent {
            keeper: name,
            aim: InterruptAim::Current,
        },
        None => InterruptIntent {
            aim: interrupt_aim(model, &keeper),
            keeper,
        },
    };
    notice(fx.submit(SaveRequest::new::<TurnInterrupt>(intent)))
}

/// `/steer <text>`: the text is sent as a chat send; once it is accepted as queued the pane
/// asks for [`submit_steer`].
pub fn steer(ui: &mut Ui, fx: &mut Effects<'_>, keeper: String, text: String) -> Option<String> {
    let draft = Draft {
        cursor: text.len(),
        text: text.clone(),
        spills: Vec::new(),
    };
    match send(ui, fx, keeper, text, draft) {
        Ok(request_id) => {
            if let Some(pane) = fx.model.chat.pane.as_mut() {
                pane.want_steer(&request_id);
            }
            None
        }
        Err(notice) => Some(notice),
    }
}

/// `/run-next` (§14.14, C-66): the oldest input of this chat still queued and not yet promoted
/// runs next — `interrupt_token: null`, nothing stopped — behind the inputs already promoted
/// (`priority_predecessors`, in their order).
pub fn run_next(fx: &mut Effects<'_>, keeper: String) -> Option<String> {
    let model = &*fx.model;
    let Some(workspace) = model.gate().current().map(|s| s.workspace.0.clone()) else {
        return Some("run-next not sent: workspace not confirmed".into());
    };
    let pane = model.chat.pane.as_ref().filter(|p| p.keeper == keeper)?;
    let promoted = |id: &str| {
        model.chat.control.steers.entries().any(|e| {
            e.intent.request_id == id
                && e.workspace == workspace
                && e.phase
                    .class()
                    .is_none_or(|c| matches!(c, SaveClass::Applied | SaveClass::Unchanged))
        })
    };
    let queued: Vec<&String> = pane
        .sends
        .iter()
        .filter(|(_, s)| s.phase == SendPhase::Accepted(OperationState::Queued))
        .map(|(id, _)| id)
        .collect();
    let predecessors: Vec<String> = queued
        .iter()
        .filter(|id| promoted(id))
        .map(|id| (*id).clone())
        .collect();
    let Some(target) = queued
        .iter()
        .find(|id| !promoted(id))
        .map(|id| (*id).clone())
    else {
        return Some(format!(
            "/run-next: no input of {} is waiting in the queue",
            crate::view::text::sanitize(&keeper)
        ));
    };
    let intent = SteerIntent {
        keeper,
        request_id: target,
        run_next: true,
        predecessors,
    };
    notice(fx.submit(SaveRequest::new::<TurnSteer>(intent)))
}

/// A `/steer` input was accepted as queued: submit the steer save for it.
pub fn submit_steer(fx: &mut Effects<'_>, keeper: String, request_id: String) -> Option<String> {
    let intent = SteerIntent {
        keeper,
        request_id,
        run_next: false,
        predecessors: Vec::new(),
    };
    notice(fx.submit(SaveRequest::new::<TurnSteer>(intent)))
}
