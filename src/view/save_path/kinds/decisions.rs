//! The Decisions surface's kinds: an approval decision (§10.5), a held tool call's answer
//! (§14.5), an Ask answer (§10.2).

use super::book_at;
use crate::actors::decisions::approval::ApprovalDecision;
use crate::actors::decisions::ask_answer::AskAnswer;
use crate::actors::decisions::held_call::HeldCallDecision;
use crate::view::model::Model;
use crate::view::save_path::SaveCompanion;

/// A decision made in the chat (`/approve`, `/deny`) shows there at once (C-44, C-53).
fn show_in_chat(model: &mut Model) {
    if let Some(pane) = model.chat.pane.as_mut() {
        crate::view::chat::approvals::sync(&model.decisions, pane);
    }
}

impl SaveCompanion for ApprovalDecision {
    book_at!(decisions.decisions);
    const BUSY: &'static str = "a decision on this approval is already in flight";

    fn after_submit(model: &mut Model, _intent: &Self::Intent, _sent: bool) -> Option<String> {
        show_in_chat(model);
        None
    }
}

impl SaveCompanion for HeldCallDecision {
    book_at!(decisions.held_answers);
    const BUSY: &'static str = "an answer to this tool call is already in flight";

    fn after_submit(model: &mut Model, _intent: &Self::Intent, _sent: bool) -> Option<String> {
        show_in_chat(model);
        None
    }
}

impl SaveCompanion for AskAnswer {
    book_at!(decisions.answers);
    const BUSY: &'static str = "an answer to this Ask is already in flight";
}
