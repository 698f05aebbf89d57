//! What the Ask answer reader draws: its body (the bound Ask, the active question, the answer
//! input only on the question its draft key names, K-8; origin and follow-up), the summary of
//! what an answer sends, and the footer. Keys and state are the parent module's.

use super::super::asks::{
    AsksUi, DraftKey, Input, answer_words, ask_ref, clock, latest_answer, question_rows,
};
use super::super::follow_up::{follow_up_lines, origin_lines};
use super::super::{ProjectionCtx, workspace};
use super::{AskReader, current};
use crate::protocol::asks::{AnswerResponse, Ask};
use crate::protocol::outcome::SaveClass;
use crate::view::model::Model;
use crate::view::screens::inspector::turn as inspector;
use crate::view::text::{fit_width, sanitize, wrap};
use crate::view::theme::{Theme, Tone};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Widget;

fn response_words(r: &AnswerResponse, q: &crate::protocol::asks::AskQuestion) -> String {
    match r {
        AnswerResponse::Chose { choice_ids } => {
            let labels: Vec<String> = choice_ids
                .iter()
                .filter_map(|id| q.choices.iter().find(|c| c.choice_id == *id))
                .map(|c| fit_width(&sanitize(&c.label), 24).into_owned())
                .collect();
            format!("chose {}", labels.join(", "))
        }
        AnswerResponse::Wrote { text } => {
            format!("wrote \"{}\"", fit_width(&sanitize(text), 24))
        }
        AnswerResponse::Skipped => "skipped".to_string(),
    }
}

/// What the answer would send, one phrase per question.
pub fn sends_summary(asks: &AsksUi, ws: &str, ask: &Ask) -> String {
    let intent = asks.intent(ws, ask);
    intent
        .answers
        .iter()
        .zip(&ask.questions)
        .enumerate()
        .map(|(i, (a, q))| format!("Q{} {}", i + 1, response_words(&a.response, q)))
        .collect::<Vec<_>>()
        .join(" · ")
}

