//! Work → Tasks: the task list with its coverage line (per-part read states: backlog, archive,
//! goal links; an unavailable part is named, never read as "no tasks"), j/k, paging, search.

use super::TasksUi;
use super::state::task_order;
use crate::protocol::tasks::{SourceRead, TaskList, TaskStatus};
use crate::view::model::Model;
use crate::view::screens::ProjectionCtx;
use crate::view::screens::widgets::{annotation, effective_offset, no_value_line, row};
use crate::view::text::{fit_width, pad_to, sanitize};
use crate::view::theme::{Theme, Tone};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

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
    let theme = ctx.theme;
    let slot = &model.work.tasks;
    let mut title = vec![Span::styled("TASKS", theme.style(Tone::Strong))];
    if let Some((text, tone)) = annotation(&slot.fetched, ctx.now) {
        title.push(Span::styled(format!("  {text}"), theme.style(tone)));
    }
    let Some(observed) = slot.fetched.last() else {
        if let Some(r) = row(area, 0) {
            Line::from(title).render(r, buf);
        }
        if let (Some(line), Some(r)) = (
            no_value_line("task list", &slot.fetched, theme),
            row(area, 1),
        ) {
            line.render(r, buf);
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
        Line::from(title).render(r, buf);
    }
    if let Some(r) = row(area, 1) {
        coverage_line(list, theme).render(r, buf);
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
            Line::styled(shown, theme.style(Tone::Dim)).render(r, buf);
        }
        return;
    }
    let page = (rows.height as usize).max(1);
    let selected = ui.selected.min(order.len() - 1);
    let offset = effective_offset(selected, ui.offset, page, order.len());
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
        let fixed = 2 + 10 + 1 + 22 + 3;
        let room = (area.width as usize).saturating_sub(fixed + meta.chars().count());
        let spans = vec![
            Span::styled(
                format!(
                    "{}{} ",
                    if is_sel { "▸ " } else { "  " },
                    pad_to(&fit_width(&sanitize(&t.id), 10), 10)
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
            Line::from(spans).render(r, buf);
        }
    }
}
