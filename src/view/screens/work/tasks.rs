//! Work → Tasks: the task list with its coverage line (per-part read states: backlog, archive,
//! goal links; an unavailable part is named, never read as "no tasks"), j/k, paging, search.
//!
//! Where this MASC does not serve the task list route, the goal-linked tasks are
//! listed instead, marked partial on their own lines: the route is named as not served, and
//! "from goal links; tasks without a goal are not listed" stands above the rows.

use super::TasksUi;
use super::state::{linked_task_order, task_order};
use crate::actors::work::GoalLinkedTasks;
use crate::protocol::routes::RouteFamily;
use crate::protocol::tasks::{SourceRead, TaskList, TaskStatus};
use crate::view::admission::Slot;
use crate::view::model::Model;
use crate::view::screens::ProjectionCtx;
use crate::view::screens::widgets::{
    annotation, effective_offset, no_value_line, not_served_lines, row,
};
use crate::view::text::{display_width, fit_middle, fit_width, pad_to, sanitize};
use crate::view::theme::{Theme, Tone};
use crate::view::work::TaskListShown;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use std::sync::Arc;

fn part(name: &str, read: &SourceRead, theme: Theme) -> Vec<Span<'static>> {
    match read {
        SourceRead::Read {} => vec![Span::styled(format!("{name} read"), theme.style(Tone::Dim))],
        SourceRead::Unavailable { reason } => vec![Span::styled(
            format!("{name} UNAVAILABLE ({})", sanitize(reason)),
            theme.style(Tone::Bad),
        )],
    }
}

pub fn coverage_line(list: &TaskList, theme: Theme) -> Line<'static> {
    let mut spans = vec![Span::styled("coverage: ", theme.style(Tone::Dim))];
    spans.extend(part("backlog", &list.sources.backlog, theme));
    spans.push(Span::styled(" · ", theme.style(Tone::Dim)));
    spans.extend(part("archive", &list.sources.archive, theme));
    spans.push(Span::styled(" · ", theme.style(Tone::Dim)));
    spans.extend(part("goal links", &list.sources.goal_links, theme));
    Line::from(spans)
}

pub fn status_tone(s: TaskStatus) -> Tone {
    match s {
        TaskStatus::Todo => Tone::Normal,
        TaskStatus::Claimed | TaskStatus::InProgress => Tone::Busy,
        TaskStatus::AwaitingVerification => Tone::Warn,
        TaskStatus::Done => Tone::Good,
        TaskStatus::Cancelled => Tone::Dim,
    }
}

pub fn render(model: &Model, ui: &TasksUi, ctx: &ProjectionCtx, area: Rect, buf: &mut Buffer) {
    match model.work.task_list() {
        TaskListShown::Served(_) => render_served(model, ui, ctx, area, buf),
        TaskListShown::GoalLinked { absent, slot } => {
            render_goal_linked(absent, slot, ui, ctx, area, buf)
        }
    }
}

