//! The Work surface's kind: a Goal transition (§15.4), previewed with the goal's phase now.

use super::book_at;
use crate::actors::work::goal_transition::{GoalTransition, TransitionIntent};
use crate::protocol::goal_transition::GoalAction;
use crate::protocol::planning::PlanningRead;
use crate::view::model::Model;
use crate::view::save_path::{Change, Preview, SaveCompanion};

impl SaveCompanion for GoalTransition {
    book_at!(work.transitions);
    const BUSY: &'static str = "an action on this goal is already in flight";

    fn preview(model: &Model, intent: &TransitionIntent) -> Option<Preview> {
        let phase = model
            .work
            .planning
            .fetched
            .last()
            .and_then(|o| match o.value.as_ref() {
                PlanningRead::Snapshot(p) => p
                    .goals
                    .iter()
                    .find(|g| g.id == intent.goal_id)
                    .map(|g| g.phase.as_str().to_string()),
                PlanningRead::GoalStoreUnavailable { .. } => None,
            });
        let asked = match intent.action {
            GoalAction::RequestComplete => "verifying (completion requested)",
            GoalAction::Drop => "dropped",
            GoalAction::Reopen => "executing (reopened)",
        };
        let mut preview = Preview::titled(format!(
            "{} goal {}",
            intent.action.as_str(),
            intent.goal_id
        ))
        .change(Change::new("phase", phase, asked))
        .note("the server decides the phase it moves to; it is read again after the receipt");
        if let Some(note) = &intent.note {
            preview = preview.change(Change::new("last_review_note", None, note.clone()));
        }
        Some(preview)
    }
}
