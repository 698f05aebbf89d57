//! Activity (§15.2): the live observer feed as a layer over the surface in front, opened with
//! `A` on every surface (a key MASC's TUI uses for the same). Newest first, one row per event:
//! the arrival time, the Keeper, MASC's glyph, label and detail. `f` cycles the scope
//! (`actions` hides the quiet rows, `turns` keeps only turn boundaries, settlements and
//! failures, `everything` shows all, quiet rows dim); `j`/`k` scroll, and leaving the newest
//! row freezes the view (`N new above`) until `g` goes back to the newest; `G` the oldest kept.
//! The header always says where the feed stands — live, reconnecting and why, needs a token,
//! not served — and what it missed; a disconnected feed never reads as "no activity".

use super::layer::{Handled, Layer, LayerCx, LayerFooter, LayerHelp};
use super::{ProjectionCtx, Ui};
use crate::actors::activity::{ACTIVITY, ActivityCommand, FeedLink};
use crate::actors::contract::SourceKey;
use crate::protocol::observer::Glyph;
use crate::view::activity::Arrived;
use crate::view::bindings::{DOWN, END, ESC, HOME, Press, Table, UP, bind};
use crate::view::command::UiCommand;
use crate::view::model::Model;
use crate::view::saves::clock;
use crate::view::text::{fit_width, sanitize_line};
use crate::view::theme::{Theme, Tone};
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Widget};
use std::time::Instant;

/// The key that opens (and closes) Activity, on every surface.
pub const ACTIVITY_KEY: char = 'A';

pub const ACTIVITY_KEYS: Table = Table {
    title: "Activity keys",
    bindings: &[
        bind(
            "f",
            &[Press::ch('f')],
            "scope: actions, turns, everything (quiet rows dim)",
        )
        .footer("scope"),
        bind(
            "j / k, Down / Up",
            &[Press::ch('j'), Press::ch('k'), DOWN, UP],
            "scroll; off the newest row the view freezes (N new above)",
        ),
        bind(
            "g / Home",
            &[Press::ch('g'), HOME],
            "the newest row: live again",
        )
        .footer("live"),
        bind("G / End", &[Press::ch('G'), END], "the oldest row kept"),
        bind(
            "r",
            &[Press::ch('r')],
            "open the feed again when it ended (no token, not served)",
        ),
        bind("A / Esc", &[Press::ch('A'), ESC], "close").footer("close"),
    ],
};

/// Which rows are shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scope {
    /// Flat, without heartbeats, signals, snapshots, stream frames and telemetry.
    #[default]
    Actions,
    /// Turn boundaries, settlements and failures only.
    Turns,
    Everything,
}

impl Scope {
    fn next(self) -> Self {
        match self {
            Self::Actions => Self::Turns,
            Self::Turns => Self::Everything,
            Self::Everything => Self::Actions,
        }
    }

    fn word(self) -> &'static str {
        match self {
            Self::Actions => "actions",
            Self::Turns => "turns",
            Self::Everything => "everything",
        }
    }

    pub fn keeps(self, a: &Arrived) -> bool {
        match self {
            Self::Actions => !a.row.quiet,
            Self::Turns => matches!(
                a.row.glyph,
                Glyph::Boundary | Glyph::Settled | Glyph::Failure
            ),
            Self::Everything => true,
        }
    }
}

#[derive(Debug, Default)]
pub struct ActivityLayer {
    pub scope: Scope,
    /// Frozen: how many rows had arrived when the view froze, and the rows scrolled past the
    /// newest shown then.
    pub frozen: Option<(u64, usize)>,
}

/// Every row that ever arrived (kept or dropped): freezing counts against it.
fn arrived(model: &Model) -> u64 {
    model.activity.rows.len() as u64 + model.activity.dropped
}