fn render_served(model: &Model, ui: &TasksUi, ctx: &ProjectionCtx, area: Rect, buf: &mut Buffer) {
    let theme = ctx.theme;
    let slot = &model.work.tasks;
    let mut title = vec![Span::styled("TASKS", theme.style(Tone::Strong))];
    if let Some((text, tone)) = annotation(&slot.fetched, ctx.now) {
        title.push(Span::styled(format!("  {text}"), theme.style(tone)));
    }
    let Some(observed) = slot.fetched.last() else {
        if let Some(r) = row(area, 0) {
            crate::view::terminal::cells::render_line(&Line::from(title), r, buf);
        }
        if let (Some(line), Some(r)) = (
            no_value_line("task list", &slot.fetched, theme),
            row(area, 1),
        ) {
            crate::view::terminal::cells::render_line(&line, r, buf);
        }
        return;
    };
    let list = observed.value.as_ref();
    let query = ui.search.as_ref().map(|s| s.query.as_str());
    let order = task_order(&list.tasks, query);
    title.push(Span::styled(
        match query {
            Some(q) => format!(
                "  {} of {} · /{}",
                order.len(),
                list.tasks.len(),
                sanitize(q)
            ),
            None => format!("  {}", list.tasks.len()),
        },
        theme.style(Tone::Dim),
    ));
    if let Some(r) = row(area, 0) {
        crate::view::terminal::cells::render_line(&Line::from(title), r, buf);
    }
    if let Some(r) = row(area, 1) {
        crate::view::terminal::cells::render_line(&coverage_line(list, theme), r, buf);
    }
    let rows = Rect::new(
        area.x,
        area.y + 2.min(area.height),
        area.width,
        area.height.saturating_sub(2),
    );
    if order.is_empty() {
        let text = if list.tasks.is_empty() {
            "no tasks (every listed part was read)"
        } else {
            "no task matches the search"
        };
        let shown = if list.tasks.is_empty()
            && !(list.sources.backlog.is_read() && list.sources.archive.is_read())
        {
            "no tasks listed — but a part is unavailable (see coverage)"
        } else {
            text
        };
        if let Some(r) = row(rows, 0) {
            crate::view::terminal::cells::render_line(
                &Line::styled(shown, theme.style(Tone::Dim)),
                r,
                buf,
            );
        }
        return;
    }
    let page = (rows.height as usize).max(1);
    let selected = ui.selected.min(order.len() - 1);
    let offset = effective_offset(selected, ui.offset, page, order.len());
    let id_w = id_width(
        order
            .iter()
            .skip(offset)
            .take(page)
            .map(|&i| list.tasks[i].id.as_str()),
    );
    for (line_no, (pos, &i)) in order.iter().enumerate().skip(offset).take(page).enumerate() {
        let t = &list.tasks[i];
        let is_sel = pos == selected;
        let style = if is_sel {
            theme.selected()
        } else {
            theme.style(Tone::Normal)
        };
        let goals = match &t.goal_ids {
            None => "goals ?".to_string(),
            Some(g) if g.is_empty() => "no goal".to_string(),
            Some(g) => g.join(","),
        };
        let assignee = t.assignee.as_deref().unwrap_or("-");
        let meta = format!(
            " · {} · {}{}",
            sanitize(assignee),
            sanitize(&goals),
            if t.archived { " · archived" } else { "" }
        );
        let status = pad_to(t.status.as_str(), 22);
        let fixed = 2 + id_w + 1 + 22 + 3;
        let room = (area.width as usize).saturating_sub(fixed + display_width(&meta));
        let spans = vec![
            Span::styled(
                format!(
                    "{}{} ",
                    if is_sel { "▸ " } else { "  " },
                    id_cell(&t.id, id_w)
                ),
                style,
            ),
            Span::styled(status, theme.style(status_tone(t.status))),
            Span::styled(format!("P{} ", t.priority), theme.style(Tone::Dim)),
            Span::styled(
                fit_width(&sanitize(&t.title), room.max(8)).into_owned(),
                style,
            ),
            Span::styled(meta, theme.style(Tone::Dim)),
        ];
        if let Some(r) = row(rows, line_no as u16) {
            crate::view::terminal::cells::render_line(&Line::from(spans), r, buf);
        }
    }
}

/// The narrowest the Task id column gets (the ordinary `task-1001` fits).
const ID_MIN_W: usize = 10;
/// The widest the Task id column gets; a longer id folds in the middle.
const ID_MAX_W: usize = 24;

/// The Task id column's width for the ids on the page: as wide as the longest of them, within
/// [`ID_MIN_W`]..=[`ID_MAX_W`], so ids are never cut where they differ (`task-s00001`).
pub fn id_width<'a>(ids: impl Iterator<Item = &'a str>) -> usize {
    ids.map(|id| display_width(&sanitize(id)))
        .max()
        .unwrap_or(0)
        .clamp(ID_MIN_W, ID_MAX_W)
}

/// A Task id in a column of `width` cells: whole when it fits, else folded in the middle so
/// its head and distinguishing tail both stay.
pub fn id_cell(id: &str, width: usize) -> String {
    pad_to(&fit_middle(&sanitize(id), width), width)
}

/// The partial marker of the goal-linked list (A-4's spirit for lists: never "all tasks").
pub const GOAL_LINKED_PARTIAL: &str =
    "partial: from goal links; tasks without a goal are not listed";

