//! Pure projections the Work keys and screens share: which goals / tasks are listed in which
//! order, and the detail layout (whose history height is the page demand, A-8).

use super::{GoalFilter, GoalSort};
use crate::actors::work::GoalLinkedTask;
use crate::protocol::planning::{GoalPhase, PlanningGoal};
use crate::protocol::tasks::TaskListRow;
use crate::view::screens::body_area;
use ratatui::layout::Rect;

/// Phase groups of the rollup, in display order.
pub fn phase_group(phase: GoalPhase) -> (u8, &'static str) {
    match phase {
        GoalPhase::Executing => (0, "EXECUTING"),
        GoalPhase::Paused | GoalPhase::Blocked => (1, "PAUSED / BLOCKED"),
        GoalPhase::AwaitingConfirmation => (2, "AWAITING CONFIRMATION"),
        GoalPhase::Verifying => (3, "VERIFYING"),
        GoalPhase::Completed => (4, "DONE"),
        GoalPhase::Dropped => (5, "DROPPED"),
    }
}

fn passes(filter: GoalFilter, phase: GoalPhase) -> bool {
    match filter {
        GoalFilter::All => true,
        GoalFilter::Active => !matches!(phase, GoalPhase::Completed | GoalPhase::Dropped),
        GoalFilter::Completed => phase == GoalPhase::Completed,
        GoalFilter::Dropped => phase == GoalPhase::Dropped,
    }
}

/// The goals listed for `filter` and `sort` (indexes into `goals`).
pub fn goal_order(goals: &[PlanningGoal], filter: GoalFilter, sort: GoalSort) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..goals.len())
        .filter(|&i| passes(filter, goals[i].phase))
        .collect();
    match sort {
        GoalSort::PhasePriority => idx.sort_by_key(|&i| {
            (
                phase_group(goals[i].phase).0,
                goals[i].priority,
                goals[i].id.clone(),
            )
        }),
        // Newest first; an absent time sorts last (never as "oldest").
        GoalSort::Updated => idx.sort_by(|&a, &b| {
            let (ua, ub) = (&goals[a].updated_at, &goals[b].updated_at);
            match (ua, ub) {
                (Some(x), Some(y)) => y.cmp(x),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => goals[a].id.cmp(&goals[b].id),
            }
        }),
        GoalSort::Due => idx.sort_by(|&a, &b| {
            let (da, db) = (&goals[a].due_date, &goals[b].due_date);
            match (da, db) {
                (Some(x), Some(y)) => x.cmp(y),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => goals[a].id.cmp(&goals[b].id),
            }
        }),
    }
    idx
}

/// Whether a task row matches a search query (lowercase): id, title or assignee.
pub fn task_matches(row: &TaskListRow, query_lower: &str) -> bool {
    query_lower.is_empty()
        || row.id.to_lowercase().contains(query_lower)
        || row.title.to_lowercase().contains(query_lower)
        || row
            .assignee
            .as_deref()
            .is_some_and(|a| a.to_lowercase().contains(query_lower))
}

/// The goal-linked tasks listed for the search (indexes into `tasks`).
pub fn linked_task_order(tasks: &[GoalLinkedTask], query: Option<&str>) -> Vec<usize> {
    let q = query.unwrap_or("").to_lowercase();
    (0..tasks.len())
        .filter(|&i| {
            let t = &tasks[i];
            q.is_empty()
                || t.id.to_lowercase().contains(&q)
                || t.title.to_lowercase().contains(&q)
                || t.assignee
                    .as_deref()
                    .is_some_and(|a| a.to_lowercase().contains(&q))
        })
        .collect()
}

/// The task rows listed for the search (indexes into `rows`).
pub fn task_order(rows: &[TaskListRow], query: Option<&str>) -> Vec<usize> {
    let q = query.unwrap_or("").to_lowercase();
    (0..rows.len())
        .filter(|&i| task_matches(&rows[i], &q))
        .collect()
}

/// The task detail layout inside the surface body: the document pane on top, the history pane
/// below (its first row is the history status line).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DetailLayout {
    pub body: Rect,
    pub history_status: Rect,
    pub history: Rect,
}

pub fn detail_layout(surface_body: Rect) -> DetailLayout {
    let h = surface_body.height;
    let body_h = (h * 2 / 5).max(4).min(h.saturating_sub(3));
    let body = Rect::new(surface_body.x, surface_body.y, surface_body.width, body_h);
    let rest_y = surface_body.y + body_h;
    let rest_h = h.saturating_sub(body_h);
    DetailLayout {
        body,
        history_status: Rect::new(surface_body.x, rest_y, surface_body.width, rest_h.min(1)),
        history: Rect::new(
            surface_body.x,
            rest_y + rest_h.min(1),
            surface_body.width,
            rest_h.saturating_sub(1),
        ),
    }
}

/// The detail layout for a whole terminal area.
pub fn detail_layout_for(area: Rect) -> DetailLayout {
    detail_layout(body_area(area))
}

/// History page demand for the terminal size: the history rows the pane shows.
pub fn page_rows_for(area: Rect) -> u32 {
    crate::actors::work::page_demand(detail_layout_for(area).history.height as usize)
}

/// Width the task document and history rows are prepared for.
pub fn layout_width_for(area: Rect) -> u16 {
    detail_layout_for(area).history.width.max(1)
}
