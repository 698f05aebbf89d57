//! The Decisions surface's kinds: an approval decision (§10.5), a held tool call's answer
//! (§14.5), an Ask answer (§10.2).

use super::book_at;
use crate::actors::decisions::DECISIONS;
use crate::actors::decisions::approval::ApprovalDecision;
use crate::actors::decisions::ask_answer::AskAnswer;
use crate::actors::decisions::held_call::HeldCallDecision;
use crate::protocol::asks::AskResolution;
use crate::view::admission::{Slot, ViewMark};
use crate::view::model::Model;
use crate::view::save_path::SaveCompanion;
use crate::view::save_path::settle::{Check, Confirm};
use crate::view::save_path::undo::Undo;
use crate::view::saves::SaveEntry;

/// Confirmed once a re-read of the Decisions list after the receipt no longer lists what the
/// save answered (`listed`: whether that read still lists it).
fn left_the_list<T: Clone>(
    read: Option<bool>,
    still: &str,
    list: &Slot<T>,
    mark: ViewMark,
) -> Confirm {
    let check = match read {
        None => Check::NotYet,
        Some(false) => Check::Shown,
        Some(true) => Check::Differs(still.to_string()),
    };
    Confirm::by_sources(check.or_failed(list, mark), &[DECISIONS])
}

const DECIDED: &str = "a decision is made once: nothing is kept to take it back";

/// A decision made in the chat (`/approve`, `/deny`) shows there at once (C-44, C-53).
fn show_in_chat(model: &mut Model) {
    if let Some(pane) = model.chat.pane.as_mut() {
        crate::view::chat::approvals::sync(&model.decisions, pane);
    }
}

impl SaveCompanion for ApprovalDecision {
    book_at!(decisions.decisions);
    const BUSY: &'static str = "a decision on this approval is already in flight";

    /// The approval leaves the pending list (§10.5).
    fn confirm(model: &Model, entry: &SaveEntry<Self>) -> Option<Confirm> {
        let mark = entry.receipt_mark?;
        let token = &entry.intent.confirm_token;
        let listed = model
            .decisions
            .approvals
            .value_since(mark)
            .map(|l| l.items.iter().any(|a| a.confirm_token == *token));
        Some(left_the_list(
            listed,
            "the approval still pending",
            &model.decisions.approvals,
            mark,
        ))
    }

    fn undo(_model: &Model, _entry: &SaveEntry<Self>) -> Undo {
        Undo::Never(DECIDED)
    }

    fn after_submit(model: &mut Model, _intent: &Self::Intent, _sent: bool) -> Option<String> {
        show_in_chat(model);
        None
    }
}

impl SaveCompanion for HeldCallDecision {
    book_at!(decisions.held_answers);
    const BUSY: &'static str = "an answer to this tool call is already in flight";

    /// The held call leaves the list (§14.5: listed exactly while its turn waits on it).
    fn confirm(model: &Model, entry: &SaveEntry<Self>) -> Option<Confirm> {
        let mark = entry.receipt_mark?;
        let intent = &entry.intent;
        let listed = model.decisions.held_calls.value_since(mark).map(|l| {
            l.of_keeper(&intent.keeper)
                .any(|c| c.tool_call_id == intent.tool_call_id)
        });
        Some(left_the_list(
            listed,
            "the call still waiting",
            &model.decisions.held_calls,
            mark,
        ))
    }

    fn undo(_model: &Model, _entry: &SaveEntry<Self>) -> Undo {
        Undo::Never(DECIDED)
    }

    fn after_submit(model: &mut Model, _intent: &Self::Intent, _sent: bool) -> Option<String> {
        show_in_chat(model);
        None
    }
}

impl SaveCompanion for AskAnswer {
    book_at!(decisions.answers);
    const BUSY: &'static str = "an answer to this Ask is already in flight";

    /// The Ask leaves the open list (§10.1).
    fn confirm(model: &Model, entry: &SaveEntry<Self>) -> Option<Confirm> {
        let mark = entry.receipt_mark?;
        let intent = &entry.intent;
        let listed = model.decisions.asks.value_since(mark).map(|l| {
            l.asks.iter().any(|a| {
                a.keeper == intent.keeper
                    && a.ask_id == intent.ask_id
                    && matches!(a.resolution, AskResolution::Open {})
            })
        });
        Some(left_the_list(
            listed,
            "the Ask still open",
            &model.decisions.asks,
            mark,
        ))
    }

    fn undo(_model: &Model, _entry: &SaveEntry<Self>) -> Undo {
        Undo::Never("an answer is delivered to the Keeper's turn: it cannot be recalled")
    }
}
