//! `/queue` and `/context`: layers over the chat, read from the model on every frame (never a
//! snapshot that goes stale), closed with `Esc`; they take every key (`/context` its tab,
//! scroll and re-read keys, K-17: only `r` reads) and pass pastes to the chat's composer.
//!
//! - `/queue`: this Keeper's inputs not yet confirmed as started (C-32, C-33) — each with its
//!   one label and its first line, and the full request id as the explicitly opened
//!   diagnostic (C-30); or that nothing waits. With a newer MASC, the inputs that run
//!   together in one execution (C-37, `super::batch`).
//! - `/context`: the context inspector (C-57, C-58; surfaces.md "Overlays"), tabs `1:stack`
//!   (the Live Context observation with its turn and time, the gate, the roster's runtime and
//!   mode — observed values only — then the newest turn record), `2:request` and `3:proof`
//!   ([`super::context_tabs`]; protocol.md §14.11).

use super::context_tabs::{ContextTab, ContextView, proof_tab_rows, request_rows, stack_rows};
use super::{context_words, gate_words, roster_row};
use crate::actors::inspector::InspectorSlot;
use crate::protocol::keeper_detail::ContextObservation;
use crate::view::command::UiCommand;
use crate::view::fetched::Fetched;
use crate::view::model::Model;
use crate::view::screens::ProjectionCtx;
use crate::view::screens::Ui;
use crate::view::screens::help::clear_wide_overhang;
use crate::view::screens::inspector::reads::read_wanted;
use crate::view::screens::layer::{Handled, Layer, LayerCx};
use crate::view::screens::react::{ReactCx, Seen};
use crate::view::text::{fit_width, sanitize};
use crate::view::theme::Tone;
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Widget};

/// Which overlay is open over the chat.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChatOverlay {
    Queue,
    Context(ContextView),
}

/// An overlay open over the chat of `keeper`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatOverlayLayer {
    pub keeper: String,
    pub overlay: ChatOverlay,
}

/// Opens `overlay` over the chat of `keeper` (replacing one already open).
pub fn open(ui: &mut Ui, keeper: &str, overlay: ChatOverlay) {
    ui.layers.remove::<ChatOverlayLayer>();
    ui.layers.push(ChatOverlayLayer {
        keeper: keeper.to_string(),
        overlay,
    });
}

/// The overlay open over the chat, if any.
pub fn open_over(ui: &Ui) -> Option<ChatOverlay> {
    ui.layer::<ChatOverlayLayer>().map(|l| l.overlay)
}

impl Layer for ChatOverlayLayer {
    fn key(&mut self, cx: &mut LayerCx<'_>, key: KeyEvent) -> Handled {
        if let ChatOverlay::Context(view) = &mut self.overlay {
            return Handled::Consumed(match view.key(key, &self.keeper, cx.model) {
                Some(cmd) => cmd,
                None => {
                    cx.close();
                    UiCommand::Repaint
                }
            });
        }
        if matches!(key.code, KeyCode::Esc | KeyCode::Char('q')) {
            cx.close();
            return Handled::Consumed(UiCommand::Repaint);
        }
        Handled::Consumed(UiCommand::None)
    }

    fn render(
        &self,
        model: &Model,
        _ui: &Ui,
        ctx: &ProjectionCtx,
        frame: Rect,
        _body: Rect,
        buf: &mut Buffer,
    ) -> Option<(u16, u16)> {
        render(self.overlay, &self.keeper, model, ctx, frame, buf);
        None
    }

    /// `/context` reads the chat target's records page and, once it is read, the serialized
    /// input of its newest turn (K-17).
    fn react(&mut self, _ui: &mut Ui, cx: &mut ReactCx<'_>, seen: Seen) {
        if !matches!(self.overlay, ChatOverlay::Context(_)) || matches!(seen, Seen::Restarted(_)) {
            return;
        }
        let mut wanted = vec![InspectorSlot::Records(self.keeper.clone())];
        if let Some(target) = super::context_tabs::newest_turn(cx.model(), &self.keeper) {
            wanted.push(InspectorSlot::Input(target));
        }
        read_wanted(cx, wanted);
    }
}

fn queue_lines(keeper: &str, model: &Model) -> Vec<(String, Tone)> {
    let pane = model.chat.pane.as_ref().filter(|p| p.keeper == keeper);
    let Some(pane) = pane else {
        return vec![("the chat is not loaded".into(), Tone::Dim)];
    };
    let waiting: Vec<_> = pane
        .sends
        .iter()
        .filter_map(|(id, s)| s.pending_state().map(|state| (id, s, state)))
        .collect();
    if waiting.is_empty() {
        let mut out = vec![(
            format!("no input of yours waits for {}", sanitize(keeper)),
            Tone::Dim,
        )];
        out.extend(super::batch::lines(pane));
        return out;
    }
    let mut out = vec![(format!("›  대기 입력 {}건", waiting.len()), Tone::Strong)];
    for (i, (id, send, state)) in waiting.into_iter().enumerate() {
        let first = send.text.lines().next().unwrap_or("");
        out.push((
            format!("{}  {} · {}", i + 1, state.label(), sanitize(first)),
            Tone::Normal,
        ));
        out.push((format!("   request {}", sanitize(id)), Tone::Dim));
        out.extend(super::batch::waiting_execution(pane, id, send));
    }
    out.extend(super::batch::lines(pane));
    out
}