/// Every row of the reader's body for the current state (the body scrolls over them).
fn body_lines(
    model: &Model,
    asks: &AsksUi,
    reader: &AskReader,
    width: usize,
    theme: Theme,
) -> Vec<Line<'static>> {
    let ws = workspace(model).unwrap_or_default();
    let Some((pos, n, listed)) = current(model, asks, reader) else {
        return vec![
            Line::styled(
                format!(
                    "ASK {} · {} is no longer listed (answered elsewhere or withdrawn)",
                    sanitize(&reader.ask.ask_id),
                    sanitize(&reader.ask.keeper)
                ),
                theme.style(Tone::Warn),
            ),
            Line::styled(
                "  its drafts are kept · [ ] another Ask · Esc back",
                theme.style(Tone::Dim),
            ),
        ];
    };
    let ask = listed.ask;
    let mut out = Vec::new();
    let state = if listed.open {
        "open"
    } else {
        "answered this session · no longer listed open"
    };
    out.push(Line::styled(
        fit_width(
            &format!(
                "ASK {}/{n} · {} · {} · asked {} · {state}",
                pos + 1,
                sanitize(&ask.keeper),
                sanitize(&ask.ask_id),
                clock(ask.asked_at)
            ),
            width,
        )
        .into_owned(),
        theme.style(Tone::Strong),
    ));
    for part in wrap(&sanitize(&ask.context), width.saturating_sub(2).max(1)) {
        out.push(Line::styled(format!("  {part}"), theme.style(Tone::Dim)));
    }
    // The answer's receipt, its follow-up and the origin come before the question: a long
    // question (a 3,000-character option) never pushes what became of the answer off screen.
    let r = ask_ref(ask);
    let entry = latest_answer(model, &ws, &r);
    let saved = entry.map(answer_words);
    if let Some((words, tone)) = &saved {
        for part in wrap(words, width.max(1)) {
            out.push(Line::styled(part, theme.style(*tone)));
        }
    }
    let follow = model.asks.follow_up(&ws, &r);
    if let Some(f) = follow {
        let applied = entry
            .and_then(|e| e.phase.class())
            .filter(|c| *c == SaveClass::Applied)
            .and(saved.clone());
        out.extend(follow_up_lines(f, applied, width, theme));
    }
    if reader.origin_open {
        out.extend(origin_lines(ask, follow, width, theme));
    }
    if saved.is_some() || follow.is_some() || reader.origin_open {
        out.push(Line::raw(""));
    }
    let question = reader.question.min(ask.questions.len().saturating_sub(1));
    let tabs: Vec<String> = ask
        .questions
        .iter()
        .enumerate()
        .map(|(i, q)| {
            let drafted = asks
                .draft(&DraftKey::of(&ws, ask, q))
                .is_some_and(|d| !d.is_empty());
            let label = fit_width(&sanitize(&q.header), 16).into_owned();
            match (i == question, drafted) {
                (true, true) => format!("[Q{} {label} ✎]", i + 1),
                (true, false) => format!("[Q{} {label}]", i + 1),
                (false, true) => format!("Q{} {label} ✎", i + 1),
                (false, false) => format!("Q{} {label}", i + 1),
            }
        })
        .collect();
    out.push(Line::styled(
        fit_width(&tabs.join("  "), width).into_owned(),
        theme.style(Tone::Accent),
    ));
    if let Some(q) = ask.questions.get(question) {
        let key = DraftKey::of(&ws, ask, q);
        // K-8: the input only where both ids match its draft key.
        let input = match &reader.input {
            Some(k) if k.names(ask, q) && k.workspace == ws => Input::Typing,
            _ => Input::Hidden,
        };
        out.extend(question_rows(
            ask,
            question,
            asks.draft(&key),
            input,
            width,
            theme,
        ));
        if let Some(k) = &reader.input
            && input == Input::Hidden
        {
            out.push(Line::styled(
                format!(
                    "  (the answer input belongs to {} of {}; not shown here)",
                    sanitize(&k.question_id),
                    sanitize(&k.ask_id)
                ),
                theme.style(Tone::Warn),
            ));
        }
    }
    out.push(Line::raw(""));
    for part in wrap(
        &format!("sends: {}", sends_summary(asks, &ws, ask)),
        width.max(1),
    ) {
        out.push(Line::styled(part, theme.style(Tone::Dim)));
    }
    out
}

/// Paints the reader (or its inspector) into the body area.
pub fn render(
    model: &Model,
    asks: &AsksUi,
    reader: &AskReader,
    ctx: &ProjectionCtx,
    area: Rect,
    buf: &mut Buffer,
) {
    if let Some(ins) = &reader.inspector {
        inspector::render(model, ins, ctx, area, buf);
        return;
    }
    let lines = body_lines(model, asks, reader, area.width as usize, ctx.theme);
    let page = area.height as usize;
    let offset = reader.scroll.min(lines.len().saturating_sub(page));
    for (y, line) in lines.into_iter().skip(offset).take(page).enumerate() {
        line.render(Rect::new(area.x, area.y + y as u16, area.width, 1), buf);
    }
}

/// The reader's footer.
pub fn footer(model: &Model, asks: &AsksUi, reader: &AskReader, theme: Theme) -> Line<'static> {
    if reader.inspector.is_some() {
        return Line::styled(
            "1-4 tab · ←/→ tab · j/k PgUp/PgDn scroll · r re-read · Esc back",
            theme.style(Tone::Dim),
        );
    }
    if reader.typing() {
        return Line::styled(
            "writing free text · Ctrl-E in $EDITOR · Enter or Esc ends writing (the draft is kept)",
            theme.style(Tone::Accent),
        );
    }
    if reader.armed {
        let ws = workspace(model).unwrap_or_default();
        let sends = current(model, asks, reader)
            .map(|(_, _, a)| sends_summary(asks, &ws, a.ask))
            .unwrap_or_default();
        return Line::styled(
            format!("press Enter again to send: {sends} · any other key cancels"),
            theme.style(Tone::Warn),
        );
    }
    Line::styled(
        "←/→ question · [ ] Ask · 1-9 choose · i write · Enter Enter send · o origin · O inspector · f follow-up · PgUp/PgDn · Esc back",
        theme.style(Tone::Dim),
    )
}
