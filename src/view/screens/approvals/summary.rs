//! The Asks part of the Approvals view (surfaces.md "Approvals / Ask"; sources.md K-6…K-8):
//! one row per open Ask under the approvals, then the summary preview of the selected Ask's
//! question in the rows left (prepared once per draw; never answer mode).

use super::asks;
use super::{ApprovalsUi, ProjectionCtx, workspace};
use crate::view::model::Model;
use crate::view::screens::widgets::{annotation, effective_offset, no_value_line};
use crate::view::theme::Tone;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

/// The approvals get the top, the Asks the bottom half once the Asks were read at all.
pub fn split_for_asks(model: &Model, area: Rect) -> (Rect, Option<Rect>) {
    if matches!(
        model.decisions.asks.fetched,
        crate::view::fetched::Fetched::NotRequested
    ) || area.height < 4
    {
        return (area, None);
    }
    let asks_h = area.height / 2;
    let top = Rect::new(area.x, area.y, area.width, area.height - asks_h);
    let bottom = Rect::new(area.x, area.y + top.height, area.width, asks_h);
    (top, Some(bottom))
}

/// The selected open Ask of the summary, by id (else the first), and its position.
pub fn selected_ask<'a>(
    model: &'a Model,
    ui: &ApprovalsUi,
) -> Option<(usize, &'a crate::protocol::asks::Ask)> {
    let open = asks::open_asks(model);
    let at = ui
        .ask
        .as_ref()
        .and_then(|r| open.iter().position(|a| asks::ask_ref(a) == *r))
        .unwrap_or(0);
    open.get(at).map(|a| (at, *a))
}

/// The open Asks: one row each, then the summary preview of the selected Ask's question in
/// the rows left (K-6, K-7: prepared once in this draw; never answer mode).
pub fn render_asks(
    model: &Model,
    ui: &ApprovalsUi,
    drafts: &asks::AsksUi,
    ctx: &ProjectionCtx,
    area: Rect,
    buf: &mut Buffer,
) {
    let theme = ctx.theme;
    let fetched = &model.decisions.asks.fetched;
    let width = area.width as usize;
    let mut lines: Vec<Line<'static>> = Vec::new();
    let open = asks::open_asks(model);
    let mut title = vec![Span::styled("ASKS", theme.style(Tone::Strong))];
    if fetched.last().is_some() {
        title.push(Span::raw(format!("  ({} open)", open.len())));
    }
    if let Some((text, tone)) = annotation(fetched, ctx.now) {
        title.push(Span::styled(format!("  {text}"), theme.style(tone)));
    }
    lines.push(Line::from(title));
    if let Some(line) = no_value_line("asks", fetched, theme) {
        lines.push(line);
    }
    if fetched.last().is_some() && open.is_empty() {
        lines.push(Line::styled("  no open Asks", theme.style(Tone::Dim)));
    }
    let ws = workspace(model).unwrap_or_default();
    let selected = selected_ask(model, ui);
    let list_budget = (area.height as usize).saturating_sub(lines.len()) / 2;
    let at = selected.map_or(0, |(i, _)| i);
    let offset = effective_offset(at, 0, list_budget.max(1), open.len());
    for (i, ask) in open
        .iter()
        .enumerate()
        .skip(offset)
        .take(list_budget.max(1))
    {
        let drafted = ask
            .questions
            .iter()
            .filter(|q| {
                drafts
                    .draft(&asks::DraftKey::of(&ws, ask, q))
                    .is_some_and(|d| !d.is_empty())
            })
            .count();
        let words = asks::latest_answer(model, &ws, &asks::ask_ref(ask)).map(asks::answer_words);
        lines.push(asks::ask_line(ask, i == at, drafted, words, width, theme));
    }
    if let Some((_, ask)) = selected {
        let index = ui.ask_question.min(ask.questions.len().saturating_sub(1));
        let draft = ask
            .questions
            .get(index)
            .and_then(|q| drafts.draft(&asks::DraftKey::of(&ws, ask, q)));
        // One preparation per draw, used for the height decision and the display alike.
        let preview = asks::prepare_preview(ask, index, draft, width, theme);
        let budget = (area.height as usize).saturating_sub(lines.len());
        lines.extend(asks::layout_preview(&preview, budget, theme));
    }
    for (y, line) in lines.into_iter().take(area.height as usize).enumerate() {
        line.render(Rect::new(area.x, area.y + y as u16, area.width, 1), buf);
    }
}
