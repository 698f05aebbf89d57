//! The chat surface's kinds: a chat send (§4.3), whose book is the open chat's pane, and the
//! turn controls `/interrupt` (§14.13) and `/steer`, `/run-next` (§14.14), whose books the
//! chat surface keeps (a receipt that lands while its chat is closed is shown when it opens).

use super::book_at;
use crate::actors::chat::{ChatSend, ChatSendIntent, InterruptIntent, SteerIntent};
use crate::actors::chat::{TurnInterrupt, TurnSteer};
use crate::actors::saves::SaveId;
use crate::view::chat::held::HeldInput;
use crate::view::chat::pane::ChatPane;
use crate::view::model::Model;
use crate::view::save_path::undo::Undo;
use crate::view::save_path::{Refused, SaveCompanion, SaveLedger};
use crate::view::saves::SaveEntry;

/// A send is kept by the pane of its chat: its row shows from Enter on, its receipt lands there.
impl SaveLedger<ChatSend> for ChatPane {
    fn in_flight(&self, _intent: &ChatSendIntent, _workspace: &str) -> Option<SaveId> {
        // Every Enter is a new request id: no two sends share one.
        None
    }

    fn register(&mut self, _save_id: &SaveId, intent: &ChatSendIntent, _workspace: &str) {
        self.register_attempt(&intent.request_id, &intent.text, intent.attempt);
    }

    fn refuse_locally(&mut self, _save_id: &SaveId, intent: &ChatSendIntent, _reason: &str) {
        // It never reached any actor: gone from the pane (the screen puts its text back).
        self.forget(&intent.request_id);
    }
}

impl SaveCompanion for ChatSend {
    type Book = ChatPane;

    fn book<'m>(model: &'m Model, intent: &ChatSendIntent) -> Option<&'m ChatPane> {
        model
            .chat
            .pane
            .as_ref()
            .filter(|p| p.keeper == intent.keeper)
    }

    fn book_mut<'m>(model: &'m mut Model, intent: &ChatSendIntent) -> Option<&'m mut ChatPane> {
        model
            .chat
            .pane
            .as_mut()
            .filter(|p| p.keeper == intent.keeper)
    }

    fn save_id(intent: &ChatSendIntent) -> SaveId {
        intent.save_id()
    }

    /// While an interrupt of its Keeper is in flight the input stays local (§14.13, C-36):
    /// shown as `전송 대기`, sent once the interrupt is answered (the chat screen releases it).
    fn hold(
        model: &mut Model,
        _save_id: &SaveId,
        intent: &ChatSendIntent,
        workspace: &str,
    ) -> Option<String> {
        if !model
            .chat
            .control
            .interrupt_in_flight(workspace, &intent.keeper)
        {
            return None;
        }
        if let Some(pane) = Self::book_mut(model, intent) {
            pane.register_send(&intent.request_id, &intent.text);
        }
        model.chat.control.held.hold(HeldInput {
            workspace: workspace.to_string(),
            keeper: intent.keeper.clone(),
            request_id: intent.request_id.clone(),
            text: intent.text.clone(),
        });
        Some("held until the interrupt is answered, then sent".into())
    }

    fn refusal_words(refused: &Refused, _intent: &ChatSendIntent) -> String {
        match refused {
            Refused::NoHub { stopped: true, .. } => "not sent: save hub stopped".into(),
            other => other.words(Self::BUSY),
        }
    }

    fn undo(_model: &Model, _entry: &SaveEntry<Self>) -> Undo {
        Undo::Never("a sent message is in the Keeper's conversation: it cannot be unsent")
    }
}

/// The rows of what was just submitted, before any step lands.
fn show_controls(model: &mut Model) {
    let chat = &mut model.chat;
    if let Some(pane) = chat.pane.as_mut() {
        crate::view::chat::control::sync(&chat.control, pane);
    }
}

impl SaveCompanion for TurnInterrupt {
    book_at!(chat.control.interrupts);

    /// An interrupt of another Keeper than the chat open: its outcome shows in that Keeper's
    /// chat, never near this input (C-43).
    fn after_submit(model: &mut Model, intent: &InterruptIntent, sent: bool) -> Option<String> {
        show_controls(model);
        let open = model.chat.pane.as_ref().map(|p| p.keeper.as_str());
        (sent && open != Some(intent.keeper.as_str())).then(|| {
            let name = &intent.keeper;
            format!("interrupt asked of {name}: its outcome shows in {name}'s chat")
        })
    }

    fn refusal_words(refused: &Refused, _intent: &InterruptIntent) -> String {
        format!("interrupt {}", refused.words(Self::BUSY))
    }

    fn undo(_model: &Model, _entry: &SaveEntry<Self>) -> Undo {
        Undo::Never("a stopped turn cannot be resumed: send again")
    }
}

impl SaveCompanion for TurnSteer {
    book_at!(chat.control.steers);

    fn after_submit(model: &mut Model, _intent: &SteerIntent, _sent: bool) -> Option<String> {
        show_controls(model);
        None
    }

    fn refusal_words(refused: &Refused, intent: &SteerIntent) -> String {
        let verb = if intent.run_next { "run-next" } else { "steer" };
        format!("{verb} {}", refused.words(Self::BUSY))
    }

    fn undo(_model: &Model, _entry: &SaveEntry<Self>) -> Undo {
        Undo::Never("a steer reaches the running turn at once: it cannot be taken back")
    }
}