impl ActivityLayer {
    /// The rows shown, newest first, and how many arrived above a frozen view.
    pub fn shown<'m>(&self, model: &'m Model) -> (Vec<&'m Arrived>, u64) {
        let total = arrived(model);
        let (new_above, skip) = match self.frozen {
            Some((at, offset)) => (total.saturating_sub(at), offset),
            None => (0, 0),
        };
        let rows: Vec<&Arrived> = model
            .activity
            .rows
            .iter()
            .rev()
            .skip(new_above as usize)
            .filter(|a| self.scope.keeps(a))
            .skip(skip)
            .collect();
        let above = model
            .activity
            .rows
            .iter()
            .rev()
            .take(new_above as usize)
            .filter(|a| self.scope.keeps(a))
            .count() as u64;
        (rows, above)
    }

    fn scroll(&mut self, model: &Model, down: bool) {
        let (at, offset) = self.frozen.unwrap_or((arrived(model), 0));
        let offset = if down {
            offset + 1
        } else {
            offset.saturating_sub(1)
        };
        self.frozen = Some((at, offset));
    }
}

/// Opens Activity, and the feed when none runs (it then follows every epoch).
pub fn open(ui: &mut Ui, model: &Model) -> UiCommand {
    ui.layers.push(ActivityLayer::default());
    if model.activity.streaming() {
        UiCommand::Repaint
    } else {
        UiCommand::send(ActivityCommand::Open)
    }
}

impl Layer for ActivityLayer {
    fn captures(&self) -> bool {
        false
    }

    fn key(&mut self, cx: &mut LayerCx<'_>, key: KeyEvent) -> Handled {
        let model = cx.model;
        let cmd = match key.code {
            KeyCode::Tab | KeyCode::BackTab => {
                cx.close();
                return Handled::Passed;
            }
            KeyCode::Char('q') | KeyCode::Char('?') | KeyCode::Char(':') | KeyCode::Char('L') => {
                return Handled::Passed;
            }
            KeyCode::Esc | KeyCode::Char(ACTIVITY_KEY) => {
                cx.close();
                UiCommand::Repaint
            }
            KeyCode::Char('f') => {
                self.scope = self.scope.next();
                if let Some((at, _)) = self.frozen {
                    self.frozen = Some((at, 0));
                }
                UiCommand::Repaint
            }
            KeyCode::Char('j') | KeyCode::Down => {
                self.scroll(model, true);
                UiCommand::Repaint
            }
            KeyCode::Char('k') | KeyCode::Up => {
                self.scroll(model, false);
                UiCommand::Repaint
            }
            KeyCode::Char('g') | KeyCode::Home => {
                self.frozen = None;
                UiCommand::Repaint
            }
            KeyCode::Char('G') | KeyCode::End => {
                let (rows, _) = self.shown(model);
                let at = self.frozen.map_or(arrived(model), |(at, _)| at);
                let offset = self.frozen.map_or(0, |(_, o)| o);
                self.frozen = Some((at, offset + rows.len().saturating_sub(1)));
                UiCommand::Repaint
            }
            KeyCode::Char('r') => {
                if model.activity.streaming() {
                    UiCommand::Repaint
                } else {
                    UiCommand::send(ActivityCommand::Open)
                }
            }
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
        let width = usize::from(body.width);
        let theme = ctx.theme;
        let (rows, above) = self.shown(model);
        let mut lines = vec![Line::styled(
            fit_width(&header(self, model, ctx.now), width).into_owned(),
            theme.style(Tone::Strong),
        )];
        if let Some(words) = link_problem(model) {
            lines.push(Line::styled(
                fit_width(&format!("  {words}"), width).into_owned(),
                theme.style(Tone::Warn),
            ));
        }
        if above > 0 {
            lines.push(Line::styled(
                format!("  frozen · {above} new above (g: live)"),
                theme.style(Tone::Busy),
            ));
        }
        if rows.is_empty() {
            lines.push(Line::styled(
                if model.activity.streaming() {
                    "  no event in this scope yet"
                } else {
                    "  no event received"
                },
                theme.style(Tone::Dim),
            ));
        }
        let room = usize::from(body.height).saturating_sub(lines.len());
        for a in rows.into_iter().take(room) {
            let r = &a.row;
            let text = format!(
                "{}  {:<10} {} {:<16} {}",
                clock(a.at),
                sanitize_line(&r.keeper),
                r.glyph.symbol(),
                sanitize_line(&r.label),
                sanitize_line(&r.detail)
            );
            let tone = if r.quiet {
                Tone::Dim
            } else if r.glyph == Glyph::Failure {
                Tone::Warn
            } else {
                Tone::Normal
            };
            lines.push(Line::styled(
                fit_width(&text, width).into_owned(),
                theme.style(tone),
            ));
        }
        Clear.render(body, buf);
        Paragraph::new(lines).render(body, buf);
        None
    }

    fn covers_body(&self) -> bool {
        true
    }

    fn footer(&self, _model: &Model, _ui: &Ui, theme: Theme) -> Option<LayerFooter> {
        Some(LayerFooter::Spans(vec![Span::styled(
            "f scope · j/k scroll (freezes) · g live · G oldest · r reopen · A/Esc close · ? help",
            theme.style(Tone::Dim),
        )]))
    }

    fn help(&self) -> Option<LayerHelp> {
        Some(LayerHelp::passing(&ACTIVITY_KEYS))
    }

    fn shown_sources(&self) -> Option<&'static [SourceKey]> {
        Some(&[ACTIVITY])
    }
}

