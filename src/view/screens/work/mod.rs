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

use super::{ProjectionCtx, Search, Ui};
use crate::view::fetched::{Fetched, SlotFailure};
use crate::view::model::Model;
use crate::view::text::sanitize;
use crate::view::theme::{Theme, Tone};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use std::time::Instant;

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

impl GoalFilter {
    pub fn next(self) -> Self {
        match self {
            Self::All => Self::Active,
            Self::Active => Self::Completed,
            Self::Completed => Self::Dropped,
            Self::Dropped => Self::All,
        }
    }

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

impl GoalSort {
    pub fn next(self) -> Self {
        match self {
            Self::PhasePriority => Self::Updated,
            Self::Updated => Self::Due,
            Self::Due => Self::PhasePriority,
        }
    }

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
pub fn render(model: &Model, ui: &Ui, ctx: &ProjectionCtx, area: Rect, buf: &mut Buffer) {
    let work = &ui.work;
    match work.pane {
        WorkPane::Goals => match &work.goals.open {
            Some(_) => detail::render_goal(model, ui, ctx, area, buf),
            None => goals::render(model, &work.goals, ctx, area, buf),
        },
        WorkPane::Tasks => match &work.tasks.open {
            Some(_) => detail::render_task(model, ui, ctx, area, buf),
            None => tasks::render(model, &work.tasks, ctx, area, buf),
        },
    }
}

/// The footer line of the Work surface, when it has its own (search prompt, key hints).
pub fn footer_spans(ui: &Ui, theme: Theme) -> Option<Vec<Span<'static>>> {
    let work = &ui.work;
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
    let hint = match (work.pane, &work.goals.open, &work.tasks.open) {
        (WorkPane::Goals, Some(_), _) => " · r re-read timeline · Esc back",
        (WorkPane::Goals, None, _) => " · t Tasks · j/k · f filter · s sort · Enter detail",
        (WorkPane::Tasks, _, Some(_)) => {
            " · j/k history · J/K document · H older page · r fresh prefix · Esc back"
        }
        (WorkPane::Tasks, _, None) => " · t Goals · j/k · / search · Enter detail",
    };
    Some(vec![Span::styled(hint, theme.style(Tone::Dim))])
}

/// One status line for a slot without a usable value (never read / reading / warming /
/// failed), or `None` when there is a value to show.
pub fn no_value_line<T: Clone>(
    what: &str,
    fetched: &Fetched<T>,
    theme: Theme,
) -> Option<Line<'static>> {
    let (text, tone) = match fetched {
        Fetched::NotRequested => (format!("{what}: (not loaded yet)"), Tone::Dim),
        Fetched::Loading => (format!("{what}: reading…"), Tone::Busy),
        Fetched::Warming { last: None } => (format!("{what}: server warming up"), Tone::Warn),
        Fetched::Failed {
            last: None,
            error,
            retrying,
        } => (failure_text(what, error, *retrying), Tone::Bad),
        _ => return None,
    };
    Some(Line::styled(text, theme.style(tone)))
}

pub fn failure_text(what: &str, error: &SlotFailure, retrying: bool) -> String {
    let retry = if retrying { " · retrying…" } else { "" };
    format!("{what}: read failed ({}){retry}", error.class)
}

/// The annotation beside a shown value (re-reading, warming, failed re-read).
pub fn annotation<T: Clone>(fetched: &Fetched<T>, now: Instant) -> Option<(String, Tone)> {
    match fetched {
        Fetched::Refreshing { .. } if fetched.shows_reading(now) => {
            Some(("reading…".into(), Tone::Busy))
        }
        Fetched::Warming { last: Some(_) } => {
            Some(("server warming up · last observation".into(), Tone::Warn))
        }
        Fetched::Failed {
            last: Some(_),
            error,
            retrying,
        } => Some((
            format!(
                "data unreliable (read failed: {}){} · last observation",
                error.class,
                if *retrying { " · retrying…" } else { "" }
            ),
            Tone::Bad,
        )),
        _ => None,
    }
}

/// A rect's row `i` (1 high), clipped to the rect.
pub fn row(area: Rect, i: u16) -> Option<Rect> {
    (i < area.height).then(|| Rect::new(area.x, area.y + i, area.width, 1))
}
