//! The workspace picker (`W` on every surface, and `: workspace NAME`): every configured
//! workspace with its connection and attention counts, one line each from its background
//! watch (`view::fleet`). Each line says only what was read from that workspace (its round's
//! own root, G-6); the session's own workspace is marked.
//!
//! `Enter` on the session's own workspace closes the picker. Switching the session's reads to
//! another workspace in place is not offered yet: `Enter` on another one says how to open it
//! (its own masc-tui, `--workspace NAME`), and nothing changes here.

pub mod line;

use super::layer::{Handled, Layer, LayerCx, LayerFooter, LayerHelp};
use super::{ProjectionCtx, Ui};
use crate::actors::fleet::FleetName;
use crate::view::bindings::{DOWN, ENTER, ESC, Press, Table, UP, bind};
use crate::view::command::UiCommand;
use crate::view::model::Model;
use crate::view::text::sanitize_line;
use crate::view::theme::{Theme, Tone};
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

/// The key that opens (and closes) the picker, on every surface.
pub const WORKSPACES_KEY: char = 'W';

pub const WORKSPACES: Table = Table {
    title: "Workspace picker keys",
    bindings: &[
        bind(
            "j / k, Down / Up",
            &[Press::ch('j'), Press::ch('k'), DOWN, UP],
            "move",
        ),
        bind(
            "Enter",
            &[ENTER],
            "this session's workspace: close; another: how to open it",
        ),
        bind("W / Esc", &[Press::ch(WORKSPACES_KEY), ESC], "close"),
    ],
};

/// The picker's state: the selected workspace, kept by name.
#[derive(Debug, Default)]
pub struct WorkspacesLayer {
    pub selected: Option<FleetName>,
}

impl WorkspacesLayer {
    /// The selected line's index among the configured members.
    fn index(&self, model: &Model) -> usize {
        let members = &model.fleet.roster.members;
        self.selected
            .as_ref()
            .and_then(|s| members.iter().position(|m| &m.name == s))
            .unwrap_or(0)
    }

    fn step(&mut self, model: &Model, down: bool) {
        let members = &model.fleet.roster.members;
        if members.is_empty() {
            return;
        }
        let at = self.index(model);
        let next = if down {
            (at + 1).min(members.len() - 1)
        } else {
            at.saturating_sub(1)
        };
        self.selected = Some(members[next].name.clone());
    }

    fn enter(&self, cx: &mut LayerCx<'_>) -> UiCommand {
        let model = cx.model;
        let Some(member) = model.fleet.roster.members.get(self.index(model)) else {
            cx.close();
            return UiCommand::Repaint;
        };
        if model.fleet.roster.active.as_ref() == Some(&member.name) {
            cx.close();
            return UiCommand::Repaint;
        }
        cx.ui.notice.text = Some(format!(
            "{name}: switching in this session is not built yet; open it in another terminal \
             with masc-tui --workspace {name} --state-dir DIR",
            name = sanitize_line(&member.name.0)
        ));
        UiCommand::Repaint
    }
}

/// Opens the picker on the session's own workspace (or `at`, when configured).
pub fn open(ui: &mut Ui, model: &Model, at: Option<&FleetName>) -> UiCommand {
    let roster = &model.fleet.roster;
    let selected = at
        .filter(|n| roster.members.iter().any(|m| &m.name == *n))
        .or(roster.active.as_ref())
        .cloned();
    ui.layers.push(WorkspacesLayer { selected });
    UiCommand::Repaint
}

impl Layer for WorkspacesLayer {
    fn captures(&self) -> bool {
        false
    }

    fn key(&mut self, cx: &mut LayerCx<'_>, key: KeyEvent) -> Handled {
        let cmd = match key.code {
            KeyCode::Tab | KeyCode::BackTab => {
                cx.close();
                return Handled::Passed;
            }
            KeyCode::Char('q') | KeyCode::Char('?') | KeyCode::Char(':') => return Handled::Passed,
            KeyCode::Esc | KeyCode::Char(WORKSPACES_KEY) => {
                cx.close();
                UiCommand::Repaint
            }
            KeyCode::Char('j') | KeyCode::Down => {
                self.step(cx.model, true);
                UiCommand::Repaint
            }
            KeyCode::Char('k') | KeyCode::Up => {
                self.step(cx.model, false);
                UiCommand::Repaint
            }
            KeyCode::Enter => self.enter(cx),
            _ => UiCommand::None,
        };
        Handled::Consumed(cmd)
    }

    fn render(
        &self,
        model: &Model,
        _ui: &Ui,
        ctx: &ProjectionCtx,
        _frame: Rect,
        body: Rect,
        buf: &mut Buffer,
    ) -> Option<(u16, u16)> {
        let theme = ctx.theme;
        let mut lines = vec![Line::styled("WORKSPACES", theme.style(Tone::Strong))];
        if model.fleet.roster.members.is_empty() {
            lines.push(Line::styled(
                "No workspaces configured: name them in the config file ([workspaces.NAME]; \
                 masc-tui config check shows what it resolves).",
                theme.style(Tone::Dim),
            ));
        }
        let at = self.index(model);
        let active = model.fleet.roster.active.as_ref();
        for (i, (member, entry)) in model.fleet.lines().enumerate() {
            let mut spans =
                line::fleet_spans(member, entry, active == Some(&member.name), theme, ctx.now);
            let selected = i == at;
            spans.insert(0, Span::raw(if selected { "› " } else { "  " }));
            let mut shown = Line::from(spans);
            if selected {
                shown = shown.patch_style(theme.selected());
            }
            lines.push(shown);
        }
        ratatui::widgets::Clear.render(body, buf);
        Paragraph::new(lines).render(body, buf);
        None
    }

    fn covers_body(&self) -> bool {
        true
    }

    fn footer(&self, _model: &Model, _ui: &Ui, theme: Theme) -> Option<LayerFooter> {
        Some(LayerFooter::Spans(vec![Span::styled(
            "j/k move · Enter open · W/Esc close · ? help",
            theme.style(Tone::Dim),
        )]))
    }

    fn help(&self) -> Option<LayerHelp> {
        Some(LayerHelp::passing(&WORKSPACES))
    }
}