fn context_lines(keeper: &str, model: &Model) -> Vec<(String, Tone)> {
    let detail = model.keeper_detail.of(keeper);
    let fetched = detail.map(|d| &d.context.fetched);
    let (words, tone) = context_words(fetched);
    let mut out = vec![(format!("chat target {}", sanitize(keeper)), Tone::Strong)];
    out.push((words, tone));
    let observed = fetched.and_then(|f| match f {
        Fetched::Ready(o) | Fetched::Refreshing { last: o, .. } => Some(o.value.clone()),
        Fetched::Warming { last: Some(o) }
        | Fetched::Failed { last: Some(o), .. }
        | Fetched::NotServed { last: Some(o), .. } => Some(o.value.clone()),
        _ => None,
    });
    if let Some(c) = observed {
        match &c.context {
            ContextObservation::Observed {
                observed_at,
                turn_ref,
                absolute_turn,
                request_body_bytes,
                usage_scope,
                ..
            } => {
                out.push((
                    format!("observed {} · turn {absolute_turn}", sanitize(observed_at)),
                    Tone::Dim,
                ));
                out.push((format!("turn ref {}", sanitize(turn_ref)), Tone::Dim));
                if let Some(bytes) = request_body_bytes {
                    out.push((format!("request body {bytes} bytes"), Tone::Dim));
                }
                if let Some(scope) = usage_scope {
                    out.push((format!("usage scope {}", sanitize(scope)), Tone::Dim));
                }
            }
            ContextObservation::NotObserved {
                raw_input_tokens,
                context_window,
                ..
            } => {
                if let Some(t) = raw_input_tokens {
                    out.push((
                        format!("raw input tokens {t} (not a context reading)"),
                        Tone::Dim,
                    ));
                }
                if let Some(w) = context_window {
                    out.push((format!("context window {w}"), Tone::Dim));
                }
            }
        }
        out.push((
            format!(
                "trace {} · generation {}",
                sanitize(&c.trace_id),
                c.generation
            ),
            Tone::Dim,
        ));
    }
    out.push((gate_words(&model.keeper_detail.gate.fetched).0, Tone::Dim));
    let (mode, _) = super::status::mode_words(&model.keeper_detail.tool_modes.fetched, keeper);
    out.push((format!("tool approval {mode}"), Tone::Dim));
    match roster_row(model, keeper) {
        Some(row) => {
            out.push((
                format!(
                    "runtime {}",
                    row.runtime_id
                        .as_deref()
                        .map_or("not reported".into(), |r| sanitize(r).into_owned())
                ),
                Tone::Dim,
            ));
            out.push((super::status::activation_words(row).to_string(), Tone::Dim));
        }
        None => out.push(("roster not read".into(), Tone::Dim)),
    }
    out
}

/// Paints the open overlay over `area` (the whole frame), as the help overlay is painted.
pub fn render(
    overlay: ChatOverlay,
    keeper: &str,
    model: &Model,
    ctx: &ProjectionCtx,
    area: Rect,
    buf: &mut Buffer,
) {
    let theme = ctx.theme;
    let (title, rows, width, scroll) = match overlay {
        ChatOverlay::Queue => (
            " /queue · Esc closes ".to_string(),
            queue_lines(keeper, model),
            70,
            0,
        ),
        ChatOverlay::Context(view) => {
            let rows = match view.tab {
                ContextTab::Stack => {
                    let mut rows = context_lines(keeper, model);
                    rows.push((String::new(), Tone::Dim));
                    rows.extend(stack_rows(model, keeper));
                    rows
                }
                ContextTab::Request => request_rows(model, keeper),
                ContextTab::Proof => proof_tab_rows(model, keeper),
            };
            (
                format!(" /context · {} · r re-reads · Esc closes ", view.tabs()),
                rows,
                100,
                view.scroll[view.tab.index()],
            )
        }
    };
    let width = width.min(area.width);
    let inner = usize::from(width.saturating_sub(2));
    // Scrolling reads nothing (K-17): it moves the window over the rows already built.
    let page = usize::from(area.height.saturating_sub(2));
    let offset = scroll.min(rows.len().saturating_sub(page));
    let lines: Vec<Line> = rows
        .into_iter()
        .skip(offset)
        .take(page)
        .map(|(text, tone)| {
            Line::from(Span::styled(
                fit_width(&text, inner).into_owned(),
                theme.style(tone),
            ))
        })
        .collect();
    let height = (u16::try_from(lines.len()).unwrap_or(u16::MAX) + 2).min(area.height);
    let pane = Rect::new(
        area.x + (area.width - width) / 2,
        area.y + (area.height - height) / 2,
        width,
        height,
    );
    Clear.render(pane, buf);
    clear_wide_overhang(pane, buf);
    Paragraph::new(lines)
        .block(Block::bordered().title(fit_width(&title, inner).into_owned()))
        .render(pane, buf);
}
