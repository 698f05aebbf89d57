//! The Work surface (surfaces.md "Work → Goals", "Work → Tasks"): the Goals rollup with its
//! goal detail and Goal timeline, and the Task list with the Task detail (body + history).
//!
//! Every read shows its own state: never read, reading, warming, normal empty, failed without
//! a value and failed beside the last value all read differently (G-4, G-5).

pub mod detail;
pub mod goals;
pub mod keys;
pub mod state;
pub mod tasks;

use super::react::{ReactCx, Seen};
use super::widgets::Ring;
use super::{ProjectionCtx, Search, Ui};
use crate::actors::contract::SourceKey;
use crate::view::command::UiCommand;
use crate::view::model::Model;
use crate::view::text::sanitize;
use crate::view::theme::{Theme, Tone};
use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Span;

/// Which Work pane is shown (`t` toggles).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WorkPane {
    #[default]
    Goals,
    Tasks,
}

/// `f`: which goals are listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GoalFilter {
    #[default]
    All,
    Active,
    Completed,
    Dropped,
}

impl Ring for GoalFilter {
    const RING: &'static [Self] = &[Self::All, Self::Active, Self::Completed, Self::Dropped];
}

impl GoalFilter {
    pub fn label(self) -> &'static str {
        match self {
            Self::All => "all",
            Self::Active => "active",
            Self::Completed => "completed",
            Self::Dropped => "dropped",
        }
    }
}

/// `s`: how goals are ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GoalSort {
    #[default]
    PhasePriority,
    Updated,
    Due,
}

impl Ring for GoalSort {
    const RING: &'static [Self] = &[Self::PhasePriority, Self::Updated, Self::Due];
}

impl GoalSort {
    pub fn label(self) -> &'static str {
        match self {
            Self::PhasePriority => "phase/P1-P5",
            Self::Updated => "updated",
            Self::Due => "due",
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GoalsUi {
    pub selected: usize,
    pub offset: usize,
    pub filter: GoalFilter,
    pub sort: GoalSort,
    /// The goal whose detail is open.
    pub open: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TasksUi {
    pub selected: usize,
    pub offset: usize,
    pub search: Option<Search>,
    /// The task whose detail is open.
    pub open: Option<String>,
    /// Saved scroll of the history rows / the document (never reset by a provisional count).
    pub history_scroll: usize,
    pub body_scroll: usize,
    /// Digits typed before `H` in the task detail: how many older pages it reads.
    pub count: Option<u32>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WorkUi {
    pub pane: WorkPane,
    pub goals: GoalsUi,
    pub tasks: TasksUi,
}

impl WorkUi {
    /// A search field is taking typed keys.
    pub fn typing(&self) -> bool {
        self.pane == WorkPane::Tasks
            && self.tasks.open.is_none()
            && self.tasks.search.as_ref().is_some_and(|s| s.typing)
    }
}

/// Paints the Work surface.
pub fn render(model: &Model, work: &WorkUi, ctx: &ProjectionCtx, area: Rect, buf: &mut Buffer) {
    match work.pane {
        WorkPane::Goals => match &work.goals.open {
            Some(_) => detail::render_goal(model, work, ctx, area, buf),
            None => goals::render(model, &work.goals, ctx, area, buf),
        },
        WorkPane::Tasks => match &work.tasks.open {
            Some(_) => detail::render_task(model, work, ctx, area, buf),
            None => tasks::render(model, &work.tasks, ctx, area, buf),
        },
    }
}

/// The footer line of the Work surface while its search is typed.
pub fn footer_spans(work: &WorkUi, theme: Theme) -> Option<Vec<Span<'static>>> {
    if work.typing() {
        let query = work
            .tasks
            .search
            .as_ref()
            .map(|s| sanitize(&s.query).into_owned())
            .unwrap_or_default();
        return Some(vec![
            Span::styled("/", theme.style(Tone::Accent)),
            Span::raw(query),
            Span::styled("▏", theme.style(Tone::Accent)),
            Span::styled("  Enter keep · Esc cancel", theme.style(Tone::Dim)),
        ]);
    }
    None
}

/// The Work surface as a [`Screen`](super::screen::Screen): its state is its own.
impl super::screen::Screen for WorkUi {
    fn tab(&self) -> super::Tab {
        super::Tab::Work
    }

    fn render(&self, model: &Model, _ui: &Ui, ctx: &ProjectionCtx, area: Rect, buf: &mut Buffer) {
        render(model, self, ctx, area, buf);
    }

    fn bindings(&self) -> Vec<&'static crate::view::bindings::Table> {
        vec![match (self.pane, &self.goals.open, &self.tasks.open) {
            (WorkPane::Goals, Some(_), _) => &keys::GOAL_DETAIL,
            (WorkPane::Goals, None, _) => &keys::GOALS,
            (WorkPane::Tasks, _, Some(_)) => &keys::TASK_DETAIL,
            (WorkPane::Tasks, _, None) => &keys::TASKS,
        }]
    }

    fn handle_key(&mut self, ui: &mut Ui, model: &Model, key: KeyEvent) -> UiCommand {
        // `p`: Approvals and questions (surfaces.md, Work → Goals), from the lists.
        let in_detail = self.goals.open.is_some() || self.tasks.open.is_some();
        if key.code == crossterm::event::KeyCode::Char('p') && !in_detail {
            ui.layers.push(super::approvals::ApprovalsUi::opened(
                super::Tab::Work,
                model,
            ));
            return UiCommand::Repaint;
        }
        keys::handle(self, ui.area, model, key)
    }

    fn refresh(&mut self, ui: &mut Ui) -> UiCommand {
        keys::refresh(self, ui.area)
    }

    fn typing(&self) -> bool {
        WorkUi::typing(self)
    }

    fn typing_key(&mut self, _ui: &mut Ui, _model: &Model, key: KeyEvent) -> UiCommand {
        keys::typing(self, key)
    }

    fn typing_footer(&self, _ui: &Ui, theme: Theme) -> Vec<Span<'static>> {
        footer_spans(self, theme).unwrap_or_default()
    }

    fn shown_sources(&self) -> &'static [SourceKey] {
        use crate::actors::work::{PLANNING, TASK_LIST, WORK_DETAIL};
        &[PLANNING, TASK_LIST, WORK_DETAIL]
    }

    /// A restarted Work detail source lost its open objects: open them again (new tickets).
    fn react(&mut self, ui: &mut Ui, cx: &mut ReactCx<'_>, seen: Seen) {
        if seen != Seen::Restarted(crate::actors::work::WORK_DETAIL) {
            return;
        }
        let rows = state::page_rows_for(ui.area);
        for cmd in cx.model().work.reopen_commands(rows) {
            if let Err(stopped) = cx.send(crate::actors::work::WORK_DETAIL, cmd) {
                ui.notice.text = Some(not_sent(stopped).into());
            }
        }
    }
}

/// Why a Work detail command was not sent.
pub fn not_sent(stopped: bool) -> &'static str {
    if stopped {
        "not sent: work detail source stopped"
    } else {
        "not sent: work detail source not running"
    }
}