/// Work › Tasks where this MASC does not serve the task list route: the route named as not
/// served, the partial marker, then the goal-linked tasks.
fn render_goal_linked(
    absent: RouteFamily,
    slot: &Slot<Arc<GoalLinkedTasks>>,
    ui: &TasksUi,
    ctx: &ProjectionCtx,
    area: Rect,
    buf: &mut Buffer,
) {
    let theme = ctx.theme;
    let width = area.width as usize;
    let mut head: Vec<Line<'static>> = Vec::new();
    let mut title = vec![Span::styled(
        "TASKS (from goal links)",
        theme.style(Tone::Strong),
    )];
    if let Some((text, tone)) = annotation(&slot.fetched, ctx.now) {
        title.push(Span::styled(format!("  {text}"), theme.style(tone)));
    }
    let listed = slot.fetched.last().map(|o| o.value.clone());
    let query = ui.search.as_ref().map(|s| s.query.as_str());
    let order = listed
        .as_ref()
        .map(|l| linked_task_order(l.tasks(), query))
        .unwrap_or_default();
    if let Some(l) = &listed {
        title.push(Span::styled(
            match query {
                Some(q) => format!(
                    "  {} of {} · /{}",
                    order.len(),
                    l.tasks().len(),
                    sanitize(q)
                ),
                None => format!("  {}", l.tasks().len()),
            },
            theme.style(Tone::Dim),
        ));
    }
    head.push(Line::from(title));
    head.extend(not_served_lines("task list", absent, width, theme));
    head.push(Line::styled(
        GOAL_LINKED_PARTIAL.to_string(),
        theme.style(Tone::Warn),
    ));
    if let Some(line) = no_value_line("goal-linked tasks", &slot.fetched, theme) {
        head.push(line);
    }
    match listed.as_deref() {
        Some(GoalLinkedTasks::TreeUnavailable { title }) => head.push(Line::styled(
            format!(
                "goal links unavailable: {} (MASC's goals tree is not usable) — not \"no tasks\"",
                sanitize(title)
            ),
            theme.style(Tone::Bad),
        )),
        Some(GoalLinkedTasks::Listed {
            tasks,
            goals,
            goals_without_task_rows,
        }) => {
            let mut words = format!("{goals} goals read");
            if *goals_without_task_rows > 0 {
                words.push_str(&format!(
                    " · {goals_without_task_rows} without a task list (their links unknown)"
                ));
            }
            if tasks.is_empty() {
                words.push_str(" · no goal links a task");
            } else if order.is_empty() {
                words.push_str(" · no task matches the search");
            }
            head.push(Line::styled(words, theme.style(Tone::Dim)));
        }
        None => {}
    }
    let top = (head.len() as u16).min(area.height);
    for (i, line) in head.into_iter().enumerate() {
        if let Some(r) = row(area, i as u16) {
            crate::view::terminal::cells::render_line(&line, r, buf);
        }
    }
    let Some(list) = listed else {
        return;
    };
    let rows = Rect::new(
        area.x,
        area.y + top,
        area.width,
        area.height.saturating_sub(top),
    );
    if order.is_empty() {
        return;
    }
    let page = (rows.height as usize).max(1);
    let selected = ui.selected.min(order.len() - 1);
    let offset = effective_offset(selected, ui.offset, page, order.len());
    let tasks = list.tasks();
    let id_w = id_width(
        order
            .iter()
            .skip(offset)
            .take(page)
            .map(|&i| tasks[i].id.as_str()),
    );
    for (line_no, (pos, &i)) in order.iter().enumerate().skip(offset).take(page).enumerate() {
        let t = &tasks[i];
        let is_sel = pos == selected;
        let style = if is_sel {
            theme.selected()
        } else {
            theme.style(Tone::Normal)
        };
        let meta = format!(
            " · {} · {}",
            sanitize(t.assignee.as_deref().unwrap_or("-")),
            sanitize(&t.goal_ids.join(","))
        );
        let priority = t
            .priority
            .map(|p| format!("P{p} "))
            .unwrap_or_else(|| "P? ".to_string());
        let fixed = 2 + id_w + 1 + 22 + 3;
        let room = width.saturating_sub(fixed + display_width(&meta));
        let spans = vec![
            Span::styled(
                format!(
                    "{}{} ",
                    if is_sel { "▸ " } else { "  " },
                    id_cell(&t.id, id_w)
                ),
                style,
            ),
            Span::styled(
                pad_to(t.status.as_str(), 22),
                theme.style(status_tone(t.status)),
            ),
            Span::styled(priority, theme.style(Tone::Dim)),
            Span::styled(
                fit_width(&sanitize(&t.title), room.max(8)).into_owned(),
                style,
            ),
            Span::styled(meta, theme.style(Tone::Dim)),
        ];
        if let Some(r) = row(rows, line_no as u16) {
            crate::view::terminal::cells::render_line(&Line::from(spans), r, buf);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ids are never cut where they differ: the column widens to the page's longest id
    /// (`task-s00001` whole, not `task-s000…`), and an id past the widest column folds in the
    /// middle, keeping its distinguishing tail.
    #[test]
    fn issue27_task_ids_stay_distinguishable() {
        let scaled = ["task-s00001", "task-s00002", "task-1001"];
        let w = id_width(scaled.iter().copied());
        assert_eq!(w, 11);
        let cells: Vec<String> = scaled.iter().map(|id| id_cell(id, w)).collect();
        assert_eq!(cells[0].trim_end(), "task-s00001");
        assert_eq!(cells[1].trim_end(), "task-s00002");
        assert!(cells.iter().all(|c| display_width(c) == w));
        assert_eq!(id_width(["task-1"].into_iter()), ID_MIN_W);
        let long = "task-0123456789abcdef0123456789abcdef-a";
        let long_b = "task-0123456789abcdef0123456789abcdef-b";
        let w = id_width([long, long_b].into_iter());
        assert_eq!(w, ID_MAX_W);
        let (a, b) = (id_cell(long, w), id_cell(long_b, w));
        assert_ne!(a, b, "the tails tell them apart");
        assert!(a.starts_with("task-") && a.ends_with("-a"), "{a}");
    }
}
