//! The Work surface's kind: a Goal transition (§15.4), previewed with the goal's phase now and
//! confirmed by the Planning re-read.

use super::book_at;
use crate::actors::work::PLANNING;
use crate::actors::work::goal_transition::{GoalTransition, TransitionIntent};
use crate::protocol::goal_transition::{GoalAction, GoalTransitionOutcome};
use crate::protocol::planning::PlanningRead;
use crate::view::model::Model;
use crate::view::save_path::settle::{Check, Confirm};
use crate::view::save_path::undo::Undo;
use crate::view::save_path::{Change, Preview, SaveCompanion};
use crate::view::saves::SaveEntry;

impl SaveCompanion for GoalTransition {
    book_at!(work.saves.transitions);
    const BUSY: &'static str = "an action on this goal is already in flight";

    fn asked(intent: &TransitionIntent) -> String {
        intent.action.as_str().to_string()
    }

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

    /// The Planning re-read shows the goal in the phase the receipt named (§15.4: the server
    /// decides the phase; a receipt that names none is confirmed by any re-read listing it).
    fn confirm(model: &Model, entry: &SaveEntry<Self>) -> Option<Confirm> {
        let mark = entry.receipt_mark?;
        let want = match entry.phase.receipt() {
            Some(GoalTransitionOutcome::Moved(t) | GoalTransitionOutcome::Already(t)) => t.phase,
            _ => None,
        };
        let check = match model.work.planning.value_since(mark).map(|r| r.as_ref()) {
            None => Check::NotYet,
            Some(PlanningRead::GoalStoreUnavailable { .. }) => {
                Check::Differs("the goal store unavailable".into())
            }
            Some(PlanningRead::Snapshot(p)) => {
                match p.goals.iter().find(|g| g.id == entry.intent.goal_id) {
                    None => Check::Differs("no such goal in Planning".into()),
                    Some(g) if want.is_none_or(|w| g.phase == w) => Check::Shown,
                    Some(g) => Check::Differs(format!("the goal {}", g.phase.as_str())),
                }
            }
        };
        let check = check.or_failed(&model.work.planning, mark);
        Some(Confirm::by_sources(check, &[PLANNING]))
    }

    fn undo(_model: &Model, _entry: &SaveEntry<Self>) -> Undo {
        Undo::Never("the server decides a goal's phase: reopen or drop it with its own keys")
    }
}