/// Where the feed stands, in a few words.
fn link_words(model: &Model, now: Instant) -> String {
    match &model.activity.link {
        None => "not connected yet".into(),
        Some((FeedLink::Opening { attempt: 0 }, _)) => "connecting…".into(),
        Some((FeedLink::Opening { attempt }, _)) => format!("reconnecting (attempt {attempt})…"),
        Some((FeedLink::Open { .. }, _)) => "live".into(),
        Some((FeedLink::Lost { retry_in, .. }, at)) => {
            let left = retry_in.saturating_sub(now.saturating_duration_since(*at));
            format!("disconnected · reconnecting in {}s", left.as_secs())
        }
        Some((FeedLink::NeedsToken, _)) => "needs a token".into(),
        Some((FeedLink::NotServed, _)) => "not served by this server".into(),
        Some((FeedLink::Missed { .. }, _)) => "live".into(),
    }
}

/// Why the feed is not live, with what it means, when it is not.
fn link_problem(model: &Model) -> Option<String> {
    match &model.activity.link {
        Some((FeedLink::Lost { why, last_id, .. }, _)) => Some(format!(
            "the feed dropped ({}); events after id {} are asked again on reconnect",
            why,
            last_id.map_or_else(|| "none".to_string(), |i| i.to_string())
        )),
        Some((FeedLink::NeedsToken, _)) => Some(
            "the observer feed requires a token (--token, MASC_TOKEN or the base path's token \
             file); r tries again"
                .into(),
        ),
        Some((FeedLink::NotServed, _)) => {
            Some("this server has no MCP endpoint: no Activity feed".into())
        }
        _ => None,
    }
}

fn header(layer: &ActivityLayer, model: &Model, now: Instant) -> String {
    let a = &model.activity;
    let mut head = format!(
        "ACTIVITY · {} · scope {} · {} rows",
        link_words(model, now),
        layer.scope.word(),
        a.rows.len()
    );
    if a.dropped > 0 {
        head.push_str(&format!(" · dropped {}", a.dropped));
    }
    if a.missed > 0 {
        head.push_str(&format!(" · missed {}", a.missed));
    }
    if a.undecodable > 0 {
        head.push_str(&format!(" · {} undecodable", a.undecodable));
    }
    if a.reconnects > 0 {
        head.push_str(&format!(" · {} reconnects", a.reconnects));
    }
    head
}
