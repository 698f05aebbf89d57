//! The System surface (surfaces.md "System", "Runtime", "Tools"): four panes cycled with
//! `p` — Runtime catalogue, all tools (inventory), Skills catalogue, async runs. Each pane
//! draws its own slot's pending, observation and failure (T-3); none waits for another (T-2).
//! Read-only in this version.

mod connectors;
mod panes;
mod runtime;

use super::ProjectionCtx;
use super::widgets::Ring;
pub use super::widgets::slot_status;
use crate::view::model::Model;
use crate::view::theme::{Theme, Tone};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SystemPane {
    #[default]
    Runtime,
    Tools,
    Skills,
    AsyncRuns,
    Connectors,
}

impl super::widgets::Ring for SystemPane {
    const RING: &'static [Self] = &Self::ALL;
}

impl SystemPane {
    pub const ALL: [SystemPane; 5] = [
        Self::Runtime,
        Self::Tools,
        Self::Skills,
        Self::AsyncRuns,
        Self::Connectors,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Self::Runtime => "Runtime",
            Self::Tools => "all tools",
            Self::Skills => "Skills",
            Self::AsyncRuns => "async runs",
            Self::Connectors => "connectors",
        }
    }

    /// The source `r` re-reads on this pane.
    pub fn source(self) -> crate::actors::contract::SourceKey {
        match self {
            Self::Runtime => crate::actors::system::RUNTIME,
            Self::Connectors => crate::actors::system::CONNECTORS,
            _ => crate::actors::system::TOOLS,
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct SystemUi {
    pub pane: SystemPane,
    /// Scroll per pane, in rows.
    pub scroll: [usize; 5],
}

impl SystemUi {
    pub fn scroll_mut(&mut self) -> &mut usize {
        &mut self.scroll[self.pane.position()]
    }
}

pub const SYSTEM_KEYS: &[(&str, &str)] = &[
    (
        "p / P",
        "next / previous pane: Runtime · all tools · Skills · async runs · connectors",
    ),
    ("j / k, PgUp / PgDn, Home", "scroll the pane"),
    ("r", "re-read this pane's source (Tools: all three reads)"),
];

fn pane_line(ui: &SystemUi, theme: Theme) -> Line<'static> {
    let mut spans = vec![Span::styled("SYSTEM  ", theme.style(Tone::Strong))];
    for pane in SystemPane::ALL {
        let text = format!(" {} ", pane.title());
        if pane == ui.pane {
            spans.push(Span::styled(
                format!("[{}]", text.trim()),
                theme.style(Tone::Accent),
            ));
        } else {
            spans.push(Span::styled(text, theme.style(Tone::Dim)));
        }
    }
    Line::from(spans)
}

pub fn render(model: &Model, ui: &SystemUi, ctx: &ProjectionCtx, area: Rect, buf: &mut Buffer) {
    if area.height == 0 {
        return;
    }
    pane_line(ui, ctx.theme).render(Rect::new(area.x, area.y, area.width, 1), buf);
    let width = area.width as usize;
    let lines = match ui.pane {
        SystemPane::Runtime => runtime::lines(model, ctx, width),
        SystemPane::Tools => panes::tools_lines(model, ctx, width),
        SystemPane::Skills => panes::skills_lines(model, ctx, width),
        SystemPane::AsyncRuns => panes::async_lines(model, ctx, width),
        SystemPane::Connectors => connectors::lines(model, ctx, width),
    };
    let body = Rect::new(area.x, area.y + 1, area.width, area.height - 1);
    let scroll = ui.scroll[ui.pane.position()].min(lines.len().saturating_sub(1));
    Paragraph::new(lines.into_iter().skip(scroll).collect::<Vec<_>>()).render(body, buf);
}

pub fn footer_spans(theme: Theme) -> Vec<Span<'static>> {
    vec![Span::styled(
        " · p pane · j/k scroll",
        theme.style(Tone::Dim),
    )]
}

/// System keys: `p`/`P` panes, scrolling; `r` is global.
pub fn handle(ui: &mut SystemUi, key: crossterm::event::KeyEvent, body_rows: u16) -> bool {
    use crossterm::event::KeyCode;
    let page = body_rows.saturating_sub(1).max(1) as usize;
    match key.code {
        KeyCode::Char('p') => ui.pane = ui.pane.next(),
        KeyCode::Char('P') => ui.pane = ui.pane.previous(),
        KeyCode::Char('j') | KeyCode::Down => *ui.scroll_mut() += 1,
        KeyCode::Char('k') | KeyCode::Up => {
            let s = ui.scroll_mut();
            *s = s.saturating_sub(1);
        }
        KeyCode::PageDown => *ui.scroll_mut() += page,
        KeyCode::PageUp => {
            let s = ui.scroll_mut();
            *s = s.saturating_sub(page);
        }
        KeyCode::Home | KeyCode::Char('g') => *ui.scroll_mut() = 0,
        _ => return false,
    }
    true
}

/// The System surface as a [`Screen`](super::screen::Screen).
pub struct SystemScreen;

impl super::screen::Screen for SystemScreen {
    fn render(
        &self,
        model: &Model,
        ui: &super::Ui,
        ctx: &ProjectionCtx,
        area: Rect,
        buf: &mut Buffer,
    ) {
        render(model, &ui.system, ctx, area, buf);
    }

    fn footer(&self, _ui: &super::Ui, theme: Theme) -> Vec<Span<'static>> {
        footer_spans(theme)
    }

    fn help_keys(&self) -> &'static [(&'static str, &'static str)] {
        SYSTEM_KEYS
    }

    fn handle_key(
        &self,
        ui: &mut super::Ui,
        _model: &Model,
        key: crossterm::event::KeyEvent,
    ) -> crate::view::command::UiCommand {
        let rows = super::body_area(ui.area).height;
        if handle(&mut ui.system, key, rows) {
            crate::view::command::UiCommand::Repaint
        } else {
            crate::view::command::UiCommand::None
        }
    }

    fn refresh(&self, ui: &mut super::Ui) -> crate::view::command::UiCommand {
        crate::view::command::UiCommand::Refresh(ui.system.pane.source())
    }
}
